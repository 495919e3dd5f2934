"""Shape inference over emitted code: the type, shape and dtype of every local, given those of
the arguments (an abstract interpretation; specialize.py acts on what it finds).

An abstract value says what is certain of a run-time value:
  Const(v)            exactly v (an int, a string, a tuple of those: shapes, axes, flags)
  Typed(t, s, d, w)   an object of type t (ndarray, a numpy scalar, float, int, bool) with
                      shape s and dtype d; for arrays, w tells whether it is writeable
  Items(t, items)     a tuple or list of known length; ListOf(elem): any length, each elem
  Mapping(items)      a dict with known keys
  Stack(elem)         a list used with append/pop: elem is everything ever pushed
  ShapeOf(s, d)       a runtime.ShapeOf
  UNKNOWN             nothing certain

Results of numpy and runtime functions are found by calling the function itself on stand-ins
(`_stand_in`: zero-strided arrays of the right shape and dtype), so the rules are numpy's own.
That is sound only for functions whose output type, shape and dtype do not depend on values:
the allow-lists below, fed with no integer of unknown value except as an array index (an
unknown `n` in `np.zeros(n)` or `x[:n]` would decide a shape). Anything else is UNKNOWN.
"""
import warnings
from dataclasses import dataclass

import gast
import numpy as np
from numpy.lib.stride_tricks import as_strided

from . import ir, runtime
from .ir import dotted
from .primitives import registry


@dataclass(frozen=True)
class Const:
    value: object


@dataclass(frozen=True)
class Typed:
    type: type
    shape: tuple
    dtype: np.dtype
    writeable: bool = False

    @property
    def is_array(self):
        return self.type is np.ndarray


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

_SCALARS = (float, int, bool)
_CONSTANTS = (int, bool, str, type(None), float, complex, slice, type(Ellipsis), type)


# --- describing arguments -------------------------------------------------------------------

def describe(value):
    """The abstract value of an argument. Ints, strings and None are constants (a different
    value is a different specialisation); floats and arrays are described by type and shape."""
    t = type(value)
    if t is np.ndarray:
        return Typed(t, value.shape, value.dtype, value.flags.writeable)
    if t is float:
        return Typed(float, (), np.dtype(float))
    if t in (int, bool, str, type(None)):
        return Const(value)
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        return Typed(t, (), value.dtype)
    if t in (tuple, list):
        if t is list and value and all(type(v) is float for v in value):
            return ListOf(Typed(float, (), np.dtype(float)))
        return Items(t, tuple(describe(v) for v in value))
    if t is dict and all(type(k) is str for k in value):
        return Mapping(tuple(sorted((k, describe(v)) for k, v in value.items())))
    return UNKNOWN


_JUST_FLOAT = {float}


_NDARRAY = np.ndarray


def key(value):
    """A cheap hashable key with the same information as describe(value)."""
    t = type(value)
    if t is float:  # (the two commonest first: each call of a derivative makes its key)
        return float
    if t is _NDARRAY:
        return value.shape, value.dtype, value.flags.writeable
    if t in (int, bool, str, type(None)):
        return t, value
    if t is list:
        if value and set(map(type, value)) == _JUST_FLOAT:
            return list, float
        return list, tuple(map(key, value))
    if t is tuple:
        return tuple, tuple(map(key, value))
    if t is dict:
        return dict, tuple((k, key(v)) for k, v in value.items())
    if isinstance(value, np.generic):
        return t
    if callable(value) and not isinstance(value, type):  # a function is a static argument
        return value
    return t  # anything else: UNKNOWN, but its class decides which methods calls follow


# --- the lattice ------------------------------------------------------------------------------

def widen(value):
    """A constant as the typed value it is an instance of (what joining forgets)."""
    if isinstance(value, Const):
        v = value.value
        if type(v) in _SCALARS:
            return Typed(type(v), (), np.asarray(v).dtype)
        return UNKNOWN
    return value


def join(a, b):
    """The least abstract value both a and b are instances of."""
    if a is BOTTOM or a == b:
        return b
    if b is BOTTOM:
        return a
    if isinstance(a, Const) and isinstance(b, Const) and type(a.value) is type(b.value) \
            and a.value == b.value:
        return a
    a, b = widen(a), widen(b)
    if isinstance(a, Typed) and isinstance(b, Typed):
        if (a.type, a.shape, a.dtype) == (b.type, b.shape, b.dtype):
            return Typed(a.type, a.shape, a.dtype, a.writeable and b.writeable)
        return UNKNOWN
    if isinstance(a, Items) and isinstance(b, Items) and a.type is b.type \
            and len(a.items) == len(b.items):
        return Items(a.type, tuple(join(x, y) for x, y in zip(a.items, b.items)))
    if isinstance(a, ListOf) and isinstance(b, ListOf):
        return ListOf(join(a.elem, b.elem))
    if isinstance(a, Stack) and isinstance(b, Stack):
        return Stack(join(a.elem, b.elem))
    if isinstance(a, Mapping) and isinstance(b, Mapping) \
            and [k for k, _ in a.items] == [k for k, _ in b.items]:
        return Mapping(tuple((k, join(x, y)) for (k, x), (_, y) in zip(a.items, b.items)))
    return UNKNOWN


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


def _stand_in(value, index_ok=False):
    if isinstance(value, Const):
        return value.value
    if isinstance(value, Typed):
        if value.is_array:  # floats 1 (no division by zero), ints 0 (a valid index)
            base = np.ones((), value.dtype) if value.dtype.kind in "fc" else \
                np.zeros((), value.dtype)
            return as_strided(base, value.shape, (0,) * len(value.shape),
                              writeable=value.writeable)
        if value.type is float:
            return _FLOAT_STAND_IN
        if value.type in (int, bool):
            if not index_ok:  # an unknown int may decide a shape: no stand-in for it
                raise _NoStandIn
            return value.type(0)
        return value.type(1)  # a numpy scalar
    if isinstance(value, Items):
        return value.type(_stand_in(v, index_ok) for v in value.items)
    if isinstance(value, Mapping):
        return {k: _stand_in(v, index_ok) for k, v in value.items}
    if isinstance(value, ShapeOf):
        return runtime.ShapeOf(as_strided(np.ones((), value.dtype), value.shape,
                                          (0,) * len(value.shape)))
    raise _NoStandIn


def _abstract(value):
    t = type(value)
    if t is np.ndarray:
        return Typed(t, value.shape, value.dtype, bool(value.flags.writeable))
    if t in _SCALARS:
        return Typed(t, (), np.asarray(value).dtype)
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        return Typed(t, (), value.dtype)
    if t in (tuple, list):
        return Items(t, tuple(_abstract(v) for v in value))
    if t is dict and all(type(k) is str for k in value):
        return Mapping(tuple(sorted((k, _abstract(v)) for k, v in value.items())))
    if t is runtime.ShapeOf:
        return ShapeOf(value.shape, value.dtype)
    if value is None:
        return Const(None)
    return UNKNOWN


def _constant(value):
    """The abstract value of an exactly known result."""
    return Const(value) if _is_constant(value) else _abstract(value)


def _is_constant(value):
    return type(value) in _CONSTANTS or type(value) is tuple and all(map(_is_constant, value))


def evaluate(fn, args, kwargs, index_args=(), fresh=False):
    """The abstract result of fn(*args, **kwargs) (all arguments abstract), computed on
    stand-ins; `index_args` are the positions where an unknown int is an array index.

    A stand-in is not laid out like the real array (its strides are 0), so where numpy copies
    one it may return a view of the other: unless fn always returns a new array (`fresh`), its
    result is taken to be read-only whenever an argument is."""
    values = list(args) + list(kwargs.values())
    if any(v is UNKNOWN or v is BOTTOM for v in values):
        return UNKNOWN
    exact = all(isinstance(v, Const) for v in values)
    try:
        concrete = [_stand_in(v, i in index_args) for i, v in enumerate(args)]
        named = {k: _stand_in(v) for k, v in kwargs.items()}
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = fn(*concrete, **named)
    except Exception:  # noqa: BLE001  (the real call may fail too; then we know nothing)
        return UNKNOWN
    if exact:
        return _constant(result)
    out = _abstract(result)
    if not fresh and isinstance(out, Typed) and out.writeable and any(map(_read_only, values)):
        out = Typed(out.type, out.shape, out.dtype, False)
    return out


def _read_only(value):
    if isinstance(value, Typed):
        return value.is_array and not value.writeable
    if isinstance(value, Items):
        return any(map(_read_only, value.items))
    if isinstance(value, Mapping):
        return any(_read_only(v) for _, v in value.items)
    return False


# --- which functions may be evaluated on stand-ins: their records say -------------------------

_MUTATORS = {"append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse",
             "update", "setdefault", "popitem"}


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
    if isinstance(base, Typed) and base.type not in _SCALARS and record is not None and \
            record.shape == registry.EVALUATE:
        return evaluate(lambda b, *a, **k: getattr(b, name)(*a, **k), [base] + list(args),
                        kwargs)
    return UNKNOWN


def attribute(base, name):
    """The abstract value of `base.name` (x.shape, x.T) for an array `base`."""
    record = registry.attribute(name)
    if record is None or record.shape is None or isinstance(base, Typed) and \
            base.type in _SCALARS:
        return UNKNOWN
    if record.shape != registry.EVALUATE:
        return record.shape([base], {})
    if isinstance(base, Typed):
        return evaluate(lambda b: getattr(b, name), [base], {})  # x.T
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
    if isinstance(base, ListOf) and isinstance(widen(index), Typed) and widen(index).type is int:
        return base.elem
    if isinstance(base, Const) and isinstance(index, Const):
        return evaluate(lambda b, i: b[i], [base, index], {})
    if isinstance(base, Typed) and base.type not in _SCALARS:
        if _boolean_index(index):
            return UNKNOWN  # a mask selects a value-dependent number of elements
        return evaluate(lambda b, i: b[i], [base, index], {}, index_args=(1,))
    return UNKNOWN


def _boolean_index(index):
    parts = index.items if isinstance(index, Items) else (index,)
    return any(isinstance(p, Typed) and p.dtype.kind == "b" and p.type is not int
               for p in parts)


def binary(op, left, right):
    """The abstract result of `left op right` for a Python operator function `op`."""
    if isinstance(left, (Items, Const)) and isinstance(right, (Items, Const)) and \
            not (isinstance(left, Const) and isinstance(right, Const)):
        if op.__name__ == "add":  # tuple/list concatenation
            a, b = _as_items(left), _as_items(right)
            if a is not None and b is not None and a.type is b.type:
                return Items(a.type, a.items + b.items)
        return UNKNOWN
    if isinstance(left, (Items, Mapping, ListOf, Stack, ShapeOf)) or \
            isinstance(right, (Items, Mapping, ListOf, Stack, ShapeOf)):
        return UNKNOWN
    if op.__name__ == "pow" and _python_number(left) and not (
            isinstance(right, Const) and type(right.value) is int and right.value >= 0):
        return UNKNOWN  # (-2.0) ** 0.5 is complex and 2 ** -1 a float: the type is the value's
    return evaluate(op, [left, right], {}, index_args=(0, 1), fresh=True)


def _python_number(value):
    value = widen(value)
    return isinstance(value, Typed) and value.type in _SCALARS


def _as_items(value):
    if isinstance(value, Items):
        return value
    if isinstance(value, Const) and type(value.value) in (tuple, list):
        return Items(type(value.value), tuple(_constant(v) for v in value.value))
    return None


# --- the interpreter --------------------------------------------------------------------------

_BINOPS = {gast.Add: "add", gast.Sub: "sub", gast.Mult: "mul", gast.Div: "truediv",
           gast.FloorDiv: "floordiv", gast.Mod: "mod", gast.Pow: "pow", gast.MatMult: "matmul",
           gast.BitAnd: "and_", gast.BitOr: "or_", gast.BitXor: "xor"}
_COMPARE = {gast.Eq: "eq", gast.NotEq: "ne", gast.Lt: "lt", gast.LtE: "le", gast.Gt: "gt",
            gast.GtE: "ge"}
_UNARY = {gast.USub: "neg", gast.UAdd: "pos", gast.Not: "not_", gast.Invert: "invert"}
_MAX_LOOP_PASSES = 8


class Unsupported(Exception):
    """A statement the interpreter does not model: the function is not specialised."""


def stack_names(func):
    """Names of lists the function uses as stacks: `s = []`, `s.append(v)`, `s.pop()`, and
    handed between a forward and a backward function in the list of saved values (returned
    in a list, unpacked from one, deleted). A list also read any other way (np.stack of it,
    an index) is no stack here, just a list that changes (unknown after an append)."""
    out, allowed, names = set(), set(), []
    for node in ir.walk(func):
        if isinstance(node, gast.Name):
            names.append(node)
        elif isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and \
                node.attr in ("append", "pop"):
            out.add(node.value.id)
            allowed.add(id(node.value))
        elif isinstance(node, gast.Assign) and isinstance(node.value, gast.List) and \
                not node.value.elts:
            allowed.update(id(t) for t in node.targets)
        elif isinstance(node, gast.Assign) and isinstance(node.targets[0], (gast.Tuple,
                                                                          gast.List)):
            allowed.update(id(t) for t in node.targets[0].elts)
        elif isinstance(node, gast.Return) and node.value is not None:
            saved = node.value.elts[-1] if isinstance(node.value, gast.Tuple) else None
            if isinstance(saved, gast.List):
                allowed.update(id(e) for e in saved.elts)
        elif isinstance(node, gast.Delete):
            allowed.update(id(t) for t in node.targets)
    read = {node.id for node in names if node.id in out and id(node) not in allowed}
    return out - read


class Interpreter:
    """Runs a gast function abstractly. `seen[id(node)]` is the join of the abstract values of
    each call's and binary operation's operands (and each if's test) over every time it was
    evaluated: the facts a rewrite of that node may rely on. `opaque` names are globals whose value may change
    between calls (never looked into) but those `fixed` for good to a shape-safe function;
    `callees(name, args)` gives the abstract result of a call to one of the emitted module's
    own functions, or UNKNOWN."""

    def __init__(self, func, opaque=(), callees=None, fixed=None):
        import operator
        self.operator = operator
        self.func = func
        self.opaque = set(opaque)
        self.fixed = fixed or {}  # opaque names bound for good to a shape-safe function
        self.callees = callees  # name -> what calling it returns, given abstract arguments
        self.stacks = stack_names(func)
        self.seen = {}
        self.bound = {}  # name -> join of every value bound to it
        self.returned = BOTTOM
        self.exits = []  # per loop being run, the environments its breaks leave it with
        self.modules = {"np", "runtime"}

    def run(self, arguments):
        params = [a.id for a in self.func.args.args]
        if self.func.args.vararg or self.func.args.kwarg or self.func.args.kwonlyargs \
                or len(arguments) != len(params):
            raise Unsupported("parameters")
        env = dict(zip(params, arguments))
        self.block(self.func.body, env)
        return self

    # statements

    def block(self, body, env):
        for stmt in body:
            if env is None:  # after a return
                return None
            env = self.statement(stmt, env)
        return env

    def statement(self, stmt, env):
        if isinstance(stmt, gast.Assign):
            value = self.expr(stmt.value, env)
            if isinstance(stmt.value, gast.List) and not stmt.value.elts:
                value = Stack(BOTTOM) if self._stack_target(stmt) else value
            for target in stmt.targets:
                self.bind(target, value, env)
            return env
        if isinstance(stmt, gast.AugAssign):
            current = self.expr(stmt.target, env)
            result = self.binop(stmt.op, current, self.expr(stmt.value, env), stmt)
            if isinstance(current, Typed) and current.is_array:
                result = current  # in place: the array keeps its type, shape and dtype
            self.bind(stmt.target, result, env)
            return env
        if isinstance(stmt, gast.Expr):
            self.expr(stmt.value, env)
            return env
        if isinstance(stmt, gast.If):
            test = self.expr(stmt.test, env)
            self.record(stmt, [test])
            if isinstance(test, Const):
                return self.block(stmt.body if test.value else stmt.orelse, env)
            a = self.block(stmt.body, dict(env))
            b = self.block(stmt.orelse, dict(env))
            if a is None or b is None:
                return a if b is None else b
            return join_envs(a, b)
        if isinstance(stmt, gast.For):
            iterable = self.expr(stmt.iter, env)
            if stmt.orelse:
                raise Unsupported("for-else")
            return self.loop(stmt.body, env, lambda e: self.bind(stmt.target,
                                                                 element(iterable), e))
        if isinstance(stmt, gast.While):
            if stmt.orelse:
                raise Unsupported("while-else")
            return self.loop(stmt.body, env, lambda e: self.expr(stmt.test, e))
        if isinstance(stmt, gast.Return):
            value = self.expr(stmt.value, env) if stmt.value is not None else Const(None)
            self.returned = join(self.returned, value)
            return None
        if isinstance(stmt, gast.Delete):
            for target in stmt.targets:
                if isinstance(target, gast.Name):
                    env.pop(target.id, None)
            return env
        if isinstance(stmt, gast.Pass):
            return env
        if isinstance(stmt, gast.Assert):
            self.expr(stmt.test, env)
            return env
        if isinstance(stmt, gast.Raise):
            return None  # nothing after it runs
        if isinstance(stmt, gast.Break):
            if not self.exits:
                raise Unsupported("break outside a loop")
            self.exits[-1].append(env)
            return None
        raise Unsupported(type(stmt).__name__)

    def loop(self, body, env, enter):
        head = dict(env)
        self.exits.append([])  # the environments where a break leaves the loop
        for passes in range(_MAX_LOOP_PASSES):
            inside = dict(head)
            enter(inside)
            out = self.block(body, inside)
            merged = join_envs(head, out) if out is not None else head
            if merged == head:
                for exit_env in self.exits.pop():
                    head = join_envs(head, exit_env)
                return head
            if passes >= _MAX_LOOP_PASSES // 2:  # widen whatever still changes
                merged = {k: v if head.get(k) == v else UNKNOWN for k, v in merged.items()}
            head = merged
        raise Unsupported("loop did not settle")

    def _stack_target(self, stmt):
        names = [t.id for t in stmt.targets if isinstance(t, gast.Name)]
        return len(names) == len(stmt.targets) == 1 and names[0] in self.stacks

    def bind(self, target, value, env):
        if isinstance(target, gast.Name):
            env[target.id] = value
            self.bound[target.id] = join(self.bound.get(target.id, BOTTOM), value)
        elif isinstance(target, (gast.Tuple, gast.List)):
            if any(isinstance(e, gast.Starred) for e in target.elts):
                items = [UNKNOWN] * len(target.elts)
            elif isinstance(value, Items) and len(value.items) == len(target.elts):
                items = value.items
            elif isinstance(value, Const) and isinstance(value.value, tuple) and \
                    len(value.value) == len(target.elts):
                items = [_constant(v) for v in value.value]
            else:
                items = [element(value)] * len(target.elts)
            for t, v in zip(target.elts, items):
                self.bind(t, v, env)
        elif isinstance(target, gast.Subscript):  # y[i] = v writes into an array in place
            base = self.expr(target.value, env)
            self.index(target.slice, env)
            if not (isinstance(base, Typed) and base.is_array):
                raise Unsupported("item assignment into a container")
        else:
            raise Unsupported("assignment target")

    # expressions

    def record(self, node, values):
        previous = self.seen.get(id(node))
        if previous is not None:
            values = [join(a, b) for a, b in zip(previous[1], values)]
        self.seen[id(node)] = (node, values)

    def expr(self, node, env):
        if isinstance(node, gast.Constant):
            return Const(node.value)
        if isinstance(node, gast.Name):
            if node.id in env:
                return env[node.id]
            return UNKNOWN
        if isinstance(node, (gast.Tuple, gast.List)):
            items = tuple(self.expr(e, env) for e in node.elts)
            if any(isinstance(e, gast.Starred) for e in node.elts):
                return UNKNOWN
            if isinstance(node, gast.Tuple) and all(isinstance(i, Const) for i in items):
                return _constant(tuple(i.value for i in items))
            return Items(tuple if isinstance(node, gast.Tuple) else list, items)
        if isinstance(node, gast.Dict):
            keys = [self.expr(k, env) if k is not None else UNKNOWN for k in node.keys]
            values = [self.expr(v, env) for v in node.values]
            if all(isinstance(k, Const) and type(k.value) is str for k in keys):
                return Mapping(tuple(sorted((k.value, v) for k, v in zip(keys, values))))
            return UNKNOWN
        if isinstance(node, gast.BinOp):
            left, right = self.expr(node.left, env), self.expr(node.right, env)
            return self.binop(node.op, left, right, node)
        if isinstance(node, gast.UnaryOp):
            operand = self.expr(node.operand, env)
            if isinstance(node.op, gast.Not):
                if isinstance(operand, Const):
                    return Const(not operand.value)
                if isinstance(operand, Typed) and operand.type in _SCALARS:
                    return Typed(bool, (), np.dtype(bool))
                return UNKNOWN
            return evaluate(getattr(self.operator, _UNARY[type(node.op)]), [operand], {},
                            index_args=(0,), fresh=True)
        if isinstance(node, gast.BoolOp):
            values = [self.expr(v, env) for v in node.values]
            if all(isinstance(v, Const) for v in values):
                result = values[0].value
                for v in values[1:]:
                    result = (result and v.value) if isinstance(node.op, gast.And) \
                        else (result or v.value)
                return _constant(result)
            if all(isinstance(widen(v), Typed) and widen(v).type is bool for v in values):
                return Typed(bool, (), np.dtype(bool))
            return UNKNOWN
        if isinstance(node, gast.Compare):
            left = self.expr(node.left, env)
            result = None
            for op, comparator in zip(node.ops, node.comparators):
                right = self.expr(comparator, env)
                if type(op) not in _COMPARE:
                    part = _constant(_python_compare(op, left, right)) if isinstance(
                        left, Const) and isinstance(right, Const) else UNKNOWN
                else:
                    part = evaluate(getattr(self.operator, _COMPARE[type(op)]), [left, right],
                                    {}, index_args=(0, 1), fresh=True)
                result = part if result is None else self.binop(gast.BitAnd(), result, part,
                                                               None)
                left = right
            return result
        if isinstance(node, gast.IfExp):
            test = self.expr(node.test, env)
            self.record(node, [test])
            if isinstance(test, Const):
                return self.expr(node.body if test.value else node.orelse, env)
            return join(self.expr(node.body, env), self.expr(node.orelse, env))
        if isinstance(node, gast.Attribute):
            path = dotted(node)
            if path is not None and path[0] in self.modules and path[0] not in env:
                return _module_constant(path)
            return attribute(self.expr(node.value, env), node.attr)
        if isinstance(node, gast.Subscript):
            if dotted(node.value) == ("np", "s_"):
                return self.index(node.slice, env)
            return subscript(self.expr(node.value, env), self.index(node.slice, env))
        if isinstance(node, gast.Call):
            return self.call(node, env)
        return UNKNOWN

    def binop(self, op, left, right, node):
        if node is not None:
            self.record(node, [left, right])
        if type(op) not in _BINOPS:
            return UNKNOWN
        return binary(getattr(self.operator, _BINOPS[type(op)]), left, right)

    def index(self, node, env):
        if isinstance(node, gast.Slice):
            parts = [self.expr(p, env) if p is not None else Const(None)
                     for p in (node.lower, node.upper, node.step)]
            if all(isinstance(p, Const) for p in parts):
                return Const(slice(*(p.value for p in parts)))
            return UNKNOWN  # a slice with an unknown bound has a value-dependent length
        if isinstance(node, gast.Tuple):
            items = tuple(self.index(e, env) for e in node.elts)
            if all(isinstance(i, Const) for i in items):
                return Const(tuple(i.value for i in items))
            return Items(tuple, items)
        return self.expr(node, env)

    def call(self, node, env):
        args = [self.expr(a, env) for a in node.args if not isinstance(a, gast.Starred)]
        kwargs = {k.arg: self.expr(k.value, env) for k in node.keywords if k.arg is not None}
        if len(args) != len(node.args) or len(kwargs) != len(node.keywords):
            return UNKNOWN  # *args or **kwargs at the call
        path = dotted(node.func)
        self.record(node, args + [kwargs[k] for k in sorted(kwargs)])
        if path is not None and len(path) == 1 and path[0] not in env and \
                self.callees is not None and not kwargs:
            result = self.callees(path[0], args)
            if result is not None:
                return result
        if path is not None and len(path) == 1 and path[0] not in env and \
                path[0] in self.fixed:
            return evaluate_function(self.fixed[path[0]], args, kwargs)
        if path is not None and path[0] not in env and path[0] not in self.opaque:
            if path[0] in self.modules or len(path) == 1:
                return evaluate_call(path, args, kwargs)
        if isinstance(node.func, gast.Attribute):
            base_node = node.func.value
            if isinstance(base_node, gast.Name) and base_node.id in self.stacks:
                return self.stack_method(base_node.id, node.func.attr, args, env)
            base = self.expr(base_node, env)
            if isinstance(base, (Items, ListOf, Mapping)) and node.func.attr in _MUTATORS:
                if not isinstance(base_node, gast.Name):
                    raise Unsupported("a container changed in place")
                env[base_node.id] = UNKNOWN
                return UNKNOWN
            return evaluate_method(base, node.func.attr, args, kwargs)
        return UNKNOWN

    def stack_method(self, name, method, args, env):
        stack = env.get(name, UNKNOWN)
        if not isinstance(stack, Stack):
            env[name] = UNKNOWN
            return UNKNOWN
        if method == "append" and len(args) == 1:
            env[name] = Stack(join(stack.elem, args[0]))
            return Const(None)
        if method == "pop" and not args:
            return UNKNOWN if stack.elem is BOTTOM else stack.elem
        env[name] = UNKNOWN
        return UNKNOWN


def _module_constant(path):
    """np.float32, np.pi, np.newaxis: a constant of numpy's (no runtime attribute is one)."""
    value = registry.resolve(path) if path[0] == "np" else None
    if isinstance(value, type) or type(value) in (float, type(None)):
        return Const(value)
    return UNKNOWN


def _python_compare(op, left, right):
    if isinstance(op, gast.Is):
        return left.value is right.value
    if isinstance(op, gast.IsNot):
        return left.value is not right.value
    if isinstance(op, gast.In):
        return left.value in right.value
    if isinstance(op, gast.NotIn):
        return left.value not in right.value
    raise Unsupported("comparison")
