"""Products and linear algebra: matmul (@), dot, tensordot, einsum, outer, matrix transposes,
triangles and traces, and np.linalg's inv, det, slogdet, solve, pinv, matrix_power, multi_dot,
lstsq, norm and cond (decompositions: decompositions.py). The np.linalg templates call the adjoints
and tangents of srcdiff/runtime/linalg.py, plain numpy that srcdiff differentiates again
through its source. Functions of stacks of matrices take stacks."""

import gast
import numpy as np

from .. import runtime
from .registry import EVALUATE, Sample, constants, primitive
from .samples import distinct, positive, real, well_conditioned


@primitive(
    np.matmul,
    np.linalg.matmul,
    operators=(gast.MatMult,),
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("x1 @ x2", x1=real(3, 4), x2=real(4, 2)),
        Sample("x1 @ x2", x1=real(3, 4), x2=real(4)),
        Sample("x1 @ x2", x1=real(4), x2=real(4, 2)),
        Sample("x1 @ x2", x1=real(4), x2=real(4)),
        Sample("x1 @ x2", x1=real(2, 3, 4), x2=real(4, 5)),
        Sample("np.matmul(x1, x2)", x1=real(2, 3, 4), x2=real(1, 4, 2)),
        Sample("np.linalg.matmul(x1, x2)", x1=real(3, 4), x2=real(4)),
    ],
)
class matmul:
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.matmul_grad(bz, x1, x2, 0)
        bx2 = runtime.matmul_grad(bz, x1, x2, 1)

    def tangent(dz, z, x1, x2):
        dz = dx1 @ x2
        dz = x1 @ dx2


@primitive(
    np.dot,
    methods=("dot",),
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("np.dot(a, b)", a=real(3, 4), b=real(4, 2)),
        Sample("np.dot(a, b)", a=real(4), b=real(4)),
        Sample("np.dot(a, b)", a=real(2, 3, 4), b=real(5, 4, 2)),
        Sample("a.dot(b)", a=real(3, 4), b=real(4)),
    ],
)
class dot:
    def adjoint(bz, z, a, b):
        ba = runtime.dot_grad(bz, a, b, 0)
        bb = runtime.dot_grad(bz, a, b, 1)

    def tangent(dz, z, a, b):
        dz = np.dot(da, b)
        dz = np.dot(a, db)


@primitive(
    np.tensordot,
    np.linalg.tensordot,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("np.tensordot(a, b, axes=([1, 2], [0, 1]))", a=real(2, 3, 4), b=real(3, 4, 5)),
        Sample("np.tensordot(a, b, axes=1)", a=real(2, 3), b=real(3, 4)),
        Sample("np.tensordot(a, a, axes=3)", wrap=None, a=real(2, 3, 4)),
        Sample("np.linalg.tensordot(a, b, axes=1)", a=real(2, 3), b=real(3, 2)),
    ],
)
class tensordot:
    def adjoint(bz, z, a, b, axes=2):
        ba = runtime.tensordot_grad(bz, a, b, axes, 0)
        bb = runtime.tensordot_grad(bz, a, b, axes, 1)

    def tangent(dz, z, a, b, axes=2):
        dz = np.tensordot(da, b, axes)
        dz = np.tensordot(a, db, axes)


@primitive(
    np.einsum,
    shape=EVALUATE,
    samples=[
        Sample("np.einsum('ijk,kl->il', a, b)", a=real(2, 3, 4), b=real(4, 5)),
        Sample("np.einsum('ijk->', a)", wrap=None, a=real(2, 3, 4)),
        Sample("np.einsum('ij,j', a, b, optimize=True)", a=real(3, 4), b=real(4)),
        Sample("np.einsum('ii->i', a) + np.einsum('ii', a)", a=real(3, 3)),
        Sample("np.einsum('...ij,...jk', a, b)", a=real(2, 2, 3), b=real(3, 2)),
        Sample("np.einsum('ij,jj->i', a, b)", a=real(2, 3), b=real(3, 3)),
        Sample("np.einsum('i...,i...->...', a, b)", a=real(2, 3, 1), b=real(2, 1, 2)),
        # (j: 3 in a, 1 in b, which numpy broadcasts)
        Sample("np.einsum('ij,jk->ik', a, b)", a=real(1, 3), b=real(1, 3)),
    ],
)
class einsum:
    def adjoint(bz, z, subscripts, *operands, optimize=False):
        boperands[i] = runtime.einsum_grad(bz, subscripts, operands, i)

    def tangent(dz, z, subscripts, *operands, optimize=False):
        dz[i] = np.einsum(subscripts, *runtime.replace_at(operands, i, doperands[i]), optimize=True)


@primitive(
    np.outer,
    np.linalg.outer,  # (of 1-d operands only)
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("np.outer(a, b)", a=real(3), b=real(4)),
        Sample("np.outer(a, b)", a=real(2, 2), b=real(3)),
        Sample("np.linalg.outer(a, b)", a=real(2), b=real(3)),
    ],
)
class outer:
    def adjoint(bz, z, a, b):
        ba = runtime.outer_grad(bz, a, b, 0)
        bb = runtime.outer_grad(bz, a, b, 1)

    def tangent(dz, z, a, b):
        dz = np.outer(da, b)
        dz = np.outer(a, db)


# --- transposes, triangles, traces -----------------------------------------------------------


@primitive(
    np.matrix_transpose,
    np.linalg.matrix_transpose,
    attributes=("mT",),
    shape=EVALUATE,
    view=True,
    samples=[
        Sample("x.mT", x=real(2, 3, 4)),
        Sample("np.linalg.matrix_transpose(x) * 2", x=real(3, 4)),
    ],
)
class matrix_transpose:
    def adjoint(bz, z, x):
        bx = bz.mT

    def tangent(dz, z, x):
        dz = dx.mT


@primitive(
    np.tril,
    shape=EVALUATE,
    fresh=True,
    widens=True,
    samples=[
        Sample("np.tril(m)", m=real(3, 3)),
        Sample("np.tril(m, -1)", m=real(2, 3, 4)),
        Sample("np.tril(m) * m", m=real(3)),
    ],
)
class tril:
    def adjoint(bz, z, m, k=0):
        bm = runtime.unbroadcast(np.tril(bz, k), m)  # (of a 1-d m, each row is m)

    def tangent(dz, z, m, k=0):
        dz = np.tril(dm, k)


@primitive(
    np.triu,
    shape=EVALUATE,
    fresh=True,
    widens=True,
    samples=[
        Sample("np.triu(m)", m=real(3, 3)),
        Sample("np.triu(m, 1)", m=real(2, 3, 4)),
        Sample("np.triu(m, 1) + m", m=real(3)),
    ],
)
class triu:
    def adjoint(bz, z, m, k=0):
        bm = runtime.unbroadcast(np.triu(bz, k), m)  # (of a 1-d m, each row is m)

    def tangent(dz, z, m, k=0):
        dz = np.triu(dm, k)


@primitive(
    np.trace,
    methods=("trace",),
    shape=EVALUATE,
    samples=[
        Sample("np.trace(a)", wrap=None, a=real(3, 3)),
        Sample("np.trace(a, 1, axis1=2, axis2=0)", a=real(3, 2, 4)),
        Sample("a.trace(-1)", a=real(3, 2)),
    ],
)
class trace:
    def adjoint(bz, z, a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
        ba = runtime.trace_vjp(bz, a, offset=offset, axis1=axis1, axis2=axis2)

    def tangent(dz, z, a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
        dz = np.trace(da, offset=offset, axis1=axis1, axis2=axis2)


# --- np.linalg --------------------------------------------------------------------------------


@primitive(
    np.linalg.inv,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("np.linalg.inv(a)", a=well_conditioned(3)),
        Sample("np.linalg.inv(a)", a=well_conditioned(2, batch=(3,))),
        Sample("np.linalg.inv(a * (1 + 0.5j))", wrap="abs2", a=well_conditioned(2)),
    ],
)
class inv:
    def adjoint(bz, z, a):
        ba = -np.swapaxes(z, -1, -2) @ bz @ np.swapaxes(z, -1, -2)

    def tangent(dz, z, a):
        dz = -z @ da @ z


@primitive(
    np.linalg.det,
    shape=EVALUATE,
    samples=[
        Sample("np.linalg.det(a)", wrap=None, a=well_conditioned(3)),
        Sample("np.linalg.det(a)", a=well_conditioned(2, batch=(3,))),
        Sample("np.linalg.det(a * (1 - 0.5j))", wrap="abs2", a=well_conditioned(2)),
    ],
)
class det:
    def adjoint(bz, z, a):
        ba = runtime.det_vjp(bz, z, a)

    def tangent(dz, z, a):
        dz = runtime.det_jvp(da, z, a)


@primitive(
    np.linalg.slogdet,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample(
            "sign * logdet",
            wrap=None,
            setup="sign, logdet = np.linalg.slogdet(a)",
            a=well_conditioned(3),
        ),
        Sample("np.linalg.slogdet(a)[1]", a=well_conditioned(2, batch=(3,))),
    ],
)
class slogdet:
    def adjoint(bz, z, a):
        ba = runtime.slogdet_vjp(bz, z, a)

    def tangent(dz, z, a):
        dz = runtime.slogdet_jvp(da, z, a)


@primitive(
    np.linalg.solve,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("np.linalg.solve(a, b)", a=well_conditioned(3), b=real(3)),
        Sample("np.linalg.solve(a, b)", a=well_conditioned(3), b=real(3, 2)),
        Sample("np.linalg.solve(a, b)", a=well_conditioned(3, batch=(2,)), b=real(3)),
        Sample("np.linalg.solve(a, b)", a=well_conditioned(2), b=real(3, 2, 2)),
        Sample("np.linalg.solve(a * (1 + 1j), b)", wrap="abs2", a=well_conditioned(2), b=real(2)),
    ],
)
class solve:
    def adjoint(bz, z, a, b):
        ba = runtime.solve_vjp_a(bz, z, a, b)
        bb = runtime.solve_vjp_b(bz, z, a, b)

    def tangent(dz, z, a, b):
        dz = runtime.solve_jvp_a(da, z, a, b)
        dz = np.linalg.solve(a, db)


# at a constant rank (a full-rank sample): pinv jumps where the rank changes
@primitive(
    np.linalg.pinv,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("np.linalg.pinv(a)", a=real(3, 2)),
        Sample("np.linalg.pinv(a)", a=real(2, 3)),
        Sample("np.linalg.pinv(a)", a=real(2, 3, 2)),
    ],
)
class pinv:
    def adjoint(bz, z, a, rcond=None, hermitian=False, rtol=None):
        ba = runtime.pinv_vjp(bz, z, a)

    def tangent(dz, z, a, rcond=None, hermitian=False, rtol=None):
        dz = runtime.pinv_jvp(da, z, a)


@primitive(
    np.linalg.matrix_power,
    constant=("n",),
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("np.linalg.matrix_power(a, 3)", a=real(3, 3)),
        Sample("np.linalg.matrix_power(a, -2)", a=well_conditioned(2, batch=(2,))),
        Sample("np.linalg.matrix_power(a, 0) * a", a=real(2, 2)),
    ],
)
class matrix_power:
    def adjoint(bz, z, a, n):
        ba = runtime.matrix_power_vjp(bz, a, n)

    def tangent(dz, z, a, n):
        dz = runtime.matrix_power_jvp(da, a, n)


# multi_dot is the einsum of its chain of products (numpy picks the cheapest order)
@primitive(
    np.linalg.multi_dot,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("np.linalg.multi_dot([a, b, c])", a=real(3), b=real(3, 4), c=real(4, 2)),
        Sample("np.linalg.multi_dot([a, b, c])", a=real(2, 3), b=real(3, 4), c=real(4)),
    ],
)
class multi_dot:
    def adjoint(bz, z, arrays, out=None):
        barrays[i] = runtime.einsum_grad(bz, runtime.multi_dot_subscripts(arrays), arrays, i)

    def tangent(dz, z, arrays, out=None):
        dz[i] = np.einsum(
            runtime.multi_dot_subscripts(arrays),
            *runtime.replace_at(arrays, i, darrays[i]),
            optimize=True,
        )


constants(
    runtime.multi_dot_subscripts,
    samples=[Sample("x * len(runtime.multi_dot_subscripts([x, x]))", x=real(3, 3))],
)


# the solution, the residuals and the singular values (not the rank, an integer), for a of
# full rank; shape=None: the residuals are empty or not depending on the rank, a value
@primitive(
    np.linalg.lstsq,
    shape=None,
    fresh=True,
    samples=[
        Sample("np.linalg.lstsq(a, b)[0]", a=real(4, 3), b=real(4)),
        Sample(
            "x + res", setup="x, res, rank, s = np.linalg.lstsq(a, b)", a=real(4, 2), b=real(4, 2)
        ),
        Sample("np.linalg.lstsq(a, b)[0]", a=real(2, 3), b=real(2)),
        Sample("np.linalg.lstsq(a, b)[3]", a=real(3, 2), b=real(3), constant=("b",)),
    ],
)
class lstsq:
    def adjoint(bz, z, a, b, rcond=None):
        ba = runtime.lstsq_vjp(bz, z, a, b, 0)
        bb = runtime.lstsq_vjp(bz, z, a, b, 1)

    def tangent(dz, z, a, b, rcond=None):
        dz = runtime.lstsq_jvp_a(da, z, a, b)
        dz = runtime.lstsq_jvp_b(db, z, a, b)


def _norms(*calls, x=real(3, 4)):
    return [Sample(call, x=x) for call in calls]


# every ord; ord=0 counts nonzeros (flat: its gradient is zero)
@primitive(
    np.linalg.norm,
    shape=EVALUATE,
    fresh=True,
    samples=_norms(
        "np.linalg.norm(x)",
        "np.linalg.norm(x, axis=1)",
        "np.linalg.norm(x, ord=1, axis=0)",
        "np.linalg.norm(x, axis=-1, keepdims=True)",
        "np.linalg.norm(x, ord=3, axis=1)",
        "np.linalg.norm(x, ord=0, axis=0) * x",
        "np.linalg.norm(x, 'fro')",
        "np.linalg.norm(x, 'nuc')",
        "np.linalg.norm(x, 2)",
        "np.linalg.norm(x, -2)",
    )
    + _norms(
        "np.linalg.norm(x, np.inf, axis=1)",
        "np.linalg.norm(x, -np.inf, axis=0)",
        "np.linalg.norm(x, 1)",
        "np.linalg.norm(x, -1)",
        "np.linalg.norm(x, np.inf)",
        "np.linalg.norm(x, -np.inf)",
        x=distinct(3, 4),
    )
    + _norms(
        "np.linalg.norm(x, 'nuc', axis=(2, 0), keepdims=True)",
        "np.linalg.norm(x, 1, axis=(0, 1))",
        x=real(3, 2, 4),
    )
    + _norms("np.linalg.norm(x, ord=-1.5, axis=0)", x=positive(3, 4))
    + _norms(  # of complex values: of their moduli
        "np.linalg.norm(x + 1j * x[::-1])",
        "np.linalg.norm(x - 2j * x[:, ::-1], 3, axis=1)",
        "np.linalg.norm(x + 1j * x[::-1], np.inf, axis=0, keepdims=True)",
        "np.linalg.norm(x + 0.5j * x[:, ::-1], 1)",
        x=distinct(3, 4),
    )
    + _norms(
        "np.linalg.norm(x + 0.5j * x[:, ::-1], 'nuc', axis=(1, 2))",
        "np.linalg.norm(x - 1j * x[::-1], 2, axis=(1, 2))",
        x=real(2, 3, 4),
    ),
)
class norm:
    def adjoint(bz, z, x, ord=None, axis=None, keepdims=False):
        bx = runtime.norm_vjp(bz, z, x, ord=ord, axis=axis, keepdims=keepdims)

    def tangent(dz, z, x, ord=None, axis=None, keepdims=False):
        dz = runtime.norm_jvp(dx, z, x, ord=ord, axis=axis, keepdims=keepdims)


# of p None, 2 or -2 the ratio of the extreme singular values (any shape), else norm(x, p) *
# norm(inv(x), p), as numpy computes it
@primitive(
    np.linalg.cond,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("np.linalg.cond(a)", a=real(3, 3)),
        Sample("np.linalg.cond(a)", a=real(2, 4, 3)),
        Sample("np.linalg.cond(a, -2)", a=real(3, 4)),
        Sample("np.linalg.cond(a, 'fro')", a=well_conditioned(3)),
        Sample("np.linalg.cond(a, 'nuc')", a=well_conditioned(3, batch=(2,))),
        Sample("np.linalg.cond(a, 1)", a=well_conditioned(3)),
        Sample("np.linalg.cond(a, -np.inf)", a=well_conditioned(3)),
    ],
)
class cond:
    def adjoint(bz, z, x, p=None):
        bx = runtime.cond_vjp(bz, z, x, p)

    def tangent(dz, z, x, p=None):
        dz = runtime.cond_jvp(dx, z, x, p)
