"""scipy.linalg's functions that compute what np.linalg's do, declared once the program
imports scipy.linalg (optional.py). inv, det and svd take np.linalg's parameters: their
records cover them (registry.extend). cholesky, solve, eigh, eigvalsh, qr, lstsq, svdvals, pinv
and norm name or mean their parameters otherwise, so each has a record of its own whose
templates call the runtime helpers np.linalg's call (srcdiff/runtime/linalg.py; eigh's and
eigvalsh's, with a second matrix b, runtime/generalized_eigh.py). Real matrices. And
block_diag, a linear map.

As for np.linalg.cholesky and eigh, a function reading one triangle of a symmetric matrix
(cholesky, eigh, eigvalsh, solve with assume_a='sym' or 'pos') is differentiated as a
function of its symmetric part: the samples symmetrize their argument. Options without a
template parameter (eigh's subsets, svd's compute_uv=False, solve's
transposed=True) are an error at the user's line; check_finite never changes a value, so any
is taken."""

import numpy as np
import scipy.linalg

from .. import ir, runtime
from ..shapes import Const
from .registry import EVALUATE, Sample, extend, primitive
from .samples import distinct, number, real, spd, well_conditioned

_INERT = ("check_finite",)
_SPD = "a @ a.T + 3 * np.eye(3)"  # symmetric positive definite, and kept so by differences

extend(
    np.linalg.inv,
    scipy.linalg.inv,
    inert_keywords=_INERT,
    samples=[Sample("scipy.linalg.inv(a, check_finite=False)", a=well_conditioned(3))],
)
extend(
    np.linalg.det,
    scipy.linalg.det,
    inert_keywords=_INERT,
    samples=[Sample("scipy.linalg.det(a)", wrap=None, a=well_conditioned(3))],
)
extend(
    np.linalg.svd,
    scipy.linalg.svd,
    inert_keywords=_INERT + ("lapack_driver",),
    samples=[
        Sample("u ** 2 + s + vh ** 2", setup="u, s, vh = scipy.linalg.svd(a)", a=real(3, 3)),
        Sample(
            "scipy.linalg.svd(a, full_matrices=False, lapack_driver='gesvd')[0] ** 2",
            a=real(4, 3),
        ),
    ],
)


def _like_numpy(function, inert_keywords=(), **facts):
    return primitive(
        function, shape=EVALUATE, fresh=True, inert_keywords=_INERT + inert_keywords, **facts
    )


# the factor L (a = L L^T) for lower=True, else L^T
@_like_numpy(
    scipy.linalg.cholesky,
    samples=[
        Sample("scipy.linalg.cholesky((a + a.T) / 2)", a=spd(3)),
        Sample("scipy.linalg.cholesky((a + a.T) / 2, lower=True)", a=spd(3)),
    ],
)
class cholesky:
    def adjoint(bz, z, a, lower=False):
        ba = runtime.cholesky_vjp(runtime.lower_factor(bz, lower), runtime.lower_factor(z, lower))

    def tangent(dz, z, a, lower=False):
        dz = runtime.factor_part(runtime.cholesky_jvp(da, runtime.lower_factor(z, lower)), lower)


@_like_numpy(
    scipy.linalg.solve,
    samples=[
        Sample("scipy.linalg.solve(a, b)", a=well_conditioned(3), b=real(3)),
        Sample("scipy.linalg.solve(a, b, assume_a='gen')", a=well_conditioned(3), b=real(3, 2)),
        Sample("scipy.linalg.solve((a + a.T) / 2, b, assume_a='pos')", a=spd(3), b=real(3)),
        Sample(
            "scipy.linalg.solve((a + a.T) / 2, b, lower=True, assume_a='sym')",
            a=spd(3),
            b=real(3, 2),
        ),
    ],
)
class solve:
    def adjoint(bz, z, a, b, lower=False, assume_a=None):
        ba = runtime.assumed_structure(runtime.solve_vjp_a(bz, z, a, b), assume_a)
        bb = runtime.solve_vjp_b(bz, z, a, b)

    def tangent(dz, z, a, b, lower=False, assume_a=None):
        dz = runtime.solve_jvp_a(runtime.assumed_structure(da, assume_a), z, a, b)
        dz = scipy.linalg.solve(a, db, lower=lower, assume_a=assume_a)


# A V = B V diag(w), V^T B V = I (B the identity without b), and w alone with
# eigvals_only=True (runtime/generalized_eigh.py); eigenvectors squared: their signs are
# arbitrary. type=2 (A B v = w v) and type=3 (B A v = w v) as that problem of (B A B, B);
# subsets are an error at the user's line
@_like_numpy(
    scipy.linalg.eigh,
    inert_keywords=("driver",),
    samples=[
        Sample("w + v ** 2", setup="w, v = scipy.linalg.eigh(a + a.T)", a=real(3, 3)),
        Sample("scipy.linalg.eigh(a + a.T, lower=False)[1] ** 2", a=real(3, 3)),
        Sample("scipy.linalg.eigh(a + a.T, eigvals_only=True)", a=real(3, 3)),
        Sample("w + v ** 2", setup=f"w, v = scipy.linalg.eigh(a + a.T, {_SPD})", a=real(3, 3)),
        Sample(f"scipy.linalg.eigh(a + a.T, {_SPD}, lower=False)[1] ** 2", a=real(3, 3)),
        Sample(
            f"scipy.linalg.eigh(c + c.T, {_SPD}, eigvals_only=True, driver='gvd')",
            c=real(3, 3),
            a=real(3, 3),
        ),
        Sample(
            "w + v ** 2",
            setup=f"w, v = scipy.linalg.eigh(c + c.T, {_SPD}, type=2)",
            c=real(3, 3),
            a=real(3, 3),
        ),
        Sample(
            "w + v ** 2",
            setup=f"w, v = scipy.linalg.eigh(c + c.T, {_SPD}, type=3)",
            c=real(3, 3),
            a=real(3, 3),
        ),
        Sample(
            f"scipy.linalg.eigh(c + c.T, {_SPD}, type=3, eigvals_only=True)",
            c=real(3, 3),
            a=real(3, 3),
        ),
    ],
)
class eigh:
    def adjoint(bz, z, a, b=None, *, lower=True, eigvals_only=False, type=1):
        ba = runtime.generalized_eigh_vjp(bz, z, a, b, eigvals_only, 0, type)
        bb = runtime.generalized_eigh_vjp(bz, z, a, b, eigvals_only, 1, type)

    def tangent(dz, z, a, b=None, *, lower=True, eigvals_only=False, type=1):
        dz = runtime.generalized_eigh_jvp(da, z, a, b, eigvals_only, 0, type)
        dz = runtime.generalized_eigh_jvp(db, z, a, b, eigvals_only, 1, type)


@_like_numpy(
    scipy.linalg.eigvalsh,
    inert_keywords=("driver",),
    samples=[
        Sample("scipy.linalg.eigvalsh(a + a.T)", a=real(3, 3)),
        Sample(f"scipy.linalg.eigvalsh(c + c.T, {_SPD})", c=real(3, 3), a=real(3, 3)),
        Sample(f"scipy.linalg.eigvalsh(c + c.T, {_SPD}, type=2)", c=real(3, 3), a=real(3, 3)),
    ],
)
class eigvalsh:
    def adjoint(bz, z, a, b=None, *, lower=True, type=1):
        ba = runtime.generalized_eigh_vjp(bz, z, a, b, True, 0, type)
        bb = runtime.generalized_eigh_vjp(bz, z, a, b, True, 1, type)

    def tangent(dz, z, a, b=None, *, lower=True, type=1):
        dz = runtime.generalized_eigh_jvp(da, z, a, b, True, 0, type)
        dz = runtime.generalized_eigh_jvp(db, z, a, b, True, 1, type)


# eigh's adjoint takes the tuple's adjoint as np.linalg.eigh's does (tuple_adjoints: a tuple
# of the items' adjoints stands for the Sparse): samples with one item constant, as when a
# program reads one, so that its derivatives see a partly constant tuple adjoint
_PROBLEM = f"scipy.linalg.eigh(c + c.T, {_SPD}), c + c.T, {_SPD}"


@primitive(
    runtime.generalized_eigh_vjp,
    shape=EVALUATE,
    fresh=True,
    tuple_adjoints=(0,),
    samples=[
        Sample(
            f"runtime.generalized_eigh_vjp(g, {_PROBLEM}, False, 0)",
            setup="g = (gw, None)",
            c=real(3, 3),
            a=real(3, 3),
            gw=real(3),
        ),
        Sample(
            f"runtime.generalized_eigh_vjp(g, {_PROBLEM}, False, 1)",
            setup="g = (0.0, gv)",
            c=real(3, 3),
            a=real(3, 3),
            gv=real(3, 3),
        ),
    ],
)
class generalized_eigh_vjp:
    pass


@primitive(
    runtime.generalized_eigh_jvp,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample(
            f"runtime.generalized_eigh_jvp(d, {_PROBLEM}, False, 1)[1]",
            c=real(3, 3),
            a=real(3, 3),
            d=real(3, 3),
        ),
        Sample(
            "runtime.generalized_eigh_jvp(d, scipy.linalg.eigvalsh(c + c.T), c + c.T, None, True, 0)",
            c=real(3, 3),
            d=real(3, 3),
        ),
    ],
)
class generalized_eigh_jvp:
    pass


# np.linalg.qr's rules, in scipy's modes: 'full' (the default: 'complete'), 'economic'
# ('reduced') and 'r' (a 1-tuple holding R with m rows); with pivoting=True, of a[:, P] for
# the permutation P it returns too, which the values choose but which has no derivative
@_like_numpy(
    scipy.linalg.qr,
    inert_keywords=("lwork",),
    samples=[
        Sample("q ** 2 @ r", setup="q, r = scipy.linalg.qr(a)", a=real(3, 3)),
        Sample("q @ np.sin(r)", setup="q, r = scipy.linalg.qr(a)", a=real(4, 2)),
        Sample("q ** 2 + r[0]", setup="q, r = scipy.linalg.qr(a, mode='economic')", a=real(4, 3)),
        Sample("scipy.linalg.qr(a, mode='full')[1] ** 2", a=real(2, 4)),
        Sample("scipy.linalg.qr(a, mode='r')[0] ** 2", a=real(4, 3)),
        Sample("scipy.linalg.qr(a, lwork=64, mode='r')[0]", a=real(2, 3)),
        Sample("q ** 2 @ r", setup="q, r, p = scipy.linalg.qr(a, pivoting=True)", a=real(4, 3)),
        Sample(
            "q[0] * r[:, p[0]] + r[:, 0] * p[1]",
            setup="q, r, p = scipy.linalg.qr(a, mode='economic', pivoting=True)",
            a=real(3, 4),
        ),
        Sample("scipy.linalg.qr(a, mode='r', pivoting=True)[0] ** 2", a=real(4, 3)),
    ],
)
class qr:
    def adjoint(bz, z, a, mode="full", pivoting=False):
        ba = runtime.qr_vjp(bz, z, a, mode, pivoting)

    def tangent(dz, z, a, mode="full", pivoting=False):
        dz = runtime.qr_jvp(da, z, a, mode, pivoting)


# np.linalg.lstsq's rules (at the rank it found; the rank has no gradient): the residuals are a
# number of a 1-D b, and the singular values None with lapack_driver='gelsy'
@primitive(
    scipy.linalg.lstsq,
    shape=None,
    fresh=True,
    inert_keywords=_INERT,
    samples=[
        Sample("scipy.linalg.lstsq(a, b)[0]", a=real(4, 3), b=real(4)),
        Sample(
            "x + res + s[0]",
            setup="x, res, rank, s = scipy.linalg.lstsq(a, b, lapack_driver='gelss')",
            a=real(4, 2),
            b=real(4, 2),
        ),
        Sample(
            "x * res", setup="x, res, rank, s = scipy.linalg.lstsq(a, b)", a=real(4, 2), b=real(4)
        ),
        Sample("scipy.linalg.lstsq(a, b, lapack_driver='gelsy')[0]", a=real(2, 3), b=real(2, 2)),
        Sample("scipy.linalg.lstsq(a, b, cond=1e-10)[3]", a=real(3, 2), b=real(3), constant=("b",)),
    ],
)
class lstsq:
    def adjoint(bz, z, a, b, cond=None, lapack_driver=None):
        ba = runtime.lstsq_vjp(bz, z, a, b, 0)
        bb = runtime.lstsq_vjp(bz, z, a, b, 1)

    def tangent(dz, z, a, b, cond=None, lapack_driver=None):
        dz = runtime.lstsq_jvp_a(da, z, a, b)
        dz = runtime.lstsq_jvp_b(db, z, a, b)


@_like_numpy(scipy.linalg.svdvals, samples=[Sample("scipy.linalg.svdvals(a)", a=real(3, 4))])
class svdvals:
    def adjoint(bz, z, a):
        ba = runtime.svdvals_vjp(bz, a)

    def tangent(dz, z, a):
        dz = runtime.svdvals_jvp(da, a)


# at a constant rank (a full-rank sample), as np.linalg.pinv
@_like_numpy(
    scipy.linalg.pinv,
    samples=[
        Sample("scipy.linalg.pinv(a)", a=real(3, 2)),
        Sample("scipy.linalg.pinv(a, atol=1e-12)", a=real(2, 3)),
    ],
)
class pinv:
    def adjoint(bz, z, a, *, atol=None, rtol=None):
        ba = runtime.pinv_vjp(bz, z, a)

    def tangent(dz, z, a, *, atol=None, rtol=None):
        dz = runtime.pinv_jvp(da, z, a)


@_like_numpy(
    scipy.linalg.norm,
    samples=[
        Sample("scipy.linalg.norm(a)", wrap=None, a=real(3, 4)),
        Sample("scipy.linalg.norm(a, axis=1)", a=real(3, 4)),
        Sample("scipy.linalg.norm(a, 1)", a=distinct(3, 4)),
        Sample("scipy.linalg.norm(a, ord=2, axis=0, keepdims=True)", a=real(3, 4)),
    ],
)
class norm:
    def adjoint(bz, z, a, ord=None, axis=None, keepdims=False):
        ba = runtime.norm_vjp(bz, z, a, ord=ord, axis=axis, keepdims=keepdims)

    def tangent(dz, z, a, ord=None, axis=None, keepdims=False):
        dz = runtime.norm_jvp(da, z, a, ord=ord, axis=axis, keepdims=keepdims)


@primitive(
    runtime.assumed_structure,
    constant=("assume_a",),
    shape=EVALUATE,
    samples=[
        Sample("runtime.assumed_structure(g, 'pos')", g=real(3, 3)),
        Sample("runtime.assumed_structure(g)", g=real(2, 2)),
    ],
)
class assumed_structure:  # a linear map, its own adjoint
    def adjoint(bz, z, g, assume_a=None):
        bg = runtime.assumed_structure(bz, assume_a)

    def tangent(dz, z, g, assume_a=None):
        dz = runtime.assumed_structure(dg, assume_a)

    def rewrite(node, g, assume_a=Const(None)):  # g, or runtime.symmetrize(g)
        if not isinstance(assume_a, Const) or assume_a.value not in runtime.SOLVE_STRUCTURES:
            return None
        if runtime.SOLVE_STRUCTURES[assume_a.value] == "general":
            return node.args[0]
        return ir.call("runtime.symmetrize", node.args[0])


# --- block diagonal matrices: a linear map, whose adjoint reads each block --------------------


@primitive(
    scipy.linalg.block_diag,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("scipy.linalg.block_diag(a, b, c)", a=real(2, 2), b=real(3), c=real(1, 2)),
        Sample("scipy.linalg.block_diag(a, 2.0, a * b)", a=real(2, 3), b=number()),
    ],
)
class block_diag:
    def adjoint(bz, z, *arrs):
        barrs[i] = runtime.diagonal_block(bz, arrs, i)

    def tangent(dz, z, *arrs):
        dz = scipy.linalg.block_diag(*darrs)


@primitive(
    runtime.diagonal_block,
    shape=EVALUATE,
    samples=[Sample("runtime.diagonal_block(g, (a, b), 1)", g=real(3, 4), a=real(2, 1), b=real(3))],
)
class diagonal_block:
    def adjoint(bz, z, g, arrs, i):
        bg = runtime.placed_block(bz, arrs, i)

    def tangent(dz, z, g, arrs, i):
        dz = runtime.diagonal_block(dg, arrs, i)


@primitive(
    runtime.placed_block,
    shape=EVALUATE,
    fresh=True,
    samples=[Sample("runtime.placed_block(b, (a, b), 1)", a=real(2, 1), b=real(3))],
)
class placed_block:
    def adjoint(bz, z, b, arrs, i):
        bb = runtime.diagonal_block(bz, arrs, i)

    def tangent(dz, z, b, arrs, i):
        dz = runtime.placed_block(db, arrs, i)
