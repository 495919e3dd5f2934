"""In-place accumulation: `bx = bx + e` becomes `bx += e` into buffers nothing else holds."""

import gast

from .. import ir
from ..annotations import Mark, is_marked
from ..primitives import registry

_COMPOUND = (gast.If, gast.For, gast.While)
_CHANGING = frozenset({gast.Call, gast.Subscript, gast.Attribute})  # (nodes _handed asks of)


def accumulate_in_place(func):
    """Turn an adjoint accumulation `bx = bx + e` into `bx += e` when bx's buffer is provably
    its own: it was made by an earlier accumulation, a zero initialisation, an operator or
    a call that makes a new array (`bx = -by * np.sin(x)`: fresh arrays, or numbers, which
    `+=` binds anew just as `+` does), and nothing has read bx since (a read might have
    aliased it). So the contributions after a new first value all read `bx += e`. A loop
    keeps that knowledge for the variables each iteration leaves owned (bw in an RNN's
    reversed loop, and bh, made anew in each), a branch for those both its ways leave owned.

    A first value that may be shared (`runtime.unbroadcast(by, x)` may be by) is added to
    the first contribution where it is made (`bx = runtime.unbroadcast(by, x) + e`, a new
    array) when more follow, so that they all read `+=`; where it cannot be (a tuple item
    of a call's result), every contribution to bx in the function reads `bx = bx + e`."""
    if not any(is_marked(s, Mark.ACCUMULATION) for s in ir.walk_statements(func)):
        return  # (a forward function: nothing to do, and each statement's effects to find)
    known = _Known()
    _fold_first_values(func.body, known)
    made, kept = [], set()
    _in_place(func.body, set(), made, kept, known)
    for body, index, stmt in made:
        if stmt.targets[0].id in kept:  # one form for bx's accumulations
            body[index] = stmt


def _in_place(body, owned, made, kept, known):
    """Make the accumulations in `body` in place into the buffers in `owned` (updated to
    those owned after it); `made`: (block, index, accumulation) of each made so, `kept`:
    the targets of those kept as they are; `known`: the statements' _Known effects."""
    for index, stmt in enumerate(body):
        if isinstance(stmt, (gast.For, gast.While)):
            entry = _loop_entry(stmt, owned, known)
            _in_place(stmt.body, set(entry), made, kept, known)
            owned.clear()
            owned.update(entry)
            continue
        if isinstance(stmt, gast.If):
            owned -= ir.names_in(stmt.test)
            ways = [set(owned), set(owned)]
            for block, way in zip((stmt.body, stmt.orelse), ways):
                _in_place(block, way, made, kept, known)
            owned.clear()
            owned.update(ways[0] & ways[1])
            continue
        target = known.accumulated(stmt)
        if target is not None:
            if target in owned:
                body[index] = gast.copy_location(
                    gast.AugAssign(
                        target=ir.name(target, store=True), op=gast.Add(), value=stmt.value.right
                    ),
                    stmt,
                )
                made.append((body, index, stmt))
            else:
                kept.add(target)
            owned -= ir.names_in(stmt.value.right)
            owned.add(target)
            continue
        _, read, written, _, _ = known.effects(stmt)
        if owned:  # (most statements, in a forward sweep, meet nothing owned)
            owned -= read
            owned -= ir.names_in(stmt, gast.Store) if isinstance(stmt, gast.Delete) else written
        if is_marked(stmt, Mark.FRESH) or _made_new(stmt, read):
            owned.add(stmt.targets[0].id)


def _loop_entry(loop, owned, known):
    """What is owned at the head of `loop` each time, given `owned` before it: what an
    iteration leaves owned that was so before (taken again until it holds), where every
    iteration ends at the body's end; else what the loop only accumulates into."""
    header = (
        ir.names_in(loop.iter) | ir.names_in(loop.target, gast.Store)
        if isinstance(loop, gast.For)
        else ir.names_in(loop.test)
    )
    if loop.orelse or _leaves_early(loop.body):
        return {v for v in owned if _only_accumulates(v, [loop])}
    entry = owned - header
    while True:
        end, tried = set(entry), []
        _in_place(loop.body, end, tried, set(), known)
        for body, index, stmt in tried:  # (a trial: the body is made in place once known)
            body[index] = stmt
        if entry <= end:
            return entry
        entry &= end


def _leaves_early(body):
    """Whether a `break` or `continue` of the loop whose body `body` is ends an iteration."""
    for stmt in body:
        if isinstance(stmt, (gast.Break, gast.Continue)):
            return True
        if not isinstance(stmt, (gast.For, gast.While)) and any(
            _leaves_early(getattr(stmt, block, ()))
            for block in ("body", "orelse", "handlers", "finalbody")
        ):
            return True
    return False


def _fold_first_values(body, known):
    """In `body` and the blocks in it, write `bx = e0` ... `bx = bx + e1` as `bx = e0 + e1`
    where the accumulation is, when more contributions to bx follow it and `bx = e0` may
    share its buffer: e0 calls only functions without side effects, and between the two
    nothing reads or writes bx, rebinds a name e0 reads or hands one to a call that might
    change it."""
    followed = _followed(body, known)
    last, changed = {}, {}  # name -> index of the last statement naming it, changing it
    for index, stmt in enumerate(body):
        for block in _blocks(stmt):
            _fold_first_values(block, known)
        if index in followed:
            target = stmt.targets[0].id
            first = last.get(target)
            if (
                first is not None
                and _shared_first_value(body[first], target, known)
                and all(changed.get(n, -1) < first for n in ir.names_in(body[first].value))
            ):
                value = gast.BinOp(left=body[first].value, op=gast.Add(), right=stmt.value.right)
                stmt = body[index] = gast.copy_location(ir.assign(target, value), stmt)
                body[first] = None
        _, read, written, handed, _ = known.effects(stmt)  # (anew for one rewritten)
        for name in written | handed:
            changed[name] = index
        for name in read | written | handed:
            last[name] = index
    body[:] = [stmt for stmt in body if stmt is not None]


class _Known:
    """Each statement's (stmt, the names it reads, those it writes or deletes, those it
    _handed, the target it is an accumulation into), found once in the pass: a statement
    the pass rewrites is a new one, and a loop's or branch's, whose blocks it rewrites, is
    looked at anew each time."""

    def __init__(self):
        self._effects = {}  # id(statement) -> its effects

    def effects(self, stmt):
        if isinstance(stmt, _COMPOUND):
            return _effects(stmt)
        found = self._effects.get(id(stmt))
        if found is None or found[0] is not stmt:
            found = self._effects[id(stmt)] = _effects(stmt)
        return found

    def accumulated(self, stmt):
        return None if isinstance(stmt, _COMPOUND) else self.effects(stmt)[4]


def _effects(stmt):
    read, written, changing = ir.reads_and_writes(stmt, _CHANGING)
    return stmt, read, written, _handed(changing), _accumulated(stmt)


def _followed(body, known):
    """The indices of the accumulations in `body` that the next statement naming their
    target accumulates into it again (or is a loop or branch that only accumulates)."""
    found, next_use = set(), {}
    for index in range(len(body) - 1, -1, -1):
        _, read, written, _, target = known.effects(body[index])
        if target is not None and target in next_use:
            after = body[next_use[target]]
            if known.accumulated(after) == target or (
                isinstance(after, _COMPOUND) and _only_accumulates(target, [after])
            ):
                found.add(index)
        for name in read | written:
            next_use[name] = index
    return found


def _shared_first_value(stmt, target, known):
    """Whether `stmt` is `target = e0`, e0 calling only functions without side effects and
    making a value that may share a buffer (one made new is owned already). (What the
    assignment of a name reads is what its value reads: its _Known effects say.)"""
    if not (
        isinstance(stmt, gast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], gast.Name)
        and stmt.targets[0].id == target
    ):
        return False
    read = known.effects(stmt)[1]
    return (
        target not in read
        and not (is_marked(stmt, Mark.FRESH) or _made_new(stmt, read))
        and all(_pure(node) for node in ir.walk(stmt.value))
    )


def _pure(node):
    if isinstance(node, gast.Call):
        path = ir.dotted(node.func)
        return path is not None and registry.is_pure(path)
    return not isinstance(node, (gast.Lambda, gast.NamedExpr, gast.Yield, gast.YieldFrom))


def _handed(nodes):
    """The names that `nodes` (the calls, items and attributes in a statement) hand to a
    call that might change their value in place (an argument or the object of a method),
    or whose items or attributes they write."""
    found = set()
    for node in nodes:
        if isinstance(node, gast.Call) and not _pure(node):
            found |= ir.names_in(node)
        elif not isinstance(node, gast.Call) and isinstance(node.ctx, gast.Store):
            found |= ir.names_in(node.value)
    return found


def _blocks(stmt):
    return (stmt.body, stmt.orelse) if isinstance(stmt, _COMPOUND) else ()


def _made_new(stmt, read):
    """Whether `stmt`, which reads the names `read`, assigns one name a value made anew,
    reading no value of that name: an
    operator's (numpy makes a new array for every `a * b` and `-a`) or a call's whose
    record says it always makes a new array (`runtime.matmul_grad`, `np.exp`)."""
    if not (
        isinstance(stmt, gast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], gast.Name)
        and stmt.targets[0].id not in read
    ):
        return False
    value = stmt.value
    if isinstance(value, (gast.BinOp, gast.UnaryOp)):
        return True
    path = ir.dotted(value.func) if isinstance(value, gast.Call) else None
    called = registry.resolve(path) if path else None
    record = registry.find(called) if callable(called) else None
    return record is not None and record.fresh and not any(k.arg == "copy" for k in value.keywords)


def _only_accumulates(var, stmts):
    """Whether every use of `var` in `stmts` is an accumulation into it."""
    for stmt in stmts:
        if isinstance(stmt, _COMPOUND):
            header = stmt.iter if isinstance(stmt, gast.For) else stmt.test
            if var in ir.names_in(header) or not _only_accumulates(var, stmt.body + stmt.orelse):
                return False
        elif (
            _accumulated(stmt) == var
            or isinstance(stmt, gast.AugAssign)
            and stmt.target.id == var
            and var not in ir.names_in(stmt.value)
        ):
            continue
        elif var in ir.names_in(stmt) | ir.names_in(stmt, gast.Store):
            return False
    return True


def _accumulated(stmt):
    """The target of an accumulation `bx = bx + e` the reverse transform marked, else None."""
    if not is_marked(stmt, Mark.ACCUMULATION):
        return None
    target = stmt.targets[0].id
    return None if target in ir.names_in(stmt.value.right) else target
