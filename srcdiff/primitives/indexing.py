"""Indexing: reading elements of arrays and items of containers (writes `y[i] = v` are
statements of their own, ir.SetItem)."""

import operator

from .. import runtime
from .registry import Sample, primitive
from .samples import named_tuple, real, record


# x[index]: the interpreter of shapes.py follows subscripts itself (their shape depends on
# the index's kind: basic, an index array, a mask); an index carries no derivative, even an
# int picked beside differentiated values (k, v = max(enumerate(h), key=...); h[k])
@primitive(
    operator.getitem,
    constant=("b",),
    samples=[
        Sample("x[1:3, None, ::-1]", x=real(4, 3)),
        Sample("x[0, 1] * 2", x=real(4, 3)),
        Sample("x[[0, 0, 2], 1]", x=real(4, 3)),
        Sample("x[x > 0]", x=real(4, 3)),
        Sample("x[..., -1]", x=real(2, 3)),
    ],
)
class getitem:
    def adjoint(bz, z, a, b):
        ba = runtime.getitem_grad(bz, a, b)

    def tangent(dz, z, a, b):
        dz = da[b]


# obj.name of an object carrying arrays (a dataclass, a namedtuple, a model): emitted code
# writes the attribute itself. (The samples cannot differentiate with respect to an object:
# tests/test_python.py's dataclass tests check this rule against finite differences.)
@primitive(
    runtime.field,
    constant=("name",),
    samples=[Sample("runtime.field(p, 'w') * x", x=real(3), p=record(w=real(3)))],
)
class field:
    def adjoint(bz, z, obj, name):
        bobj = runtime.field_grad(bz, obj, name)

    def tangent(dz, z, obj, name):
        dz = runtime.field(dobj, name)


@primitive(
    runtime.field_grad,
    constant=("obj", "name"),
    fresh=True,
    samples=[
        Sample(
            "runtime.field_grad(g, p, 'w')['w']", g=real(3), p=record(w=real(3)), constant=("p",)
        )
    ],
)
class field_grad:
    def adjoint(bz, z, g, obj, name):
        bg = runtime.field_of(bz, obj, name)

    def tangent(dz, z, g, obj, name):
        dz = runtime.field_grad(dg, obj, name)


@primitive(
    runtime.field_of,
    constant=("obj", "name"),
    samples=[
        Sample(
            "runtime.field_of(runtime.field_grad(b, p, 'w'), p, 'w')",
            b=real(3),
            p=record(w=real(3)),
            constant=("p",),
        )
    ],
)
class field_of:
    def adjoint(bz, z, b, obj, name):
        bb = runtime.field_grad(bz, obj, name)

    def tangent(dz, z, b, obj, name):
        dz = runtime.field_of(db, obj, name)


# dataclasses.replace(obj, w=v) and obj._replace(w=v) (containers.py makes them one field at a
# time): the adjoint of obj is that of the fields kept, and the two parts of a tangent add
# field by field (multiple_outputs)
@primitive(
    runtime.replaced,
    constant=("name",),
    multiple_outputs=True,
    keeps=True,
    samples=[
        Sample(
            "runtime.field(runtime.replaced(p, 'w', x * y), 'w') + runtime.field(p, 'b')",
            x=real(3),
            y=real(3),
            p=named_tuple(w=real(3), b=real(3)),
            constant=("p",),
        )
    ],
)
class replaced:
    def adjoint(bz, z, obj, name, value):
        bobj = runtime.without_field(bz, obj, name)
        bvalue = runtime.field_of(bz, obj, name)

    def tangent(dz, z, obj, name, value):
        dz = runtime.replaced(dobj, name, runtime.zero_tangent(value))
        dz = runtime.replaced(runtime.zero_tangent(obj), name, dvalue)


@primitive(
    runtime.without_field,
    constant=("obj", "name"),
    samples=[
        Sample(
            "runtime.field_of(runtime.without_field(runtime.field_grad(b, p, 'b'), p, 'w'), "
            "p, 'b')",
            b=real(3),
            p=named_tuple(w=real(3), b=real(3)),
            constant=("p",),
        )
    ],
)
class without_field:
    def adjoint(bz, z, b, obj, name):
        bb = runtime.without_field(bz, obj, name)

    def tangent(dz, z, b, obj, name):
        dz = runtime.without_field(db, obj, name)
