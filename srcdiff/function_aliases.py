"""Functions as values, read through before inlining so that calls of them resolve
(parse.py): names bound once to a function (`act = np.tanh`, `act = ACTIVATIONS["relu"]`)
or to a display of them, `functools.partial(g, ...)` called, and `map(g, xs)`."""

import functools

import numpy as np

import gast

from . import ir
from .function_picks import branch_on_picks
from .made_derivatives import is_derivative
from .parse import is_function_value
from .provenance import holds_functions


def substitute_function_aliases(func, resolve):
    """`act = np.tanh` or `act = ACTIVATIONS["relu"]` (a name bound once, to a function the
    code names): the uses of `act` read the expression itself, so calls of it are resolved
    (and a pick by a key known only at run time is refused where it is called)."""
    stores, shadowed, assigns = {}, set(), []  # (one walk)
    for node in ir.walk(func):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, gast.Name) and isinstance(node.ctx, gast.Param):
            shadowed.add(node.id)
        elif (
            isinstance(node, gast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], gast.Name)
        ):
            assigns.append(node)
    aliases, displays = {}, {}
    for node in assigns:
        if stores.get(node.targets[0].id) == 1 and node.targets[0].id not in shadowed:
            if names_a_function(node.value, resolve):
                aliases[node.targets[0].id] = node
            elif _display_of_functions(node.value, resolve):
                displays[node.targets[0].id] = node.value
    if displays:
        pick_from_displays(func, displays, lambda node: names_a_function(node, resolve))
    if not aliases:
        return
    for node in list(ir.walk(func)):
        for field, value in ir.fields(node):
            items = value if isinstance(value, list) else [value]
            kept = [
                ir.copy_tree(aliases[v.id].value)
                if isinstance(v, gast.Name) and isinstance(v.ctx, gast.Load) and v.id in aliases
                else v
                for v in items
                if not any(v is a for a in aliases.values())
            ]
            setattr(node, field, kept if isinstance(value, list) else kept[0])


def names_a_function(node, resolve):
    """Whether `node` names a function (np.tanh, a global, ACTIVATIONS["relu"]), or picks
    one from a global container of functions by a key (ACTIVATIONS[name])."""
    if is_function_value(resolved := resolve(node)) or is_derivative(resolved):
        return True
    if not isinstance(node, gast.Subscript):
        return False
    # (an item of a global container too: ParsedFunction.container, where resolve is its)
    container = getattr(getattr(resolve, "__self__", None), "container", resolve)(node.value)
    return isinstance(container, (dict, list, tuple)) and holds_functions(container)


def _display_of_functions(node, resolve):
    """Whether `node` is a dict display with constant keys (of anything: `opts = {"act":
    np.exp, "scale": 2.0}`), or a list or tuple display of functions the code names."""
    if isinstance(node, gast.Dict):
        return bool(node.keys) and all(constant(k) is not None for k in node.keys)
    return (
        isinstance(node, (gast.List, gast.Tuple))
        and bool(node.elts)
        and all(names_a_function(e, resolve) for e in node.elts)
    )


def pick_from_displays(func, displays, is_function):
    """`acts["out"](h)` of a name bound once to such a display reads the function itself
    (`softplus(h)`: an item `is_function` accepts), `g(**opts)` names each keyword, and a loop
    over a list of functions goes over the display (which inlining unrolls); the display
    stays, for what else reads it."""
    written = {
        n.value.id
        for n in ir.walk(func)
        if isinstance(n, (gast.Attribute, gast.Subscript))
        and isinstance(n.value, gast.Name)
        and (isinstance(n, gast.Attribute) or not isinstance(n.ctx, gast.Load))
    }
    displays = {k: v for k, v in displays.items() if k not in written}
    branch_on_picks(func, displays)
    for node in list(ir.walk(func)):
        if isinstance(node, gast.Call) and any(k.arg is None for k in node.keywords):
            node.keywords = [
                gast.keyword(arg=new.arg, value=_picked(new.value, displays, is_function))
                for k in node.keywords
                for new in _named(k, displays)
            ]
        for field, value in ir.fields(node):
            items = value if isinstance(value, list) else [value]
            picked = [_picked(v, displays, is_function) for v in items]
            if any(p is not v for p, v in zip(picked, items)):
                setattr(node, field, picked if isinstance(value, list) else picked[0])


def _named(keyword, displays):
    """`**opts` of a dict display with str keys as `act=opts["act"], scale=opts["scale"]`."""
    held = (
        displays.get(keyword.value.id)
        if keyword.arg is None and isinstance(keyword.value, gast.Name)
        else None
    )
    if not isinstance(held, gast.Dict) or not all(isinstance(k.value, str) for k in held.keys):
        return [keyword]
    return [
        gast.keyword(
            arg=k.value,
            value=gast.Subscript(
                value=gast.Name(
                    id=keyword.value.id, ctx=gast.Load(), annotation=None, type_comment=None
                ),
                slice=ir.copy_tree(k),
                ctx=gast.Load(),
            ),
        )
        for k in held.keys
    ]


def _picked(node, displays, is_function):
    key = constant(node.slice) if isinstance(node, gast.Subscript) else None
    if (
        key is not None
        and isinstance(node.value, gast.Name)
        and node.value.id in displays
        and isinstance(node.ctx, gast.Load)
    ):
        display = displays[node.value.id]
        if isinstance(display, gast.Dict):
            found = [v for k, v in zip(display.keys, display.values) if constant(k) == key]
        else:
            found = (
                [display.elts[key]]
                if isinstance(key, int) and -len(display.elts) <= key < len(display.elts)
                else []
            )
        return ir.copy_tree(found[-1]) if found and is_function(found[-1]) else node
    if isinstance(node, (gast.For, gast.comprehension)):
        node.iter = _display_iterated(node.iter, displays)
    return node


_OVER_ITEMS = ("enumerate", "zip", "reversed")  # (of fs, as of the display: its items)


def _display_iterated(node, displays):
    """The list or tuple display a name bound to one stands for, in `enumerate(fs)`,
    `zip(reversed(fs), ...)` too, else `node`."""
    if (
        isinstance(node, gast.Name)
        and node.id in displays
        and not isinstance(displays[node.id], gast.Dict)
    ):
        return ir.copy_tree(displays[node.id])
    if isinstance(node, gast.Call) and getattr(node.func, "id", None) in _OVER_ITEMS:
        node.args = [_display_iterated(a, displays) for a in node.args]
    return node


def constant(node):
    """The value of a constant key (`"out"`, `1`, `-1`), else None."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        inner = constant(node.operand)
        return -inner if type(inner) is int else None
    return (
        node.value
        if isinstance(node, gast.Constant) and isinstance(node.value, (str, int))
        else None
    )


def maps_to_comprehensions(func, resolve):
    """`map(g, a, b)` is `[g(x, y) for x, y in zip(a, b)]` (a list where Python makes an
    iterator: what a for loop or np.stack take of it is the same; list(map(...)) too),
    `filter(g, xs)` is `[x for x in xs if g(x)]`, and np.vectorize(g)(x) is _vectorized's."""
    for node in list(ir.walk(func)):
        for field, value in ir.fields(node):
            items = value if isinstance(value, list) else [value]
            for k, item in enumerate(items):
                made = _as_comprehension(item, resolve) if isinstance(item, gast.Call) else None
                if made is None:
                    continue
                made = gast.copy_location(made, item)
                if isinstance(value, list):
                    value[k] = made
                else:
                    setattr(node, field, made)


def _as_comprehension(call, resolve):
    """What _maps_to_comprehensions writes for `call`, else None (resolving last: most calls
    have one argument, and are of none of these)."""
    if len(call.args) == 1 and _taking_all(call.args[0], resolve) and resolve(call.func) is list:
        call = call.args[0]  # (list(map(...)): the list the comprehension is)
    if len(call.args) < 2 or call.keywords:
        return _vectorized(call, resolve)
    function = resolve(call.func)
    if function is filter and len(call.args) == 2:
        item, kept = ir.name("_filtered_item", store=True), call.args[0]
        test = (
            ir.name(item.id)
            if isinstance(kept, gast.Constant) and kept.value is None
            else gast.Call(func=kept, args=[ir.name(item.id)], keywords=[])
        )
        return _comprehension(ir.name(item.id), item, call.args[1], [test])
    if function is not map:
        return None
    function, *sequences = call.args
    elements = [ir.name(f"_map_item{j}", store=True) for j in range(len(sequences))]
    target = elements[0] if len(elements) == 1 else gast.Tuple(elts=elements, ctx=gast.Store())
    source = sequences[0] if len(sequences) == 1 else ir.call("zip", *sequences)
    applied = gast.Call(func=function, args=[ir.name(e.id) for e in elements], keywords=[])
    return _comprehension(applied, target, source, [])


def _taking_all(call, resolve):
    """Whether `call` is map(g, ...) or filter(g, xs)."""
    return (
        isinstance(call, gast.Call)
        and len(call.args) >= 2
        and not call.keywords
        and resolve(call.func) in (map, filter)
    )


def _comprehension(element, target, source, tests):
    return gast.ListComp(
        elt=element,
        generators=[gast.comprehension(target=target, iter=source, ifs=tests, is_async=0)],
    )


def _vectorized(call, resolve):
    """`np.vectorize(g)(x)` (or g made so by @np.vectorize, or np.frompyfunc(g, 1, 1)(x)),
    of a name x and one argument:
    `np.reshape(np.array([g(v) for v in np.ravel(x)]), np.shape(x))`, g called item by item
    as numpy calls it; else None."""
    if not (
        isinstance(call, gast.Call)
        and len(call.args) == 1
        and not call.keywords
        and isinstance(call.args[0], gast.Name)
    ):
        return None
    made = resolve(call.func) if isinstance(call.func, gast.Name) else None
    if isinstance(made, np.vectorize):  # (a module's function decorated with it)
        function = gast.Attribute(value=call.func, attr="pyfunc", ctx=gast.Load())
    elif (
        isinstance(call.func, gast.Call)
        and len(call.func.args) == 1
        and not call.func.keywords
        and resolve(call.func.func) is np.vectorize
    ):
        function = call.func.args[0]
    elif _one_in_one_out(call.func, resolve):  # (its items then floats, not objects)
        function = call.func.args[0]
    else:
        return None
    if isinstance(made, np.vectorize) and (made.otypes or made.excluded or made.signature):
        return None
    numpy = next((n for n in ("np", "numpy") if resolve(ir.name(n)) is np), None)
    if numpy is None:  # (the name the module calls numpy by, for np.ravel and np.array)
        return None
    x = call.args[0]
    item = ir.name("_vectorized_item", store=True)
    items = gast.ListComp(
        elt=gast.Call(func=function, args=[ir.name(item.id)], keywords=[]),
        generators=[
            gast.comprehension(
                target=item, iter=ir.call(ir.attr(numpy, "ravel"), x), ifs=[], is_async=0
            )
        ],
    )
    return ir.call(
        ir.attr(numpy, "reshape"),
        ir.call(ir.attr(numpy, "array"), items),
        ir.call(ir.attr(numpy, "shape"), ir.name(x.id)),
    )


def _one_in_one_out(made, resolve):
    """Whether `made` is np.frompyfunc(g, 1, 1)."""
    return (
        isinstance(made, gast.Call)
        and len(made.args) == 3
        and not made.keywords
        and all(ir.constant_int(a) == 1 for a in made.args[1:])
        and resolve(made.func) is np.frompyfunc
    )


def partials_bound(func, resolve):
    """The names bound once, to `functools.partial(g, ...)` (without * or ** arguments)."""
    nodes = list(ir.walk(func))  # (one walk; the count last: it is linear in the stores)
    stores = [n.id for n in nodes if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)]
    return {
        stmt.targets[0].id
        for stmt in nodes
        if isinstance(stmt, gast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], gast.Name)
        and is_partial(stmt.value, resolve)
        and stores.count(stmt.targets[0].id) == 1
    }


def is_partial(node, resolve):
    """Whether `node` makes a `functools.partial(g, ...)` without * or ** arguments."""
    return (
        isinstance(node, gast.Call)
        and bool(node.args)
        and resolve(node.func) is functools.partial
        and not any(isinstance(a, gast.Starred) for a in node.args)
        and all(k.arg is not None for k in node.keywords)
    )


def partial_made(name, made, fresh_names, where, partials, resolve):
    """(the statements holding the values `made`, a functools.partial(g, a, k=b) bound to
    `name`, binds, in names of their own, made where `where` is; (g, [those of the
    arguments], {keyword: that of its value})). A partial of a partial (written there, or
    one of `partials`, by name) binds what both bind."""
    out = []

    def held(value, what="arg"):
        holder = fresh_names.named(f"{name}_{what}")
        out.append(gast.copy_location(ir.assign(holder, value), where))
        return ir.name(holder)

    function, *args = made.args
    inner = (function, [], {})
    if is_partial(function, resolve):
        out, inner = partial_made(name, function, fresh_names, where, partials, resolve)
    elif isinstance(function, gast.Name) and function.id in partials:
        inner = partials[function.id]
    args = [held(a) for a in args]
    keywords = {k.arg: held(k.value, k.arg) for k in made.keywords}
    return out, (inner[0], inner[1] + args, {**inner[2], **keywords})


def apply_partials(func, names, fresh_names, resolve):
    """`act = functools.partial(g, a, k=b)`, then `act(x)`, is `g(a, x, k=b)`: a and b are
    held in names where the partial was made. The partials, by name (see call_partials)."""
    partials = {}

    def split(body):
        out = []
        for stmt in body:
            for field in ("body", "orelse"):
                if isinstance(stmt, (gast.If, gast.For, gast.While)):
                    setattr(stmt, field, split(getattr(stmt, field)))
            if not (
                isinstance(stmt, gast.Assign)
                and isinstance(stmt.targets[0], gast.Name)
                and stmt.targets[0].id in names
            ):
                out.append(stmt)
                continue
            name = stmt.targets[0].id
            held, partials[name] = partial_made(
                name, stmt.value, fresh_names, stmt, partials, resolve
            )
            out += held
        return out

    if names:
        func.body = split(func.body)
        call_partials([func], partials)
    return partials


def call_partials(nodes, partials):
    """The calls in `nodes` of a partial (of `partials`: name -> (g, args, keywords)) call g
    with what the partial binds: `act(x)` is `g(act_arg, x, k=act_arg_1)`."""
    for node in (n for root in nodes for n in ir.walk(root)) if partials else ():
        if (
            isinstance(node, gast.Call)
            and isinstance(node.func, gast.Name)
            and node.func.id in partials
        ):
            function, args, keywords = partials[node.func.id]
            given = {k.arg for k in node.keywords}
            node.func = ir.copy_tree(function)
            node.args = ir.copy_tree(args) + node.args
            node.keywords = [
                gast.keyword(arg=k, value=ir.copy_tree(v))
                for k, v in keywords.items()
                if k not in given
            ] + node.keywords
