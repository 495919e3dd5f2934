"""numpy's array manipulation: atleast_*, the stacks and splits, repeat and tile, rolls,
rotations, flips and moved axes, diagonals, kron, select, append, sort, take,
take_along_axis, meshgrid, np.pad and sliding windows. Each is linear in its array
arguments (kron in each one): its tangent is the function itself applied to the tangents,
its adjoint the transposed map (runtime/rearranging.py, whose helpers' records are in
helpers_arrays.py)."""

import numpy as np

from .. import runtime
from ..shapes import UNKNOWN, Typed, evaluate, widen
from .registry import EVALUATE, Sample, primitive
from .samples import constant, distinct, number, real


def _moves(*functions, **facts):
    """A record for a function whose result numpy's own shape rules give."""
    return primitive(*functions, shape=EVALUATE, **facts)


def _evaluate_unless_value_array(function, position, keyword):
    """A shape rule: numpy's, unless the argument at `position` (or `keyword`) is an int
    array of unknown values (np.repeat's repeats, np.tile's reps), which decide the shape."""

    def rule(args, kwargs):
        value = kwargs.get(keyword, args[position] if len(args) > position else None)
        if isinstance(widen(value), Typed) and widen(value).is_array:
            return UNKNOWN
        return evaluate(function, args, kwargs, fresh=True)

    return rule


# --- at least N dimensions --------------------------------------------------------------------


@_moves(
    np.atleast_1d,
    view=True,
    samples=[
        Sample("np.atleast_1d(x) * 2", x=real(3)),
        Sample("np.atleast_1d(a)", a=number()),
        Sample("np.atleast_1d(x, a)[1] * np.atleast_1d(x, a)[0]", x=real(3), a=number()),
    ],
)
class atleast_1d:
    def adjoint(bz, z, *arys):
        barys[i] = runtime.unatleast(bz, z, arys, i)

    def tangent(dz, z, *arys):
        dz = np.atleast_1d(*darys)


@_moves(
    np.atleast_2d,
    view=True,
    samples=[
        Sample("np.atleast_2d(x)", x=real(3)),
        Sample("np.atleast_2d(x)", x=real(2, 3)),
        Sample("np.atleast_2d(x, a)[1] * np.atleast_2d(x, a)[0]", x=real(3), a=number()),
    ],
)
class atleast_2d:
    def adjoint(bz, z, *arys):
        barys[i] = runtime.unatleast(bz, z, arys, i)

    def tangent(dz, z, *arys):
        dz = np.atleast_2d(*darys)


@_moves(
    np.atleast_3d,
    view=True,
    samples=[Sample("np.atleast_3d(x)", x=real(2, 3)), Sample("np.atleast_3d(a) * 2", a=number())],
)
class atleast_3d:
    def adjoint(bz, z, *arys):
        barys[i] = runtime.unatleast(bz, z, arys, i)

    def tangent(dz, z, *arys):
        dz = np.atleast_3d(*darys)


# --- stacks and splits ------------------------------------------------------------------------


@_moves(
    np.vstack,
    fresh=True,
    samples=[
        Sample("np.vstack([x, y * x])", x=real(3), y=real(3)),
        Sample("np.vstack((x, y))", x=real(2, 3), y=real(3)),
    ],
)
class vstack:
    def adjoint(bz, z, tup, dtype=None, casting="same_kind"):
        btup[i] = runtime.unstacked(bz, tup, i, "vstack")

    def tangent(dz, z, tup, dtype=None, casting="same_kind"):
        dz = np.vstack(dtup)


@_moves(
    np.hstack,
    fresh=True,
    samples=[
        Sample("np.hstack([x, y, x])", x=real(2), y=real(3)),
        Sample("np.hstack((x, y))", x=real(2, 3), y=real(2, 1)),
    ],
)
class hstack:
    def adjoint(bz, z, tup, dtype=None, casting="same_kind"):
        btup[i] = runtime.unstacked(bz, tup, i, "hstack")

    def tangent(dz, z, tup, dtype=None, casting="same_kind"):
        dz = np.hstack(dtup)


@_moves(
    np.dstack,
    fresh=True,
    samples=[
        Sample("np.dstack([x, y])", x=real(3), y=real(3)),
        Sample("np.dstack((x, y))", x=real(2, 3), y=real(2, 3, 2)),
    ],
)
class dstack:
    def adjoint(bz, z, tup):
        btup[i] = runtime.unstacked(bz, tup, i, "dstack")

    def tangent(dz, z, tup):
        dz = np.dstack(dtup)


@_moves(
    np.column_stack,
    fresh=True,
    samples=[Sample("np.column_stack([x, y])", x=real(3), y=real(3, 2))],
)
class column_stack:
    def adjoint(bz, z, tup):
        btup[i] = runtime.unstacked(bz, tup, i, "column_stack")

    def tangent(dz, z, tup):
        dz = np.column_stack(dtup)


@_moves(
    np.array_split,
    view=True,  # (a list of views)
    samples=[
        Sample("np.array_split(x, 3)[1] * 2", x=real(5, 2)),
        Sample("np.array_split(x, [1], axis=1)[1]", x=real(2, 3)),
    ],
)
class array_split:
    def adjoint(bz, z, ary, indices_or_sections, axis=0):
        bary = runtime.split_grad(bz, z, axis=axis)

    def tangent(dz, z, ary, indices_or_sections, axis=0):
        dz = np.array_split(dary, indices_or_sections, axis=axis)


@_moves(
    np.hsplit,
    view=True,  # (a list of views)
    samples=[
        Sample("np.hsplit(x, 2)[1]", x=real(2, 4)),
        Sample("np.hsplit(x, [1])[0] * 3", x=real(3)),
    ],
)
class hsplit:
    def adjoint(bz, z, ary, indices_or_sections):
        bary = runtime.split_grad(bz, z, axis=runtime.hsplit_axis(z))

    def tangent(dz, z, ary, indices_or_sections):
        dz = np.hsplit(dary, indices_or_sections)


@_moves(np.vsplit, view=True, samples=[Sample("np.vsplit(x, 2)[1]", x=real(4, 2))])
class vsplit:
    def adjoint(bz, z, ary, indices_or_sections):
        bary = runtime.split_grad(bz, z, axis=0)

    def tangent(dz, z, ary, indices_or_sections):
        dz = np.vsplit(dary, indices_or_sections)


@_moves(np.dsplit, view=True, samples=[Sample("np.dsplit(x, [1])[1]", x=real(2, 1, 3))])
class dsplit:
    def adjoint(bz, z, ary, indices_or_sections):
        bary = runtime.split_grad(bz, z, axis=2)

    def tangent(dz, z, ary, indices_or_sections):
        dz = np.dsplit(dary, indices_or_sections)


# np.append(arr, values) is np.concatenate((arr, values)), of both raveled for axis None
@_moves(
    np.append,
    fresh=True,
    samples=[
        Sample("np.append(x, y)", x=real(2, 2), y=real(3)),
        Sample("np.append(x, 2.0) * x[0]", x=real(3)),
        Sample("np.append(x, y, axis=0)", x=real(2, 3), y=real(1, 3)),
    ],
)
class append:
    def adjoint(bz, z, arr, values, axis=None):
        barr = runtime.unconcatenate(bz, (arr, values), 0, axis)
        bvalues = runtime.unconcatenate(bz, (arr, values), 1, axis)

    def tangent(dz, z, arr, values, axis=None):
        dz = runtime.piece_back(darr, z, (arr, values), 0, axis)
        dz = runtime.piece_back(dvalues, z, (arr, values), 1, axis)


# --- repetition -------------------------------------------------------------------------------


@primitive(
    np.repeat,
    methods=("repeat",),
    fresh=True,
    shape=_evaluate_unless_value_array(np.repeat, 1, "repeats"),
    samples=[
        Sample("np.repeat(x, 2)", x=real(2, 3)),
        Sample("np.repeat(x, 3, axis=0)", x=real(2, 2)),
        Sample("np.repeat(x, [1, 0, 2], axis=-1)", x=real(2, 3)),
        Sample("x.repeat(2, axis=1)", x=real(2, 2)),
        Sample("np.repeat(x, 2, axis=0)", x=lambda rng: np.array(rng.normal())),  # (0-d)
    ],
)
class repeat:
    def adjoint(bz, z, a, repeats, axis=None):
        ba = runtime.unrepeat(bz, a, repeats, axis=axis)

    def tangent(dz, z, a, repeats, axis=None):
        dz = np.repeat(da, repeats, axis=axis)


@primitive(
    np.tile,
    shape=_evaluate_unless_value_array(np.tile, 1, "reps"),
    fresh=True,
    samples=[Sample("np.tile(x, 2)", x=real(3)), Sample("np.tile(x, (2, 1, 2))", x=real(2, 3))],
)
class tile:
    def adjoint(bz, z, A, reps):  # noqa: N803  (numpy's name for it)
        bA = runtime.untile(bz, A, reps)  # noqa: N806

    def tangent(dz, z, A, reps):  # noqa: N803
        dz = np.tile(dA, reps)


# --- reordering: rolls, rotations, flips, axes ------------------------------------------------


@_moves(
    np.roll,
    fresh=True,
    samples=[
        Sample("np.roll(x, 2)", x=real(2, 3)),
        Sample("np.roll(x, -1, axis=1)", x=real(2, 3)),
        Sample("np.roll(x, (1, 2), axis=(0, 1))", x=real(2, 3)),
    ],
)
class roll:
    def adjoint(bz, z, a, shift, axis=None):
        ba = np.roll(bz, np.negative(shift), axis=axis)

    def tangent(dz, z, a, shift, axis=None):
        dz = np.roll(da, shift, axis=axis)


@_moves(
    np.rot90,
    view=True,
    samples=[
        Sample("np.rot90(x)", x=real(2, 3)),
        Sample("np.rot90(x, 3, axes=(1, 2))", x=real(2, 3, 2)),
    ],
)
class rot90:
    def adjoint(bz, z, m, k=1, axes=(0, 1)):
        bm = np.rot90(bz, -k, axes=axes)

    def tangent(dz, z, m, k=1, axes=(0, 1)):
        dz = np.rot90(dm, k, axes=axes)


@_moves(np.fliplr, view=True, samples=[Sample("np.fliplr(x)", x=real(2, 3))])
class fliplr:
    def adjoint(bz, z, m):
        bm = np.fliplr(bz)

    def tangent(dz, z, m):
        dz = np.fliplr(dm)


@_moves(np.flipud, view=True, samples=[Sample("np.flipud(x)", x=real(3, 2))])
class flipud:
    def adjoint(bz, z, m):
        bm = np.flipud(bz)

    def tangent(dz, z, m):
        dz = np.flipud(dm)


@_moves(
    np.moveaxis,
    view=True,
    samples=[
        Sample("np.moveaxis(x, 0, -1)", x=real(2, 3, 4)),
        Sample("np.moveaxis(x, (0, 1), (2, 0))", x=real(2, 3, 4)),
    ],
)
class moveaxis:
    def adjoint(bz, z, a, source, destination):
        ba = np.moveaxis(bz, destination, source)

    def tangent(dz, z, a, source, destination):
        dz = np.moveaxis(da, source, destination)


@_moves(
    np.rollaxis,
    view=True,
    samples=[
        Sample("np.rollaxis(x, 2)", x=real(2, 3, 4)),
        Sample("np.rollaxis(x, 0, 2)", x=real(2, 3, 4)),
        Sample("np.rollaxis(x, -1, 1)", x=real(2, 3, 4)),
    ],
)
class rollaxis:
    def adjoint(bz, z, a, axis, start=0):
        ba = np.moveaxis(bz, runtime.rollaxis_destination(bz, axis, start=start), axis)

    def tangent(dz, z, a, axis, start=0):
        dz = np.rollaxis(da, axis, start=start)


# --- diagonals --------------------------------------------------------------------------------


@_moves(
    np.diag,
    view=True,
    samples=[  # (of a matrix: a view of its diagonal)
        Sample("np.diag(x)", x=real(3)),
        Sample("np.diag(x, -1)", x=real(2)),
        Sample("np.diag(x, 1)", x=real(3, 4)),
        Sample("np.diag(x)", x=real(3, 2)),
    ],
)
class diag:
    def adjoint(bz, z, v, k=0):
        bv = runtime.undiag(bz, v, k=k)

    def tangent(dz, z, v, k=0):
        dz = np.diag(dv, k=k)


@_moves(
    np.diagonal,
    methods=("diagonal",),
    view=True,
    samples=[
        Sample("np.diagonal(x)", x=real(3, 4)),
        Sample("np.diagonal(x, -1, 2, 0)", x=real(3, 2, 4)),
        Sample("x.diagonal(1)", x=real(3, 3)),
    ],
)
class diagonal:
    def adjoint(bz, z, a, offset=0, axis1=0, axis2=1):
        ba = runtime.undiagonal(bz, a, offset=offset, axis1=axis1, axis2=axis2)

    def tangent(dz, z, a, offset=0, axis1=0, axis2=1):
        dz = np.diagonal(da, offset=offset, axis1=axis1, axis2=axis2)


@_moves(
    np.diagflat,
    fresh=True,
    samples=[Sample("np.diagflat(x)", x=real(2, 2)), Sample("np.diagflat(x, -1)", x=real(3))],
)
class diagflat:
    def adjoint(bz, z, v, k=0):
        bv = np.reshape(np.diagonal(bz, offset=k), np.shape(v))

    def tangent(dz, z, v, k=0):
        dz = np.diagflat(dv, k=k)


@_moves(
    np.kron,
    fresh=True,
    samples=[
        Sample("np.kron(a, b)", a=real(2, 3), b=real(2, 2)),
        Sample("np.kron(a, b)", a=real(3), b=real(2, 1, 2)),
    ],
)
class kron:
    def adjoint(bz, z, a, b):
        ba = runtime.kron_grad(bz, a, b, 0)
        bb = runtime.kron_grad(bz, a, b, 1)

    def tangent(dz, z, a, b):
        dz = np.kron(da, b)
        dz = np.kron(a, db)


# --- choosing and reading elements ------------------------------------------------------------


@_moves(
    np.select,
    fresh=True,
    samples=[
        Sample("np.select([x > 0.5, x < -0.5], [x, y * x], default=y)", x=real(6), y=real(6)),
        Sample("np.select([x > 0], [x ** 2])", x=real(3, 2)),
    ],
)
class select:
    def adjoint(bz, z, condlist, choicelist, default=0):
        bchoicelist[i] = runtime.unbroadcast(
            np.where(runtime.chosen(condlist, i), bz, 0), choicelist[i]
        )
        bdefault = runtime.unbroadcast(np.where(runtime.chosen(condlist, None), bz, 0), default)

    def tangent(dz, z, condlist, choicelist, default=0):
        dz = runtime.broadcast_like(np.select(condlist, dchoicelist), z)
        dz = runtime.broadcast_like(np.where(runtime.chosen(condlist, None), ddefault, 0), z)


# ties follow the order np.argsort gives them, as autograd's gradient of np.sort does
@_moves(
    np.sort,
    fresh=True,
    samples=[
        Sample("np.sort(x)", x=distinct(2, 4)),
        Sample("np.sort(x, axis=0)", x=distinct(3, 2)),
        Sample("np.sort(x, axis=None)", x=distinct(2, 3)),
    ],
)
class sort:
    def adjoint(bz, z, a, axis=-1, kind=None, order=None, stable=None):
        ba = runtime.put_along(bz, a, np.argsort(a, axis=axis, kind="stable"), axis=axis)

    def tangent(dz, z, a, axis=-1, kind=None, order=None, stable=None):
        # (np.asarray: the tangent of a list argument is a TangentList)
        dz = np.take_along_axis(np.asarray(da), np.argsort(a, axis=axis, kind="stable"), axis=axis)


@_moves(
    np.take,
    methods=("take",),
    index_args=(1,),
    fresh=True,
    samples=[
        Sample("np.take(x, [0, 2, 2])", x=real(2, 3)),
        Sample("np.take(x, 1, axis=1)", x=real(2, 3)),
        Sample("x.take(index, axis=0)", x=real(3, 2), index=constant(np.array([[2, 0], [2, 2]]))),
        Sample("np.take(x, [-1, 4], mode='wrap')", x=real(3)),
    ],
)
class take:
    def adjoint(bz, z, a, indices, axis=None, out=None, mode="raise"):
        ba = runtime.untake(bz, a, indices, axis=axis, mode=mode)

    def tangent(dz, z, a, indices, axis=None, out=None, mode="raise"):
        dz = np.take(da, indices, axis=axis, mode=mode)


@_moves(
    np.take_along_axis,
    fresh=True,
    samples=[
        Sample(
            "np.take_along_axis(x, index, 1)",
            x=real(2, 3),
            index=constant(np.array([[2, 2], [0, 1]])),
        ),
        Sample(
            "np.take_along_axis(x, index, axis=0)", x=real(3, 2), index=constant(np.array([[1, 0]]))
        ),
        Sample(
            "np.take_along_axis(x, index, None)", x=real(2, 2), index=constant(np.array([3, 0, 3]))
        ),
    ],
)
class take_along_axis:
    def adjoint(bz, z, arr, indices, axis=-1):
        barr = runtime.put_along(bz, arr, indices, axis=axis)

    def tangent(dz, z, arr, indices, axis=-1):
        dz = np.take_along_axis(darr, indices, axis=axis)


@_moves(
    np.meshgrid,
    samples=[
        Sample("np.meshgrid(x, y)[0] * np.meshgrid(x, y)[1]", x=real(3), y=real(2)),
        Sample("np.meshgrid(x, y, z, indexing='ij')[2]", x=real(2), y=real(2), z=real(3)),
        Sample(
            "np.meshgrid(x, y, sparse=True)[0] + 2 * np.meshgrid(x, y, sparse=True)[1]",
            x=real(3),
            y=real(2),
        ),
    ],
)
class meshgrid:
    def adjoint(bz, z, *xi, copy=True, sparse=False, indexing="xy"):
        bxi[i] = runtime.unmesh(bz, z, xi, i, indexing=indexing)

    def tangent(dz, z, *xi, copy=True, sparse=False, indexing="xy"):
        dz = np.meshgrid(*dxi, copy=copy, sparse=sparse, indexing=indexing)


# --- padding and windows ----------------------------------------------------------------------


@_moves(
    np.pad,
    fresh=True,
    samples=[
        Sample("np.pad(x, ((0, 0), (1, 2)))", x=real(3, 4)),
        Sample("np.pad(x, 1)", x=real(3, 4)),
        Sample("np.pad(x, ((2, 1), (0, 3)), mode='reflect')", x=real(3, 4)),
        Sample("np.pad(x, 2, 'edge')", x=real(3, 2)),
        Sample("np.pad(x, (4, 1), mode='wrap')", x=real(3)),
        Sample("np.pad(x, ((1, 2), (2, 0)), mode='symmetric')", x=real(2, 3)),
    ],
)
class pad:
    def adjoint(bz, z, array, pad_width, mode="constant", constant_values=0):
        barray = runtime.unpad(bz, array, pad_width, mode=mode)

    def tangent(dz, z, array, pad_width, mode="constant", constant_values=0):
        dz = runtime.pad_tangent(darray, pad_width, mode=mode)


@_moves(
    np.lib.stride_tricks.sliding_window_view,
    view=True,
    samples=[
        Sample(
            "np.lib.stride_tricks.sliding_window_view(x, (2, 3), axis=(1, 2))[:, ::2]",
            x=real(2, 5, 4),
        ),
        Sample("np.lib.stride_tricks.sliding_window_view(x, 2)", x=real(5)),
    ],
)
class sliding_window_view:
    def adjoint(bz, z, x, window_shape, axis=None):
        bx = runtime.unwindow(bz, x, window_shape, axis=axis)

    def tangent(dz, z, x, window_shape, axis=None):
        dz = np.lib.stride_tricks.sliding_window_view(dx, window_shape, axis=axis)


# a view of x's memory by shape and strides (an im2col written with it): np.take of the
# positions the strides step to, for an x laid out in order (runtime.strided_positions)
@_moves(
    np.lib.stride_tricks.as_strided,
    constant=("shape", "strides", "subok", "writeable"),
    view=True,
    samples=[
        Sample("np.lib.stride_tricks.as_strided(x, (3, 2), (x.itemsize, x.itemsize))", x=real(4)),
        Sample(
            "np.lib.stride_tricks.as_strided(x, shape=(2, 2, 2, 2), strides=x.strides * 2)",
            x=real(3, 4),
        ),
        Sample("np.lib.stride_tricks.as_strided(x)", x=real(2, 3)),
    ],
)
class as_strided:
    def adjoint(bz, z, x, shape=None, strides=None, subok=False, writeable=True):
        bx = runtime.untake(bz, x, runtime.strided_positions(x, shape, strides))

    def tangent(dz, z, x, shape=None, strides=None, subok=False, writeable=True):
        dz = np.take(dx, runtime.strided_positions(x, shape, strides))
