"""Saved lists cut to what a specialised backward function reads.

A user function's forward function returns `result, [a, b, ...]` and its backward function
unpacks `a, b, ... = saved`. Once both are specialised, the backward one often reads fewer
of them (a shape that settled an unbroadcast is no longer asked for, a branch taken or not
whatever the value of `_cond0`); the forward one then need not save them. The two are cut in
step, and only as a pair: the list goes from the one to the other through a `Channel` (a
caller hands it on, straight or through a stack; a caller's own pair saves it at one place
of its list, where the caller's backward function takes it), and the specialise stage gives
each cut pair its own copies, so a forward function saving everything never meets a backward
one expecting less, nor the other way round. A callee's list saved in a caller's is cut with
the caller's pair: the caller's `Cut` says how (`inner`)."""

from dataclasses import dataclass, field

import gast

from .. import ir
from .dead_code import (
    drop_statements,
    drop_unread_pops,
    eliminate_dead_code,
    eliminate_dead_stacks,
)


@dataclass(frozen=True)
class Cut:
    """How a pair's saved list of `count` items is cut: to the items at `kept`, without the
    stacks at `dropped` (which the backward copy no longer pops) and what pushes onto them,
    and with the callee lists at some places cut too: `inner` holds (place, the callee's
    forward function, its Cut); a place whose callee pair saves nothing is not kept."""

    kept: tuple
    count: int
    dropped: tuple = ()
    inner: tuple = ()

    @property
    def empty(self):
        """Whether the pair saves nothing: then no list goes from one to the other (unhand)."""
        return not self.kept


@dataclass
class Channel:
    """Names of a function that carry the saved lists of one callee's calls and nothing
    else (`y, s = fwd_g(...)`, `stack.append(s)`, `s = stack.pop()`, `bwd_g(b, s)`): the
    assignments of forward calls that make the lists (`made`), the backward calls given them
    (`given`), the places of the function's own saved list where they are `taken` from (a
    backward function's unpacking) or `returned` (a forward function's return), and the
    statements of the stacks that carry them (`stacking`)."""

    made: list = field(default_factory=list)
    given: list = field(default_factory=list)
    taken: list = field(default_factory=list)
    returned: list = field(default_factory=list)
    stacking: list = field(default_factory=list)

    def pair(self):
        """The forward call and the backward call of a list handed on within the function,
        else None."""
        if len(self.made) == len(self.given) == 1 and not self.taken and not self.returned:
            return self.made[0].value, self.given[0]
        return None

    def handed_in(self):
        """(place, backward call) for a list a backward function takes from its own saved
        list and gives to one backward call, else None."""
        if len(self.taken) == len(self.given) == 1 and not self.made and not self.returned:
            return self.taken[0], self.given[0]
        return None

    def handed_out(self):
        """(place, forward call) for a list one forward call makes and a forward function
        saves at one place of its own list, else None."""
        if len(self.returned) == len(self.made) == 1 and not self.taken and not self.given:
            return self.returned[0], self.made[0].value
        return None


def channels(func, forwards):
    """func's Channels whose forward and backward calls are of one callee's pair (forwards:
    {a callee's backward function: its forward function}); names that anything else reads
    or writes carry no channel."""
    census = _Census(func, set(forwards.values()), forwards)
    for place, name in enumerate(_unpacked(func, census.named) or ()):
        census.recognise(name, ("taken", place))
    for place, item in enumerate(_returned(func, census.returns) or ()):
        if isinstance(item, gast.Name):
            census.recognise(item, ("returned", place))
    found, members = {}, {}
    for name, (kind, end) in census.ends:
        getattr(found.setdefault(census.root(name), Channel()), kind).append(end)
    for name in census.named:
        members.setdefault(census.root(name), []).append(name)
    return [
        channel
        for key, channel in found.items()
        if all(census.named[name] == census.known.get(name) for name in members[key])
        and len({forwards[call.func.id] for call in channel.given} | _names(channel.made)) <= 1
    ]


class _Census:
    """One walk of a function: how often each name is named (`named`), how often in the
    ways a channel uses it (`known`), the ends of channels by name (`ends`), the names
    joined through a stack (`root`), and the returns (`returns`)."""

    def __init__(self, func, making, forwards):
        self.parent, self.named, self.known, self.ends, self.returns = {}, {}, {}, [], []
        for node in ir.walk(func):
            if isinstance(node, gast.Name):
                self.named[node.id] = self.named.get(node.id, 0) + 1
            elif isinstance(node, gast.Assign) and len(node.targets) == 1:
                self._assignment(node, making)
            elif isinstance(node, gast.Expr) and _stack_call(node.value, "append", 1):
                pushed, stack = node.value.args[0], node.value.func.value
                if isinstance(pushed, gast.Name):
                    self.recognise(pushed, joined=stack)
                    self.recognise(stack, ("stacking", node))
            elif _backward_call(node) and node.func.id in forwards:
                self.recognise(node.args[1], ("given", node))
            elif isinstance(node, gast.Return):
                self.returns.append(node)

    def _assignment(self, node, making):
        target, value = node.targets[0], node.value
        if _forward_call(node) and value.func.id in making:
            self.recognise(target.elts[1], ("made", node))
        elif isinstance(target, gast.Name) and _stack_call(value, "pop", 0):
            self.recognise(target, joined=value.func.value)
            self.recognise(value.func.value, ("stacking", node))
        elif isinstance(target, gast.Name) and isinstance(value, gast.List) and not value.elts:
            self.recognise(target, ("stacking", node))

    def root(self, name):
        while self.parent.setdefault(name, name) != name:
            name = self.parent[name]
        return name

    def recognise(self, node, end=None, joined=None):
        self.known[node.id] = self.known.get(node.id, 0) + 1
        if end is not None:
            self.ends.append((node.id, end))
        if joined is not None:
            self.parent[self.root(node.id)] = self.root(joined.id)


def _names(assignments):
    return {stmt.value.func.id for stmt in assignments}


def unhand(func, channel):
    """Hand no list through the channel, its pair saving nothing (Cut.empty): `y, s =
    fwd_g(...)` becomes `y = fwd_g(...)`, `bwd_g(b, s)` becomes `bwd_g(b)`, and the stacks
    that carried the lists go."""
    for stmt in channel.made:
        stmt.targets = [stmt.targets[0].elts[0]]
    for call in channel.given:
        del call.args[1]
    drop_statements(func, {id(stmt) for stmt in channel.stacking})


def _stack_call(node, method, count):
    return (
        isinstance(node, gast.Call)
        and isinstance(node.func, gast.Attribute)
        and node.func.attr == method
        and isinstance(node.func.value, gast.Name)
        and len(node.args) == count
        and not node.keywords
    )


def _forward_call(stmt):
    target = stmt.targets[0]
    return (
        len(stmt.targets) == 1
        and isinstance(target, gast.Tuple)
        and len(target.elts) == 2
        and isinstance(target.elts[1], gast.Name)
        and isinstance(stmt.value, gast.Call)
        and isinstance(stmt.value.func, gast.Name)
    )


def _backward_call(node):
    return (
        isinstance(node, gast.Call)
        and isinstance(node.func, gast.Name)
        and len(node.args) == 2
        and not node.keywords
        and isinstance(node.args[1], gast.Name)
    )


def _unpacked(backward, named=None):
    """The names a backward function unpacks its saved list into (`a, b, ... = saved`, its
    first statement; the list named after only by `saved.clear()`; none if it never names
    the list, an empty one), else None. `named`: how often each name is named in it."""
    if not backward.body or not backward.args.args:
        return None
    saved, unpack = backward.args.args[-1].id, backward.body[0]
    named = _named(backward) if named is None else named
    after = named[saved] - 1  # (besides as the parameter)
    if not after:
        return []
    clears = sum(
        isinstance(stmt, gast.Expr)
        and isinstance(stmt.value, gast.Call)
        and ir.dotted(stmt.value.func) == (saved, "clear")
        for stmt in backward.body
    )
    if (
        isinstance(unpack, gast.Assign)
        and len(unpack.targets) == 1
        and isinstance(unpack.targets[0], gast.Tuple)
        and all(isinstance(t, gast.Name) for t in unpack.targets[0].elts)
        and isinstance(unpack.value, gast.Name)
        and unpack.value.id == saved
        and after == 1 + clears
    ):
        return unpack.targets[0].elts
    return None


def _named(func):
    named = {}
    for node in ir.walk(func):
        if isinstance(node, gast.Name):
            named[node.id] = named.get(node.id, 0) + 1
    return named


def _returned(forward, returns=None):
    """The items of a forward function's saved list (`return result, [a, b, ...]`, its only
    return, at its end), else None. `returns`: the Return nodes in it."""
    last = forward.body[-1] if forward.body else None
    if returns is None:
        returns = [node for node in ir.walk(forward) if isinstance(node, gast.Return)]
    if not (
        isinstance(last, gast.Return)
        and isinstance(last.value, gast.Tuple)
        and len(last.value.elts) == 2
        and isinstance(last.value.elts[1], gast.List)
        and returns == [last]
    ):
        return None
    return last.value.elts[1].elts


def keep_read(backward, inner=()):
    """Cut the backward function's `a, b, ... = saved` to the names it reads (a list it only
    pops unread values off, its pops gone, is not read), and take no list at all if it
    reads none; returns the Cut, with `inner` (the callee lists it takes and gives on,
    cut), or None when it reads them all and cuts no callee's, or does not unpack its list
    so."""
    targets = _unpacked(backward)
    if targets is None:
        return None
    popped = drop_unread_pops(backward, {t.id for t in targets})
    read = set()
    for stmt in backward.body[1:]:
        read |= ir.names_in(stmt)
    kept = tuple(i for i, t in enumerate(targets) if t.id in read)
    if targets and len(kept) == len(targets) and not inner:
        return None
    cut = Cut(kept, len(targets), tuple(i for i, t in enumerate(targets) if t.id in popped), inner)
    if kept:
        backward.body[0].targets[0].elts = [targets[i] for i in kept]
        return cut
    if targets:
        del backward.body[0]
    if cut.empty:  # (handed no list: it takes none, nor clears it)
        saved = backward.args.args.pop().id
        backward.body = [stmt for stmt in backward.body if saved not in ir.names_in(stmt)]
    return cut


def keep_saved(forward, cut):
    """Cut the forward function's `return result, [a, b, ...]` to the items the Cut keeps,
    and drop the lists it drops with what pushes onto them; False (forward then spoilt)
    unless that return is its only one and those lists go whole."""
    items = _returned(forward)
    if items is None or len(items) != cut.count:
        return False
    dropped = {items[i].id for i in cut.dropped if isinstance(items[i], gast.Name)}
    if len(dropped) != len(cut.dropped):
        return False
    forward.body[-1].value.elts[1].elts = [items[i] for i in cut.kept]
    if cut.empty:  # (its callers take no list: unhand)
        forward.body[-1].value = forward.body[-1].value.elts[0]
    eliminate_dead_code(forward)  # (what was computed only to be saved)
    while eliminate_dead_stacks(forward):
        pass
    return not any(isinstance(n, gast.Name) and n.id in dropped for n in ir.walk(forward))
