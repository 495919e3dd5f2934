"""The names whose value f may change in place in any way (not only a list's methods or a
write into it): a branch on one saves its truth for the reverse sweep, bool(a) (anf.py's
truth), since the value itself may have changed by the time the sweep reads it:

    if flag:                        _cond0 = bool(flag)
        ...                  ->     if _cond0:
    np.copyto(flag, 0.0)                ...
"""

import gast

from . import ir
from .primitives import registry

# builtins that read a value without changing it
_READERS = (bool, len, isinstance, range, enumerate, zip, reversed, sorted, print)


def changeable_names(func, resolve, nodes=None):
    """The names of `func` (a gast FunctionDef) whose value may change in place: a method is
    called on it, it is written into or augmented, passed to a function that may change its
    arguments, or held by another name or container (which may change it). `nodes`: the
    nodes of func, or those of them of the kinds looked at here (calls, items and fields,
    assignments), where the caller has them already."""
    found = set()
    for node in ir.walk(func) if nodes is None else nodes:
        if isinstance(node, gast.Call):
            if isinstance(node.func, gast.Attribute):
                found |= root(node.func.value)
            called = resolve(node.func)
            record = registry.find(called) if callable(called) else None
            if called not in _READERS and not (record is not None and record.pure):
                found |= {a.id for a in arguments(node) if isinstance(a, gast.Name)}
        elif isinstance(node, (gast.Subscript, gast.Attribute)) and isinstance(
            node.ctx, (gast.Store, gast.Del)
        ):
            found |= root(node.value)
        elif isinstance(node, gast.AugAssign):
            found |= root(node.target)
        elif isinstance(node, (gast.Assign, gast.AnnAssign)) and node.value is not None:
            found |= _held(node.value)
    return found


def root(node):
    """The name `node` (x, x[i], x.a[i]) reads its value from, as a set (empty: none)."""
    while isinstance(node, (gast.Attribute, gast.Subscript)):
        node = node.value
    return {node.id} if isinstance(node, gast.Name) else set()


def arguments(call):
    """The argument nodes of `call`, keywords' too (*a and **d as a and d)."""
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
