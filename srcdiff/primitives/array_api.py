"""numpy 2's array-API spellings whose conventions differ from the older functions': the
trace and diagonal of np.linalg (of the last two axes), np.linalg.cross (of 3-vectors), vecdot, and np.linalg's vector_norm and
matrix_norm. (np.linalg's matmul, outer and tensordot are the records of np.matmul, np.outer and
np.tensordot.)"""

import numpy as np

from .. import runtime
from .registry import EVALUATE, Sample, constants, primitive
from .samples import real


@primitive(
    np.linalg.trace,
    shape=EVALUATE,
    samples=[
        Sample("np.linalg.trace(a)", wrap=None, a=real(3, 3)),
        Sample("np.linalg.trace(a, offset=-1)", a=real(2, 3, 2)),
    ],
)
class linalg_trace:
    def adjoint(bz, z, x, offset=0, dtype=None):
        bx = runtime.trace_vjp(bz, x, offset=offset, axis1=-2, axis2=-1)

    def tangent(dz, z, x, offset=0, dtype=None):
        dz = np.linalg.trace(dx, offset=offset)


@primitive(
    np.linalg.diagonal,
    shape=EVALUATE,
    view=True,
    samples=[
        Sample("np.linalg.diagonal(x)", x=real(3, 4)),
        Sample("np.linalg.diagonal(x, offset=1)", x=real(2, 3, 3)),
    ],
)
class linalg_diagonal:
    def adjoint(bz, z, x, offset=0):
        bx = runtime.undiagonal(bz, x, offset=offset, axis1=-2, axis2=-1)

    def tangent(dz, z, x, offset=0):
        dz = np.linalg.diagonal(dx, offset=offset)


# of 3-vectors only: np.cross's adjoint (runtime.cross_grad)
@primitive(
    np.linalg.cross,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("np.linalg.cross(x1, x2)", x1=real(2, 3), x2=real(3)),
        Sample("np.linalg.cross(x1, x2, axis=0)", x1=real(3, 2), x2=real(3, 1)),
    ],
)
class linalg_cross:
    def adjoint(bz, z, x1, x2, axis=-1):
        bx1 = runtime.cross_grad(bz, x1, x2, -1, -1, -1, axis, 0)
        bx2 = runtime.cross_grad(bz, x1, x2, -1, -1, -1, axis, 1)

    def tangent(dz, z, x1, x2, axis=-1):
        dz = runtime.broadcast_like(np.linalg.cross(dx1, x2, axis=axis), z)
        dz = runtime.broadcast_like(np.linalg.cross(x1, dx2, axis=axis), z)


# sum(conj(x1) x2) along axis: the adjoint through the conjugate is conjugated (autograd's)
@primitive(
    np.vecdot,
    np.linalg.vecdot,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("np.vecdot(x1, x2)", x1=real(2, 3), x2=real(3)),
        Sample("np.linalg.vecdot(x1, x2, axis=0)", x1=real(3, 2), x2=real(3, 1)),
        Sample("np.vecdot(x1, x2)", wrap=None, x1=real(4), x2=real(4)),
        Sample("np.vecdot(x1 * (1 + 2j), x2 * (2 - 1j))", wrap="abs2", x1=real(2, 3), x2=real(3)),
    ],
)
class vecdot:
    def adjoint(bz, z, x1, x2, axis=-1):
        bx1 = runtime.real_for(
            runtime.unbroadcast(runtime.conj(np.expand_dims(bz, axis) * x2), x1), x1
        )
        bx2 = runtime.real_for(
            runtime.unbroadcast(np.expand_dims(bz, axis) * runtime.conj(x1), x2), x2
        )

    def tangent(dz, z, x1, x2, axis=-1):
        dz = runtime.broadcast_like(np.vecdot(dx1, x2, axis=axis), z)
        dz = runtime.broadcast_like(np.vecdot(x1, dx2, axis=axis), z)


# a vector norm over one axis, several (as one), or all of x: np.linalg.norm's adjoint there
@primitive(
    np.linalg.vector_norm,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("np.linalg.vector_norm(x)", x=real(3, 4)),
        Sample("np.linalg.vector_norm(x, axis=(0, 2), ord=3)", x=real(2, 3, 2)),
        Sample("np.linalg.vector_norm(x, ord=1, axis=0, keepdims=True)", x=real(3, 2)),
        Sample("np.linalg.vector_norm(x, keepdims=True, ord=np.inf)", x=real(2, 3)),
    ],
)
class vector_norm:
    def adjoint(bz, z, x, axis=None, keepdims=False, ord=2):
        bx = runtime.vector_norm_vjp(bz, z, x, axis=axis, keepdims=keepdims, ord=ord)

    def tangent(dz, z, x, axis=None, keepdims=False, ord=2):
        dz = np.sum(
            runtime.real(
                runtime.vector_norm_vjp(np.ones_like(z), z, x, axis=axis, keepdims=True, ord=ord)
                * dx
            ),
            axis=axis,
            keepdims=keepdims,
        )


@primitive(
    np.linalg.matrix_norm,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("np.linalg.matrix_norm(x)", x=real(2, 3, 4)),
        Sample("np.linalg.matrix_norm(x, ord='nuc', keepdims=True)", x=real(3, 2)),
        Sample("np.linalg.matrix_norm(x, ord=2)", x=real(3, 3)),
    ],
)
class matrix_norm:
    def adjoint(bz, z, x, keepdims=False, ord="fro"):
        bx = runtime.norm_vjp(bz, z, x, ord=ord, axis=(-2, -1), keepdims=keepdims)

    def tangent(dz, z, x, keepdims=False, ord="fro"):
        dz = runtime.norm_jvp(dx, z, x, ord=ord, axis=(-2, -1), keepdims=keepdims)


constants(
    np.linalg.matrix_rank,
    samples=[Sample("x * np.linalg.matrix_rank(x)", x=real(3, 3))],
)
