"""More of numpy's selections and joins: partition, compress, delete, insert, block and
choose. Each is linear in its array arguments: its tangent is the function itself applied to
the tangents, its adjoint puts bz back where the values were taken from (runtime.put_along,
runtime.untake)."""

import numpy as np

from .. import runtime
from .arrays import _evaluate_unless_value_array
from .registry import EVALUATE, Sample, constants, primitive
from .samples import distinct, real


def _moves(*functions, **facts):
    facts.setdefault("shape", EVALUATE)
    return primitive(*functions, fresh=True, **facts)


# the values np.argpartition orders as np.partition does (autograd's rule), ties as np.sort's
@_moves(
    np.partition,
    samples=[
        Sample("np.partition(x, 2) * np.arange(5)", x=distinct(5)),
        Sample("np.partition(x, (0, 2), axis=0) * x", x=distinct(4, 3)),
        Sample("np.partition(x, 3, axis=None) * np.arange(6)", x=distinct(2, 3)),
    ],
)
class partition:
    def adjoint(bz, z, a, kth, axis=-1, kind="introselect", order=None):
        ba = runtime.put_along(bz, a, np.argpartition(a, kth, axis=axis), axis=axis)

    def tangent(dz, z, a, kth, axis=-1, kind="introselect", order=None):
        dz = np.take_along_axis(np.asarray(da), np.argpartition(a, kth, axis=axis), axis=axis)


# (an array condition of unknown values decides the result's shape, as delete's obj does)
@_moves(
    np.compress,
    shape=_evaluate_unless_value_array(np.compress, 0, "condition"),
    samples=[
        Sample("np.compress([True, False, True], x, axis=0)", x=real(3, 2)),
        Sample("np.compress(np.ravel(x) > 0, x)", x=real(2, 3)),
        Sample("np.compress([False, True], x, axis=1)", x=real(2, 3)),  # (a shorter condition)
    ],
)
class compress:
    def adjoint(bz, z, condition, a, axis=None):
        ba = runtime.untake(bz, a, np.flatnonzero(condition), axis=axis)

    def tangent(dz, z, condition, a, axis=None):
        dz = np.compress(condition, da, axis=axis)


@_moves(
    np.delete,
    shape=_evaluate_unless_value_array(np.delete, 1, "obj"),
    samples=[
        Sample("np.delete(x, 1, axis=0)", x=real(3, 2)),
        Sample("np.delete(x, [0, 2])", x=real(2, 2)),
        Sample("np.delete(x, slice(0, 3, 2), 1)", x=real(2, 4)),
        Sample("np.delete(x, x < 0)", x=real(5)),
    ],
)
class delete:
    def adjoint(bz, z, arr, obj, axis=None):
        barr = runtime.untake(bz, arr, runtime.kept_indices(arr, obj, axis), axis=axis)

    def tangent(dz, z, arr, obj, axis=None):
        dz = np.delete(darr, obj, axis=axis)


constants(
    runtime.kept_indices,
    shape_args={0},
    samples=[Sample("x[runtime.kept_indices(x, 1, None)]", x=real(3))],
)


# linear in arr and values together: its tangent is np.insert of the tangents (of zeros where
# one is constant), its adjoint the elements of bz each came from
@_moves(
    np.insert,
    shape=_evaluate_unless_value_array(np.insert, 1, "obj"),
    samples=[
        Sample("np.insert(x, 1, y, axis=0)", x=real(3, 2), y=real(2)),
        Sample("np.insert(x, [0, 2, 2], y)", x=real(2, 2), y=real(3)),
        Sample("np.insert(x, 1, 2.0 * y, axis=1)", x=real(2, 3), y=real(2, 1)),
        Sample("np.insert(x, slice(0, 3, 2), y, 1)", x=real(2, 4), y=real(2, 2)),
        Sample("np.insert(x, 2, 0.5) * x[0]", x=real(3)),
        Sample("np.insert(x, [1], y, axis=1)", x=real(2, 2), y=real(2, 1)),
    ],
)
class insert:
    def adjoint(bz, z, arr, obj, values, axis=None):
        barr = runtime.uninsert(bz, arr, obj, values, axis, 0)
        bvalues = runtime.uninsert(bz, arr, obj, values, axis, 1)

    def tangent(dz, z, arr, obj, values, axis=None):
        dz = np.insert(darr, obj, np.zeros_like(values), axis=axis)
        dz = np.insert(np.zeros_like(z, shape=np.shape(arr)), obj, dvalues, axis=axis)


constants(
    runtime.inserted_places,
    shape_args={0, 2},
    samples=[Sample("x[runtime.inserted_places(x, 1, 2.0)[1]]", x=real(3))],
)
primitive(
    runtime.uninsert,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("runtime.uninsert(g, x, [0, 2], y, None, 1)", g=real(6), x=real(2, 2), y=real(2))
    ],
)(type("uninsert", (), {}))


# np.block of a nested list display (blocks.py): each piece's adjoint is its box of bz
@_moves(
    runtime.block,
    samples=[
        Sample(
            "runtime.block([x, y, z, w], ((0, 1), (2, 3)))",
            x=real(2, 2),
            y=real(2, 1),
            z=real(1, 2),
            w=real(1, 1),
        ),
        Sample("runtime.block([x, 2.0, y], (0, 1, 2))", x=real(3), y=real(2)),
        Sample("runtime.block([x, y], ((0,), (1,)))", x=real(3), y=real(2, 3)),
    ],
)
class block:
    def adjoint(bz, z, arrays, layout):
        barrays[i] = runtime.unblock(bz, arrays, layout, i)

    def tangent(dz, z, arrays, layout):
        dz = runtime.block(darrays, layout)


constants(
    runtime.block_labels,
    shape_args={0},
    samples=[Sample("x[runtime.block_labels([x, 2.0], (0, 1))[:3] == 0]", x=real(3))],
)


@_moves(
    runtime.unblock,
    constant=("arrays",),
    shape_args={1},
    samples=[
        Sample(
            "runtime.unblock(g, [x, y], ((0, 1),), 1)",
            g=real(2, 5),
            x=real(2, 3),
            y=real(2, 2),
            constant=("x", "y"),
        )
    ],
)
class unblock:
    def adjoint(bz, z, g, arrays, layout, index):
        bg = runtime.block_back(bz, g, arrays, layout, index)

    def tangent(dz, z, g, arrays, layout, index):
        dz = runtime.unblock(dg, arrays, layout, index)


@_moves(
    runtime.block_back,
    constant=("g", "arrays"),
    samples=[
        Sample(
            "runtime.block_back(b, g, [x, y], (0, 1), 0)",
            b=real(2),
            g=real(5),
            x=real(2),
            y=real(3),
            constant=("g", "x", "y"),
        )
    ],
)
class block_back:
    def adjoint(bz, z, b, g, arrays, layout, index):
        bb = runtime.unblock(bz, arrays, layout, index)

    def tangent(dz, z, b, g, arrays, layout, index):
        dz = runtime.block_back(db, g, arrays, layout, index)


# each element from the choice its index names (after mode's wrap or clip: np.choose of the
# choices' numbers tells which)
@_moves(
    np.choose,
    samples=[
        Sample("np.choose(np.array([0, 1, 0]), [x, y])", x=real(3), y=real(2, 3)),
        Sample("np.choose(np.array([[2], [0]]), [x, 2 * x, y], mode='wrap')", x=real(3), y=real(1)),
        Sample("np.choose(np.array([0, 5, 1]), (x, y), mode='clip')", x=real(3), y=real(3)),
    ],
)
class choose:
    def adjoint(bz, z, a, choices, out=None, mode="raise"):
        bchoices[i] = runtime.unbroadcast(
            np.where(np.choose(a, np.arange(len(choices)), mode=mode) == i, bz, 0), choices[i]
        )

    def tangent(dz, z, a, choices, out=None, mode="raise"):
        dz = runtime.broadcast_like(np.choose(a, dchoices, mode=mode), z)
