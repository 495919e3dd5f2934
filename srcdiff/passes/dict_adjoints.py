"""Dict adjoints written as a person writes them: `bp = {'w': bw, 'b': bb}` where the reverse
sweep built one key at a time (`bp = runtime.getitem_grad(bb, p, 'b')`, then
`bp = runtime.add_at(bp, p, 'w', bw)`, ...), nested where the items are dicts too
(`{'head': {'w': bw, 'b': bb}}`, not a sum of one-key dicts), with the adjoint that a loop
adds to a key summed in a name of its own (`bhead`, or `bparams_blocks` where `blocks` names
something else) and the dict built once, after it;
and, in code specialised for its arguments, an array's adjoint built row by row the same way
as `bx = np.array([bx0, bx1])`."""

import keyword
from collections import Counter
from typing import NamedTuple

import gast

from .. import ir, runtime
from ..annotations import Mark, mark
from ..shapes import Typed


class _Link(NamedTuple):
    """One statement of a chain: `target = runtime.getitem_grad(value, container, key)` or
    `target = runtime.add_at(target, container, key, value)`; or its start
    `target = runtime.zeros_like(container)` (key and value None)."""

    target: str
    container: str
    key: object
    value: gast.Name
    call: gast.Call
    position: int = 0


class _Uses:
    """How often each name is written and read in a function, and read as the first argument
    of runtime.as_grad: counted once, and kept up to date by the rewrites that change it."""

    def __init__(self, func):
        self.stores, self.loads, self.as_grad = Counter(), Counter(), Counter()
        calls = []
        for node in ir.names_under([func], _CALLS, calls):
            (self.loads if isinstance(node.ctx, gast.Load) else self.stores)[node.id] += 1
        for node in calls:
            helper = ir.dotted(node.func)
            if helper == _AS_GRAD and node.args and _is_name(node.args[0]):
                self.as_grad[node.args[0].id] += 1

    def single(self, name):
        """Whether `name` is written once and read once."""
        return self.stores[name] == 1 and self.loads[name] == 1


def gather_dict_adjoints(func, others=()):
    """Replace each such chain by one dict display where the chain ends, when nothing but the
    chain reads or writes the adjoint between its first statement and its last, and the
    values it gathers are names no statement between reassigns. The display is a plain dict
    where only `runtime.as_grad` reads the adjoint (as_grad fills in the keys that got no
    gradient); elsewhere it is the `runtime.Sparse` the chain made (a caller adds it to its
    own, and a key that got nothing reads as 0.0). A loop whose body only adds to the adjoint
    at constant keys adds to one sum per key instead (0.0 before the loop: add_at's start),
    each added to the adjoint after it, where the chain goes on. Returns whether it wrote
    any (the values the chains read, a dict's shape, may be dead now). `others`: the other
    functions of the module (the forward sweep's locals, which a sum's name must not
    seem to be the adjoint of)."""
    if not _has_links(func.body):
        return False  # (most functions have no dicts: spare them the walks below)
    uses = _Uses(func)
    names = ir.Names(func, set(uses.loads) | set(uses.stores))  # (all the names of func)
    sums = _Sums(names, uses, {}, [], others, set())
    _hoist(func.body, ir.names_in(func.args, gast.Param), sums)
    uses = _Uses(func) if sums.starts else uses  # (a loop's sums made: counted anew)
    made = _gather(
        func.body,
        lambda chain: _dict_display(chain, uses),
        lambda block, stmt: _nest_display(block, stmt, uses),
    )
    for block, stmt in sums.added:  # (the value added at an item: a dict's adjoint written out?)
        nested = _nested(stmt.value.args[3], block, stmt, uses)
        stmt.value.args[3] = stmt.value.args[3] if nested is None else nested
    return bool(made or sums.starts)


def _has_links(block):
    """Whether a statement in `block` or a block below it could be a link of a chain (its
    start, or an addition a loop's sum could take): looking at statements only, not their
    expressions."""
    for stmt in block:
        if (
            stmt.__class__ is gast.Assign
            and stmt.value.__class__ is gast.Call
            and ir.dotted(stmt.value.func) in _CHAIN_HELPERS  # (a look first: most are not)
            and (
                _link(stmt, runtime.add_at.__name__)
                or _link(stmt, runtime.getitem_grad.__name__)
                or _zeros(stmt)
            )
        ):
            return True
        values = stmt.__dict__
        for field in ("body", "orelse", "finalbody"):
            inner = values.get(field)
            if inner and inner.__class__ is list and _has_links(inner):
                return True
        if any(_has_links(handler.body) for handler in values.get("handlers", ())):
            return True
    return False


_CHAIN_HELPERS = {
    ("runtime", helper.__name__)
    for helper in (runtime.add_at, runtime.getitem_grad, runtime.zeros_like)
}


def gather_row_adjoints(func, seen):
    """The same in code specialised for its arguments (specialize.py), for an array whose
    rows are all read at constant positions: `bx = np.array([bx0, bx1, bx2])`, where `seen`
    (the interpreter's records of the calls) says that the rows' adjoints have the rows'
    shape and the array's float dtype, so the display holds the chain's numbers exactly."""
    _gather(func.body, lambda chain: _array_display(chain, seen))
    return func


def _gather(block, display, nest=None):
    """Write the chains in `block` and the blocks below it as displays; returns how many."""
    inner = 0
    for stmt in block:
        for field in ("body", "orelse"):
            if isinstance(getattr(stmt, field, None), list):
                inner += _gather(getattr(stmt, field), display, nest)
    made = []
    index = 0
    names_of = _NamesOf()
    while index < len(block):
        chain = _chain(block, index, names_of)
        written = display(chain) if chain else None
        if written is not None:
            block[chain[-1].position] = ir.assign(chain[0].target, written)
            made.append(block[chain[-1].position])
            for link in reversed(chain[:-1]):
                del block[link.position]
        index += 1
    for stmt in made if nest else ():
        nest(block, stmt)
    return inner + len(made)


def _dict_display(chain, uses):
    links = [link for link in chain if link.value is not None]
    if not all(type(link.key) is str for link in links):
        return None
    target, writes = chain[0].target, len(chain)
    only_as_grad = (
        uses.stores[target] == writes
        and uses.loads[target] == (writes - 1) + uses.as_grad[target]
        and uses.as_grad[target] > 0
    )
    uses.stores[target] -= writes - 1
    uses.loads[target] -= writes - 1
    items = _summed(links)
    display = gast.Dict(keys=[ir.const(key) for key in items], values=list(items.values()))
    return display if only_as_grad else ir.call(f"runtime.{runtime.Sparse.__name__}", display)


def _array_display(chain, seen):
    records = [seen.get(id(link.call)) for link in chain]
    if len(chain) < 2 or chain[0].value is None or None in records:
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


class _NamesOf:
    """(the names read, those stored or deleted) by a statement, found once: a chain's scan
    passes each statement after its start, many of them loops, once per start."""

    def __init__(self):
        self.found = {}  # id(stmt) -> (stmt, read, written): stmt kept, so its id is its own

    def __call__(self, stmt):
        found = self.found.get(id(stmt))
        if found is None:
            found = self.found[id(stmt)] = (stmt, *ir.reads_and_writes(stmt))
        return found[1:]


def _chain(block, start, names_of):
    """The links of the chain starting at block[start] (none if it is not one); `names_of`
    gives a statement's (read, written) names."""
    if getattr(block[start], "value", None).__class__ is not gast.Call:
        return []  # (the commonest: no call, so no start of a chain)
    first = _link(block[start], runtime.getitem_grad.__name__) or _zeros(block[start])
    if first is None:
        return []
    chain = [first._replace(position=start)]
    moved = set()  # names the display will read where the chain ends
    if first.value is not None:
        moved.add(first.value.id)
    ends = moved | {first.container}  # (names whose new value would end the chain)
    for position in range(start + 1, len(block)):
        stmt = block[position]
        read, written = names_of(stmt)
        if first.target in read:  # (a link reads the adjoint: other statements pass quickly)
            link = _link(stmt, runtime.add_at.__name__)
            if link is not None and link[:2] == first[:2]:
                chain.append(link._replace(position=position))
                moved.add(link.value.id)
                ends.add(link.value.id)
                continue
        if first.target in read or first.target in written or not ends.isdisjoint(written):
            break
    # (a value read from the adjoint itself is the chain's partial sum, which it no longer is)
    if {first.target, first.container} & moved or len(chain) < 1 + (first.value is None):
        return []
    return chain


def _link(stmt, helper):
    """The _Link of `target = runtime.<helper>(...)` with a constant key and a plain name as
    the value, else None."""
    if not (_assigns_call(stmt, helper) and not stmt.value.keywords):
        return None
    args = stmt.value.args
    if helper == runtime.add_at.__name__:
        if not (len(args) == 4 and _is_name(args[0]) and args[0].id == stmt.targets[0].id):
            return None
        args = [args[3], args[1], args[2]]
    if (
        len(args) == 3
        and _is_name(args[0])
        and _is_name(args[1])
        and isinstance(args[2], gast.Constant)
        and type(args[2].value) in (str, int)
    ):
        return _Link(stmt.targets[0].id, args[1].id, args[2].value, args[0], stmt.value)
    return None


def _zeros(stmt):
    """The start of a chain `target = runtime.zeros_like(container)` (an empty Sparse where
    the chain's keys show the container to be a dict), else None."""
    if not (_assigns_call(stmt, runtime.zeros_like.__name__) and not stmt.value.keywords):
        return None
    args = stmt.value.args
    if len(args) == 1 and _is_name(args[0]):
        return _Link(stmt.targets[0].id, args[0].id, None, None, stmt.value)
    return None


class _Sums(NamedTuple):
    """What taking additions out of loops keeps: the function's names (a sum's is fresh), its
    _Uses, the sums it made, each with the statement that starts it (`bk = 0.0`), and the
    additions at an item of one, [(block, `bk = runtime.add_at(bk, x, i, g)`)]."""

    names: ir.Names
    uses: _Uses
    starts: dict
    added: list
    others: list
    locals: set  # (the names of `others`, found when a sum is first named)

    def total_name(self, target, key):
        """The name of a sum of adjoint `target` at `key`: `b<key>` where no name of the
        module is `key` or that (the adjoint of a variable `key` would be), else
        `<target>_<key>` (bparams_blocks, the adjoint of params['blocks'])."""
        if not self.locals:
            self.locals.update(n.id for f in self.others for n in ir.walk(f) if _is_name(n))
        plain = "b" + key
        if any(name in self.locals or name in self.names.used for name in (key, plain)):
            plain = f"{target}_{key}"
        if not plain.isidentifier() or keyword.iskeyword(plain):
            plain = target + "_item"
        return self.names.named(plain)


def _hoist(block, bound, sums):
    """Take the adjoint's additions at constant keys out of each loop in `block` (the
    innermost first), where `bound` holds the names surely bound before it."""
    position = 0
    while position < len(block):
        stmt = block[position]
        if isinstance(stmt, (gast.For, gast.While)):
            target = stmt.target if isinstance(stmt, gast.For) else stmt.test
            _hoist(stmt.body, bound | ir.names_in(target, gast.Store), sums)
            _hoist(stmt.orelse, set(bound), sums)
            before, after = _out_of_loop(stmt, bound, sums)
            block[position : position + 1] = before + [stmt] + after
            position += len(before) + len(after)
        elif isinstance(stmt, gast.If):
            _hoist(stmt.body, set(bound), sums)
            _hoist(stmt.orelse, set(bound), sums)
        elif isinstance(stmt, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
            bound |= ir.names_in(stmt, gast.Store)
        position += 1


def _out_of_loop(loop, bound, sums):
    """The statements to put before and after `loop` (in place, its body's additions
    `b = runtime.add_at(b, p, 'k', v)` become `bk = bk + v`, where an inner loop's sum
    `v` goes on summing in this one's), for each _hoistable adjoint b."""
    before, after, dead = [], [], []
    for target, chain in _hoistable(loop, bound):
        totals = {}
        for link in chain:
            start = sums.starts.get(link.value.id)
            if link.key not in totals and any(stmt is start for stmt in loop.body):
                totals[link.key] = link.value.id  # (its start goes before this loop)
                dead += [_position(loop.body, start), link.position]
                before.append(start)
                after.append(_add_at(target, chain[0].container, link.key, link.value))
                continue
            if link.key not in totals:
                totals[link.key] = sums.total_name(target, link.key)
                start = mark(ir.assign(totals[link.key], ir.const(0.0)), Mark.FRESH)
                sums.starts[totals[link.key]] = start
                before.append(start)
                after.append(
                    _add_at(target, chain[0].container, link.key, ir.name(totals[link.key]))
                )
            dead.append(_add_to(totals[link.key], link, loop.body, sums.uses))
            if dead[-1] is not None:
                sums.added.append((loop.body, loop.body[link.position]))
    for position in sorted((p for p in dead if p is not None), reverse=True):
        del loop.body[position]
    return before, after


def _hoistable(loop, bound):
    """[(b, its additions in the loop's body)] for each adjoint b that the loop reads and
    writes only in additions `b = runtime.add_at(b, p, 'k', v)` to a dict p it does not
    write, b and p bound before the loop (which might run no times: b stays as it was)."""
    chains = {}
    for position, stmt in enumerate(loop.body):
        link = _link(stmt, runtime.add_at.__name__)
        if link is not None and type(link.key) is str:
            chains.setdefault(link.target, []).append(link._replace(position=position))
    if not chains:
        return []
    written = ir.names_in(loop, gast.Store) | ir.names_in(loop, gast.Del)
    occurrences = Counter(node.id for node in ir.walk(loop) if isinstance(node, gast.Name))
    return [
        (target, chain)
        for target, chain in chains.items()
        if {target, chain[0].container} <= bound
        and chain[0].container not in written
        and occurrences[target] == 2 * len(chain)
        and all(link.container == chain[0].container for link in chain)
        and not {target, chain[0].container} & {link.value.id for link in chain}
    ]


def _position(block, stmt):
    return next(k for k, each in enumerate(block) if each is stmt)


def _add_to(total, link, body, uses):
    """Write link's addition into `total`: `total = runtime.add_at(total, x, i, g)` where
    the value added is `v = runtime.getitem_grad(g, x, i)`, read only there (the position
    of that statement, which goes, is returned), else `total = total + v`."""
    found = _definition(body, link.position, link.value.id, uses)
    call = found and body[found[0]].value
    if call is None or not _calls(call, runtime.getitem_grad) or len(call.args) != 3:
        body[link.position] = mark(
            ir.assign(total, gast.BinOp(left=ir.name(total), op=gast.Add(), right=link.value)),
            Mark.ACCUMULATION,
        )
        return None
    g, x, index = call.args
    body[link.position] = ir.assign(total, ir.call("runtime.add_at", ir.name(total), x, index, g))
    uses.stores[link.value.id] = uses.loads[link.value.id] = 0
    return found[0]


def _nest_display(block, stmt, uses):
    """Write each value of the display `stmt` assigns that adds up adjoints of a temporary's
    items (`b_t1 = runtime.getitem_grad(bw, _t1, 'w')`, or a display of its own) as one
    display, nested in it, where nothing else reads them."""
    if not any(each is stmt for each in block):
        return  # (it went into another display)
    display = stmt.value if isinstance(stmt.value, gast.Dict) else stmt.value.args[0]
    for k, value in enumerate(display.values):
        nested = _nested(value, block, stmt, uses)
        display.values[k] = value if nested is None else nested


def _nested(expr, block, user, uses):
    """The display that sum `expr` (read in statement `user` of `block`) adds up, where each
    of its terms is the adjoint of a temporary's items (a name starting `b_`) read only
    there, assigned in `block` before `user` by a statement the _items of which nothing
    between reassigns; those statements go. Else None."""
    terms = _terms(expr)
    end = _position(block, user)
    found = [_definition(block, end, t.id, uses) if _is_name(t) else None for t in terms]
    if any(f is None or f[1] is None or not t.id.startswith("b_") for t, f in zip(terms, found)):
        return None
    items = {key: [] for _, pairs in reversed(found) for key, _ in pairs}
    for _, pairs in found:  # (the keys in the order the terms' last reads are, as _summed)
        for key, value in pairs:
            items[key].append(value)
    for position in sorted((position for position, _ in found), reverse=True):
        del block[position]
    for term in terms:
        uses.stores[term.id] = uses.loads[term.id] = 0
    display = gast.Dict(keys=[ir.const(key) for key in items], values=[])
    for values in items.values():
        nested = _nested(_sum(values), block, user, uses)
        display.values.append(_sum(values) if nested is None else nested)
    return display


def _definition(block, end, name, uses):
    """(position, _items) of the statement before block[end] that assigns `name`, where
    `name` is written and read once and nothing between reassigns what that statement reads
    (the _items None where it is not a display); else None."""
    if not uses.single(name):
        return None
    for position in range(end - 1, -1, -1):
        stmt = block[position]
        if (
            isinstance(stmt, gast.Assign)
            and len(stmt.targets) == 1
            and _is_name(stmt.targets[0])
            and stmt.targets[0].id == name
        ):
            break
    else:
        return None
    read = ir.names_in(stmt.value)
    for between in block[position + 1 : end]:
        if read & (ir.names_in(between, gast.Store) | ir.names_in(between, gast.Del)):
            return None
    return position, _items(stmt.value)


def _items(value):
    """[(key, value)] of a dict's adjoint written out: `runtime.getitem_grad(g, x, 'k')` (x a
    name), or a display (with constant keys, each once) plain or in `runtime.Sparse`."""
    if _calls(value, runtime.getitem_grad) and len(value.args) == 3 and not value.keywords:
        g, x, key = value.args
        if _is_name(x) and isinstance(key, gast.Constant) and type(key.value) is str:
            return [(key.value, g)]
        return None
    if _calls(value, runtime.Sparse) and len(value.args) == 1 and not value.keywords:
        value = value.args[0]
    if not isinstance(value, gast.Dict):
        return None
    keys = [k.value if isinstance(k, gast.Constant) else None for k in value.keys]
    if not all(type(k) is str for k in keys) or len(set(keys)) < len(keys):
        return None
    return list(zip(keys, value.values))


def _add_at(target, container, key, value):
    return ir.assign(
        target, ir.call("runtime.add_at", ir.name(target), ir.name(container), ir.const(key), value)
    )


_AS_GRAD = ("runtime", runtime.as_grad.__name__)
_CALLS = frozenset((gast.Call,))


def _assigns_call(stmt, helper):
    """Whether `stmt` is `name = runtime.<helper>(...)`."""
    return (
        isinstance(stmt, gast.Assign)
        and len(stmt.targets) == 1
        and _is_name(stmt.targets[0])
        and isinstance(stmt.value, gast.Call)
        and ir.dotted(stmt.value.func) == ("runtime", helper)
    )


def _calls(node, function):
    return isinstance(node, gast.Call) and ir.dotted(node.func) == ("runtime", function.__name__)


def _is_name(node):
    return isinstance(node, gast.Name)


def _terms(expr):
    """The terms of a sum a + b + ..., in order."""
    if isinstance(expr, gast.BinOp) and isinstance(expr.op, gast.Add):
        return _terms(expr.left) + _terms(expr.right)
    return [expr]


def _sum(values):
    total = values[0]
    for value in values[1:]:
        total = gast.BinOp(left=total, op=gast.Add(), right=value)
    return total
