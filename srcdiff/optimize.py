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
    """Drop assignments to plain names that nothing reads (forward values the adjoint does
    not need, adjoints nobody consumes), until none is left."""
    while True:
        loaded = ir.names_in(func)
        removed = _sweep(func.body, loaded)
        if not removed:
            return func


def _sweep(body, loaded):
    removed = 0
    kept = []
    for stmt in body:
        for field in ("body", "orelse"):
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                removed += _sweep(getattr(stmt, field), loaded)
                if field == "body" and not stmt.body:
                    stmt.body.append(gast.Pass())
        targets = stmt.targets if isinstance(stmt, gast.Assign) else []
        names = [t for t in targets if isinstance(t, gast.Name)]
        if names and len(names) == len(targets) and not any(n.id in loaded for n in names) \
                and _pure(stmt.value):
            removed += 1
            continue
        kept.append(stmt)
    body[:] = kept
    return removed


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
