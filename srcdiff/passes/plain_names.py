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
from .liveness import LiveAfter, live_before

_SIMPLE = (gast.Assign, gast.AugAssign, gast.AnnAssign)
_SCOPES = (gast.FunctionDef, gast.Lambda, gast.ClassDef)
_SCOPE_KINDS = frozenset(_SCOPES)
_BLOCKS = ("body", "orelse", "handlers", "finalbody")


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
        self.func, self.after = func, None  # (liveness: once a name of it may be renamed)
        args = func.args
        self.params = {
            a.id
            for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
            if a is not None
        }
        self.other_stores = set()  # names assigned otherwise, or seen in a nested scope
        self.nodes = {}  # name -> its Name nodes
        self.defs = {}  # name -> ids of the plain statements assigning it
        self.reads = {}  # id of a statement, or of a test or loop header -> the names it reads
        for part in func._fields:
            if part != "body":
                self._walk(getattr(func, part, None))
        for stmt in _statements(func.body):
            self._statement(stmt)

    def _statement(self, stmt):
        """Index `stmt`, but for the blocks in it (statements of their own)."""
        if isinstance(stmt, _SCOPES):
            self.other_stores |= ir.names_in(stmt) | ir.names_in(stmt, gast.Store)
        reads = set()
        values = stmt.__dict__
        for part in stmt._fields:
            if part in _BLOCKS or values.get(part) is None:  # (None: no name in it)
                continue
            loads, stores = self._walk(values[part])
            reads |= loads
            if isinstance(stmt, _SIMPLE) and part in ("targets", "target"):
                for name in stores:
                    self.defs.setdefault(name, set()).add(id(stmt))
            else:  # (a comprehension's, a loop's target)
                self.other_stores |= stores
            if part in ("test", "iter"):
                self.reads[id(getattr(stmt, part))] = loads
        if not any(values.get(block) for block in _BLOCKS):
            self.reads[id(stmt)] = reads

    def _walk(self, value):
        """The names read and those stored below `value`, a field's node or list of them (as
        ir.names_in finds them), in one walk that also keeps its Name nodes and the names of
        a nested scope."""
        loads, stores, scopes = set(), set(), []
        nodes = self.nodes
        for name in ir.names_under(_nodes_of(value), _SCOPE_KINDS, scopes):
            nodes.setdefault(name.id, []).append(name)
            if isinstance(name.ctx, gast.Load):
                loads.add(name.id)
            elif isinstance(name.ctx, gast.Store):
                stores.add(name.id)
        for scope in scopes:
            self.other_stores |= ir.names_in(scope) | ir.names_in(scope, gast.Store)
        return loads, stores

    def analyse(self):
        """What is live after each statement (`after`) and at the start."""
        if self.after is None:
            self.after = LiveAfter()
            self.entry = live_before(self.func.body, set(), None, self._reads, self.after)

    def _reads(self, node):
        found = self.reads.get(id(node))
        return ir.names_in(node) if found is None else found

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
                if not self.after.knows(stmt) or self.after.live(other, stmt):
                    return False  # (unknown: in a block liveness does not look into)
                if stmt in self.defs.get(other, ()):
                    return False
        return True

    def merge(self, name, plain):
        for node in self.nodes.pop(name):
            node.id = plain
        self.nodes.setdefault(plain, [])
        self.after.rename(name, plain)
        if name in self.entry:
            self.entry.discard(name)
            self.entry.add(plain)
        self.defs.setdefault(plain, set()).update(self.defs.pop(name, ()))


def _statements(body):
    for stmt in body:
        yield stmt
        values = stmt.__dict__
        for block in _BLOCKS:
            inner = values.get(block)
            if inner:  # (most statements hold none: no generator for each)
                yield from _statements(inner)


def _nodes_of(value):
    """The nodes a field holds: [] or [it], or those of its list."""
    if value.__class__ is list:
        return [item for item in value if isinstance(item, gast.AST)]
    return [value] if isinstance(value, gast.AST) else []
