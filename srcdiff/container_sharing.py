"""Whether a dict or list f writes into item by item can be rebound at each write instead
(container_joins.py): no other name, and nothing a call kept, may hold it while it changes.
A name's reads through its items, `len`, a loop over it, and calls of functions that keep
nothing they are passed (container_facts.keeps_no_argument) leave nothing holding it."""

import gast

from . import ir
from .container_facts import keeps_no_argument

_LOOPS = (gast.For, gast.While)


def write_into(stmt):
    """The name of the dict or list `stmt` writes an item of by a plain assignment (p[k]
    += v changes an array item in place, which another name may hold)."""
    if (
        isinstance(stmt, gast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], gast.Subscript)
        and isinstance(stmt.targets[0].value, gast.Name)
        and not isinstance(stmt.targets[0].slice, gast.Slice)
    ):
        return stmt.targets[0].value.id
    return None


# the methods that change a list in place that list_changes.py rebinds instead, with the
# numbers of arguments each takes
LIST_CHANGES = {
    "reverse": (0,),
    "insert": (2,),
    "extend": (1,),
    "pop": (0, 1),
    "clear": (0,),
    "sort": (0,),
    "remove": (1,),
}


def list_change(stmt):
    """The name of the list `stmt` changes in place by a method (`xs.reverse()`, `v =
    xs.pop(0)`, `v = xs.pop()`, `xs.sort(key=f)`, `xs.remove(v)`), by `del xs[k]` (or `del
    xs[a:b]`) or by `xs += vs` or `xs *= 2` (if xs is a list), else None."""
    if (
        isinstance(stmt, gast.AugAssign)
        and isinstance(stmt.target, gast.Name)
        and (isinstance(stmt.op, gast.Add) or ir.constant_int(stmt.value) is not None)
    ):
        return stmt.target.id  # (xs += vs extends xs, xs *= 2 repeats it, in place)
    if replaces_slice(stmt):
        return stmt.targets[0].value.id
    call = stmt.value if isinstance(stmt, (gast.Expr, gast.Assign)) else None
    if isinstance(stmt, gast.Assign) and not (
        isinstance(call, gast.Call)
        and isinstance(call.func, gast.Attribute)
        and call.func.attr == "pop"
    ):
        call = None  # (of the methods, only pop gives a value)
    if isinstance(stmt, gast.Delete) and len(stmt.targets) == 1:
        target = stmt.targets[0]
        if isinstance(target, gast.Subscript) and isinstance(target.slice, gast.Slice):
            return target.value.id if isinstance(target.value, gast.Name) else None
        return write_into(gast.Assign(targets=stmt.targets, value=None))
    if (
        isinstance(call, gast.Call)
        and isinstance(call.func, gast.Attribute)
        and isinstance(call.func.value, gast.Name)
        and len(call.args) in LIST_CHANGES.get(call.func.attr, ())
        and all(k.arg in ("key", "reverse") and call.func.attr == "sort" for k in call.keywords)
        and not any(isinstance(a, gast.Starred) for a in call.args)
    ):
        return call.func.value.id
    return None


def replaces_slice(stmt):
    """Whether `stmt` is `xs[a:b] = vs` (of step one: an extended slice's stays a write)."""
    target = stmt.targets[0] if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 else None
    return (
        isinstance(target, gast.Subscript)
        and isinstance(target.value, gast.Name)
        and isinstance(target.slice, gast.Slice)
        and (
            target.slice.step is None
            or isinstance(target.slice.step, gast.Constant)
            and target.slice.step.value == 1
        )
    )


def nested_write_into(stmt):
    """The name of the list of lists `stmt` writes an item of a row of (`m[i][j] = v`)."""
    target = stmt.targets[0] if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 else None
    if isinstance(target, gast.Subscript) and not isinstance(target.slice, gast.Slice):
        return write_into(gast.Assign(targets=[target.value], value=None))
    return None


def changed(stmt):
    """The name of the dict or list `stmt` writes an item of (or of a row of) or changes by a
    method."""
    return write_into(stmt) or list_change(stmt) or nested_write_into(stmt)


def unshared(func, name, resolve, rows=False):
    """Whether every use of `name` but its items' reads and writes (and _reads_only's) comes
    after its last write, outside any loop that writes it: no other name can hold the dict or
    list while it changes, so rebinding it instead changes nothing another name sees. A name
    bound once to it (`d = p`, as inlining binds a parameter) is followed: every read of that
    name must come before the last write. With `rows`, of a list of lists, only the reads of
    its rows' items (m[i][j]) and len(m) hold neither it nor a row."""
    reads_only = _row_items_read if rows else _reads_only
    aliases = _aliases(func, name)
    order, uses, last, bound = {}, [], -1, {}
    loops_writing = []

    def visit(stmts, loops):
        nonlocal last
        for stmt in stmts:
            order[id(stmt)] = len(order)
            if changed(stmt) == name:
                last = order[id(stmt)]
                loops_writing.extend(loops)
            held = {id(n) for n in ir.walk(stmt) for n in reads_only(n, resolve)}
            if _alias_binding(stmt, name) in aliases:
                held.add(id(stmt.value))
                bound[stmt.targets[0].id] = order[id(stmt)]
            for field in ("value", "test", "iter", "targets", "target", "msg", "exc"):
                part = getattr(stmt, field, None)
                for node in part if isinstance(part, list) else [part]:
                    loads = [
                        n
                        for n in (ir.walk(node) if isinstance(node, gast.AST) else ())
                        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)
                    ]
                    if any(n.id == name and id(n) not in held for n in loads):
                        uses.append((order[id(stmt)], list(loops), None))
                    for alias in {n.id for n in loads} & aliases:
                        uses.append((order[id(stmt)], list(loops), alias))
            for block in ("body", "orelse"):
                if isinstance(getattr(stmt, block, None), list):
                    visit(
                        getattr(stmt, block), loops + [stmt] if isinstance(stmt, _LOOPS) else loops
                    )

    visit(func.body, [])
    return all(
        (at > last if alias is None or bound[alias] > last else at < last)
        and not any(loop in loops_writing and not _renews(loop, name) for loop in loops)
        for at, loops, alias in uses
    )


def _renews(loop, name):
    """Whether each pass of `loop` binds `name` to a new dict or list (`p = {}` in its body
    itself) before it writes into it: what another name kept of an earlier pass is then
    never written into."""
    for stmt in loop.body:
        if (
            isinstance(stmt, gast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name)
            and stmt.targets[0].id == name
            and isinstance(stmt.value, (gast.Dict, gast.List))
        ):
            return True
        if name in ir.names_in(stmt, gast.Store) or any(changed(n) == name for n in ir.walk(stmt)):
            return False
    return False


def _alias_binding(stmt, name):
    """The name `stmt` binds to `name` itself (`d = p`), else None."""
    if (
        isinstance(stmt, gast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], gast.Name)
        and isinstance(stmt.value, gast.Name)
        and stmt.value.id == name
    ):
        return stmt.targets[0].id
    return None


def _aliases(func, name):
    """The names bound once, to `name` itself, and never written into."""
    bound = [_alias_binding(s, name) for s in ir.walk(func)]
    stores = [
        n.id for n in ir.walk(func) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)
    ]
    written = {changed(s) for s in ir.walk(func)}
    params = {a.id for a in func.args.args + func.args.kwonlyargs if isinstance(a, gast.Name)}
    return {a for a in bound if a and stores.count(a) == 1 and a not in written | params}


def _reads_only(node, resolve):
    """The names `node` uses a container through without another name holding it: p in
    p[k], len(p), p.get(k), k in p, p.append(v) (and the other changes a list's methods
    make), and g(p) of a function g that keeps
    nothing it is passed (it reads p's items as they are then: a later write rebinds p)."""
    if isinstance(node, gast.Subscript):
        return [node.value]
    if isinstance(node, (gast.For, gast.ListComp, gast.SetComp, gast.DictComp)):
        return _looped_over(node, resolve)  # (the loop is over when the statement is)
    if isinstance(node, gast.Call) and keeps_no_argument(
        resolve(node.func)
    ):  # (a generator it is passed is consumed then too: sum(v for v in p.values()))
        return (
            node.args
            + [k.value for k in node.keywords]
            + [
                n
                for a in node.args
                if isinstance(a, gast.GeneratorExp)
                for n in _looped_over(a, resolve)
            ]
        )
    if (
        isinstance(node, gast.Call)
        and isinstance(node.func, gast.Attribute)
        and node.func.attr in ("get", "append", *LIST_CHANGES)
    ):
        return [node.func.value]
    if isinstance(node, (gast.If, gast.While, gast.IfExp)) and isinstance(node.test, gast.Name):
        return [node.test]  # (`while xs:` asks only whether it is empty)
    if isinstance(node, gast.Compare) and isinstance(node.ops[0], (gast.In, gast.NotIn)):
        return node.comparators[:1]
    return []


def _row_items_read(node, resolve):
    """m in m[i][j] and len(m): uses of a list of lists that keep none of its rows."""
    if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Subscript):
        return [node.value.value]
    if isinstance(node, gast.Call) and resolve(node.func) is len:
        return node.args
    return []


def _looped_over(node, resolve):
    """The names a loop or comprehension goes over whole: p in `for k in p`, `p.items()`,
    `sorted(p.keys())`; of a loop that writes into p, only by its key (`p[k] = v`: the keys
    stay those it goes over, where Python would raise for a new one)."""
    found = []
    for it in [node.iter] if isinstance(node, gast.For) else [g.iter for g in node.generators]:
        while (
            isinstance(it, gast.Call)
            and len(it.args) == 1
            and any(resolve(it.func) is f for f in (sorted, list, tuple, reversed, enumerate))
        ):
            it = it.args[0]
        if (
            isinstance(it, gast.Call)
            and isinstance(it.func, gast.Attribute)
            and it.func.attr in ("keys", "values", "items")
            and not it.args
        ):
            it = it.func.value
        if isinstance(it, gast.Name) and not _written_by_other_keys(node, it.id):
            found.append(it)
    return found


def _written_by_other_keys(node, name):
    """Whether loop `node` writes an item of `name` other than by its own target's key."""
    if not isinstance(node, gast.For):
        return False
    key = node.target.elts[0] if isinstance(node.target, gast.Tuple) else node.target
    return any(
        write_into(s) == name
        and not (
            isinstance(key, gast.Name)
            and isinstance(s.targets[0].slice, gast.Name)
            and s.targets[0].slice.id == key.id
        )
        for s in ir.walk(node)
    )
