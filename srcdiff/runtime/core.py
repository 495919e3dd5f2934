"""Emitted code's runtime, part one: seeds and zeros, checks that refuse what srcdiff cannot
follow, broadcasting, reductions and elementwise edge cases.
It never imports the transformer."""

import copy
import dataclasses
import functools
import inspect
import cmath
import math
import types

import numpy as np

from ..errors import ArgumentError, SrcdiffError


def grad_seed(z):
    """The adjoint of a scalar output: ones in its dtype. `grad` of a non-scalar is an error."""
    if isinstance(z, float):
        return 1.0
    if np.iscomplexobj(z):
        raise ArgumentError(
            "grad needs a real scalar output, but the function returned a complex number",
            hint="differentiate a real quantity (np.abs(z) ** 2, np.real(z)), or use "
            "srcdiff.vjp for a complex output",
        )
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
        self.shape, self.ndim, self.size, self.dtype = (
            array.shape,
            array.ndim,
            array.size,
            array.dtype,
        )


def shape_of(x):
    """A ShapeOf for a large array; a small one (cheaper to keep than to describe), a float
    or a container is kept as it is."""
    return ShapeOf(x) if type(x) is np.ndarray and x.size > 4096 else x


class Sparse(dict):
    """The adjoint of a dict, list or tuple: entries for the items that got a gradient (an
    item without one reads as 0.0). Adding two merges them, adding the adjoints of shared items. Adding an array (the
    adjoint of the array numpy makes of a list: np.sum(xs), np.array(xs)) adds its rows."""

    __array_ufunc__ = None  # array + Sparse is Sparse.__radd__, not a sum per element
    # the length of the list or tuple it is the adjoint of, where known: what an item written
    # as [-1] is keyed by (None: not known, or a dict's adjoint, whose -1 is a key)
    length = None

    def __init__(self, items=(), /):
        dict.__init__(self, items)
        if type(items) is dict:  # a display (passes/dict_adjoints.py writes them nested)
            for key, value in items.items():
                if type(value) is dict:
                    self[key] = Sparse(value)  # (so that adding two merges them, key by key)
                elif type(key) is str and type(value) is float and value == 0.0:
                    del self[key]  # (a key that got nothing, read as zeros of its value)

    def sized(self, length):
        """Itself, knowing the length of the list or tuple it is the adjoint of."""
        if length:  # (0: a list of saved values an emitted backward function emptied)
            self.length = length
        return self

    def __missing__(self, key):
        return 0.0  # an item that got no gradient (read as b[0] where b[0] was written)

    def pop(self, *key):
        """dict.pop; with no key, as the adjoint of a list built with append (zero where a
        path did not read the list): its last item's adjoint, which that append's reverse
        takes (0.0 if it got none)."""
        if key or self.length is None:
            return dict.pop(self, *key)
        self.length -= 1
        return dict.pop(self, self.length, 0.0)

    def append(self, adjoint):
        """As the adjoint of a list built with append, the reverse of a pop: the adjoint of
        the item popped, put back as the last."""
        at = len(self) if self.length is None else self.length
        self[at], self.length = adjoint, at + 1

    def __add__(self, other):
        if isinstance(other, (int, float, np.number)) and other == 0:
            return self  # a zero the specialised code folded to a number
        if _is_dense(other) or isinstance(other, (list, tuple)):
            other = Sparse(enumerate(other)).sized(len(other))
        if not isinstance(other, Sparse):
            return NotImplemented
        out = Sparse(self).sized(self.length or other.length)
        for key, value in other.items():
            out[key] = _added(out[key], value) if key in out else value
        return out

    __radd__ = __add__


def _added(a, b):
    """a + b of two adjoints of one item: of a list of numbers, a list of their adjoints
    or a Sparse (which `+` of two lists would join, not add)."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple, Sparse)):
        return b + Sparse(enumerate(a)).sized(len(a))
    return a + b


def _is_dense(g):
    """Whether g is an array adjoint with rows (not a scalar, nor a container's Sparse)."""
    return isinstance(g, np.ndarray) and g.ndim > 0


def _is_container(x):
    return isinstance(x, (dict, list, tuple))


def stop_gradient(x):
    """x itself, through which no derivative flows: as a constant in every mode and order
    (a target held fixed, a baseline, a straight-through estimator's other half)."""
    return x


# classes registered with register_pytree_node: cls -> (flatten, unflatten)
PYTREE_NODES = {}


def register_pytree_node(cls, flatten, unflatten):
    """Declare how objects of `cls` hold arrays, as JAX's function of this name does:
    `flatten(obj)` returns (children, aux) and `unflatten(aux, children)` builds one again.
    Their gradients are built with unflatten (a child's gradient is that of the attribute
    holding it), and srcdiff.tree_map and the optimisers walk into them."""
    PYTREE_NODES[cls] = (flatten, unflatten)
    return cls


def is_record(x):
    """Whether x is an object whose attributes may carry gradients: an instance of a user
    class (a dataclass, a SimpleNamespace, a model object, a registered pytree node), not an
    array, a number, a container, a function, a class or a module."""
    kind = type(x)
    if kind in PYTREE_NODES:
        return True
    return (
        kind.__module__ not in ("builtins", "numpy")
        and not kind.__module__.startswith("numpy.")
        or kind is types.SimpleNamespace
    ) and not (
        isinstance(
            x,
            (tuple, list, dict, np.ndarray, np.generic, type, types.ModuleType, functools.partial),
        )
        or inspect.isroutine(x)
    )


def record_fields(x):
    """The attributes of record x that gradients follow: a dataclass's fields, else the
    instance's own attributes."""
    if type(x) in PYTREE_NODES:
        children = {id(child) for child in PYTREE_NODES[type(x)][0](x)[0]}
        return [name for name in attribute_names(x) if id(getattr(x, name)) in children]
    if dataclasses.is_dataclass(x):
        return [f.name for f in dataclasses.fields(x)]
    return attribute_names(x)


def attribute_names(x):
    """The instance's own attributes: those in its __dict__, and the __slots__ it has set
    (a class with __slots__ has no __dict__: its fields are those)."""
    names = list(vars(x)) if hasattr(x, "__dict__") else []
    for kind in type(x).__mro__:
        slots = getattr(kind, "__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__", *names) and hasattr(x, name):
                names.append(name)
    return names


def rebuilt(x, fields):
    """A shallow copy of record x with `fields` (name -> value) set, frozen or not; for a
    registered pytree node, unflatten of its children with those of them set that are the
    values of those attributes of x (zeros for the others: this builds gradients)."""
    if type(x) in PYTREE_NODES:
        flatten, unflatten = PYTREE_NODES[type(x)]
        children, aux = flatten(x)
        by_identity = {id(getattr(x, name)): name for name in attribute_names(x)}
        return unflatten(
            aux,
            [
                fields[by_identity[id(child)]]
                if id(child) in by_identity and by_identity[id(child)] in fields
                else zero_tangent(child)
                for child in children
            ],
        )
    out = copy.copy(x)
    for name, value in fields.items():
        object.__setattr__(out, name, value)
    return out


def zeros_like(x):
    """A zero adjoint for `x`: 0.0 for a Python float, an empty Sparse for containers, zeros
    for arrays."""
    if type(x) is float:
        return 0.0
    if x is None:  # a value never bound on this path: its adjoint is never read either
        return None
    if type(x) is ShapeOf:
        return np.zeros(x.shape, dtype=x.dtype)
    if isinstance(x, (list, tuple)):
        return Sparse().sized(len(x))
    if isinstance(x, Sparse):  # (the tangent of a list's adjoint, popped as the list is)
        return Sparse().sized(x.length)
    return Sparse() if _is_container(x) or is_record(x) else np.zeros_like(x)


def zero_tangent(x):
    """The tangent of an item of a list or tuple that carries none: zeros for an array, 0.0
    for a number, the same structure for a list or tuple (a stack of saved values then pops
    zeros) and a list of zeros for a range, an empty Sparse for a container's adjoint, a
    Sparse holding its items' for a dict (so that an item read from it has the item's shape),
    a class or module itself (whose attributes runtime.field reads as zeros), and None for
    what has no tangent at all (a ShapeOf, None, a string)."""
    if isinstance(x, Sparse):  # (a zero adjoint a callee returns for a constant container,
        # or a list's adjoint in a derivative of a gradient: as long as it, as zeros_like's)
        return Sparse().sized(x.length)
    if isinstance(x, tuple) and hasattr(x, "_fields"):  # (its fields one by one)
        return type(x)(*(zero_tangent(v) for v in x))
    if isinstance(x, (list, tuple)):
        return type(x)(zero_tangent(v) for v in x)
    if isinstance(x, range):  # (read item by item where a tuple holds it: itertools.product's)
        return [0.0] * len(x)
    if type(x) in (float, int, bool, complex):  # a number in a list numpy makes an array of
        return 0j if type(x) is complex else 0.0
    if isinstance(x, np.ndarray) or isinstance(x, np.generic) and x.dtype.kind in "fc":
        return np.zeros_like(x)
    if is_record(x):
        return rebuilt(x, {name: zero_tangent(getattr(x, name)) for name in record_fields(x)})
    if isinstance(x, dict):
        return Sparse({k: zero_tangent(v) for k, v in x.items()})
    if isinstance(x, (type, types.ModuleType)):  # (runtime.field of it reads zeros)
        return x
    return None


def check_unpack(value, count):
    """Raise as Python would for `a, b = value` when value does not have `count` items."""
    if len(value) != count:
        raise ValueError(f"cannot unpack {len(value)} values into {count} names")


def check_keys(value, names):
    """Raise unless the dict `value` spread into a call (`f(x, **d)`) holds exactly the
    keys `names`, the parameters the call leaves, which srcdiff passes one by one."""
    if set(value) != set(names):
        raise ArgumentError(
            f"srcdiff passes **{{...}} as the parameters {', '.join(names)}, and the dict "
            f"has the keys {', '.join(map(str, value))}",
            hint="give the dict exactly those keys, or pass the arguments by name",
        )


def handler_of(attempt, *kinds):
    """Which of `kinds` (exception classes, or tuples of them, as except clauses take them)
    is the first that what attempt() raises is an instance of, by position; None if it
    raises nothing. Anything else it raises goes on (srcdiff's try/except: try_except.py)."""
    try:
        attempt()
    except BaseException as exc:
        found = next((k for k, kind in enumerate(kinds) if isinstance(exc, kind)), None)
        if found is None:
            raise
        return found
    return None


def as_grad(g, x):
    """Give a gradient the structure, shape and float dtype of the argument it belongs to.
    Containers get the same structure, with zeros for leaves that got no gradient and None
    for leaves that are not floats."""
    if (
        type(x) is np.ndarray
        and type(g) is np.ndarray
        and g.shape == x.shape
        and g.dtype == x.dtype
        and g.flags.writeable
    ):
        return g
    if _is_container(x):
        if (
            isinstance(x, (list, tuple))
            and not isinstance(g, dict)
            and g is not None
            and not (np.ndim(g) == 0 and g == 0)
        ):  # the adjoint of np.asarray(x)
            g = dict(enumerate(unbroadcast(g, x)))
        g = g if isinstance(g, dict) else {}
        items = x.items() if isinstance(x, dict) else enumerate(x)
        dense = {k: as_grad(g.get(k, 0.0), v) for k, v in items}
        if isinstance(x, dict):
            return type(x)(dense) if type(x) is not dict else dense
        if hasattr(x, "_fields"):  # a namedtuple takes its fields one by one
            return type(x)(*(dense[i] for i in range(len(x))))
        return type(x)(dense[i] for i in range(len(x)))
    if is_record(x):
        g = g if isinstance(g, dict) else {}
        return rebuilt(
            x, {name: as_grad(g.get(name, 0.0), getattr(x, name)) for name in record_fields(x)}
        )
    if (
        isinstance(x, (bool, int, np.integer))
        or (isinstance(x, np.ndarray) and x.dtype.kind not in "fc")
        or not isinstance(x, (float, complex, np.ndarray, np.generic))
    ):
        return None
    if isinstance(x, float):
        g = real_for(g, x)
        if type(g) is float or np.ndim(g) == 0:
            return float(g)
        _check_not_wider(g, x)
        return float(np.sum(g))
    g = np.asarray(g)
    if g.shape != np.shape(x):
        _check_not_wider(g, x)
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


def _check_not_wider(g, x):
    """A gradient with more elements than its value means that an adjoint rule let its
    result be broadcast into another's: summing it down would hide wrong numbers."""
    if np.size(g) > np.size(x):
        raise SrcdiffError(
            f"srcdiff computed a gradient of shape {np.shape(g)} for a value of shape "
            f"{np.shape(x)}: the adjoint rule of a function this code calls gave a result "
            "of the wrong shape, and the gradient would be wrong (a bug in srcdiff)",
            None,
            "please report it with this function; until then, differentiate the calls "
            "on the line named above one by one to find the one at fault",
        )


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


def unbroadcast(g, x):
    """Sum `g` over the axes along which `x` was broadcast, giving `x`'s shape."""
    # the common cases first, cheaply: emitted code calls this for every broadcasting op
    if isinstance(x, float) and isinstance(g, float):  # Python and numpy float64 scalars
        return g
    if isinstance(g, dict) or isinstance(g, (list, tuple)) and isinstance(x, (dict, list, tuple)):
        return g  # a container's adjoint (a Sparse, or the caller's list) is shaped as it is
    shape = x.shape if type(x) is np.ndarray else np.shape(x)
    kind = g.dtype.kind if isinstance(g, (np.ndarray, np.generic)) else None  # (np.complex128)
    if kind == "c" or type(g) is complex:
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


def _rows_of(g, x):
    """The Sparse adjoint `g` of array `x`'s rows as an array shaped as x (zeros for a row
    that got none)."""
    out = np.zeros(x.shape, x.dtype if x.dtype.kind in "fc" else float)
    for k, row in g.items():
        out[k] += _rows_of(row, x[k]) if isinstance(row, Sparse) else row
    return out


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


def unreduce(g, x, axis=None, keepdims=False, where=True):
    """Adjoint of a sum: spread `g` back over the reduced axes of `x` (the elements `where`
    leaves out get none). The result is a read-only broadcast view (no copy): adjoints are
    never written in place, and as_grad copies one before handing it out as a gradient."""
    if isinstance(g, (int, float, complex)):  # (a Python number is weak: float32 x keeps it)
        g = np.asarray(g, _weak_spread_dtype(g, np.asarray(x).dtype))
    g = np.asarray(g)
    if not keepdims or np.ndim(x) == 0:  # (scipy keeps a 0-d x's dimension as 1-d)
        g = g.reshape(_keepdims_shape(x, axis))
    if where is not True:
        return np.where(where, np.broadcast_to(g, np.shape(x)), np.zeros((), g.dtype))
    return np.broadcast_to(g, np.shape(x))


def _weak_spread_dtype(g, dtype):
    """The dtype unreduce gives Python number g spread over an array of `dtype`: numpy's
    promotion of a weak number, with the precision of a complex dtype but not its complexity
    (a real adjoint stays real)."""
    if dtype.kind == "c":
        dtype = np.finfo(dtype).dtype
    return np.result_type(dtype, g)


def reduce_like(g, like, axis=None, keepdims=False, where=True):
    """Sum `g` over `axis` (the elements `where` takes) into the shape of `like` (the adjoint
    of unreduce)."""
    return np.reshape(np.sum(g, axis=axis, keepdims=keepdims, where=where), np.shape(like))


def power_slope(x, y):
    """d/dx x ** y: y x ** (y - 1), and 0 where y is 0 (x ** 0 is flat, at x = 0 too)."""
    if _negative_python_base(x, y):  # Python's power: complex, not NaN
        return y * x ** (y - 1) if y else 0.0
    flat = np.equal(y, 0)
    if not np.any(flat):
        return y * np.power(x, y - 1)
    return np.where(flat, 0.0, y * np.power(x, np.where(flat, 1, y - 1)))


def power_curvature(x, y):
    """d/dx power_slope(x, y): y (y - 1) x ** (y - 2), and 0 where y is 0 or 1 (x ** y is
    then flat or linear, at x = 0 too)."""
    if _negative_python_base(x, y):
        return y * (y - 1) * x ** (y - 2) if y not in (0, 1) else 0.0
    flat = np.equal(y, 0) | np.equal(y, 1)
    if not np.any(flat):
        return y * (y - 1) * np.power(x, y - 2)
    return np.where(flat, 0.0, y * (y - 1) * np.power(x, np.where(flat, 2, y - 2)))


def _negative_python_base(x, y):
    return type(x) in (float, int) and type(y) in (float, int) and x < 0


def unless_int(value, y):
    """value, or 0 where the exponent y is an integer (an int in a differentiated dict, say):
    srcdiff does not differentiate ints, and log x for a negative x would be NaN, which a
    zero tangent or cotangent for y cannot cancel (0 * NaN is NaN)."""
    if np.asarray(y).dtype.kind in "biu":
        return np.zeros_like(value) if isinstance(value, np.ndarray) else 0.0
    return value


def log_or_zero(x, exponent=None):
    """log x, and 0 where x is 0: in d/dy x ** y = x ** y log x, the limit at x = 0 for
    y > 0 (and autograd's value at y <= 0). A negative Python float has the complex log of
    the principal branch, which Python's own x ** y takes (a complex power). Of the base of
    an integer `exponent`, 0: its term is dropped (unless_int), and log of a negative base
    would only warn."""
    if exponent is not None and np.asarray(exponent).dtype.kind in "biu":
        return np.zeros_like(x) if isinstance(x, np.ndarray) else 0.0
    if type(x) is float:  # a Python float stays one (np.log's float64 would upcast float32)
        return math.log(x) if x > 0 else cmath.log(x) if x else 0.0
    zero = np.equal(x, 0)
    return np.log(np.where(zero, 1, x)) if np.any(zero) else np.log(x)


def divide_or_zero(a, b):
    """a / b, and 0 where b is 0."""
    zero = np.equal(b, 0)
    if not np.any(zero):
        return a / b
    return np.where(zero, 0.0, a / np.where(zero, 1, b))


def broadcast_like(d, like):
    """A tangent `d` stretched to the shape of the output `like` it contributes to."""
    if isinstance(like, dict) or np.shape(d) == np.shape(like):
        return d  # (a container's tangent, or its adjoint's, is its own)
    return np.broadcast_to(d, np.shape(like))


def cast_grad(g, z, x):
    """The adjoint `g` of z = x.astype(...) in x's float dtype (its tangent too, with x = z);
    zeros when z holds no floats: a cast to ints or bools is flat almost everywhere."""
    dtype = getattr(x, "dtype", None)
    floating = dtype is not None and dtype.kind in "fc"
    if getattr(z, "dtype", np.dtype(float)).kind not in "fc":
        return np.zeros(np.shape(x), dtype=dtype if floating else float)
    if not floating:
        return g
    if isinstance(g, Sparse):  # (the second order's adjoint of np.array(xs)'s, a list's)
        g = _rows_of(g, x)
    if dtype.kind == "f" and np.iscomplexobj(g):
        g = np.real(g)  # (the adjoint of a real value made complex: no ComplexWarning)
    return g.astype(dtype) if hasattr(g, "astype") else dtype.type(g)  # (a float: z 0-d)


def winner_share(g, x, other):
    """The part of np.maximum(x, other)'s adjoint that goes to `x`: all of it where x wins,
    half where they tie. (x or other may be a list of arrays, which numpy reads as one.)"""
    x, other = np.asarray(x), np.asarray(other)
    out = np.where(x > other, g, 0)
    tie = np.equal(x, other)  # (an array even of two floats)
    if tie.any():  # rare for real data; keeps the common case to two cheap passes
        out = out + np.where(tie, g / 2, 0)
    return out


def same_as(new, old):
    """Check mode of shape specialisation: `new`, what a variant returned, must be what the
    generic code returns (`old`), in structure, type, shape, dtype, writeability and every
    element."""
    if type(new) is not type(old):
        raise AssertionError(
            f"specialised code returned a {type(new).__name__} where the "
            f"generic code returns a {type(old).__name__}"
        )
    if isinstance(old, (tuple, list)) and len(new) == len(old):
        items = [same_as(a, b) for a, b in zip(new, old)]
        return type(old)(*items) if hasattr(old, "_fields") else type(old)(items)
    if isinstance(old, dict) and new.keys() == old.keys():
        return type(old)((k, same_as(new[k], old[k])) for k in old)
    if is_record(old):
        return rebuilt(
            old, {k: same_as(getattr(new, k), getattr(old, k)) for k in record_fields(old)}
        )
    if not isinstance(old, (np.ndarray, np.generic, int, float, complex)):
        if new is not old and new != old:
            raise AssertionError(f"specialised code returned {new!r}, not {old!r}")
        return new
    same = np.shape(new) == np.shape(old) and getattr(new, "dtype", None) == getattr(
        old, "dtype", None
    )
    if same and type(new) is np.ndarray:
        same = new.flags.writeable == old.flags.writeable
    if not same or not np.array_equal(new, old, equal_nan=np.asarray(old).dtype.kind in "fc"):
        raise AssertionError(
            f"specialised code computed {type(new).__name__} "
            f"{np.shape(new)} {getattr(new, 'dtype', '')} where the generic "
            f"code computes {type(old).__name__} {np.shape(old)} "
            f"{getattr(old, 'dtype', '')}: {new!r} vs {old!r}"
        )
    return new
