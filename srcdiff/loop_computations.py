"""Stage 2d, with loop_reads.py: a computation that is the same in every iteration of a loop,
done once before it.

`while t < 1.0: a = -k * x - 0.1 * v ...` computes `_t0 = -k` in each iteration, and the
reverse sweep would keep each iteration's `_t0` on a stack. A person computes it once:

    _t0 = -k
    while t < 1.0:
        _t1 = _t0 * x

An assignment `t = e` at the top of a `for` or `while` loop's body moves before the loop when:
- e is one pure primitive operation (its registry record says `pure`) on names and constants,
  and no name it reads is bound in the loop, pushed onto or popped from, or named by a
  statement kept for its effect there;
- nothing in the function writes into an array (an operand, or t itself, could then hold
  other values in a later iteration, or t's one array be shared by what each iteration kept);
- t is assigned nowhere else in the function, and no statement before it in the body reads it
  (that would read the previous iteration's value);
- computing e before the loop raises nothing the function would not. Where the loop surely
  runs an iteration (loop_reads: range(n), n a constant > 0) and e comes before any branch of
  its body, the first iteration computes e with the same operands anyway, so any such e moves.
  Elsewhere (a `while` loop, a loop over range(n) of an unknown n, which may run no iteration)
  only arithmetic that raises nothing on numbers and numeric arrays moves (a boolean array's
  `-` raises, but no derivative flows through one): unary minus or plus, `+`, `-`, `*` with a
  number constant as one operand, `/` by a nonzero number constant. Not
  indexing (loop_reads.py's rules), not two arrays (their shapes may not broadcast), not a
  division by a name (a Python float 0.0 raises ZeroDivisionError), not a numpy function (it
  may warn: np.log(0.0), np.exp(1000.0)).
"""

import gast

from . import ir

_NEVER_RAISE_UNARY = (gast.USub, gast.UAdd)
_NEVER_RAISE_WITH_A_NUMBER = (gast.Add, gast.Sub, gast.Mult)


def invariant_computations(loop, written, sure_to_run, stores):
    """The computations to move out of `loop` (taken out of its body, in order); `written`: the
    names the loop binds (those moved are discarded from it), `sure_to_run`: the ids of the
    statements of its body that surely run in its first iteration, `stores`: how many times
    the function assigns each name."""
    touched = _touched_names(loop.body)
    read_before, moved, kept = set(), [], []
    for stmt in loop.body:
        operands = _operands(stmt)
        if (
            operands is not None
            and not operands & written
            and not operands & touched
            and stores[stmt.targets[0]] == 1
            and stmt.targets[0] not in read_before
            and (id(stmt) in sure_to_run or _raises_nothing(stmt.value))
        ):
            written.discard(stmt.targets[0])  # (bound before the loop now)
            moved.append(stmt)
        else:
            read_before |= _names_read(stmt)
            kept.append(stmt)
    loop.body[:] = kept
    return moved


def _operands(stmt):
    """The names `stmt` reads if it is `t = e`, e a pure primitive operation on names and
    constants, else None."""
    if not (stmt.__class__ is ir.Assign and len(stmt.targets) == 1 and not stmt.unpack):
        return None
    record = stmt.primitive
    if stmt.callee is not None or record is None or not record.pure:
        return None
    if not isinstance(stmt.targets[0], str):
        return None
    value = stmt.value
    if isinstance(value, gast.UnaryOp):
        atoms = [value.operand]
    elif isinstance(value, gast.BinOp):
        atoms = [value.left, value.right]
    elif isinstance(value, gast.Call) and ir.dotted(value.func) is not None:
        atoms = [*value.args, *(k.value for k in value.keywords)]
    else:
        return None
    if not all(isinstance(atom, (gast.Name, gast.Constant)) for atom in atoms):
        return None
    return ir.names_in(value)


def _raises_nothing(value):
    """Whether operation `value` (on names and constants) raises nothing on any numbers and
    arrays it may be given (nor warns)."""
    if isinstance(value, gast.UnaryOp):
        return isinstance(value.op, _NEVER_RAISE_UNARY)
    if not isinstance(value, gast.BinOp):
        return False
    if isinstance(value.op, _NEVER_RAISE_WITH_A_NUMBER):
        return _number(value.left) or _number(value.right)
    return isinstance(value.op, gast.Div) and _number(value.right) and value.right.value != 0


def _number(atom):
    return isinstance(atom, gast.Constant) and type(atom.value) in (int, float)


def _touched_names(body):
    """The names a statement of `body` may change in place: stacks pushed onto or popped from,
    names in statements kept for their effect."""
    touched = set()
    for stmt in _all_statements(body):
        if isinstance(stmt, (ir.Push, ir.Pop)):
            touched.add(stmt.stack)
        elif isinstance(stmt, ir.Statement):
            touched |= ir.names_in(stmt.node)
    return touched


def _names_read(stmt):
    """The names ir statement `stmt` and those in its blocks read (a superset will do)."""
    read = set()
    for each in _all_statements([stmt]):
        for field, value in vars(each).items():
            if field in ("body", "orelse", "loc", "primitive"):
                continue
            if isinstance(value, str):
                read.add(value)
            elif isinstance(value, gast.AST):
                read |= ir.names_in(value)
            elif isinstance(value, (list, dict)):
                items = value.values() if isinstance(value, dict) else value
                for item in items:
                    if isinstance(item, gast.AST):
                        read |= ir.names_in(item)
            elif isinstance(value, ir.Callee):
                read |= {name for atom in value.atoms for name in ir.names_in(atom)}
    return read


def _all_statements(body):
    """The statements of `body` and of the blocks in them."""
    found = list(body)
    for stmt in found:  # (grows as it goes)
        found += getattr(stmt, "body", ())
        found += getattr(stmt, "orelse", ())
    return found
