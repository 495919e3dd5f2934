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
        live = live_statement(stmt, live, dead, reads, after, exit_live)
    return live


def live_statement(stmt, live, dead, reads=ir.names_in, after=None, exit_live=None):
    """The names live before `stmt`, given those live after it: `live`, a set only the
    caller holds, which is updated in place (a copy per statement would make a long
    function's liveness quadratic: a straight line keeps most of its names live)."""
    if after is not None:
        after[id(stmt)] = set(live)
    if isinstance(stmt, gast.Assign):
        plain = [t.id for t in stmt.targets if isinstance(t, gast.Name)]
        if dead is not None and len(plain) == len(stmt.targets) and not set(plain) & live:
            dead.add(id(stmt))
        for target in stmt.targets:
            if target.__class__ is gast.Name and target.ctx.__class__ is gast.Store:  # (fast)
                live.discard(target.id)
            else:
                live -= ir.names_in(target, gast.Store)
        live |= reads(stmt)
        return live
    if isinstance(stmt, gast.Return):
        return set(reads(stmt))
    if isinstance(stmt, gast.AugAssign):
        live |= reads(stmt)
        live |= ir.names_in(stmt.target, gast.Store)
        return live
    if isinstance(stmt, gast.Delete):  # needs the name bound: a use, for what precedes it
        live |= ir.names_in(stmt, gast.Del)
        return live
    if isinstance(stmt, gast.Break):
        return set(live if exit_live is None else exit_live)
    if isinstance(stmt, gast.If):
        return (reads(stmt.test) | live_before(stmt.body, live, dead, reads, after, exit_live)
                | live_before(stmt.orelse, live, dead, reads, after, exit_live))
    if isinstance(stmt, (gast.For, gast.While)):
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
        return head | live_before(stmt.orelse, live, dead, reads, after, exit_live)
    live |= reads(stmt)
    return live
