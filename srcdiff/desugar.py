"""Before ANF: rewrite early `return`, `break` and `continue` into flags and guarded blocks,
so the transforms only ever see structured code that runs to its end.

    for i in range(n):                 _brk0 = False
        if c(i):                       for i in range(n):
            break             ->           if not _brk0:
        body(i)                                if c(i):
                                                   _brk0 = True
                                               if not _brk0:
                                                   body(i)
"""
import gast

from . import ir

_LOOPS = (gast.For, gast.While)


def desugar(func, fresh):
    """Rewrite `func` (a gast FunctionDef) in place; `fresh(prefix)` makes unused names."""
    if _has_early_return(func.body):
        done, result = fresh("_done"), fresh("_ret")
        body = _lower_returns(func.body, done, result, in_loop=False)
        func.body = [ir.assign(done, ir.const(False)), ir.assign(result, ir.const(None))] + \
            _guard(body, done) + [gast.Return(value=ir.name(result))]
    func.body = _lower_loops(func.body, fresh)
    return func


def _has_early_return(body):
    returns = [n for s in body for n in gast.walk(s) if isinstance(n, gast.Return)]
    return bool(returns) and not (len(returns) == 1 and body and body[-1] is returns[0])


def _sets(stmt, flag):
    return any(isinstance(n, gast.Assign) and any(
        isinstance(t, gast.Name) and t.id == flag for t in n.targets) for n in gast.walk(stmt))


def _guard(stmts, flag):
    """Run the statements after one that may set `flag` only while it is unset (the jumps
    and flag settings that belong to the same return/break stay unguarded)."""
    out = []
    for i, stmt in enumerate(stmts):
        out.append(stmt)
        if _sets(stmt, flag) and i + 1 < len(stmts):
            rest = stmts[i + 1:]
            while rest and getattr(rest[0], "_jump", False):
                out.append(rest.pop(0))
            if rest:
                out.append(gast.If(test=gast.UnaryOp(op=gast.Not(), operand=ir.name(flag)),
                                   body=_guard(rest, flag), orelse=[]))
            break
    return out


def _lower_returns(stmts, done, result, in_loop):
    out = []
    for stmt in stmts:
        if isinstance(stmt, gast.Return):
            value = stmt.value if stmt.value is not None else ir.const(None)
            out += [gast.copy_location(ir.assign(result, value), stmt),
                    gast.copy_location(ir.assign(done, ir.const(True)), stmt)]
            if in_loop:
                out.append(_located(gast.Break(), stmt))
            continue
        if isinstance(stmt, gast.If):
            stmt.body = _guard(_lower_returns(stmt.body, done, result, in_loop), done)
            stmt.orelse = _guard(_lower_returns(stmt.orelse, done, result, in_loop), done)
        elif isinstance(stmt, _LOOPS):
            stmt.body = _guard(_lower_returns(stmt.body, done, result, True), done)
            out.append(stmt)
            if in_loop and _sets(stmt, done):  # leave the enclosing loop too
                out.append(gast.If(test=ir.name(done), body=[gast.Break()], orelse=[]))
            continue
        out.append(stmt)
    return out


def _lower_loops(stmts, fresh):
    out = []
    for stmt in stmts:
        if isinstance(stmt, gast.If):
            stmt.body = _lower_loops(stmt.body, fresh)
            stmt.orelse = _lower_loops(stmt.orelse, fresh)
        elif isinstance(stmt, _LOOPS):
            stmt.body = _lower_loops(stmt.body, fresh)
            breaks, continues = _jumps(stmt.body, gast.Break), _jumps(stmt.body, gast.Continue)
            if breaks:
                flag = fresh("_brk")
                stmt.body = _guard(_replace(stmt.body, gast.Break, flag), flag)
                out.append(ir.assign(flag, ir.const(False)))
                stop = gast.UnaryOp(op=gast.Not(), operand=ir.name(flag))
                if isinstance(stmt, gast.While):
                    stmt.test = gast.BoolOp(op=gast.And(), values=[stop, stmt.test])
                else:
                    stmt.body = [gast.If(test=stop, body=stmt.body, orelse=[])]
            if continues:
                flag = fresh("_cont")
                body = _guard(_replace(_body_of(stmt, breaks), gast.Continue, flag), flag)
                _set_body(stmt, breaks, [ir.assign(flag, ir.const(False))] + body)
        out.append(stmt)
    return out


def _body_of(loop, wrapped):
    return loop.body[0].body if wrapped and isinstance(loop, gast.For) else loop.body


def _set_body(loop, wrapped, body):
    if wrapped and isinstance(loop, gast.For):
        loop.body[0].body = body
    else:
        loop.body = body


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
