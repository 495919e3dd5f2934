"""In-place accumulation: `bx = bx + e` becomes `bx += e` into buffers nothing else holds."""

import gast

from .. import ir
from ..annotations import Mark, is_marked
from ..primitives import registry


def accumulate_in_place(func):
    """Turn an adjoint accumulation `bx = bx + e` into `bx += e` when bx's buffer is provably
    its own: it was made by an earlier accumulation, a zero initialisation, an operator or
    a call that makes a new array (`bx = -by * np.sin(x)`: fresh arrays, or numbers, which
    `+=` binds anew just as `+` does), and nothing has read bx since (a read might have
    aliased it). So the contributions after a new first value all read `bx += e`. A loop
    keeps that knowledge for the variables its body touches only by accumulating into them
    (bw in an RNN's reversed loop); anything else is forgotten at a branch or loop."""
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
        if is_marked(stmt, Mark.FRESH) or _made_new(stmt):
            owned.add(stmt.targets[0].id)


def _made_new(stmt):
    """Whether `stmt` assigns one name a value made anew, reading no value of that name: an
    operator's (numpy makes a new array for every `a * b` and `-a`) or a call's whose
    record says it always makes a new array (`runtime.matmul_grad`, `np.exp`)."""
    if not (
        isinstance(stmt, gast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], gast.Name)
        and stmt.targets[0].id not in ir.names_in(stmt.value)
    ):
        return False
    value = stmt.value
    if isinstance(value, (gast.BinOp, gast.UnaryOp)):
        return True
    path = ir.dotted(value.func) if isinstance(value, gast.Call) else None
    called = registry.resolve(path) if path else None
    record = registry.find(called) if callable(called) else None
    return record is not None and record.fresh and not any(k.arg == "copy" for k in value.keywords)


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
