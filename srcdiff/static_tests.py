"""Branches under a test that the code is made for, dropped as a function is read: a test of
whether an attribute of an object parameter (whose class and held functions a derivative's
code is made for, statics.object_class) holds a function or None, as optional parts of a
layer are written:

    if self.activation is not None:        out = self.activation(out)   (an activation held)
        out = self.activation(out)    ->   (nothing)                     (None held)

and `x if self.norm is None else self.norm(x)`. The code made for one object is used again
only for objects whose attributes hold the same functions, and None in the same places."""

import gast

from . import ir
from .statics import MISSING, is_function_value

_OBJECT_KINDS = ("type", "tree")  # (statics whose value holds an object's attributes)


def drop_static_branches(parsed):
    """Rewrite parsed.node in place; whether a branch was dropped."""
    if not any(static.kind in _OBJECT_KINDS for static in parsed.statics.values()):
        return False  # (no test is of an object's parts: no walk of all the nodes)
    dropped = False
    for node in list(ir.walk(parsed.node)):
        for field, value in ir.fields(node):
            items = value if isinstance(value, list) else [value]
            live = [_live(parsed, item) for item in items]
            if all(part is None for part in live):
                continue
            dropped = True
            if isinstance(value, list):
                value[:] = [
                    kept
                    for item, part in zip(value, live)
                    for kept in (part if isinstance(part, list) else [part or item])
                ]
            else:
                setattr(node, field, live[0])
    return dropped


def _live(parsed, node):
    """What an `if` statement (its statements, a `pass` for none) or an `x if test else y`
    with a decided test stands for; else None."""
    if not isinstance(node, (gast.If, gast.IfExp)):
        return None
    truth = _decided(parsed, node.test)
    if truth is None:
        return None
    part = node.body if truth else node.orelse
    if isinstance(node, gast.IfExp):
        return part
    return part or [gast.copy_location(gast.Pass(), node)]


def _decided(parsed, test):
    """The truth of a test made only of an object parameter's attributes that hold a function
    or None, `is`/`is not` None, `not`, `and` and `or`; else None."""
    from .comprehensions_of_functions import decided_test  # (it imports parse.py, ours)

    return decided_test(test, parsed.resolve) if _of_held_parts(parsed, test) else None


def _of_held_parts(parsed, node):
    if isinstance(node, gast.Constant):
        return node.value is None
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
        return _of_held_parts(parsed, node.operand)
    if isinstance(node, gast.BoolOp):
        return all(_of_held_parts(parsed, v) for v in node.values)
    if isinstance(node, gast.Compare):
        return all(isinstance(op, (gast.Is, gast.IsNot)) for op in node.ops) and all(
            _of_held_parts(parsed, v) for v in [node.left, *node.comparators]
        )
    if not isinstance(node, gast.Attribute):
        return False
    root = node
    while isinstance(root, gast.Attribute):
        root = root.value
    static = parsed.statics.get(root.id) if isinstance(root, gast.Name) else None
    if static is None or static.kind not in _OBJECT_KINDS:
        return False
    held = parsed.container(node)
    return held is not MISSING and (held is None or is_function_value(held))
