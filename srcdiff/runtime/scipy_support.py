"""Emitted code's runtime for the SciPy primitives (srcdiff/primitives/scipy_*.py). These
import SciPy when they run, not when srcdiff is imported: only code that uses SciPy calls them."""
import numpy as np


def polygamma(n, x):
    """scipy.special.polygamma(n, x) in x's precision (SciPy's computes in float64), so that
    the slope of digamma in a float32 gradient stays float32."""
    from scipy.special import polygamma as scipy_polygamma
    return np.asarray(scipy_polygamma(n, x)).astype(np.result_type(x, 0.0), copy=False)
