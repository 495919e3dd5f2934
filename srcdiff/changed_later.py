"""Which values f may change in place after a derivative read them, keeping their names: the
adjoint of a read reads its index when the reverse sweep runs, so a read indexed by one keeps
a copy of the index as it is then (expressions.py's held_index, runtime.copied_index):

    for i in range(3):                      for i in range(3):
        s = s + np.sum(x[idx])      ->          _idx0 = runtime.copied_index(idx)
        idx.append(i)                           _t0 = x[_idx0]      (_idx0 kept per iteration)

A value changes as a whole (idx.append(i), idx[0] = i, del idx[0], a function changing its
argument) or inside (m[0][1] = i, m[0].append(i): an item of it changes). A name bound to
another (j = idx) changes with it; an item taken out of a container (r = m[0], for r in m)
changes it inside, and changes itself where the container changes inside; a container made
of items (t = [a, b], list(m)) shares them. (`idx += v` binds idx anew as anf.py
differentiates it, and aliasing.py follows what shares it.)
"""

import inspect

import gast

from . import ir
from .errors import SrcdiffError
from .parse import is_library_function, parsed_function
from .sources import facts_kept, signature
from .primitives import registry
from .shapes import IN_PLACE_METHODS, MUTATORS
from .truths import arguments, root

# builtins whose result holds no value of their arguments
_NEW_VALUES = (bool, len, isinstance, range, print, int, float, str, abs, round)
# builtins whose result holds the items of their arguments
_SAME_ITEMS = (list, tuple, sorted, reversed, iter, enumerate, zip, set, dict, next)


def changed_in_place_names(func, resolve, analysed=None, nodes=None):
    """The names of `func` (a gast FunctionDef) whose value f may change in place later,
    as a whole or inside. `analysed`: which parameters each function f calls changes,
    where known already; `nodes`: binding_nodes(func), or more of func's nodes, where the
    caller has them already."""

    def values(names):  # (not a module, class or function: int in a.astype(int))
        return {n for n in names if not is_code(resolve(ir.name(n)))}

    nodes = binding_nodes(func) if nodes is None else nodes
    analysed = facts_kept("parameters changed") if analysed is None else analysed
    passed = _changed_arguments(analysed, resolve)
    whole, inside = map(values, _changed(resolve, passed, nodes))
    if not (whole or inside):
        return set()  # (nothing changes in place: no binding to follow)
    links = [
        (kind, values(names), values(others))
        for binding in [*bindings(nodes), *_stored(nodes, resolve)]
        for kind, names, others in _bound(*binding, resolve)
    ]
    grown = True
    while grown:
        before = len(whole) + len(inside)
        for kind, names, others in links:
            if kind == "same" and (names | others) & whole:
                whole |= names | others
            if kind == "same" and (names | others) & inside:
                inside |= names | others
            if kind == "item" and names & (whole | inside):  # (names: items of others)
                inside |= others
            if kind == "item" and others & inside:
                whole |= names
                inside |= names
            if kind == "items" and (names | others) & inside:
                inside |= names | others
        grown = len(whole) + len(inside) > before
    return whole | inside


def left_as_passed(func, resolve):
    """The parameters of `func` that it neither changes in place nor binds to another name,
    holds in a container or returns: a caller may pass a copy of such an argument instead
    (user_calls.py), and sees no difference."""
    params = {a.id for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs}
    escaping = set()
    for node in ir.nodes_of(func, _ESCAPING):
        if isinstance(node, (gast.Return, gast.Yield, gast.YieldFrom)) and node.value:
            escaping |= _linked(_NOWHERE, node.value, resolve)
        elif isinstance(node, (gast.FunctionDef, gast.Lambda)) and node is not func:
            escaping |= ir.names_in(node)  # (a closure may keep it)
    nodes = binding_nodes(func)
    for target, value, _ in [*bindings(nodes), *_stored(nodes, resolve)]:
        escaping |= _linked(target, value, resolve)
    return params - escaping - changed_in_place_names(func, resolve, nodes=nodes)


def _linked(target, value, resolve):
    """The names binding `target` to `value` links it to (those it may be, hold, or be an
    item of)."""
    links = _links(target, value, resolve)
    return set().union(set(), *(names | others for _, names, others in links)) - ir.names_in(
        target, gast.Store
    )


def _stored(nodes, resolve):
    """(the container, an item stored into it, False) of each xs.append(v), xs.insert(k, v),
    d.setdefault(k, v) among a function's `nodes` (binding_nodes'): v is an item of xs
    (bindings' form, as t = [v] binds)."""
    for node in nodes:
        if _is_list_change(node, resolve):
            for name in root(node.func.value):
                container = gast.Name(id=name, ctx=gast.Store(), annotation=None, type_comment=None)
                for item in arguments(node):
                    yield container, gast.List(elts=[item], ctx=gast.Load()), False


def _is_list_change(node, resolve):
    """Whether `node` calls a list's or dict's method that changes it (not a method of the
    same name a class of f's program defines)."""
    if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)):
        return False
    called = resolve(node.func)
    return (
        node.func.attr in MUTATORS
        and isinstance(node.func.value, (gast.Name, gast.Subscript, gast.Attribute))
        and not inspect.isfunction(getattr(called, "__func__", called))
    )


def _changed(resolve, passed, nodes):
    """(the names f changes as a whole, those it changes inside) directly, among its `nodes`
    (binding_nodes'): by a method that may change them, a write or del into them, a call of
    a function that may change its arguments (`passed(call, called)`: which names it may
    change)."""
    whole, inside = set(), set()

    def note(node):  # (idx itself, or an item of m: m[0])
        (whole if isinstance(node, gast.Name) else inside).update(root(node))

    for node in nodes:
        if isinstance(node, gast.Call):
            method, called = node.func, resolve(node.func)
            if (
                isinstance(method, gast.Attribute)
                and not is_code(resolve(method.value))
                and not inspect.isfunction(getattr(called, "__func__", called))
                and _may_change_in_place(method.attr)
            ):  # (a method of a class of the program's: `passed` says, as for its arguments)
                note(method.value)
            record = registry.find(called) if callable(called) else None
            if not (
                called in _NEW_VALUES
                or record is not None
                and record.pure
                or _is_list_change(node, resolve)
            ):
                for argument in passed(node, called):
                    note(argument)
        elif isinstance(node, (gast.Subscript, gast.Attribute)) and isinstance(
            node.ctx, (gast.Store, gast.Del)
        ):
            note(node.value)
    return whole, inside


def _may_change_in_place(method):
    record = registry.method(method)
    return method in IN_PLACE_METHODS or record is None or not record.pure


def _bound(target, value, loops, resolve):
    """The links of a binding (_links): a loop's target, or the names a tuple unpacks, are
    items of what the value is or holds."""
    if loops or isinstance(target, (gast.Tuple, gast.List)):
        return [("item", ir.names_in(target, gast.Store), _linked(_NOWHERE, value, resolve))]
    return _links(target, value, resolve)


_NOWHERE = gast.Name(id="", ctx=gast.Store(), annotation=None, type_comment=None)
# the nodes that may change a value in place (a call, a write or del into an item or field)
# and those that bind a name
_LOOKED_AT = frozenset(
    (gast.Call, gast.Subscript, gast.Attribute)
    + (gast.Assign, gast.AnnAssign, gast.NamedExpr, gast.For, gast.comprehension)
)
_ESCAPING = frozenset((gast.Return, gast.Yield, gast.YieldFrom, gast.FunctionDef, gast.Lambda))


def _links(target, value, resolve):
    """(kind, names, others) of binding `target` to `value`: "same" (the names are the
    others: j = idx, j = g(idx) of a g unknown), "item" (the names are items of the others:
    r = m[0], for r in m, t = [a, b] (a is an item of t)) or "items" (they hold the same
    items: t = list(m))."""
    targets = ir.names_in(target, gast.Store)
    if isinstance(value, gast.Name):
        return [("same", targets, {value.id})]
    if isinstance(value, (gast.Subscript, gast.Attribute)):
        return [("item", targets, root(value))]
    if isinstance(value, gast.IfExp):
        return _links(target, value.body, resolve) + _links(target, value.orelse, resolve)
    if isinstance(value, (gast.List, gast.Tuple, gast.Set, gast.Dict)):
        items = value.values if isinstance(value, gast.Dict) else value.elts
        return [
            link
            for item in items
            for kind, names, others in _links(target, item, resolve)
            for link in [("item", others, names) if kind == "same" else ("item", targets, others)]
        ]
    if isinstance(value, gast.Starred):  # (of a display: t = [*m])
        return [("items", targets, root(value.value))]
    if isinstance(value, gast.Call):
        return _call_links(targets, value, resolve)
    return []


def _call_links(targets, call, resolve):
    called = resolve(call.func)
    record = registry.find(called) if callable(called) else None
    if called in _NEW_VALUES or record is not None and record.pure:
        return []
    names = set().union(set(), *(root(a) for a in arguments(call)))
    if called in _SAME_ITEMS:
        return [("items", targets, names)]
    return [("same", targets, names)]


def _changed_arguments(analysed, resolve):
    """`passed` for _changed: the arguments of a call of `called` that it may change in
    place (a method's object among them); of a Python function, those its parameters that
    it changes take (and any it takes as *args or **kwargs: `analysed` keeps what each
    function changes); of anything else, all."""

    def passed(call, called):
        args = list(call.args)
        if isinstance(call.func, gast.Attribute) and not is_code(resolve(call.func.value)):
            called, args = getattr(called, "__func__", called), [call.func.value, *args]
        changes = _parameters_changed(called, analysed) if inspect.isfunction(called) else None
        named = {k.arg: k.value for k in call.keywords if k.arg is not None}
        try:
            if (
                changes is None
                or len(named) < len(call.keywords)
                or any(isinstance(a, gast.Starred) for a in args)
            ):
                raise TypeError  # (f(*a) and f(**d) bind only as the call runs)
            places = signature(called).bind(*args, **named).arguments
        except TypeError:
            return list(arguments(call))
        found = []
        for param, node in places.items():
            if param in changes or not isinstance(node, gast.AST):  # (*args, **kwargs)
                found += [node] if isinstance(node, gast.AST) else _values(node)
        return found

    return passed


def _values(packed):
    return list(packed.values() if isinstance(packed, dict) else packed)


def _parameters_changed(fn, analysed):
    """The parameters Python function fn may change in place, or None where unknown (its
    source unreadable, a library's, whose source srcdiff does not read, or a call of it
    inside itself)."""
    if fn not in analysed:
        analysed[fn] = None
        if is_library_function(fn):
            return None
        try:
            parsed = parsed_function(fn, shared=True)
        except SrcdiffError:
            return None
        args = parsed.node.args
        params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
        changed = changed_in_place_names(parsed.node, parsed.resolve, analysed)
        analysed[fn] = params & changed
    return analysed[fn]


def is_code(obj):
    """Whether `obj` (what a name resolves to) is a module, class or function: no value f
    changes (int in a.astype(int))."""
    return inspect.ismodule(obj) or inspect.isclass(obj) or inspect.isroutine(obj)


def binding_nodes(func):
    """The nodes of `func` that the analyses here look at: its calls, items and fields, and
    what binds a name (an assignment, a loop)."""
    return ir.nodes_of(func, _LOOKED_AT)


def bindings(nodes):
    """(target, value, whether it loops) of each binding among a function's `nodes`
    (binding_nodes': a for loop's, its target and what it loops over), a tuple unpacking a
    display item by item."""
    for node in nodes:
        if isinstance(node, gast.Assign):
            for target in node.targets:
                yield from ((t, v, False) for t, v in _unpacked(target, node.value))
        elif isinstance(node, (gast.AnnAssign, gast.NamedExpr)) and node.value is not None:
            yield node.target, node.value, False
        elif isinstance(node, (gast.For, gast.comprehension)):
            yield node.target, node.iter, True


def _unpacked(target, value):
    displays = (gast.Tuple, gast.List)
    if (
        isinstance(target, displays)
        and isinstance(value, displays)
        and len(target.elts) == len(value.elts)
        and not any(isinstance(n, gast.Starred) for n in target.elts + value.elts)
    ):
        for item_target, item in zip(target.elts, value.elts):
            yield from _unpacked(item_target, item)
    else:
        yield target, value
