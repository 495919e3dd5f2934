"""Constant folding and algebraic simplification of an instantiated template expression:
number arithmetic is computed, `* 1` and `** 1` vanish, np.log(2.0) becomes a float."""
import gast
import numpy as np


def is_number(node):
    return isinstance(node, gast.Constant) and isinstance(node.value, (int, float)) \
        and not isinstance(node.value, bool)


_FOLD = {gast.Add: lambda a, b: a + b, gast.Sub: lambda a, b: a - b,
         gast.Mult: lambda a, b: a * b, gast.Div: lambda a, b: a / b}
# numpy functions of a Python number, folded to a Python float: np.log(2.0) would be a
# float64 scalar, which numpy does not treat as weakly typed and so would upcast float32
_FOLD_CALLS = {"log": np.log, "exp": np.exp, "sqrt": np.sqrt, "cos": np.cos, "sin": np.sin}


def _number(value):
    return gast.Constant(value=value, kind=None)


def _binop(left, op, right):
    return gast.BinOp(left=left, op=op, right=right)


def _power_slope(x, y):
    """runtime.power_slope(x, y) for a number y: y * x ** (y - 1), or 0 if y is 0."""
    if y in (0, 1):
        return _number(float(y))
    return _binop(_number(y), gast.Mult(), _binop(x, gast.Pow(), _number(y - 1)))


def _log_or_zero(x):
    return _number(float(np.log(x)) if x else 0.0) if x >= 0 else None


def _divide_or_zero(a, b):
    return _binop(a, gast.Div(), _number(b)) if b != 0 else _number(0.0)


# runtime helpers of an operand and a number, folded when the number is known
_FOLD_HELPERS = {"power_slope": _power_slope, "log_or_zero": _log_or_zero,
                 "divide_or_zero": _divide_or_zero}


def fold(expr):
    """Constant-fold number arithmetic and drop `* 1` and `** 1` left by substitution."""
    class Fold(gast.NodeTransformer):
        def visit_Subscript(self, node):  # [da, db][1] -> db
            self.generic_visit(node)
            if isinstance(node.value, (gast.List, gast.Tuple)) and isinstance(
                    node.slice, gast.Constant) and isinstance(node.slice.value, int):
                return node.value.elts[node.slice.value]
            return node

        def visit_Call(self, node):
            self.generic_visit(node)
            func = node.func
            if not (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)
                    and not node.keywords):
                return node
            args = node.args
            if func.value.id == "np" and func.attr in _FOLD_CALLS and len(args) == 1 and \
                    is_number(args[0]) and args[0].value > 0:
                return _number(float(_FOLD_CALLS[func.attr](args[0].value)))
            if func.value.id == "runtime" and func.attr in _FOLD_HELPERS and args and \
                    is_number(args[-1]):
                folded = _FOLD_HELPERS[func.attr](*args[:-1], args[-1].value)
                return node if folded is None else self.visit(folded)
            return node

        def visit_BinOp(self, node):
            self.generic_visit(node)
            left, right = node.left, node.right
            if is_number(left) and is_number(right) and type(node.op) in _FOLD:
                if not (isinstance(node.op, gast.Div) and right.value == 0):
                    return gast.Constant(value=_FOLD[type(node.op)](left.value, right.value),
                                         kind=None)
            if isinstance(node.op, (gast.Mult, gast.Pow)) and is_number(right) \
                    and right.value == 1:
                return left
            if isinstance(node.op, gast.Mult) and is_number(left) and left.value == 1:
                return right
            if isinstance(node.op, gast.Mult) and isinstance(right, gast.BinOp) and \
                    isinstance(right.op, gast.Mult) and is_number(right.left):
                # a * (2 * x) -> a * 2 * x: the way a person writes a product
                return gast.BinOp(left=gast.BinOp(left=left, op=gast.Mult(), right=right.left),
                                  op=gast.Mult(), right=right.right)
            return node
    return Fold().visit(expr)
