"""Emitted code's runtime, part two: the adjoints of products, of joins, splits, padding
and windows, and of indexing and writes."""

import functools
import string

import numpy as np

from ..errors import ArgumentError
from .containers import unpack_adjoint
from .core import Sparse, _is_container, real_for, unbroadcast, zero_tangent, zeros_like


def _real_for_operand(grad):
    """A product's adjoint with respect to one operand, real when that operand is."""

    @functools.wraps(grad)
    def matched(g, *args):
        operands, wrt = (args[1], args[-1]) if grad is _einsum_grad else (args[:2], args[-1])
        return real_for(grad(g, *args), operands[wrt])

    matched.__name__ = matched.__qualname__ = grad.__name__.lstrip("_")
    return matched


def unless_wrt(wrt, part, helper, *args):
    """helper(*args), or zeros when `part` is the operand `wrt` that helper differentiates
    (its result does not depend on that operand's values): the tangent of matmul_grad & co."""
    if wrt == part:
        shape_of = args[1 + part] if helper is not einsum_grad else args[2][part]
        return np.zeros_like(shape_of)
    return helper(*args)


def replace_at(items, index, value):
    """`items` (a tuple of einsum operands) with item `index` replaced by `value`."""
    items = list(items)
    items[index] = value
    return items


# np.pad's modes that copy elements of the array (its derivative copies theirs alike)
_COPYING_PAD_MODES = ("edge", "reflect", "symmetric", "wrap")


def pad_tangent(d, pad_width, mode="constant"):
    if mode != "constant" and mode not in _COPYING_PAD_MODES:
        raise ArgumentError(
            f"srcdiff has no derivative for np.pad with mode={mode!r}",
            hint=f"use mode='constant' or one of {', '.join(map(repr, _COPYING_PAD_MODES))}",
        )
    return np.pad(d, pad_width, mode=mode)


def _promote(a, b):
    """matmul's 1-D rules: a vector is a row on the left and a column on the right."""
    a, b = np.asarray(a), np.asarray(b)
    return (a[None, :] if a.ndim == 1 else a), (b[:, None] if b.ndim == 1 else b)


def _matmul_grad(g, a, b, wrt):
    """Adjoint of a @ b with respect to operand `wrt` (0 or 1), batched and broadcast."""
    a, b = np.asarray(a), np.asarray(b)  # a constant operand may be a list
    if a.ndim == 2 and b.ndim == 2:  # the common case, without the general bookkeeping
        return g @ b.T if wrt == 0 else a.T @ g
    if a.ndim == 2 and b.ndim == 1:
        return np.outer(g, b) if wrt == 0 else a.T @ g
    if np.ndim(a) == 1 and np.ndim(b) == 1:
        return g * (b if wrt == 0 else a)
    a2, b2 = _promote(a, b)
    g = np.asarray(g)
    if np.ndim(a) == 1:
        g = np.expand_dims(g, -2)
    if np.ndim(b) == 1:
        g = np.expand_dims(g, -1)
    if wrt == 0:
        da = g @ np.swapaxes(b2, -1, -2)
        da = unbroadcast(da, a2)
        return da.reshape(np.shape(a))
    db = np.swapaxes(a2, -1, -2) @ g
    db = unbroadcast(db, b2)
    return db.reshape(np.shape(b))


def _einsum_parts(subscripts, operands):
    """The operands' and the output's subscripts, with '...' spelled out in letters of its
    own (right-aligned across the operands, as numpy broadcasts them) and an implicit output
    made explicit (the ellipsis, then the letters used once, sorted)."""
    subscripts = subscripts.replace(" ", "")
    inputs, arrow, output = subscripts.partition("->")
    inputs = inputs.split(",")
    spare = (c for c in string.ascii_letters if c not in subscripts)
    ranks = [np.ndim(op) - len(s) + 3 if "..." in s else 0 for s, op in zip(inputs, operands)]
    ellipsis = "".join(next(spare) for _ in range(max(ranks, default=0)))
    if not arrow:
        letters = "".join(inputs).replace(".", "")
        output = "..." + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    inputs = [s.replace("...", ellipsis[len(ellipsis) - rank :]) for s, rank in zip(inputs, ranks)]
    return inputs, output.replace("...", ellipsis)


def _einsum_grad(g, subscripts, operands, wrt):
    """Adjoint of np.einsum with respect to operand number `wrt`: the einsum of g with the
    other operands over the operand's letters, spread along those it sums alone or
    broadcasts, and written on its diagonal where it repeats a letter ('ii->i')."""
    inputs, output = _einsum_parts(subscripts, operands)
    target, shape = inputs[wrt], np.shape(operands[wrt])
    others = [s for k, s in enumerate(inputs) if k != wrt]
    other_ops = [op for k, op in enumerate(operands) if k != wrt]
    size = dict(zip(target, shape))
    letters = "".join(dict.fromkeys(target))  # each once, in order
    available = set(output).union(*others)
    present = "".join(c for c in letters if c in available and size[c] != 1)
    grad = np.einsum(",".join([output] + others) + "->" + present, g, *other_ops, optimize=True)
    # (a letter of size 1 in every other operand, and n in this one: numpy broadcast it)
    spread = present != letters or grad.shape != tuple(size[c] for c in present)
    if spread:
        found = dict(zip(present, grad.shape))
        grad = np.broadcast_to(
            grad.reshape([found.get(c, 1) for c in letters]), [size[c] for c in letters]
        )
    if letters == target:
        return grad.copy() if spread else grad
    out = np.zeros(shape, dtype=grad.dtype)
    np.einsum(target + "->" + letters, out)[...] = grad  # (a view of out's diagonal)
    return out


def _tensordot_subscripts(a, b, axes):
    if isinstance(axes, (int, np.integer)):
        axes_a = list(range(np.ndim(a) - axes, np.ndim(a)))
        axes_b = list(range(axes))
    else:
        axes_a, axes_b = ([ax] if np.ndim(ax) == 0 else list(ax) for ax in axes)
    axes_a = [ax % np.ndim(a) for ax in axes_a]
    axes_b = [ax % np.ndim(b) for ax in axes_b]
    letters = iter(string.ascii_letters)
    sa = [next(letters) for _ in range(np.ndim(a))]
    sb = [next(letters) for _ in range(np.ndim(b))]
    for ia, ib in zip(axes_a, axes_b):
        sb[ib] = sa[ia]
    out = [c for i, c in enumerate(sa) if i not in axes_a] + [
        c for i, c in enumerate(sb) if i not in axes_b
    ]
    return "".join(sa) + "," + "".join(sb) + "->" + "".join(out)


def tensordot_grad(g, a, b, axes, wrt):
    axes = contraction_axes(a, b, axes)
    return einsum_grad(g, _tensordot_subscripts(a, b, axes), (a, b), wrt)


def contraction_axes(a, b, axes):
    """The axes np.inner(a, b) contracts, (-1, -1), for tensordot: none of a 0-d value."""
    return 0 if np.ndim(a) == 0 or np.ndim(b) == 0 else axes


def _dot_grad(g, a, b, wrt):
    """Adjoint of np.dot: a scalar product, matmul for <= 2-D, tensordot otherwise."""
    a, b = np.asarray(a), np.asarray(b)  # a constant operand may be a list
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        other = b if wrt == 0 else a
        return unbroadcast(g * other, a if wrt == 0 else b)
    if np.ndim(a) <= 2 and np.ndim(b) <= 2:
        return _matmul_grad(g, a, b, wrt)
    axes = ([-1], [-2 if np.ndim(b) > 1 else 0])
    return tensordot_grad(g, a, b, axes, wrt)


def _outer_grad(g, a, b, wrt):
    if wrt == 0:
        return (g @ np.ravel(b)).reshape(np.shape(a))
    return (np.ravel(a) @ g).reshape(np.shape(b))


def cross_grad(g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None, wrt=0):
    """Adjoint of np.cross(a, b) for operand `wrt`: the cross product of the other operand
    with g (autograd's rule). A 2-vector is a 3-vector with a zero z, so the z-only result
    of two 2-vectors (a form numpy deprecates but computes) has g as its z."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b, g = np.moveaxis(a, axisa, -1), np.moveaxis(b, axisb, -1), np.asarray(g)
    if a.shape[-1] == b.shape[-1] == 2:
        g = np.stack([np.zeros_like(g), np.zeros_like(g), g], axis=-1)
    else:
        g = np.moveaxis(g, axisc, -1)
    x, x_axis = (a, axisa) if wrt == 0 else (b, axisb)
    result = np.cross(_as_3_vectors(b), g) if wrt == 0 else np.cross(g, _as_3_vectors(a))
    return np.moveaxis(unbroadcast(result[..., : x.shape[-1]], x), -1, x_axis)


def _as_3_vectors(v):
    return v if v.shape[-1] == 3 else np.concatenate([v, np.zeros_like(v[..., :1])], axis=-1)


matmul_grad = _real_for_operand(_matmul_grad)
einsum_grad = _real_for_operand(_einsum_grad)
dot_grad = _real_for_operand(_dot_grad)
outer_grad = _real_for_operand(_outer_grad)


def untranspose(g, axes=None):
    if axes is None:
        return np.transpose(g)
    return np.transpose(g, np.argsort(np.asarray(axes) % np.ndim(g)))  # (-1, 0) is (1, 0)


def unconcatenate(g, arrays, index, axis=0):
    """The piece of `g` that came from arrays[index] in np.concatenate(arrays, axis)."""
    if axis is None:
        sizes = [np.size(a) for a in arrays]
        start = sum(sizes[:index])
        return np.ravel(g)[start : start + sizes[index]].reshape(np.shape(arrays[index]))
    sizes = [np.shape(a)[axis] for a in arrays]
    start = sum(sizes[:index])
    window = [slice(None)] * np.ndim(g)
    window[axis] = slice(start, start + sizes[index])
    return g[tuple(window)]


def piece_back(b, g, arrays, index, axis=0):
    """The adjoint of unconcatenate(g, arrays, index, axis): zeros of g's shape with `b`
    where that piece of g was."""
    out = np.zeros(np.shape(g), dtype=np.result_type(b, g))
    if axis is None:
        sizes = [np.size(a) for a in arrays]
        start = sum(sizes[:index])
        out.reshape(-1)[start : start + sizes[index]] = np.ravel(b)
        return out
    sizes = [np.shape(a)[axis] for a in arrays]
    start = sum(sizes[:index])
    window = [slice(None)] * np.ndim(g)
    window[axis] = slice(start, start + sizes[index])
    out[tuple(window)] = b
    return out


def _joined(items, axis):
    """Each item as np.r_ (axis 0) or np.c_ (axis -1) lays it out: at least 1-D, or at
    least 2-D with a 1-D item as a column."""
    if axis == 0:
        return [np.atleast_1d(item) for item in items]
    return [
        np.asarray(item).reshape(-1, 1) if np.ndim(item) == 1 else np.atleast_2d(item)
        for item in items
    ]


def unjoin(g, items, index, axis):
    """The piece of g = np.r_[items] (axis 0) or np.c_[items] (axis -1) from items[index]."""
    widths = [np.shape(item)[axis] for item in _joined(items, axis)]
    start = sum(widths[:index])
    piece = g[start : start + widths[index]] if axis == 0 else g[..., start : start + widths[index]]
    return np.reshape(piece, np.shape(items[index]))


def join_back(b, g, items, index, axis):
    """The adjoint of unjoin(g, items, index, axis): zeros like g, with b where its piece
    was."""
    widths = [np.shape(item)[axis] for item in _joined(items, axis)]
    start = sum(widths[:index])
    out = np.zeros(np.shape(g), dtype=np.result_type(b, g))
    window = (
        np.s_[start : start + widths[index]]
        if axis == 0
        else np.s_[..., start : start + widths[index]]
    )
    out[window] = np.reshape(b, np.shape(out[window]))
    return out


def _linspace_weight(start, stop, num, endpoint, axis, wrt):
    """How much of `start` (wrt=0) or `stop` (wrt=1) each point of np.linspace holds,
    shaped to broadcast against its output."""
    step = np.linspace(0.0, 1.0, num, endpoint=endpoint, dtype=np.result_type(start, stop, 1.0))
    weight = step if wrt else 1.0 - step
    ndim = np.ndim(np.broadcast(start, stop)) + 1
    shape = [1] * ndim
    shape[axis % ndim] = num
    return weight.reshape(shape)


def linspace_grad(g, start, stop, num, endpoint=True, axis=0, wrt=0):
    """Adjoint of np.linspace(start, stop, num) with respect to start (wrt=0) or stop."""
    weighted = g * _linspace_weight(start, stop, num, endpoint, axis, wrt)
    x = stop if wrt else start
    return unbroadcast(np.sum(weighted, axis=axis), x)


def linspace_part(d, start, stop, num, endpoint=True, axis=0, wrt=0):
    """Tangent of np.linspace(start, stop, num) from the tangent d of start or stop."""
    weight = _linspace_weight(start, stop, num, endpoint, axis, wrt)
    ndim = weight.ndim
    return (
        np.expand_dims(np.broadcast_to(d, np.shape(np.broadcast(start, stop))), axis % ndim)
        * weight
    )


def unstack(g, index, axis=0):
    return np.take(g, index, axis=axis)


def along(x, index, axis):
    """The index that takes `index` along `axis` of x: x[along(x, i, axis)] is
    np.take(x, i, axis)."""
    return (slice(None),) * (axis % np.ndim(x)) + (index,)


def split_grad(gs, outputs, axis=0):
    """Adjoint of np.split: pieces with no adjoint contribute zeros."""
    pieces = unpack_adjoint(gs, outputs)  # (a Sparse when the pieces were indexed)
    return np.concatenate(pieces, axis=axis)


def split_like(g, outputs, axis=0):
    """g in pieces shaped like `outputs` (np.split's pieces): the adjoint of split_grad."""
    sizes = np.cumsum([np.shape(piece)[axis] for piece in outputs])[:-1]
    return np.split(g, sizes, axis=axis)


def unpad(g, x, pad_width, mode="constant"):
    """Adjoint of np.pad: in constant mode the unpadded middle of `g`; in a mode copying
    elements, each element of `g` added to the one of x it copies (np.pad of each axis's
    indices says which)."""
    if mode != "constant" and mode not in _COPYING_PAD_MODES:
        raise ArgumentError(
            f"srcdiff has no gradient for np.pad with mode={mode!r}",
            hint=f"use mode='constant' or one of {', '.join(map(repr, _COPYING_PAD_MODES))}",
        )
    widths = np.broadcast_to(np.asarray(pad_width, dtype=int), (np.ndim(x), 2))
    if mode == "constant":
        return g[tuple(slice(before, n - after) for (before, after), n in zip(widths, np.shape(g)))]
    sources = [np.pad(np.arange(n), width, mode=mode) for n, width in zip(np.shape(x), widths)]
    out = np.zeros(np.shape(x), dtype=np.result_type(g))
    np.add.at(out, np.ix_(*sources), g)
    return out


def unwindow(g, x, window_shape, axis=None, step=1):
    """Adjoint of sliding_window_view (of every `step`-th window along each axis, with
    step > 1): add every window's adjoint back where it was read, one strided slice per
    window offset (much faster than np.add.at)."""
    shape = np.shape(x)
    window_shape = tuple(np.atleast_1d(window_shape))
    axes = (
        tuple(range(len(shape)))
        if axis is None
        else tuple(a % len(shape) for a in np.atleast_1d(axis))
    )
    steps = np.broadcast_to(step, (len(axes),))
    out = np.zeros(shape, dtype=np.result_type(g))
    for offsets in np.ndindex(*window_shape):
        target = [slice(None)] * len(shape)
        for a, offset, every in zip(axes, offsets, steps):
            target[a] = slice(offset, offset + every * (g.shape[a] - 1) + 1, every)
        out[tuple(target)] += g[(Ellipsis,) + offsets]
    return out


def windows_of(b, g, window_shape, axis=None, step=1):
    """The adjoint of unwindow(g, ...): b's windows, every `step`-th, as many as g has."""
    view = np.lib.stride_tricks.sliding_window_view(b, window_shape, axis=axis)
    axes = (
        tuple(range(np.ndim(b)))
        if axis is None
        else tuple(a % np.ndim(b) for a in np.atleast_1d(axis))
    )
    index = [slice(None)] * view.ndim
    for a, every in zip(axes, np.broadcast_to(step, (len(axes),))):
        index[a] = slice(0, every * (g.shape[a] - 1) + 1, every)
    return view[tuple(index)]


def getitem_grad(g, x, index):
    """Adjoint of x[index]: zeros of x's shape with `g` scattered (and summed) into place."""
    if _is_container(x):
        return _sparse_at(x, index, g)
    out = np.zeros(np.shape(x), dtype=np.result_type(g, getattr(x, "dtype", np.float64)))
    return _scatter_add(out, index, g)


def _sparse_at(x, index, g):
    """The adjoint of container x given the adjoint g of x[index]. A list's or a tuple's
    items are keyed by their position counted from the start (x[-1] is item len(x) - 1), so
    that adjoints of one item reached by two indexes add up; a slice's adjoint (a list,
    tuple, Sparse or array of item adjoints) hands each item its own."""
    if isinstance(x, dict):
        return Sparse({index: g})
    if isinstance(index, slice):
        items = g.items() if isinstance(g, dict) else enumerate(g)
        return Sparse({range(len(x))[index][k]: item for k, item in items}).sized(len(x))
    # (an emitted backward function empties its list of saved values early: only a negative
    # index needs the length, and a length that does not hold the index is not the list's)
    return Sparse({index + len(x) if index < 0 else index: g}).sized(
        len(x) if index < len(x) else None
    )


def adjoint_at(b, x, index):
    """b[index], where b is the adjoint of x: for a container's Sparse, keyed by positions
    from the start, the item's (x[-1] is item len(x) - 1; for a slice, the Sparse of the
    slice's items), and zeros for an item that got no adjoint."""
    if not isinstance(b, dict):
        return b[index]
    if isinstance(x, dict):
        return b[index] if index in b else zeros_like(x[index])
    positions = range(len(x))
    if isinstance(index, slice):
        return Sparse({j: b[k] for j, k in enumerate(positions[index]) if k in b})
    k = positions[index]
    return b[k] if k in b else zeros_like(x[k])


def add_at(bx, x, index, g):
    """bx with `g` added at `index` of x, as a new array (or Sparse, for a container's
    adjoint); bx 0.0 is x's zero adjoint (where an accumulation of x's items starts)."""
    if type(bx) is float and bx == 0.0:
        return getitem_grad(g, x, index)
    if isinstance(g, Sparse) and _is_container(x) and isinstance(bx, np.ndarray):
        # a list of lists' adjoint from np.array(m), and one of a row's items (m[0][1])
        bx = Sparse(enumerate(bx)).sized(len(bx))
    if isinstance(bx, Sparse):
        return bx + _sparse_at(x, index, g)
    return _scatter_add(np.array(bx, copy=True), index, g)


def set_at(d, index, value):
    """A copy of tangent `d` with `value` written at `index` (tangents are never written
    in place: one may be the caller's); for a list's or dict's tangent or a Sparse adjoint,
    at the item."""
    if isinstance(d, (dict, list)):
        out = Sparse(d).sized(d.length) if isinstance(d, Sparse) else type(d)(d)
        out[_item_key(d, index)] = value
        return out
    out = np.array(d, copy=True)
    out[index] = value
    return out


def through_write(g, into):
    """The part of `g`, the derivative of y[index] after y[index] = v, that reaches v: all
    of it, or none where y holds ints or bools (numpy casts v to them: flat)."""
    dtype = getattr(into, "dtype", None)
    return np.zeros(np.shape(g)) if dtype is not None and dtype.kind in "biu" else g


def written(g, index):
    """g[index]: the adjoint of the values `y[index] = v` wrote. An index array that names
    an element twice writes it twice, and numpy keeps the last write: the earlier ones get
    no adjoint."""
    if isinstance(g, Sparse):
        return g[_item_key(g, index)]
    part = g[index]
    if _is_basic(index):
        return part
    positions = np.arange(np.size(g)).reshape(np.shape(g))[index].ravel()
    _, last_from_end = np.unique(positions[::-1], return_index=True)
    if last_from_end.size == positions.size:
        return part
    keep = np.zeros(positions.size, dtype=bool)
    keep[positions.size - 1 - last_from_end] = True
    return part * keep.reshape(np.shape(part))


def zero_at(g, index):
    """A copy of adjoint `g` with zeros at `index`: the adjoint of the overwritten elements
    (of the overwritten item, for a list's tangent or Sparse adjoint)."""
    if isinstance(g, Sparse):
        key = _item_key(g, index)
        return Sparse({k: v for k, v in g.items() if k != key}).sized(g.length)
    if isinstance(g, list):
        return set_at(g, index, zero_tangent(g[index]))
    out = np.array(g, copy=True)
    out[index] = 0
    return out


def _item_key(g, index):
    """The key of item `index` of a list in its adjoint or tangent `g`: a Sparse keys a
    list's items by their position from the start, which a negative index says only with
    the list's length."""
    if isinstance(g, Sparse) and isinstance(index, (int, np.integer)) and index < 0:
        if g.length is not None and index >= -g.length:
            return index + g.length
        raise IndexError(
            f"srcdiff: an item written as [{index}] of a list cannot be told "
            "apart from the others: write it by its position from the start"
        )
    return index


def _is_basic(index):
    items = index if isinstance(index, tuple) else (index,)
    return all(i is None or i is Ellipsis or isinstance(i, (int, np.integer, slice)) for i in items)


def _scatter_add(out, index, g):
    if _is_basic(index):
        out[index] += g
    else:
        np.add.at(out, index, g)
    return out
