"""Saved lists cut to what a specialised backward function reads.

A user function's forward function returns `result, [a, b, ...]` and its backward function
unpacks `a, b, ... = saved`. Once both are specialised, the backward one often reads fewer
of them (a shape that settled an unbroadcast is no longer asked for); the forward one then
need not save them. The two are cut in step, and only as a pair: the caller hands the list
from the one straight to the other (`paired_calls`), and the specialise stage gives each cut
pair its own copies, so a forward function saving everything never meets a backward one
expecting less, nor the other way round."""

import gast

from .. import ir
from .dead_code import drop_unread_pops, eliminate_dead_code, eliminate_dead_stacks


def paired_calls(func, forward_of):
    """{id(forward call): backward call} for each `y, s = fwd_g(...)` of func whose list s
    func reads once only, as the last argument of `bwd_g(b, s)` of the same callee: there the
    list goes from one to the other untouched. `forward_of(name)` is the name of the forward
    function that a backward function `name` belongs with (None if it is none)."""
    loads, stores, forwards, backwards = {}, {}, {}, {}
    for node in ir.walk(func):
        if isinstance(node, gast.Name):
            counts = stores if isinstance(node.ctx, gast.Store) else loads
            counts[node.id] = counts.get(node.id, 0) + 1
        elif isinstance(node, gast.Assign) and _forward_call(node):
            forwards[node.targets[0].elts[1].id] = node.value
        elif (
            isinstance(node, gast.Call)
            and isinstance(node.func, gast.Name)
            and len(node.args) == 2
            and not node.keywords
            and isinstance(node.args[1], gast.Name)
        ):
            backwards.setdefault(node.args[1].id, []).append(node)
    pairs = {}
    for saved, forward in forwards.items():
        found = backwards.get(saved, ())
        if (
            len(found) == 1
            and loads.get(saved) == 1
            and stores.get(saved) == 1
            and forward_of(found[0].func.id) == forward.func.id
        ):
            pairs[id(forward)] = found[0]
    return pairs


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


def keep_read(backward):
    """Cut the backward function's `a, b, ... = saved` to the names it reads (a list it only
    pops unread values off, its pops gone, is not read); returns the positions kept, how
    many there were and the positions of the lists popped so, or None when it reads them
    all or does not unpack its list so."""
    saved = backward.args.args[-1].id
    unpack = backward.body[0] if backward.body else None
    if not (
        isinstance(unpack, gast.Assign)
        and isinstance(unpack.targets[0], gast.Tuple)
        and all(isinstance(t, gast.Name) for t in unpack.targets[0].elts)
        and isinstance(unpack.value, gast.Name)
        and unpack.value.id == saved
        and _saved_read_only_to_clear(backward.body[1:], saved)
    ):
        return None
    targets = unpack.targets[0].elts
    popped = drop_unread_pops(backward, {t.id for t in targets})
    read = set()
    for stmt in backward.body[1:]:
        read |= ir.names_in(stmt)
    kept = tuple(i for i, t in enumerate(targets) if t.id in read)
    if len(kept) == len(targets):
        return None
    if kept:
        unpack.targets[0].elts = [targets[i] for i in kept]
    else:
        del backward.body[0]
    return kept, len(targets), tuple(i for i, t in enumerate(targets) if t.id in popped)


def _saved_read_only_to_clear(body, saved):
    """Whether the list is read after its unpacking only by `saved.clear()`."""
    for stmt in body:
        for node in ir.walk(stmt):
            if isinstance(node, gast.Name) and node.id == saved:
                if not (
                    isinstance(stmt, gast.Expr)
                    and ir.dotted(stmt.value.func if isinstance(stmt.value, gast.Call) else None)
                    == (saved, "clear")
                ):
                    return False
    return True


def keep_saved(forward, kept, count, stacks):
    """Cut the forward function's `return result, [a, b, ...]` (`count` items) to the items
    at `kept`, and drop the lists at positions `stacks` (which the backward function no
    longer pops) with what pushes onto them; False (forward then spoilt) unless that return
    is its only one and those lists go whole."""
    returns = [node for node in ir.walk(forward) if isinstance(node, gast.Return)]
    last = forward.body[-1] if forward.body else None
    if not (
        returns == [last]
        and isinstance(last.value, gast.Tuple)
        and len(last.value.elts) == 2
        and isinstance(last.value.elts[1], gast.List)
        and len(last.value.elts[1].elts) == count
    ):
        return False
    items = last.value.elts[1].elts
    dropped = {items[i].id for i in stacks if isinstance(items[i], gast.Name)}
    if len(dropped) != len(stacks):
        return False
    last.value.elts[1].elts = [items[i] for i in kept]
    eliminate_dead_code(forward)  # (what was computed only to be saved)
    while eliminate_dead_stacks(forward):
        pass
    return not any(isinstance(n, gast.Name) and n.id in dropped for n in ir.walk(forward))
