"""Before ANF (containers.py): a list f makes itself, changed in place by its methods or `del`,
bound to a new list instead, which srcdiff follows:

    xs.reverse()        ->   xs = [*xs[::-1]]
    xs.insert(k, v)     ->   xs = [*xs[:k], v, *xs[k:]]      (as insert, for any k)
    xs.extend(vs)       ->   xs = [*xs, *vs]         (xs += vs too; xs *= 2: [*xs[:], *xs[:]])
    xs.clear()          ->   xs = []
    xs.sort(key=f)      ->   xs = [*sorted(xs, key=f)]
    del xs[k]           ->   _at0 = range(len(xs))[k]; xs = [*xs[:_at0], *xs[_at0 + 1:]]
    v = xs.pop(k)       ->   (the same) v = xs[_at0]; xs = [*xs[:_at0], *xs[_at0 + 1:]]
    xs.remove(v)        ->   _at0 = runtime.removed_position(xs, v); (as del xs[_at0])
    del xs[1:3]         ->   xs = [*xs[:1], *xs[3:]]       (bounds that cannot cross)
    xs[1:3] = vs        ->   xs = [*xs[:1], *vs, *xs[3:]]  (as del, for any bounds; step one)
    del xs[a:b]         ->   _at0 = range(len(xs))[a:b]; xs = [*xs[:_at0.start],
                                                               *xs[_at0.start + len(_at0):]]
    del xs[a:b:c]       ->   _at0 = range(len(xs))[a:b:c]; xs = [xs[_k] for _k in
                                                               range(len(xs)) if _k not in _at0]

`xs.pop()` with no index is a stack's, which srcdiff follows as it is, but for a list
changed in one of these ways too (then as xs.pop(-1)). Only where no other
name can hold the list while it changes (container_sharing.unshared): `a = xs; xs.reverse()`
reverses a too, and stays an error.
"""

import gast

from . import ir
from .container_joins import position, written_locals
from .container_sharing import (
    changed,
    list_change,
    nested_write_into,
    replaces_slice,
    unshared,
)


def rebind_list_changes(func, is_varied, resolve, fresh, useful=None):
    """Rebind each change in place of a differentiated list f makes itself (and an output
    reads: `useful` names, None for all) that no other name can hold. Whether any was."""
    found = written_locals(func, resolve, _not_by_stack_pops)
    lists = {
        n
        for n, kind in found.items()
        if kind is gast.List and unshared(func, n, resolve) and (useful is None or n in useful)
    }
    # (a tuple's += and *= make a new tuple, which no other name sees: rebound as written)
    tuples = {n for n, kind in found.items() if kind is gast.Tuple}
    if not lists and not tuples:
        return False
    changes = {
        id(s)
        for s in ir.walk(func)
        if (
            list_change(s) in lists
            or list_change(s) in tuples
            and isinstance(s, gast.AugAssign)
            and (useful is None or list_change(s) in useful)
        )
        and (is_varied(ir.name(list_change(s))) or is_varied(s))
    }
    _replace(func, changes, lambda stmt: _rebound(stmt, fresh, tuples))
    return bool(changes)


def copy_written_rows(func, is_varied, resolve, fresh, useful=None):
    """`m[i][j] = v` as a new row m[i] holding v, where m is a list f makes of new rows (row
    displays), changed no other way, that no other name can hold, nor any of its rows
    (container_sharing.unshared with `rows`). Whether any was."""
    lists = {
        n
        for n, kind in written_locals(func, resolve, nested_write_into).items()
        if kind is gast.List
        and (useful is None or n in useful)
        and _rows_made_here(func, n)
        and unshared(func, n, resolve, rows=True)
    }
    if not lists:
        return False
    writes = [s for s in ir.walk(func) if nested_write_into(s) in lists]
    varied = {nested_write_into(s) for s in writes if is_varied(s.value) or is_varied(s.targets[0])}
    # (all of a list's at once: once one is, the list is no display of row displays)
    writes = {id(s) for s in writes if nested_write_into(s) in varied}
    _replace(func, writes, lambda stmt: _row_written(stmt, fresh))
    return bool(writes)


def _rows_made_here(func, name):
    """Whether `name` is bound only to displays of row displays (`[[a, b], [c, d]]`) and
    changed only by writes into its rows: then no row is any other list's."""
    for node in ir.walk(func):
        if isinstance(node, gast.Assign) and any(
            isinstance(t, gast.Name) and t.id == name for t in node.targets
        ):
            if not isinstance(node.value, gast.List) or not all(
                isinstance(e, gast.List) for e in node.value.elts
            ):
                return False
        if changed(node) == name and nested_write_into(node) != name:
            return False
        if (
            isinstance(node, gast.Attribute)
            and isinstance(node.value, gast.Name)
            and node.value.id == name
        ):
            return False  # (m.append(row): a row another name may hold)
    return True


def _row_written(stmt, fresh):
    """`m[i][j] = v` as `m[i] = [*m[i][:j], v, *m[i][j + 1:]]` (j counted from the start and
    checked as for any item write)."""
    row_at = stmt.targets[0].value
    out = []
    if not isinstance(row_at.slice, (gast.Constant, gast.Name)):  # (evaluated once)
        held = fresh("_at")
        out.append(ir.assign(held, row_at.slice))
        row_at = gast.Subscript(value=row_at.value, slice=ir.name(held), ctx=gast.Load())
    checked, at = position(ir.copy_tree(row_at), stmt.targets[0].slice, fresh)
    after = gast.BinOp(left=ir.copy_tree(at), op=gast.Add(), right=ir.const(1))
    parts = [_starred(row_at, None, at), stmt.value, _starred(row_at, after, None)]
    put = gast.Subscript(value=row_at.value, slice=ir.copy_tree(row_at.slice), ctx=gast.Store())
    return out + checked + [ir.assign(put, gast.List(elts=parts, ctx=gast.Load()))]


def _replace(func, ids, rewritten):
    """Replace each statement of `func` whose id is in `ids` by the statements `rewritten`
    gives for it."""
    for node in ir.walk(func) if ids else ():
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list) and any(id(s) in ids for s in block):
                block[:] = [
                    gast.copy_location(new, s)
                    for s in block
                    for new in (rewritten(s) if id(s) in ids else [s])
                ]


def _not_by_stack_pops(stmt):
    """The name of the list `stmt` changes in place, but by `xs.pop()` (a stack's)."""
    call = getattr(stmt, "value", None)
    if isinstance(call, gast.Call) and not call.args and getattr(call.func, "attr", "") == "pop":
        return None
    return list_change(stmt)


def _rebound(stmt, fresh, tuples):
    """The statements binding the list `stmt` changes to the list it changes it into (of
    `tuples`, names of tuples, the tuple `+=` or `*=` makes)."""
    name = list_change(stmt)
    if isinstance(stmt, gast.AugAssign):  # xs += vs, xs *= 2
        parts = (
            [_starred(name, None, None), gast.Starred(value=stmt.value, ctx=gast.Load())]
            if isinstance(stmt.op, gast.Add)
            else [_starred(name, None, None) for _ in range(ir.constant_int(stmt.value))]
        )
        display = gast.Tuple if name in tuples else gast.List
        return [ir.assign(name, display(elts=parts, ctx=gast.Load()))]
    if replaces_slice(stmt):  # xs[a:b] = vs
        return _without_slice(name, stmt.targets[0].slice, fresh, stmt.value)
    if isinstance(stmt, gast.Delete):
        if isinstance(stmt.targets[0].slice, gast.Slice):
            return _without_slice(name, stmt.targets[0].slice, fresh)
        out, at = position(name, stmt.targets[0].slice, fresh)
        return out + [_without(name, at)]
    method, args = stmt.value.func.attr, stmt.value.args
    if method == "remove":  # (the first item that is, or equals, the value; else ValueError)
        at = fresh("_at")
        taken = ir.call(ir.attr("runtime", "removed_position"), ir.name(name), *args)
        return [ir.assign(at, taken), _without(name, ir.name(at))]
    if method == "pop":
        out, at = position(name, args[0] if args else ir.const(-1), fresh)
        if not isinstance(stmt, gast.Assign):
            return out + [_without(name, at)]
        read = gast.Subscript(value=ir.name(name), slice=at, ctx=gast.Load())
        taken = [gast.Assign(targets=stmt.targets, value=read, type_comment=None)]
        if name not in {n for t in stmt.targets for n in ir.names_in(t)}:
            return out + taken + [_without(name, at)]  # v = xs.pop(k): the item, then the rest
        held = fresh("_popped")  # (xs[0] = xs.pop(k) writes into the list popped from)
        taken[0].value, read = ir.name(held), ir.assign(held, read)
        return out + [read, _without(name, at)] + taken
    out, parts = [], []
    if method == "reverse":
        parts = [_starred(name, None, None, ir.const(-1))]
    elif method == "insert":
        at, value = args
        if not isinstance(at, (gast.Constant, gast.Name)):  # (evaluated once, before value)
            held = fresh("_at")
            out, at = [ir.assign(held, at)], ir.name(held)
        parts = [_starred(name, None, at), value, _starred(name, ir.copy_tree(at), None)]
    elif method == "sort":
        sort = gast.Call(func=ir.name("sorted"), args=[ir.name(name)], keywords=stmt.value.keywords)
        parts = [gast.Starred(value=sort, ctx=gast.Load())]  # (a display: a list f makes)
    elif method == "extend":
        parts = [gast.Starred(value=v, ctx=gast.Load()) for v in (ir.name(name), args[0])]
    return out + [ir.assign(name, gast.List(elts=parts, ctx=gast.Load()))]  # (clear: [])


def _without(name, at):
    """`name = [*name[:at], *name[at + 1:]]`: the list without its item at `at`."""
    after = gast.BinOp(left=ir.copy_tree(at), op=gast.Add(), right=ir.const(1))
    parts = [_starred(name, None, at), _starred(name, after, None)]
    return ir.assign(name, gast.List(elts=parts, ctx=gast.Load()))


def _without_slice(name, cut, fresh, replaced_by=None):
    """`del xs[a:b]` as `xs = [*xs[:a], *xs[b:]]` where no bound can pass the other (a bound
    left out, or two constants of one sign in order), else as `_at0 = range(len(xs))[a:b]`
    and `xs` without the items of that range; with a step, as the items of no position in
    it. With `replaced_by`, the items of that iterable stand where the slice was
    (`xs[a:b] = vs`, of step one)."""
    lower, upper = cut.lower, cut.upper
    put = [] if replaced_by is None else [gast.Starred(value=replaced_by, ctx=gast.Load())]
    if not _is_one(cut.step):
        gone = fresh("_at")
        k = fresh("_k")
        keep = gast.Compare(left=ir.name(k), ops=[gast.NotIn()], comparators=[ir.name(gone)])
        kept = gast.ListComp(
            elt=gast.Subscript(value=ir.name(name), slice=ir.name(k), ctx=gast.Load()),
            generators=[
                gast.comprehension(
                    target=ir.name(k, store=True),
                    iter=ir.call("range", ir.call("len", ir.name(name))),
                    ifs=[keep],
                    is_async=0,
                )
            ],
        )
        everywhere = ir.call("range", ir.call("len", ir.name(name)))
        at = gast.Subscript(value=everywhere, slice=cut, ctx=gast.Load())
        return [ir.assign(gone, at), ir.assign(name, kept)]
    if lower is None or upper is None or _in_order(lower, upper):
        parts = [_starred(name, None, lower)] if lower is not None else []
        parts += put + ([_starred(name, upper, None)] if upper is not None else [])
        return [ir.assign(name, gast.List(elts=parts, ctx=gast.Load()))]
    gone = fresh("_at")
    everywhere = ir.call("range", ir.call("len", ir.name(name)))
    at = gast.Subscript(value=everywhere, slice=gast.Slice(lower, upper, None), ctx=gast.Load())
    start = ir.attr(ir.name(gone), "start")
    end = gast.BinOp(left=ir.copy_tree(start), op=gast.Add(), right=ir.call("len", ir.name(gone)))
    parts = [_starred(name, None, start), *put, _starred(name, end, None)]
    return [ir.assign(gone, at), ir.assign(name, gast.List(elts=parts, ctx=gast.Load()))]


def _is_one(step):
    return step is None or isinstance(step, gast.Constant) and step.value == 1


def _in_order(lower, upper):
    """Whether two bounds are int constants of one sign, the first no greater: then
    `xs[:a] + xs[b:]` leaves out exactly `xs[a:b]`, for a list of any length."""
    a, b = ir.constant_int(lower), ir.constant_int(upper)
    return a is not None and b is not None and (a < 0) == (b < 0) and a <= b


def _starred(seq, lower, upper, step=None):
    """`*seq[lower:upper:step]` (seq a name, or an expression copied)."""
    return gast.Starred(
        value=gast.Subscript(
            value=ir.name(seq) if isinstance(seq, str) else ir.copy_tree(seq),
            slice=gast.Slice(lower=lower, upper=upper, step=step),
            ctx=gast.Load(),
        ),
        ctx=gast.Load(),
    )
