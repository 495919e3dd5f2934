"""Before containers are lowered: a statement that reads a list or tuple display's item past
its end (`xs = [a, b]` ... `xs[5]`) raises IndexError instead, as Python does there. The
lowering reads a display's items by position, and a read whose value nothing uses is dropped
as dead code, so without this such a statement would run, silently, as if it held.

Only reads that run whenever their statement does are replaced: not those under `x if c
else y`, `and`/`or`, a comprehension or a lambda, which Python may never evaluate (those
raise when they run, if their value is used)."""

import gast

from . import ir
from .container_facts import display_lengths

_MAYBE_EVALUATED = (gast.IfExp, gast.BoolOp, gast.Lambda, gast.ListComp, gast.SetComp)
_MAYBE_EVALUATED += (gast.DictComp, gast.GeneratorExp)
_BLOCKS = ("body", "orelse")


def raise_past_the_end(func):
    """Rewrite `func` (after desugar) in place; whether any statement was replaced."""
    lengths = display_lengths(func)
    return bool(lengths) and _in_block(func.body, lengths)


def _in_block(block, lengths):
    replaced = False
    for k, stmt in enumerate(block):
        kind = _past_the_end(_evaluated_first(stmt), lengths)
        if kind is not None:
            message = f"{kind} index out of range"
            block[k] = gast.copy_location(
                gast.Raise(exc=ir.call("IndexError", ir.const(message)), cause=None), stmt
            )
            replaced = True
        elif isinstance(stmt, (gast.If, gast.For, gast.While)):
            for field in _BLOCKS:
                replaced |= _in_block(getattr(stmt, field), lengths)
    return replaced


def _evaluated_first(stmt):
    """The expressions a statement evaluates whenever it runs (of a compound statement, its
    test or what it iterates over)."""
    if isinstance(stmt, (gast.If, gast.While)):
        return [stmt.test]
    if isinstance(stmt, gast.For):
        return [stmt.iter]
    return [stmt]


def _past_the_end(nodes, lengths):
    """'list' or 'tuple', the kind of a display `nodes` read past its end, or None."""
    todo = list(nodes)
    for node in todo:
        if isinstance(node, _MAYBE_EVALUATED):
            continue
        if (
            isinstance(node, gast.Subscript)
            and isinstance(node.value, gast.Name)
            and node.value.id in lengths
            and ir.constant_int(node.slice) is not None
        ):
            kind, length = lengths[node.value.id]
            if not -length <= ir.constant_int(node.slice) < length:
                return "list" if kind is gast.List else "tuple"
        todo.extend(ir.children(node))
    return None
