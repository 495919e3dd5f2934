"""The small runtime that emitted gradient code calls; it never imports the transformer.

Every helper takes adjoints (`g`, `bz`) and primal values and returns a new array:
adjoint arrays are never written in place, because two adjoints may share one buffer.
"""
import functools
import linecache
import math
import string

import numpy as np

from .errors import ArgumentError, Location


def grad_seed(z):
    """The adjoint of a scalar output: ones in its dtype. `grad` of a non-scalar is an error."""
    if isinstance(z, float):
        return 1.0
    if np.iscomplexobj(z):
        raise ArgumentError(
            "grad needs a real scalar output, but the function returned a complex number",
            hint="differentiate a real quantity (np.abs(z) ** 2, np.real(z)), or use "
                 "srcdiff.vjp for a complex output")
    if np.ndim(z) != 0:
        raise ArgumentError(
            f"grad needs a scalar output, but the function returned shape {np.shape(z)}",
            hint="reduce it first (np.sum, np.mean) or use srcdiff.vjp for non-scalar outputs",
        )
    return np.ones_like(z)


class ShapeOf:
    """What an adjoint needs of a value it reads only for its shape: shape, ndim, dtype."""

    __slots__ = ("shape", "ndim", "size", "dtype")

    def __init__(self, array):
        self.shape, self.ndim, self.size, self.dtype = (array.shape, array.ndim, array.size,
                                                        array.dtype)


def shape_of(x):
    """A ShapeOf for a large array; a small one (cheaper to keep than to describe), a float
    or a container is kept as it is."""
    return ShapeOf(x) if type(x) is np.ndarray and x.size > 4096 else x


class Sparse(dict):
    """The adjoint of a dict, list or tuple: entries for the items that got a gradient.
    Adding two merges them, adding the adjoints of shared items."""

    def __add__(self, other):
        if not isinstance(other, Sparse):
            return NotImplemented
        out = Sparse(self)
        for key, value in other.items():
            out[key] = out[key] + value if key in out else value
        return out


def _is_container(x):
    return isinstance(x, (dict, list, tuple))


def zeros_like(x):
    """A zero adjoint for `x`: 0.0 for a Python float, an empty Sparse for containers, zeros
    for arrays."""
    if type(x) is float:
        return 0.0
    if x is None:  # a value never bound on this path: its adjoint is never read either
        return None
    if type(x) is ShapeOf:
        return np.zeros(x.shape, dtype=x.dtype)
    return Sparse() if _is_container(x) else np.zeros_like(x)


def zero_tangent(x):
    """The tangent of an item of a list or tuple that carries none: zeros for an array, 0.0
    for a number, the same structure for a list or tuple (a stack of saved values then pops
    zeros), and None for what has no tangent at all (a ShapeOf, None, a string)."""
    if isinstance(x, (list, tuple)):
        return type(x)(zero_tangent(v) for v in x)
    if type(x) in (float, int, bool):  # a number in a list numpy makes an array of
        return 0.0
    if isinstance(x, np.ndarray) or isinstance(x, np.generic) and x.dtype.kind in "fc":
        return np.zeros_like(x)
    return None


def unpack_adjoint(g, outputs):
    """The adjoints of a returned tuple's items, from a tuple, a Sparse or None (zeros for
    the items that got none)."""
    if isinstance(g, Sparse) or g is None:
        g = g or {}
        return [g[k] if k in g else zeros_like(v) for k, v in enumerate(outputs)]
    return [zeros_like(v) if b is None else b for b, v in zip(g, outputs)]


def pack_adjoint(b, g, outputs):
    """The adjoint of unpack_adjoint(g, outputs) given that of its items (a Sparse or a
    list): an array of rows when g was one, else a Sparse."""
    items = unpack_adjoint(b, outputs)
    if type(g) is np.ndarray:
        return np.stack([np.broadcast_to(item, g.shape[1:]) for item in items])
    return Sparse(enumerate(items))


def add_items(adjoints, more, items=None):
    """The adjoint of list `items` built with append (one adjoint per item, in order; empty
    before any is added) with `more` added, item by item: a list, or a Sparse from index
    reads (items it names nothing of get 0.0)."""
    if type(more) is np.ndarray:  # np.array(items)'s adjoint: a row each
        more = item_adjoints(more, items)
    elif isinstance(more, Sparse):
        if not all(type(k) is int for k in more):
            raise ArgumentError("srcdiff can follow a list built with append read by "
                                "single indices, not slices", hint="index its items one by one")
        n = len(items)
        dense = [0.0] * n
        for k, g in more.items():
            dense[k % n] = dense[k % n] + g
        more = dense
    if not adjoints:
        return list(more)
    return [a + b for a, b in zip(adjoints, more)]


def item_adjoints(g, items):
    """The adjoints of the items of list `items` given the adjoint `g` of the array numpy
    made of it: a row each (a list of rows for an item that is a list itself)."""
    return [item_adjoints(row, item) if type(item) is list else row
            for row, item in zip(g, items)]


def check_not_shared(value, name, others, filename, lineno):
    """Before `name += ...` where other names may share its memory: for an array that is a
    change in place, which they would see and the emitted code (a new value) does not."""
    if type(value) is np.ndarray:
        raise ArgumentError(
            f"{name} += ... changes the array {name!r} in place, and {others} (sharing its "
            "memory) is read afterwards: srcdiff cannot follow that change",
            Location(filename, lineno, linecache.getline(filename, lineno).rstrip()),
            f"write {name} = {name} + ... (a new array), or copy what must keep the old value")


def check_unviewed(array, index, others, name, names, filename, lineno):
    """Before `name[index] = ...` while `names` (x[i] of it, say: a row, or a number, or a
    copy) are still to be read: refuse if one of them sees the elements written."""
    if type(array) is not np.ndarray:
        return
    parts = index if type(index) is tuple else (index,)
    # with an Ellipsis even a single element is a view (a 0-d one), not a number
    written = array[parts if any(p is Ellipsis for p in parts) else parts + (Ellipsis,)]
    if not np.may_share_memory(written, array):
        written = array  # an index array: a copy, so any overlap at all counts
    if any(type(other) is np.ndarray and np.may_share_memory(written, other)
           for other in others):
        raise ArgumentError(
            f"writing into {name!r} changes {names} too (a view of it), which is read "
            "afterwards: srcdiff cannot follow that change",
            Location(filename, lineno, linecache.getline(filename, lineno).rstrip()),
            f"copy before writing ({name} = {name}.copy()), or copy the view")


def check_unpack(value, count):
    """Raise as Python would for `a, b = value` when value does not have `count` items."""
    if len(value) != count:
        raise ValueError(f"cannot unpack {len(value)} values into {count} names")


def as_grad(g, x):
    """Give a gradient the structure, shape and float dtype of the argument it belongs to.
    Containers get the same structure, with zeros for leaves that got no gradient and None
    for leaves that are not floats."""
    if type(x) is np.ndarray and type(g) is np.ndarray and g.shape == x.shape and \
            g.dtype == x.dtype and g.flags.writeable:
        return g
    if _is_container(x):
        g = g if isinstance(g, dict) else {}
        items = x.items() if isinstance(x, dict) else enumerate(x)
        dense = {k: as_grad(g.get(k, 0.0), v) for k, v in items}
        if isinstance(x, dict):
            return type(x)(dense) if type(x) is not dict else dense
        if hasattr(x, "_fields"):  # a namedtuple takes its fields one by one
            return type(x)(*(dense[i] for i in range(len(x))))
        return type(x)(dense[i] for i in range(len(x)))
    if isinstance(x, (bool, int, np.integer)) or (
            isinstance(x, np.ndarray) and x.dtype.kind not in "fc"):
        return None
    if isinstance(x, float):
        g = real_for(g, x)
        return float(g) if type(g) is float or np.ndim(g) == 0 else float(np.sum(g))
    g = np.asarray(g)
    if g.shape != np.shape(x):
        g = unbroadcast(g, x)
        if g.shape != np.shape(x):
            g = np.broadcast_to(g, np.shape(x))
    g = real_for(g, x)
    dtype = getattr(x, "dtype", None)
    if dtype is not None and dtype.kind in "fc" and g.dtype != dtype:
        g = g.astype(dtype)
    if not g.flags.writeable:
        g = g.copy()
    return g


def real_for(g, x):
    """Adjoint g of value x: its real part when x is real (autograd's convention for a real
    value that complex ones were computed from: the gradient of a real function of real
    arguments is real, whatever complex intermediates it went through)."""
    if np.iscomplexobj(g) and not np.iscomplexobj(x):
        return np.real(g)
    return g


def real(x):
    """x's real part; x itself when it is real (no copy)."""
    return np.real(x) if np.iscomplexobj(x) else x


def conj(x):
    """x's complex conjugate; x itself when it is real (no copy)."""
    return np.conj(x) if np.iscomplexobj(x) else x


def _real_for_operand(grad):
    """A product's adjoint with respect to one operand, real when that operand is."""
    @functools.wraps(grad)
    def matched(g, *args):
        operands, wrt = (args[1], args[-1]) if grad is _einsum_grad else (args[:2], args[-1])
        return real_for(grad(g, *args), operands[wrt])
    matched.__name__ = matched.__qualname__ = grad.__name__.lstrip("_")
    return matched


def unbroadcast(g, x):
    """Sum `g` over the axes along which `x` was broadcast, giving `x`'s shape."""
    # the common cases first, cheaply: emitted code calls this for every broadcasting op
    if isinstance(x, float) and isinstance(g, float):  # Python and numpy float64 scalars
        return g
    shape = x.shape if type(x) is np.ndarray else np.shape(x)
    if type(g) is np.ndarray and g.dtype.kind == "c" or type(g) is complex:
        g = real_for(g, x)
    if (g.shape if type(g) is np.ndarray else np.shape(g)) == shape:
        return g
    g = np.asarray(g)
    extra = g.ndim - len(shape)
    if extra > 0:
        g = g.sum(axis=tuple(range(extra)))
    elif extra < 0:  # g has fewer axes than x (a constant 0.0, say): it broadcasts to x
        g = g.reshape((1,) * -extra + g.shape)
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    if stretched:
        g = g.sum(axis=stretched, keepdims=True)
    if g.shape != shape:
        g = np.broadcast_to(g, shape)
    return g


def _normalize_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):
        axis = (axis,)
    return tuple(sorted(int(a) % ndim for a in axis)) if ndim else ()


def _keepdims_shape(x, axis):
    shape = list(np.shape(x))
    for a in _normalize_axes(axis, len(shape)):
        shape[a] = 1
    return tuple(shape)


def unreduce(g, x, axis=None, keepdims=False):
    """Adjoint of a sum: spread `g` back over the reduced axes of `x`. The result is a
    read-only broadcast view (no copy): adjoints are never written in place, and as_grad
    copies one before handing it out as a gradient."""
    g = np.asarray(g)
    if not keepdims:
        g = g.reshape(_keepdims_shape(x, axis))
    return np.broadcast_to(g, np.shape(x))


def reduce_like(g, like, axis=None, keepdims=False):
    """Sum `g` over `axis` into the shape of `like` (the adjoint of unreduce)."""
    return np.reshape(np.sum(g, axis=axis, keepdims=keepdims), np.shape(like))


def power_slope(x, y):
    """d/dx x ** y: y x ** (y - 1), and 0 where y is 0 (x ** 0 is flat, at x = 0 too)."""
    flat = np.equal(y, 0)
    if not np.any(flat):
        return y * np.power(x, y - 1)
    return np.where(flat, 0.0, y * np.power(x, np.where(flat, 1, y - 1)))


def log_or_zero(x):
    """log x, and 0 where x is 0: in d/dy x ** y = x ** y log x, the limit at x = 0 for
    y > 0 (and autograd's value at y <= 0)."""
    if type(x) is float:  # a Python float stays one (np.log's float64 would upcast float32)
        return math.log(x) if x else 0.0
    zero = np.equal(x, 0)
    return np.log(np.where(zero, 1, x)) if np.any(zero) else np.log(x)


def divide_or_zero(a, b):
    """a / b, and 0 where b is 0."""
    zero = np.equal(b, 0)
    if not np.any(zero):
        return a / b
    return np.where(zero, 0.0, a / np.where(zero, 1, b))


def count(x, axis=None):
    """How many elements a reduction over `axis` combines."""
    shape = np.shape(x)
    return int(np.prod([shape[a] for a in _normalize_axes(axis, len(shape))]))


def mean_grad(g, x, axis=None, keepdims=False):
    return unreduce(np.asarray(g) / count(x, axis), x, axis, keepdims)


def var_grad(g, x, axis=None, ddof=0, keepdims=False):
    centred = x - np.mean(x, axis=axis, keepdims=True)
    return unreduce(g, x, axis, keepdims) * centred * (2.0 / (count(x, axis) - ddof))


def extremum_grad(g, peak, x, axis=None, keepdims=False):
    """Adjoint of max/min (`peak`): the gradient is split evenly between tied elements."""
    hits = x == unreduce(peak, x, axis, keepdims)
    ties = np.sum(hits, axis=axis, keepdims=True).astype(np.result_type(g))
    return unreduce(g, x, axis, keepdims) * hits / ties


def broadcast_like(d, like):
    """A tangent `d` stretched to the shape of the output `like` it contributes to."""
    return d if np.shape(d) == np.shape(like) else np.broadcast_to(d, np.shape(like))


def reverse_cumsum(g, like, axis=None):
    """Adjoint of np.cumsum: each element collects the adjoints of every running sum it is
    part of (a cumulative sum from the end), in `like`'s shape."""
    if axis is None:
        flat = np.ravel(g)[::-1]
        return np.reshape(np.cumsum(flat)[::-1], np.shape(like))
    return np.flip(np.cumsum(np.flip(g, axis), axis=axis), axis)


def cast_grad(g, z, x):
    """The adjoint `g` of z = x.astype(...) in x's float dtype (its tangent too, with x = z);
    zeros when z holds no floats: a cast to ints or bools is flat almost everywhere."""
    dtype = getattr(x, "dtype", None)
    floating = dtype is not None and dtype.kind in "fc"
    if getattr(z, "dtype", np.dtype(float)).kind not in "fc":
        return np.zeros(np.shape(x), dtype=dtype if floating else float)
    return g.astype(dtype) if floating else g


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


def pad_tangent(d, pad_width, mode="constant"):
    if mode != "constant":
        raise ArgumentError(f"srcdiff has no derivative for np.pad with mode={mode!r}",
                            hint="use mode='constant'")
    return np.pad(d, pad_width)


def within(a, low, high):
    """Where np.clip(a, low, high) lets a through (either bound may be None)."""
    inside = np.ones(np.shape(a), dtype=bool) if low is None else np.greater_equal(a, low)
    return inside if high is None else inside & np.less_equal(a, high)


def winner_share(g, x, other):
    """The part of np.maximum(x, other)'s adjoint that goes to `x`: all of it where x wins,
    half where they tie."""
    out = np.where(x > other, g, 0)
    tie = np.equal(x, other)  # (an array even of two floats)
    if tie.any():  # rare for real data; keeps the common case to two cheap passes
        out = out + np.where(tie, g / 2, 0)
    return out


def _reduced_last(x, axis):
    """x with the reduced axes moved last and merged into one, and the function undoing it."""
    x = np.asarray(x)
    axes = _normalize_axes(axis, x.ndim)
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = np.transpose(x, kept + list(axes))
    order = np.argsort(kept + list(axes))
    return (moved.reshape(moved.shape[:len(kept)] + (-1,)),
            lambda flat: np.transpose(flat.reshape(moved.shape), order))


def prod_grad(g, x, axis=None, keepdims=False):
    """Adjoint of prod as the product of all other elements (exact with zeros in `x`)."""
    flat, restore = _reduced_last(x, axis)
    ones = np.ones_like(flat[..., :1])
    before = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, flat[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return unreduce(g, x, axis, keepdims) * restore(before * after)


def prod_grad_tangent(g, x, dx, axis=None, keepdims=False):
    """Tangent of prod_grad(g, x) along dx: the derivative of each product of the others,
    by running products and their derivatives (no division, so zeros stay exact)."""
    flat, restore = _reduced_last(x, axis)
    dflat = _reduced_last(dx, axis)[0]
    n = flat.shape[-1]
    product, dproduct = np.ones_like(flat[..., 0]), np.zeros_like(flat[..., 0])
    before, dbefore = [], []
    for i in range(n):
        before.append(product)
        dbefore.append(dproduct)
        dproduct = dproduct * flat[..., i] + product * dflat[..., i]
        product = product * flat[..., i]
    product, dproduct = np.ones_like(flat[..., 0]), np.zeros_like(flat[..., 0])
    dothers = [None] * n
    for i in reversed(range(n)):
        dothers[i] = dbefore[i] * product + before[i] * dproduct
        dproduct = dproduct * flat[..., i] + product * dflat[..., i]
        product = product * flat[..., i]
    return unreduce(g, x, axis, keepdims) * restore(np.stack(dothers, axis=-1))


def _euclidean(x, ord, axis):
    vector = axis is not None and np.ndim(axis) == 0 or axis is None and np.ndim(x) == 1
    if ord is None or ord == "fro" or (ord == 2 and vector):
        return True
    if ord == 1 and vector:
        return False
    raise ArgumentError(f"srcdiff has no gradient for np.linalg.norm with ord={ord!r} here",
                        hint="use ord=None (2-norm/Frobenius) or ord=1 on vectors")


def norm_grad_tangent(g, norm, x, dnorm, dx, ord=None, axis=None, keepdims=False):
    """Tangent of norm_grad(g, norm, x) along (dnorm, dx), either of which may be 0."""
    if not _euclidean(x, ord, axis):
        return np.zeros(np.shape(x), dtype=np.result_type(g, x))
    zs = unreduce(norm, x, axis, keepdims)
    safe = np.where(zs == 0, 1, zs)
    gs = unreduce(g, x, axis, keepdims)
    # a Python 0.0 stands for "no tangent" (the template passes one part at a time)
    radial = 0.0 if type(dnorm) is float else x * unreduce(dnorm, x, axis, keepdims) / safe
    return np.where(zs == 0, 0, gs * (dx - radial) / safe)


def norm_grad(g, norm, x, ord=None, axis=None, keepdims=False):
    """Adjoint of np.linalg.norm for the 2-/Frobenius norm (ord None, 2 on vectors, 'fro')
    and the 1-norm of vectors."""
    if _euclidean(x, ord, axis):
        zs = unreduce(norm, x, axis, keepdims)
        safe = np.where(zs == 0, 1, zs)
        return unreduce(g, x, axis, keepdims) * np.where(zs == 0, 0, x / safe)
    return unreduce(g, x, axis, keepdims) * np.sign(x)


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
    subscripts = subscripts.replace(" ", "")
    if "." in subscripts:
        raise ArgumentError("srcdiff's einsum gradient does not support '...' yet",
                            hint="write the axes out explicitly")
    if "->" in subscripts:
        inputs, output = subscripts.split("->")
    else:
        inputs = subscripts
        letters = inputs.replace(",", "")
        output = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    return inputs.split(","), output


def _einsum_grad(g, subscripts, operands, wrt):
    """Adjoint of np.einsum with respect to operand number `wrt`."""
    inputs, output = _einsum_parts(subscripts, operands)
    target = inputs[wrt]
    if len(set(target)) != len(target):
        raise ArgumentError("srcdiff's einsum gradient does not support repeated indices "
                            f"within one operand ({target!r})")
    others = [s for k, s in enumerate(inputs) if k != wrt]
    other_ops = [op for k, op in enumerate(operands) if k != wrt]
    available = set(output).union(*others)
    present = "".join(c for c in target if c in available)
    grad = np.einsum(",".join([output] + others) + "->" + present, g, *other_ops, optimize=True)
    if present != target:
        shape = np.shape(operands[wrt])
        grad = grad.reshape([shape[i] if c in available else 1 for i, c in enumerate(target)])
        grad = np.broadcast_to(grad, shape).copy()
    return grad


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
        c for i, c in enumerate(sb) if i not in axes_b]
    return "".join(sa) + "," + "".join(sb) + "->" + "".join(out)


def tensordot_grad(g, a, b, axes, wrt):
    return einsum_grad(g, _tensordot_subscripts(a, b, axes), (a, b), wrt)


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


matmul_grad = _real_for_operand(_matmul_grad)
einsum_grad = _real_for_operand(_einsum_grad)
dot_grad = _real_for_operand(_dot_grad)
outer_grad = _real_for_operand(_outer_grad)


def untranspose(g, axes=None):
    return np.transpose(g) if axes is None else np.transpose(g, np.argsort(axes))


def unconcatenate(g, arrays, index, axis=0):
    """The piece of `g` that came from arrays[index] in np.concatenate(arrays, axis)."""
    if axis is None:
        sizes = [np.size(a) for a in arrays]
        start = sum(sizes[:index])
        return np.ravel(g)[start:start + sizes[index]].reshape(np.shape(arrays[index]))
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
        out.reshape(-1)[start:start + sizes[index]] = np.ravel(b)
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
    return [np.asarray(item).reshape(-1, 1) if np.ndim(item) == 1 else np.atleast_2d(item)
            for item in items]


def unjoin(g, items, index, axis):
    """The piece of g = np.r_[items] (axis 0) or np.c_[items] (axis -1) from items[index]."""
    widths = [np.shape(item)[axis] for item in _joined(items, axis)]
    start = sum(widths[:index])
    piece = g[start:start + widths[index]] if axis == 0 else \
        g[..., start:start + widths[index]]
    return np.reshape(piece, np.shape(items[index]))


def join_back(b, g, items, index, axis):
    """The adjoint of unjoin(g, items, index, axis): zeros like g, with b where its piece
    was."""
    widths = [np.shape(item)[axis] for item in _joined(items, axis)]
    start = sum(widths[:index])
    out = np.zeros(np.shape(g), dtype=np.result_type(b, g))
    window = np.s_[start:start + widths[index]] if axis == 0 else \
        np.s_[..., start:start + widths[index]]
    out[window] = np.reshape(b, np.shape(out[window]))
    return out


def _linspace_weight(start, stop, num, endpoint, axis, wrt):
    """How much of `start` (wrt=0) or `stop` (wrt=1) each point of np.linspace holds,
    shaped to broadcast against its output."""
    step = np.linspace(0.0, 1.0, num, endpoint=endpoint, dtype=np.result_type(start, stop,
                                                                                 1.0))
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
    return np.expand_dims(np.broadcast_to(d, np.shape(np.broadcast(start, stop))),
                          axis % ndim) * weight


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
    """Adjoint of np.pad in constant mode: the unpadded middle of `g`."""
    if mode != "constant":
        raise ArgumentError(f"srcdiff has no gradient for np.pad with mode={mode!r}",
                            hint="use mode='constant'")
    widths = np.broadcast_to(np.asarray(pad_width, dtype=int), (np.ndim(x), 2))
    return g[tuple(slice(before, n - after) for (before, after), n in zip(widths, np.shape(g)))]


def unwindow(g, x, window_shape, axis=None, step=1):
    """Adjoint of sliding_window_view (of every `step`-th window along each axis, with
    step > 1): add every window's adjoint back where it was read, one strided slice per
    window offset (much faster than np.add.at)."""
    shape = np.shape(x)
    window_shape = tuple(np.atleast_1d(window_shape))
    axes = tuple(range(len(shape))) if axis is None else tuple(
        a % len(shape) for a in np.atleast_1d(axis))
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
    axes = tuple(range(np.ndim(b))) if axis is None else tuple(
        a % np.ndim(b) for a in np.atleast_1d(axis))
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
        return Sparse({range(len(x))[index][k]: item for k, item in items})
    # (an emitted backward function empties its list of saved values early: only a negative
    # index needs the length)
    return Sparse({index + len(x) if index < 0 else index: g})


def add_at(bx, x, index, g):
    """bx with `g` added at `index` of x, as a new array (or Sparse, for a container's
    adjoint)."""
    if isinstance(bx, Sparse):
        return bx + _sparse_at(x, index, g)
    return _scatter_add(np.array(bx, copy=True), index, g)


def set_at(d, index, value):
    """A copy of tangent `d` with `value` written at `index` (tangents are never written
    in place: one may be the caller's)."""
    out = np.array(d, copy=True)
    out[index] = value
    return out


def written(g, index):
    """g[index]: the adjoint of the values `y[index] = v` wrote. An index array that names
    an element twice writes it twice, and numpy keeps the last write: the earlier ones get
    no adjoint."""
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
    """A copy of adjoint `g` with zeros at `index`: the adjoint of the overwritten elements."""
    out = np.array(g, copy=True)
    out[index] = 0
    return out


def _is_basic(index):
    items = index if isinstance(index, tuple) else (index,)
    return all(i is None or i is Ellipsis or isinstance(i, (int, np.integer, slice))
               for i in items)


def _scatter_add(out, index, g):
    if _is_basic(index):
        out[index] += g
    else:
        np.add.at(out, index, g)
    return out


def same_as(new, old):
    """Check mode of shape specialisation: `new`, what a variant returned, must be what the
    generic code returns (`old`), in structure, type, shape, dtype, writeability and every
    element."""
    if type(new) is not type(old):
        raise AssertionError(f"specialised code returned a {type(new).__name__} where the "
                             f"generic code returns a {type(old).__name__}")
    if isinstance(old, (tuple, list)) and len(new) == len(old):
        items = [same_as(a, b) for a, b in zip(new, old)]
        return type(old)(*items) if hasattr(old, "_fields") else type(old)(items)
    if isinstance(old, dict) and new.keys() == old.keys():
        return type(old)((k, same_as(new[k], old[k])) for k in old)
    if not isinstance(old, (np.ndarray, np.generic, int, float, complex)):
        if new is not old and new != old:
            raise AssertionError(f"specialised code returned {new!r}, not {old!r}")
        return new
    same = np.shape(new) == np.shape(old) and \
        getattr(new, "dtype", None) == getattr(old, "dtype", None)
    if same and type(new) is np.ndarray:
        same = new.flags.writeable == old.flags.writeable
    if not same or not np.array_equal(new, old, equal_nan=np.asarray(old).dtype.kind in "fc"):
        raise AssertionError(f"specialised code computed {type(new).__name__} "
                             f"{np.shape(new)} {getattr(new, 'dtype', '')} where the generic "
                             f"code computes {type(old).__name__} {np.shape(old)} "
                             f"{getattr(old, 'dtype', '')}: {new!r} vs {old!r}")
    return new
