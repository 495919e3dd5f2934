"""Indexing: reading elements of arrays and items of containers (writes `y[i] = v` are
statements of their own, ir.SetItem)."""
import operator

from .. import runtime
from .registry import Sample, primitive
from .samples import real


# x[index]: the interpreter of shapes.py follows subscripts itself (their shape depends on
# the index's kind: basic, an index array, a mask)
@primitive(operator.getitem, samples=[
    Sample("x[1:3, None, ::-1]", x=real(4, 3)), Sample("x[0, 1] * 2", x=real(4, 3)),
    Sample("x[[0, 0, 2], 1]", x=real(4, 3)), Sample("x[x > 0]", x=real(4, 3)),
    Sample("x[..., -1]", x=real(2, 3))])
class getitem:
    def adjoint(bz, z, a, b):
        ba = runtime.getitem_grad(bz, a, b)

    def tangent(dz, z, a, b):
        dz = da[b]
