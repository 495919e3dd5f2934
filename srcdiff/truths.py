"""The truth of an `if` (or `a if c else b`) test, saved for the reverse sweep: the test's own
value where nothing can change it, else `bool(test)`, its truth as the forward sweep saw it.

    if pending:                     _cond0 = bool(pending)
        ...                  ->     if _cond0:
    pending.pop()                       ...

A name tested may hold a list, dict or array that f changes in place afterwards (pops,
writes into, passes to a function); the reverse sweep, reading the saved test, would then
see the changed value's truth and take the other branch."""

import gast

from . import ir
from .primitives import registry

# builtins that read a value without changing it
_READERS = (bool, len, isinstance, range, enumerate, zip, reversed, sorted, print)


def changeable_names(func, resolve):
    """The names of `func` (a gast FunctionDef) whose value may change in place: a method is
    called on it, it is written into or augmented, passed to a function that may change its
    arguments, or held by another name or container (which may change it)."""
    found = set()
    for node in ir.walk(func):
        if isinstance(node, gast.Call):
            if isinstance(node.func, gast.Attribute):
                found |= _root(node.func.value)
            called = resolve(node.func)
            record = registry.find(called) if callable(called) else None
            if called not in _READERS and not (record is not None and record.pure):
                found |= {a.id for a in _arguments(node) if isinstance(a, gast.Name)}
        elif isinstance(node, (gast.Subscript, gast.Attribute)) and isinstance(
            node.ctx, (gast.Store, gast.Del)
        ):
            found |= _root(node.value)
        elif isinstance(node, gast.AugAssign):
            found |= _root(node.target)
        elif isinstance(node, (gast.Assign, gast.AnnAssign)) and node.value is not None:
            found |= _held(node.value)
    return found


def truth_now(test, renamed, changeable):
    """The expression to save for `test` (`renamed`: it with the current versions of names)."""
    parts = test.values if isinstance(test, gast.BoolOp) else [test]
    if any(_root(part) & changeable for part in parts):
        return ir.call("bool", renamed)
    return renamed


def _root(node):
    while isinstance(node, (gast.Attribute, gast.Subscript)):
        node = node.value
    return {node.id} if isinstance(node, gast.Name) else set()


def _arguments(call):
    for arg in call.args + [k.value for k in call.keywords]:
        yield arg.value if isinstance(arg, gast.Starred) else arg


def _held(value):
    """The names an assigned value is, or holds in a display (y = a, t = (a, b))."""
    if isinstance(value, gast.Name):
        return {value.id}
    if isinstance(value, (gast.List, gast.Tuple, gast.Set)):
        return set().union(*map(_held, value.elts))
    if isinstance(value, gast.Dict):
        return set().union(*map(_held, value.values))
    return set()
