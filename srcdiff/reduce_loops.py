"""`functools.reduce(fn, xs, init)` as the loop it runs, ahead of its statement, so that
both modes differentiate it as a loop (a lambda `fn` is assigned to a name, and called as
one: inline.py inlines it):

    total = functools.reduce(fn, xs, init)    ->    total = init
                                                    for _item in xs:
                                                        total = fn(total, _item)

Without `init`, the first item starts it and the loop runs over `xs[1:]`. Only where the
statement runs the call exactly once, first thing: not under a conditional expression,
`and`/`or`, a lambda or a comprehension (there it stays, an error saying to write a loop)."""

import functools

import gast

from . import ir
from .errors import UnsupportedError
from .indexed_items import indexed_reads, item_width, named_parts

_DEFERRED = (gast.IfExp, gast.BoolOp, gast.Lambda, gast.ListComp, gast.GeneratorExp)
_DEFERRED += (gast.SetComp, gast.DictComp)
_CALLS = frozenset((gast.Call,))


def called_objects(func, resolve):
    """The ids of what the calls in `func` call (where the resolver knows it): one walk, for
    the lowerings to ask before each looks through every statement's calls."""
    return {id(resolve(n.func)) for n in ir.nodes_of(func, _CALLS)}


def reduces_as_loops(func, resolve, fresh, called):
    """Lower the reduce calls of func's statements (in place); whether any was. `called`:
    called_objects(func)."""
    if id(functools.reduce) not in called:
        return False
    calls_of = lambda stmt: _reduce_calls(stmt, resolve)  # noqa: E731
    return lowered_block(
        func.body, calls_of, lambda call, stmt: _as_loop(call, stmt, resolve, fresh)
    )


def lowered_block(body, calls_of, lower):
    """Put the statements `lower(call, stmt)` makes for each of the `calls_of(stmt)` ahead
    of its statement, in `body` and the blocks below it (in place); whether any was."""
    changed, out = False, []
    for stmt in body:
        for block in ("body", "orelse"):
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                changed |= lowered_block(getattr(stmt, block), calls_of, lower)
        if isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Return, gast.Expr)):
            for call in calls_of(stmt):
                out += lower(call, stmt)
                changed = True
            if _assigns_itself(stmt):  # (`total = total`: the statements made total)
                continue
        out.append(stmt)
    body[:] = out
    return changed


def _assigns_itself(stmt):
    return (
        isinstance(stmt, gast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], gast.Name)
        and isinstance(stmt.value, gast.Name)
        and stmt.value.id == stmt.targets[0].id
    )


def calls_run_once(stmt):
    """The calls in `stmt` that run once each when it runs, innermost first."""
    deferred = {id(m) for n in ir.walk(stmt) if isinstance(n, _DEFERRED) for m in ir.walk(n)}
    found = [n for n in ir.walk(stmt) if isinstance(n, gast.Call) and id(n) not in deferred]
    return found[::-1]


def _reduce_calls(stmt, resolve):
    """The calls of functools.reduce in `stmt` that run once each, innermost first."""
    return [
        n
        for n in calls_run_once(stmt)
        if 2 <= len(n.args) <= 3
        and not n.keywords
        and not any(isinstance(a, gast.Starred) for a in n.args)
        and resolve(n.func) is functools.reduce
    ]


def _as_loop(call, stmt, resolve, fresh):
    """The statements computing reduce `call` into a name, which then takes its place."""
    fn, items, *start = call.args
    whole = (
        isinstance(stmt, gast.Assign)
        and stmt.value is call
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], gast.Name)
        and stmt.targets[0].id not in ir.names_in(call)
    )
    total = stmt.targets[0].id if whole else fresh("_total")
    before = []
    unpacked = _unpacked_items(fn, items, resolve, fresh)  # (lp[0](h, lp[1]) over zip: lp's parts)
    item = unpacked or fresh("_item")
    if not isinstance(fn, gast.Name):  # (a lambda, say: called by a name, as people do)
        named = fresh("_combine")
        before.append(ir.assign(ir.name(named, store=True), fn))
        fn = ir.name(named)
    if not start and isinstance(items, gast.GeneratorExp):  # (its first item, then the rest)
        items = gast.ListComp(elt=items.elt, generators=items.generators)
    if not start and not isinstance(items, gast.Name):  # (read twice below: named once)
        named = fresh("_items")
        before.append(ir.assign(ir.name(named, store=True), items))
        items = ir.name(named)
    if not start:  # (the first item starts it)
        start = [gast.Subscript(value=items, slice=ir.const(0), ctx=gast.Load())]
        items = gast.Subscript(
            value=items, slice=gast.Slice(lower=ir.const(1), upper=None, step=None), ctx=gast.Load()
        )
    parts = unpacked or [item]
    step = ir.call(fn, ir.name(total), *[ir.name(part) for part in parts])
    step = ir.assign(ir.name(total, store=True), step)
    target = ir.tuple_of([ir.name(part, store=True) for part in parts], store=True)
    target = target if unpacked else ir.name(item, store=True)
    loop = gast.For(target=target, iter=items, body=[step], orelse=[], type_comment=None)
    before += [ir.assign(ir.name(total, store=True), start[0]), loop]
    for new in before:
        for n in ir.walk(new):
            n.lineno = getattr(n, "lineno", None) or stmt.lineno
    ir.replace_node(stmt, call, ir.name(total))
    return before


def _unpacked_items(fn, items, resolve, fresh):
    """For a lambda `fn` reading its item only by constant index (lp[0], lp[1]) over the
    items of zip(a, b, ...) or enumerate(a): the names of the item's parts, which the lambda
    (changed in place) then takes in its place (indexed_items.py); else None."""
    width = item_width(items, resolve)
    if not (width and isinstance(fn, gast.Lambda) and len(fn.args.args) == 2):
        return None
    name, roots = fn.args.args[1].id, [fn.body]
    reads = indexed_reads(name, roots, width)
    if reads is None:
        return None
    parts = named_parts(name, reads, width, fresh, roots)
    fn.body = roots[0]
    fn.args.args[1:] = [
        gast.Name(id=part, ctx=gast.Param(), annotation=None, type_comment=None) for part in parts
    ]
    return parts


def refuse_reduce(obj, loc):
    """The error for a functools.reduce call left as it is (for expressions.py)."""
    if obj is functools.reduce:
        raise UnsupportedError(
            "functools.reduce(...) is differentiated as a loop where its statement runs it "
            "once (not under a conditional expression, and/or, a lambda or a "
            "comprehension), given two or three arguments by position",
            loc,
            "compute it in a statement of its own: total = functools.reduce(fn, xs, start), "
            "or write it as a for loop",
        )
