"""Functions reached as values inside the differentiated function, read through before
inlining: lambdas a comprehension makes (`[lambda z, k=k: np.tanh(k * z) for k in range(3)]`),
one per item; the displays holding local functions, whose picks (`acts[2](h)`) and loops (`for
act in acts`) call each function by its name, so that inlining finds it; and loops over
functions, or over objects or containers of them whose items the body calls (`for layer in
layers: h = layer(h)`), unrolled into one block per item."""

import collections
import copy

import gast

import numpy as np

from . import ir
from .errors import StaticArgumentNeeded, UnsupportedError
from .function_aliases import constant, names_a_function, pick_from_displays
from .inline_call import Substitute
from .statics import MISSING, is_function_value, is_object

_MOST_LAMBDAS = 64  # (each is inlined where it is called: more is a loop's work)
_MOST_ITEMS = 64  # (of a loop unrolled)
_DATA_METHODS = frozenset(dir(np.ndarray)) | frozenset(dir(dict)) | frozenset(dir(list))


class LoopsOverFunctions:
    """Loops over functions and objects unrolled, for the Inliner (inline.py), which provides
    `resolve`, `location`, the local functions and partials, and whether it is `nested`."""

    def _unroll_loops_over_functions(self, body):
        """`for act in [np.tanh, softplus]: h = act(h)` is its body once per function, each
        calling that function (so each is differentiated as itself); so is a loop whose
        items are objects or containers the body calls into (`for i, layer in
        enumerate(layers)`: `layers[0](h)`, with i 0, then `layers[1](h)`, ...)."""
        out = []
        for stmt in body:
            for field in ("body", "orelse"):
                if isinstance(stmt, (gast.If, gast.For, gast.While, gast.With, gast.Try)):
                    setattr(
                        stmt, field, self._unroll_loops_over_functions(getattr(stmt, field, []))
                    )
            unrolled = self._over_functions(stmt)
            if unrolled is None:
                out.append(stmt)
                continue
            index, target, items = unrolled
            for k, item in enumerate(items):
                block = copy.deepcopy(stmt.body)
                Substitute(target, item).visit_all(block)
                if index is not None:
                    Substitute(index, ir.const(k)).visit_all(block)
                out += self._unroll_loops_over_functions(block)  # (loops over its items)
        return out

    def _over_functions(self, loop):
        """(the index's name or None, the item's name, the items) of a loop to unroll."""
        if (
            not isinstance(loop, gast.For)
            or loop.orelse
            or any(isinstance(n, (gast.Break, gast.Continue)) for n in ir.walk(loop))
        ):
            return None
        target, sequence, index = loop.target, loop.iter, None
        if (
            isinstance(target, gast.Tuple)
            and len(target.elts) == 2
            and all(isinstance(e, gast.Name) for e in target.elts)
            and _enumerated(sequence, self.resolve)
        ):
            (index, target), sequence = target.elts, sequence.args[0]
        if not isinstance(target, gast.Name) or any(
            isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Store)
            and n.id in (target.id, getattr(index, "id", None))
            for n in ir.walk(loop)
            if n is not target and n is not index
        ):
            return None
        items = self._functions_listed(sequence, target.id, loop.body)
        return (getattr(index, "id", None), target.id, items) if items else None

    def _functions_listed(self, node, target=None, body=None):
        """The items of a list or tuple of functions: a display, or a global or closure
        one (`for act in ACTIVATIONS`: ACTIVATIONS[0], ...), or an argument's that the code is
        made for (a Static of kind "tree"); of objects and containers too, where `body`
        calls into its item `target` (`for layer in layers: h = layer(h)`); else []."""
        if isinstance(node, (gast.List, gast.Tuple)):
            return node.elts if all(self._is_function(e) for e in node.elts) else []
        if (
            not isinstance(node, (gast.Name, gast.Attribute, gast.Subscript))
            or isinstance(node, gast.Name)
            and node.id in self.local
        ):
            return []
        # (a list itself, not only a function: ParsedFunction.container, where resolve is its)
        held = getattr(getattr(self.resolve, "__self__", None), "container", self.resolve)(node)
        if held is MISSING and body is not None:
            self._ask_for_items(node, target, body)
        if (
            not isinstance(held, (list, tuple))
            or not 0 < len(held) <= _MOST_ITEMS
            or not all(
                is_function_value(f)
                or body is not None
                and (is_object(f) or isinstance(f, (list, tuple, dict)))
                and _uses_items(body, target)
                for f in held
            )
        ):
            return []
        return [
            gast.Subscript(value=copy.deepcopy(node), slice=ir.const(k), ctx=gast.Load())
            for k in range(len(held))
        ]

    def _ask_for_items(self, node, target, body):
        """For a loop calling the items of a parameter of the differentiated function
        (`for layer in layers: h = layer(h)`), the request to make the code for what it
        holds when the function is called."""
        root, args = _root(node), self.func.args
        if (
            self.nested
            or not isinstance(root, gast.Name)
            or root.id not in {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
        ):
            return
        calls = _item_calls(body, target)
        if calls:
            raise StaticArgumentNeeded(
                f"{gast.unparse(calls[0].func)}(...) calls an item of the parameter "
                f"{root.id!r}, which is known only when the function is called",
                self.location(calls[0]),
                "srcdiff makes the code for the functions or "
                "objects the argument holds: call the derivative with it, or give the "
                "parameter a default",
                parameter=root.id,
                kind="tree",
            )


def lambdas_of_comprehensions(func, resolve, location):
    """`[lambda z, k=k: ... for k in range(3)]` is the display of its three lambdas, each with
    its own k where it is read when the lambda is made (its defaults), and the last k where
    its body reads k itself (Python's closures read the variable once the list is made)."""
    for node in list(ir.walk(func)):
        if not (isinstance(node, gast.ListComp) and isinstance(node.elt, gast.Lambda)):
            continue
        loop = node.generators[0]
        items = (
            _items_known(loop.iter, resolve)
            if len(node.generators) == 1 and not loop.ifs and isinstance(loop.target, gast.Name)
            else None
        )
        if items is None:
            raise UnsupportedError(
                "a list of lambdas made by a comprehension whose items srcdiff cannot list "
                "before the call (it inlines each lambda where it is called)",
                location(node),
                "make them over range(N) with N a number, or over a tuple of constants, with "
                "one for and no if; or write the lambdas out in a list",
            )
        lambdas = [_made_with(node.elt, loop.target.id, item, items[-1]) for item in items]
        ir.replace_node(
            func, node, gast.copy_location(gast.List(elts=lambdas, ctx=gast.Load()), node)
        )


def _items_known(node, resolve):
    """The values of `range(...)` of numbers, or of a display of constants; else None."""
    if (
        isinstance(node, gast.Call)
        and not node.keywords
        and 1 <= len(node.args) <= 3
        and resolve(node.func) is range
    ):
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
    own = {
        a.id
        for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
        if a is not None
    }
    if variable not in own:
        made.body = _with(made.body, variable, last)
    return made


def _with(node, variable, value):
    class Put(gast.NodeTransformer):
        def visit_Name(self, name):
            return (
                ir.const(value) if name.id == variable and isinstance(name.ctx, gast.Load) else name
            )

    return Put().visit(node)


def pick_local_functions(func, local, resolve):
    """`acts = [relu, lambda z: ...]`, a name bound once to a display of local functions (the
    lambdas named by now) and of functions the code names: `acts[1](h)` calls the function
    by its name, `for act in acts` goes over the display (which inlining unrolls), and the
    display goes once nothing else reads it (what does is refused as a use of a local
    function as a value)."""

    def is_function(node):
        return isinstance(node, gast.Name) and node.id in local or names_a_function(node, resolve)

    def of_locals(node):
        values = node.values if isinstance(node, gast.Dict) else node.elts
        if isinstance(node, gast.Dict) and not all(constant(k) is not None for k in node.keys):
            return False
        return any(isinstance(v, gast.Name) and v.id in local for v in values) and (
            isinstance(node, gast.Dict) or all(map(is_function, values))
        )

    stores = collections.Counter(
        n.id
        for n in ir.walk(func)
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Param))
    )
    displays = {
        stmt.targets[0].id: stmt.value
        for stmt in ir.walk(func)
        if isinstance(stmt, gast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], gast.Name)
        and stores[stmt.targets[0].id] == 1
        and isinstance(stmt.value, (gast.List, gast.Tuple, gast.Dict))
        and of_locals(stmt.value)
    }
    if not displays:
        return
    pick_from_displays(func, displays, is_function)
    read = {
        n.id for n in ir.walk(func) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)
    }
    for node in ir.walk(func):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list):
                body[:] = [
                    s
                    for s in body
                    if not (
                        isinstance(s, gast.Assign)
                        and len(s.targets) == 1
                        and isinstance(s.targets[0], gast.Name)
                        and s.targets[0].id in displays
                        and s.value is displays[s.targets[0].id]
                        and s.targets[0].id not in read
                    )
                ]


def _enumerated(node, resolve):
    return (
        isinstance(node, gast.Call)
        and len(node.args) == 1
        and not node.keywords
        and resolve(node.func) is enumerate
    )


def _root(node):
    while isinstance(node, (gast.Attribute, gast.Subscript)):
        node = node.value
    return node


def _uses_items(body, target):
    return bool(_item_calls(body, target))


def _item_calls(body, target):
    """The calls in `body` of its item `target`, or of the item's methods (not an array's, a
    dict's or a list's: `layer.apply(h)`, not `p.sum()`), or of the items of an inner loop
    over it (`for layer in block: h = layer(h)`)."""
    found = []
    for node in (n for stmt in body for n in ir.walk(stmt)):
        func = getattr(node, "func", None)
        if isinstance(node, gast.Call) and (
            isinstance(func, gast.Name)
            and func.id == target
            or isinstance(func, gast.Attribute)
            and isinstance(func.value, gast.Name)
            and func.value.id == target
            and func.attr not in _DATA_METHODS
        ):
            found.append(node)
        elif (
            isinstance(node, gast.For)
            and isinstance(node.target, gast.Name)
            and isinstance(node.iter, gast.Name)
            and node.iter.id == target
        ):
            found += _item_calls(node.body, node.target.id)
    return found
