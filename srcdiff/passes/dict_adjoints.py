"""Dict adjoints written as a person writes them: `bp = {'w': bw, 'b': bb}` where the reverse
sweep built one key at a time (`bp = runtime.getitem_grad(bb, p, 'b')`, then
`bp = runtime.add_at(bp, p, 'w', bw)`, ...)."""

import gast

from .. import ir, runtime


def gather_dict_adjoints(func):
    """Replace each such chain by one dict display where the chain ends, when nothing but the
    chain reads or writes the adjoint between its first statement and its last, and the
    values it gathers are names no statement between reassigns. The display is a plain dict
    where only `runtime.as_grad` reads the adjoint (as_grad fills in the keys that got no
    gradient); elsewhere it is the `runtime.Sparse` the chain made (a caller adds it to its
    own, and a key that got nothing reads as 0.0)."""
    _gather(func.body, func)
    return func


def _gather(block, func):
    for stmt in block:
        for field in ("body", "orelse"):
            if isinstance(getattr(stmt, field, None), list):
                _gather(getattr(stmt, field), func)
    index = 0
    while index < len(block):
        chain = _chain(block, index)
        if chain:
            target = chain[0][0]
            # keys in the order the function reads them (the reverse of the chain's); a
            # key's values summed in the chain's order, as the chain summed them
            items = {key: [] for _, _, key, _, _ in reversed(chain)}
            for _, _, key, value, _ in chain:
                items[key].append(value)
            display = gast.Dict(
                keys=[ir.const(key) for key in items],
                values=[_sum(values) for values in items.values()],
            )
            if not _read_only_by_as_grad(func, target, len(chain)):
                display = ir.call(f"runtime.{runtime.Sparse.__name__}", display)
            positions = [position for *_, position in chain]
            block[positions[-1]] = ir.assign(target, display)
            for position in reversed(positions[:-1]):
                del block[position]
        index += 1


def _chain(block, start):
    """[(target, container, key, value, position)] of the chain starting at block[start]."""
    first = _item(block[start], runtime.getitem_grad.__name__)
    if first is None:
        return []
    chain, (target, container) = [first + (start,)], first[:2]
    moved = {first[3].id}  # names the display will read where the chain ends
    for position in range(start + 1, len(block)):
        stmt = block[position]
        item = _item(stmt, runtime.add_at.__name__)
        if item is not None and item[:2] == (target, container):
            chain.append(item + (position,))
            moved.add(item[3].id)
            continue
        written = ir.names_in(stmt, gast.Store) | ir.names_in(stmt, gast.Del)
        if target in ir.names_in(stmt) | written or written & (moved | {container}):
            break
    # (a value read from the adjoint itself is the chain's partial sum, which it no longer is)
    return chain if len(chain) > 1 and not {target, container} & moved else []


def _item(stmt, helper):
    """(target, container, key, value) of `target = runtime.<helper>(...)` with a string key
    and a plain name as the value, else None."""
    if not (
        isinstance(stmt, gast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], gast.Name)
        and isinstance(stmt.value, gast.Call)
        and ir.dotted(stmt.value.func) == ("runtime", helper)
        and not stmt.value.keywords
    ):
        return None
    args = stmt.value.args
    if helper == runtime.add_at.__name__:
        if not (
            len(args) == 4 and isinstance(args[0], gast.Name) and args[0].id == stmt.targets[0].id
        ):
            return None
        args = [args[3], args[1], args[2]]
    if (
        len(args) == 3
        and isinstance(args[0], gast.Name)
        and isinstance(args[1], gast.Name)
        and isinstance(args[2], gast.Constant)
        and type(args[2].value) is str
    ):
        return stmt.targets[0].id, args[1].id, args[2].value, args[0]
    return None


def _read_only_by_as_grad(func, target, writes):
    """Whether `target` is written only by the chain's `writes` statements and read only as
    the first argument of runtime.as_grad (outside the chain)."""
    stores = loads = as_grad = 0
    for node in ir.walk(func):
        if isinstance(node, gast.Name) and node.id == target:
            stores += isinstance(node.ctx, gast.Store)
            loads += isinstance(node.ctx, gast.Load)
        elif (
            isinstance(node, gast.Call)
            and node.args
            and isinstance(node.args[0], gast.Name)
            and node.args[0].id == target
            and ir.dotted(node.func) == ("runtime", runtime.as_grad.__name__)
        ):
            as_grad += 1
    return stores == writes and loads == (writes - 1) + as_grad and as_grad > 0


def _sum(values):
    total = values[0]
    for value in values[1:]:
        total = gast.BinOp(left=total, op=gast.Add(), right=value)
    return total
