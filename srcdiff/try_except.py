"""try/except around one assignment (or return), as numerical code writes a fallback (`try: L =
np.linalg.cholesky(K)` / `except np.linalg.LinAlgError: L = np.linalg.cholesky(K + jitter)`),
becomes the branch the exception picks:

    _handler0 = runtime.handler_of(lambda: np.linalg.cholesky(K), np.linalg.LinAlgError)
    if _handler0 is None:
        L = np.linalg.cholesky(K)
    else:
        L = np.linalg.cholesky(K + jitter)

The transforms follow branches, not exceptions; the value is computed again in its branch
(once more in all), so it must be one whose calls have no side effect: registered pure
primitives only. Anything else stays an error at the user's line (anf.py)."""

import gast

from . import ir
from .primitives import registry


def as_branches(stmt, resolve, fresh):
    """The statements standing for try/except `stmt`, or None where it is not of that form
    (one assignment, or return, of pure calls tried; handlers by type, their `as` name
    unread; no other jump out of it)."""
    if not _lowerable(stmt, resolve):
        return None
    tried = stmt.body[0]
    handled = fresh("_handler")
    probe = gast.Lambda(args=ir.no_arguments(), body=ir.copy_tree(tried.value))
    kinds = [h.type if h.type is not None else ir.name("BaseException") for h in stmt.handlers]
    found = ir.assign(handled, ir.call(ir.attr("runtime", "handler_of"), probe, *kinds))
    orelse = []
    for k, handler in reversed(list(enumerate(stmt.handlers))):
        test = gast.Compare(left=ir.name(handled), ops=[gast.Eq()], comparators=[ir.const(k)])
        orelse = (
            handler.body if not orelse else [gast.If(test=test, body=handler.body, orelse=orelse)]
        )
    unraised = gast.Compare(left=ir.name(handled), ops=[gast.Is()], comparators=[ir.const(None)])
    branches = gast.If(test=unraised, body=[tried] + stmt.orelse, orelse=orelse)
    for node in (found, branches):
        gast.copy_location(node, stmt)
        for inner in ir.walk(node):
            inner.lineno = getattr(inner, "lineno", None) or stmt.lineno
    return [found, branches] + stmt.finalbody


def _lowerable(stmt, resolve):
    if not (isinstance(stmt, gast.Try) and stmt.handlers and len(stmt.body) == 1):
        return False
    tried = stmt.body[0]
    returned = isinstance(tried, gast.Return) and tried.value is not None and not stmt.finalbody
    jumps = (gast.Return, gast.Break, gast.Continue, gast.Yield, gast.YieldFrom)
    parts = [tried.value, *stmt.handlers, *stmt.orelse, *stmt.finalbody]
    if not (isinstance(tried, gast.Assign) or returned) or any(
        isinstance(n, jumps) for part in parts for n in ir.walk(part)
    ):
        return False
    for handler in stmt.handlers:
        if handler.name is not None and handler.name.id in {
            n.id for s in handler.body for n in ir.walk(s) if isinstance(n, gast.Name)
        }:
            return False
    calls = [n for n in ir.walk(tried.value) if isinstance(n, gast.Call)]
    return all(_pure(call, resolve) for call in calls) and not any(
        isinstance(n, (gast.Lambda, gast.NamedExpr)) for n in ir.walk(tried.value)
    )


def _pure(call, resolve):
    """Whether `call` is of a registered primitive with no side effect."""
    record = registry.find(resolve(call.func))
    if record is None and isinstance(call.func, gast.Attribute):
        record = registry.method(call.func.attr)
    return record is not None and record.pure
