"""Names bound once to a function (`act = np.tanh`, `act = ACTIVATIONS["relu"]`): before
inlining, their uses read the expression itself, so that calls of them resolve (parse.py)."""
import copy

import gast

from . import ir
from .parse import is_function_value
from .provenance import holds_functions


def substitute_function_aliases(func, resolve):
    """`act = np.tanh` or `act = ACTIVATIONS["relu"]` (a name bound once, to a function the
    code names): the uses of `act` read the expression itself, so calls of it are resolved
    (and a pick by a key known only at run time is refused where it is called)."""
    stores, shadowed, assigns = {}, set(), []
    for node in ir.walk(func):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, gast.Name) and isinstance(node.ctx, gast.Param):
            shadowed.add(node.id)
        elif isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], gast.Name):
            assigns.append(node)
    aliases = {}
    for node in assigns:
        if stores.get(node.targets[0].id) == 1 and node.targets[0].id not in shadowed and \
                _names_a_function(node.value, resolve):
            aliases[node.targets[0].id] = node
    if not aliases:
        return
    for node in list(ir.walk(func)):
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
