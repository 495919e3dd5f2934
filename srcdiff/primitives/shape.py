"""Primitives that move values around rather than compute new ones: copies and casts,
containers, reshaping, joining and splitting, and arrays filled from a value. Also the
functions standing for Python syntax (`y = x`, `[a, b]`, `np.r_[a, b]`)."""

import builtins
import copy as copy_module

import numpy as np

from .. import runtime
from .registry import EVALUATE, Sample, primitive
from .samples import number, real


def copy_value(a):
    """The primitive behind a plain assignment `y = x`."""
    return a


def astype(a, dtype):
    """The primitive behind the method `x.astype(dtype)`."""
    return a.astype(dtype)


def flatten(a, order="C"):
    """The primitive behind the method `x.flatten()`: ravel's values, always in a copy."""
    return a.flatten(order)


def as_list(items):
    """The primitive behind a list display `[a, b]` holding differentiated values (the list of
    saved values an emitted forward function returns, when that is differentiated again)."""
    return list(items)


def as_tuple(items):
    """The primitive behind a tuple display `(a, b)` holding differentiated values."""
    return tuple(items)


def as_dict(keys, values):
    """The primitive behind a dict display `{"w": a, "b": b}` holding differentiated values."""
    return dict(zip(keys, values))


def r_(*items):
    """The primitive behind `np.r_[a, b, ...]` of differentiated values."""
    return np.r_[items]


def c_(*items):
    """The primitive behind `np.c_[a, b, ...]` of differentiated values."""
    return np.c_[items]


def _moves(*functions, **facts):
    """A record for a function whose result numpy's own shape rules give."""
    return primitive(*functions, shape=EVALUATE, **facts)


# --- copies, casts and containers -------------------------------------------------------------


@_moves(copy_value, view=True, samples=[Sample("y * x", setup="y = x", x=real(4))])
class copy_value_:
    def adjoint(bz, z, a):
        ba = bz

    def tangent(dz, z, a):
        dz = da


@_moves(
    np.copy,
    methods=("copy",),
    fresh=True,
    samples=[Sample("np.copy(x) * x", x=real(4)), Sample("x.copy() * x", x=real(4))],
)
class copy:
    def adjoint(bz, z, a):
        ba = bz

    def tangent(dz, z, a):
        dz = da


# of any value (a list, a dict, a tuple of arrays too): the gradient passes to each leaf as it is
# (a deep copy is new all through; a shallow one shares its items)
@_moves(
    copy_module.deepcopy,
    fresh=True,
    samples=[Sample("copy.deepcopy([x, y])[1] * x", x=real(3), y=real(3))],
)
class deepcopy:
    def adjoint(bz, z, x):
        bx = bz

    def tangent(dz, z, x):
        dz = dx


@_moves(copy_module.copy, samples=[Sample("copy.copy({'w': x})['w'] * x", x=real(3))])
class shallow_copy:
    def adjoint(bz, z, x):
        bx = bz

    def tangent(dz, z, x):
        dz = dx


@_moves(builtins.float, samples=[Sample("float(np.sum(x)) * x", x=real(3))])
class float_:
    def adjoint(bz, z, x):
        bx = bz

    def tangent(dz, z, x):
        dz = dx


# x.item(): the one number of a size-1 array or scalar, as a Python scalar (float(x) for arrays
# of any number of dimensions)
@_moves(
    np.ndarray.item,
    methods=("item",),
    samples=[
        Sample("np.sum(x).item() * x", x=real(3)),
        Sample("x[1:2].item() * x", x=real(3)),
        Sample("x.item() * 2.0", wrap=None, x=real(1, 1)),
    ],
)
class item:
    def adjoint(bz, z, x):
        bx = runtime.unreduce(bz, x)

    def tangent(dz, z, x):
        dz = np.sum(dx)


# np.float64(x), np.float32(x): a cast (of an array, an array; of a number, numpy's scalar)
@_moves(
    np.float64,
    np.float32,
    samples=[
        Sample("np.float64(np.sum(x)) * x", x=real(3)),
        Sample("np.float64(x) * x", x=real(3)),
        # (np.float32's rounding would swamp a float64 central difference: test_probe5.py)
    ],
)
class float64:
    def adjoint(bz, z, value):
        bvalue = runtime.cast_grad(bz, z, value)

    def tangent(dz, z, value):
        dz = runtime.cast_grad(dvalue, z, z)


# a cast to ints or bools is flat: its gradient is zero, not that of the identity; a copy
# unless copy=False says otherwise (aliasing.py reads the call's copy=)
@_moves(
    astype,
    methods=("astype",),
    fresh=True,
    casts=True,
    inert_keywords=("copy", "order", "casting", "subok"),
    samples=[
        Sample("x.astype(np.float64) * x", x=real(4)),
        Sample("x.astype(int) * x", x=real(4)),
        Sample("x.astype(np.float64, copy=False, order='C') * x", x=real(4)),
    ],
)
class astype_:
    def adjoint(bz, z, a, dtype):
        ba = runtime.cast_grad(bz, z, a)

    def tangent(dz, z, a, dtype):
        dz = runtime.cast_grad(da, z, z)


# of a list display (a differentiated one is as_list's), each item gets its row of bz
@_moves(
    np.asarray,
    np.asanyarray,
    view=True,
    casts=True,
    samples=[
        Sample("np.asarray(x, dtype=float) + np.asanyarray(x)", x=real(4)),
        Sample("np.asarray([x, 2 * y])", x=real(3), y=real(3)),
    ],
)
class asarray:
    def adjoint(bz, z, a, dtype=None):
        ba = runtime.cast_grad(bz, z, a)

    def tangent(dz, z, a, dtype=None):
        dz = runtime.cast_grad(np.asarray(da), z, z)


# (a copy in the memory order asked for where `a` is not so already, else `a` itself; of a
# 0-d value a 1-d array: ndim >= 1)
@_moves(
    np.ascontiguousarray,
    np.asfortranarray,
    view=True,
    casts=True,
    samples=[
        Sample(
            "np.ascontiguousarray(x.T[::-1]) * np.asfortranarray(x.T, dtype=float)", x=real(3, 2)
        ),
        Sample("np.ascontiguousarray(np.sum(x)) * x", x=real(3)),
    ],
)
class ascontiguousarray:
    def adjoint(bz, z, a, dtype=None):
        ba = runtime.cast_grad(np.reshape(bz, np.shape(a)), z, a)

    def tangent(dz, z, a, dtype=None):
        dz = runtime.cast_grad(np.reshape(np.asarray(da), np.shape(z)), z, z)


@_moves(
    np.array,
    fresh=True,
    casts=True,
    samples=[
        Sample("np.array([np.sum(x), x[0] * 2.0])", x=real(4)),
        Sample("np.array(x)", x=real(3)),
    ],
)
class array:
    def adjoint(bz, z, object, dtype=None):  # noqa: A002  (numpy's name for it)
        bobject = runtime.cast_grad(bz, z, object)

    def tangent(dz, z, object, dtype=None):  # noqa: A002  (numpy's name for it)
        dz = runtime.cast_grad(np.asarray(dobject), z, z)


@_moves(as_list, samples=[Sample("np.stack([x, x * y])", x=real(3), y=real(3))])
class as_list_:
    def adjoint(bz, z, items):
        bitems[i] = runtime.unpack_adjoint(bz, items)[i]

    def tangent(dz, z, items):
        dz = runtime.tangent_list(ditems)


@_moves(as_tuple, samples=[Sample("np.stack((x, x * y))", x=real(3), y=real(3))])
class as_tuple_:
    def adjoint(bz, z, items):
        bitems[i] = runtime.unpack_adjoint(bz, items)[i]

    def tangent(dz, z, items):
        dz = runtime.tangent_tuple(ditems)


# a dict display's keys are constants; a key written twice keeps its last value, as Python's
@_moves(
    as_dict,
    constant=("keys",),
    samples=[Sample("{'a': x, 'b': x * y}['b'] + {'w': y}['w']", x=real(3), y=real(3))],
)
class as_dict_:
    def adjoint(bz, z, keys, values):
        bvalues = runtime.dict_values_adjoint(bz, keys, values)

    def tangent(dz, z, keys, values):
        dz = dict(zip(keys, dvalues))


# --- reshaping --------------------------------------------------------------------------------


@_moves(
    np.transpose,
    methods=("transpose",),
    attributes=("T",),
    vararg_method=True,
    view=True,
    samples=[
        Sample("np.transpose(x, (2, 0, 1))", x=real(3, 4, 2)),
        Sample("x.T", x=real(3, 4, 2)),
        Sample("np.transpose(x)", x=real(3, 4)),
        Sample("x.transpose(1, 0, 2)", x=real(3, 4, 2)),
        Sample("np.transpose(x, (-1, 0, -2))", x=real(3, 4, 2)),
    ],
)
class transpose:
    def adjoint(bz, z, a, axes=None):
        ba = runtime.untranspose(bz, axes=axes)

    def tangent(dz, z, a, axes=None):
        dz = np.transpose(da, axes)


@_moves(
    np.reshape,
    methods=("reshape",),
    reads_in_order=True,
    vararg_method=True,
    view=True,
    samples=[
        Sample("np.reshape(x, (4, 6))", x=real(2, 3, 4)),
        Sample("x.reshape(6, 4, order='F')", x=real(2, 3, 4)),
        Sample("x.reshape(-1)", x=real(2, 3)),
        Sample("x.reshape((3, 2))", x=real(2, 3)),
    ],
)
class reshape:
    def adjoint(bz, z, a, shape, order="C"):
        ba = np.reshape(bz, np.shape(a), order=order)

    def tangent(dz, z, a, shape, order="C"):
        dz = np.reshape(da, np.shape(z), order=order)


@_moves(
    np.ravel,
    methods=("ravel",),
    reads_in_order=True,
    view=True,
    samples=[
        Sample("np.ravel(x)", x=real(2, 3)),
        Sample("np.ravel(x, order='F')", x=real(2, 3)),
        Sample("x.ravel() * x.ravel()", x=real(2, 3)),
    ],
)
class ravel:
    def adjoint(bz, z, a, order="C"):
        ba = np.reshape(bz, np.shape(a), order=order)

    def tangent(dz, z, a, order="C"):
        dz = np.reshape(da, np.shape(z), order=order)


@_moves(
    flatten,
    methods=("flatten",),
    reads_in_order=True,
    fresh=True,
    samples=[
        Sample("x.flatten() * x.ravel()", x=real(2, 3)),
        Sample("x.flatten('F') * 2.0", x=real(2, 3)),
    ],
)
class flatten_:
    def adjoint(bz, z, a, order="C"):
        ba = np.reshape(bz, np.shape(a), order=order)

    def tangent(dz, z, a, order="C"):
        dz = np.reshape(da, np.shape(z), order=order)


@_moves(
    np.squeeze,
    methods=("squeeze",),
    view=True,
    samples=[
        Sample("np.squeeze(x, axis=1)", x=real(2, 1, 3)),
        Sample("x.squeeze()", x=real(2, 1, 3)),
    ],
)
class squeeze:
    def adjoint(bz, z, a, axis=None):
        ba = np.reshape(bz, np.shape(a))

    def tangent(dz, z, a, axis=None):
        dz = np.reshape(da, np.shape(z))


@_moves(
    np.expand_dims,
    view=True,
    samples=[
        Sample("np.expand_dims(x, 0)", x=real(2, 3)),
        Sample("np.expand_dims(x, -1)", x=real(3)),
    ],
)
class expand_dims:
    def adjoint(bz, z, a, axis):
        ba = np.reshape(bz, np.shape(a))

    def tangent(dz, z, a, axis):
        dz = np.reshape(da, np.shape(z))


@_moves(
    np.flip,
    view=True,
    samples=[Sample("np.flip(x, 0)", x=real(3, 4)), Sample("np.flip(x)", x=real(3, 4))],
)
class flip:
    def adjoint(bz, z, m, axis=None):
        bm = np.flip(bz, axis)

    def tangent(dz, z, m, axis=None):
        dz = np.flip(dm, axis)


@_moves(
    np.swapaxes,
    methods=("swapaxes",),
    view=True,
    samples=[
        Sample("np.swapaxes(x, 0, 2)", x=real(3, 4, 2)),
        Sample("x.swapaxes(0, 1)", x=real(3, 4)),
    ],
)
class swapaxes:
    def adjoint(bz, z, a, axis1, axis2):
        ba = np.swapaxes(bz, axis1, axis2)

    def tangent(dz, z, a, axis1, axis2):
        dz = np.swapaxes(da, axis1, axis2)


@_moves(
    np.broadcast_to,
    view=True,
    widens=True,
    samples=[
        Sample("np.broadcast_to(x, (4, 3))", x=real(3)),
        Sample("np.broadcast_to(x, 3) * x", x=real(1)),
    ],
)
class broadcast_to:
    def adjoint(bz, z, array, shape):
        barray = runtime.unbroadcast(bz, array)

    def tangent(dz, z, array, shape):
        dz = np.broadcast_to(darray, np.shape(z))


# views srcdiff has no rule for yet: what aliasing analysis must know of them (np.moveaxis,
# np.atleast_*d and np.diagonal have records of their own, in arrays.py)
@_moves(
    view=True,
    methods=("view",),
    attributes=("flat",),
    samples=[Sample("x * np.ones(3).view()[0]", x=real(3))],
)
class views:
    pass


# --- joining and splitting --------------------------------------------------------------------


@_moves(
    np.concatenate,
    fresh=True,
    samples=[
        Sample("np.concatenate([x, y, x * 2], axis=1)", x=real(2, 3), y=real(2, 1)),
        Sample("np.concatenate((x, y))", x=real(2), y=real(3)),
        Sample("np.concatenate([x, y], axis=None)", x=real(2, 2), y=real(3)),
    ],
)
class concatenate:
    def adjoint(bz, z, arrays, axis=0):
        barrays[i] = runtime.unconcatenate(bz, arrays, i, axis=axis)

    def tangent(dz, z, arrays, axis=0):
        dz = np.concatenate(darrays, axis=axis)


@_moves(
    np.stack,
    fresh=True,
    samples=[
        Sample("np.stack([x, y], axis=1)", x=real(3), y=real(3)),
        Sample("np.stack([x, y, x])", x=real(2, 3), y=real(2, 3)),
    ],
)
class stack:
    def adjoint(bz, z, arrays, axis=0):
        barrays[i] = runtime.unstack(bz, i, axis=axis)

    def tangent(dz, z, arrays, axis=0):
        dz = np.stack(darrays, axis=axis)


@_moves(
    np.split,
    multiple_outputs=True,
    view=True,  # (a list of views)
    samples=[
        Sample("np.split(x, 2, axis=0)[1] * 3", x=real(4, 2)),
        Sample("np.split(x, [1, 3])[1]", x=real(5)),
    ],
)
class split:
    def adjoint(bz, z, ary, indices_or_sections, axis=0):
        bary = runtime.split_grad(bz, z, axis=axis)

    def tangent(dz, z, ary, indices_or_sections, axis=0):
        dz = np.split(dary, indices_or_sections, axis=axis)


@primitive(r_, samples=[Sample("np.r_[x, 2 * y, 3.0]", x=real(3), y=real(3))])
class r_join:
    def adjoint(bz, z, *items):
        bitems[i] = runtime.unjoin(bz, items, i, 0)

    def tangent(dz, z, *items):
        dz = np.r_[tuple(ditems)]


@primitive(
    c_,
    samples=[
        Sample("np.c_[x, y * x]", x=real(3), y=real(3)),
        Sample("np.c_[x, y]", x=real(3, 2), y=real(3)),
    ],
)
class c_join:
    def adjoint(bz, z, *items):
        bitems[i] = runtime.unjoin(bz, items, i, -1)

    def tangent(dz, z, *items):
        dz = np.c_[tuple(ditems)]


# --- arrays filled from values ----------------------------------------------------------------


@_moves(
    np.linspace,
    fresh=True,
    samples=[
        Sample("np.linspace(a, b, 5)", a=number(), b=number()),
        Sample("np.linspace(a * 2, b, 4, endpoint=False)", a=number(), b=number()),
        Sample("np.linspace(a, b, 3, axis=-1)", a=real(2), b=real(2)),
    ],
)
class linspace:
    def adjoint(bz, z, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
        bstart = runtime.linspace_grad(bz, start, stop, num, endpoint, axis, 0)
        bstop = runtime.linspace_grad(bz, start, stop, num, endpoint, axis, 1)

    def tangent(dz, z, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
        dz = runtime.linspace_part(dstart, start, stop, num, endpoint, axis, 0)
        dz = runtime.linspace_part(dstop, start, stop, num, endpoint, axis, 1)


@_moves(
    np.full,
    fresh=True,
    widens=True,
    samples=[
        Sample("np.full((2, 3), a) * x", a=number(), x=real(3)),
        Sample("np.full(3, a) * a", a=real(1)),
        Sample("np.full((2, 3), a)", a=real(3)),
    ],
)
class full:
    def adjoint(bz, z, shape, fill_value, dtype=None, order="C"):
        bfill_value = runtime.unbroadcast(bz, fill_value)

    def tangent(dz, z, shape, fill_value, dtype=None, order="C"):
        dz = runtime.broadcast_like(dfill_value, z)


@_moves(
    np.full_like,
    constant=("a",),
    fresh=True,
    samples=[
        Sample("np.full_like(x, a) * x", a=number(), x=real(3), constant=("x",)),
        Sample("np.full_like(np.ones(3), a)", a=number()),
    ],
)
class full_like:  # (written into a's dtype: through ints, flat)
    def adjoint(bz, z, a, fill_value, dtype=None, order="K", subok=True, shape=None):
        bfill_value = runtime.unbroadcast(runtime.through_write(bz, z), fill_value)

    def tangent(dz, z, a, fill_value, dtype=None, order="K", subok=True, shape=None):
        dz = runtime.through_write(runtime.broadcast_like(dfill_value, z), z)
