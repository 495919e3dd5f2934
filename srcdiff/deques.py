"""Before inlining: a collections.deque f makes itself, used only as a list is, is a list
(which list_changes.py then follows, item by item), its methods at the front the list's:

    q = collections.deque()           ->   q = []
    q = collections.deque(items)      ->   q = [*items]
    v = q.popleft()                   ->   v = q.pop(0)
    q.appendleft(v)                   ->   q.insert(0, v)
    q = collections.deque(maxlen=3)   ->   q = [], and after each q.append(v):
                                               if len(q) > 3:
                                                   q.pop(0)
                                           (after q.appendleft(v), q.pop() drops the last)

Only where every binding of q is such a call (maxlen a number, or absent) and q is read
only by these methods, append, pop, extend, clear, or as a value a list gives the same
(len(q), q[k], for v in q, sum(q)); else it stays a deque, which srcdiff refuses where
it cannot follow it."""

import collections

import gast

from . import ir

# the deque methods a list has, or that are a list's at the front
_LIST_METHODS = ("append", "pop", "extend", "clear")
_AT_THE_FRONT = {"popleft": "pop", "appendleft": "insert"}


def deques_as_lists(func, resolve):
    """Rewrite func's (a gast FunctionDef's) deques made and used as lists, in place."""
    made = _deques_made(func, resolve)
    if not made:  # (no deque: no more walks)
        return
    for name, bindings in made.items():
        lengths = {_maxlen(call) for call in bindings.values()}
        if len(lengths) != 1 or not _used_as_a_list(func, name):
            continue
        [maxlen] = lengths
        for assign, call in bindings.items():
            assign.value = gast.List(
                elts=[gast.Starred(value=a, ctx=gast.Load()) for a in call.args],
                ctx=gast.Load(),
            )
        _methods_as_lists(func, name, maxlen)


def _deques_made(func, resolve):
    """{name: {assignment: the deque call}} of the names bound only to deque calls with at
    most the items by position and maxlen as a number."""
    assigned = collections.defaultdict(dict)
    for node in ir.walk_statements(func):
        if isinstance(node, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
            for target in getattr(node, "targets", [getattr(node, "target", None)]):
                if isinstance(target, gast.Name):
                    assigned[target.id][node] = node.value
    stored = collections.Counter(
        n.id for n in ir.name_nodes(func) if not isinstance(n.ctx, gast.Load)
    )
    return {
        name: values
        for name, values in assigned.items()
        if len(values) == stored[name] and all(_is_deque_call(v, resolve) for v in values.values())
    }


def _is_deque_call(value, resolve):
    return (
        isinstance(value, gast.Call)
        and resolve(value.func) is collections.deque
        and len(value.args) <= 1
        and not any(isinstance(a, gast.Starred) for a in value.args)
        and all(k.arg == "maxlen" for k in value.keywords)
        and _maxlen(value) is not False
    )


def _maxlen(call):
    """The deque call's maxlen: an int, None where it has none; False where not a number."""
    [value] = [k.value for k in call.keywords] or [gast.Constant(value=None, kind=None)]
    if isinstance(value, gast.Constant) and (value.value is None or type(value.value) is int):
        return value.value
    return False


def _used_as_a_list(func, name):
    """Whether each read of `name` is a call of one of the methods, or not an attribute."""
    methods = set(_LIST_METHODS) | set(_AT_THE_FRONT)
    called = {id(n.func) for n in ir.walk(func) if isinstance(n, gast.Call)}
    return all(
        n.attr in methods and id(n) in called
        for n in ir.walk(func)
        if isinstance(n, gast.Attribute) and isinstance(n.value, gast.Name) and n.value.id == name
    )


def _methods_as_lists(func, name, maxlen):
    """q.popleft() as q.pop(0), q.appendleft(v) as q.insert(0, v); with a maxlen, the item
    dropped at the other end after each statement that adds one."""
    for node in ir.walk(func):
        if _is_method_call(node, name, _AT_THE_FRONT):
            node.args = [ir.const(0), *node.args]
            node.func.attr = _AT_THE_FRONT[node.func.attr]
    if maxlen is None:
        return
    for node in list(ir.walk_statements(func)):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                setattr(node, field, [s for stmt in block for s in _bounded(stmt, name, maxlen)])


def _bounded(stmt, name, maxlen):
    """stmt, and after it the drop of the item past maxlen where it adds one to `name`:
    the first after an append, the last after an insert at the front."""
    if not (
        isinstance(stmt, gast.Expr) and _is_method_call(stmt.value, name, ("append", "insert"))
    ):
        return [stmt]
    first = [ir.const(0)] if stmt.value.func.attr == "append" else []
    too_long = gast.Compare(
        left=ir.call("len", ir.name(name)), ops=[gast.Gt()], comparators=[ir.const(maxlen)]
    )
    dropped = gast.copy_location(ir.expr_stmt(ir.call(ir.attr(name, "pop"), *first)), stmt)
    return [stmt, gast.copy_location(gast.If(test=too_long, body=[dropped], orelse=[]), stmt)]


def _is_method_call(node, name, methods):
    return (
        isinstance(node, gast.Call)
        and isinstance(node.func, gast.Attribute)
        and isinstance(node.func.value, gast.Name)
        and node.func.value.id == name
        and node.func.attr in methods
    )
