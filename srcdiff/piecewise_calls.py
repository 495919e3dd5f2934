"""`np.piecewise(x, [conditions], [pieces])` as the writes it makes, ahead of its statement,
so that both modes differentiate each piece where its condition holds (a lambda piece is
assigned to a name, and called as one: inline.py inlines it):

    y = np.piecewise(h, [h < 0, h > 1], [f, 2.0, g])
        ->  _x = np.asarray(h)              (a float's too: numpy's result is an array)
            _condition0 = h < 0
            _condition1 = h > 1
            _otherwise = ~np.any([_condition0, _condition1], axis=0)
            y = np.zeros_like(_x)
            y[_condition0] = f(_x[_condition0])
            y[_condition1] = 2.0
            y[_otherwise] = g(_x[_otherwise])

As numpy does: a piece is called with the items of x its condition picks (and the call's
further arguments), or is the value put there; a later condition's piece overwrites an
earlier's; one piece more than conditions is for the items no condition picks. Only where
the statement runs the call once, first thing, with the conditions and pieces written as
list or tuple displays (else the error at the call says so)."""

import gast
import numpy as np

from . import ir
from .errors import UnsupportedError
from .reduce_loops import calls_run_once, lowered_block
from .statics import is_function_value


def piecewise_as_writes(func, resolve, fresh, called):
    """Lower the np.piecewise calls of func's statements (in place); whether any was.
    `called`: reduce_loops.called_objects(func)."""
    if id(np.piecewise) not in called:
        return False

    local_defs = {n.name for n in ir.walk(func) if isinstance(n, gast.FunctionDef)} - {func.name}

    def is_function(piece):  # (a piece to call, not the value to put where it holds)
        return (
            isinstance(piece, gast.Lambda)
            or isinstance(piece, gast.Name)
            and piece.id in local_defs
            or is_function_value(resolve(piece))
        )

    def lower(call, stmt):
        return _as_writes(call, stmt, is_function, fresh)

    return lowered_block(func.body, lambda stmt: _piecewise_calls(stmt, resolve), lower)


def _piecewise_calls(stmt, resolve):
    return [
        call
        for call in calls_run_once(stmt)
        if isinstance(call.func, gast.Attribute)
        and resolve(call.func) is np.piecewise
        and len(call.args) >= 3
        and isinstance(call.args[1], (gast.List, gast.Tuple))
        and isinstance(call.args[2], (gast.List, gast.Tuple))
        and len(call.args[2].elts) - len(call.args[1].elts) in (0, 1)
        and not any(isinstance(a, gast.Starred) for a in call.args[:3])
        and not any(isinstance(e, gast.Starred) for e in call.args[1].elts + call.args[2].elts)
    ]


def _as_writes(call, stmt, is_function, fresh):
    """The statements computing piecewise `call` into a name, which then takes its place."""
    x, conditions, pieces, *extra = call.args
    numpy = call.func.value  # (np.piecewise: the name f's module calls numpy by)
    before = []

    def named(value, prefix):
        if isinstance(value, gast.Name):
            return value
        name = fresh(prefix)
        before.append(ir.assign(ir.name(name, store=True), value))
        return ir.name(name)

    x = named(ir.call(ir.attr(ir.copy_tree(numpy), "asarray"), x), "_x")
    masks = [named(c, "_condition") for c in conditions.elts]
    if len(pieces.elts) > len(masks):  # (the items no condition picks)
        listed = gast.List(elts=[ir.copy_tree(m) for m in masks], ctx=gast.Load())
        anywhere = ir.call(ir.attr(ir.copy_tree(numpy), "any"), listed, axis=ir.const(0))
        masks.append(named(gast.UnaryOp(op=gast.Invert(), operand=anywhere), "_otherwise"))
    total = _result_name(call, stmt, fresh)
    before.append(
        ir.assign(
            ir.name(total, store=True), ir.call(ir.attr(ir.copy_tree(numpy), "zeros_like"), x)
        )
    )
    for mask, piece in zip(masks, pieces.elts):
        if is_function(piece):
            picked = gast.Subscript(
                value=ir.copy_tree(x), slice=ir.copy_tree(mask), ctx=gast.Load()
            )
            piece = gast.Call(
                func=named(piece, "_piece"),
                args=[picked, *[ir.copy_tree(a) for a in extra]],
                keywords=[ir.copy_tree(k) for k in call.keywords],
            )
        written = gast.Subscript(value=ir.name(total), slice=ir.copy_tree(mask), ctx=gast.Store())
        before.append(ir.assign(written, piece))
    for new in before:
        for n in ir.walk(new):
            n.lineno = getattr(n, "lineno", None) or stmt.lineno
    ir.replace_node(stmt, call, ir.name(total))
    return before


def _result_name(call, stmt, fresh):
    """The statement's target where it assigns the call to one name it does not read."""
    if (
        isinstance(stmt, gast.Assign)
        and stmt.value is call
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], gast.Name)
        and stmt.targets[0].id not in ir.names_in(call)
    ):
        return stmt.targets[0].id
    return fresh("_pieces")


def refuse_piecewise(obj, loc):
    """The error for an np.piecewise call left as it is (for expressions.py)."""
    if obj is np.piecewise:
        raise UnsupportedError(
            "np.piecewise(...) is differentiated as the writes it makes where its statement "
            "runs it once (not under a conditional expression, and/or, a lambda or a "
            "comprehension), called as np.piecewise with its conditions and pieces written "
            "as lists in the call",
            loc,
            "write them in the call, in a statement of its own: "
            "y = np.piecewise(x, [x < 0, x >= 1], [f, 0.0, g])",
        )
