"""Which names are read later (liveness), and which expressions may be dropped (purity):
the analyses the dead-code passes share."""

from bisect import bisect_right

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
    for a liveness of some reads only (say, of values and not shapes). `after`, a LiveAfter,
    learns the names live after each statement. `exit_live`: those live after the innermost
    loop around `body` (where a `break` goes)."""
    live, touched = set(live_after), None
    for stmt in reversed(body):
        if after is not None:
            after.note(stmt, live, touched)
        touched = _live_statement(stmt, live, dead, reads, after, exit_live)
    return live


def _live_statement(stmt, live, dead, reads, after, exit_live):
    """Turns `live`, the names live after `stmt`, into those live before it, in place: in
    straight-line code the set holds about every value the adjoint sweep reads, so a copy
    per statement would make the pass quadratic. Returns the names it may have added or
    removed (None: any)."""
    if stmt.__class__ is gast.Assign:
        targets = stmt.targets
        if len(targets) == 1 and targets[0].__class__ is gast.Name:  # (the commonest, in short)
            name = targets[0].id
            if dead is not None and name not in live:
                dead.add(id(stmt))
            live.discard(name)
            read = reads(stmt)
            live.update(read)
            return read | {name} if after is not None else None  # (only `after` asks)
        plain = [t.id for t in stmt.targets if isinstance(t, gast.Name)]
        if dead is not None and len(plain) == len(stmt.targets) and live.isdisjoint(plain):
            dead.add(id(stmt))
        stored = set()
        for target in stmt.targets:
            if target.__class__ is gast.Name:  # (the commonest: no walk)
                if isinstance(target.ctx, gast.Store):
                    stored.add(target.id)
            else:
                stored |= ir.names_in(target, gast.Store)
        live.difference_update(stored)
        read = reads(stmt)
        live.update(read)
        return stored | read
    if isinstance(stmt, gast.Return):
        live.clear()
        live.update(reads(stmt))
        return None
    if isinstance(stmt, gast.AugAssign):
        read = reads(stmt) | ir.names_in(stmt.target, gast.Store)
        live.update(read)
        return read
    if isinstance(stmt, gast.Delete):  # needs the name bound: a use, for what precedes it
        read = ir.names_in(stmt, gast.Del)
        live.update(read)
        return read
    if isinstance(stmt, gast.Break):
        if exit_live is None:
            return ()
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
        read = reads(stmt)
        live.update(read)
        return read
    return None


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


class LiveAfter:
    """The names live after each statement, for live_before to fill in. Kept as each name's
    history over live_before's backward walk (the times it joins or leaves the live set),
    not as a set per statement: in straight-line code about every value the adjoint sweep
    reads is live over most of the function, and copies of those sets made the passes that
    ask quadratic in time and memory."""

    def __init__(self):
        self._times = {}  # id(statement) -> when the walk met it (1, 2, ...)
        self._flips = {}  # name -> the times it joined or left the live set, ascending
        self._shown = set()  # what the live set held at the latest time

    def note(self, stmt, live, touched):
        """`live` holds the names live after `stmt`; since the statement noted last, only
        those `touched` may have changed (None: any)."""
        time = len(self._times) + 1
        self._times[id(stmt)] = time
        shown = self._shown
        changed = shown.symmetric_difference(live) if touched is None else touched
        for name in changed:
            if (name in live) != (name in shown):
                self._flips.setdefault(name, []).append(time)
                if name in live:
                    shown.add(name)
                else:
                    shown.discard(name)

    def knows(self, stmt_id):
        """Whether the statement of id `stmt_id` was noted (live_before does not look into
        every block)."""
        return stmt_id in self._times

    def live(self, name, stmt_id):
        """Whether `name` is live after the (noted) statement of id `stmt_id`."""
        flips = self._flips.get(name)
        return flips is not None and bisect_right(flips, self._times[stmt_id]) % 2 == 1

    def among(self, names, stmt_id):
        """Those of `names` live after the statement of id `stmt_id` (none if not noted)."""
        if stmt_id not in self._times:
            return set()
        return {n for n in names if self.live(n, stmt_id)}

    def rename(self, name, other):
        """`name` now called `other`: live wherever either was."""
        flips = self._flips.pop(name, None)
        if flips:
            self._flips[other] = _union(flips, self._flips.get(other, []))
        if name in self._shown:
            self._shown.discard(name)
            self._shown.add(other)


def _union(one, other):
    """The flips of a name live wherever one of two histories says so."""
    if not other:
        return one
    events = sorted([(t, 0) for t in one] + [(t, 1) for t in other])
    inside, merged = [False, False], []
    for time, which in events:
        was = inside[0] or inside[1]
        inside[which] = not inside[which]
        if (inside[0] or inside[1]) != was:
            if merged and merged[-1] == time:
                merged.pop()  # (one left as the other joined: no gap)
            else:
                merged.append(time)
    return merged
