"""Which names may share memory just before each write into an array (for aliasing.py),
followed statement by statement as the names are bound: `a, b = b, a` exchanges what each
holds (so two fresh arrays swapped still share nothing), a name bound anew shares nothing
with what it held, and the branches of an if, and the passes of a loop, are joined.

Each name holds a set of arrays, each named by where it was made: `(id(statement), k)` for a
fresh value, or a name's own for one bound outside f's body (an argument). A value shares
the arrays of the names it views (aliasing's `viewed`: x, x[1:], x.T, ...); any other value
is a fresh array. A statement run again (in a loop) makes a new array: what names still hold
from its earlier runs is then the earlier arrays', `(id(statement), k, EARLIER)`, so that
`cur = np.zeros(n)` ... `prev = cur` leaves prev sharing nothing with the next pass's cur."""

import gast

from . import ir

EARLIER = "earlier"  # (the arrays a statement made on its earlier runs)


class MemorySharing:
    """The names that may share memory with the one a statement writes into, just before
    it; `viewed(value)` gives the names whose memory a value shares."""

    def __init__(self, body, viewed):
        self._viewed = viewed
        # id(a write) -> (the name written into, the names sharing its memory, its arrays)
        self._at = {}
        self._ever = _Held()  # what each name may hold anywhere (for a statement not seen)
        self._before = {}  # id(a write or a call statement) -> what the names hold before it
        self._block(body, _Held(), [])

    def sharing(self, stmt, name):
        """The names (`name` among them) that may share `name`'s memory just before `stmt`."""
        written, names, _ = self._at.get(id(stmt), (None, None, None))
        return set(names) if written == name else self._ever.sharing(name)

    def arguments_held(self, stmt, name):
        """The names bound before f's body ran (its arguments, the globals it reads) whose
        arrays `name` may hold just before `stmt`, a statement writing into an array or a
        bare call."""
        held = self._before.get(id(stmt), self._ever)
        return {origin for origin in held.origins(name) if isinstance(origin, str)}

    def holds_its_own(self, stmt, name):
        """Whether `name` may still hold, just before `stmt` writes into it, the array it
        held before f's body ran (an argument's: `x = x * 1.0` first makes x f's own)."""
        written, _, origins = self._at.get(id(stmt), (None, None, None))
        return written != name or name in origins

    def _block(self, body, held, breaks):
        for stmt in body:
            held = self._statement(stmt, held, breaks)
        return held

    def _statement(self, stmt, held, breaks):
        into = _written_root(stmt)
        if into is not None:
            self._at[id(stmt)] = (into, frozenset(held.sharing(into)), held.origins(into))
        if into is not None or isinstance(stmt, gast.Expr):
            self._before[id(stmt)] = held.copy()
        for call in _own_nodes(stmt):
            if _fills_list(call):  # ys.append(y): ys holds y, not a copy
                name = call.func.value.id
                self._bind(held, name, held.origins(name) | self._origins(call.args[-1], held))
        if isinstance(stmt, (gast.Assign, gast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, gast.Assign) else [stmt.target]
            held.retire(id(stmt))
            bound = [b for t in targets for b in self._bound(t, stmt.value, held, (id(stmt),))]
            for name, origins in bound:  # (all values first: a, b = b, a)
                self._bind(held, name, origins)
        elif isinstance(stmt, (gast.For, gast.While)):
            held = self._loop(stmt, held, breaks)
        elif isinstance(stmt, gast.Break):
            breaks.append(held.copy())
        elif isinstance(stmt, gast.If):
            held = self._block(stmt.body, held.copy(), breaks).join(
                self._block(stmt.orelse, held, breaks)
            )
        else:  # (with, try: each block may run, or not)
            blocks = [getattr(stmt, f, None) for f in ("body", "orelse", "finalbody")]
            blocks += [h.body for h in getattr(stmt, "handlers", ())]
            for block in blocks:
                if isinstance(block, list):
                    held = held.join(self._block(block, held.copy(), breaks))
        return held

    def _loop(self, loop, held, outer_breaks):
        """The names' arrays after a loop: before it, joined with after each pass, until
        a pass adds nothing (each name's set only grows, among finitely many arrays)."""
        breaks = []  # (the states at its breaks: after the loop too)
        while True:
            start = held.copy()
            if isinstance(loop, gast.For):
                for name, origins in self._bound(loop.target, loop.iter, start, (id(loop),)):
                    self._bind(start, name, origins)
            joined = held.join(self._block(loop.body, start, breaks))
            if joined.same_as(held):
                break
            held = joined
        for left in breaks:
            held = held.join(left)
        return self._block(loop.orelse, held, outer_breaks)

    def _bound(self, target, value, held, site):
        """[(name, the arrays it then holds)] of binding `target` to `value`."""
        if isinstance(target, gast.Starred):
            target = target.value
        if isinstance(target, gast.Name):
            return [(target.id, self._origins(value, held, site))]
        if not isinstance(target, (gast.Tuple, gast.List)):
            return []  # (an item or attribute written: not a name bound)
        if isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(target.elts):
            parts = zip(target.elts, value.elts)
        else:  # a, b = held: each may be any item of it
            parts = ((t, value) for t in target.elts)
        return [b for k, (t, v) in enumerate(parts) for b in self._bound(t, v, held, site + (k,))]

    def _origins(self, value, held, site=None):
        names = self._viewed(value)
        if not names:
            return frozenset([site or (id(value),)])
        return frozenset().union(*(held.origins(n) for n in names))

    def _bind(self, held, name, origins):
        held.bind(name, origins)
        self._ever.bind(name, self._ever.origins(name) | origins)


class _Held:
    """What each name may hold (name -> its arrays) at one point of the code, and which
    names may hold each array."""

    def __init__(self, arrays=None):
        self.arrays = arrays if arrays is not None else {}
        self.holders = {}
        for name, origins in self.arrays.items():
            for origin in origins:
                self.holders.setdefault(origin, set()).add(name)

    def copy(self):
        return _Held(dict(self.arrays))

    def origins(self, name):
        """A name bound before f's body holds its own array."""
        return self.arrays.get(name, frozenset([name]))

    def bind(self, name, origins):
        for origin in self.arrays.get(name, ()):
            self.holders[origin].discard(name)
        self.arrays[name] = origins
        for origin in origins:
            self.holders.setdefault(origin, set()).add(name)

    def retire(self, made_at):
        """The arrays the statement `made_at` (its id) made, held now, become its earlier
        ones: it is about to make new ones, which no name holds yet."""
        for name, origins in list(self.arrays.items()):
            made_here = {o for o in origins if isinstance(o, tuple) and o[0] == made_at}
            if made_here:
                earlier = {o if o[-1] == EARLIER else (*o, EARLIER) for o in made_here}
                self.bind(name, (origins - made_here) | earlier)

    def sharing(self, name):
        names = {name}
        for origin in self.origins(name):
            names |= self.holders.get(origin, set())
            if isinstance(origin, str) and origin not in self.arrays:
                names.add(origin)  # (a name that still holds its own array)
        return names

    def join(self, other):
        return _Held(
            {
                name: self.origins(name) | other.origins(name)
                for name in self.arrays.keys() | other.arrays.keys()
            }
        )

    def same_as(self, other):
        return self.arrays == other.arrays


def _written_root(stmt):
    """The name a statement writes into: y of `y[i] = v`, `t[0][i] = v`, `y += v`."""
    if isinstance(stmt, gast.AugAssign):
        target = stmt.target
    elif isinstance(stmt, gast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
        if not isinstance(target, gast.Subscript):
            return None
    else:
        return None
    while isinstance(target, (gast.Subscript, gast.Attribute)):
        target = target.value
    return target.id if isinstance(target, gast.Name) else None


def _own_nodes(stmt):
    """The nodes of a statement's own expressions (not of the blocks it holds)."""
    for field, value in gast.iter_fields(stmt):
        if field in ("body", "orelse", "finalbody", "handlers"):
            continue
        for part in value if isinstance(value, list) else [value]:
            if isinstance(part, gast.AST):
                yield from ir.walk(part)


def _fills_list(node):
    """Whether node is `name.append(v)`, `name.insert(i, v)` or `name.extend(vs)`."""
    return (
        isinstance(node, gast.Call)
        and isinstance(node.func, gast.Attribute)
        and isinstance(node.func.value, gast.Name)
        and node.args
        and not node.keywords
        and node.func.attr in ("append", "insert", "extend")
    )
