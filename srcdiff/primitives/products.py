"""More products: inner, vdot, cross (matmul, dot, tensordot, einsum, outer and trace are in
linalg.py, kron in arrays.py). Each operand is differentiated with the other held."""

import numpy as np

from .. import runtime
from .registry import EVALUATE, Sample, primitive
from .samples import real


def _product(*functions, **facts):
    return primitive(*functions, shape=EVALUATE, fresh=True, **facts)


# np.inner(a, b) is np.tensordot(a, b, (-1, -1))
@_product(
    np.inner,
    samples=[
        Sample("np.inner(a, b)", a=real(3), b=real(3)),
        Sample("np.inner(a, b)", a=real(2, 3), b=real(3)),
        Sample("np.inner(a, b)", a=real(2, 3), b=real(4, 2, 3)),
        Sample("np.inner(a, b)", a=lambda rng: np.array(rng.normal()), b=real(3)),  # (0-d)
    ],
)
class inner:
    def adjoint(bz, z, a, b):
        ba = runtime.tensordot_grad(bz, a, b, (-1, -1), 0)
        bb = runtime.tensordot_grad(bz, a, b, (-1, -1), 1)

    def tangent(dz, z, a, b):
        dz = np.inner(da, b)
        dz = np.inner(a, db)


# sum(conj(a) b) of both flattened: the adjoints of conj and of a product (autograd's rules)
@_product(
    np.vdot,
    samples=[
        Sample("np.vdot(a, b)", a=real(2, 3), b=real(6)),
        Sample("np.vdot(a * (1 + 2j), b)", wrap="abs2", a=real(3), b=real(3)),
    ],
)
class vdot:
    def adjoint(bz, z, a, b):
        ba = runtime.real_for(np.reshape(runtime.conj(bz * np.ravel(b)), np.shape(a)), a)
        bb = runtime.real_for(np.reshape(bz * runtime.conj(np.ravel(a)), np.shape(b)), b)

    def tangent(dz, z, a, b):
        dz = np.vdot(da, b)
        dz = np.vdot(a, db)


# of 3-vectors, or of 2-vectors with a zero z (runtime.cross_grad)
@_product(
    np.cross,
    samples=[
        Sample("np.cross(a, b)", a=real(3), b=real(3)),
        Sample("np.cross(a, b)", a=real(2, 3), b=real(3)),
        Sample("np.cross(a, b, axisa=0, axisb=1, axisc=0)", a=real(3, 2), b=real(2, 3)),
        Sample("np.cross(a, b, axis=0)", a=real(3, 2), b=real(3, 1)),
        Sample("np.cross(a, b)", a=real(4, 2), b=real(2)),
        Sample("np.cross(a, b, axisb=0)", a=real(3), b=real(2, 4)),
    ],
)
class cross:
    def adjoint(bz, z, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
        ba = runtime.cross_grad(bz, a, b, axisa, axisb, axisc, axis, 0)
        bb = runtime.cross_grad(bz, a, b, axisa, axisb, axisc, axis, 1)

    def tangent(dz, z, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
        dz = runtime.broadcast_like(np.cross(da, b, axisa, axisb, axisc, axis), z)
        dz = runtime.broadcast_like(np.cross(a, db, axisa, axisb, axisc, axis), z)
