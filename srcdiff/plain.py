"""Whether a function is plain: statements of arithmetic on names and calls of functions the
code names, as a long generated or unrolled function mostly is (`h = np.tanh(h * w + 0.1)`).
Inlining (inline.py) and the lowering of containers (containers.py) have nothing to do in
such a function, yet each of their dozen passes walks all of it: one walk here lets them
skip. The test is a whitelist, so what it does not know of (a loop, a display, an item, a
lambda, a call of a local value) is never plain."""

import builtins
import dataclasses
import functools
import inspect

import gast
import numpy as np

from . import ir
from .frozen_distributions import is_distribution, is_frozen_method
from .statics import MISSING, is_function_value, is_object

_STATEMENTS = (gast.Assign, gast.AugAssign, gast.Return, gast.Expr, gast.If, gast.Pass)
_EXPRESSIONS = (
    gast.Name,
    gast.Constant,
    gast.BinOp,
    gast.UnaryOp,
    gast.BoolOp,
    gast.Compare,
    gast.IfExp,
    gast.Call,
    gast.Attribute,
    gast.keyword,
    gast.expr_context,
    gast.operator,
    gast.unaryop,
    gast.boolop,
    gast.cmpop,
)
_ALLOWED = _STATEMENTS + _EXPRESSIONS + (gast.Tuple, gast.Subscript)
# (what inlining looks for is function values: containers alone give it nothing to do)
_CONTAINERS = (
    gast.Subscript,
    gast.Slice,
    gast.Tuple,
    gast.List,
    gast.Dict,
    gast.Set,
    gast.Starred,
    gast.For,
    gast.While,
    gast.Break,
    gast.Continue,
)
# methods of arrays that no builtin container has and that change nothing in place: a call
# of one on a local value is arithmetic (any other method may be a list's or an object's)
_ARRAY_METHODS = frozenset(
    "reshape astype sum mean max min prod std var dot transpose ravel flatten squeeze clip "
    "cumsum cumprod argmax argmin conj conjugate round any all trace diagonal swapaxes "
    "repeat take nonzero item tolist".split()
)
_DEPENDS = (
    gast.Assign,
    gast.AugAssign,
    gast.Attribute,
    gast.Tuple,
    gast.Subscript,
    gast.keyword,
    gast.Call,
)
# (the builtins include the container ones the passes rewrite: list, zip, map, iter, ...)
_REWRITTEN = frozenset(map(id, vars(builtins).values())) | {
    id(functools.partial),
    id(dataclasses.replace),
}
# the builtins inlining leaves as they are (no function value goes in or out of them): a
# loop `for i in range(len(params))` alone gives it nothing to do
_NOT_INLINED = frozenset(map(id, (range, len, int, float, bool, abs, round, isinstance, print)))


def is_plain(func, resolve, taken_in=lambda call, fn: False, containers=True):
    """Whether `func` (a gast FunctionDef) is plain: only the statements and expressions
    above, plain name targets, calls of a dotted name that is not a local value, of a
    function that is neither a builtin, a partial, a class nor one `taken_in` (the inliner
    takes in some functions of the module), and calls of the array methods above; no name
    bound to a function or an object. With `containers=False`, what the inliner asks: the
    same, but for items, displays and loops (the lowering of containers' to look at).
    `resolve` is the ParsedFunction's."""
    local = {a.id for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs}
    local |= {a.id for a in (func.args.vararg, func.args.kwarg) if a is not None}
    nodes = [n for stmt in func.body for n in ir.walk(stmt)]
    local |= {n.id for n in nodes if n.__class__ is gast.Name and isinstance(n.ctx, gast.Store)}
    known = {}  # dotted path -> what it names (a long function calls a few, many times)

    def resolved(node):
        path = ir.dotted(node)
        if path is None:
            return resolve(node)
        if path not in known:
            known[path] = resolve(node)
        return known[path]

    # (with containers, the tuple displays as plain as names: constants, or returned)
    tuples = None
    if containers:
        tuples = {id(n.value) for n in nodes if n.__class__ is gast.Return}
        tuples |= {
            id(n)
            for n in nodes
            if n.__class__ is gast.Tuple and all(e.__class__ is gast.Constant for e in n.elts)
        }
    for node in nodes:
        allowed = _allowed(node.__class__, containers)
        if not (
            allowed or allowed is None and _plain_node(node, local, resolved, taken_in, tuples)
        ):
            return False
    return True


@functools.cache
def _allowed(kind, containers):
    """Whether a node of class `kind` may be in a plain function: True, False, or None
    where that depends on the node (_plain_node): asked once a class, not of each node."""
    if not issubclass(kind, _ALLOWED if containers else _ALLOWED + _CONTAINERS):
        return False
    return None if issubclass(kind, _DEPENDS) else True


def _plain_node(node, local, resolve, taken_in, tuples):
    """(`tuples`: the ids of the tuple displays that may be there, None for any, and any item,
    target and display, as the inliner asks)"""
    containers = tuples is not None
    if isinstance(node, gast.Assign):
        return all(t.__class__ is gast.Name or not containers for t in node.targets) and not (
            isinstance(node.value, (gast.Name, gast.Attribute, gast.Subscript))
            and _names_callable(node, resolve)
        )
    if isinstance(node, gast.AugAssign):
        return node.target.__class__ is gast.Name or not containers
    if isinstance(node, gast.Attribute):
        return isinstance(node.ctx, gast.Load)
    if isinstance(node, gast.Tuple):
        return not containers or id(node) in tuples
    if isinstance(node, gast.Subscript):  # (an item of a global may be a function to read)
        if containers:  # (of a shape, a tuple of ints)
            return isinstance(node.value, gast.Attribute) and node.value.attr == "shape"
        root = node.value
        while isinstance(root, (gast.Subscript, gast.Attribute)):
            root = root.value
        return isinstance(root, gast.Name) and root.id in local
    if isinstance(node, gast.keyword):
        return node.arg is not None
    if isinstance(node, gast.Call):
        return _plain_call(node, local, resolve, taken_in, containers)
    return True


def _names_callable(assign, resolve):
    held = resolve(assign.value)
    return is_function_value(held) or is_object(held) or inspect.isclass(held)


def _plain_call(call, local, resolve, taken_in, containers):
    """(a parameter that the transform is made for a function as, `block(h)`, is called as
    the function is, where what is asked is inlining's)"""
    path = ir.dotted(call.func)
    static = not containers and path is not None and path == (path[0],) and path[0] in local
    fn = resolve(call.func) if static else MISSING
    if path is None or path[0] in local and not inspect.isfunction(fn):
        return (
            call.func.__class__ is gast.Attribute
            and call.func.attr in _ARRAY_METHODS
            and resolve(call.func) is MISSING
        )
    fn = resolve(call.func) if fn is MISSING else fn
    if not containers and id(fn) in _NOT_INLINED:
        return True
    return (
        callable(fn)
        and id(fn) not in _REWRITTEN
        and not inspect.isclass(fn)
        and not isinstance(fn, np.vectorize)  # (function_aliases calls its function)
        and not is_distribution(fn)  # (frozen_distributions rewrites their methods' calls)
        and not is_frozen_method(fn)
        and not taken_in(call, fn)
    )
