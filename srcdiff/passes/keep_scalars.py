"""Specialisation's keep-scalar pass: the adjoint of a sum or mean left a scalar where
every value it reaches keeps its type, shape and dtype (checked by running the shape
interpreter on the function again from the statement changed)."""

import gast

from .. import ir
from ..inference import Interpreter
from ..ir import dotted
from ..shapes import UNKNOWN

_NODE = gast.AST

_ELEMENTWISE_OPS = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow, gast.USub, gast.UAdd)


def keep_scalars_unspread(func, arguments, context, copies):
    """`v = np.broadcast_to(s, shape)` (the adjoint of a sum or mean) becomes `v = s` when v
    is read only through elementwise arithmetic and every other value keeps its type, shape
    and dtype with the scalar in its place (so also its elements): no array of copies of one
    number, and no pass over one, in a loop's body too. `context`: the interpreter's (opaque
    names, callees, fixed names); `copies`, the copy propagation run on func, which then
    propagates the copies this makes."""
    candidates = _candidates(func)
    if not candidates:
        return
    # (each check resumes the run of the function at the statement of the body holding it:
    # only those holding one read only elementwise are marked to keep the state reached
    # there, a copy of every value bound)
    found = {id(stmt): _elementwise_reads(stmt, copies) for stmt, _ in candidates}
    marks = {id(outer) for stmt, outer in candidates if found[id(stmt)] is not None}
    ends = _ends(func, [stmt for stmt, _ in candidates if found[id(stmt)] is not None], copies)
    marks.update(id(func.body[end]) for end in ends.values())
    before, again, changed = None, set(), False
    for stmt, outer in candidates:
        name = stmt.targets[0].id
        checked = _elementwise_reads(stmt, copies) if changed else found[id(stmt)]
        if checked is None:
            continue
        reads, parents = checked
        if id(outer) not in marks:  # (read only elementwise since a change: a run anew)
            marks.add(id(outer))
            before = None
        if before is None:
            before = _checking(func, context).run(arguments, marks)
        into = [s for n in reads if isinstance(s := _statement_of(n, parents), gast.AugAssign)]
        if any(before.bound.get(_target_of(n, parents)) is UNKNOWN for n in reads) or any(
            _added(before, s) is UNKNOWN for s in into
        ):
            continue  # (s * xs with xs a list repeats it: only a known result is a check)
        spread, stmt.value = stmt.value, stmt.value.args[0]
        kept = {id(n) for n in ir.walk(stmt.value)}
        taken = [n for n in ir.walk(spread) if id(n) not in kept]
        anew = _makes_stack(taken, copies)
        after, stop = _run_changed(
            func, before, outer, anew, (arguments, marks, ends.get(id(stmt))), context
        )
        if stop is not None and not _alike_at(after, before, stop, name):
            after, stop = _run_on(after, stop, marks), None
        if (
            stop is not None
            or after.returned == before.returned
            and _binds_alike(after.bound, before.bound, name)
        ) and not any(_added(after, s) is UNKNOWN for s in into):
            before, changed = after if stop is None else _joined(before, after, stop, name), True
            again |= copies.changed(stmt, taken)
        else:
            stmt.value = spread
    if again:  # (once all are checked: the runs above resume at statements of the body)
        copies.run(again)


def _candidates(func):
    """The assignments `v = np.broadcast_to(s, shape)` in func, each with the statement of
    func's body it is in (a loop, say)."""
    return [
        (stmt, outer)
        for outer in func.body
        for stmt in (_statements(outer) if outer.__class__ in ir.HOLDING_BLOCKS else (outer,))
        if stmt.__class__ is gast.Assign
        and stmt.value.__class__ is gast.Call
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], gast.Name)
        and dotted(stmt.value.func) == ("np", "broadcast_to")
    ]


def _binds_alike(after, before, name):
    """Whether `after` binds every name `before` binds but `name` to an equal value. (Where
    both bind the same names, as dicts compared in C: most values are the same objects.)"""
    if after.keys() == before.keys():
        return {**after, name: None} == {**before, name: None}
    return all(after.get(k) == v for k, v in before.items() if k != name)


def _statements(stmt):
    """`stmt` and the statements of the blocks in it, in order."""
    found = [stmt]
    if stmt.__class__ in ir.HOLDING_BLOCKS:  # (no look into the commonest: a simple statement)
        for field in ("body", "orelse"):
            for inner in getattr(stmt, field, None) or ():
                found += _statements(inner)
    return found


def _elementwise_reads(stmt, copies):
    """(the Name nodes reading what `stmt` assigns, {id(node): its parent} for their
    statements) if each is read only through elementwise arithmetic, else None."""
    name = stmt.targets[0].id
    uses = copies.uses(name)
    if uses is None:  # (a parameter, or read by a default value)
        return None
    uses = [(n, s) for n, s in uses if n is not stmt.targets[0]]
    parents = _parents(s for _, s in uses)
    reads = [n for n, _ in uses]
    if not reads or not all(_elementwise_use(n, parents) for n in reads):
        return None
    return reads, parents


def _added(run, augmented):
    """What the in-place `x += e` `augmented` adds, in `run`: an array x keeps its type
    whatever e is, so that e still adds (0.5 * xs, xs a list, does not) is checked apart."""
    seen = run.seen.get(id(augmented))
    return UNKNOWN if seen is None else seen[1][1]


def _run_changed(func, before, stmt, anew, run, context):
    """The interpreter's run (`run`: its arguments, marks, and the index of the statement of
    func's body to stop at, or None; `context`: the interpreter's) of func once statement
    `stmt` of its body (or one in it) changed: resumed from where `before`, its run before
    the change, reached stmt, up to that statement if before's state there is kept; all of
    it when that would not find the same (`anew`: the change makes a stack of a list). And
    the id of the statement it stopped at (None: it ran to the end)."""
    arguments, marks, end = run
    if anew:
        return _checking(func, context).run(arguments, marks), None
    state = before.states.get(id(stmt))  # (None: never reached, so nothing changes)
    if state is None:
        return before, None
    stop = id(func.body[end]) if end is not None else None
    if stop not in before.states:
        end = stop = None
    after = _checking(func, context).resume(state, marks, end)
    return after, stop if stop in after.states else None  # (not reached: it returned before)


def _ends(func, statements, copies):
    """{id(stmt): the index of the statement of func's body after the last one that uses the
    name `stmt` assigns}, for the assignments `statements` whose name is used before func's
    last statement: past it, a run of func finds the same with either value the name takes
    if it agrees on the rest there (_alike_at)."""
    position = {id(stmt): index for index, stmt in enumerate(func.body)}
    ends = {}
    for stmt in statements:
        uses = copies.uses(stmt.targets[0].id)
        places = [position.get(id(copies.outermost(s))) for _, s in uses or ()]
        if places and None not in places and max(places) + 1 < len(func.body):
            ends[id(stmt)] = max(places) + 1
    return ends


def _alike_at(after, before, stop, name):
    """Whether the runs `after` and `before` reached the statement `stop` (its id) returning
    the same and binding the same but for `name`: from there on, where name is not used,
    they are the same run."""
    mine, theirs = after.states[stop], before.states[stop]
    return (
        mine[3] == theirs[3]
        and _binds_alike(mine[1], theirs[1], name)
        and _binds_alike(mine[2], theirs[2], name)
    )


def _run_on(after, stop, marks):
    """The run `after`, stopped at statement `stop` (its id), run on to the end."""
    kept = after.states
    after.resume(kept[stop], marks)
    after.states = {**kept, **after.states}
    return after


def _joined(before, after, stop, name):
    """`before`, made what `after`, which stopped at statement `stop` where they agree
    but for `name`, would have found running on: from there on the same run, name bound
    as after binds it (nothing past there uses it, and nothing deletes it: a del is no
    elementwise read)."""
    env, bound = after.states[stop][1][name], after.bound[name]
    for state in before.states.values():
        if state[0] >= after.states[stop][0]:
            state[1][name], state[2][name] = env, bound
    before.states.update(after.states)
    before.seen.update(after.seen)
    before.bound[name] = bound
    return before


def _checking(func, context):
    """An interpreter for func whose runs check what it binds (and what each `x += e` adds:
    _added), keeping no other record."""
    return Interpreter(func, *context, every_record=False)


def _makes_stack(taken, copies):
    """Whether taking out the nodes `taken` may make a stack of a list (inference.stack_names):
    unless each name they read is still read otherwise than by its `append` and `pop`
    methods or as a saved value returned."""
    gone = {id(n) for n in taken}
    for node in taken:
        if node.__class__ is gast.Name and not any(
            _plain_read(n, stmt) for n, stmt in copies.reads(node.id) if id(n) not in gone
        ):
            return True
    return False


def _plain_read(node, stmt):
    """Whether Name node `node` in statement `stmt` is read otherwise than as stack_names
    allows a stack to be."""
    value = stmt.value if isinstance(stmt, gast.Return) else None
    saved = value.elts[-1] if isinstance(value, gast.Tuple) and value.elts else None
    if isinstance(saved, gast.List) and any(e is node for e in saved.elts):
        return False
    for below in ir.walk(stmt):
        if below.__class__ is gast.Attribute and below.value is node:
            return below.attr not in ("append", "pop")
    return True


def _parents(statements):
    """{id(node): its parent} for the nodes of `statements`."""
    holding = {id(stmt): stmt for stmt in statements}
    parents = {}
    for stmt in holding.values():
        below = [stmt]
        for node in below:
            values = node.__dict__
            for field in node._fields:
                value = values.get(field)
                for child in value if value.__class__ is list else (value,):
                    if isinstance(child, _NODE) and child._fields:
                        parents[id(child)] = node
                        below.append(child)
    return parents


def _statement_of(node, parents):
    """The assignment reading `node`."""
    while not isinstance(node, (gast.Assign, gast.AugAssign)):
        node = parents[id(node)]
    return node


def _target_of(node, parents):
    """The name the assignment reading `node` binds (None if it binds something else)."""
    node = _statement_of(node, parents)
    target = node.targets[0] if isinstance(node, gast.Assign) else node.target
    return target.id if isinstance(target, gast.Name) else None


def _elementwise_use(node, parents):
    """Whether `node` is read only as an operand of elementwise arithmetic up to its
    statement, an assignment."""
    while True:
        parent = parents.get(id(node))
        if isinstance(parent, (gast.Assign, gast.AugAssign)):
            return parent.value is node
        if (
            isinstance(parent, gast.BinOp)
            and isinstance(parent.op, _ELEMENTWISE_OPS)
            or isinstance(parent, gast.UnaryOp)
            and isinstance(parent.op, _ELEMENTWISE_OPS)
        ):
            node = parent
            continue
        return False
