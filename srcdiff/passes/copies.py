"""Copy propagation: `a = b` disappears and a's readers read b."""
import gast

from .. import ir


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
