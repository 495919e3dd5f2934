"""Dead code: assignments whose value nothing reads, and stacks whose values nothing pops
for reading."""

import gast

from .. import ir
from .liveness import live_before, pure


def eliminate_dead_code(func, name_nodes=None):
    """Drop assignments to plain names whose value nothing reads before the name is assigned
    again (forward values the adjoint does not need, adjoints nobody consumes, a placeholder
    that every path overwrites), until none is left.

    A round reads the names a statement it drops reads as unread (so a chain of assignments
    feeding only a dropped one goes in that round, not one round per link); where there is
    no loop that makes its liveness exact, and one round is all. `name_nodes`: what gives
    the Name nodes below a node, where a pass after this one asks it too (else ir's walk)."""
    while True:
        dead = set()
        live_before(func.body, set(), dead, reads=_reads_unless_dropped(dead, name_nodes))
        if not _sweep(func.body, dead) or not _has_loop(func.body):
            return func


def _reads_unless_dropped(dead, name_nodes=None):
    def reads(node):
        if id(node) in dead and pure(node.value):  # (only assignments are in `dead`)
            return set()
        if name_nodes is None:
            return ir.names_in(node)
        return {name.id for name in name_nodes(node) if name.ctx.__class__ is gast.Load}

    return reads


def _has_loop(body):
    return any(
        isinstance(stmt, (gast.For, gast.While))
        or isinstance(stmt, gast.If)
        and (_has_loop(stmt.body) or _has_loop(stmt.orelse))
        for stmt in body
    )


def _sweep(body, dead):
    removed = 0
    kept = []
    for stmt in body:
        for field in ("body", "orelse"):
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                removed += _sweep(getattr(stmt, field), dead)
                if field == "body" and not stmt.body:
                    stmt.body.append(gast.Pass())
        if id(stmt) in dead and pure(stmt.value):
            removed += 1
            continue
        if _idle_branch(stmt):  # (what it guarded went: `if c: pass`, `if c: pass else: ...`)
            removed += 1
            if all(isinstance(s, gast.Pass) for s in stmt.orelse):
                continue
            stmt.test = gast.UnaryOp(op=gast.Not(), operand=stmt.test)
            stmt.body, stmt.orelse = stmt.orelse, []
        kept.append(stmt)
    body[:] = kept
    return removed


def _idle_branch(stmt):
    """Whether `stmt` is an `if` on a name (a condition saved for the adjoint sweep) whose
    true branch does nothing."""
    return (
        isinstance(stmt, gast.If)
        and isinstance(stmt.test, gast.Name)
        and all(isinstance(s, gast.Pass) for s in stmt.body)
    )


def eliminate_dead_stacks(func):
    """Drop a stack (`s = []`, `s.append(v)`, `t = s.pop()` and no other use) when no value
    popped from it is read before being overwritten: after shape specialisation, say, a stack
    of shapes that nothing asks for any more. Returns how many stacks went.
    (Liveness, the costly part, is found only when some stack may go.)"""
    uses = {}
    for stmt in _block_statements(func):
        stack, removable = _stack_use(stmt)
        if stack is not None:
            uses.setdefault(stack, []).append((stmt, removable))
    if not uses:  # (most code has no stack: then no walk over all of it)
        return 0
    mentioned = {}
    for node in ir.name_nodes(func):
        mentioned[node.id] = mentioned.get(node.id, 0) + 1
    candidates = {
        stack: statements
        for stack, statements in uses.items()
        if all(removable is not False for _, removable in statements)
        and mentioned.get(stack) == len(statements)
        and
        # (made here: not a list of the user's module)
        any(isinstance(stmt, gast.Assign) for stmt, _ in statements)
    }
    if not candidates:
        return 0
    dead = set()
    if any(removable is None for statements in candidates.values() for _, removable in statements):
        live_before(func.body, set(), dead)
    doomed = set()
    for statements in candidates.values():
        if all(removable or id(stmt) in dead for stmt, removable in statements):
            doomed.update(id(stmt) for stmt, _ in statements)
    if doomed:
        drop_statements(func, doomed)
    return len(doomed)


def drop_unread_pops(func, stacks, bound=1):
    """Drop each pop off a list of `stacks` (lists func is handed, each named `bound` times
    where it is bound) when func does nothing else with the list and reads no value popped
    off it: a backward function's stack of values its specialised adjoint no longer reads.
    Returns the lists whose pops went."""
    uses = {}
    for stmt in _block_statements(func):
        stack, removable = _stack_use(stmt)
        if stack in stacks:
            uses.setdefault(stack, []).append((stmt, removable))
    if not uses:
        return set()
    mentioned = {}
    for node in ir.name_nodes(func):
        mentioned[node.id] = mentioned.get(node.id, 0) + 1
    dead = set()
    live_before(func.body, set(), dead)
    gone = {
        stack
        for stack, statements in uses.items()
        if mentioned[stack] == len(statements) + bound
        and all(removable is None and id(stmt) in dead for stmt, removable in statements)
    }
    drop_statements(func, {id(stmt) for stack in gone for stmt, _ in uses[stack]})
    return gone


def _block_statements(node):
    """The statements in the body and orelse lists of `node` and of every node below it
    (found through the statements, handlers and cases that hold them)."""
    for field in ("body", "orelse"):
        block = getattr(node, field, None)
        if isinstance(block, list):
            yield from block
    for field in _HOLDERS:
        children = getattr(node, field, None)
        for child in children if isinstance(children, list) else ():
            if child.__class__ in _HOLDING:  # (a simple statement holds none: no generator)
                yield from _block_statements(child)


_HOLDERS = ("body", "orelse", "finalbody", "handlers", "cases")
_HOLDING = frozenset(
    kind
    for kind in vars(gast).values()
    if isinstance(kind, type) and issubclass(kind, gast.AST) and set(_HOLDERS) & set(kind._fields)
)


def _stack_use(stmt):
    """(stack name, whether the statement may go: None for a pop, which may if its value is
    dead) for `s = []`, `s.append(v)` and `t = s.pop()`; (None, False) for any other."""
    if (
        isinstance(stmt, gast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], gast.Name)
    ):
        value = stmt.value
        if isinstance(value, gast.List) and not value.elts:
            return stmt.targets[0].id, True
        method = _method_call(value, "pop")
        if method is not None and not value.args:
            return method, None
    if isinstance(stmt, gast.Expr):
        method = _method_call(stmt.value, "append")
        if method is not None and len(stmt.value.args) == 1:
            return method, pure(stmt.value.args[0])
    return None, False


def _method_call(node, method):
    if (
        isinstance(node, gast.Call)
        and isinstance(node.func, gast.Attribute)
        and node.func.attr == method
        and isinstance(node.func.value, gast.Name)
    ):
        return node.func.value.id
    return None


def drop_statements(node, doomed):
    """Drop the statements whose ids are `doomed` from every block of `node` (a block left
    empty holds `pass`)."""
    for field in ("body", "orelse"):
        block = getattr(node, field, None)
        if isinstance(block, list):
            block[:] = [s for s in block if id(s) not in doomed]
            for stmt in block:
                drop_statements(stmt, doomed)
            if field == "body" and not block and not isinstance(node, gast.FunctionDef):
                block.append(gast.Pass())
