"""Branches under a constant test, dropped as a function is read, as CPython's compiler drops
them: `if False:` (or `if 0:`, `if None:`, `if not True:`) keeps only its else, `if True:`
only its body, `x if False else y` is `y`, and `while False:` only its else. A dead branch is
then never differentiated, so what it holds (a try, a call with no adjoint) stops nothing.

A name the dropped code alone binds is still local in Python, so reading it raises
UnboundLocalError there; srcdiff would read a global of that name instead, and raises.
A dead branch that makes the function a generator (`yield`) or declares a name global or
nonlocal stays, so the error it raised before (or its meaning) stays too.
"""

import ast
import symtable

from .errors import Location, UnsupportedError

_KEEPS_MEANING = (ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal)


def drop_dead_branches(tree, source, filename, first_line):
    """Rewrite `tree` (the ast.Module of `source`, one function) in place; its line numbers
    plus `first_line` - 1 are those of `filename`."""
    dropper = _Dropper()
    dropper.visit(tree)
    if dropper.dropped:
        _check_unbound_reads(tree, source, filename, first_line, dropper.dropped)
    return tree


def constant_truth(test):
    """True or False for a test whose truth is fixed (`False`, `0`, `None`, `not True`), else
    None."""
    if isinstance(test, ast.Constant):
        return bool(test.value)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        truth = constant_truth(test.operand)
        return None if truth is None else not truth
    return None


class _Dropper(ast.NodeTransformer):
    """Replaces each branching node whose test is constant by its live part; `dropped` keeps
    the first line of each branch it removed (for the error of a name bound only there)."""

    def __init__(self):
        self.dropped = []

    def visit_If(self, node):
        return self._branch(node, node.body, node.orelse)

    def visit_While(self, node):
        if constant_truth(node.test) is False:
            return self._branch(node, [], node.orelse)
        return self.generic_visit(node)

    def visit_IfExp(self, node):
        truth = constant_truth(node.test)
        if truth is None or _keeps_meaning(node.orelse if truth else node.body):
            return self.generic_visit(node)
        self.dropped.append(node)
        return self.visit(node.body if truth else node.orelse)

    def _branch(self, node, body, orelse):
        truth = constant_truth(node.test)
        dead, live = (orelse, body) if truth else (body, orelse)
        if truth is None or any(_keeps_meaning(s) for s in dead):
            return self.generic_visit(node)
        self.dropped.append(node)
        kept = [new for stmt in live for new in _as_list(self.visit(stmt))]
        return kept or ast.copy_location(ast.Pass(), node)


def _as_list(visited):
    return visited if isinstance(visited, list) else [visited]


def _keeps_meaning(node):
    """Whether `node` holds what changes the meaning of its whole function (outside any
    function or lambda it defines)."""
    todo = [node]
    for current in todo:
        if isinstance(current, _KEEPS_MEANING):
            return True
        if not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(current))
    return False


def _check_unbound_reads(tree, source, filename, first_line, dropped):
    """Raise where the live code reads a name that only the dropped code bound."""
    unbound = sorted(_unbound(_function_table(source), _function_table(ast.unparse(tree))))
    if not unbound:
        return
    name = unbound[0]
    lineno = min(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)
    )
    branch = min(node.lineno for node in dropped) + first_line - 1
    line = source.splitlines()[lineno - 1]
    raise UnsupportedError(
        f"`{name}` is bound only in the branch of a constant test at line {branch}, which "
        "never runs: Python raises UnboundLocalError where it is read",
        Location(filename, lineno + first_line - 1, line),
        f"bind `{name}` on a path that runs, or drop the constant test",
    )


def _unbound(before, after):
    """The names local to a scope before the dead code went, and not after, that it or a
    scope inside it reads: in the function's table and, paired in order, its functions'."""
    local_after = {s.get_name() for s in after.get_symbols() if s.is_local()}
    lost = {s.get_name() for s in before.get_symbols() if s.is_local()} - local_after
    read = {s.get_name() for s in after.get_symbols() if s.is_referenced()} | _read_inside(after)
    found = lost & read
    remaining = iter(before.get_children())  # (the dead code's own scopes are gone after)
    for child in after.get_children():
        kind = (child.get_type(), child.get_name())
        twin = next((c for c in remaining if (c.get_type(), c.get_name()) == kind), None)
        if twin is not None:
            found |= _unbound(twin, child)
    return found


def _function_table(source):
    """The table of the function (or lambda) `source` defines."""
    return symtable.symtable(source, "<function>", "exec").get_children()[0]


def _read_inside(table):
    """The names the functions, lambdas and comprehensions of `table` read from outside."""
    found = set()
    for child in table.get_children():
        found |= {s.get_name() for s in child.get_symbols() if s.is_referenced()}
        found -= {s.get_name() for s in child.get_symbols() if s.is_local()}
        found |= _read_inside(child)
    return found
