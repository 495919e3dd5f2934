"""Comprehensions that make functions, read through before inlining: a list of lambdas
(`[lambda z, k=k: np.tanh(k * z) for k in range(3) if k != 1]`), one per item, and a list of
functions the code names (`[f for f in (np.sin, np.cos, np.tanh) if f is not np.cos]`,
`[ACTS[n] for n in ACTS if n != "relu"]`) become the displays they make, their filters
decided here; the calls of what they hold then resolve as the calls of a display's do."""

import operator

import gast

from . import ir
from .errors import UnsupportedError
from .function_aliases import constant, names_a_function
from .statics import MISSING, is_function_value

_MOST_ITEMS = 64  # (each lambda is inlined where it is called: more is a loop's work)


def comprehensions_of_functions(func, resolve, location):
    """Each comprehension of lambdas, or of functions the code names, as its display;
    whether there was one."""
    found = False
    for node in list(ir.walk(func)):
        if not isinstance(node, (gast.ListComp, gast.GeneratorExp)):
            continue
        lambdas = isinstance(node.elt, gast.Lambda)
        if not lambdas and not isinstance(node.elt, (gast.Name, gast.Attribute, gast.Subscript)):
            continue
        made = _made(node, resolve, lambdas)
        if made is None and lambdas:
            raise UnsupportedError(
                "a list of lambdas made by a comprehension whose items srcdiff cannot list "
                "before the call (it inlines each lambda where it is called)",
                location(node),
                "make them over range(N) with N a number, or over a tuple of constants, with "
                "one for (and an if on its variable and constants); or write the lambdas out "
                "in a list",
            )
        if made is not None and (lambdas or all(names_a_function(e, resolve) for e in made)):
            ir.replace_node(
                func, node, gast.copy_location(gast.List(elts=made, ctx=gast.Load()), node)
            )
            found = True
    return found


def _made(node, resolve, lambdas):
    """The items a comprehension of one `for` over items known here makes, or None."""
    loop = node.generators[0]
    if len(node.generators) != 1 or not isinstance(loop.target, gast.Name):
        return None
    items = _items_known(loop.iter, resolve, constants=lambdas)
    if items is None:
        return None
    variable, kept = loop.target.id, []
    for item in items:
        decided = [decided_test(put(test, variable, item), resolve) for test in loop.ifs]
        if None in decided:
            return None
        if all(decided):
            kept.append(item)
    if lambdas:  # (its body reads the variable as it is once the list is made: the last)
        return [_made_with(node.elt, variable, item, items[-1]) for item in kept]
    return [put(node.elt, variable, item) for item in kept]


def _items_known(node, resolve, constants):
    """The items (as nodes) of `range(...)` of numbers, of a display (of constants, where
    `constants`), or of a global list, tuple (`LAYERS[0]`, ...) or dict (its keys); else None."""
    container = getattr(getattr(resolve, "__self__", None), "container", resolve)
    if (
        isinstance(node, gast.Call)
        and not node.keywords
        and 1 <= len(node.args) <= 3
        and resolve(node.func) is range
    ):
        bounds = [constant(a) for a in node.args]
        items = list(map(ir.const, range(*bounds))) if all(type(b) is int for b in bounds) else None
    elif isinstance(node, (gast.List, gast.Tuple)):
        items = [
            e if not constants or constant(e) is not None or isinstance(e, gast.Constant) else None
            for e in node.elts
        ]
        items = None if any(i is None for i in items) else items
    elif not constants and isinstance(node, (gast.Name, gast.Attribute)):
        held = container(node)
        if isinstance(held, dict) and all(type(k) in (str, int) for k in held):
            items = [ir.const(k) for k in held]
        elif isinstance(held, (list, tuple)):
            items = [
                gast.Subscript(value=ir.copy_tree(node), slice=ir.const(k), ctx=gast.Load())
                for k in range(len(held))
            ]
        else:
            return None
    else:
        return None
    return items if items is not None and 0 < len(items) <= _MOST_ITEMS else None


def _made_with(function, variable, value, last):
    made = ir.copy_tree(function)
    args = made.args
    args.defaults = [put(d, variable, value) for d in args.defaults]
    args.kw_defaults = [d if d is None else put(d, variable, value) for d in args.kw_defaults]
    own = {
        a.id
        for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
        if a is not None
    }
    if variable not in own:
        made.body = put(made.body, variable, last)
    return made


def put(node, variable, value):
    """A copy of `node` with a copy of the node `value` wherever it reads `variable`."""

    class Put(gast.NodeTransformer):
        def visit_Name(self, name):
            if name.id == variable and isinstance(name.ctx, gast.Load):
                return ir.copy_tree(value)
            return name

    return Put().visit(ir.copy_tree(node))


# --- filters decided before the call -------------------------------------------------------

_COMPARED = {
    gast.Eq: operator.eq,
    gast.NotEq: operator.ne,
    gast.Lt: operator.lt,
    gast.LtE: operator.le,
    gast.Gt: operator.gt,
    gast.GtE: operator.ge,
    gast.Is: operator.is_,
    gast.IsNot: operator.is_not,
    gast.In: lambda a, b: a in b,
    gast.NotIn: lambda a, b: a not in b,
}
_ARITHMETIC = {
    gast.Add: operator.add,
    gast.Sub: operator.sub,
    gast.Mult: operator.mul,
    gast.Mod: operator.mod,
    gast.FloorDiv: operator.floordiv,
}


def decided_test(test, resolve):
    """The truth of a comprehension's filter with its variable put in (`1 != 1`, `np.cos is
    not np.cos`), where it reads only constants, names the code resolves and plain values
    (numbers, str, functions); else None."""
    value = _value(test, resolve)
    return None if value is MISSING else bool(value)


def _value(node, resolve):
    container = getattr(getattr(resolve, "__self__", None), "container", resolve)
    if isinstance(node, gast.Constant):
        return node.value if _plain(node.value) else MISSING
    if isinstance(node, (gast.Name, gast.Attribute, gast.Subscript)):
        held = container(node)
        return held if _plain(held) else MISSING
    if isinstance(node, (gast.Tuple, gast.List)):
        items = tuple(_value(e, resolve) for e in node.elts)
        return MISSING if MISSING in items else items
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.Not, gast.USub)):
        operand = _value(node.operand, resolve)
        if operand is MISSING:
            return MISSING
        return not operand if isinstance(node.op, gast.Not) else _arithmetic(operator.neg, operand)
    if isinstance(node, gast.BoolOp):
        values = [_value(v, resolve) for v in node.values]
        if MISSING in values:
            return MISSING
        return all(values) if isinstance(node.op, gast.And) else any(values)
    if isinstance(node, gast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = _value(node.left, resolve), _value(node.right, resolve)
        return _arithmetic(_ARITHMETIC[type(node.op)], left, right)
    if isinstance(node, gast.Compare):
        return _compared(node, resolve)
    return MISSING


def _compared(node, resolve):
    left = _value(node.left, resolve)
    for op, right_node in zip(node.ops, node.comparators):
        right = _value(right_node, resolve)
        if left is MISSING or right is MISSING or type(op) not in _COMPARED:
            return MISSING
        try:
            if not _COMPARED[type(op)](left, right):
                return False
        except TypeError:
            return MISSING
        left = right
    return True


def _arithmetic(op, *operands):
    if any(type(v) not in (int, float, bool) for v in operands) and op is not operator.add:
        return MISSING
    try:
        return op(*operands)
    except (TypeError, ArithmeticError):
        return MISSING


def _plain(value):
    """Whether a value may be compared here: a number, a str, None, a function, or a tuple
    of them (never an array, whose comparison is no truth value)."""
    if isinstance(value, tuple):
        return all(map(_plain, value))
    return type(value) in (int, float, bool, str, type(None)) or is_function_value(value)
