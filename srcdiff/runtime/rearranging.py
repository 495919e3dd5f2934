"""Emitted code's runtime, part three: the adjoints of numpy's functions that rearrange or
select elements (atleast_*, the stacks, repeat, tile, diagonals, take, sort, kron, select,
meshgrid, diff). Each is linear in its adjoint; its own adjoint (the primal function, or a
helper here) makes second derivatives work."""

import numpy as np

from ..errors import ArgumentError
from .containers import unpack_adjoint
from .core import Sparse, real_for, zeros_like


def _zeros_for(g, a):
    """Zeros of a's shape in the dtype g and a make (a may be a runtime.ShapeOf, or a list
    of arrays numpy reads as one)."""
    dtype = a.dtype if hasattr(a, "dtype") else np.asarray(a).dtype
    return np.zeros(np.shape(a), dtype=np.result_type(g, dtype))


def _move_last(x, axis):
    """x with `axis` moved last, and the function putting an array of that layout back."""
    x = np.asarray(x)
    moved = np.moveaxis(x, axis, -1)
    return moved, lambda y: np.moveaxis(y, -1, axis)


# --- atleast_1d/2d/3d of one or several arrays --------------------------------------------------


def unatleast(g, outputs, arys, index):
    """The adjoint of arys[index] in np.atleast_Nd(*arys) (one array, or a list of them)."""
    item = g if len(arys) == 1 else unpack_adjoint(g, outputs)[index]
    return np.reshape(item, np.shape(arys[index]))


def atleast_back(b, outputs, arys, index):
    """The adjoint of unatleast(g, outputs, arys, index): b shaped as that output."""
    if len(arys) == 1:
        return np.reshape(b, np.shape(outputs))
    return _one_item(np.reshape(b, np.shape(outputs[index])), outputs, index)


def _one_item(item, outputs, index):
    """The adjoint of a list of outputs that only output `index` has (zeros for the others;
    every item present, as an emitted gradient reads them all)."""
    return Sparse({k: item if k == index else zeros_like(o) for k, o in enumerate(outputs)})


# --- the adjoints of a list's items --------------------------------------------------------------


def gathered_items(adjoints, items):
    """The adjoint of `items` (a list or tuple, or an array read row by row, as np.stack and
    np.concatenate read it) given the adjoint of each item."""
    if type(items) is np.ndarray:
        return np.stack(adjoints) if adjoints else np.zeros_like(items)
    return Sparse(enumerate(adjoints)).sized(len(adjoints))


# --- vstack, hstack, dstack, column_stack -------------------------------------------------------


def _stack_layout(items, how):
    """The shapes np.<how> gives its items before concatenating them, and the axis."""
    if how == "vstack":  # np.atleast_2d's shapes
        return [{0: (1, 1), 1: (1,) + np.shape(i)}.get(np.ndim(i), np.shape(i)) for i in items], 0
    if how == "dstack":  # np.atleast_3d's
        return [
            {0: (1, 1, 1), 1: (1,) + np.shape(i) + (1,), 2: np.shape(i) + (1,)}.get(
                np.ndim(i), np.shape(i)
            )
            for i in items
        ], 2
    if how == "hstack":
        shapes = [np.shape(i) or (1,) for i in items]
        return shapes, 0 if len(shapes[0]) == 1 else 1
    shapes = [np.shape(i) for i in items]  # column_stack: vectors and numbers become columns
    return [(s[0] if s else 1, 1) if len(s) < 2 else s for s in shapes], 1


def _stack_window(g_ndim, shapes, axis, index):
    start = sum(s[axis] for s in shapes[:index])
    window = [slice(None)] * g_ndim
    window[axis] = slice(start, start + shapes[index][axis])
    return tuple(window)


def unstacked(g, tup, index, how):
    """The piece of g = np.<how>(tup) that came from tup[index], in that item's shape."""
    shapes, axis = _stack_layout(tup, how)
    return np.reshape(g[_stack_window(np.ndim(g), shapes, axis, index)], np.shape(tup[index]))


def stacked_back(b, g, tup, index, how):
    """The adjoint of unstacked(g, tup, index, how): zeros like g with b in its piece."""
    shapes, axis = _stack_layout(tup, how)
    out = _zeros_for(b, g)
    out[_stack_window(out.ndim, shapes, axis, index)] = np.reshape(b, shapes[index])
    return out


def hsplit_axis(pieces):
    """The axis np.hsplit cut along: 1, or 0 for a vector."""
    return 0 if np.ndim(pieces[0]) == 1 else 1


# --- repeat and tile ----------------------------------------------------------------------------


def unrepeat(g, a, repeats, axis=None):
    """Adjoint of np.repeat(a, repeats, axis): each element collects its copies' adjoints."""
    shape = np.shape(a)
    g = np.asarray(g)
    if axis is None or not shape:  # (numpy repeats a 0-d a along any axis as a 1-d one)
        return np.reshape(unrepeat(g, np.empty(int(np.prod(shape)), bool), repeats, 0), shape)
    moved, restore = _move_last(g, axis)
    n = shape[axis]
    if np.ndim(repeats) == 0 or np.size(repeats) == 1:
        count = int(np.ravel(repeats)[0])
        return restore(moved.reshape(moved.shape[:-1] + (n, count)).sum(axis=-1))
    owner = np.repeat(np.arange(n), repeats)
    out = np.zeros(moved.shape[:-1] + (n,), dtype=moved.dtype)
    np.add.at(out, (..., owner), moved)
    return restore(out)


def _tiled_layout(shape, reps):
    reps = tuple(np.atleast_1d(reps))
    ndim = max(len(shape), len(reps))
    return (1,) * (ndim - len(shape)) + tuple(shape), (1,) * (ndim - len(reps)) + reps


def untile(g, a, reps):
    """Adjoint of np.tile(a, reps): the sum of g's tiles, in a's shape."""
    shape, reps = _tiled_layout(np.shape(a), reps)
    interleaved = [n for pair in zip(reps, shape) for n in pair]
    summed = np.reshape(g, interleaved).sum(axis=tuple(range(0, 2 * len(shape), 2)))
    return np.reshape(summed, np.shape(a))


# --- axes ---------------------------------------------------------------------------------------


def rollaxis_destination(x, axis, start=0):
    """Where np.rollaxis(x, axis, start) puts `axis` (as np.moveaxis would say it)."""
    ndim = np.ndim(x)
    axis, start = axis % ndim, start + ndim if start < 0 else start
    return start - 1 if start > axis else start


# --- diagonals ----------------------------------------------------------------------------------


def undiag(g, v, k=0):
    """Adjoint of np.diag(v, k): the k-th diagonal of g for a vector v; for a matrix v, zeros
    of its shape with g on that diagonal."""
    if np.ndim(v) == 1:
        return np.diag(g, k)
    return undiagonal(g, v, k)


def undiagonal(g, a, offset=0, axis1=0, axis2=1):
    """Adjoint of np.diagonal(a, offset, axis1, axis2): zeros of a's shape with g written on
    that diagonal (g's last axis runs along it)."""
    out = _zeros_for(g, a)
    square = np.moveaxis(out, (axis1, axis2), (-2, -1))  # a view: writes reach `out`
    steps = np.arange(np.shape(g)[-1])
    square[..., steps + max(-offset, 0), steps + max(offset, 0)] = g
    return out


# --- indexing: take, take_along_axis, sort ------------------------------------------------------


def _taken(indices, n, mode):
    if mode == "wrap":
        return np.mod(indices, n)
    if mode == "clip":
        return np.clip(indices, 0, n - 1)
    return indices


def untake(g, a, indices, axis=None, mode="raise"):
    """Adjoint of np.take(a, indices, axis, mode=mode): g added at the elements taken."""
    out = _zeros_for(g, a)
    if axis is None or out.ndim == 0:  # (numpy takes from a 0-d a along any axis)
        np.add.at(out.reshape(-1), _taken(indices, out.size, mode), g)  # (a view of out)
        return out
    axis = axis % out.ndim
    index = (slice(None),) * axis + (_taken(indices, out.shape[axis], mode),)
    np.add.at(out, index, g)
    return out


def put_along(g, a, indices, axis=-1):
    """Adjoint of np.take_along_axis(a, indices, axis): g added at the elements taken."""
    out = _zeros_for(g, a)
    if axis is None:
        np.add.at(out.reshape(-1), indices, g)  # (a view of the new array)
        return out
    axis, g = axis % out.ndim, np.asarray(g)
    # along the other axes, element k of g came from element k of a (or from its only one)
    index = tuple(
        indices
        if k == axis
        else np.arange(g.shape[k] if n > 1 else 1).reshape(
            [-1 if j == k else 1 for j in range(out.ndim)]
        )
        for k, n in enumerate(out.shape)
    )
    np.add.at(out, index, g)
    return out


def along_axis_index(shape, indices, axis):
    """The index of the elements np.put_along_axis(a, indices, values, axis) writes, of an
    `a` of this shape: a[along_axis_index(a.shape, indices, axis)] = values writes them."""
    axis = axis % len(shape)
    return tuple(
        indices
        if k == axis
        else np.arange(n).reshape([-1 if j == k else 1 for j in range(len(shape))])
        for k, n in enumerate(shape)
    )


def strided_positions(x, shape=None, strides=None):
    """The flat position in x of each element of np.lib.stride_tricks.as_strided(x, shape,
    strides): as_strided is np.take(x, these) (np.add.at of them its adjoint), for an x
    whose elements lie in order in its memory, which the strides step through."""
    x = np.asarray(x)
    shape = x.shape if shape is None else tuple(shape)
    strides = x.strides if strides is None else tuple(strides)
    if not x.flags.c_contiguous or any(s % x.itemsize for s in strides):
        raise ArgumentError(
            "srcdiff differentiates as_strided of an array whose elements lie in order in "
            "its memory (C-contiguous), stepped through by whole elements",
            hint="pass np.ascontiguousarray(x), or use np.lib.stride_tricks."
            "sliding_window_view, which srcdiff differentiates on any array",
        )
    steps = np.array(strides, dtype=np.intp) // x.itemsize
    positions = np.tensordot(steps, np.indices(shape, dtype=np.intp), axes=1)
    if positions.size and (positions.min() < 0 or positions.max() >= x.size):
        raise ArgumentError(
            "as_strided reads memory outside the array it is given, which has no derivative",
            hint="keep the windows inside the array (shape and strides)",
        )
    return positions


# --- kron ---------------------------------------------------------------------------------------


def kron_grad(g, a, b, wrt):
    """Adjoint of np.kron(a, b) with respect to a (wrt=0) or b: g's blocks weighed by the
    other operand and summed (kron(a, b) is a[i, j] b[k, l] at (i k, j l) of each axis)."""
    a_, b_ = np.asarray(a), np.asarray(b)
    ndim = max(a_.ndim, b_.ndim)
    sa = (1,) * (ndim - a_.ndim) + a_.shape
    sb = (1,) * (ndim - b_.ndim) + b_.shape
    blocks = np.reshape(g, [n for pair in zip(sa, sb) for n in pair])
    if wrt == 0:
        other = np.reshape(b_, [n for s in sb for n in (1, s)])
        part = np.sum(blocks * other, axis=tuple(range(1, 2 * ndim, 2)))
        return real_for(np.reshape(part, a_.shape), a)
    other = np.reshape(a_, [n for s in sa for n in (s, 1)])
    part = np.sum(blocks * other, axis=tuple(range(0, 2 * ndim, 2)))
    return real_for(np.reshape(part, b_.shape), b)


# --- select and meshgrid ------------------------------------------------------------------------


def chosen(condlist, index):
    """Where np.select(condlist, ...) takes choice number `index` (the first condition that
    holds there), or its default (index None: no condition holds)."""
    taken = np.zeros(np.broadcast_shapes(*(np.shape(c) for c in condlist)), dtype=bool)
    for k, condition in enumerate(condlist):
        if k == index:
            return np.logical_and(condition, np.logical_not(taken))
        taken = np.logical_or(taken, condition)
    return np.logical_not(taken)


def _mesh_axis(count, index, indexing):
    """The axis of np.meshgrid's outputs along which input `index` varies."""
    if indexing == "xy" and count > 1 and index < 2:
        return 1 - index
    return index


def unmesh(g, outputs, xi, index, indexing="xy"):
    """Adjoint of input `index` of np.meshgrid(*xi, indexing=indexing): its output's adjoint
    summed over every other axis (g is the adjoint of the whole list of outputs)."""
    item = np.asarray(unpack_adjoint(g, outputs)[index])
    axis = _mesh_axis(len(xi), index, indexing)
    others = tuple(k for k in range(item.ndim) if k != axis)
    return np.reshape(np.sum(item, axis=others), np.shape(xi[index]))


def mesh_back(b, outputs, xi, index, indexing="xy"):
    """The adjoint of unmesh(g, outputs, xi, index, indexing): b along its axis, spread over
    the others, as the adjoint of the list of outputs."""
    shape = np.shape(outputs[index])
    axis = _mesh_axis(len(xi), index, indexing)
    line = np.reshape(b, [-1 if k == axis else 1 for k in range(len(shape))])
    return _one_item(np.broadcast_to(line, shape), outputs, index)


# --- diff ---------------------------------------------------------------------------------------


def _widths(axis, prepend, append):
    """How many values np.diff's prepend and append add along `axis`."""

    def width(values):
        if values is None:
            return 0
        return 1 if np.ndim(values) == 0 else np.shape(values)[axis]

    return width(prepend), width(append)


def undiff(g, n=1, axis=-1, prepend=None, append=None):
    """Adjoint of np.diff(a, n, axis, prepend=..., append=...) with respect to a: the
    transposed difference, (-1)**n times the n-th difference of g padded with n zeros at both
    ends, less the places of prepend and append."""
    before, after = _widths(axis, prepend, append)
    out = _transposed_difference(g, n, axis)
    return out[_along(axis, out.ndim, slice(before, out.shape[axis] - after))]


def _transposed_difference(g, n, axis):
    widths = [(0, 0)] * np.ndim(g)
    widths[axis] = (n, n)
    return np.diff(np.pad(g, widths), n, axis) * (-1) ** n


def _along(axis, ndim, window):
    """The index taking `window` along `axis` of an array of `ndim` dimensions."""
    index = [slice(None)] * ndim
    index[axis] = window
    return tuple(index)


def _end_window(axis, length, prepend, append, end):
    """The places of prepend (end 0) or append (end 1) along `axis` in np.diff's padded
    array of `length` there."""
    before, after = _widths(axis, prepend, append)
    return slice(0, before) if end == 0 else slice(length - after, length)


def diff_end_grad(g, a, n, axis, prepend, append, end):
    """Adjoint of np.diff(a, n, axis, prepend=..., append=...) with respect to prepend (end
    0) or append (end 1): its places in the transposed difference of g, summed for a scalar
    (which np.diff lays along the whole of the end)."""
    out = _transposed_difference(g, n, axis)
    piece = out[_along(axis, out.ndim, _end_window(axis, out.shape[axis], prepend, append, end))]
    return np.sum(piece) if np.ndim(prepend if end == 0 else append) == 0 else piece


def diff_end_tangent(d, a, n, axis, prepend, append, end):
    """np.diff's tangent for a tangent d of prepend (end 0) or append (end 1): the difference
    of zeros in the places of a and of the other end, d laid over its own. Also the adjoint of
    diff_end_grad."""
    before, after = _widths(axis, prepend, append)
    shape = list(np.shape(a))
    shape[axis] += before + after
    padded = np.zeros(shape, dtype=np.result_type(d, a))
    window = _along(axis, len(shape), _end_window(axis, shape[axis], prepend, append, end))
    padded[window] = np.broadcast_to(d, padded[window].shape)
    return np.diff(padded, n, axis)


def padded_diff(d, n=1, axis=-1, prepend=None, append=None):
    """np.diff's tangent for a tangent d of a: the difference of d padded with zeros where
    prepend and append (constants) go. Also the adjoint of undiff."""
    before, after = _widths(axis, prepend, append)
    widths = [(0, 0)] * np.ndim(d)
    widths[axis] = (before, after)
    return np.diff(np.pad(d, widths) if before or after else d, n, axis)
