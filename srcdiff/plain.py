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
from .statics import is_function_value, is_object

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
_ALLOWED = _STATEMENTS + _EXPRESSIONS
_DEPENDS = (gast.Assign, gast.AugAssign, gast.Attribute, gast.keyword, gast.Call)
# (the builtins include the container ones the passes rewrite: list, zip, map, iter, ...)
_REWRITTEN = frozenset(map(id, vars(builtins).values())) | {
    id(functools.partial),
    id(dataclasses.replace),
}


def is_plain(func, resolve, taken_in=lambda call, fn: False):
    """Whether `func` (a gast FunctionDef) is plain: only the statements and expressions
    above, plain name targets, and calls of a dotted name that is not a local value, of a
    function that is neither a builtin, a partial, a class nor one `taken_in` (the inliner
    takes in some functions of the module); no name bound to a function or an object.
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

    for node in nodes:
        allowed = _allowed(node.__class__)
        if not (allowed or allowed is None and _plain_node(node, local, resolved, taken_in)):
            return False
    return True


@functools.cache
def _allowed(kind):
    """Whether a node of class `kind` may be in a plain function: True, False, or None
    where that depends on the node (_plain_node): asked once a class, not of each node."""
    if not issubclass(kind, _ALLOWED):
        return False
    return None if issubclass(kind, _DEPENDS) else True


def _plain_node(node, local, resolve, taken_in):
    if isinstance(node, gast.Assign):
        return all(t.__class__ is gast.Name for t in node.targets) and not (
            isinstance(node.value, (gast.Name, gast.Attribute)) and _names_callable(node, resolve)
        )
    if isinstance(node, gast.AugAssign):
        return node.target.__class__ is gast.Name
    if isinstance(node, gast.Attribute):
        return isinstance(node.ctx, gast.Load)
    if isinstance(node, gast.keyword):
        return node.arg is not None
    if isinstance(node, gast.Call):
        return _plain_call(node, local, resolve, taken_in)
    return True


def _names_callable(assign, resolve):
    held = resolve(assign.value)
    return is_function_value(held) or is_object(held) or inspect.isclass(held)


def _plain_call(call, local, resolve, taken_in):
    path = ir.dotted(call.func)
    if path is None or path[0] in local:
        return False
    fn = resolve(call.func)
    return (
        callable(fn)
        and id(fn) not in _REWRITTEN
        and not inspect.isclass(fn)
        and not isinstance(fn, np.vectorize)  # (function_aliases calls its function)
        and not taken_in(call, fn)
    )
