"""The items of tuples in specialised code, read as a person reads them: a call returning a
tuple unpacked into the names its items go to (`w, v = np.linalg.eigh(a)`), and an item of a
returned tuple's adjoint read where it was placed (`runtime.adjoint_at(b, x, 1)` is
`blogdet` after `b = runtime.getitem_grad(blogdet, x, 1)`: primitives/linalg_helpers.py),
so that b, the Sparse holding it, goes."""

import gast

from .. import ir, runtime
from ..primitives import registry
from ..shapes import Items


def tuple_lengths(bound):
    """{name: its length} for the names an interpreter's run found to hold a tuple or list
    of known length wherever they are bound (its `bound`)."""
    return {name: len(v.items) for name, v in bound.items() if isinstance(v, Items)}


def forward_item_adjoints(func, lengths):
    """Replace each such read by the name placed, where the function's body (not a nested
    block) holds both statements, b is assigned nowhere else, and nothing from the placing
    to the reading statement assigns the name placed or x."""
    if not any(_placing(stmt) for stmt in func.body):
        return func  # (the commonest: a cheap look at the top-level statements)
    writes = {}  # name -> the positions in func.body of the statements assigning it
    for position, stmt in enumerate(func.body):
        for node in ir.walk(stmt):
            if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
                writes.setdefault(node.id, []).append(position)
    placed = {}  # b -> (position, g, x, index)
    for position, stmt in enumerate(func.body):
        found = _placing(stmt)  # (of a tuple or list: an array's item might be a row)
        if found is not None and found[2] in lengths and len(writes.get(found[0], ())) == 1:
            placed[found[0]] = (position, *found[1:])

        def placed_here(node, position=position):
            """The name placed where `node` reads it, or None."""
            if not _called(node, runtime.adjoint_at.__name__) or node.args[0].id not in placed:
                return None
            start, g, x, index = placed[node.args[0].id]
            if node.args[1].id != x or node.args[2].value != index:
                return None
            if any(start < p <= position for n in (g, x) for p in writes.get(n, ())):
                return None
            return ir.name(g)

        _substitute(stmt, placed_here)
    return func


def _substitute(node, replacement):
    """Replace each node below `node` for which replacement(child) is not None."""
    for field, value in ir.fields(node):
        children = value if isinstance(value, list) else [value]
        for k, child in enumerate(children):
            if not isinstance(child, gast.AST):
                continue
            new = replacement(child)
            if new is None:
                _substitute(child, replacement)
            elif isinstance(value, list):
                value[k] = new
            else:
                setattr(node, field, new)


def _placing(stmt):
    """(b, g, x, index) of `b = runtime.getitem_grad(g, x, index)`, names and an int."""
    if not (
        isinstance(stmt, gast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], gast.Name)
        and _called(stmt.value, runtime.getitem_grad.__name__)
    ):
        return None
    return (
        stmt.targets[0].id,
        stmt.value.args[0].id,
        stmt.value.args[1].id,
        stmt.value.args[2].value,
    )


def _called(node, helper):
    """Whether node calls runtime.<helper> on two names and an int."""
    return (
        isinstance(node, gast.Call)
        and ir.dotted(node.func) == ("runtime", helper)
        and len(node.args) == 3
        and not node.keywords
        and isinstance(node.args[0], gast.Name)
        and isinstance(node.args[1], gast.Name)
        and isinstance(node.args[2], gast.Constant)
        and type(node.args[2].value) is int
    )


def unpack_tuples(func, lengths):
    """`t = f(x)` then `a = t[0]` and `b = t[1]` become `a, b = f(x)` (`_` for an item
    nothing reads; `a = f(x)[0]` where one item is read), where `lengths` gives t's length, every read of t is of one of its items
    or, once each item is named, of t whole (read as `(a, b)`), and t and each name are
    assigned once, in the function's body."""
    tuples = [
        (position, stmt)
        for position, stmt in enumerate(func.body)
        if isinstance(stmt, gast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], gast.Name)
        and stmt.targets[0].id in lengths
        and isinstance(stmt.value, gast.Call)
    ]
    if not tuples:
        return func
    writes, reads = _uses(func)
    if "_" in reads:
        return func
    arguments = func.args
    starred = [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    for param in arguments.args + arguments.kwonlyargs + starred:  # (read before reassigned)
        writes.setdefault(param.id, []).append(param)
    for position, stmt in tuples:
        _unpack(func, stmt, lengths[stmt.targets[0].id], writes, reads)
    return func


def _uses(func):
    """({name: the nodes writing it}, {name: the nodes reading it}) in func's body."""
    writes, reads = {}, {}
    for stmt in func.body:
        for node in ir.walk(stmt):
            if isinstance(node, gast.Name):
                table = reads if isinstance(node.ctx, gast.Load) else writes
                table.setdefault(node.id, []).append(node)
    return writes, reads


def _unpack(func, stmt, length, writes, reads):
    t = stmt.targets[0].id
    if len(writes.get(t, ())) != 1:
        return
    items, whole = {}, []  # index -> the statement naming it; the nodes reading t whole
    picked = {id(s.value.value): s for s in func.body if _item_named(s, t, length, writes)}
    for node in reads.get(t, ()):
        if id(node) in picked:
            named = picked[id(node)]
            if named.value.slice.value % length in items:
                return
            items[named.value.slice.value % length] = named
        else:
            whole.append(node)
    if not items or whole and len(items) < length:
        return
    if len(items) == 1 and not whole:  # (one item: `logdet = np.linalg.slogdet(k)[1]`)
        ((k, named),) = items.items()
        stmt.targets = named.targets
        stmt.value = gast.Subscript(value=stmt.value, slice=ir.const(k), ctx=gast.Load())
        func.body[:] = [s for s in func.body if s is not named]
        return
    names = [items[k].targets[0].id if k in items else "_" for k in range(length)]
    stmt.targets = [gast.Tuple(elts=[ir.name(n, store=True) for n in names], ctx=gast.Store())]
    gone = {id(s) for s in items.values()}
    func.body[:] = [s for s in func.body if id(s) not in gone]
    whole = {id(node) for node in whole}
    _substitute(
        func,
        lambda node: (
            gast.Tuple(elts=[ir.name(n) for n in names], ctx=gast.Load())
            if id(node) in whole
            else None
        ),
    )


def _item_named(stmt, t, length, writes):
    """Whether `stmt` is `a = t[k]`, k a constant index of t, and a is assigned nowhere else."""
    return (
        isinstance(stmt, gast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], gast.Name)
        and len(writes.get(stmt.targets[0].id, ())) == 1
        and isinstance(stmt.value, gast.Subscript)
        and isinstance(stmt.value.value, gast.Name)
        and stmt.value.value.id == t
        and isinstance(stmt.value.slice, gast.Constant)
        and type(stmt.value.slice.value) is int
        and -length <= stmt.value.slice.value < length
    )


def gather_tuple_adjoints(func, lengths):
    """`b = runtime.getitem_grad(bv, t, 1)` then `b = runtime.add_at(b, t, 0, bw)`, b read
    only by a helper that takes a tuple's adjoint (its record's tuple_adjoints), become
    `(bw, bv)` where the helper reads b: a tuple of the items' adjoints, None for an item
    that got none (t's length is `lengths`'), when no statement between reassigns them."""
    if not any(_placing(stmt) for stmt in func.body):
        return func  # (the commonest: a cheap look at the top-level statements)
    writes, reads = _positions(func)
    for position, stmt in enumerate(func.body):
        placed = _placing(stmt)
        if placed is None or placed[2] not in lengths:
            continue
        chain = _chain(func.body, position, placed[0], writes)
        if chain is None:
            continue
        final = [r for r in reads.get(placed[0], ()) if r[0] not in chain]
        if len(final) != 1 or final[0][0] < chain[-1]:
            continue
        at, call, k = final[0]
        if not _takes_tuple_adjoint(call, k):
            continue
        length, items = lengths[placed[2]], {}
        for p in chain:
            _, g, _, index = _placing(func.body[p]) or _adding(func.body[p])
            if any(p < q <= at for q in writes.get(g, ())) or not -length <= index < length:
                break
            items.setdefault(index % length, []).append(ir.name(g))
        else:
            call.args[k] = gast.Tuple(
                elts=[_sum(items[i]) if i in items else ir.const(None) for i in range(length)],
                ctx=gast.Load(),
            )
            gone = {id(func.body[p]) for p in chain}
            func.body[:] = [s for s in func.body if id(s) not in gone]
            return gather_tuple_adjoints(func, lengths)  # (positions moved: index anew)
    return func


def _chain(body, start, b, writes):
    """The positions of `b = runtime.getitem_grad(...)` at `start` and of the statements
    `b = runtime.add_at(b, ...)` after it, when those are all that assign b; else None."""
    chain = sorted(set(writes.get(b, ())))
    if chain[0] != start or any(
        _adding(body[p]) is None or _adding(body[p])[0] != b for p in chain[1:]
    ):
        return None
    return chain


def _adding(stmt):
    """(b, g, x, index) of `b = runtime.add_at(b, x, index, g)`, names and an int."""
    if not (
        isinstance(stmt, gast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], gast.Name)
        and isinstance(stmt.value, gast.Call)
        and ir.dotted(stmt.value.func) == ("runtime", runtime.add_at.__name__)
        and len(stmt.value.args) == 4
        and not stmt.value.keywords
    ):
        return None
    b, x, index, g = stmt.value.args
    if not (
        all(isinstance(n, gast.Name) for n in (b, x, g))
        and b.id == stmt.targets[0].id != g.id
        and isinstance(index, gast.Constant)
        and type(index.value) is int
    ):
        return None
    return b.id, g.id, x.id, index.value


def _positions(func):
    """({name: positions in func.body of the statements assigning it}, {name: (position,
    call, k) of each read of it, call the call reading it as its argument k, or None})."""
    writes, reads = {}, {}
    for position, stmt in enumerate(func.body):
        as_argument = {}
        for node in ir.walk(stmt):
            if isinstance(node, gast.Call):
                for k, arg in enumerate(node.args):
                    as_argument[id(arg)] = (node, k)
        for node in ir.walk(stmt):
            if not isinstance(node, gast.Name):
                continue
            if isinstance(node.ctx, gast.Load):
                call, k = as_argument.get(id(node), (None, None))
                reads.setdefault(node.id, []).append((position, call, k))
            else:
                writes.setdefault(node.id, []).append(position)
    return writes, reads


def _takes_tuple_adjoint(call, k):
    path = ir.dotted(call.func) if call is not None else None
    record = registry.at(path) if path is not None and len(path) > 1 else None
    return record is not None and k in record.tuple_adjoints


def _sum(names):
    total = names[0]
    for name in names[1:]:
        total = gast.BinOp(left=total, op=gast.Add(), right=name)
    return total
