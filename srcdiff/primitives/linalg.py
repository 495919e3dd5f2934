"""Products and linear algebra: matmul (@), dot, tensordot, einsum, outer, inv."""
import gast
import numpy as np

from .. import runtime
from .registry import EVALUATE, Sample, primitive
from .samples import real, well_conditioned


@primitive(np.matmul, operators=(gast.MatMult,), shape=EVALUATE, fresh=True, samples=[
    Sample("x1 @ x2", x1=real(3, 4), x2=real(4, 2)), Sample("x1 @ x2", x1=real(3, 4), x2=real(4)),
    Sample("x1 @ x2", x1=real(4), x2=real(4, 2)), Sample("x1 @ x2", x1=real(4), x2=real(4)),
    Sample("x1 @ x2", x1=real(2, 3, 4), x2=real(4, 5)),
    Sample("np.matmul(x1, x2)", x1=real(2, 3, 4), x2=real(1, 4, 2))])
class matmul:
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.matmul_grad(bz, x1, x2, 0)
        bx2 = runtime.matmul_grad(bz, x1, x2, 1)

    def tangent(dz, z, x1, x2):
        dz = dx1 @ x2
        dz = x1 @ dx2


@primitive(np.dot, methods=("dot",), shape=EVALUATE, fresh=True, samples=[
    Sample("np.dot(a, b)", a=real(3, 4), b=real(4, 2)), Sample("np.dot(a, b)", a=real(4), b=real(4)),
    Sample("np.dot(a, b)", a=real(2, 3, 4), b=real(5, 4, 2)),
    Sample("a.dot(b)", a=real(3, 4), b=real(4))])
class dot:
    def adjoint(bz, z, a, b):
        ba = runtime.dot_grad(bz, a, b, 0)
        bb = runtime.dot_grad(bz, a, b, 1)

    def tangent(dz, z, a, b):
        dz = np.dot(da, b)
        dz = np.dot(a, db)


@primitive(np.tensordot, shape=EVALUATE, fresh=True, samples=[
    Sample("np.tensordot(a, b, axes=([1, 2], [0, 1]))", a=real(2, 3, 4), b=real(3, 4, 5)),
    Sample("np.tensordot(a, b, axes=1)", a=real(2, 3), b=real(3, 4)),
    Sample("np.tensordot(a, a, axes=3)", wrap=None, a=real(2, 3, 4))])
class tensordot:
    def adjoint(bz, z, a, b, axes=2):
        ba = runtime.tensordot_grad(bz, a, b, axes, 0)
        bb = runtime.tensordot_grad(bz, a, b, axes, 1)

    def tangent(dz, z, a, b, axes=2):
        dz = np.tensordot(da, b, axes)
        dz = np.tensordot(a, db, axes)


@primitive(np.einsum, shape=EVALUATE, samples=[
    Sample("np.einsum('ijk,kl->il', a, b)", a=real(2, 3, 4), b=real(4, 5)),
    Sample("np.einsum('ijk->', a)", wrap=None, a=real(2, 3, 4)),
    Sample("np.einsum('ij,j', a, b, optimize=True)", a=real(3, 4), b=real(4)),
    Sample("np.einsum('ii->i', a) + np.einsum('ii', a)", a=real(3, 3)),
    Sample("np.einsum('...ij,...jk', a, b)", a=real(2, 2, 3), b=real(3, 2)),
    Sample("np.einsum('ij,jj->i', a, b)", a=real(2, 3), b=real(3, 3)),
    Sample("np.einsum('i...,i...->...', a, b)", a=real(2, 3, 1), b=real(2, 1, 2))])
class einsum:
    def adjoint(bz, z, subscripts, *operands, optimize=False):
        boperands[i] = runtime.einsum_grad(bz, subscripts, operands, i)

    def tangent(dz, z, subscripts, *operands, optimize=False):
        dz[i] = np.einsum(subscripts, *runtime.replace_at(operands, i, doperands[i]),
                          optimize=True)


@primitive(np.outer, shape=EVALUATE, fresh=True, samples=[
    Sample("np.outer(a, b)", a=real(3), b=real(4)), Sample("np.outer(a, b)", a=real(2, 2), b=real(3))])
class outer:
    def adjoint(bz, z, a, b):
        ba = runtime.outer_grad(bz, a, b, 0)
        bb = runtime.outer_grad(bz, a, b, 1)

    def tangent(dz, z, a, b):
        dz = np.outer(da, b)
        dz = np.outer(a, db)


@primitive(np.linalg.inv, shape=EVALUATE, fresh=True, samples=[
    Sample("np.linalg.inv(a)", a=well_conditioned(3)),
    Sample("np.linalg.inv(a)", a=well_conditioned(2, batch=(3,)))])
class inv:
    def adjoint(bz, z, a):
        ba = -np.swapaxes(z, -1, -2) @ bz @ np.swapaxes(z, -1, -2)

    def tangent(dz, z, a):
        dz = -z @ da @ z
