"""The abstract values of shape inference (inference.py), and how numpy's own functions give
the abstract value of a call: the type, shape and dtype of every local, given those of the
arguments (specialize.py acts on what it finds).

An abstract value says what is certain of a run-time value:
  Const(v)            exactly v (an int, a string, a tuple of those: shapes, axes, flags)
  Typed(t, s, d, w)   an object of type t (ndarray, a numpy scalar, float, int, bool) with
                      shape s and dtype d; for arrays, w tells whether it is writeable
  EitherScalar(d)     a Python number or numpy's scalar of dtype d, by path (float or float64)
  Items(t, items)     a tuple or list of known length; ListOf(elem): any length, each elem
  Mapping(items)      a dict with known keys
  SparseOf(items, n)  a runtime.Sparse adjoint of a tuple or list, with known positions
  Stack(elem)         a list used with append/pop: elem is everything ever pushed
  ShapeOf(s, d)       a runtime.ShapeOf
  UNKNOWN             nothing certain

Results of numpy and runtime functions are found by calling the function itself on stand-ins
(`_stand_in`: zero-strided arrays of the right shape and dtype), so the rules are numpy's own.
That is sound only for functions whose output type, shape and dtype do not depend on values:
the allow-lists below, fed with no integer of unknown value except as an array index (an
unknown `n` in `np.zeros(n)` or `x[:n]` would decide a shape). Anything else is UNKNOWN.
"""

import functools
import operator
import warnings
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import as_strided

from . import runtime
from .primitives import registry


@dataclass(frozen=True)
class Const:
    value: object

    def __hash__(self):
        # (a slice hashes only from Python 3.12 on: by its bounds before, so that a copy made
        # for a slice constant among its arguments is found again)
        value = self.value
        if type(value) is slice:
            return hash((slice, value.start, value.stop, value.step))
        return hash((value,))


@dataclass(frozen=True)
class Typed:
    type: type
    shape: tuple
    dtype: np.dtype
    writeable: bool = False

    @property
    def is_array(self):
        return self.type is np.ndarray

    def __hash__(self):  # (a key of evaluate's memo, asked for again and again: found once)
        return self._hash

    @functools.cached_property
    def _hash(self):
        return hash((self.type, self.shape, self.dtype, self.writeable))


def typed(kind, shape, dtype, writeable=False):
    """Typed(kind, shape, dtype, writeable), one object for all equal ones (an argument's,
    the results of evaluate): memos keyed by them find theirs by identity, with no compare."""
    value = Typed(kind, shape, dtype, writeable)
    found = _TYPED.get(value)
    if found is None:
        if len(_TYPED) >= _MAX_TYPED:
            _TYPED.clear()
        found = _TYPED[value] = value
    return found


_TYPED = {}
_MAX_TYPED = 10_000


@dataclass(frozen=True)
class EitherScalar:
    """A number of dtype `dtype`, the Python number on some paths and numpy's scalar on
    others (`total = 0.0`, then `total = total + np.sum(x)` in a loop). numpy promotes the
    two differently (a float32 array times a Python float is float32, times a float64 scalar
    float64): a result is found for each of the `alternatives`, known as far as they agree."""

    dtype: np.dtype
    shape, is_array = (), False

    @property
    def alternatives(self):
        python = _PYTHON_NUMBER[self.dtype]
        return Typed(python, (), self.dtype), Typed(self.dtype.type, (), self.dtype)


@dataclass(frozen=True)
class Items:
    type: type
    items: tuple


@dataclass(frozen=True)
class ListOf:
    elem: object


@dataclass(frozen=True)
class Mapping:
    items: tuple  # (key, value) pairs, sorted by key


@dataclass(frozen=True)
class SparseOf:
    items: tuple  # (position, value) pairs, sorted: the items that got an adjoint
    length: object  # the length of the tuple or list it is the adjoint of (None: unknown)


@dataclass(frozen=True)
class Stack:
    elem: object


@dataclass(frozen=True)
class ShapeOf:
    shape: tuple
    dtype: np.dtype


class _Marker:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


UNKNOWN = _Marker("UNKNOWN")
BOTTOM = _Marker("BOTTOM")  # no value yet (a stack nothing was pushed on)

SCALARS = (float, int, bool)
_PYTHON_NUMBER = {np.asarray(t()).dtype: t for t in SCALARS}  # (a complex is no Typed)
_CONSTANTS = (int, bool, str, type(None), float, complex, slice, type(Ellipsis), type)


# --- the lattice ------------------------------------------------------------------------------


def widen(value):
    """A constant as the typed value it is an instance of (what joining forgets)."""
    if isinstance(value, Const):
        v = value.value
        if type(v) in SCALARS:
            return Typed(type(v), (), np.asarray(v).dtype)
        return UNKNOWN
    return value


def join(a, b):
    """The least abstract value both a and b are instances of."""
    if a is BOTTOM or a == b:
        return b
    if b is BOTTOM:
        return a
    if (
        isinstance(a, Const)
        and isinstance(b, Const)
        and type(a.value) is type(b.value)
        and a.value == b.value
    ):
        return a
    a, b = widen(a), widen(b)
    if isinstance(a, Typed) and isinstance(b, Typed):
        if (a.type, a.shape, a.dtype) == (b.type, b.shape, b.dtype):
            return Typed(a.type, a.shape, a.dtype, a.writeable and b.writeable)
    dtype, other = _number_dtype(a), _number_dtype(b)  # (np.dtype(float) == None holds)
    if dtype is not None and other is not None and dtype == other and dtype in _PYTHON_NUMBER:
        return EitherScalar(dtype)  # (the Python number and numpy's scalar, or either)
    if (
        isinstance(a, Items)
        and isinstance(b, Items)
        and a.type is b.type
        and len(a.items) == len(b.items)
    ):
        return Items(a.type, tuple(join(x, y) for x, y in zip(a.items, b.items)))
    if isinstance(a, ListOf) and isinstance(b, ListOf):
        return ListOf(join(a.elem, b.elem))
    if isinstance(a, Stack) and isinstance(b, Stack):
        return Stack(join(a.elem, b.elem))
    if (
        isinstance(a, Mapping)
        and isinstance(b, Mapping)
        and [k for k, _ in a.items] == [k for k, _ in b.items]
    ):
        return Mapping(tuple((k, join(x, y)) for (k, x), (_, y) in zip(a.items, b.items)))
    return UNKNOWN


def _number_dtype(value):
    """The dtype of a Python number or numpy scalar that `value` certainly is, else None."""
    if isinstance(value, EitherScalar):
        return value.dtype
    if isinstance(value, Typed) and not value.is_array:
        if value.type in (value.dtype.type, _PYTHON_NUMBER.get(value.dtype)):
            return value.dtype
    return None


def join_envs(a, b):
    """Join two environments; a name bound on one path only keeps that path's value (reading
    it on the other would raise NameError, so nothing there depends on it)."""
    out = dict(a)
    for name, value in b.items():
        out[name] = join(out[name], value) if name in out else value
    return out


def element(value):
    """The abstract value of one item of an iterable value."""
    if isinstance(value, Items):
        out = BOTTOM
        for item in value.items:
            out = join(out, item)
        return UNKNOWN if out is BOTTOM else out
    if isinstance(value, ListOf):
        return value.elem
    if isinstance(value, Typed) and value.is_array and value.shape:
        return _abstract(_stand_in(value)[0])
    if isinstance(value, Const) and isinstance(value.value, (tuple, list)):
        return element(Items(tuple, tuple(Const(v) for v in value.value)))
    return UNKNOWN


# --- stand-ins: concrete values with the same type, shape and dtype ---------------------------


class _NoStandIn(Exception):
    pass


_FLOAT_STAND_IN = 0.7390851332151607  # not 0 or 1, so no exact zero divisor by accident


def _stand_in(value, index_ok=False, square=False):
    if isinstance(value, Const):
        return value.value
    if isinstance(value, Typed):
        if square and _square(value):  # identity matrices, for a factorisation or a solve
            n = value.shape[-1]
            eye = np.eye(n, dtype=value.dtype)
            strides = (0,) * (len(value.shape) - 2) + eye.strides
            return as_strided(eye, value.shape, strides, writeable=value.writeable)
        if value.is_array:  # floats 1 (no division by zero), ints 0 (a valid index)
            base = (
                np.ones((), value.dtype) if value.dtype.kind in "fc" else np.zeros((), value.dtype)
            )
            return as_strided(base, value.shape, (0,) * len(value.shape), writeable=value.writeable)
        if value.type is float:
            return _FLOAT_STAND_IN
        if value.type in (int, bool):
            if not index_ok:  # an unknown int may decide a shape: no stand-in for it
                raise _NoStandIn
            return value.type(0)
        return value.type(1)  # a numpy scalar
    if isinstance(value, Items):
        return value.type(_stand_in(v, index_ok, square) for v in value.items)
    if isinstance(value, Mapping):
        return {k: _stand_in(v, index_ok, square) for k, v in value.items}
    if isinstance(value, SparseOf):
        items = {k: _stand_in(v, index_ok, square) for k, v in value.items}
        return runtime.Sparse(items).sized(value.length)
    if isinstance(value, ShapeOf):
        return runtime.ShapeOf(
            as_strided(np.ones((), value.dtype), value.shape, (0,) * len(value.shape))
        )
    raise _NoStandIn


def _abstract(value):
    t = type(value)
    if t is np.ndarray:
        return typed(t, value.shape, value.dtype, bool(value.flags.writeable))
    if t in SCALARS:
        return typed(t, (), np.asarray(value).dtype)
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        return typed(t, (), value.dtype)
    if t in (tuple, list):
        return Items(t, tuple(_abstract(v) for v in value))
    if isinstance(value, tuple) and hasattr(t, "_fields"):  # numpy's (sign, logabsdet)
        return Items(tuple, tuple(_abstract(v) for v in value))
    if t is dict and all(type(k) is str for k in value):
        return Mapping(tuple(sorted((k, _abstract(v)) for k, v in value.items())))
    if t is runtime.ShapeOf:
        return ShapeOf(value.shape, value.dtype)
    if t is runtime.Sparse and all(type(k) is int for k in value):
        return SparseOf(tuple(sorted((k, _abstract(v)) for k, v in value.items())), value.length)
    if value is None:
        return Const(None)
    return UNKNOWN


def abstract_of(value):
    """The abstract value of an exactly known result."""
    return Const(value) if _is_constant(value) else _abstract(value)


def _is_constant(value):
    return type(value) in _CONSTANTS or type(value) is tuple and all(map(_is_constant, value))


def evaluate(fn, args, kwargs, index_args=(), fresh=False):
    """The abstract result of fn(*args, **kwargs) (all arguments abstract), computed on
    stand-ins; `index_args` are the positions where an unknown int is an array index.

    A stand-in is not laid out like the real array (its strides are 0), so where numpy copies
    one it may return a view of the other: unless fn always returns a new array (`fresh`), its
    result is taken to be read-only whenever an argument is.

    Results are remembered: a function of thousands of statements asks the same few questions
    again and again (`h * w` with the same shapes), and a call on stand-ins costs far more than
    a look-up. (fn is a function for good, never one made for the call.)"""
    try:
        memo_key = (
            fn,
            tuple(map(_tagged, args)),
            tuple([(k, _tagged(v)) for k, v in kwargs.items()]) if kwargs else (),
            index_args,
            fresh,
        )
        found = _EVALUATED.get(memo_key)
    except TypeError:  # an unhashable constant (a slice)
        return _evaluate(fn, args, kwargs, index_args, fresh)
    if found is None:
        if len(_EVALUATED) >= _MAX_EVALUATED:
            _EVALUATED.clear()
        found = _EVALUATED[memo_key] = _evaluate(fn, args, kwargs, index_args, fresh)
    return found


_EVALUATED = {}
_MAX_EVALUATED = 50_000


def _tagged(value):
    """An abstract value as a key that tells constants of different types apart (Const(1)
    equals Const(1.0) and Const(True), but numpy's result may differ between them)."""
    if value.__class__ is Typed:
        return value
    if isinstance(value, Const):
        return _tagged_constant(value.value)
    if isinstance(value, Items):
        return Items, value.type, tuple(map(_tagged, value.items))
    if isinstance(value, Mapping):
        return Mapping, tuple((k, _tagged(v)) for k, v in value.items)
    if isinstance(value, SparseOf):
        return SparseOf, tuple((k, _tagged(v)) for k, v in value.items), value.length
    return value


def _tagged_constant(value):
    if type(value) is tuple:
        return tuple, tuple(map(_tagged_constant, value))
    if type(value) is slice:  # (hashable from Python 3.12, and slice(1) == slice(1.0))
        return slice, _tagged_constant((value.start, value.stop, value.step))
    return type(value), value


def _evaluate(fn, args, kwargs, index_args, fresh):
    values = list(args) + list(kwargs.values())
    if any(v is UNKNOWN or v is BOTTOM for v in values):
        return UNKNOWN
    if any(isinstance(v, EitherScalar) for v in values):
        return _each_way(fn, args, kwargs, index_args, fresh)
    exact = all(isinstance(v, Const) for v in values)
    try:
        result = _call_on_stand_ins(fn, args, kwargs, index_args)
    except Exception:  # noqa: BLE001  (the real call may fail too; then we know nothing)
        return UNKNOWN
    if exact:
        return abstract_of(result)
    out = _abstract(result)
    if not fresh and isinstance(out, Typed) and out.writeable and any(map(_read_only, values)):
        out = Typed(out.type, out.shape, out.dtype, False)
    return out


def _each_way(fn, args, kwargs, index_args, fresh):
    """The join of fn's results with the first EitherScalar among its arguments taken to be
    each of the two it may be (the others, by the evaluations this makes, likewise)."""
    args, kwargs = list(args), dict(kwargs)
    places = [(args, i) for i in range(len(args))] + [(kwargs, k) for k in kwargs]
    where, place = next((w, p) for w, p in places if isinstance(w[p], EitherScalar))
    out = BOTTOM
    for alternative in where[place].alternatives:
        where[place] = alternative
        out = join(out, evaluate(fn, list(args), dict(kwargs), index_args, fresh))
    return out


def _call_on_stand_ins(fn, args, kwargs, index_args):
    """fn called on stand-ins of its arguments: arrays of ones, or, where that fails (a
    Cholesky factor of a matrix of ones), with identity matrices for square ones."""
    for square in (False, True):
        concrete = [_stand_in(v, i in index_args, square) for i, v in enumerate(args)]
        named = {k: _stand_in(v, square=square) for k, v in kwargs.items()}
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return fn(*concrete, **named)
        except Exception:  # noqa: BLE001
            if square or not any(map(_square, list(args) + list(kwargs.values()))):
                raise


def _square(value):
    """Whether `value` is an array of float matrices (stacked along leading axes)."""
    return (
        isinstance(value, Typed)
        and value.is_array
        and value.dtype.kind in "fc"
        and len(value.shape) >= 2
        and value.shape[-1] == value.shape[-2]
    )


def _read_only(value):
    if isinstance(value, Typed):
        return value.is_array and not value.writeable
    if isinstance(value, Items):
        return any(map(_read_only, value.items))
    if isinstance(value, (Mapping, SparseOf)):
        return any(_read_only(v) for _, v in value.items)
    return False


# --- which functions may be evaluated on stand-ins: their records say -------------------------

MUTATORS = {
    "append",
    "extend",
    "insert",
    "remove",
    "pop",
    "clear",
    "sort",
    "reverse",
    "update",
    "setdefault",
    "popitem",
}
# (a list's or dict's, and an array's)
IN_PLACE_METHODS = MUTATORS | {"fill", "put", "resize", "itemset", "partition"}


def evaluate_call(path, args, kwargs):
    """The abstract result of calling the function at dotted `path` (e.g. ("np", "sum")),
    or UNKNOWN for a function not known to be shape-safe."""
    return evaluate_function(registry.resolve(path), args, kwargs)


def evaluate_function(fn, args, kwargs):
    """The abstract result of fn(*args, **kwargs) by fn's record's shape rule: a ufunc, or a
    function whose record says to evaluate it (EVALUATE), or its own rule."""
    if isinstance(fn, np.ufunc):  # elementwise: unknown ints are values, not shapes
        return evaluate(fn, args, kwargs, range(len(args)), fresh=True)
    record = registry.find(fn) if fn is not None else None
    if record is None or record.shape is None:
        return UNKNOWN
    if record.shape == registry.EVALUATE:
        return evaluate(fn, args, kwargs, record.index_args, record.fresh)
    return record.shape(args, kwargs)


def evaluate_method(base, name, args, kwargs):
    """The abstract result of `base.name(*args)` for an array or numpy scalar `base`."""
    record = registry.method(name)
    if (
        isinstance(base, Typed)
        and base.type not in SCALARS
        and record is not None
        and record.shape == registry.EVALUATE
    ):
        return evaluate(_method(name), [base] + list(args), kwargs)
    return UNKNOWN


@functools.lru_cache(maxsize=None)
def _method(name):
    """The function calling method `name` of its first argument (one per name: see evaluate)."""
    return lambda base, *args, **kwargs: getattr(base, name)(*args, **kwargs)


@functools.lru_cache(maxsize=None)
def _attribute(name):
    return operator.attrgetter(name)


def attribute(base, name):
    """The abstract value of `base.name` (x.shape, x.T) for an array `base`."""
    record = registry.attribute(name)
    if record is None or record.shape is None or isinstance(base, Typed) and base.type in SCALARS:
        return UNKNOWN
    if record.shape != registry.EVALUATE:
        return record.shape([base], {})
    if isinstance(base, Typed):
        return evaluate(_attribute(name), [base], {})  # x.T
    return UNKNOWN


def subscript(base, index):
    """The abstract value of base[index]."""
    if isinstance(base, Items) and isinstance(index, Const) and type(index.value) is int:
        try:
            return base.items[index.value]
        except IndexError:
            return UNKNOWN
    if isinstance(base, Mapping) and isinstance(index, Const):
        return dict(base.items).get(index.value, UNKNOWN)
    if isinstance(base, SparseOf) and isinstance(index, Const) and type(index.value) is int:
        return dict(base.items).get(index.value, Typed(float, (), np.dtype(float)))  # (0.0)
    if isinstance(base, ListOf) and isinstance(widen(index), Typed) and widen(index).type is int:
        return base.elem
    if isinstance(base, Const) and isinstance(index, Const):
        return evaluate(operator.getitem, [base, index], {})
    if isinstance(base, Typed) and base.type not in SCALARS:
        if _boolean_index(index):
            return UNKNOWN  # a mask selects a value-dependent number of elements
        return evaluate(operator.getitem, [base, index], {}, index_args=(1,))
    return UNKNOWN


def _boolean_index(index):
    parts = index.items if isinstance(index, Items) else (index,)
    return any(isinstance(p, Typed) and p.dtype.kind == "b" and p.type is not int for p in parts)


_BINARY = {}  # (op, left, right), tagged -> binary's result


def binary(op, left, right):
    """The abstract result of `left op right` for a Python operator function `op`.
    Remembered as evaluate's results are (and found sooner: `h * w` again and again)."""
    try:
        key = (  # (a Typed is its own tag: the commonest, with no call)
            op,
            left if left.__class__ is Typed else _tagged(left),
            right if right.__class__ is Typed else _tagged(right),
        )
        found = _BINARY.get(key)
    except TypeError:  # an unhashable constant (a slice)
        return _binary(op, left, right)
    if found is None:
        if len(_BINARY) >= _MAX_EVALUATED:
            _BINARY.clear()
        found = _BINARY[key] = _binary(op, left, right)
    return found


def _binary(op, left, right):
    if left.__class__ is Typed and right.__class__ is Typed and op.__name__ != "pow":
        return evaluate(op, [left, right], {}, index_args=(0, 1), fresh=True)  # (the commonest)
    if (
        isinstance(left, (Items, Const))
        and isinstance(right, (Items, Const))
        and not (isinstance(left, Const) and isinstance(right, Const))
    ):
        if op.__name__ == "add":  # tuple/list concatenation
            a, b = _as_items(left), _as_items(right)
            if a is not None and b is not None and a.type is b.type:
                return Items(a.type, a.items + b.items)
        return UNKNOWN
    if isinstance(left, (Items, Mapping, ListOf, Stack, ShapeOf, SparseOf)) or isinstance(
        right, (Items, Mapping, ListOf, Stack, ShapeOf, SparseOf)
    ):
        return UNKNOWN
    if (
        op.__name__ == "pow"
        and _python_number(left)
        and not (isinstance(right, Const) and type(right.value) is int and right.value >= 0)
    ):
        return UNKNOWN  # (-2.0) ** 0.5 is complex and 2 ** -1 a float: the type is the value's
    return evaluate(op, [left, right], {}, index_args=(0, 1), fresh=True)


def _python_number(value):
    """Whether `value` may be a Python number (its powers' type depends on values)."""
    value = widen(value)
    return isinstance(value, EitherScalar) or isinstance(value, Typed) and value.type in SCALARS


def _as_items(value):
    if isinstance(value, Items):
        return value
    if isinstance(value, Const) and type(value.value) in (tuple, list):
        return Items(type(value.value), tuple(abstract_of(v) for v in value.value))
    return None
