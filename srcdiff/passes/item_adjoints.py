"""An item of a returned tuple's adjoint read where it was placed: `runtime.adjoint_at(b, x,
1)` is `blogdet` after `b = runtime.getitem_grad(blogdet, x, 1)` (specialised code reads
items so: primitives/linalg_helpers.py), so that b, the Sparse holding it, goes."""

import gast

from .. import ir, runtime


def forward_item_adjoints(func):
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
        found = _placing(stmt)
        if found is not None and len(writes.get(found[0], ())) == 1:
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
    for field, value in gast.iter_fields(node):
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
