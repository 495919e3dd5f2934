"""Plain names: a version of a variable (`h_1`, the second value of h, in straight-line
code) and its derivative's (`bh_1`) get the variable's name back wherever the two versions
never hold values at the same time (like two variables sharing a register), so a version
keeps its number only where an earlier one is still needed. Only versions of one variable
share a name: a name chosen with a clash suffix (`b_t0_`, the second-order adjoint of _t0,
beside the first-order b_t0 that the function differentiated holds) keeps it, since the
plain name means another value."""

from dataclasses import dataclass, field

import gast

from .. import ir
from .liveness import live_before

_SIMPLE = (gast.Assign, gast.AugAssign, gast.AnnAssign)
_SCOPES = (gast.FunctionDef, gast.Lambda, gast.ClassDef)


@dataclass
class Suffixed:
    """The versions a transform made: each -> the name of the variable it is a version of
    (`stands_for`, in the order to try them); a derivative's -> the variable it is the
    derivative of (`follows`: bh_1 keeps its suffix where h_1 keeps its own)."""

    stands_for: dict = field(default_factory=dict)
    follows: dict = field(default_factory=dict)


def drop_suffixes(func, suffixed):
    """Rename each name of `func` that `suffixed` holds to the name it stands for, unless
    the function's own variable of that name is live where the suffixed one is assigned or
    the other way round. Only names assigned by plain statements take part (a loop's target
    or a comprehension's is left as it is); a parameter keeps its name (a caller may pass
    it by keyword)."""
    if not suffixed.stands_for:
        return func
    names, kept = _Names(func), set()
    for name, wanted in suffixed.stands_for.items():
        if name not in names.nodes:
            continue  # (not in this function: bh_1 in a backward one, say, h_1 not)
        names.analyse()
        if name not in names.defs or name in names.params or suffixed.follows.get(name) in kept:
            kept.add(name)
            continue
        if names.may_merge(name, wanted):
            names.merge(name, wanted)
        else:
            kept.add(name)
    return func


class _Names:
    """Where each name of a function is assigned and what is live after each statement."""

    def __init__(self, func):
        self.func, self.defs = func, None  # (analysed once a name of it may be renamed)
        args = func.args
        self.params = {
            a.id
            for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
            if a is not None
        }
        self.other_stores = set()  # names assigned otherwise, or seen in a nested scope
        self.nodes = {}  # name -> its Name nodes
        for node in ir.walk(func):
            if node.__class__ is gast.Name:
                self.nodes.setdefault(node.id, []).append(node)
            elif node is not func and isinstance(node, _SCOPES):
                self.other_stores |= ir.names_in(node) | ir.names_in(node, gast.Store)

    def analyse(self):
        """Where each name is assigned (`defs`: name -> ids of the plain statements that
        do), and what is live after each statement (`after`, by its id) and at the start."""
        if self.defs is not None:
            return
        self.defs = {}
        for stmt in _statements(self.func.body):
            if isinstance(stmt, _SIMPLE):
                targets = stmt.targets if isinstance(stmt, gast.Assign) else [stmt.target]
                for target in targets:
                    for name in ir.names_in(target, gast.Store):
                        self.defs.setdefault(name, set()).add(id(stmt))
                self.other_stores |= ir.names_in(stmt.value, gast.Store)  # (a comprehension's)
            else:
                self.other_stores |= _header_stores(stmt)
        self.after = {}
        self.entry = live_before(self.func.body, set(), None, after=self.after)

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
    for part in stmt._fields:
        if part not in ("body", "orelse", "handlers", "finalbody"):
            value = getattr(stmt, part, None)
            for node in value if isinstance(value, list) else [value]:
                if isinstance(node, gast.AST):
                    found |= ir.names_in(node, gast.Store)
    return found
