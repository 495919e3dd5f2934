"""Which names are read later (liveness), and which expressions may be dropped (purity):
the analyses the dead-code passes share."""

import gast

from .. import ir
from ..primitives import registry


def pure(node):
    """True when evaluating `node` has no side effect, so an unused result may be dropped: it
    calls only pure primitives (their records say) and the emitted module's own functions
    are not called."""
    for n in ir.walk(node):
        if isinstance(n, gast.Call):
            path = ir.dotted(n.func)
            if path is None or not registry.is_pure(path):
                return False
        elif isinstance(n, (gast.Yield, gast.YieldFrom, gast.Await, gast.NamedExpr)):
            return False
    return True


def live_before(body, live_after, dead, reads=ir.names_in, after=None, exit_live=None):
    """The names live at the start of `body` given those live after it; adds to `dead` the
    ids of assignments to plain names that nothing reads afterwards (None: just compute).
    `reads(node)` gives the names a statement or expression reads: narrower than all of them
    for a liveness of some reads only (say, of values and not shapes). `after`, a dict, gets
    the names live after each statement, by the statement's id. `exit_live`: those live
    after the innermost loop around `body` (where a `break` goes)."""
    live = set(live_after)
    for stmt in reversed(body):
        _live_statement(stmt, live, dead, reads, after, exit_live)
    return live


def _live_statement(stmt, live, dead, reads, after, exit_live):
    """Turns `live`, the names live after `stmt`, into those live before it, in place: in
    straight-line code the set holds about every value the adjoint sweep reads, so a copy
    per statement would make the pass quadratic."""
    if after is not None:
        after[id(stmt)] = set(live)
    if isinstance(stmt, gast.Assign):
        plain = [t.id for t in stmt.targets if isinstance(t, gast.Name)]
        if dead is not None and len(plain) == len(stmt.targets) and live.isdisjoint(plain):
            dead.add(id(stmt))
        for target in stmt.targets:
            if target.__class__ is gast.Name:  # (the commonest: no walk)
                if isinstance(target.ctx, gast.Store):
                    live.discard(target.id)
            else:
                live.difference_update(ir.names_in(target, gast.Store))
        live.update(reads(stmt))
    elif isinstance(stmt, gast.Return):
        live.clear()
        live.update(reads(stmt))
    elif isinstance(stmt, gast.AugAssign):
        live.update(reads(stmt), ir.names_in(stmt.target, gast.Store))
    elif isinstance(stmt, gast.Delete):  # needs the name bound: a use, for what precedes it
        live.update(ir.names_in(stmt, gast.Del))
    elif isinstance(stmt, gast.Break):
        if exit_live is not None:
            live.clear()
            live.update(exit_live)
    elif isinstance(stmt, gast.If):
        body_in = live_before(stmt.body, live, dead, reads, after, exit_live)
        orelse_in = live_before(stmt.orelse, live, dead, reads, after, exit_live)
        live.clear()
        live.update(reads(stmt.test), body_in, orelse_in)
    elif isinstance(stmt, (gast.For, gast.While)):
        _live_loop(stmt, live, dead, reads, after, exit_live)
    else:
        live.update(reads(stmt))


def _live_loop(stmt, live, dead, reads, after, exit_live):
    header = stmt.iter if isinstance(stmt, gast.For) else stmt.test
    target = ir.names_in(stmt.target, gast.Store) if isinstance(stmt, gast.For) else set()
    head = set(live)  # live where each iteration starts (and where the loop exits)
    while True:
        body_in = live_before(stmt.body, head, None, reads, exit_live=live) - target
        grown = head | body_in | reads(header)
        if grown == head:
            break
        head = grown
    live_before(stmt.body, head, dead, reads, after, exit_live=live)
    orelse_in = live_before(stmt.orelse, live, dead, reads, after, exit_live)
    live.clear()
    live.update(head, orelse_in)
