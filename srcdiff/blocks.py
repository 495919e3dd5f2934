"""`np.block([[a, b], [c, d]])` written with a nested list display, as runtime.block([a, b, c,
d], ((0, 1), (2, 3))): its pieces one list, which templates take item by item (its adjoint
gives each piece its box of bz), the nesting a constant. A call of any other form stays
np.block's, which has no rule (an error at its line saying how to write it)."""

import gast
import numpy as np

from . import ir
from .errors import NoAdjointError


def blocks_as_one_list(parsed, calls=None):
    """Rewrite (in place) the np.block calls of a nested list display; `calls`: the calls of
    the function, where known."""
    for call in ir.walk(parsed.node) if calls is None else calls:
        if not (
            isinstance(call, gast.Call)
            and len(call.args) == 1
            and not call.keywords
            and isinstance(call.args[0], gast.List)
            and parsed.resolve(call.func) is np.block
        ):
            continue
        pieces = []
        layout = _layout(call.args[0], pieces)
        if layout is not None:
            call.func = ir.attr("runtime", "block")
            call.args = [gast.List(elts=pieces, ctx=gast.Load()), layout]


def _layout(node, pieces):
    """The nesting of a display as a tuple display of the pieces' indices (each piece put in
    `pieces`); None for a display np.block would refuse, or srcdiff cannot list."""
    if isinstance(node, gast.Starred):
        return None
    if not isinstance(node, gast.List):
        pieces.append(node)
        return ir.const(len(pieces) - 1)
    parts = [_layout(item, pieces) for item in node.elts]
    if not parts or any(part is None for part in parts):
        return None
    return gast.Tuple(elts=parts, ctx=gast.Load())


def refuse_block(obj, loc):
    """The error for an np.block call left as it is (for expressions.py)."""
    if obj is np.block:
        raise NoAdjointError(
            "srcdiff differentiates np.block(...) of a nested list written in the call",
            loc,
            "write the blocks' list in the call: np.block([[a, b], [c, d]])",
        )
