"""Emitted code's runtime for the SciPy primitives (srcdiff/primitives/scipy_*.py). These
import SciPy when they run, not when srcdiff is imported: only code that uses SciPy calls them."""

import numpy as np


def polygamma(n, x):
    """scipy.special.polygamma(n, x) in x's precision (SciPy's computes in float64), so that
    the slope of digamma in a float32 gradient stays float32."""
    from scipy.special import polygamma as scipy_polygamma

    return np.asarray(scipy_polygamma(n, x)).astype(np.result_type(x, 0.0), copy=False)


def sign_of(z, return_sign):
    """The sign of s, of scipy.special.logsumexp's value z = (log |s|, sign) with return_sign
    (1.0 without)."""
    return z[1] if return_sign else 1.0


# --- distributions (scipy.stats) -------------------------------------------------------------


def dirichlet_components(x, alpha):
    """x.T, the points of scipy.stats.dirichlet's x (components along x's first axis) as
    rows; only with all of alpha's components (SciPy also takes one fewer, the last implied)."""
    if np.shape(x)[0] != np.shape(alpha)[-1]:
        from ..errors import ArgumentError

        raise ArgumentError(
            f"srcdiff differentiates scipy.stats.dirichlet with x holding all "
            f"{np.shape(alpha)[-1]} components along its first axis, not "
            f"{np.shape(x)[0]}",
            hint="append the last component: np.concatenate([x, 1 - "
            "np.sum(x, axis=0, keepdims=True)])",
        )
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


# --- triangular solves and Cholesky factors (scipy.linalg) ------------------------------------


def transposed(trans):
    """The `trans` option of a triangular solve with the matrix transposed (a real one)."""
    return {0: 1, 1: 0, 2: 0, "N": "T", "T": "N", "C": "N"}[trans]


def transposes(trans):
    return trans in (1, 2, "T", "C")


def _part(m, lower, unit_diagonal):
    return np.tril(m, -int(unit_diagonal)) if lower else np.triu(m, int(unit_diagonal))


def triangle(m, lower=False, unit_diagonal=False, trans=0):
    """What a triangular solve with these options reads of m (of m transposed, for trans):
    its lower or upper triangle, without the diagonal for a unit diagonal."""
    return _part(np.swapaxes(m, -1, -2) if transposes(trans) else m, lower, unit_diagonal)


def untriangle(h, lower=False, unit_diagonal=False, trans=0):
    """The adjoint of triangle: h's triangle, transposed for trans."""
    part = _part(h, lower, unit_diagonal)
    return np.swapaxes(part, -1, -2) if transposes(trans) else part


def solve_outer(s, x):
    """s x^T over the right-hand sides of a solve: np.outer for vectors, else s @ x^T."""
    return np.outer(s, x) if np.ndim(s) == 1 else s @ np.swapaxes(x, -1, -2)


def lower_factor(c, lower=False):
    """The lower triangular L (a = L L^T) in cho_factor's c: its lower triangle, or its upper
    one transposed (the other triangle of c holds arbitrary values)."""
    return untriangle(c, lower=lower, trans=0 if lower else 1)


def factor_part(g, lower=False):
    """The adjoint of lower_factor: g's lower triangle, where c holds L (or transposed)."""
    return triangle(g, lower=lower, trans=0 if lower else 1)


def lower_half(x):
    """x's lower triangle with its diagonal halved (in the adjoint of a Cholesky factor)."""
    n = np.shape(x)[-1]
    return x * (np.tri(n, dtype=np.result_type(x)) - np.eye(n, dtype=np.result_type(x)) / 2)


def factor_adjoint(g):
    """The adjoint of cho_factor's (c, lower) given c's: the flag lower gets none (zero)."""
    from .core import Sparse

    return Sparse({0: g, 1: 0.0})


# --- scipy.linalg's solve and matrix functions ------------------------------------------------

# what scipy.linalg.solve's assume_a says of a that srcdiff differentiates it for
SOLVE_STRUCTURES = {
    **dict.fromkeys((None, "gen", "general"), "general"),
    **dict.fromkeys(("sym", "symmetric", "pos", "positive definite"), "symmetric"),
    **dict.fromkeys(("her", "hermitian"), "symmetric"),  # (of a real matrix)
}


def assumed_structure(g, assume_a=None):
    """The part of g (an adjoint or a tangent of a) that scipy.linalg.solve(a, b, assume_a=...)
    varies with: all of it, or for a symmetric a its symmetric part (srcdiff differentiates
    such a solve as a function of a's symmetric part, as np.linalg.cholesky's rule does)."""
    structure = SOLVE_STRUCTURES.get(assume_a)
    if structure == "general":
        return g
    if structure == "symmetric":
        return (g + np.swapaxes(g, -1, -2)) / 2
    from ..errors import ArgumentError

    raise ArgumentError(
        f"srcdiff differentiates scipy.linalg.solve with assume_a one of "
        f"{', '.join(map(repr, SOLVE_STRUCTURES))}, not {assume_a!r}",
        hint="solve with assume_a='gen' (or scipy.linalg.solve_triangular for a triangle)",
    )


def expm(A):
    """scipy.linalg.expm, for the Frechet derivatives of matrix_functions.py."""
    from scipy.linalg import expm as scipy_expm

    return scipy_expm(A)


def logm(A):
    """scipy.linalg.logm, for the Frechet derivatives of matrix_functions.py: there of a
    block matrix [[A, E], [0, A]], which is not diagonalisable, so that SciPy's estimate of
    its error (a warning) is pessimistic: its upper right block is as accurate as logm(A).
    SciPy estimates norms with random vectors from numpy's global generator: here the same
    ones at each call (the user's state restored after), so that a derivative computed
    twice is the same to the last bit."""
    import warnings

    from scipy.linalg import logm as scipy_logm

    state = np.random.get_state()
    np.random.seed(0)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "logm result may be inaccurate", RuntimeWarning)
            return scipy_logm(A)
    finally:
        np.random.set_state(state)


def lu_permutation(piv):
    """The rows of a that lu_factor's row swaps piv (LAPACK's: row i with row piv[i], in
    turn) bring to the top: a[perm] = L U."""
    perm = np.arange(len(piv))
    for i, swapped in enumerate(piv):
        perm[i], perm[swapped] = perm[swapped], perm[i]
    return perm


# --- block diagonal matrices (scipy.linalg.block_diag) ----------------------------------------


def _block_at(arrs, i):
    """Where block_diag(*arrs) puts arrs[i]: (first row, first column, rows, columns); a
    vector is a row, a number a 1 x 1 block."""
    shapes = [np.shape(np.atleast_2d(a)) for a in arrs]
    rows, columns = shapes[i]
    return sum(s[0] for s in shapes[:i]), sum(s[1] for s in shapes[:i]), rows, columns


def diagonal_block(g, arrs, i):
    """g's block where block_diag(*arrs) put arrs[i], shaped like arrs[i]."""
    row, column, rows, columns = _block_at(arrs, i)
    return np.reshape(g[row : row + rows, column : column + columns], np.shape(arrs[i]))


def placed_block(b, arrs, i):
    """The adjoint of diagonal_block: b where block_diag(*arrs) puts arrs[i], zeros around."""
    row, column, rows, columns = _block_at(arrs, i)
    shapes = [np.shape(np.atleast_2d(a)) for a in arrs]
    total = (sum(s[0] for s in shapes), sum(s[1] for s in shapes))
    placed = np.zeros(total, dtype=np.result_type(b))
    placed[row : row + rows, column : column + columns] = np.reshape(b, (rows, columns))
    return placed


# --- convolutions (scipy.signal) --------------------------------------------------------------


def _window(in1, in2, mode):
    """Where scipy.signal's convolve and correlate in `mode` take their result from the full
    one: (start, size) along each axis."""
    s1, s2 = np.shape(in1), np.shape(in2)
    if mode == "full":
        return [(0, a + b - 1) for a, b in zip(s1, s2)]
    if mode == "same":
        return [((b - 1) // 2, a) for a, b in zip(s1, s2)]
    return [(min(a, b) - 1, abs(a - b) + 1) for a, b in zip(s1, s2)]


def crop(h, in1, in2, mode="full"):
    """The part of h, a full convolution (or correlation) of in1 and in2, that `mode` keeps."""
    return h[tuple(slice(start, start + size) for start, size in _window(in1, in2, mode))]


def uncrop(g, in1, in2, mode="full"):
    """The adjoint of crop: g put back in place in zeros of the full size."""
    full = [a + b - 1 for a, b in zip(np.shape(in1), np.shape(in2))]
    return np.pad(
        g, [(start, n - start - size) for (start, size), n in zip(_window(in1, in2, mode), full)]
    )
