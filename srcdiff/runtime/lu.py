"""The derivatives of scipy.linalg.lu_factor and lu_solve, plain numpy that srcdiff
differentiates through its source (second order). lu_factor(a) returns (lu, piv): a[perm] =
L U, L unit lower triangular (its strict lower triangle in lu's), U upper triangular (lu's
upper triangle), perm the rows LAPACK's row swaps piv bring up. Square real matrices.

For a[perm] = L U: L^-1 da[perm] U^-1 = L^-1 dL + dU U^-1, the first strictly lower
triangular, the second upper; so X = L^-1 da[perm] U^-1 gives dL = L tril(X, -1) and
dU = triu(X) U, and the adjoint is L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T, put back
in a's rows."""

import numpy as np

from .linalg import as_columns, from_columns
from .scipy_support import lu_permutation

__all__ = ["lu_factor_vjp", "lu_factor_jvp", "lu_solve_vjp", "lu_solve_jvp", "lu_solve_transposed"]


def _factors(lu):
    return np.tril(lu, -1) + np.eye(lu.shape[-1], dtype=lu.dtype), np.triu(lu)


def lu_factor_vjp(g, lu, piv):
    """The adjoint of a given that of lu."""
    lower, upper = _factors(lu)
    inner = np.tril(lower.T @ g, -1) + np.triu(g @ upper.T)
    permuted = np.linalg.solve(lower.T, np.linalg.solve(upper, inner.T).T)
    return permuted[np.argsort(lu_permutation(piv))]


def lu_factor_jvp(da, lu, piv):
    """The tangent of lu given that of a."""
    lower, upper = _factors(lu)
    inner = np.linalg.solve(lower, np.linalg.solve(upper.T, da[lu_permutation(piv)].T).T)
    return lower @ np.tril(inner, -1) + np.triu(inner) @ upper


def _matrix(lu, piv):
    """a, from lu_factor's (lu, piv)."""
    lower, upper = _factors(lu)
    return (lower @ upper)[np.argsort(lu_permutation(piv))]


def lu_solve_vjp(g, x, lu, piv, b):
    """The adjoint of lu in x = lu_solve((lu, piv), b), given that of x: of a, -a^-T g x^T,
    taken to L and U."""
    lower, upper = _factors(lu)
    ga = -np.linalg.solve(_matrix(lu, piv).T, as_columns(g, b)) @ as_columns(x, b).T
    permuted = ga[lu_permutation(piv)]
    return np.tril(permuted @ upper.T, -1) + np.triu(lower.T @ permuted)


def lu_solve_jvp(dlu, x, lu, piv, b):
    """The tangent of x = lu_solve((lu, piv), b) given that of lu: -a^-1 da x."""
    lower, upper = _factors(lu)
    da = (np.tril(dlu, -1) @ upper + lower @ np.triu(dlu))[np.argsort(lu_permutation(piv))]
    return from_columns(-np.linalg.solve(_matrix(lu, piv), da @ as_columns(x, b)), b)


def lu_solve_transposed(lu, piv, g):
    """a^-T g (lu_solve with trans=1), the adjoint of b in lu_solve((lu, piv), b)."""
    return np.linalg.solve(_matrix(lu, piv).T, g)
