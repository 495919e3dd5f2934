"""Stage 2d, after ANF: a read that is the same in every iteration of a loop, done once before it.

`for i in range(len(params['blocks'])): ... params['blocks'][i] ...` reads `params['blocks']`
in each iteration (`_t0 = params['blocks']`), and the reverse sweep would keep that value (its
shape) once per iteration, on a stack. A person reads it once, before the loop:

    params_blocks = params['blocks']
    for i in range(len(params_blocks)):
        _t1 = params_blocks[i]

A read `t = c[k]` or `t = c.a` (k a constant) at the top of a `for` loop's body moves before
the loop where it is surely the same in every iteration and surely succeeds there:
- nothing in the loop rebinds c (an item written into a dict rebinds it: containers.py), pushes
  onto or pops from it, or names it in a statement kept for its effect; and, for an index that
  may take a row, an element or a view of an array (an int, an attribute: x.T), nothing in
  the loop writes into an array (what that holds would change);
- t is assigned nowhere else in the function;
- the read surely succeeds before the loop (a loop that runs no iteration must not raise a
  KeyError the function would not): the expression the loop iterates over makes it
  (`range(len(params['blocks']))`), or an assignment in straight-line code before the loop
  did, c not rebound since (then the loop reads that name instead), or the loop is over
  range(n), n a constant > 0, and its body makes the read before any branch.
A temporary moved so is named after what it reads (`params_blocks`, whose adjoint is then
`bparams_blocks`), and the loop's expression reads it by that name. After its reads, a `for` or
`while` loop's invariant computations move too (loop_computations.py).
"""

import re
from collections import Counter

import gast

from . import ir
from .loop_computations import invariant_computations

# expressions below which a part may not be evaluated (nor, then, its reads be sure to succeed)
_CONDITIONAL = (gast.IfExp, gast.BoolOp, gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp)
_CONDITIONAL += (gast.GeneratorExp,)
_COMPOUND = (ir.For, ir.If, ir.While)
_TEMPORARY = re.compile(r"_t\d+")  # (ANF's names: names.fresh("_t") is never a user's)


def hoist_loop_reads(func, names):
    """Move the loop-invariant reads and computations of `func` (an ir.Function, changed in
    place) out of its loops, innermost first; `names` (ir.Names) gives the moved reads their
    names."""
    statements = _statements(func.body)
    if not any(isinstance(stmt, (ir.For, ir.While)) for stmt in statements):
        return
    stores, writes_arrays = Counter(), False
    for stmt in statements:
        stores.update(_stored(stmt))
        writes_arrays = writes_arrays or stmt.__class__ is ir.SetItem
    _Hoister(func, stores, names, not writes_arrays).block(func.body, {})


class _Hoister:
    def __init__(self, func, stores, names, computations_move):
        self.func, self.stores, self.names = func, stores, names
        self.paths = {}  # a moved read's target -> the path it reads, (c, k, ...)
        # (loop_computations.py: none moves in a function writing into an array)
        self.computations_move = computations_move

    def block(self, block, known):
        """Hoist in `block`; `known`: {path: name holding it} of the reads surely done (and
        still the same) when the block starts, updated as it goes on."""
        position = 0
        while position < len(block):
            stmt = block[position]
            moved = []
            if isinstance(stmt, _COMPOUND):
                written, writes_arrays = _effects(stmt)
                if isinstance(stmt, ir.For):
                    moved = self.loop(stmt, known, set(written), writes_arrays)
                elif isinstance(stmt, ir.If):
                    self.block(stmt.body, dict(known))
                    self.block(stmt.orelse, dict(known))
                else:  # (a while loop: what it rebinds differs in a later iteration)
                    self.block(stmt.body, _kept(known, written))
                    moved = self.computations(stmt, set(written), ())
                block[position:position] = moved
                position += len(moved)
                _forget(known, written, writes_arrays)
            elif known:
                _forget(known, _stored(stmt), isinstance(stmt, ir.SetItem))
            for done in moved + [stmt]:
                path = self.path(done)
                if path is not None and path[0] not in _stored(done):
                    known[path] = done.targets[0]
            position += 1

    def loop(self, loop, known, written, writes_arrays):
        """The reads to move out of `loop` (taken out of its body), the inner loops' first;
        `written`: the names the loop binds, `writes_arrays`: whether it writes into one."""
        sure = _kept(known, written)
        sure.update((p, None) for p in _paths_read(loop.iter))
        self.block(loop.body, dict(sure))
        # (a loop surely running an iteration surely reads what that does before any branch)
        first = {id(stmt) for stmt in _before_branches(loop.body)} if _runs(loop.iter) else ()
        moved = []
        for stmt in list(loop.body):
            path = self.path(stmt)
            if (
                path is not None
                and (path in sure or id(stmt) in first)
                and not {path[0], stmt.value.value.id} & written
                and self.stores[stmt.targets[0]] == 1
                and not (writes_arrays and type(path[-1]) is not str)
                and not _touched(loop.body, path[0])
            ):
                loop.body.remove(stmt)
                written.discard(stmt.targets[0])  # (bound before the loop now)
                holder = sure.get(path)
                if holder is not None and holder not in written and self.stores[holder] == 1:
                    self.rename(stmt.targets[0], holder, path)  # (read once already)
                else:
                    moved.append(self.named(stmt, path, loop))
        return moved + self.computations(loop, written, first)

    def computations(self, loop, written, sure_to_run):
        """The invariant computations to move out of `loop` (loop_computations.py)."""
        if not self.computations_move:
            return []
        return invariant_computations(loop, written, sure_to_run, self.stores)

    def rename(self, old, new, path):
        """`new` read wherever `old` is (both hold the value at `path`)."""
        _rename(self.func.body, old, new)
        if old in self.func.active:
            self.func.active.add(new)
        self.stores[new] = 1
        self.paths[new] = path

    def path(self, stmt):
        """(c, k, ...) of `t = c[k]`, `t = c.k` (c a name, or a moved read's target), else None."""
        if not (isinstance(stmt, ir.Assign) and len(stmt.targets) == 1 and not stmt.unpack):
            return None
        if not isinstance(stmt.targets[0], str) or stmt.callee is not None:
            return None
        path = _path(stmt.value)
        if path is None or len(path) != 2:
            return None
        return self.paths.get(path[0], (path[0],)) + path[1:]

    def named(self, stmt, path, loop):
        """`stmt` moved before `loop`: a temporary named after the path it reads, which
        the loop's expression reads by that name."""
        old = stmt.targets[0]
        self.paths[old] = path
        if _TEMPORARY.fullmatch(old):
            base = "_".join(str(step) for step in path)
            new = self.names.named(base if base.isidentifier() else old)
            if new != old:
                stmt.targets[0] = new
                self.rename(old, new, path)
        loop.iter = _read_by_name(loop.iter, path, stmt.targets[0])
        return stmt


def _path(expr):
    """(c, k1, k2, ...) of c[k1][k2].. / c.k1.. (c a name, each k a constant), else None."""
    steps = []
    while isinstance(expr, (gast.Subscript, gast.Attribute)):
        if isinstance(expr, gast.Attribute):
            steps.append(_Attribute(expr.attr))
        elif isinstance(expr.slice, gast.Constant) and type(expr.slice.value) in (str, int):
            steps.append(expr.slice.value)
        else:
            return None
        expr = expr.value
    if not (steps and isinstance(expr, gast.Name)):
        return None
    return (expr.id, *reversed(steps))


class _Attribute(str):
    """An attribute's name in a path (not the same step as a string key)."""

    def __eq__(self, other):
        return type(other) is _Attribute and str.__eq__(self, other)

    def __hash__(self):
        return hash(("attribute", str(self)))


def _before_branches(body):
    """The statements of `body` before its first that may leave it (or run code of its own)."""
    for stmt in body:
        if not isinstance(stmt, (ir.Assign, ir.Push, ir.Pop, ir.SetItem)):
            return
        yield stmt


def _runs(iterable):
    """Whether a loop over `iterable` surely runs an iteration: range(n), n a constant > 0."""
    if not (
        isinstance(iterable, gast.Call)
        and ir.dotted(iterable.func) == ("range",)
        and 1 <= len(iterable.args) <= 3
        and not iterable.keywords
    ):
        return False
    bounds = [a.value if isinstance(a, gast.Constant) else None for a in iterable.args]
    return all(type(b) is int for b in bounds) and len(range(*bounds)) > 0


def _paths_read(expr):
    """The paths the expression surely reads (not under a part it may not evaluate)."""
    found, todo = [], [expr]
    while todo:
        node = todo.pop()
        if isinstance(node, _CONDITIONAL):
            continue
        path = _path(node)
        for k in range(2, len(path) + 1) if path else ():
            found.append(path[:k])
        todo.extend(gast.iter_child_nodes(node))
    return found


def _read_by_name(expr, path, name):
    """`expr` with each read of `path` in it made a read of `name`."""
    if _path(expr) == path:
        return ir.name(name)
    for node in ir.walk(expr):
        for field, value in gast.iter_fields(node):
            if isinstance(value, (gast.Subscript, gast.Attribute)) and _path(value) == path:
                setattr(node, field, ir.name(name))
            elif isinstance(value, list):
                value[:] = [
                    ir.name(name)
                    if isinstance(v, (gast.Subscript, gast.Attribute)) and _path(v) == path
                    else v
                    for v in value
                ]
    return expr


def _touched(body, container):
    """Whether a statement in `body` that may change `container` in place names it: a push
    onto it, a pop from it, a statement kept for its effect."""
    for stmt in _statements(body):
        if isinstance(stmt, (ir.Push, ir.Pop)) and stmt.stack == container:
            return True
        if isinstance(stmt, ir.Statement) and container in ir.names_in(stmt.node):
            return True
    return False


def _kept(known, rebound):
    """The reads of `known` whose container `rebound` does not hold."""
    return {p: holder for p, holder in known.items() if p[0] not in rebound}


def _forget(known, rebound, writes_arrays):
    """Forget the reads of `known` that a statement binding `rebound` (and writing into an
    array, if `writes_arrays`: a row, element or view read may hold other values now) may
    have changed."""
    for path in [
        p
        for p, holder in known.items()
        if p[0] in rebound or holder in rebound or writes_arrays and type(p[-1]) is not str
    ]:
        del known[path]


def _statements(body):
    """The statements of `body` and of the blocks in them, in no particular order."""
    found = list(body)
    for stmt in found:  # (grows as it goes: no generator per level of nesting)
        if stmt.__class__ in _COMPOUND:
            found += stmt.body
            found += getattr(stmt, "orelse", ())
    return found


def _effects(stmt):
    """(the names statement `stmt` and those in its blocks bind, whether any writes into an
    array)."""
    stored, writes_arrays = set(), False
    for each in _statements([stmt]):
        stored |= _stored(each)
        writes_arrays = writes_arrays or each.__class__ is ir.SetItem
    return stored, writes_arrays


def _stored(stmt):
    """The names one ir statement (not those in its blocks) binds."""
    if stmt.__class__ is ir.Assign:
        stored = set()
        for target in stmt.targets:
            if target.__class__ is str:
                stored.add(target)
            else:
                stored |= ir.names_in(target, gast.Store)
        return stored
    if isinstance(stmt, ir.For):
        return {stmt.target, stmt.counter} - {None}
    if isinstance(stmt, ir.While):
        return {stmt.counter} - {None}
    if isinstance(stmt, ir.Pop):
        return {stmt.target}
    if isinstance(stmt, ir.Statement):
        return ir.names_in(stmt.node, gast.Store) | ir.names_in(stmt.node, gast.Del)
    return set()


def _rename(body, old, new):
    """Every read of `old` in the statements of `body` made a read of `new`."""
    for stmt in _statements(body):
        for field, value in vars(stmt).items():
            if field in ("body", "orelse", "loc", "primitive"):
                continue
            if value == old and isinstance(value, str):
                setattr(stmt, field, new)
            for node in _nodes(value):
                for each in ir.walk(node):
                    if isinstance(each, gast.Name) and each.id == old:
                        each.id = new


def _nodes(value):
    """The gast trees in a field of an ir statement (a tree, a list or dict of them, a
    Callee's)."""
    if isinstance(value, gast.AST):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, gast.AST)]
    if isinstance(value, dict):
        return [v for v in value.values() if isinstance(v, gast.AST)]
    if isinstance(value, ir.Callee):
        return [*_nodes(value.atoms), *([value.recompute] if value.recompute else [])]
    return []
