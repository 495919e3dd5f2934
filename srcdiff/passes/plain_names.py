"""Plain names: a name the transform chose with a clash suffix (`b_t0_`, wanting `b_t0`,
which the function it differentiates already uses) gets the name it wanted back wherever
the two never hold values at the same time, so the suffix is left only on a real clash."""

import gast

from .. import ir
from .liveness import live_before

_SIMPLE = (gast.Assign, gast.AugAssign, gast.AnnAssign)
_SCOPES = (gast.FunctionDef, gast.Lambda, gast.ClassDef)


def drop_clash_suffixes(func, stands_for):
    """Rename each name of `func` in `stands_for` (a suffixed name -> the name it wanted) to
    the least suffixed form of that name that no value live at the same time holds: the
    wanted name itself, unless the function's own variable of that name is live where the
    suffixed one is assigned or the other way round (like two variables sharing a
    register). Only names assigned by plain statements take part: a loop's target or a
    comprehension's is left as it is."""
    suffixed = [name for name in stands_for if name != stands_for[name]]
    if not suffixed:
        return func
    names = _Names(func)
    for name in suffixed:
        if name not in names.defs or name in names.params:
            continue  # (a parameter keeps its name: a caller may pass it by keyword)
        wanted = stands_for[name]
        for plain in (wanted + "_" * k for k in range(len(name) - len(wanted))):
            if names.may_merge(name, plain):
                names.merge(name, plain)
                break
    return func


class _Names:
    """Where each name of a function is assigned and what is live after each statement."""

    def __init__(self, func):
        self.func = func
        self.after = {}
        self.entry = live_before(func.body, set(), None, after=self.after)
        args = func.args
        self.params = {
            a.id
            for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
            if a is not None
        }
        self.defs = {}  # name -> ids of the plain statements assigning it
        self.other_stores = set()  # names assigned otherwise, or seen in a nested scope
        self.nodes = {}  # name -> its Name nodes
        for node in ir.walk(func):
            if isinstance(node, gast.Name):
                self.nodes.setdefault(node.id, []).append(node)
            elif node is not func and isinstance(node, _SCOPES):
                self.other_stores |= ir.names_in(node) | ir.names_in(node, gast.Store)
        for stmt in _statements(func.body):
            if isinstance(stmt, _SIMPLE):
                targets = stmt.targets if isinstance(stmt, gast.Assign) else [stmt.target]
                for name in set().union(*(ir.names_in(t, gast.Store) for t in targets)):
                    self.defs.setdefault(name, set()).add(id(stmt))
                self.other_stores |= ir.names_in(stmt.value, gast.Store)  # (a comprehension's)
            else:
                self.other_stores |= _header_stores(stmt)

    def bound(self, name):
        return name in self.defs or name in self.params

    def may_merge(self, name, plain):
        """Whether `name` may be renamed `plain`: plain is a local variable of the function
        (or no name in it) that never holds a value where `name` is assigned or live, and
        neither is assigned otherwise than by a plain statement."""
        if plain not in self.nodes:
            return True
        if not self.bound(plain) or {name, plain} & self.other_stores:
            return False
        if (self.entry & {name, plain}) - self.params:
            return False  # (one read before any assignment: a global, or maybe unbound)
        for one, other in ((name, plain), (plain, name)):
            for stmt in self.defs.get(one, ()):
                live = self.after.get(stmt)
                if live is None or other in live or stmt in self.defs.get(other, ()):
                    return False  # (None: in a block liveness does not look into)
        return True

    def merge(self, name, plain):
        for node in self.nodes.pop(name):
            node.id = plain
        self.nodes.setdefault(plain, [])
        for live in self.after.values():
            if name in live:
                live.discard(name)
                live.add(plain)
        if name in self.entry:
            self.entry.discard(name)
            self.entry.add(plain)
        self.defs.setdefault(plain, set()).update(self.defs.pop(name, ()))


def _statements(body):
    for stmt in body:
        yield stmt
        for block in ("body", "orelse", "handlers", "finalbody"):
            yield from _statements(getattr(stmt, block, ()))


def _header_stores(stmt):
    """The names a compound statement assigns outside its blocks (a loop's target)."""
    found = set()
    for field in stmt._fields:
        if field not in ("body", "orelse", "handlers", "finalbody"):
            value = getattr(stmt, field, None)
            for node in value if isinstance(value, list) else [value]:
                if isinstance(node, gast.AST):
                    found |= ir.names_in(node, gast.Store)
    return found
