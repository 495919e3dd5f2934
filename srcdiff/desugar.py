"""Before ANF: unwrap blocks that change no value (`with np.errstate(...)`, try/finally), and
remove early `return`, `continue` and `break` (all but the break that leaves a
loop), so the transforms see structured code whose blocks run to their end.

A jump ends its block: what follows it runs only on the paths that do not jump, so it moves
into the branch that falls through (the else of `if c: break`):

    for i in range(n):                 for i in range(n):
        if c(i):                           if c(i):
            break               ->             break
        body(i)                            else:
                                               body(i)

`continue` then has nothing left to skip and goes; `break` stays (the forward sweep leaves the
loop early, and the reverse sweep runs over the iterations that ran: the loop is marked
`exits`). A `return` becomes an assignment to one result, returned at the end. Where what
follows a jump would have to be copied into two branches, a flag records the jump instead
(`_brk0`, `_cont0`; `_done0` for a return from inside a loop or such a branch).
"""

import contextlib
import copy
import warnings

import gast
import numpy as np

from . import ir
from .activity import is_pop
from .comprehension_loops import Replace
from .match_statements import as_if_chain
from .operator_calls import as_operators
from .try_except import as_branches

_LOOPS = (gast.For, gast.While)
_LOOP_JUMPS = (gast.Break, gast.Continue)
# statements whose value, when a pop alone, anf.py follows as a pop
_AS_POPS = (gast.Assign, gast.Expr)


def desugar(func, fresh, resolve):
    """Rewrite `func` (a gast FunctionDef) in place; `fresh(prefix)` makes unused names and
    `resolve(expr)` tells what a name like `np.errstate` is in the function's module."""
    read, _, found = ir.reads_and_writes(func, frozenset({gast.Call, gast.NamedExpr}))
    calls = [n for n in found if n.__class__ is gast.Call]
    as_operators(func, resolve, calls)
    # the parts of a statement run first, as statements of their own before it
    firsts = [_named_first] if any(n.__class__ is gast.NamedExpr for n in found) else []
    if any(is_pop(n) for n in found):
        firsts.append(lambda stmt: _popped_first(stmt, fresh))
    _count_from_the_start(func, calls)
    func.body = _lower_loop_else(_unwrap_blocks(func.body, resolve, read, fresh, firsts), fresh)
    body = func.body
    if not _has_early_return(body):
        func.body = _lower_loops(body, fresh)
        return func
    if _falls_through(body):
        body = body + [gast.copy_location(gast.Return(value=ir.const(None)), body[-1])]
    result = _results(body, fresh)
    if any(
        isinstance(loop, _LOOPS) and _contains(loop, (gast.Return,))
        for s in body
        for loop in ir.walk(s)
    ):  # (a loop in a branch too)
        done = fresh("_done")
        body = [ir.assign(done, ir.const(False))] + _return_from_loops(body, done, result, depth=0)
    body = _lower_loops(body, fresh)
    restructured = _restructure(body, (gast.Return,))
    if restructured is None:  # a return that would have to copy code: a flag
        done = fresh("_done")
        restructured = [ir.assign(done, ir.const(False))] + _guard(
            _flag_returns(body, done, result), done
        )
    func.body = _assign_results(restructured, result) + [gast.Return(value=_result(result))]
    return func


def _results(body, fresh):
    """The name the returns assign, or one per item where each returns a tuple display of
    the same length (`return v, aux`): the function then still ends returning a pair, what
    has_aux and a caller reading only some items of a callee's result look for."""
    values = [n.value for s in body for n in ir.walk(s) if isinstance(n, gast.Return)]
    sizes = {
        len(v.elts)
        if isinstance(v, gast.Tuple) and not any(isinstance(e, gast.Starred) for e in v.elts)
        else None
        for v in values
    }
    if len(sizes) == 1 and None not in sizes:
        return tuple(fresh("_result") for _ in range(sizes.pop()))
    return fresh("_result")


def _result(result, store=False):
    """The name, or tuple of names, that the returns assign."""
    if isinstance(result, str):
        return ir.name(result, store=store)
    ctx = gast.Store() if store else gast.Load()
    return gast.Tuple(elts=[ir.name(r, store=store) for r in result], ctx=ctx)


def _is_result(value, result):
    return value is not None and gast.dump(value) == gast.dump(_result(result))


def _count_from_the_start(func, calls):
    """`items[-1]` of a list whose length changes (`items.append(v)`) as `items[len(items) -
    1]`: the backward sweep reads the position of the item then, when the list may be
    longer, so the forward sweep must say which it was. `calls`: the calls in `func` (no
    method call of a list among those as_operators made operators)."""
    resized = {
        n.func.value.id
        for n in calls
        if isinstance(n.func, gast.Attribute)
        and isinstance(n.func.value, gast.Name)
        and (
            n.func.attr in ("append", "extend", "insert", "remove")
            or n.func.attr == "pop"
            and not n.args
        )
    }  # (a list's methods, not a dict's)
    for node in ir.walk(func) if resized else ():
        if (
            isinstance(node, gast.Subscript)
            and isinstance(node.value, gast.Name)
            and node.value.id in resized
        ):
            node.slice = _from_the_start(node.slice, node.value.id)


def _from_the_start(index, name):
    """`len(name) - k` for a constant index -k (any other index as it is)."""
    if (
        isinstance(index, gast.UnaryOp)
        and isinstance(index.op, gast.USub)
        and isinstance(index.operand, gast.Constant)
        and type(index.operand.value) is int
    ):
        back = index.operand.value
    elif isinstance(index, gast.Constant) and type(index.value) is int and index.value < 0:
        back = -index.value
    else:
        return index
    return gast.copy_location(
        gast.BinOp(left=ir.call("len", ir.name(name)), op=gast.Sub(), right=ir.const(back)), index
    )


# context managers that change how warnings are reported, never a value: their blocks run as
# they would without them (gradient code may warn where f does not, or not where it does)
_QUIET_CONTEXTS = (np.errstate, warnings.catch_warnings, contextlib.nullcontext)


def _unwrap_blocks(stmts, resolve, read, fresh, firsts):
    """`with np.errstate(...):` (`as` a name f does not read) and `try: ... finally: ...`
    (with no except) around statements that do not jump out of them: the statements
    themselves, in order."""
    out = []
    for stmt in stmts:
        for field in ("body", "orelse"):
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                setattr(
                    stmt, field, _unwrap_blocks(getattr(stmt, field), resolve, read, fresh, firsts)
                )
        out += [first for lift in firsts for first in lift(stmt)]
        if isinstance(stmt, gast.With) and all(
            isinstance(item.context_expr, gast.Call)
            and (
                item.optional_vars is None
                or isinstance(item.optional_vars, gast.Name)
                and item.optional_vars.id not in read
            )
            and any(resolve(item.context_expr.func) is quiet for quiet in _QUIET_CONTEXTS)
            for item in stmt.items
        ):
            out += _unwrap_blocks(stmt.body, resolve, read, fresh, firsts)
        elif (
            isinstance(stmt, gast.Try)
            and not stmt.handlers
            and not stmt.orelse
            and not any(
                isinstance(n, (gast.Return, gast.Break, gast.Continue))
                for s in stmt.body
                for n in ir.walk(s)
            )
        ):
            out += _unwrap_blocks(stmt.body, resolve, read, fresh, firsts) + _unwrap_blocks(
                stmt.finalbody, resolve, read, fresh, firsts
            )
        elif isinstance(stmt, gast.Match) and (chain := as_if_chain(stmt, fresh)) is not None:
            out += _unwrap_blocks(chain, resolve, read, fresh, firsts)
        elif (branches := as_branches(stmt, resolve, fresh)) is not None:
            out += _unwrap_blocks(branches, resolve, read, fresh, firsts)
        elif _left_by_returns_only(stmt):
            body = _unwrap_blocks(stmt.body, resolve, read, fresh, firsts)
            final = _unwrap_blocks(stmt.finalbody, resolve, read, fresh, firsts)
            out += _final_before_returns(body, final, fresh)
            if _falls_through(body):
                out += [ir.copy_tree(s) for s in final]
        else:
            out += _dicts_one_by_one(stmt, resolve)
    return out


def _dicts_one_by_one(stmt, resolve):
    """`xs, hs = {}, {}` as `xs = {}` and `hs = {}`, where a new dict is among the values
    and no value reads a name the statement binds: the dicts are then each bound alone, as
    srcdiff follows a dict written into key by key (min-char-rnn's `hs[t] = ...`)."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1):
        return [stmt]
    targets, values = stmt.targets[0], stmt.value
    if not (
        isinstance(targets, (gast.Tuple, gast.List))
        and isinstance(values, (gast.Tuple, gast.List))
        and len(targets.elts) == len(values.elts)
        and all(isinstance(t, gast.Name) for t in targets.elts)
        and any(_makes_dict(v, resolve) for v in values.elts)
    ):
        return [stmt]
    bound = {t.id for t in targets.elts}
    if any(isinstance(n, gast.Name) and n.id in bound for n in ir.walk(values)):
        return [stmt]  # (a, b = b, {}: the old b)
    return [gast.copy_location(ir.assign(t.id, v), stmt) for t, v in zip(targets.elts, values.elts)]


def _makes_dict(value, resolve):
    return isinstance(value, (gast.Dict, gast.DictComp)) or (
        isinstance(value, gast.Call) and resolve(value.func) is dict
    )


def _named_first(stmt):
    """The assignments of the assignment expressions (`:=`) of `stmt` that it runs always
    (not under `and`, `or`, `if`-`else`, a lambda, a comprehension or a dict display) before
    anything in it reads their name, each now that name: `if (n := np.sum(x)) > 1:` ->
    `n = np.sum(x)`, `if n > 1:`."""
    if not isinstance(stmt, (gast.If, gast.Assign, gast.AugAssign, gast.Return, gast.Expr)):
        return []
    order = ir.in_evaluation_order(stmt.test if isinstance(stmt, gast.If) else stmt.value)
    out = []
    for k, (node, always) in enumerate(order):
        if not (isinstance(node, gast.NamedExpr) and always):
            continue
        target = node.target.id
        if any(
            isinstance(n, gast.Name) and n.id == target and n is not node.target
            for n, _ in order[:k]
        ):
            continue  # (read before it runs: the old value)
        out.append(gast.copy_location(ir.assign(target, node.value), stmt))
        Replace(node, ir.name(target)).visit(stmt)
    return out


def _popped_first(stmt, fresh):
    """Each `xs.pop()` run always (not under `and`, `or`, `if`-`else`, a lambda...) inside
    an expression of `stmt`, before it reads xs otherwise, an assignment of its own before
    it: `k = np.floor(xs.pop())` -> `_popped0 = xs.pop()`, `k = np.floor(_popped0)`. Kept
    inside a value with no gradient, the pop of a differentiated list gave the list's
    adjoint no item for the one popped, and each item took the adjoint of the one after it
    (a wrong gradient); a pop of its own gets its item's adjoint back (anf.py)."""
    if not isinstance(stmt, (gast.If, gast.Assign, gast.AugAssign, gast.Return, gast.Expr)):
        return []
    whole = stmt.test if isinstance(stmt, gast.If) else stmt.value
    order, taken, before = ir.in_evaluation_order(whole), [], []
    for k, (node, always) in enumerate(order):
        if not (is_pop(node) and always) or node is whole and isinstance(stmt, _AS_POPS):
            continue
        name, receivers = node.func.value.id, {id(p.func.value) for p in taken + [node]}
        if any(
            isinstance(n, gast.Name) and n.id == name and id(n) not in receivers
            for n, _ in order[:k]
        ):
            break  # (read before it: popped where it was, as are the pops after it)
        held = fresh("_popped")
        before.append(gast.copy_location(ir.assign(held, ir.copy_tree(node)), stmt))
        taken.append(node)
        Replace(node, ir.name(held)).visit(stmt)
    return before


def _left_by_returns_only(stmt):
    """Whether `stmt` is `try: ... finally: F` left by return (not break or continue), whose
    F binds no name and does not jump: F may then run just before each return."""
    if not isinstance(stmt, gast.Try):
        return False
    inside = [n for s in stmt.body for n in ir.walk(s)]
    final = [n for s in stmt.finalbody for n in ir.walk(s)]
    return (
        not stmt.handlers
        and not stmt.orelse
        and any(isinstance(n, gast.Return) for n in inside)
        and not any(isinstance(n, (gast.Break, gast.Continue)) for n in inside)
        and not any(
            isinstance(n, (gast.Return, gast.Break, gast.Continue, gast.Yield, gast.YieldFrom))
            or isinstance(n, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Delete))
            or isinstance(n, gast.NamedExpr)
            for n in final
        )
    )


def _final_before_returns(stmts, final, fresh):
    """`return v` as `_returned0 = v; F; return _returned0` throughout `stmts` (v is
    computed before F runs, as Python's finally does)."""
    out = []
    for stmt in stmts:
        if isinstance(stmt, gast.Return):
            held = fresh("_returned")
            value = stmt.value if stmt.value is not None else ir.const(None)
            out += [gast.copy_location(ir.assign(held, value), stmt)]
            out += [ir.copy_tree(s) for s in final]
            out.append(gast.copy_location(gast.Return(value=ir.name(held)), stmt))
            continue
        for field in ("body", "orelse"):
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                setattr(stmt, field, _final_before_returns(getattr(stmt, field), final, fresh))
        out.append(stmt)
    return out


def _lower_loop_else(stmts, fresh):
    """`for ...: ... else: E` (or `while`): E after the loop, under `if not _broke0:` where
    a break may leave the loop (the flag records one)."""
    out = []
    for stmt in stmts:
        for field in ("body", "orelse"):
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                setattr(stmt, field, _lower_loop_else(getattr(stmt, field), fresh))
        if not (isinstance(stmt, _LOOPS) and stmt.orelse):
            out.append(stmt)
            continue
        orelse, stmt.orelse = stmt.orelse, []
        if not _jumps(stmt.body, gast.Break):
            out += [stmt] + orelse
            continue
        flag = fresh("_broke")
        stmt.body = _flag_breaks(stmt.body, flag)
        out += [
            gast.copy_location(ir.assign(flag, ir.const(False)), stmt),
            stmt,
            gast.copy_location(
                gast.If(
                    test=gast.UnaryOp(op=gast.Not(), operand=ir.name(flag)), body=orelse, orelse=[]
                ),
                orelse[0],
            ),
        ]
    return out


def _flag_breaks(stmts, flag):
    """The statements with `flag = True` before each break that leaves their loop."""
    out = []
    for stmt in stmts:
        if isinstance(stmt, gast.Break):
            out.append(gast.copy_location(ir.assign(flag, ir.const(True)), stmt))
        elif isinstance(stmt, gast.If):
            stmt.body, stmt.orelse = _flag_breaks(stmt.body, flag), _flag_breaks(stmt.orelse, flag)
        out.append(stmt)
    return out


def _has_early_return(body):
    returns = [n for s in body for n in ir.walk_statements(s) if isinstance(n, gast.Return)]
    return bool(returns) and not (len(returns) == 1 and body and body[-1] is returns[0])


def _falls_through(block):
    """Whether running `block` can reach its end (rather than always jumping away first)."""
    for stmt in block:
        if isinstance(stmt, (gast.Return, gast.Break, gast.Continue, gast.Raise)):
            return False
        if isinstance(stmt, gast.If) and not (
            _falls_through(stmt.body) or _falls_through(stmt.orelse)
        ):
            return False
    return True


def _contains(stmt, kinds):
    """Whether `stmt` holds a jump of `kinds` that leaves it (loop jumps of inner loops
    stay in them)."""
    if isinstance(stmt, kinds):
        return True
    if isinstance(stmt, gast.If):
        return any(_contains(s, kinds) for s in stmt.body + stmt.orelse)
    if isinstance(stmt, _LOOPS) and gast.Return in kinds:
        return any(isinstance(n, gast.Return) for n in ir.walk(stmt))
    return False


def _restructure(block, kinds):
    """A copy of `block` with what follows each `if` that may jump (a jump of `kinds`) moved
    into its one branch that falls through; None when both would need it. (The block itself
    is left as it was, for the flags that stand in when this gives None.)"""
    out = []
    for index, stmt in enumerate(block):
        if not (isinstance(stmt, gast.If) and _contains(stmt, kinds)):
            out.append(stmt)
            if isinstance(stmt, kinds):
                break  # what follows a jump never runs
            continue
        body, orelse, rest = stmt.body, stmt.orelse, block[index + 1 :]
        through = [b for b in (body, orelse) if _falls_through(b)] if rest else []
        if len(through) > 1:
            return None
        if through and through[0] is body:
            body = body + rest
        elif through:
            orelse = orelse + rest
        stmt = copy.copy(stmt)
        stmt.body, stmt.orelse = _restructure(body, kinds), _restructure(orelse, kinds)
        if stmt.body is None or stmt.orelse is None:
            return None
        out.append(stmt)
        break
    return out


def _drop_continues(block):
    """The `continue`s left at the end of branches (they skip nothing any more)."""
    out = []
    for stmt in block:
        if isinstance(stmt, gast.Continue):
            break
        if isinstance(stmt, gast.If):
            stmt.body, stmt.orelse = _drop_continues(stmt.body), _drop_continues(stmt.orelse)
        out.append(stmt)
    return out


def _lower_loops(stmts, fresh):
    """Loops with their break/continue restructured (innermost first), or flagged."""
    out = []
    for stmt in stmts:
        if isinstance(stmt, gast.If):
            stmt.body = _lower_loops(stmt.body, fresh)
            stmt.orelse = _lower_loops(stmt.orelse, fresh)
        elif isinstance(stmt, _LOOPS):
            stmt.body = _lower_loops(stmt.body, fresh)
            if any(_contains(s, _LOOP_JUMPS) for s in stmt.body):
                body = _restructure(stmt.body, _LOOP_JUMPS)
                if body is None:
                    out += _flag_loop_jumps(stmt, fresh)
                else:
                    stmt.body = _drop_continues(body) or [gast.Pass()]
                stmt.exits = any(_contains(s, (gast.Break,)) for s in stmt.body)
        out.append(stmt)
    return out


def _flag_loop_jumps(loop, fresh):
    """Record break and continue in flags (when restructuring would copy code); the loop
    still leaves at once after a break. Returns the statements to put before the loop."""
    before = []
    if _jumps(loop.body, gast.Continue):
        flag = fresh("_cont")
        loop.body = [ir.assign(flag, ir.const(False))] + _guard(
            _replace(loop.body, gast.Continue, flag), flag
        )
    if _jumps(loop.body, gast.Break):
        flag = fresh("_brk")
        loop.body = _guard(_replace(loop.body, gast.Break, flag), flag) + [
            gast.If(test=ir.name(flag), body=[gast.Break()], orelse=[])
        ]
        before.append(ir.assign(flag, ir.const(False)))
    return before


def _return_from_loops(stmts, done, result, depth):
    """A return inside a loop becomes `result = value; done = True; break`, followed by
    `if done: break` after each inner loop, and `if done: return result` after the
    outermost (which the top-level restructuring then lowers)."""
    out = []
    for stmt in stmts:
        if isinstance(stmt, gast.Return) and depth:
            value = stmt.value if stmt.value is not None else ir.const(None)
            out += [
                gast.copy_location(ir.assign(_result(result, store=True), value), stmt),
                gast.copy_location(ir.assign(done, ir.const(True)), stmt),
                gast.copy_location(gast.Break(), stmt),
            ]
            continue
        if isinstance(stmt, gast.If):
            stmt.body = _return_from_loops(stmt.body, done, result, depth)
            stmt.orelse = _return_from_loops(stmt.orelse, done, result, depth)
        elif isinstance(stmt, _LOOPS) and _contains(stmt, (gast.Return,)):
            stmt.body = _return_from_loops(stmt.body, done, result, depth + 1)
            out.append(stmt)
            leave = gast.Break() if depth else gast.Return(value=_result(result))
            out.append(
                gast.copy_location(gast.If(test=ir.name(done), body=[leave], orelse=[]), stmt)
            )
            continue
        out.append(stmt)
    return out


def _assign_results(stmts, result):
    """Each `return value` as `result = value` (the restructured code runs to its end)."""
    out = []
    for stmt in stmts:
        if isinstance(stmt, gast.Return):
            value = stmt.value if stmt.value is not None else ir.const(None)
            if not _is_result(value, result):
                out.append(gast.copy_location(ir.assign(_result(result, store=True), value), stmt))
            continue
        if isinstance(stmt, gast.If):
            stmt.body = _assign_results(stmt.body, result) or [gast.Pass()]
            stmt.orelse = _assign_results(stmt.orelse, result)
        out.append(stmt)
    return out


def _flag_returns(stmts, done, result):
    """Top-level returns recorded in flag `done` (guarding what follows them)."""
    out = []
    for stmt in stmts:
        if isinstance(stmt, gast.Return):
            if not _is_result(stmt.value, result):
                out.append(gast.copy_location(gast.Return(value=stmt.value), stmt))
            out.append(_located(ir.assign(done, ir.const(True)), stmt))
            continue
        if isinstance(stmt, gast.If):
            stmt.body = _guard(_flag_returns(stmt.body, done, result), done)
            stmt.orelse = _guard(_flag_returns(stmt.orelse, done, result), done)
        out.append(stmt)
    return out


def _sets(stmt, flag):
    return any(
        isinstance(n, gast.Assign)
        and any(isinstance(t, gast.Name) and t.id == flag for t in n.targets)
        for n in ir.walk(stmt)
    )


def _guard(stmts, flag):
    """Run the statements after one that may set `flag` only while it is unset (the jumps
    and flag settings that belong to the same return/break stay unguarded)."""
    out = []
    for i, stmt in enumerate(stmts):
        out.append(stmt)
        if _sets(stmt, flag) and i + 1 < len(stmts):
            rest = stmts[i + 1 :]
            while rest and getattr(rest[0], "_jump", False):
                out.append(rest.pop(0))
            if rest:
                out.append(
                    gast.If(
                        test=gast.UnaryOp(op=gast.Not(), operand=ir.name(flag)),
                        body=_guard(rest, flag),
                        orelse=[],
                    )
                )
            break
    return out


def _jumps(stmts, kind):
    """The break/continue statements that belong to this loop (not to a nested one)."""
    found = []
    for stmt in stmts:
        if isinstance(stmt, kind):
            found.append(stmt)
        elif isinstance(stmt, gast.If):
            found += _jumps(stmt.body, kind) + _jumps(stmt.orelse, kind)
    return found


def _replace(stmts, kind, flag):
    out = []
    for stmt in stmts:
        if isinstance(stmt, kind):
            out.append(_located(ir.assign(flag, ir.const(True)), stmt))
            continue
        if isinstance(stmt, gast.If):
            stmt.body = _guard(_replace(stmt.body, kind, flag), flag)
            stmt.orelse = _guard(_replace(stmt.orelse, kind, flag), flag)
        out.append(stmt)
    return out


def _located(node, like):
    """A statement standing for a jump at `like`'s line, left unguarded by _guard."""
    node = gast.copy_location(node, like)
    node._jump = True
    return node
