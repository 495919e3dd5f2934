"""Emitted code's runtime for np.linalg: the adjoint (`*_vjp`) and tangent (`*_jvp`) of each
function, which the templates of srcdiff/primitives/linalg.py and decompositions.py call.

They are plain differentiable numpy, and srcdiff differentiates them through their source
when a gradient is differentiated again (runtime/__init__.py: not helpers needing templates of
their own), so second derivatives need no formulas beyond these. Matrices are the last two
axes, leading axes a stack. Solves stand for inverses (np.linalg.inv is LAPACK's gesv on the
identity, the same solve); numpy has no triangular solve, so Cholesky and QR solve with their
triangle through np.linalg.solve: tools/bench_linalg.py measured it 1.8-2.4x faster than a
back-substitution in numpy for n <= 50, and 1.5-1.8x slower for n = 200-800, where the loop
of n steps would also run in every derivative of the gradient.

Where a decomposition is not unique (tied eigenvalues or singular values, the extra columns
of a full SVD), the gradient is the limit that a loss not depending on the choice of basis
has: zero coupling between tied vectors (reciprocal_gaps)."""

import numpy as np

from ..errors import ArgumentError
from .containers import unpack_adjoint
from .core import Sparse, conj, divide_or_zero, real, stop_gradient, unbroadcast, unreduce


# --- small pieces -----------------------------------------------------------------------------


def real_matrices(a, name):
    """Refuse a complex matrix where these formulas hold for real ones only (a wrong
    gradient would be silent)."""
    if np.iscomplexobj(a):
        raise ArgumentError(
            f"srcdiff differentiates np.linalg.{name} of real matrices only",
            hint="differentiate through the real and imaginary parts, or "
            "write the decomposition's use without it",
        )


def symmetrize(x):
    return (x + x.mT) / 2


def _h(x):
    """The conjugate transpose of each matrix (the transpose of a real one)."""
    return conj(x).mT


def _eye_like(x):
    return np.eye(x.shape[-1], dtype=x.dtype)


def _diagonal(x):
    return np.einsum("...ii->...i", x)


def _lower_half_diagonal(x):
    """Phi: the lower triangle with the diagonal halved (L^-1 dL = Phi(L^-1 dA L^-T))."""
    return np.tril(x) - _eye_like(x) * x / 2


def reciprocal_gaps(w):
    """F[..., i, j] = 1 / (w[j] - w[i]), and 0 where w[j] == w[i] (the diagonal, and ties)."""
    gaps = w[..., None, :] - w[..., :, None]
    tied = gaps == 0
    return np.where(tied, 0, 1 / np.where(tied, 1, gaps))


def as_columns(x, b):
    """x as np.linalg.solve reads its right-hand side b: a column when b is 1-D."""
    return x[..., None] if np.ndim(b) == 1 else x


def from_columns(x, b):
    return x[..., 0] if np.ndim(b) == 1 else x


# --- determinants, solves, inverses -----------------------------------------------------------


def det_vjp(g, det, a):
    return np.expand_dims(g * det, (-2, -1)) * np.linalg.inv(a).mT


def det_jvp(da, det, a):
    return det * np.sum(np.linalg.inv(a).mT * da, axis=(-2, -1))


def slogdet_vjp(g, out, a):
    real_matrices(a, "slogdet")
    logdet_adjoint = unpack_adjoint(g, out)[1]
    return np.expand_dims(logdet_adjoint, (-2, -1)) * np.linalg.inv(a).mT


def slogdet_jvp(da, out, a):
    real_matrices(a, "slogdet")
    return np.zeros_like(out[0]), np.sum(np.linalg.inv(a).mT * da, axis=(-2, -1))


def solve_vjp_a(g, x, a, b):
    gb = np.linalg.solve(a.mT, as_columns(g, b))
    return unbroadcast(-(gb @ as_columns(x, b).mT), a)


def solve_vjp_b(g, x, a, b):
    return unbroadcast(from_columns(np.linalg.solve(a.mT, as_columns(g, b)), b), b)


def solve_jvp_a(da, x, a, b):
    return from_columns(-np.linalg.solve(a, da @ as_columns(x, b)), b)


def pinv_vjp(g, p, a):
    """Golub and Pereyra's derivative of the pseudo-inverse (constant rank), transposed."""
    gt = g.mT
    return -(p.mT @ g @ p.mT) + (gt - a @ (p @ gt)) @ (p @ p.mT) + (p.mT @ p) @ (gt - (gt @ p) @ a)


def pinv_jvp(da, p, a):
    dat = da.mT
    return -(p @ da @ p) + (p @ p.mT) @ (dat - (dat @ a) @ p) + (dat - p @ (a @ dat)) @ (p.mT @ p)


def matrix_power_vjp(g, a, n):
    """sum_k (A^T)^k G (A^T)^(n-1-k); of inv(A) for a negative n."""
    base = np.linalg.inv(a) if n < 0 else a
    count = -n if n < 0 else n
    total = np.zeros_like(base)
    left = _eye_like(base)
    for k in range(count):
        total = total + left @ g @ np.linalg.matrix_power(base.mT, count - 1 - k)
        left = left @ base.mT
    return -(base.mT @ total @ base.mT) if n < 0 else total


def matrix_power_jvp(da, a, n):
    base = np.linalg.inv(a) if n < 0 else a
    dbase = -(base @ da @ base) if n < 0 else da
    count = -n if n < 0 else n
    total = np.zeros_like(base)
    left = _eye_like(base)
    for k in range(count):
        total = total + left @ dbase @ np.linalg.matrix_power(base, count - 1 - k)
        left = left @ base
    return total


def multi_dot_subscripts(arrays):
    """np.linalg.multi_dot as an einsum (a 1-D first or last array is a vector)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    count = len(arrays)
    terms = [letters[k] + letters[k + 1] for k in range(count)]
    if np.ndim(arrays[0]) == 1:
        terms[0] = terms[0][1]
    if np.ndim(arrays[-1]) == 1:
        terms[-1] = terms[-1][0]
    ends = (terms[0][0] if np.ndim(arrays[0]) == 2 else "") + (
        terms[-1][-1] if np.ndim(arrays[-1]) == 2 else ""
    )
    return ",".join(terms) + "->" + ends


def lstsq_vjp(g, out, a, b, wrt):
    """Of the solution (pinv(a) @ b, the pseudo-inverse at the rank lstsq found), the
    residuals (at the optimum, a^T r = 0) and the singular values; the rank is an integer.
    np.linalg.lstsq's output, or scipy.linalg.lstsq's (whose singular values are None with
    lapack_driver='gelsy')."""
    gx, gres, _, gs = unpack_adjoint(g, out)
    x, res = as_columns(out[0], b), out[1]
    gx = as_columns(gx, b)
    p = lstsq_pinv(a, out[2])
    r = as_columns(b, b) - a @ x
    weighted = r * gres if np.size(res) else np.zeros_like(r)
    if wrt == 1:
        return from_columns(p.mT @ gx + 2 * weighted, b)
    ba = pinv_vjp(gx @ as_columns(b, b).mT, p, a) - 2 * weighted @ x.mT
    return ba if out[3] is None else ba + svdvals_vjp(gs, a)


def lstsq_jvp_a(da, out, a, b):
    """The part of the tangent from a, by item (a Sparse: the parts from a and b add up)."""
    x, res = as_columns(out[0], b), out[1]
    dx = pinv_jvp(da, lstsq_pinv(a, out[2]), a) @ as_columns(b, b)
    r = as_columns(b, b) - a @ x
    dres = np.sum(-2 * r * (da @ x), axis=-2) if np.size(res) else np.zeros_like(res)
    return _lstsq_tangent(from_columns(dx, b), _like_residuals(dres, res), out, svdvals_jvp(da, a))


def lstsq_jvp_b(db, out, a, b):
    x, res = as_columns(out[0], b), out[1]
    dcols = as_columns(db, b)
    r = as_columns(b, b) - a @ x
    dres = np.sum(2 * r * dcols, axis=-2) if np.size(res) else np.zeros_like(res)
    dx = from_columns(lstsq_pinv(a, out[2]) @ dcols, b)
    return _lstsq_tangent(dx, _like_residuals(dres, res), out, 0)


def lstsq_pinv(a, rank):
    """pinv(a) keeping the `rank` largest singular values, those lstsq kept (by its rcond or
    cond, or by gelsy's own rule): a cutoff between them and the next, which no small change
    of a crosses, so the derivative is Golub and Pereyra's at a constant rank."""
    s = stop_gradient(np.linalg.svdvals(a))
    if rank == s.shape[-1]:
        return np.linalg.pinv(a, rcond=0.0)
    if rank == 0:  # (a zero matrix: no singular value to place the cutoff under)
        return np.zeros_like(a.mT)
    return np.linalg.pinv(a, rcond=float(np.sqrt(s[rank - 1] * s[rank]) / s[0]))


def _lstsq_tangent(dx, dres, out, ds):
    """The tangent of lstsq's output as a Sparse: none for the rank, nor for singular values
    scipy's gelsy does not give."""
    if out[3] is None:
        return Sparse({0: dx, 1: dres, 2: 0})
    return Sparse({0: dx, 1: dres, 2: 0, 3: ds})


def _like_residuals(d, res):
    """d in the shape of the residuals: scipy.linalg.lstsq's of a 1-D b are a number."""
    return np.reshape(d, np.shape(res))


# --- norms ------------------------------------------------------------------------------------


def _is_matrix_norm(x, ord, axis):
    return (
        axis is None
        and ord is not None
        and np.ndim(x) == 2
        or np.ndim(axis) == 1
        and len(axis) == 2
    )


def norm_vjp(g, norm, x, ord=None, axis=None, keepdims=False):
    """Adjoint of np.linalg.norm, every ord: at ties of a max/min norm (inf, -inf, the
    matrix 1 / inf norms) the gradient is shared evenly, as np.max's is; ord=0 counts
    nonzeros and is flat (zero gradient). Of complex x, the conjugate slope (np.abs's
    convention, and autograd's: a norm is of the moduli |x|)."""
    gs, zs = unreduce(g, x, axis, keepdims), unreduce(norm, x, axis, keepdims)
    if _is_matrix_norm(x, ord, axis):
        return gs * _matrix_norm_slope(x, zs, ord, axis)
    if ord is None or ord == 2:
        return gs * divide_or_zero(conj(x), zs)
    if ord == 0:
        return np.zeros_like(x)
    if ord == 1:
        return gs * _slope_of_abs(x)
    if ord == np.inf or ord == -np.inf:
        winners = np.abs(x) == zs
        return gs * _slope_of_abs(x) * winners / _count(winners, axis, x)
    return gs * _slope_of_abs(x) * divide_or_zero(np.abs(x), zs) ** (ord - 1)


def _slope_of_abs(x):
    """The adjoint of |x| for a cotangent 1: sign(x), and conj(x) / |x| for complex x (whose
    np.sign, x / |x|, is no constant)."""
    if np.iscomplexobj(x):
        return divide_or_zero(conj(x), np.abs(x))
    return np.sign(x)


def _matrix_norm_slope(x, zs, ord, axis):
    if ord is None or ord == "fro":
        return divide_or_zero(conj(x), zs)
    rows, cols = (-2, -1) if axis is None else axis
    order = [k for k in range(np.ndim(x)) if k not in (rows % np.ndim(x), cols % np.ndim(x))]
    order = order + [rows % np.ndim(x), cols % np.ndim(x)]
    back = list(np.argsort(order))
    m = np.transpose(x, order)
    if ord in ("nuc", 2, -2):
        u, s, vh = np.linalg.svd(m, full_matrices=False)
        if ord == "nuc":
            return np.transpose(conj(u @ vh), back)
        if ord == 2:
            return np.transpose(conj(u[..., :1] @ vh[..., :1, :]), back)
        return np.transpose(conj(u[..., -1:] @ vh[..., -1:, :]), back)
    along = -2 if ord in (1, -1) else -1  # column sums for 1, -1; row sums for inf, -inf
    sums = np.sum(np.abs(m), axis=along, keepdims=True)
    best = (
        np.max(sums, axis=-1 if along == -2 else -2, keepdims=True)
        if ord in (1, np.inf)
        else np.min(sums, axis=-1 if along == -2 else -2, keepdims=True)
    )
    winners = sums == best
    share = winners / _count(winners, (-2, -1), x)
    return np.transpose(_slope_of_abs(m) * share, back)


def _count(winners, axis, x):
    """How many elements tie for the max or min (in x's dtype: float32 stays float32)."""
    return np.sum(winners, axis=axis, keepdims=True).astype(x.dtype)


def norm_jvp(dx, norm, x, ord=None, axis=None, keepdims=False):
    slope = norm_vjp(np.ones_like(norm), norm, x, ord=ord, axis=axis, keepdims=keepdims)
    return np.sum(real(slope * dx), axis=axis, keepdims=keepdims)  # (a norm is real)


def cond_vjp(g, cond, x, p=None):
    """Adjoint of np.linalg.cond: of p None, 2 or -2 (of any shape), the ratio of the
    largest singular value to the smallest (or its inverse); else the product of the norms
    of x and of its inverse."""
    if p is None or p == 2 or p == -2:
        s = np.linalg.svdvals(x)
        k = s.shape[-1]
        ends = (np.arange(k) == 0) / s[..., :1] - (np.arange(k) == k - 1) / s[..., -1:]
        scale = np.expand_dims(g * cond, -1)
        return svdvals_vjp(-scale * ends if p == -2 else scale * ends, x)
    real_matrices(x, "cond")
    inverse = np.linalg.inv(x)
    n = np.linalg.norm(x, p, axis=(-2, -1))
    m = np.linalg.norm(inverse, p, axis=(-2, -1))
    binverse = norm_vjp(g * n, m, inverse, p, (-2, -1))
    return norm_vjp(g * m, n, x, p, (-2, -1)) - inverse.mT @ binverse @ inverse.mT


def cond_jvp(dx, cond, x, p=None):
    if p is None or p == 2 or p == -2:
        s, ds = np.linalg.svdvals(x), svdvals_jvp(dx, x)
        relative = ds[..., 0] / s[..., 0] - ds[..., -1] / s[..., -1]
        return cond * (-relative if p == -2 else relative)
    real_matrices(x, "cond")
    inverse = np.linalg.inv(x)
    n = np.linalg.norm(x, p, axis=(-2, -1))
    m = np.linalg.norm(inverse, p, axis=(-2, -1))
    dinverse = -inverse @ dx @ inverse
    return norm_jvp(dx, n, x, p, (-2, -1)) * m + n * norm_jvp(dinverse, m, inverse, p, (-2, -1))


def trace_vjp(g, a, offset=0, axis1=0, axis2=1):
    """g spread along the traced diagonal of each matrix of a."""
    shape, count = np.shape(a), np.ndim(a)
    first, second = axis1 % count, axis2 % count
    eye = np.eye(shape[first], shape[second], k=offset, dtype=np.result_type(g, a))
    eye = eye if first < second else eye.T
    placed = np.reshape(eye, [shape[k] if k in (first, second) else 1 for k in range(count)])
    return np.expand_dims(g, (min(first, second), max(first, second))) * placed


# --- decompositions ---------------------------------------------------------------------------


def cholesky_vjp(g, factor):
    """Murray (2016): sym(L^-T Phi(L^T G) L^-1), by two solves with the triangle."""
    real_matrices(factor, "cholesky")
    p = _lower_half_diagonal(factor.mT @ g)
    return symmetrize(np.linalg.solve(factor.mT, np.linalg.solve(factor.mT, p).mT))


def cholesky_jvp(da, factor):
    real_matrices(factor, "cholesky")
    inner = np.linalg.solve(factor, np.linalg.solve(factor, symmetrize(da)).mT)
    return factor @ _lower_half_diagonal(inner)


def eigh_vjp(g, out):
    real_matrices(out[1], "eigh")
    w, v = out
    gw, gv = unpack_adjoint(g, out)
    inner = _eye_like(v) * gw[..., None, :] + reciprocal_gaps(w) * (v.mT @ gv)
    return symmetrize(v @ inner @ v.mT)


def eigh_jvp(da, out):
    real_matrices(out[1], "eigh")
    w, v = out
    projected = v.mT @ symmetrize(da) @ v
    return _diagonal(projected), v @ (reciprocal_gaps(w) * projected)


def eig_vjp(g, out):
    """Of eigenvalues w and unit eigenvectors v (the columns) of a real matrix whose
    eigenvalues are real and distinct: V^-T (diag(gw) + F o V^T gv') V^T, where gv' is gv
    less, in each column, its part along that column of v (numpy normalises each
    eigenvector to length 1, as autograd's rule has it)."""
    w, v = out
    distinct_real_eigenvalues(w, v)
    gw, gv = unpack_adjoint(g, out)
    along = gv - v * np.sum(v * gv, axis=-2, keepdims=True)
    inner = _eye_like(v) * gw[..., None, :] + reciprocal_gaps(w) * (v.mT @ along)
    return np.linalg.solve(v.mT, inner @ v.mT)


def eig_jvp(da, out):
    w, v = out
    distinct_real_eigenvalues(w, v)
    projected = np.linalg.solve(v, da @ v)
    turned = v @ (reciprocal_gaps(w) * projected)
    return _diagonal(projected), turned - v * np.sum(v * turned, axis=-2, keepdims=True)


def distinct_real_eigenvalues(w, v):
    """Refuse what eig's rules do not hold for: complex eigenvalues (or a complex matrix),
    whose derivative would need complex arithmetic srcdiff does not follow here, and tied
    ones, where a general matrix's eigenvectors have no derivative."""
    if np.iscomplexobj(w) or np.iscomplexobj(v):
        raise ArgumentError(
            "srcdiff differentiates np.linalg.eig of real matrices whose eigenvalues are "
            "real; this one's are complex",
            hint="for a symmetric matrix use np.linalg.eigh; else differentiate a function "
            "of the matrix that needs no eigenvalues (np.trace, np.linalg.det)",
        )
    tied = w[..., None, :] == w[..., :, None]
    if np.any(tied & ~np.eye(w.shape[-1], dtype=bool)):
        raise ArgumentError(
            "np.linalg.eig of a matrix with tied eigenvalues has no derivative that srcdiff "
            "can give (its eigenvectors may jump)",
            hint="for a symmetric matrix use np.linalg.eigh, which gives the limit",
        )


def eigvalsh_vjp(g, a):
    real_matrices(a, "eigvalsh")
    v = np.linalg.eigh(a)[1]
    return symmetrize((v * g[..., None, :]) @ v.mT)


def eigvalsh_jvp(da, a):
    real_matrices(a, "eigvalsh")
    v = np.linalg.eigh(a)[1]
    return _diagonal(v.mT @ symmetrize(da) @ v)


def svd_vjp(g, out, a=None, compute_uv=True):
    """Of a thin or a full SVD: the extra columns of a full one (an arbitrary basis of the
    complement) act through the thin columns they stay orthogonal to. Of a complex one too,
    worked in the pairing Re tr(G^H dX), whose cotangents are the conjugates of srcdiff's
    (and autograd's): conjugated on the way in and out. Without U and V (compute_uv=False),
    svdvals_vjp of the matrices `a`."""
    if not compute_uv:
        return svdvals_vjp(g, a)
    u, s, vh = out
    gu, gs, gvh = unpack_adjoint(g, out)
    gu, gv = conj(gu), gvh.mT  # (gv: conj(gvh) conjugate-transposed)
    k = s.shape[-1]
    u1, v1 = u[..., :k], _h(vh[..., :k, :])
    gu1 = gu[..., :k] - u[..., k:] @ (_h(gu[..., k:]) @ u1)
    gv1 = gv[..., :k] - _h(vh[..., k:, :]) @ (_h(gv[..., k:]) @ v1)
    f = reciprocal_gaps(s * s)
    utgu, vtgv = _h(u1) @ gu1, _h(v1) @ gv1
    inner = (
        (f * (utgu - _h(utgu))) * s[..., None, :]
        + _eye_like(f) * gs[..., None, :]
        + s[..., :, None] * (f * (vtgv - _h(vtgv)))
    )
    if np.iscomplexobj(utgu):  # (the phases of U's columns: see svd_jvp)
        inner = inner + _eye_like(f) * (1j * np.imag(_diagonal(utgu)) / s)[..., None, :]
    return conj(
        u1 @ inner @ _h(v1)
        + ((gu1 - u1 @ utgu) / s[..., None, :]) @ _h(v1)
        + u1 @ _h((gv1 - v1 @ vtgv) / s[..., None, :])
    )


def svd_jvp(da, out, a=None, compute_uv=True):
    """A phase on a column of U and the same on V's leave A as it is: only the difference of
    the imaginary diagonals of U^H dU and V^H dV is fixed (Im diag(U^H dA V) / s), and this
    puts it on U's (what depends on A alone does not depend on the choice). Without U and V
    (compute_uv=False), svdvals_jvp of the matrices `a`."""
    if not compute_uv:
        return svdvals_jvp(da, a)
    u, s, vh = out
    k = s.shape[-1]
    u1, v1 = u[..., :k], _h(vh[..., :k, :])
    f = reciprocal_gaps(s * s)
    projected = _h(u1) @ da @ v1
    du1 = (
        u1 @ (f * (projected * s[..., None, :] + s[..., :, None] * _h(projected)))
        + ((da @ v1) - u1 @ projected) / s[..., None, :]
    )
    if np.iscomplexobj(projected):
        du1 = du1 + u1 * (1j * np.imag(_diagonal(projected)) / s)[..., None, :]
    dv1 = (
        v1 @ (f * (s[..., :, None] * projected + _h(projected) * s[..., None, :]))
        + ((_h(da) @ u1) - v1 @ _h(projected)) / s[..., None, :]
    )
    du = np.concatenate([du1, -u1 @ (_h(du1) @ u[..., k:])], axis=-1)
    dv = np.concatenate([dv1, -v1 @ (_h(dv1) @ _h(vh[..., k:, :]))], axis=-1)
    return du, real(_diagonal(projected)), _h(dv)


def svdvals_vjp(g, a):
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    return conj(u @ (g[..., :, None] * vh))  # (conjugated as in svd_vjp)


def svdvals_jvp(da, a):
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    return real(_diagonal(_h(u) @ da @ _h(vh)))
