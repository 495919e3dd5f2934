"""Generators srcdiff inlines where a loop takes all their items (inline.py): each is the
function that returns the list of what it yields.

    def pieces_of(params):             def pieces_of(params):
        for layer in params:     ->        pieces_of_items = []
            yield from layer               for layer in params:
                                               for _yielded in layer:
                                                   pieces_of_items.append(_yielded)
                                           return pieces_of_items
"""

import gast

from . import ir
from .errors import UnsupportedError

_TAKING_ALL = ("list", "tuple", "sum", "sorted", "enumerate", "zip", "min", "max", "any", "all")
_LOOPS_AND_CALLS = frozenset((gast.For, gast.comprehension, gast.Call))


def iterated_calls(root):
    """The ids of the calls under `root` whose items a loop takes, all of them: the
    iterable of a for loop or a comprehension, or an argument of list(...), sum(...), ..."""
    return _iterated(ir.nodes_of(root, _LOOPS_AND_CALLS))


def _iterated(nodes):
    """iterated_calls of the loops and calls `nodes` (those below a node)."""
    found = set()
    for node in nodes:
        if isinstance(node, (gast.For, gast.comprehension)):
            found.add(id(node.iter))
        elif (
            isinstance(node, gast.Call)
            and isinstance(node.func, gast.Name)
            and node.func.id in _TAKING_ALL
        ):
            found |= {id(a) for a in node.args}
    return found


def mark_calls_taken_whole(loops, calls):
    """Mark the calls whose items a loop takes, all of them (`_taken_whole`), before the
    stages that follow move them out of the loop: a call of a generator that is not a
    local function (a closure: autograd's `for W, b in unpack_layers(weights)`) is then
    followed as a call of the function returning the list of what it yields. `loops` and
    `calls`: a function's for loops and comprehensions, and its calls."""
    taken = _iterated(loops + calls)
    for node in calls:
        if id(node) in taken:
            node._taken_whole = True


def is_generator(definition):
    """Whether a function definition yields (itself: not a function defined in it)."""
    return first_yield(definition) is not None


def first_yield(definition):
    """The first yield of a function definition (not of a function defined in it), or None."""

    def visit(node):
        for child in ir.children(node):
            if isinstance(child, (gast.Yield, gast.YieldFrom)):
                return child
            if not isinstance(child, (gast.FunctionDef, gast.Lambda)):
                found = visit(child)
                if found is not None:
                    return found
        return None

    return visit(definition)


def yields_into_a_list(definition, fresh, location):
    """A generator's definition as the function returning the list of what it yields:
    `yield v` appends v, `yield from xs` each item of xs, `return` returns the list."""
    definition = ir.copy_tree(definition)
    held = fresh(f"{definition.name}_items")
    into_list = _IntoList(held, fresh, location)
    definition.body = (
        [gast.copy_location(ir.assign(held, gast.List(elts=[], ctx=gast.Load())), definition)]
        + into_list.block(definition.body)
        + [gast.copy_location(gast.Return(value=ir.name(held)), definition.body[-1])]
    )
    if is_generator(definition):
        where = next(n for n in ir.walk(definition) if isinstance(n, (gast.Yield, gast.YieldFrom)))
        raise UnsupportedError(
            "a yield used as a value (x = yield v)",
            location(where),
            "yield in a statement of its own",
        )
    return definition


class _IntoList:
    """The statements of a generator, each yield an append to the list `held`."""

    def __init__(self, held, fresh, location):
        self.held, self.fresh, self.location = held, fresh, location

    def append(self, value):
        return ir.expr_stmt(ir.call(ir.attr(self.held, "append"), value))

    def block(self, stmts):
        out = []
        for stmt in stmts:
            new = self.statement(stmt)
            out.append(new if new is stmt else gast.copy_location(new, stmt))
        return out

    def statement(self, stmt):
        value = stmt.value if isinstance(stmt, (gast.Expr, gast.Return)) else None
        if isinstance(value, gast.Yield):
            return self.append(value.value or ir.const(None))
        if isinstance(value, gast.YieldFrom):
            item = self.fresh("_yielded")
            return gast.For(
                target=ir.name(item, store=True),
                iter=value.value,
                body=[self.append(ir.name(item))],
                orelse=[],
                type_comment=None,
            )
        if isinstance(stmt, gast.Return):
            if stmt.value is not None:
                raise UnsupportedError(
                    "a generator that returns a value",
                    self.location(stmt),
                    "return without a value, or yield it",
                )
            return gast.Return(value=ir.name(self.held))
        if (
            isinstance(stmt, gast.While)
            and is_generator(stmt)
            and isinstance(stmt.test, gast.Constant)
            and stmt.test.value
        ):
            raise UnsupportedError(
                "a generator that yields in a `while True` loop (its items may never end)",
                self.location(stmt),
                "loop over a range, or yield from a finite loop",
            )
        for part in [stmt] + list(getattr(stmt, "handlers", [])):
            for field in ("body", "orelse", "finalbody"):
                if isinstance(getattr(part, field, None), list):
                    setattr(part, field, self.block(getattr(part, field)))
        return stmt
