"""Emitted code's runtime for SciPy's pairwise distances (srcdiff/primitives/scipy_spatial.py),
of the metrics 'euclidean' and 'sqeuclidean': plain numpy, which srcdiff differentiates
through its source (second derivatives). A distance's derivative is a weight times a_i - b_j
(2 for a squared distance, 1 / d for a distance: 0 where two points meet, as a subgradient)."""

import numpy as np

from ..errors import ArgumentError

__all__ = ["distance_weights", "cdist_vjp", "cdist_jvp", "pdist_vjp", "pdist_jvp", "squareform_vjp"]


def distance_weights(g, d, metric):
    """g times the weight of a_i - b_j in the derivative of the distances d."""
    if metric == "sqeuclidean":
        return 2.0 * g
    if metric == "euclidean":
        apart = d > 0
        return np.where(apart, g / np.where(apart, d, 1.0), 0.0)
    raise ArgumentError(
        f"srcdiff differentiates cdist and pdist of the metrics 'euclidean' and "
        f"'sqeuclidean', not {metric!r}",
        hint="write the distance with numpy, as np.sum(np.abs(a[:, None] - b[None]), -1) for "
        "'cityblock'",
    )


def cdist_vjp(g, d, XA, XB, metric):
    """The adjoint of XA in d = cdist(XA, XB, metric), given the adjoint g of d (of XB: the
    same of the transposes, with XA and XB swapped)."""
    w = distance_weights(g, d, metric)
    return np.sum(w, axis=1)[:, None] * XA - w @ XB


def cdist_jvp(dXA, d, XA, XB, metric):
    """The tangent of d = cdist(XA, XB, metric) along dXA."""
    return distance_weights(np.sum(XA * dXA, axis=1)[:, None] - dXA @ XB.T, d, metric)


def _square(v):
    """The symmetric matrix, zero on its diagonal, of condensed distances v (squareform's)."""
    n = int(round((1 + np.sqrt(1 + 8 * len(v))) / 2))
    upper = np.zeros((n, n), dtype=np.result_type(v, np.float32))  # (float32 stays float32)
    upper[np.triu_indices(n, 1)] = v
    return upper + upper.T


def pdist_vjp(g, d, X, metric):
    """The adjoint of X in d = pdist(X, metric), given the adjoint g of d."""
    return cdist_vjp(_square(g), _square(d), X, X, metric)


def pdist_jvp(dX, d, X, metric):
    """The tangent of d = pdist(X, metric) along dX."""
    moved = np.sum(X * dX, axis=1)
    both = moved[:, None] + moved[None, :] - dX @ X.T - X @ dX.T
    return distance_weights(both, _square(d), metric)[np.triu_indices(len(X), 1)]


def squareform_vjp(g, X):
    """The adjoint of X in squareform(X): of condensed distances, the pairs' two entries
    added; of a square matrix, g in its upper triangle (which squareform reads)."""
    if np.ndim(X) == 1:
        n = len(g)
        return (g + g.T)[np.triu_indices(n, 1)]
    return np.triu(_square(g), 1)
