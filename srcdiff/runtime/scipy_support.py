"""Emitted code's runtime for the SciPy primitives (srcdiff/primitives/scipy_*.py). These
import SciPy when they run, not when srcdiff is imported: only code that uses SciPy calls them."""
import numpy as np


def polygamma(n, x):
    """scipy.special.polygamma(n, x) in x's precision (SciPy's computes in float64), so that
    the slope of digamma in a float32 gradient stays float32."""
    from scipy.special import polygamma as scipy_polygamma
    return np.asarray(scipy_polygamma(n, x)).astype(np.result_type(x, 0.0), copy=False)


# --- distributions (scipy.stats) -------------------------------------------------------------

def dirichlet_components(x, alpha):
    """x.T, the points of scipy.stats.dirichlet's x (components along x's first axis) as
    rows; only with all of alpha's components (SciPy also takes one fewer, the last implied)."""
    if np.shape(x)[0] != np.shape(alpha)[-1]:
        from ..errors import ArgumentError
        raise ArgumentError(f"srcdiff differentiates scipy.stats.dirichlet with x holding all "
                            f"{np.shape(alpha)[-1]} components along its first axis, not "
                            f"{np.shape(x)[0]}",
                            hint="append the last component: np.concatenate([x, 1 - "
                                 "np.sum(x, axis=0, keepdims=True)])")
    return np.transpose(x)


def covariance_matrix(cov, x):
    """The matrix meant by a covariance as scipy.stats.multivariate_normal takes it: one
    variance, a vector of variances (the diagonal), or the matrix; x's last axis is the
    dimension."""
    if np.ndim(cov) == 2:
        return cov
    if np.ndim(cov) == 1:
        return np.diag(cov)
    return cov * np.eye(np.shape(x)[-1], dtype=np.result_type(cov, 0.0))


def covariance_part(g, cov):
    """The adjoint of covariance_matrix(cov, x) given g, the adjoint of the matrix: of cov's
    own form (the trace for one variance, the diagonal for a vector)."""
    if np.ndim(cov) == 2:
        return g
    if np.ndim(cov) == 1:
        return np.diagonal(g).copy()
    return np.trace(g)


def precision(cov, x):
    """The inverse of covariance_matrix(cov, x)."""
    return np.linalg.inv(covariance_matrix(cov, x))


def outer_sum(a, b):
    """The outer products of a's and b's last axes summed over their other axes (the points):
    a.T @ b for rows of points, np.outer(a, b) for one point."""
    return np.reshape(a, (-1, np.shape(a)[-1])).T @ np.reshape(b, (-1, np.shape(b)[-1]))
