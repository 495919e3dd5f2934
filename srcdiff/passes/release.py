"""Early release: a backward function frees each saved value after its last use."""

import gast

from .. import ir


def release_early(func):
    """Insert `del` right after the last top-level statement that uses a local, so large
    intermediates are freed during the adjoint sweep instead of at return (peak memory)."""
    params = {a.id for a in func.args.args + func.args.kwonlyargs}
    body = func.body
    uses = [  # (the names read or stored: one walk of each statement)
        {n.id for n in ir.name_nodes(stmt) if n.ctx.__class__ is not gast.Del} for stmt in body
    ]
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
            out.append(
                gast.Delete(targets=[ir.name(n, store=False) for n in sorted(releases[index])])
            )
            for target in out[-1].targets:
                target.ctx = gast.Del()
    func.body = out
    return func
