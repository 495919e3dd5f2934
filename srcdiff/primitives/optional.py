"""Primitives of optional libraries, declared once the program imports the library's module
(registry.when_imported): srcdiff itself never imports SciPy."""

from .registry import when_imported

when_imported(
    "scipy.special",
    "srcdiff.primitives.scipy_special",
    "srcdiff.primitives.scipy_special_more",
    "srcdiff.primitives.scipy_bessel",
)
when_imported(
    "scipy.stats",
    "srcdiff.primitives.scipy_stats",
    "srcdiff.primitives.scipy_stats_cdf",
    "srcdiff.primitives.scipy_stats_moments",
    "srcdiff.primitives.scipy_stats_multivariate",
    "srcdiff.primitives.scipy_stats_discrete",
)
when_imported(
    "scipy.linalg",
    "srcdiff.primitives.scipy_linalg",
    "srcdiff.primitives.scipy_linalg_numpy",
    "srcdiff.primitives.scipy_lu",
    "srcdiff.primitives.scipy_matrix_functions",
)
when_imported("scipy.signal", "srcdiff.primitives.scipy_signal")
when_imported("scipy.spatial.distance", "srcdiff.primitives.scipy_spatial")
