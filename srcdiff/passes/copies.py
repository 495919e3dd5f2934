"""Copy propagation: `a = b` disappears and a's readers read b."""

import heapq

import gast

from .. import ir

_COMPOUND = (gast.If, gast.For, gast.While)
_LOAD, _STORE, _DEL = gast.Load, gast.Store, gast.Del


def propagate_copies(func, name_nodes=None):
    """Replace a copy `a = b` (plain names) by reading b where a is read, when that reads the
    same value: a is assigned only there (and is no parameter), every read of a follows the
    copy in the same block, and b is not assigned between the copy and the last of them.

    Copies are taken in program order (a nested block's before the statement holding it), the
    first that qualifies each time; propagating `c = d` can only change whether a copy into d
    or a copy of c qualifies, so only those are looked at again. Each look reads an index of
    where each name is read and written, not the code after the copy. `name_nodes`: see
    CopyPropagation."""
    copies = CopyPropagation(func, name_nodes, _copy_names(func))
    copies.run()
    coalesce_temporaries(func, (copies.program.reads, copies.program.stores))
    return func


def coalesce_temporaries(func, counts=None):
    """`t = e` then `x = t` as `x = e`, where t is a temporary of the transform's (`_t6`,
    `b_t6`) written and read nowhere else (as a loop's `_t6 = total + _t5; total = _t6` is,
    once no stack saves total's old value between). `counts`: ({name: its reads}, {name: its
    writes, deletions and parameters}) kept current by the caller; else the names are
    counted here, once a look at the statements alone finds such a pair."""
    if counts is None:
        if not _coalesce(func.body, None):
            return
        counts = {}, {}
        for node in ir.names_under([func]):
            table = counts[0] if node.ctx.__class__ is _LOAD else counts[1]
            table[node.id] = table.get(node.id, 0) + 1
    _coalesce(func.body, counts)


def _coalesce(block, counts):
    """Coalesce the pairs in `block` and the blocks in it; with counts None, only whether
    there is a pair (with no look at how often its temporary is read or written)."""
    kept, found = [], False
    for stmt in block:
        if stmt.__class__ in ir.HOLDING_BLOCKS:  # (no look into the commonest: a simple statement)
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if inner.__class__ is list:
                    found = _coalesce(inner, counts) or found
        if stmt.__class__ is not gast.Assign:
            kept.append(stmt)
            continue
        before = kept[-1] if kept else None
        if (
            _is_copy(stmt)
            and _assigns_one_name(before)
            and before.targets[0].id == stmt.value.id
            and stmt.value.id.lstrip("bd").startswith("_")  # (f's names, and adjoints': kept)
        ):
            if counts is None:
                return True
            if counts[0].get(stmt.value.id) == 1 and counts[1].get(stmt.value.id) == 1:
                before.targets = stmt.targets
                continue
        kept.append(stmt)
    if counts is not None:
        block[:] = kept
    return found


def _copy_names(func):
    """The names the copies in `func` copy into or out of: all that propagating them reads
    of the index, or renames (the reads of a copy's target come to read its source, a
    name copied too), and all that coalescing the temporaries it leaves counts."""
    names = set()
    for stmt in ir.walk_statements(func):
        if _is_copy(stmt):
            names.add(stmt.targets[0].id)
            names.add(stmt.value.id)
    return names


def _assigns_one_name(stmt):
    """Whether `stmt` assigns one value to one plain name."""
    return (
        stmt.__class__ is gast.Assign
        and len(stmt.targets) == 1
        and stmt.targets[0].__class__ is gast.Name
    )


def _is_copy(stmt):
    return _assigns_one_name(stmt) and stmt.value.__class__ is gast.Name


class CopyPropagation:
    """Copy propagation over a function, keeping its index of where each name is read and
    written for a change made after a run (`changed`), and a run again over only the copies
    that change may let propagate: what a new propagate_copies would find, without indexing
    the whole function anew."""

    def __init__(self, func, name_nodes=None, names=None):
        """`name_nodes`: what gives the Name nodes below a statement, where another pass
        has found them already (else each statement is walked here); `names`: the only
        names to index (None: all), for a run that asks of no other."""
        self.params = {a.id for a in func.args.args + func.args.kwonlyargs}
        self.program = _Program(func, name_nodes, names)

    def run(self, orders=None):
        """Propagate the copies numbered `orders` (None: all) and those that then may."""
        program = self.program
        orders = range(len(program.copies)) if orders is None else orders
        queue = sorted((program.rank[o], o) for o in orders)  # (a sorted list is a heap)
        while queue:
            _, order = heapq.heappop(queue)
            copy = program.copies[order]
            if copy is None or not program.qualifies(copy, self.params):
                continue
            for again in program.propagate(order):
                heapq.heappush(queue, (program.rank[again], again))
        program.drop_removed()

    def uses(self, name):
        """[(Name node, the innermost statement holding it)] for each read, write and
        deletion of `name` in the function's statements; None if a parameter or a default
        value names it too."""
        program = self.program
        loads, writes = program.loads.get(name, {}), program.writes.get(name, {})
        if sum(times for _, _, times in loads.values()) != program.reads.get(name, 0) or sum(
            times for _, _, times in writes.values()
        ) != program.stores.get(name, 0):
            return None
        return [(node, stmt) for node, stmt, _ in (*loads.values(), *writes.values())]

    def reads(self, name):
        """[(Name node, the innermost statement holding it)] for each read of `name` in the
        function's statements."""
        return [(node, stmt) for node, stmt, _ in self.program.loads.get(name, {}).values()]

    def outermost(self, stmt):
        """The statement of the function's body that is or holds statement `stmt`."""
        place = self.program.place
        while place[id(stmt)][2] is not None:
            stmt = place[id(stmt)][2]
        return stmt

    def changed(self, stmt, taken):
        """Statement `stmt`, an assignment to a name, has a new value, which no longer holds
        the nodes `taken`: their reads leave the index. The orders of the copies to run again
        (`run`): those the reads taken out may have kept from propagating, and `stmt` if it
        is a copy now."""
        program, again = self.program, set()
        for node in taken:
            if node.__class__ is gast.Name and node.ctx.__class__ is _LOAD:
                _forget(program.loads[node.id], node, stmt)
                program.reads[node.id] -= 1
                again |= program.by_target.get(node.id, set())
        if isinstance(stmt.value, gast.Name):
            again.add(program.add_copy(stmt))
        return again


class _Program:
    """The statements of a function in blocks, with where each name is read and written."""

    def __init__(self, func, name_nodes=None, names=None):
        self.name_nodes = name_nodes
        self.indexed = names  # (None: all)
        self.place = {}  # id(statement) -> (id of its block, its index there, statement around)
        # name -> {(id(name node), id(statement)): [node, innermost statement holding it,
        # times it is there]} of the nodes reading it and writing it (gast trees share nodes)
        self.loads, self.writes = {}, {}
        # name -> how many nodes write it (parameters too), and read it
        self.stores, self.reads = {}, {}
        todo = []  # (the nodes outside the body: parameters, defaults; the body's: _index's)
        for field, value in gast.iter_fields(func):
            if field != "body":
                _push(value, todo)
        for node in ir.names_under(todo):
            if names is None or node.id in names:
                self._count(node)
        self.copies = []  # None once propagated
        self.copy_order = {}  # id(copy statement) -> its order
        self.rank = []  # of each copy: its statement's place in program order
        self.ranks = {}  # id(statement) -> its place in program order
        self.by_target, self.by_source = {}, {}  # name -> orders of copies into it, of it
        self.blocks = []
        self.else_blocks = set()  # (ids of the `orelse` blocks: left empty, they go unwritten)
        self._index(func.body, None)

    def _index(self, block, around):
        self.blocks.append(block)
        for index, stmt in enumerate(block):
            self.place[id(stmt)] = (id(block), index, around)
            self.ranks[id(stmt)] = len(self.ranks)
            if self.name_nodes is not None and stmt.__class__ not in ir.HOLDING_BLOCKS:
                self._index_names(self.name_nodes(stmt), id(stmt), stmt)
                if stmt.__class__ is gast.Assign and _is_copy(stmt):
                    self.add_copy(stmt)
                continue
            nested = []
            values = stmt.__dict__
            todo = []
            for field in stmt._fields:
                value = values.get(field)
                if field in ("body", "orelse") and value.__class__ is list:
                    nested.append(value)
                    if field == "orelse":
                        self.else_blocks.add(id(value))
                else:
                    _push(value, todo)
            self._index_names(ir.names_under(todo), id(stmt), stmt)
            for inner in nested:
                self._index(inner, stmt)
            if (
                isinstance(stmt, gast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], gast.Name)
                and isinstance(stmt.value, gast.Name)
            ):
                self.add_copy(stmt)

    def add_copy(self, stmt):
        """File the copy `stmt`, a statement of the function indexed; its order."""
        order = len(self.copies)
        self.copies.append(stmt)
        self.copy_order[id(stmt)] = order
        self.rank.append(self.ranks[id(stmt)])
        self.by_target.setdefault(stmt.targets[0].id, set()).add(order)
        self.by_source.setdefault(stmt.value.id, set()).add(order)
        return order

    def _index_names(self, names, stmt_id, stmt):
        """Count and file the Name nodes `names` of statement `stmt` (its id `stmt_id`).
        (_count's work inline: this runs for every name of the function.)"""
        loads, writes, reads, stores = self.loads, self.writes, self.reads, self.stores
        indexed = self.indexed
        for node in names:
            name, context = node.id, node.ctx.__class__
            if indexed is not None and name not in indexed:
                continue
            if context is _LOAD:
                reads[name] = reads.get(name, 0) + 1
                table = loads
            else:
                stores[name] = stores.get(name, 0) + 1
                if context is not _STORE and context is not _DEL:
                    continue  # (a parameter's: filed nowhere)
                table = writes
            by_name = table.get(name)
            if by_name is None:
                by_name = table[name] = {}
            where = (id(node), stmt_id)
            entry = by_name.get(where)
            if entry is None:
                by_name[where] = [node, stmt, 1]
            else:
                entry[2] += 1

    def _count(self, name):
        counts = self.reads if isinstance(name.ctx, gast.Load) else self.stores
        counts[name.id] = counts.get(name.id, 0) + 1

    def _in_block(self, stmt, block):
        """(index, statement) of the statement of `block` that is or holds `stmt`, or None."""
        while stmt is not None:
            where, index, around = self.place[id(stmt)]
            if where == block:
                return index, stmt
            stmt = around
        return None

    def qualifies(self, copy, params):
        target, source = copy.targets[0].id, copy.value.id
        if self.stores.get(target) != 1 or target in params or target == source:
            return False
        block, index, _ = self.place[id(copy)]
        loads = self.loads.get(target, {}).values()
        if sum(times for _, _, times in loads) != self.reads.get(target, 0):
            return False  # read outside the function's statements (a default value)
        last, last_stmt = -1, None
        for _, stmt, _ in loads:
            found = self._in_block(stmt, block)
            if found is None or found[0] <= index:
                return False  # read before the copy (an earlier iteration's value) or outside
            if found[0] > last:
                last, last_stmt = found
        for _, stmt, _ in self.writes.get(source, {}).values():
            found = self._in_block(stmt, block)
            if found is None or not index < found[0] <= last or _copy_back(found[1], copy):
                continue  # (`b = a` gives b the value it holds: it goes once a reads b)
            if found[0] < last or isinstance(last_stmt, _COMPOUND):
                return False  # (a simple statement reads its operands before it stores)
        return True

    def propagate(self, order):
        """Propagate the copy `c = d` numbered `order`; the orders of the copies to look at
        again (into d, or of c: now of d)."""
        copy = self.copies[order]
        target, source = copy.targets[0].id, copy.value.id
        self.copies[order] = None
        moved = self.loads.pop(target, {})
        for node, _, _ in moved.values():
            node.id = source
        into = self.loads.setdefault(source, {})
        for where, entry in moved.items():  # (a node read by two statements is in both)
            if where in into:
                into[where][2] += entry[2]
            else:
                into[where] = entry
        _forget(into, copy.value, copy)
        _forget(self.writes[target], copy.targets[0], copy)
        self.stores[target] = 0
        self.reads[source] = self.reads.get(source, 0) + self.reads.pop(target, 0) - 1
        self.by_target[target].discard(order)
        self.by_source[source].discard(order)
        renamed = self.by_source.pop(target, set())
        self.by_source[source] |= renamed
        for back in [o for o in renamed if self.copies[o].targets[0].id == source]:
            self._drop_self_copy(back)
        return renamed | self.by_target.get(source, set())

    def _drop_self_copy(self, order):
        """Take out the copy numbered `order`, now `b = b`."""
        stmt = self.copies[order]
        name = stmt.value.id
        _forget(self.writes[name], stmt.targets[0], stmt)
        _forget(self.loads[name], stmt.value, stmt)
        self.stores[name] -= 1
        self.reads[name] -= 1
        self.by_target[name].discard(order)
        self.by_source[name].discard(order)
        self.copies[order] = None

    def drop_removed(self):
        for block in self.blocks:
            was_empty = not block
            block[:] = [
                stmt
                for stmt in block
                if id(stmt) not in self.copy_order
                or self.copies[self.copy_order[id(stmt)]] is not None
            ]
            if not block and not was_empty and id(block) not in self.else_blocks:
                block.append(gast.Pass())  # (a loop's body that was one copy: `a = b`)


def _copy_back(stmt, copy):
    """Whether statement `stmt` is `b = a` for the copy `a = b`."""
    return (
        stmt.__class__ is gast.Assign
        and len(stmt.targets) == 1
        and stmt.targets[0].__class__ is gast.Name
        and stmt.targets[0].id == copy.value.id
        and stmt.value.__class__ is gast.Name
        and stmt.value.id == copy.targets[0].id
    )


def _forget(table, node, stmt):
    """Take one occurrence of `node` in `stmt` out of a table of loads or writes."""
    entry = table[id(node), id(stmt)]
    entry[2] -= 1
    if not entry[2]:
        del table[id(node), id(stmt)]


def _push(value, todo):
    """Put the nodes of a field's value (a node, a list of nodes, or neither) on `todo`."""
    if isinstance(value, gast.AST):
        todo.append(value)
    elif value.__class__ is list:
        todo.extend([item for item in value if isinstance(item, gast.AST)])
