"""Constant folding and algebraic simplification of an instantiated template expression:
number arithmetic is computed, `* 1`, `/ 1`, `** 1`, `+ 0` and `- 0` vanish, and a
primitive's own fold rule (its record's) turns np.log(2.0) into a float,
runtime.power_slope(x, 2) into 2 * x."""

import gast

from .. import ir
from ..primitives import registry


def is_number(node):
    return (
        isinstance(node, gast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    )


_FOLD = {
    gast.Add: lambda a, b: a + b,
    gast.Sub: lambda a, b: a - b,
    gast.Mult: lambda a, b: a * b,
    gast.Div: lambda a, b: a / b,
    gast.Pow: lambda a, b: a**b,
}


def fold(expr):
    """Constant-fold number arithmetic and drop `* 1`, `/ 1`, `** 1`, `+ 0` and `- 0` left
    by substitution. (Children first, then the node's rule: a NodeTransformer's order, by a
    direct recursion, as every template instance is folded.)"""
    fields = expr.__dict__
    for field in expr._fields:
        value = fields.get(field)
        if value.__class__ is list:
            value[:] = [fold(item) if isinstance(item, gast.AST) else item for item in value]
        elif isinstance(value, gast.AST):
            fields[field] = fold(value)
    return folded(expr)


def folded(node):
    """`node`, whose children are folded, folded by its own rule."""
    rule = _RULES.get(node.__class__)
    return node if rule is None else rule(node)


def _subscript(node):  # [da, db][1] -> db
    if (
        isinstance(node.value, (gast.List, gast.Tuple))
        and isinstance(node.slice, gast.Constant)
        and isinstance(node.slice.value, int)
    ):
        return node.value.elts[node.slice.value]
    return node


def _call(node):
    # a primitive of numbers (np.log(2.0)) or of a value and a number, by its record (looked
    # up last: most calls end with no number)
    if node.keywords or not node.args or not is_number(node.args[-1]):
        return node
    path = ir.dotted(node.func)
    record = registry.at(path) if path is not None else None
    if record is None or record.fold is None:
        return node
    folded = record.fold(*node.args[:-1], node.args[-1].value)
    return node if folded is None else fold(folded)


def _binop(node):
    left, right = node.left, node.right
    if is_number(left) and is_number(right) and type(node.op) in _FOLD:
        try:
            value = _FOLD[type(node.op)](left.value, right.value)
        except (ZeroDivisionError, OverflowError):
            value = None
        if isinstance(value, (int, float)):  # ((-8) ** 0.5 is complex)
            return gast.Constant(value=value, kind=None)
    if (
        isinstance(node.op, (gast.Mult, gast.Pow, gast.Div))
        and is_number(right)
        and right.value == 1
    ):
        return left
    if (
        isinstance(node.op, (gast.Add, gast.Sub)) and is_number(right) and right.value == 0
    ):  # (x - loc) with loc left out, say
        return left
    if isinstance(node.op, gast.Add) and is_number(left) and left.value == 0:
        return right
    if isinstance(node.op, gast.Mult) and is_number(left) and left.value == 1:
        return right
    if (
        isinstance(node.op, gast.Mult)
        and isinstance(right, gast.BinOp)
        and isinstance(right.op, gast.Mult)
        and is_number(right.left)
    ):
        # a * (2 * x) -> a * 2 * x: the way a person writes a product
        return gast.BinOp(
            left=gast.BinOp(left=left, op=gast.Mult(), right=right.left),
            op=gast.Mult(),
            right=right.right,
        )
    return node


_RULES = {gast.Subscript: _subscript, gast.Call: _call, gast.BinOp: _binop}
