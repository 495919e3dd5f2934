"""A local function that calls itself, counted down by constants (`depth(x, 3)` whose body
calls `depth(t, n - 1)` unless `n == 0`): each call is made a call of a copy of the function
specialised to its constant arguments, which folds its tests on them and so calls the copy
for the next count, down to the copy that calls none. The inliner then inlines these copies
as it does any local function (a local function closes over the enclosing function's
values, so it cannot be made a derivative of its own as a module function's recursion is:
recursion.py):

    def depth(t, n):                                depth_n3(t): return np.tanh(w * depth_n2(t))
        if n == 0:                                  depth_n2(t): return np.tanh(w * depth_n1(t))
            return t                         ->     depth_n1(t): return np.tanh(w * depth_n0(t))
        return np.tanh(w * depth(t, n - 1))         depth_n0(t): return t
    depth(x, 3)                                     depth_n3(x)

A recursion not counted by constants is left as it is (and refused where it is inlined).
"""

import operator

import gast

from . import ir
from .errors import UnsupportedError
from .inline_call import local_names

# the most copies one recursion is specialised into: past it, it is taken not to end
_MOST_COPIES = 256

# the types of the constants a recursion is counted by (a float is a value carried along)
_COUNTING = (int, bool, str, type(None))

_BINARY = {
    gast.Add: operator.add,
    gast.Sub: operator.sub,
    gast.Mult: operator.mul,
    gast.FloorDiv: operator.floordiv,
    gast.Mod: operator.mod,
    gast.Pow: operator.pow,
    gast.LShift: operator.lshift,
    gast.RShift: operator.rshift,
    gast.BitAnd: operator.and_,
    gast.BitOr: operator.or_,
    gast.BitXor: operator.xor,
}
_COMPARE = {
    gast.Eq: operator.eq,
    gast.NotEq: operator.ne,
    gast.Lt: operator.lt,
    gast.LtE: operator.le,
    gast.Gt: operator.gt,
    gast.GtE: operator.ge,
    gast.Is: operator.is_,
    gast.IsNot: operator.is_not,
}
_UNARY = {gast.USub: operator.neg, gast.UAdd: operator.pos, gast.Not: operator.not_}


def unroll_counted_recursions(func, local, names, location):
    """Make the calls of the recursive ones of the `local` functions (name -> (definition,
    defaults)) in `func`'s body and in the other local functions calls of copies
    specialised to their constant arguments (added to `local`)."""
    recursive = _recursive(local)
    if not recursive:
        return
    unroller = _Unroller(local, recursive, names, location)
    unroller.calls_in(func.body)
    for name, (definition, _) in list(local.items()):
        if name not in recursive:
            unroller.calls_in(definition.body)


def _recursive(local):
    """The names of the local functions that reach themselves through calls of local ones."""
    callees = {
        name: {
            n.func.id
            for n in ir.walk(definition)
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id in local
        }
        for name, (definition, _) in local.items()
    }
    recursive = set()
    for name in callees:
        seen, pending = set(), list(callees[name])
        while pending:
            callee = pending.pop()
            if callee not in seen:
                seen.add(callee)
                pending += callees[callee]
        if name in seen:
            recursive.add(name)
    return recursive


class _Unroller:
    def __init__(self, local, recursive, names, location):
        self.local, self.recursive = local, recursive
        self.names, self.location = names, location
        self.copies = {}  # (name, ((parameter, value), ...)) -> the copy's name

    def calls_in(self, body):
        """Make the calls in `body` of recursive local functions with constant arguments
        calls of their specialised copies."""
        for stmt in body:
            for node in ir.walk(stmt):
                if (
                    isinstance(node, gast.Call)
                    and isinstance(node.func, gast.Name)
                    and node.func.id in self.recursive
                ):
                    self._specialise_call(node, stmt)

    def _specialise_call(self, call, stmt):
        name = call.func.id
        definition, defaults = self.local[name]
        counted = _counted_arguments(definition, call)
        if not counted:
            raise UnsupportedError(
                f"the local function {name!r} calls itself (recursion), and no constant "
                "argument counts how deep",
                self.location(stmt),
                f"pass the depth as a constant ({name}(x, 3)), or write the recursion as a loop",
            )
        key = (name, tuple(sorted((p, repr(v)) for p, v in counted.items())))
        if key not in self.copies:
            if len(self.copies) >= _MOST_COPIES:
                raise UnsupportedError(
                    f"the local function {name!r} calls itself more than {_MOST_COPIES} "
                    "times deep, counted by constants",
                    self.location(stmt),
                    "check that the recursion ends, or write it as a loop",
                )
            suffix = "_".join(f"{p}{v}" for p, v in counted.items() if isinstance(v, int))
            self.copies[key] = self.names.named(f"{name}_{suffix}" if suffix else name)
            self._copy(self.copies[key], definition, defaults, counted)
        call.func = ir.name(self.copies[key])
        positional = [a.id for a in definition.args.posonlyargs + definition.args.args]
        call.args = [a for p, a in zip(positional, call.args) if p not in counted]
        call.keywords = [k for k in call.keywords if k.arg not in counted]

    def _copy(self, name, definition, defaults, counted):
        """Make the local function `name`: `definition` with the `counted` parameters bound
        to their constants (its calls specialised in turn)."""
        copy = ir.copy_tree(definition)
        copy.name = name
        args = copy.args
        kept = [
            (a, d)
            for a, d in zip(args.posonlyargs + args.args, _padded(args.defaults, args))
            if a.id not in counted
        ]
        args.posonlyargs = [a for a in args.posonlyargs if a.id not in counted]
        args.args = [a for a, _ in kept if a in args.args]
        args.defaults = [d for _, d in kept if d is not None]
        keywords = list(zip(args.kwonlyargs, args.kw_defaults))
        args.kwonlyargs = [a for a, _ in keywords if a.id not in counted]
        args.kw_defaults = [d for a, d in keywords if a.id not in counted]
        _Bind(counted).visit(copy)
        copy.body = _folded_block(copy.body)
        self.local[name] = (copy, {p: v for p, v in defaults.items() if p not in counted})
        self.calls_in(copy.body)


def _padded(defaults, args):
    """A function's positional defaults, None for each parameter without one."""
    return [None] * (len(args.posonlyargs + args.args) - len(defaults)) + list(defaults)


def _counted_arguments(definition, call):
    """{parameter: constant} of the call's constant arguments to parameters the function
    does not assign (in a definition without *args or **kwargs)."""
    args = definition.args
    if args.vararg is not None or args.kwarg is not None:
        return {}
    assigned = local_names(definition)
    positional = [a.id for a in args.posonlyargs + args.args]
    passed = list(zip(positional, call.args)) + [(k.arg, k.value) for k in call.keywords]
    return {
        param: value.value
        for param, value in passed
        if param is not None
        and param not in assigned
        and isinstance(value, gast.Constant)
        and isinstance(value.value, _COUNTING)
    }


class _Bind(gast.NodeTransformer):
    """Each read of a counted parameter becomes its constant, folded where it is read."""

    def __init__(self, counted):
        self.counted = counted

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.counted:
            return gast.copy_location(ir.const(self.counted[node.id]), node)
        return node

    def generic_visit(self, node):
        return _folded(super().generic_visit(node))


def _folded(node):
    """`node` (its children folded) computed, when it is an operation on constants, or the
    branch a conditional expression on a constant takes."""
    if isinstance(node, gast.IfExp) and isinstance(node.test, gast.Constant):
        return node.body if node.test.value else node.orelse
    if isinstance(node, gast.BoolOp):
        return _folded_bool(node)
    operands = [getattr(node, f) for f in ("left", "right", "operand") if hasattr(node, f)]
    operands += getattr(node, "comparators", [])
    if not operands or not all(isinstance(o, gast.Constant) for o in operands):
        return node
    try:
        if isinstance(node, gast.BinOp) and type(node.op) in _BINARY:
            value = _BINARY[type(node.op)](node.left.value, node.right.value)
        elif isinstance(node, gast.UnaryOp) and type(node.op) in _UNARY:
            value = _UNARY[type(node.op)](node.operand.value)
        elif isinstance(node, gast.Compare) and all(type(o) in _COMPARE for o in node.ops):
            values = [node.left.value] + [c.value for c in node.comparators]
            value = all(_COMPARE[type(o)](a, b) for o, a, b in zip(node.ops, values, values[1:]))
        else:
            return node
    except (ArithmeticError, TypeError, ValueError):
        return node  # (left to raise where it runs)
    return gast.copy_location(ir.const(value), node)


def _folded_bool(node):
    """`a and b`, `a or b` with constants first: what it evaluates to, or the rest of it."""
    values = list(node.values)
    stops_at = (lambda v: not v) if isinstance(node.op, gast.And) else bool
    while len(values) > 1 and isinstance(values[0], gast.Constant):
        if stops_at(values[0].value):
            return values[0]
        values.pop(0)
    if len(values) == 1:
        return values[0]
    node.values = values
    return node


def _folded_block(body):
    """`body` with each if statement on a constant replaced by the branch it takes, and
    without the statements after a return that always runs."""
    out = []
    for stmt in body:
        if isinstance(stmt, (gast.For, gast.While, gast.If)):
            stmt.body = _folded_block(stmt.body)
            stmt.orelse = _folded_block(stmt.orelse) if stmt.orelse else []
        if isinstance(stmt, gast.If) and isinstance(stmt.test, gast.Constant):
            out += stmt.body if stmt.test.value else stmt.orelse
        else:
            out.append(stmt)
        if out and isinstance(out[-1], gast.Return):
            break
    return out or [gast.Pass()]
