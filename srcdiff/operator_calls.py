"""Calls of the operator module's functions (`functools.reduce(operator.add, terms)`,
`map(operator.mul, xs, ys)`, once those are loops and comprehensions) written as the
operators they apply: `operator.mul(a, b)` is `a * b`, whatever a and b are (lists join,
arrays broadcast), as the transforms follow operators. So is `math.log(x, base)`, which
Python computes as `math.log(x) / math.log(base)`; and np.einsum's interleaved form,
`np.einsum(a, [0, 1], b, [1, 2], [0, 2])`, as the subscripts string that means it,
`np.einsum("ab,bc->ac", a, b)`."""

import math
import operator
import string

import gast
import numpy as np

from . import ir

_BINARY = {
    operator.add: gast.Add,
    operator.sub: gast.Sub,
    operator.mul: gast.Mult,
    operator.truediv: gast.Div,
    operator.floordiv: gast.FloorDiv,
    operator.mod: gast.Mod,
    operator.pow: gast.Pow,
    operator.matmul: gast.MatMult,
}
_UNARY = {operator.neg: gast.USub, operator.pos: gast.UAdd}


def as_operators(func, resolve, calls):
    """Rewrite (in place) the `calls` in `func` of operator.add and the like, with their
    operands given by position, into the operators."""
    known = {}  # dotted path -> what it names (a function calls a few, many times)

    def resolved(node):
        path = ir.dotted(node)
        if path not in known:
            known[path] = resolve(node)
        return known[path]

    applied = {id(call) for call in calls if _as_operator(call, resolved) is not None}
    if not applied:
        return
    for node in reversed(list(ir.walk(func))):  # (a call's operands written before the call)
        for field, value in ir.fields(node):
            if isinstance(value, list):
                value[:] = [_as_operator(c, resolved) if id(c) in applied else c for c in value]
            elif id(value) in applied:
                setattr(node, field, _as_operator(value, resolved))


def _as_operator(node, resolve):
    if isinstance(node, gast.Call) and ir.dotted(node.func) and resolve(node.func) is np.einsum:
        return _einsum_subscripts(node)
    if not (
        isinstance(node, gast.Call)
        and ir.dotted(node.func) is not None
        and not node.keywords
        and not any(isinstance(a, gast.Starred) for a in node.args)
    ):
        return None
    function = resolve(node.func)
    try:
        binary, unary = _BINARY.get(function), _UNARY.get(function)
    except TypeError:  # (unhashable)
        return None
    if binary is not None and len(node.args) == 2:
        written = gast.BinOp(left=node.args[0], op=binary(), right=node.args[1])
    elif unary is not None and len(node.args) == 1:
        written = gast.UnaryOp(op=unary(), operand=node.args[0])
    elif function is operator.getitem and len(node.args) == 2:
        written = gast.Subscript(value=node.args[0], slice=node.args[1], ctx=gast.Load())
    elif function is math.log and len(node.args) == 2:  # (math.log's own quotient)
        x, base = (gast.Call(func=node.func, args=[a], keywords=[]) for a in node.args)
        written = gast.BinOp(left=x, op=gast.Div(), right=base)
    else:
        return None
    return gast.copy_location(written, node)


def _einsum_subscripts(call):
    """np.einsum(a, [0, 1], b, [1, 2], [0, 2]) as np.einsum("ab,bc->ac", a, b), where
    each sublist is written as a list or tuple of numbers; else None."""
    args = call.args
    if len(args) < 2 or any(isinstance(a, gast.Starred) for a in args):
        return None
    sublists = [_letters(a) for a in args[1::2]]
    if any(s is None for s in sublists):
        return None
    operands, output = args[0::2], ""
    if len(args) % 2:
        operands, output = operands[:-1], "->" + _letters(args[-1])
    subscripts = ",".join(sublists[: len(operands)]) + output
    return gast.copy_location(
        gast.Call(func=call.func, args=[ir.const(subscripts), *operands], keywords=call.keywords),
        call,
    )


def _letters(sublist):
    """The letters for a sublist written as [0, 1] (numpy's 0 to 51: a to Z), else None."""
    if not isinstance(sublist, (gast.List, gast.Tuple)):
        return None
    numbers = [e.value for e in sublist.elts if isinstance(e, gast.Constant)]
    if len(numbers) != len(sublist.elts) or not all(
        type(n) is int and 0 <= n < len(string.ascii_letters) for n in numbers
    ):
        return None
    return "".join(string.ascii_letters[n] for n in numbers)
