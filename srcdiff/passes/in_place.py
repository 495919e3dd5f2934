"""In-place accumulation: `bx = bx + e` becomes `bx += e` into buffers nothing else holds."""

import gast

from .. import ir
from ..annotations import Mark, is_marked


def accumulate_in_place(func):
    """Turn an adjoint accumulation `bx = bx + e` into `bx += e` when bx's buffer is provably
    its own: it was made by an earlier accumulation or a zero initialisation (fresh arrays),
    and nothing has read bx since (a read might have aliased it). A loop keeps that knowledge
    for the variables its body touches only by accumulating into them (bw in an RNN's
    reversed loop); anything else is forgotten at a branch or loop."""
    _in_place(func.body, set())
    return func


def _in_place(body, owned):
    for index, stmt in enumerate(body):
        if isinstance(stmt, (gast.For, gast.While)):
            kept = {v for v in owned if _only_accumulates(v, [stmt])}
            _in_place(stmt.body, set(kept))
            owned.intersection_update(kept)
            continue
        if isinstance(stmt, gast.If):
            for block in (stmt.body, stmt.orelse):
                _in_place(block, set())
            owned.clear()
            continue
        target = _accumulated(stmt)
        if target is not None:
            if target in owned:
                body[index] = gast.AugAssign(
                    target=ir.name(target, store=True), op=gast.Add(), value=stmt.value.right
                )
            owned -= ir.names_in(stmt.value.right)
            owned.add(target)
            continue
        if owned:  # (most statements, in a forward sweep, meet nothing owned)
            owned -= ir.names_in(stmt, (gast.Load, gast.Store))
        if is_marked(stmt, Mark.FRESH):
            owned.add(stmt.targets[0].id)


def _only_accumulates(var, stmts):
    """Whether every use of `var` in `stmts` is an accumulation into it."""
    for stmt in stmts:
        if isinstance(stmt, (gast.For, gast.While, gast.If)):
            header = stmt.iter if isinstance(stmt, gast.For) else stmt.test
            if var in ir.names_in(header) or not _only_accumulates(var, stmt.body + stmt.orelse):
                return False
        elif (
            _accumulated(stmt) == var
            or isinstance(stmt, gast.AugAssign)
            and stmt.target.id == var
            and var not in ir.names_in(stmt.value)
        ):
            continue
        elif var in ir.names_in(stmt) | ir.names_in(stmt, gast.Store):
            return False
    return True


def _accumulated(stmt):
    """The target of an accumulation `bx = bx + e` the reverse transform marked, else None."""
    if not is_marked(stmt, Mark.ACCUMULATION):
        return None
    target = stmt.targets[0].id
    return None if target in ir.names_in(stmt.value.right) else target
