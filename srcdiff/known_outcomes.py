"""What specialisation (specialize.py) rewrites once the interpreter knows the outcome of an
operation: a call by its primitive's own rewrite (its record's), `x * 1` of a float by x, an
if whose test is the same every time by its branch."""

import gast

from .ir import dotted
from .primitives import registry
from .shapes import UNKNOWN, Const, EitherScalar, Typed, widen


def _rewrite_call(node, values):
    path = dotted(node.func)
    record = registry.at(path) if path is not None and len(path) > 1 else None
    if record is None or record.rewrite is None or any(v is UNKNOWN for v in values):
        return None
    positional = values[: len(node.args)]
    named = dict(zip(sorted(k.arg for k in node.keywords), values[len(node.args) :]))
    try:
        return record.rewrite(node, *positional, **named)
    except TypeError:  # a call with arguments the rule does not take
        return None


def _rewrite_binop(node, values):
    """x * 1 is x, for an immutable float x (an array might be written into later)."""
    if node.op.__class__ is not gast.Mult:
        return None
    left, right = values
    for one, other, kept in ((right, left, node.left), (left, right, node.right)):
        if one.__class__ is not Const:  # (the commonest: no constant operand)
            continue
        other = widen(other)
        if (
            type(one.value) in (int, float)
            and one.value == 1
            and isinstance(other, (Typed, EitherScalar))
            and not other.is_array
            and other.dtype.kind == "f"
        ):
            return kept
    return None


def rewritten(node, seen):
    """`node` with each call, operation and if below it that `seen` (the interpreter's
    records) says has a certain outcome replaced by that outcome, innermost first: what
    gast.NodeTransformer would do, without its generic machinery (this visits every node)."""
    values, kind = node.__dict__, node.__class__
    fields = _BELOW.get(kind)
    if fields is None:
        fields = _BELOW[kind] = tuple(f for f in node._fields if f not in _NEVER_BELOW)
    for field in fields:
        value = values.get(field)
        if value.__class__ is list:
            items = []
            for item in value:
                if item.__class__ not in _LEAVES and isinstance(item, _NODE):
                    item = rewritten(item, seen)
                    if item.__class__ is list:  # an if whose branch is known: that branch
                        items.extend(item)
                        continue
                    if item.__class__ is gast.Expr and item.value.__class__ is gast.Constant:
                        continue  # a check found needless (runtime.check_unpack)
                items.append(item)
            value[:] = items
        elif value.__class__ not in _LEAVES and isinstance(value, _NODE):
            values[field] = rewritten(value, seen)
    record = seen.get(id(node))
    if record is None:
        return node
    if kind is gast.If or kind is gast.IfExp:  # a test that is the same every time
        test = record[1][0]
        if not isinstance(test, Const):
            return node
        return node.body if test.value else node.orelse
    rule = _RULES.get(kind)
    replacement = rule(node, record[1]) if rule is not None else None
    return node if replacement is None else replacement


_RULES = {gast.Call: _rewrite_call, gast.BinOp: _rewrite_binop}


_NODE = gast.AST
# (the fields of each kind of node that may hold one to rewrite: not its operator, context,
# names or flags, which hold strings or nodes with no field)
_BELOW = {}
_NEVER_BELOW = frozenset({"op", "ctx", "id", "attr", "arg", "name", "kind", "type_comment"})
# (nothing below them to rewrite: names, constants, contexts and operators)
_LEAVES = frozenset(
    [gast.Name, gast.Constant]
    + [
        c
        for c in vars(gast).values()
        if isinstance(c, type) and issubclass(c, _NODE) and not c._fields
    ]
)
