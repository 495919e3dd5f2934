"""Functions made as values inside the differentiated function, read through before inlining:
lambdas a comprehension makes (`[lambda z, k=k: np.tanh(k * z) for k in range(3)]`), one per
item, and the displays holding local functions, whose picks (`acts[2](h)`) and loops (`for
act in acts`) call each function by its name, so that inlining finds it."""
import collections
import copy

import gast

from . import ir
from .errors import UnsupportedError
from .function_aliases import constant, names_a_function, pick_from_displays

_MOST_LAMBDAS = 64  # (each is inlined where it is called: more is a loop's work)


def lambdas_of_comprehensions(func, resolve, location):
    """`[lambda z, k=k: ... for k in range(3)]` is the display of its three lambdas, each with
    its own k where it is read when the lambda is made (its defaults), and the last k where
    its body reads k itself (Python's closures read the variable once the list is made)."""
    for node in list(ir.walk(func)):
        if not (isinstance(node, gast.ListComp) and isinstance(node.elt, gast.Lambda)):
            continue
        loop = node.generators[0]
        items = _items_known(loop.iter, resolve) if len(node.generators) == 1 and not \
            loop.ifs and isinstance(loop.target, gast.Name) else None
        if items is None:
            raise UnsupportedError(
                "a list of lambdas made by a comprehension whose items srcdiff cannot list "
                "before the call (it inlines each lambda where it is called)", location(node),
                "make them over range(N) with N a number, or over a tuple of constants, with "
                "one for and no if; or write the lambdas out in a list")
        lambdas = [_made_with(node.elt, loop.target.id, item, items[-1]) for item in items]
        ir.replace_node(func, node, gast.copy_location(gast.List(elts=lambdas,
                                                                 ctx=gast.Load()), node))


def _items_known(node, resolve):
    """The values of `range(...)` of numbers, or of a display of constants; else None."""
    if isinstance(node, gast.Call) and not node.keywords and 1 <= len(node.args) <= 3 and \
            resolve(node.func) is range:
        bounds = [constant(a) for a in node.args]
        items = list(range(*bounds)) if all(type(b) is int for b in bounds) else None
    elif isinstance(node, (gast.List, gast.Tuple)):
        items = [e.value if isinstance(e, gast.Constant) else constant(e) for e in node.elts]
        items = None if any(i is None for i in items) else items
    else:
        return None
    return items if items is not None and 0 < len(items) <= _MOST_LAMBDAS else None


def _made_with(function, variable, value, last):
    made = copy.deepcopy(function)
    args = made.args
    args.defaults = [_with(d, variable, value) for d in args.defaults]
    args.kw_defaults = [d if d is None else _with(d, variable, value) for d in args.kw_defaults]
    own = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs +
           [args.vararg, args.kwarg] if a is not None}
    if variable not in own:
        made.body = _with(made.body, variable, last)
    return made


def _with(node, variable, value):
    class Put(gast.NodeTransformer):
        def visit_Name(self, name):
            return ir.const(value) if name.id == variable and isinstance(
                name.ctx, gast.Load) else name
    return Put().visit(node)


def pick_local_functions(func, local, resolve):
    """`acts = [relu, lambda z: ...]`, a name bound once to a display of local functions (the
    lambdas named by now) and of functions the code names: `acts[1](h)` calls the function
    by its name, `for act in acts` goes over the display (which inlining unrolls), and the
    display goes once nothing else reads it (what does is refused as a use of a local
    function as a value)."""
    def is_function(node):
        return isinstance(node, gast.Name) and node.id in local or names_a_function(node,
                                                                                   resolve)

    def of_locals(node):
        values = node.values if isinstance(node, gast.Dict) else node.elts
        if isinstance(node, gast.Dict) and not all(constant(k) is not None for k in node.keys):
            return False
        return any(isinstance(v, gast.Name) and v.id in local for v in values) and (
            isinstance(node, gast.Dict) or all(map(is_function, values)))

    stores = collections.Counter(n.id for n in ir.walk(func) if isinstance(n, gast.Name) and
                                 isinstance(n.ctx, (gast.Store, gast.Param)))
    displays = {stmt.targets[0].id: stmt.value for stmt in ir.walk(func)
                if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
                isinstance(stmt.targets[0], gast.Name) and stores[stmt.targets[0].id] == 1 and
                isinstance(stmt.value, (gast.List, gast.Tuple, gast.Dict)) and
                of_locals(stmt.value)}
    if not displays:
        return
    pick_from_displays(func, displays, is_function)
    read = {n.id for n in ir.walk(func) if isinstance(n, gast.Name) and
            isinstance(n.ctx, gast.Load)}
    for node in ir.walk(func):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list):
                body[:] = [s for s in body if not (
                    isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(
                        s.targets[0], gast.Name) and s.targets[0].id in displays and
                    s.value is displays[s.targets[0].id] and s.targets[0].id not in read)]
