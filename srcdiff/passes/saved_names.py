"""Saved names: the backward function unpacks each saved value under the name the forward
function saved it by, so the pair reads as one piece of code."""

import gast

from .. import ir


def unpack_as_saved(forward, backward):
    """Rename the targets of the backward function's `(a, b, ...) = saved` to the names the
    forward function's `return result, [a, b, ...]` lists: the passes run on each function
    apart, and copy propagation in the forward one (`_cond0 = training` gone, `training`
    saved) changes what it saves after the backward one's names were chosen. A name the
    backward function already reads or writes for something else is left as it is."""
    pair = _saved_pair(forward, backward)
    if pair is None:
        return
    kept, targets = pair
    names = ir.name_nodes(backward)
    taken = {n.id for n in names} | {a.id for a in backward.args.args}
    renames = {}
    for target, value in zip(targets, kept):
        saved_as = _saved_name(value)
        if saved_as is not None and saved_as != target.id and saved_as not in taken:
            renames[target.id] = saved_as
            taken.add(saved_as)
    for node in names if renames else ():
        if node.id in renames:
            node.id = renames[node.id]


def drop_unread_saved(forward, backward):
    """Save only what the backward function reads: the passes may have left a saved value
    unread (once a dict's adjoint is one display, the backward function no longer reads the
    dict its keys were added at). Whether any was dropped."""
    pair = _saved_pair(forward, backward)
    if pair is None:
        return False
    kept, targets = pair
    read = set().union(*(ir.names_in(stmt) for stmt in backward.body[2:]))
    unread = [k for k, target in enumerate(targets) if target.id not in read]
    for k in reversed(unread):
        del kept[k], targets[k]
    if not targets:  # (nothing saved: no unpacking, as the reverse sweep writes it)
        del backward.body[:2]
    return bool(unread)


def _saved_pair(forward, backward):
    """(the forward function's list of saved values, the backward function's targets that
    unpack it), or None where they are not `return result, [...]` and `(...) = saved`
    followed by `saved.clear()`."""
    returned, unpack = (
        forward.body[-1] if forward.body else None,
        backward.body[0] if backward.body else None,
    )
    if not (
        isinstance(returned, gast.Return)
        and isinstance(returned.value, gast.Tuple)
        and len(returned.value.elts) == 2
        and isinstance(returned.value.elts[1], gast.List)
        and isinstance(unpack, gast.Assign)
        and isinstance(unpack.targets[0], gast.Tuple)
        and all(isinstance(target, gast.Name) for target in unpack.targets[0].elts)
        and len(backward.body) > 1
        and isinstance(backward.body[1], gast.Expr)
        and ir.dotted(getattr(backward.body[1].value, "func", None))
        == (getattr(unpack.value, "id", None), "clear")
    ):
        return None
    kept, targets = returned.value.elts[1].elts, unpack.targets[0].elts
    return (kept, targets) if len(kept) == len(targets) else None


def _saved_name(value):
    """The name a saved item is the value of, or (runtime.shape_of(x)) the shape of."""
    if (
        isinstance(value, gast.Call)
        and ir.dotted(value.func) == ("runtime", "shape_of")
        and len(value.args) == 1
    ):
        value = value.args[0]
    return value.id if isinstance(value, gast.Name) else None
