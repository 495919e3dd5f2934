"""Temporaries put back where they are read: forward-mode code, emitted a step at a time
(`_t1 = total * 0.5; d_t1 = dtotal * 0.5; ...; total = _t1 + _t3`), reads as a person writes
it once each temporary the transform made and the one statement that reads it are joined
(`total = total * 0.5 + np.sum(h * k)`, `dtotal = dtotal * 0.5 + np.sum(dh * k)`)."""

import re

import gast

from .. import ir, unparse
from .liveness import pure

# the transform's temporaries (anf.py's `_t` names) and their tangents, of any order
_TEMPORARY = re.compile(r"d*_t\d+")
_BLOCKS = ("body", "orelse", "finalbody")
# where a read is not run once, right where the statement stands
_APART = (
    gast.Lambda,
    gast.ListComp,
    gast.SetComp,
    gast.DictComp,
    gast.GeneratorExp,
)
_SEVERAL = (gast.Tuple, gast.List, gast.Starred)
_EFFECTS = (gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await)
# the longest row a substitution may make: PEP 8's, narrower than the rows codegen.py breaks
# (a row of nested calls that long reads worse than its steps named)
_WIDTH = 79


def nest_temporaries(func):
    """Substitute each temporary assigned once and read once into its read, where that is in
    a later statement of the same block (its own expressions: not a nested body, nor a
    lambda or a comprehension; a for loop's iter and an if's test are run once, a while's
    test is not), the value and the statements it then runs after call only pure functions
    (liveness.pure: no call of an impure function moves past another call), none of
    those statements binds a name the value reads or changes an object in place (an
    item, an attribute, `a += b`), and the statement made still fits on a line (a longer
    one, broken, reads worse than its steps named)."""
    reads, writes = {}, {}
    for node in ir.name_nodes(func):
        table = reads if node.ctx.__class__ is gast.Load else writes
        table[node.id] = table.get(node.id, 0) + 1
    once = {name for name, times in reads.items() if times == 1 and writes.get(name) == 1}
    temporaries = {name for name in once if _TEMPORARY.fullmatch(name)}
    if temporaries:
        _nest_block(func.body, temporaries, 1, {})


def _nest_block(block, temporaries, depth, facts):
    """Substitute the temporaries of `block` (at `depth`) and the blocks in it; `facts`:
    {id of a statement: _facts(it)}, as far as they were needed, of each statement
    unchanged since. Returns
    the temporaries read in `block` (some perhaps no longer: substituted there)."""
    readers = {}
    for stmt in block:
        read = set()
        for field, value in ir.fields(stmt):
            if field == "handlers":
                for handler in value:
                    read |= ir.names_in(handler.type) if handler.type else set()
                    read |= _nest_block(handler.body, temporaries, depth + 1, facts)
            elif field in _BLOCKS:
                read |= _nest_block(value, temporaries, depth + 1, facts)
            elif value.__class__ is list:
                read.update(*(ir.names_in(item) for item in value if isinstance(item, gast.AST)))
            elif isinstance(value, gast.AST):
                read |= ir.names_in(value)
        for name in read & temporaries:
            readers[name] = stmt
    i = 0
    while i < len(block):
        into = _read_by(block, i, readers, facts)
        if into is not None and _put_in(into, block[i], depth):
            facts.pop(id(into), None)
            facts.pop(id(block[i]), None)  # (the id of a statement gone may be reused)
            del block[i]
        else:
            i += 1
    return set(readers)


def _read_by(block, i, readers, facts):
    """The later statement of `block` that reads the temporary block[i] assigns (`readers`:
    {temporary: the statement of the block holding its read}), if the value may move there:
    it is pure, and the statements between change no object in place (not even one no
    name the value reads holds: it may be one of them by another name) and bind no name
    it reads."""
    stmt = block[i]
    if not (
        stmt.__class__ is gast.Assign
        and len(stmt.targets) == 1
        and stmt.targets[0].__class__ is gast.Name
        and stmt.targets[0].id in readers
        and pure(stmt.value)
    ):
        return None
    into, read = readers[stmt.targets[0].id], ir.names_in(stmt.value)
    for later in block[i + 1 :]:
        if later is into:
            return into
        known = facts.get(id(later))
        if known is None:
            known = facts[id(later)] = _facts(later)
        if known[1] or known[0] & read:
            return None
    return None  # (read before it, in a loop)


def _put_in(stmt, assignment, depth):
    """Put the value of `assignment` (to a temporary) where `stmt` (at `depth`) reads it,
    if that read is in its own expressions, what of them runs before it calls only pure
    functions and the statement then fits on a line."""
    name, value = assignment.targets[0].id, assignment.value
    for root in _own_expressions(stmt):
        path = _path_to(root, name)
        if path is None:
            continue
        if any(isinstance(n, _APART) for n in path):
            return False
        # (a call the read is an argument of runs after it; any other may run before)
        nodes = list(ir.walk(root))
        beside = [n for n in nodes if n.__class__ is gast.Call and n not in path]
        if not all(map(pure, beside)) or any(isinstance(n, _EFFECTS) for n in nodes):
            return False
        parent, read = path[-2] if len(path) > 1 else stmt, path[-1]
        _swap(parent, read, value)
        row = unparse.first_row(stmt, depth)
        if row is None or len(row) > _WIDTH:
            _swap(parent, value, read)
            return False
        return True
    return False


def _swap(parent, old, new):
    """Put `new` where `old` stands right below `parent`."""
    for field, child in ir.fields(parent):
        if child is old:
            setattr(parent, field, new)
        elif child.__class__ is list:
            child[:] = [new if item is old else item for item in child]


def _own_expressions(stmt):
    """The expressions `stmt` runs once, where it stands: those of an assignment (but for
    the targets of one to several: `a, b[t] = v` stores a before it reads t), an augmented
    one, an expression statement and a return, a for loop's iter, an if's test; none of
    the others' (a while loop's test runs again, an annotation not at all)."""
    kind = stmt.__class__
    if kind is gast.For:
        return [stmt.iter]
    if kind is gast.If:
        return [stmt.test]
    if kind is gast.Assign:
        single = len(stmt.targets) == 1 and stmt.targets[0].__class__ not in _SEVERAL
        return [stmt.value] + (stmt.targets if single else [])
    if kind in (gast.AugAssign, gast.Expr, gast.Return):
        return [child for child in ir.children(stmt) if child is not None]
    return []


def _path_to(root, name):
    """[root, ..., the Name node reading `name`] below `root`, or None."""
    if root.__class__ is gast.Name:
        return [root] if root.id == name and root.ctx.__class__ is gast.Load else None
    for child in ir.children(root):
        below = _path_to(child, name)
        if below is not None:
            return [root] + below
    return None


def _facts(stmt):
    """(the names `stmt` binds or deletes, whether it may change an object in place: it
    calls an impure function, writes an item or an attribute, or assigns augmented (`a +=`
    adds into the array a names, which another name may share))."""
    bound, changes = set(), not pure(stmt)
    for node in ir.walk(stmt):
        kind = node.__class__
        if kind is gast.Name and node.ctx.__class__ in (gast.Store, gast.Del):
            bound.add(node.id)
        elif kind is gast.AugAssign or (
            kind in (gast.Subscript, gast.Attribute) and node.ctx.__class__ is not gast.Load
        ):
            changes = True
    return bound, changes
