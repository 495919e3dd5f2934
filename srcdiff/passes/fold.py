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
            if (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)
                    and func.value.id == "np" and func.attr in _FOLD_CALLS
                    and len(node.args) == 1 and not node.keywords and is_number(node.args[0])
                    and node.args[0].value > 0):
                return gast.Constant(value=float(_FOLD_CALLS[func.attr](node.args[0].value)),
                                     kind=None)
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
            return node
    return Fold().visit(expr)
