"""Stage 2c: a change in place of a value carrying no gradient after a differentiated line
read it (`y = x * m`, then `m.fill(2.0)`). The reverse sweep runs once all of f has run, and
reads m then: it would see the changed values, not those the line read. A write into an array
f made is undone by the reverse sweep (anf.py's set_item); any other change, through a view,
into an argument or an item of a container, by a method, np.copyto or a function of the
user's, is refused where a differentiated line read the value before, or reads it in the
same loop."""

import gast

from . import codegen, ir
from .errors import UnsupportedError
from .parse import MISSING


class StaleChanges:
    """For the Normalizer (anf.py): which constant writes the reverse sweep undoes, and the
    refusal of the changes it cannot undo."""

    def restorable(self, target):
        """Whether a write of constants into a constant array f made (m[0] = 5.0) is one the
        reverse sweep must undo, as it undoes a differentiated one: a derivative may read
        m's values from before it (y = x * m before the write)."""
        base = target.value
        return (
            isinstance(base, gast.Name)
            and base.id not in self.params
            and not self.aliasing.is_new_list(base.id)
            and not self._values_are_dicts(base.id)
            and self.aliasing.owns(base.id, self.writing)
        )

    def refuse_stale_write(self, target, loc):
        """Refuse a write of constants that the reverse sweep does not undo, into a value a
        differentiated line read before; but an item replaced in a dict f makes (cfg["s"] =
        3.0), which changes no array: a line reading cfg["s"] keeps the value it read."""
        base = target.value
        if isinstance(base, gast.Name) and self._values_are_dicts(base.id):
            return
        what = f"writing into {gast.unparse(base).strip()}"
        self.refuse_stale_change(target, self.writing, loc, what)

    def _values_are_dicts(self, name):
        values = self.aliasing.values(name)
        return bool(values) and all(isinstance(v, (gast.Dict, gast.DictComp)) for v in values)

    def refuse_stale_change(self, changed, stmt, loc, what, shared=True):
        """Refuse `stmt`, a change in place of the value `changed` (an expression: its root
        name if local, and unless not `shared` the names sharing its memory), if a
        differentiated line read it before."""
        root = changed
        while isinstance(root, (gast.Subscript, gast.Attribute)):
            root = root.value
        if not isinstance(root, gast.Name) or self.p.resolve(root) is not MISSING:
            return
        if self.forward_mode or codegen.is_emitted(self.p.filename):
            return  # (tangents are made as f runs; srcdiff's own changes are undone)
        if self.derivative_reads is None:
            self.derivative_reads = DerivativeReads(self.p.node.body, self._is_active)
        names = (self.aliasing.sharing(stmt, root.id) if shared else set()) | {root.id}
        self.derivative_reads.refuse_change(names, stmt, loc, what)


class DerivativeReads:
    """Where in f the differentiated lines read each name (`is_active(value)`: whether a
    line's value carries a gradient)."""

    def __init__(self, body, is_active):
        self._is_active = is_active
        self._at = {}  # id(statement) -> (its place in the code's order, the loops around it)
        self._reads = {}  # name -> [(place, loops) of a differentiated line reading it]
        self._block(body, frozenset())

    def refuse_change(self, names, stmt, loc, what):
        """Refuse `stmt`, which may change in place the value of one of `names` (`what`
        says how), if a differentiated line read one of them before it."""
        read = self._read_before(names, stmt)
        if read is None:
            return
        raise UnsupportedError(
            f"{what} changes {read!r} in place after a differentiated line read it: the "
            "reverse sweep, which runs after f, would read the changed values",
            loc,
            f"make a new array instead ({read} = {read}.copy() before changing it, or "
            "assign a new value) so that the differentiated line keeps the values it read",
        )

    def _read_before(self, names, stmt):
        place, loops = self._at.get(id(stmt), (None, frozenset()))
        if place is None:
            return None
        for name in sorted(names):
            for read_at, read_loops in self._reads.get(name, ()):
                if read_at < place or read_loops & loops:
                    return name
        return None

    def _block(self, body, loops):
        for stmt in body:
            self._at[id(stmt)] = (len(self._at), loops)
            if isinstance(stmt, (gast.For, gast.While)):
                self._block(stmt.body, loops | {id(stmt)})
                self._block(stmt.orelse, loops)
            elif isinstance(stmt, (gast.If, gast.Try, gast.With)):
                for field in ("body", "orelse", "finalbody"):
                    self._block(getattr(stmt, field, None) or [], loops)
                for handler in getattr(stmt, "handlers", ()):
                    self._block(handler.body, loops)
            elif isinstance(stmt, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Return)):
                value = stmt.value  # (a line whose adjoint may read what its value reads)
                if value is not None and self._is_active(value):
                    for name in _operands(value):
                        self._reads.setdefault(name, []).append(self._at[id(stmt)])


def _operands(value):
    """The names a value reads, but in the tests of its `a if c else b` (saved as truths,
    truths.py)."""
    tests = {id(n.test) for n in ir.walk(value) if isinstance(n, gast.IfExp)}
    names, stack = set(), [value]
    while stack:
        node = stack.pop()
        if id(node) in tests:
            continue
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
            names.add(node.id)
        stack.extend(gast.iter_child_nodes(node))
    return names
