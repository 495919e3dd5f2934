"""Dict adjoints written as a person writes them: `bp = {'w': bw, 'b': bb}` where the reverse
sweep built one key at a time (`bp = runtime.getitem_grad(bb, p, 'b')`, then
`bp = runtime.add_at(bp, p, 'w', bw)`, ...); and, in code specialised for its arguments, an
array's adjoint built row by row the same way as `bx = np.array([bx0, bx1])`."""

from typing import NamedTuple

import gast

from .. import ir, runtime
from ..shapes import Typed


class _Link(NamedTuple):
    """One statement of a chain: `target = runtime.getitem_grad(value, container, key)` or
    `target = runtime.add_at(target, container, key, value)`."""

    target: str
    container: str
    key: object
    value: gast.Name
    call: gast.Call
    position: int = 0


def gather_dict_adjoints(func):
    """Replace each such chain by one dict display where the chain ends, when nothing but the
    chain reads or writes the adjoint between its first statement and its last, and the
    values it gathers are names no statement between reassigns. The display is a plain dict
    where only `runtime.as_grad` reads the adjoint (as_grad fills in the keys that got no
    gradient); elsewhere it is the `runtime.Sparse` the chain made (a caller adds it to its
    own, and a key that got nothing reads as 0.0)."""
    _gather(func.body, lambda chain: _dict_display(chain, func))
    return func


def gather_row_adjoints(func, seen):
    """The same in code specialised for its arguments (specialize.py), for an array whose
    rows are all read at constant positions: `bx = np.array([bx0, bx1, bx2])`, where `seen`
    (the interpreter's records of the calls) says that the rows' adjoints have the rows'
    shape and the array's float dtype, so the display holds the chain's numbers exactly."""
    _gather(func.body, lambda chain: _array_display(chain, seen))
    return func


def _gather(block, display):
    for stmt in block:
        for field in ("body", "orelse"):
            if isinstance(getattr(stmt, field, None), list):
                _gather(getattr(stmt, field), display)
    index = 0
    while index < len(block):
        chain = _chain(block, index)
        written = display(chain) if chain else None
        if written is not None:
            block[chain[-1].position] = ir.assign(chain[0].target, written)
            for link in reversed(chain[:-1]):
                del block[link.position]
        index += 1


def _dict_display(chain, func):
    if not all(type(link.key) is str for link in chain):
        return None
    items = _summed(chain)
    display = gast.Dict(keys=[ir.const(key) for key in items], values=list(items.values()))
    if _read_only_by_as_grad(func, chain[0].target, len(chain)):
        return display
    return ir.call(f"runtime.{runtime.Sparse.__name__}", display)


def _array_display(chain, seen):
    records = [seen.get(id(link.call)) for link in chain]
    if None in records:
        return None
    array = records[0][1][1]  # (x of getitem_grad(g, x, index) and of add_at(b, x, index, g))
    rows = [values[0] if len(values) == 3 else values[3] for _, values in records]
    if not (
        isinstance(array, Typed)
        and array.is_array
        and array.dtype.kind in "fc"
        and len(array.shape) > 0
        and all(type(link.key) is int for link in chain)
        and {link.key for link in chain} == set(range(array.shape[0]))
        and all(isinstance(row, Typed) for row in rows)
        and all((row.shape, row.dtype) == (array.shape[1:], array.dtype) for row in rows)
    ):
        return None
    items = _summed(chain)
    return ir.call("np.array", gast.List(elts=[items[k] for k in sorted(items)], ctx=gast.Load()))


def _summed(chain):
    """{key: the sum of its values}: keys in the order the function reads them (the reverse
    of the chain's), a key's values summed in the chain's order, as the chain summed them."""
    items = {link.key: [] for link in reversed(chain)}
    for link in chain:
        items[link.key].append(link.value)
    return {key: _sum(values) for key, values in items.items()}


def _chain(block, start):
    """The links of the chain starting at block[start] (none if it is not one)."""
    first = _link(block[start], runtime.getitem_grad.__name__)
    if first is None:
        return []
    chain = [first._replace(position=start)]
    moved = {first.value.id}  # names the display will read where the chain ends
    for position in range(start + 1, len(block)):
        stmt = block[position]
        link = _link(stmt, runtime.add_at.__name__)
        if link is not None and link[:2] == first[:2]:
            chain.append(link._replace(position=position))
            moved.add(link.value.id)
            continue
        written = ir.names_in(stmt, gast.Store) | ir.names_in(stmt, gast.Del)
        if first.target in ir.names_in(stmt) | written or written & (moved | {first.container}):
            break
    # (a value read from the adjoint itself is the chain's partial sum, which it no longer is)
    return chain if len(chain) > 1 and not {first.target, first.container} & moved else []


def _link(stmt, helper):
    """The _Link of `target = runtime.<helper>(...)` with a constant key and a plain name as
    the value, else None."""
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
        and type(args[2].value) in (str, int)
    ):
        return _Link(stmt.targets[0].id, args[1].id, args[2].value, args[0], stmt.value)
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
