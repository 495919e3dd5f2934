"""Which values of a normalised function are surely real scalars, before its arguments are
known: between those the adjoint of `+`, `*`, ... needs no runtime.unbroadcast, which would
only find two shapes () alike and no complex adjoint to take the real part of (reverse
mode's adjoint of a real value is real: each place a real value meets a complex one takes
the real part of its adjoint there, at run time).

Sure sources: number literals, float(), int(), len(), math.*, np.pi, x.shape[0],
comparisons, a loop over range(), and the arguments a derivative differentiates with
respect to (real, scalars or not: each call checks, arguments.check_differentiable, also the
numbers in a list, dict or record; not a callee's, which are whatever its caller passes);
then items and attributes of real values (`params["w"]`, `model.W1`, `x.T`), sums and
means of whole real values, elementwise numpy functions of real values, and arithmetic on
them (`**` only to an int literal: a Python float to a fractional power may be complex). A
name is one if every assignment to it is (a loop-carried `total = total + s` included: the
analysis starts from every name and drops those an assignment disproves, until none is
dropped)."""

import math

import gast
import numpy as np

from . import ir
from .primitives import registry

_REAL_SCALAR_BUILTINS = {float, int, len, bool}
_WHOLE_REDUCTIONS = {np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin}
_ELEMENTWISE = {
    np.sin,
    np.cos,
    np.tan,
    np.tanh,
    np.sinh,
    np.cosh,
    np.exp,
    np.log,
    np.log1p,
    np.expm1,
    np.sqrt,
    np.square,
    np.abs,
    np.absolute,
    np.negative,
    np.maximum,
    np.minimum,
    np.add,
    np.subtract,
    np.multiply,
    np.divide,
}
_ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.FloorDiv, gast.Mod)


def real_scalars(fn, real_params=(), assigned=None):
    """The names of ir.Function `fn` that surely hold a real scalar, given `real_params`,
    its parameters surely real (a float or a real array: see transform.generate).
    `assigned`: assignments(fn), where the caller has it."""
    assigned = assignments(fn) if assigned is None else assigned
    if real_params:
        assigned = dict(assigned)
        for param in set(real_params) & set(fn.params):  # (its entry the last: the argument)
            assigned[param] = assigned[param][:-1] + [_REAL_ARGUMENT]
    readers = _readers(assigned)
    return _greatest(assigned, _real, readers) & _greatest(assigned, _scalar, readers)


def scalars(fn):
    """The names of ir.Function `fn` that surely hold a scalar (a real or a complex one)."""
    assigned = assignments(fn)
    return _greatest(assigned, _scalar, _readers(assigned))


# what a parameter known to be real holds: a real value, a scalar or not
_REAL_ARGUMENT = gast.Constant(value="<a real argument>", kind=None)


def assignments(fn):
    """{name: the expressions assigned to it (None: anything else: a parameter's argument
    last)}."""
    assigned = {}  # name -> the expressions assigned to it (None: anything else)
    for stmt in _statements(fn.body):
        if (
            isinstance(stmt, ir.Assign)
            and len(stmt.targets) == 1
            and stmt.callee is None
            and not stmt.unpack
        ):
            assigned.setdefault(stmt.targets[0], []).append(stmt.value)
        elif isinstance(stmt, ir.For):
            ranged = isinstance(stmt.iter, gast.Call) and _function(stmt.iter) is range
            assigned.setdefault(stmt.target, []).append(ir.const(0) if ranged else None)
        for name in _other_targets(stmt):
            assigned.setdefault(name, []).append(None)
    for param in fn.params:
        assigned.setdefault(param, []).append(None)
    return assigned


def _readers(assigned):
    """{name: the names some expression assigned to which reads it}."""
    readers = {}
    for name, values in assigned.items():
        for value in values:
            for read in ir.names_in(value) if value is not None else ():
                readers.setdefault(read, set()).add(name)
    return readers


def _greatest(assigned, holds, readers):
    """The largest set of names each of whose assigned expressions `holds` given it: of all
    names, each whose expressions do not all hold is dropped, and the names whose
    expressions read it are looked at again (not every assignment once more for each link
    of a chain of names dropped, as passes over them all would)."""
    known = set(assigned)
    todo = list(assigned)
    while todo:
        name = todo.pop()
        if name in known and not all(e is not None and holds(e, known) for e in assigned[name]):
            known.discard(name)
            todo += readers.get(name, ())
    return known


def _real(node, known):
    if node is _REAL_ARGUMENT:
        return True
    if isinstance(node, gast.Constant):
        return type(node.value) in (int, float, bool)
    if _number_read(node):
        return True
    if isinstance(node, gast.Name):
        return node.id in known
    if isinstance(node, (gast.Subscript, gast.Attribute)):
        return _real(node.value, known)  # (an item, a row, a field, x.T of a real value)
    if isinstance(node, gast.BinOp):
        if isinstance(node.op, gast.Pow):
            return (
                _real(node.left, known)
                and isinstance(node.right, gast.Constant)
                and type(node.right.value) is int
            )
        return (
            isinstance(node.op, _ARITHMETIC)
            and _real(node.left, known)
            and _real(node.right, known)
        )
    if isinstance(node, gast.UnaryOp):
        return isinstance(node.op, (gast.USub, gast.UAdd)) and _real(node.operand, known)
    if isinstance(node, gast.Compare):
        return True
    if isinstance(node, gast.Call):
        fn = _function(node)
        if fn in _REAL_SCALAR_BUILTINS or _is_math(fn):
            return True
        if fn in _WHOLE_REDUCTIONS or fn in _ELEMENTWISE or fn in (np.dot, np.matmul):
            return all(_real(a, known) for a in node.args) and all(
                isinstance(k.value, gast.Constant) for k in node.keywords
            )
    return False


def _scalar(node, known):
    if isinstance(node, gast.Constant):
        return type(node.value) in (int, float, bool)
    if _number_read(node):
        return True
    if isinstance(node, gast.Name):
        return node.id in known
    if isinstance(node, gast.BinOp):
        return _scalar(node.left, known) and _scalar(node.right, known)
    if isinstance(node, gast.UnaryOp):
        return _scalar(node.operand, known)
    if isinstance(node, gast.Compare):
        return all(_scalar(e, known) for e in [node.left] + node.comparators)
    if isinstance(node, gast.Call):
        fn = _function(node)
        if fn in _REAL_SCALAR_BUILTINS or _is_math(fn):
            return True
        if fn in _WHOLE_REDUCTIONS:  # of everything: no axis, out or keepdims
            return len(node.args) == 1 and not node.keywords
        if fn in _ELEMENTWISE:
            return not node.keywords and all(_scalar(a, known) for a in node.args)
    return False


def _number_read(node):
    """A module's number (np.pi, math.e) or an array's length along an axis (x.shape[0])."""
    if isinstance(node, gast.Attribute):
        path = ir.dotted(node)
        return (
            path is not None
            and path[0] in ("np", "math")
            and type(registry.resolve(path) if path[0] == "np" else _math(path)) is float
        )
    return (
        isinstance(node, gast.Subscript)
        and isinstance(node.value, gast.Attribute)
        and node.value.attr == "shape"
        and isinstance(node.slice, gast.Constant)
        and type(node.slice.value) is int
    )


def _math(path):
    return getattr(math, path[1], None) if len(path) == 2 else None


def _function(call):
    path = ir.dotted(call.func)
    return registry.resolve(path) if path is not None else None


def _is_math(fn):
    return getattr(fn, "__module__", None) == "math"


def _statements(body):
    for stmt in body:
        yield stmt
        for block in ("body", "orelse"):
            yield from _statements(getattr(stmt, block, ()))


def _other_targets(stmt):
    """Names `stmt` binds other than as one plain assignment's target."""
    if isinstance(stmt, ir.Assign) and (
        len(stmt.targets) != 1 or stmt.callee is not None or stmt.unpack
    ):
        return stmt.targets
    if isinstance(stmt, ir.Pop):
        return [stmt.target]
    if isinstance(stmt, ir.SetItem):
        return [stmt.target]
    if isinstance(stmt, (ir.For, ir.While)) and stmt.counter is not None:
        return []  # (an int count)
    if isinstance(stmt, ir.Statement):
        return [
            n.id
            for n in ir.walk(stmt.node)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)
        ]
    return []


def without_unbroadcast(expr):
    """`expr` with each runtime.unbroadcast(g, x) in it replaced by g (in place)."""
    if _is_unbroadcast(expr):
        return without_unbroadcast(expr.args[0])
    for node in ir.walk(expr):
        for field, value in ir.fields(node):
            if isinstance(value, list):
                value[:] = [without_unbroadcast(v) if _is_unbroadcast(v) else v for v in value]
            elif _is_unbroadcast(value):
                setattr(node, field, without_unbroadcast(value))
    return expr


def _is_unbroadcast(node):
    return isinstance(node, gast.Call) and ir.dotted(node.func) == ("runtime", "unbroadcast")


def unspread(expr):
    """`expr`, a tangent template's part, without its runtime.broadcast_like(d, z): for an
    output z of the shape of d's operand (a scalar, or beside scalars only)."""
    if isinstance(expr, gast.Call) and ir.dotted(expr.func) == ("runtime", "broadcast_like"):
        return expr.args[0]
    return expr


_REDUCTIONS = {np.sum, np.mean, np.max, np.min, np.amax, np.amin}
_SAME_KIND = (gast.Add, gast.Sub, gast.Mult, gast.Div)


class Narrower:
    """Which values of a normalised function are computed from a value x that never changes
    (a parameter never assigned, or a name assigned once outside loops) without widening it:
    their shapes broadcast to x's, and they are real where x is. Then `x + v`, `x * v`, ...
    has x's shape and is real where x is, so the adjoint it hands x needs no unbroadcast:
    `log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))`.
    From x: x, numbers, real scalars, elementwise functions and arithmetic (`**` only to an
    int literal) of such values, and their reductions, whole or along axes kept (keepdims)."""

    def __init__(self, fn, real_scalars, assigned=None):
        """`assigned`: assignments(fn), where the caller has it."""
        assigned = assignments(fn) if assigned is None else assigned
        looped = set(_assigned_in_loops(fn.body))
        self.single = {n: v[0] for n, v in assigned.items() if len(v) == 1 and v[0] is not None}
        self.fixed = {p for p in fn.params if assigned[p] == [None]} | {
            n for n in self.single if n not in looped
        }
        self.real_scalars, self.found = real_scalars, {}  # {(name, x): whether within x}

    def within(self, node, x):
        """Whether expression `node` is computed from x (in self.fixed) without widening it."""
        names = []
        return self._keeps(node, x, names) and all(self._name_within(n, x) for n in names)

    def _name_within(self, name, x):
        """within() of a name's one value, remembered for every name it reads, so a chain
        of N statements costs N, not N per question. Names are followed with a stack, not
        a call each (a chain of 3,000 statements stays under the recursion limit), and a
        name reached again through itself (a loop) is not within x."""
        found, stack, open_ = self.found, [name], set()
        while stack:
            current = stack[-1]
            if (current, x) in found:
                stack.pop()
                continue
            reads, value = [], self.single.get(current)
            if current == x or current in self.real_scalars:
                result = True
            elif value is None or not self._keeps(value, x, reads):
                result = False
            elif pending := [r for r in reads if (r, x) not in found and r not in open_]:
                open_.add(current)
                stack.extend(pending)
                continue
            else:
                result = all(found.get((r, x), False) for r in reads)
            found[(current, x)] = result
            open_.discard(current)
            stack.pop()
        return found[(name, x)]

    def _keeps(self, node, x, names):
        """Whether `node` is computed without widening from the names it reads (added to
        `names`), numbers and x."""
        if isinstance(node, gast.Constant):
            return type(node.value) in (int, float, bool)
        if isinstance(node, gast.Name):
            names.append(node.id)
            return True
        if isinstance(node, gast.BinOp):
            if isinstance(node.op, gast.Pow):
                exponent = node.right
                return (
                    isinstance(exponent, gast.Constant)
                    and type(exponent.value) is int
                    and self._keeps(node.left, x, names)
                )
            return isinstance(node.op, _SAME_KIND) and all(
                self._keeps(e, x, names) for e in (node.left, node.right)
            )
        if isinstance(node, gast.UnaryOp):
            return isinstance(node.op, (gast.USub, gast.UAdd)) and self._keeps(
                node.operand, x, names
            )
        if isinstance(node, gast.Call) and all(self._keeps(a, x, names) for a in node.args):
            fn = _function(node)
            if fn in _ELEMENTWISE:
                return bool(node.args) and not node.keywords
            return fn in _REDUCTIONS and len(node.args) == 1 and _kept_axes(node.keywords)
        return False


def _kept_axes(keywords):
    """Whether a reduction with these keywords leaves its operand's axes in place: none
    (all of them reduced: a scalar), or axis=<constant> with keepdims=True."""
    named = {k.arg: k.value for k in keywords}
    if not named:
        return True
    axis, keepdims = named.pop("axis", None), named.pop("keepdims", None)
    return (
        not named
        and isinstance(keepdims, gast.Constant)
        and keepdims.value is True
        and (
            isinstance(axis, gast.Constant)
            or isinstance(axis, gast.Tuple)
            and all(isinstance(e, gast.Constant) for e in axis.elts)
        )
    )


def _assigned_in_loops(body, looped=False):
    for stmt in body:
        if looped:
            if isinstance(stmt, ir.Assign):
                yield from stmt.targets
            yield from _other_targets(stmt)
            if isinstance(stmt, ir.For):
                yield stmt.target
        inner = looped or isinstance(stmt, (ir.For, ir.While))
        for block in ("body", "orelse"):
            yield from _assigned_in_loops(getattr(stmt, block, ()), inner)
