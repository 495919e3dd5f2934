"""Shape inference over emitted code: an abstract interpretation of a function of it, given
the abstract values (shapes.py) of its arguments, that finds those of every local."""

import operator
import types

import gast
import numpy as np

from . import ir
from .ir import dotted
from .primitives import registry
from .signatures import describe
from .shapes import (
    BOTTOM,
    MUTATORS,
    SCALARS,
    UNKNOWN,
    Const,
    EitherScalar,
    Items,
    ListOf,
    Mapping,
    SparseOf,
    Stack,
    Typed,
    abstract_of,
    attribute,
    binary,
    element,
    evaluate,
    evaluate_call,
    evaluate_function,
    evaluate_method,
    join,
    join_envs,
    subscript,
    widen,
)

_BINOPS = {
    gast.Add: operator.add,
    gast.Sub: operator.sub,
    gast.Mult: operator.mul,
    gast.Div: operator.truediv,
    gast.FloorDiv: operator.floordiv,
    gast.Mod: operator.mod,
    gast.Pow: operator.pow,
    gast.MatMult: operator.matmul,
    gast.BitAnd: operator.and_,
    gast.BitOr: operator.or_,
    gast.BitXor: operator.xor,
}
_COMPARE = {
    gast.Eq: "eq",
    gast.NotEq: "ne",
    gast.Lt: "lt",
    gast.LtE: "le",
    gast.Gt: "gt",
    gast.GtE: "ge",
}
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
        kind = node.__class__  # (one test for the commonest nodes: this walks every node)
        if kind is gast.Name:
            names.append(node)
        elif kind is gast.Attribute:
            if node.attr in ("append", "pop") and isinstance(node.value, gast.Name):
                out.add(node.value.id)
                allowed.add(id(node.value))
        elif kind is gast.Assign:
            if isinstance(node.value, gast.List) and not node.value.elts:
                allowed.update(id(t) for t in node.targets)
            elif isinstance(node.targets[0], (gast.Tuple, gast.List)):
                allowed.update(id(t) for t in node.targets[0].elts)
        elif kind is gast.Return:
            saved = node.value.elts[-1] if isinstance(node.value, gast.Tuple) else None
            if isinstance(saved, gast.List):
                allowed.update(id(e) for e in saved.elts)
        elif kind is gast.Delete:  # (`del (a, b)`, as a long del is printed, deletes a and b)
            allowed.update(
                id(e) for t in node.targets for e in (t.elts if isinstance(t, gast.Tuple) else (t,))
            )
    read = {node.id for node in names if node.id in out and id(node) not in allowed}
    return out - read


class Interpreter:
    """Runs a gast function abstractly. `seen[id(node)]` is the join of the abstract values of
    each call's and binary operation's operands (and each if's test) over every time it was
    evaluated: the facts a rewrite of that node may rely on. `opaque` names are globals whose value may change
    between calls (never looked into) but those `fixed` for good to a shape-safe function;
    `callees(name, args, kwargs)` gives the abstract result of a call to one of the emitted
    module's own functions, or UNKNOWN. `stacks`: stack_names(func), when already known.
    `every_record`: False for a run that only checks what values are bound (the records of
    operations and calls, a quarter of a run's cost, are then kept only for in-place
    updates, `x += e`: what e adds)."""

    def __init__(self, func, opaque=(), callees=None, fixed=None, stacks=None, every_record=True):
        self.func = func
        self.every_record = every_record
        self.opaque = set(opaque)
        self.fixed = fixed or {}  # opaque names bound for good to a shape-safe function
        self.callees = callees  # name -> what calling it returns, given abstract arguments
        self.known_stacks = stacks
        self.seen, self.states = {}, {}
        self.bound = {}  # name -> join of every value bound to it
        self.returned = BOTTOM
        self.exits = []  # per loop being run, the environments its breaks leave it with
        self.modules = {"np", "runtime"}

    @property
    def stacks(self):
        """stack_names(func), found when first asked (code without lists never asks)."""
        if self.known_stacks is None:
            self.known_stacks = stack_names(self.func)
        return self.known_stacks

    def run(self, arguments, marks=frozenset()):
        """Run the function on abstract `arguments`; `states` then holds, for each statement
        of its body whose id is in `marks`, the state it was reached in (to resume from)."""
        params = [a.id for a in self.func.args.args + self.func.args.kwonlyargs]
        if self.func.args.vararg or self.func.args.kwarg or len(arguments) != len(params):
            raise Unsupported("parameters")
        self._body_from(0, dict(zip(params, arguments)), marks)
        return self

    def resume(self, state, marks=frozenset(), until=None):
        """Run the function from a statement of its body on in the `state` (an item of
        another run's `states`) it was reached in: all a new run would find, when the
        statements before it are the same, at the cost of the rest only. `until`: the index
        of a statement of the body to stop at, its state kept in `states` as a mark's."""
        index, env, bound, self.returned = state
        self.bound = dict(bound)
        self._body_from(index, dict(env), marks, until)
        return self

    def _body_from(self, start, env, marks, until=None):
        self.states = {}
        body = self.func.body
        for index in range(start, len(body)):
            if id(body[index]) in marks or index == until:
                self.states[id(body[index])] = index, dict(env), dict(self.bound), self.returned
                if index == until:
                    return
            env = self.statement(body[index], env)
            if env is None:  # after a return
                return

    # statements

    def block(self, body, env):
        for stmt in body:
            if env is None:  # after a return
                return None
            env = self.statement(stmt, env)
        return env

    def statement(self, stmt, env):
        if stmt.__class__ is gast.Assign:  # (the commonest, by one test: the hot path)
            value = self.expr(stmt.value, env)
            if stmt.value.__class__ is gast.List and not stmt.value.elts:
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
            return self.loop(stmt.body, env, lambda e: self.bind(stmt.target, element(iterable), e))
        if isinstance(stmt, gast.While):
            if stmt.orelse:
                raise Unsupported("while-else")
            return self.loop(stmt.body, env, lambda e: self.expr(stmt.test, e))
        if isinstance(stmt, gast.Return):
            value = self.expr(stmt.value, env) if stmt.value is not None else Const(None)
            self.returned = join(self.returned, value)
            return None
        if isinstance(stmt, gast.Delete):
            return self._deleted(stmt, env)
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

    def _deleted(self, stmt, env):
        for target in stmt.targets:
            if isinstance(target, gast.Name):
                env.pop(target.id, None)
            elif isinstance(target, gast.Subscript):  # (del xs[0]: xs is shorter)
                self._changed_in_place(target.value, env)
        return env

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
        if target.__class__ is gast.Name:
            name, bound = target.id, self.bound
            env[name] = value
            before = bound.get(name, BOTTOM)
            bound[name] = value if before is BOTTOM else join(before, value)
        elif isinstance(target, (gast.Tuple, gast.List)):
            if any(isinstance(e, gast.Starred) for e in target.elts):
                items = [UNKNOWN] * len(target.elts)
            elif isinstance(value, Items) and len(value.items) == len(target.elts):
                items = value.items
            elif (
                isinstance(value, Const)
                and isinstance(value.value, tuple)
                and len(value.value) == len(target.elts)
            ):
                items = [abstract_of(v) for v in value.value]
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
        seen = self.seen
        previous = seen.get(id(node))
        if previous is not None:
            values = [join(a, b) for a, b in zip(previous[1], values)]
        seen[id(node)] = (node, values)

    def expr(self, node, env):
        kind = node.__class__  # (the commonest first, each by one test: the hot path)
        if kind is gast.Name:
            return env.get(node.id, UNKNOWN)
        if kind is gast.Constant:
            return Const(node.value)
        if kind is gast.BinOp:
            left, right = node.left, node.right  # (a name's value looked up here: the commonest)
            left = (
                env.get(left.id, UNKNOWN) if left.__class__ is gast.Name else self.expr(left, env)
            )
            right = (
                env.get(right.id, UNKNOWN)
                if right.__class__ is gast.Name
                else self.expr(right, env)
            )
            return self.binop(node.op, left, right, node)
        if kind is gast.Call:
            return self.call(node, env)
        if isinstance(node, (gast.Tuple, gast.List)):
            items = tuple(self.expr(e, env) for e in node.elts)
            if any(isinstance(e, gast.Starred) for e in node.elts):
                return UNKNOWN
            if isinstance(node, gast.Tuple) and all(isinstance(i, Const) for i in items):
                return abstract_of(tuple(i.value for i in items))
            return Items(tuple if isinstance(node, gast.Tuple) else list, items)
        if isinstance(node, gast.Dict):
            keys = [self.expr(k, env) if k is not None else UNKNOWN for k in node.keys]
            values = [self.expr(v, env) for v in node.values]
            if all(isinstance(k, Const) and type(k.value) is str for k in keys):
                return Mapping(tuple(sorted((k.value, v) for k, v in zip(keys, values))))
            return UNKNOWN
        if isinstance(node, gast.UnaryOp):
            return self.unary(node, self.expr(node.operand, env))
        if isinstance(node, gast.BoolOp):
            return _boolean([self.expr(v, env) for v in node.values], node.op)
        if isinstance(node, gast.Compare):
            return self.compare(node, env)
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
        return UNKNOWN

    def unary(self, node, operand):
        if isinstance(node.op, gast.Not):
            if isinstance(operand, Const):
                return Const(not operand.value)
            if isinstance(operand, EitherScalar) or (
                isinstance(operand, Typed) and operand.type in SCALARS
            ):
                return Typed(bool, (), np.dtype(bool))
            return UNKNOWN
        return evaluate(
            getattr(operator, _UNARY[type(node.op)]),
            [operand],
            {},
            index_args=(0,),
            fresh=True,
        )

    def compare(self, node, env):
        left = self.expr(node.left, env)
        result = None
        for op, comparator in zip(node.ops, node.comparators):
            right = self.expr(comparator, env)
            if type(op) not in _COMPARE:
                part = (
                    abstract_of(_python_compare(op, left, right))
                    if isinstance(left, Const) and isinstance(right, Const)
                    else UNKNOWN
                )
            else:
                part = evaluate(
                    getattr(operator, _COMPARE[type(op)]),
                    [left, right],
                    {},
                    index_args=(0, 1),
                    fresh=True,
                )
            result = part if result is None else self.binop(gast.BitAnd(), result, part, None)
            left = right
        return result

    def binop(self, op, left, right, node):
        if node is not None and (self.every_record or node.__class__ is gast.AugAssign):
            self.record(node, [left, right])
        function = _BINOPS.get(op.__class__)
        return UNKNOWN if function is None else binary(function, left, right)

    def index(self, node, env):
        if isinstance(node, gast.Slice):
            parts = [
                self.expr(p, env) if p is not None else Const(None)
                for p in (node.lower, node.upper, node.step)
            ]
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
        if self.every_record:
            self.record(node, args + [kwargs[k] for k in sorted(kwargs)])
        if path is not None and len(path) == 1 and path[0] not in env and self.callees is not None:
            result = self.callees(path[0], args, kwargs)
            if result is not None:
                return result
        if path is not None and path[0] not in env and path[0] in self.fixed:
            found = _module_function(self.fixed[path[0]], path[1:])
            if found is not None:  # (a function, or one a module the code imports holds)
                return evaluate_function(found, args, kwargs)
        if path is not None and path[0] not in env and path[0] not in self.opaque:
            if path[0] in self.modules or len(path) == 1:
                return evaluate_call(path, args, kwargs)
        if isinstance(node.func, gast.Attribute):
            base_node = node.func.value
            if isinstance(base_node, gast.Name) and base_node.id in self.stacks:
                return self.stack_method(base_node.id, node.func.attr, args, env)
            if node.func.attr in MUTATORS and self._changed_in_place(base_node, env):
                return UNKNOWN
            return evaluate_method(self.expr(base_node, env), node.func.attr, args, kwargs)
        return UNKNOWN

    def _changed_in_place(self, node, env):
        """Forget what the container `node` holds (a list's method or `del` changed it):
        whether it is one."""
        if not isinstance(self.expr(node, env), (Items, ListOf, Mapping, SparseOf)):
            return False
        if not isinstance(node, gast.Name):
            raise Unsupported("a container changed in place")
        env[node.id] = UNKNOWN
        return True

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


def bind_parameters(func, defaults, args, named=None, kwdefaults=None):
    """Abstract values of all of func's parameters (its keyword-only ones last) for a call
    with the abstract values `args` by position and `named` by keyword: those given, then
    the defaults' (`kwdefaults`: the keyword-only ones', by name; raises Unsupported where
    the call would raise TypeError)."""
    names = [a.id for a in func.args.args]
    keyword_only = [a.id for a in func.args.kwonlyargs]
    named = named or {}
    if len(args) > len(names) or not set(named) <= set(names[len(args) :] + keyword_only):
        raise Unsupported("arguments that do not bind to the parameters")
    defaults = defaults or ()
    first_default = len(names) - len(defaults)
    values = list(args)
    for place in range(len(args), len(names)):
        if names[place] in named:
            values.append(named[names[place]])
        elif place >= first_default:
            values.append(describe(defaults[place - first_default]))
        else:
            raise Unsupported("missing arguments")
    for name in keyword_only:
        if name in named:
            values.append(named[name])
        elif name in (kwdefaults or {}):
            values.append(describe(kwdefaults[name]))
        else:
            raise Unsupported("missing arguments")
    return values


def _module_function(value, attributes):
    """The object at `value.a.b` for attributes (a, b) when `value` is a module (the code's
    `scipy` in scipy.stats.t.logpdf: a library's, found in it); `value` for no attributes."""
    if attributes and not isinstance(value, types.ModuleType):
        return None
    for name in attributes:
        value = getattr(value, name, None)
    return value


def _boolean(values, op):
    """The abstract value of `a and b and ...` (or `or`) of abstract values."""
    if all(isinstance(v, Const) for v in values):
        result = values[0].value
        for v in values[1:]:
            result = (result and v.value) if isinstance(op, gast.And) else (result or v.value)
        return abstract_of(result)
    if all(isinstance(widen(v), Typed) and widen(v).type is bool for v in values):
        return Typed(bool, (), np.dtype(bool))
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
