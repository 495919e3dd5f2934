"""Optimisation passes over an emitted gast function. Each pass keeps every gradient as it is."""
import gast

from . import ir

_PURE_ROOTS = {"np", "runtime", "len", "range", "float", "int", "list", "min", "max", "reversed"}


def _pure(node):
    """True when evaluating `node` has no side effect, so an unused result may be dropped."""
    for n in gast.walk(node):
        if isinstance(n, gast.Call):
            root = n.func
            while isinstance(root, gast.Attribute):
                root = root.value
            if not (isinstance(root, gast.Name) and root.id in _PURE_ROOTS):
                return False
        elif isinstance(n, (gast.Yield, gast.YieldFrom, gast.Await, gast.NamedExpr)):
            return False
    return True


def eliminate_dead_code(func):
    """Drop assignments to plain names whose value nothing reads before the name is assigned
    again (forward values the adjoint does not need, adjoints nobody consumes, a placeholder
    that every path overwrites), until none is left."""
    while True:
        dead = set()
        _live_before(func.body, set(), dead)
        if not _sweep(func.body, dead):
            return func


def _sweep(body, dead):
    removed = 0
    kept = []
    for stmt in body:
        for field in ("body", "orelse"):
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                removed += _sweep(getattr(stmt, field), dead)
                if field == "body" and not stmt.body:
                    stmt.body.append(gast.Pass())
        if id(stmt) in dead and _pure(stmt.value):
            removed += 1
            continue
        kept.append(stmt)
    body[:] = kept
    return removed


def propagate_copies(func):
    """Replace a copy `a = b` (plain names) by reading b where a is read, when that reads the
    same value: a is assigned only there (and is no parameter), every read of a follows the
    copy in the same block, and b is not assigned between the copy and the last of them."""
    params = {a.id for a in func.args.args + func.args.kwonlyargs}
    stores, reads = {}, {}
    for node in gast.walk(func):
        if isinstance(node, gast.Name):
            counts = reads if isinstance(node.ctx, gast.Load) else stores
            counts[node.id] = counts.get(node.id, 0) + 1
    while _propagate_in(func.body, params, stores, reads):
        pass
    return func


def _loads(node, name):
    return [n for n in gast.walk(node)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id == name]


def _propagate_in(block, params, stores, reads):
    """Propagate one copy in `block` or a block nested in it; False when there is none."""
    for index, stmt in enumerate(block):
        for field in ("body", "orelse"):
            nested = getattr(stmt, field, None)
            if isinstance(nested, list) and _propagate_in(nested, params, stores, reads):
                return True
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Name)):
            continue
        target, source = stmt.targets[0].id, stmt.value.id
        if stores.get(target) != 1 or target in params or target == source:
            continue
        rest = block[index + 1:]
        loads = [_loads(later, target) for later in rest]
        if sum(map(len, loads)) != reads.get(target, 0):
            continue  # read before the copy (an earlier iteration's value) or after the block
        last = max((i for i, found in enumerate(loads) if found), default=-1)
        written = [source in ir.names_in(s, (gast.Store, gast.Del)) for s in rest[:last + 1]]
        if any(written[:-1]) or written and written[-1] and isinstance(
                rest[last], (gast.If, gast.For, gast.While)):
            continue  # (a simple statement reads its operands before it stores)
        for found in loads:
            for node in found:
                node.id = source
        del block[index]
        stores[target] = 0
        reads[source] = reads.get(source, 0) + reads.pop(target, 0) - 1
        return True
    return False


def release_early(func):
    """Insert `del` right after the last top-level statement that uses a local, so large
    intermediates are freed during the adjoint sweep instead of at return (peak memory)."""
    params = {a.id for a in func.args.args + func.args.kwonlyargs}
    body = func.body
    uses = [ir.names_in(stmt) | ir.names_in(stmt, gast.Store) for stmt in body]
    bound_at = {}
    for index, stmt in enumerate(body):
        if isinstance(stmt, gast.Assign):
            for target in stmt.targets:
                for name in ir.names_in(target, gast.Store):
                    bound_at.setdefault(name, index)
    last_use = {}
    for index, names in enumerate(uses):
        for name in names:
            last_use[name] = index
    releases = {}
    for name, index in last_use.items():
        if name in params or name not in bound_at or bound_at[name] > index:
            continue
        if index < len(body) - 1:
            releases.setdefault(index, []).append(name)
    out = []
    for index, stmt in enumerate(body):
        out.append(stmt)
        if index in releases:
            out.append(gast.Delete(targets=[ir.name(n, store=False) for n in sorted(
                releases[index])]))
            for target in out[-1].targets:
                target.ctx = gast.Del()
    func.body = out
    return func


def accumulate_in_place(func):
    """Turn an adjoint accumulation `bx = bx + e` into `bx += e` when bx's buffer is provably
    its own: it was made by an earlier accumulation or a zero initialisation (fresh arrays),
    and nothing has read bx since (a read might have aliased it). A loop keeps that knowledge
    for the variables its body touches only by accumulating into them (bw in an RNN's
    reversed loop); anything else is forgotten at a branch or loop."""
    _in_place(func.body, set())
    return func


def _in_place(body, owned):
    for index, stmt in enumerate(body):
        if isinstance(stmt, (gast.For, gast.While)):
            kept = {v for v in owned if _only_accumulates(v, [stmt])}
            _in_place(stmt.body, set(kept))
            owned.intersection_update(kept)
            continue
        if isinstance(stmt, gast.If):
            for block in (stmt.body, stmt.orelse):
                _in_place(block, set())
            owned.clear()
            continue
        target = _accumulated(stmt)
        if target is not None:
            if target in owned:
                body[index] = gast.AugAssign(target=ir.name(target, store=True), op=gast.Add(),
                                             value=stmt.value.right)
            owned -= ir.names_in(stmt.value.right)
            owned.add(target)
            continue
        owned -= ir.names_in(stmt) | ir.names_in(stmt, gast.Store)
        if getattr(stmt, "fresh", False):
            owned.add(stmt.targets[0].id)


def _only_accumulates(var, stmts):
    """Whether every use of `var` in `stmts` is an accumulation into it."""
    for stmt in stmts:
        if isinstance(stmt, (gast.For, gast.While, gast.If)):
            header = stmt.iter if isinstance(stmt, gast.For) else stmt.test
            if var in ir.names_in(header) or not _only_accumulates(
                    var, stmt.body + stmt.orelse):
                return False
        elif _accumulated(stmt) == var or isinstance(stmt, gast.AugAssign) and \
                stmt.target.id == var and var not in ir.names_in(stmt.value):
            continue
        elif var in ir.names_in(stmt) | ir.names_in(stmt, gast.Store):
            return False
    return True


def _accumulated(stmt):
    """The target of an accumulation `bx = bx + e` the reverse transform marked, else None."""
    if not getattr(stmt, "accumulation", False):
        return None
    target = stmt.targets[0].id
    return None if target in ir.names_in(stmt.value.right) else target


def eliminate_dead_stacks(func):
    """Drop a stack (`s = []`, `s.append(v)`, `t = s.pop()` and no other use) when no value
    popped from it is read before being overwritten: after shape specialisation, say, a stack
    of shapes that nothing asks for any more. Returns how many stacks went."""
    dead = set()
    _live_before(func.body, set(), dead)
    uses = {}
    for node in gast.walk(func):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            for stmt in block if isinstance(block, list) else ():
                stack, removable = _stack_use(stmt, dead)
                if stack is not None:
                    uses.setdefault(stack, []).append((stmt, removable))
    mentioned = {}
    for node in gast.walk(func):
        if isinstance(node, gast.Name):
            mentioned[node.id] = mentioned.get(node.id, 0) + 1
    doomed = set()
    for stack, statements in uses.items():
        if all(removable for _, removable in statements) and \
                mentioned.get(stack) == len(statements):
            doomed.update(id(stmt) for stmt, _ in statements)
    if doomed:
        _drop(func, doomed)
    return len(doomed)


def _stack_use(stmt, dead):
    """(stack name, whether the statement may go) for `s = []`, `s.append(v)` and
    `t = s.pop()`; (None, False) for any other statement."""
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
            isinstance(stmt.targets[0], gast.Name):
        value = stmt.value
        if isinstance(value, gast.List) and not value.elts:
            return stmt.targets[0].id, True
        method = _method_call(value, "pop")
        if method is not None and not value.args:
            return method, id(stmt) in dead
    if isinstance(stmt, gast.Expr):
        method = _method_call(stmt.value, "append")
        if method is not None and len(stmt.value.args) == 1:
            return method, _pure(stmt.value.args[0])
    return None, False


def _method_call(node, method):
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
            node.func.attr == method and isinstance(node.func.value, gast.Name):
        return node.func.value.id
    return None


def _drop(node, doomed):
    for field in ("body", "orelse"):
        block = getattr(node, field, None)
        if isinstance(block, list):
            block[:] = [s for s in block if id(s) not in doomed]
            for stmt in block:
                _drop(stmt, doomed)
            if field == "body" and not block and not isinstance(node, gast.FunctionDef):
                block.append(gast.Pass())


def _live_before(body, live_after, dead):
    """The names live at the start of `body` given those live after it; adds to `dead` the
    ids of assignments to plain names that nothing reads afterwards (None: just compute)."""
    live = set(live_after)
    for stmt in reversed(body):
        live = _live_statement(stmt, live, dead)
    return live


def _live_statement(stmt, live, dead):
    if isinstance(stmt, gast.Assign):
        plain = [t.id for t in stmt.targets if isinstance(t, gast.Name)]
        if dead is not None and len(plain) == len(stmt.targets) and not set(plain) & live:
            dead.add(id(stmt))
        stored = set().union(*(ir.names_in(t, gast.Store) for t in stmt.targets))
        return (live - stored) | ir.names_in(stmt)
    if isinstance(stmt, gast.Return):
        return ir.names_in(stmt)
    if isinstance(stmt, gast.AugAssign):
        return live | ir.names_in(stmt) | ir.names_in(stmt.target, gast.Store)
    if isinstance(stmt, gast.Delete):  # needs the name bound: a use, for what precedes it
        return live | ir.names_in(stmt, gast.Del)
    if isinstance(stmt, gast.If):
        return (ir.names_in(stmt.test) | _live_before(stmt.body, live, dead)
                | _live_before(stmt.orelse, live, dead))
    if isinstance(stmt, (gast.For, gast.While)):
        header = stmt.iter if isinstance(stmt, gast.For) else stmt.test
        target = ir.names_in(stmt.target, gast.Store) if isinstance(stmt, gast.For) else set()
        head = set(live)  # live where each iteration starts (and where the loop exits)
        while True:
            body_in = _live_before(stmt.body, head, None) - target
            grown = head | body_in | ir.names_in(header)
            if grown == head:
                break
            head = grown
        _live_before(stmt.body, head, dead)
        return head | _live_before(stmt.orelse, live, dead)
    return live | ir.names_in(stmt)
