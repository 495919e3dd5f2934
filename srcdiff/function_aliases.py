"""Names bound once to a function (`act = np.tanh`, `act = ACTIVATIONS["relu"]`): before
inlining, their uses read the expression itself, so that calls of them resolve (parse.py)."""
import copy

import gast

from .parse import is_function_value
from .provenance import holds_functions


def substitute_function_aliases(func, resolve):
    """`act = np.tanh` or `act = ACTIVATIONS["relu"]` (a name bound once, to a function the
    code names): the uses of `act` read the expression itself, so calls of it are resolved
    (and a pick by a key known only at run time is refused where it is called)."""
    stores, shadowed = {}, set()
    for node in gast.walk(func):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, gast.Name) and isinstance(node.ctx, gast.Param):
            shadowed.add(node.id)
    aliases, displays = {}, {}
    for node in gast.walk(func):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], gast.Name) and stores.get(node.targets[0].id) == 1 and \
                node.targets[0].id not in shadowed:
            if _names_a_function(node.value, resolve):
                aliases[node.targets[0].id] = node
            elif _display_of_functions(node.value, resolve):
                displays[node.targets[0].id] = node.value
    if displays:
        _pick_from_displays(func, displays)
    if not aliases:
        return
    for node in list(gast.walk(func)):
        for field, value in gast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            kept = [copy.deepcopy(aliases[v.id].value) if isinstance(v, gast.Name) and isinstance(
                v.ctx, gast.Load) and v.id in aliases else v for v in items
                if not any(v is a for a in aliases.values())]
            setattr(node, field, kept if isinstance(value, list) else kept[0])


def _names_a_function(node, resolve):
    """Whether `node` names a function (np.tanh, a global, ACTIVATIONS["relu"]), or picks
    one from a global container of functions by a key (ACTIVATIONS[name])."""
    if is_function_value(resolve(node)):
        return True
    if not isinstance(node, gast.Subscript):
        return False
    # (an item of a global container too: ParsedFunction.container, where resolve is its)
    container = getattr(getattr(resolve, "__self__", None), "container", resolve)(node.value)
    return isinstance(container, (dict, list, tuple)) and holds_functions(container)


def _display_of_functions(node, resolve):
    """Whether `node` is a dict display with constant keys, or a list or tuple display, of
    functions the code names (`acts = {"hidden": np.tanh, "out": softplus}`)."""
    if isinstance(node, gast.Dict):
        return bool(node.keys) and all(isinstance(k, gast.Constant) for k in node.keys) and \
            all(_names_a_function(v, resolve) for v in node.values)
    return isinstance(node, (gast.List, gast.Tuple)) and bool(node.elts) and \
        all(_names_a_function(e, resolve) for e in node.elts)


def _pick_from_displays(func, displays):
    """`acts["out"](h)` of a name bound once to such a display reads the function itself
    (`softplus(h)`), and a loop over a list of them goes over the display (which inlining
    unrolls); the display itself stays, for whatever else reads it."""
    for node in list(gast.walk(func)):
        for field, value in gast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            picked = [_picked(v, displays) for v in items]
            if any(p is not v for p, v in zip(picked, items)):
                setattr(node, field, picked if isinstance(value, list) else picked[0])


def _picked(node, displays):
    key = _constant(node.slice) if isinstance(node, gast.Subscript) else None
    if key is not None and isinstance(node.value, gast.Name) and node.value.id in displays \
            and isinstance(node.ctx, gast.Load):
        display = displays[node.value.id]
        if isinstance(display, gast.Dict):
            found = [v for k, v in zip(display.keys, display.values) if k.value == key]
        else:
            found = [display.elts[key]] if isinstance(key, int) and \
                -len(display.elts) <= key < len(display.elts) else []
        return copy.deepcopy(found[-1]) if found else node
    if isinstance(node, gast.For) and isinstance(node.iter, gast.Name) and \
            node.iter.id in displays and not isinstance(displays[node.iter.id], gast.Dict):
        node.iter = copy.deepcopy(displays[node.iter.id])
    return node


def _constant(node):
    """The value of a constant key (`"out"`, `1`, `-1`), else None."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        inner = _constant(node.operand)
        return -inner if type(inner) is int else None
    return node.value if isinstance(node, gast.Constant) and isinstance(
        node.value, (str, int)) else None
