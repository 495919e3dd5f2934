"""Functions reached as values inside the differentiated function, read through before
inlining: lambdas a comprehension makes (`[lambda z, k=k: np.tanh(k * z) for k in range(3)]`),
one per item; the displays holding local functions, whose picks (`acts[2](h)`) and loops (`for
act in acts`) call each function by its name, so that inlining finds it; and loops over
functions, or over objects or containers of them whose items the body calls (`for layer in
layers: h = layer(h)`), unrolled into one block per item."""

import collections

import gast

import numpy as np

from . import ir
from .comprehensions_of_functions import decided_test, put
from .errors import StaticArgumentNeeded
from .function_aliases import constant, names_a_function, pick_from_displays
from .provenance import holds_functions
from .inline_call import Substitute
from .statics import MISSING, is_function_value, is_object

_MOST_ITEMS = 64  # (of a loop unrolled)
_DATA_METHODS = frozenset(dir(np.ndarray)) | frozenset(dir(dict)) | frozenset(dir(list))


class LoopsOverFunctions:
    """Loops over functions and objects unrolled, for the Inliner (inline.py), which provides
    `resolve`, `location`, the local functions and partials, and whether it is `nested`."""

    def _unroll_loops_over_functions(self, body):
        """`for act in [np.tanh, softplus]: h = act(h)` is its body once per function, each
        calling that function (so each is differentiated as itself); so is a loop whose
        items are objects or containers the body calls into (`for i, layer in
        enumerate(layers)`: `layers[0](h)`, with i 0, then `layers[1](h)`, ...), and one over
        a zip of such items with others (`for layer, scale in zip(layers, scales)`: `scale =
        scales[0]` first in the block of `layers[0]`)."""
        out = []
        for stmt in body:
            for field in ("body", "orelse"):
                if isinstance(stmt, (gast.If, gast.For, gast.While, gast.With, gast.Try)):
                    setattr(
                        stmt, field, self._unroll_loops_over_functions(getattr(stmt, field, []))
                    )
            passes = self._over_functions(stmt)
            if passes is None:
                out.append(stmt)
                continue
            for bound in passes:
                block = ir.copy_tree(stmt.body)
                for target, item, substituted in bound:
                    if substituted:
                        Substitute(target.id, item).visit_all(block)
                    else:
                        value = ir.copy_tree(item)
                        block.insert(0, gast.copy_location(ir.assign(target, value), stmt))
                out += self._unroll_loops_over_functions(block)  # (loops over its items)
        return out

    def _read_objects_through(self):
        """`first = layers[0]`, `enc = model.enc`, `a, b = layers`: names bound once to objects
        (or functions, or lists of them) that a parameter or a global holds, and that the
        code calls into, read the expression itself, so that calls of them resolve (a
        parameter's code is then made for what it holds)."""
        # (one walk: the names stored, the containers or objects written into, whose items
        # are not held fixed, and the assignments)
        stores, changed, assigns = collections.Counter(), set(), []
        parameters = set()  # (bound on entry too: `if act is None: act = sq` keeps one passed)
        for n in ir.walk(self.func):
            if isinstance(n, gast.Name):
                if _stored(n):
                    stores[n.id] += 1
                elif isinstance(n.ctx, gast.Param):
                    parameters.add(n.id)
            elif isinstance(n, (gast.Attribute, gast.Subscript)):
                if _stored(n) and isinstance(_root(n), gast.Name):
                    changed.add(_root(n).id)
            elif isinstance(n, gast.Assign):
                assigns.append(n)
        aliases, dropped = {}, set()  # (the assignments dropped: their names read the paths)
        for stmt in assigns:
            pairs = _aliased(stmt, stores, changed)
            if any(name in parameters for name, _ in pairs) and not self._first_binding(stmt):
                continue  # (the parameter's value or this one: which, only the call tells)
            if pairs and any(self._holds_callees(path, name) for name, path in pairs):
                aliases.update(pairs)
                dropped.add(id(stmt))
        for name, path in aliases.items():
            Substitute(name, path).visit_all(self.func.body)
        for node in ir.walk(self.func) if aliases else ():
            for field in ("body", "orelse", "finalbody"):
                body = getattr(node, field, None)
                if isinstance(body, list):
                    body[:] = [s for s in body if id(s) not in dropped]

    def _first_binding(self, stmt):
        """Whether `stmt` is a statement of f's body itself that binds names no statement
        before it reads: the parameters it binds hold its value wherever they are read."""
        if not any(s is stmt for s in self.func.body):
            return False
        bound = {n.id for t in stmt.targets for n in ir.walk(t) if isinstance(n, gast.Name)}
        for earlier in self.func.body:
            if earlier is stmt:
                return True
            if any(isinstance(n, gast.Name) and n.id in bound for n in ir.walk(earlier)):
                return False
        return False

    def _holds_callees(self, path, name):
        """Whether the code calls into `name`, bound to `path`, which holds an object or a
        function, or a list of them (asking for a parameter's, where it holds unknown)."""
        container = getattr(getattr(self.resolve, "__self__", None), "container", self.resolve)
        held = container(path)
        if held is MISSING:
            self._ask_for_items(path, name, self.func.body)
        return (
            is_object(held)
            or is_function_value(held)
            or isinstance(held, (list, tuple, dict))
            and 0 < len(held) <= _MOST_ITEMS
            and holds_functions(held, objects=True)
        ) and bool(_item_calls(self.func.body, name) or _iterated(self.func.body, name))

    def _comprehensions_over_functions(self):
        """`sum(np.sum(layer(x)) for layer in layers)`, `[f(h) for f in fs if f is not g]`: a
        comprehension whose item is a function or object it calls is the display of what it
        makes of each (its filters decided here), as a loop over them is unrolled."""
        for node in list(ir.walk(self.func)):
            if not isinstance(node, (gast.ListComp, gast.GeneratorExp)):
                continue
            loop = node.generators[0]
            passes = len(node.generators) == 1 and self._passes(
                loop.target, loop.iter, [gast.Expr(value=node.elt)]
            )
            made = []
            for bound in passes or ():
                made_one = [node.elt] + loop.ifs
                for target, item, _ in bound:
                    made_one = [put(part, target.id, item) for part in made_one]
                decided = [decided_test(test, self.resolve) for test in made_one[1:]]
                if None in decided:
                    break
                made += made_one[:1] if all(decided) else []
            else:
                if passes:
                    display = gast.List(elts=made, ctx=gast.Load())
                    ir.replace_node(self.func, node, gast.copy_location(display, node))

    def _over_functions(self, loop):
        """The passes of a loop to unroll, each a list of (target, item, whether the item is
        put where the target is read, else assigned to it first), or None."""
        if (
            not isinstance(loop, gast.For)
            or loop.orelse
            or any(isinstance(n, (gast.Break, gast.Continue)) for n in ir.walk(loop))
        ):
            return None
        names = {n.id for n in ir.walk(loop.target) if isinstance(n, gast.Name)}
        if not all(
            isinstance(n, (gast.Name, gast.Tuple, gast.List, gast.expr_context))
            for n in ir.walk(loop.target)
        ):
            return None
        targets = set(map(id, ir.walk(loop.target)))
        if any(
            isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store) and n.id in names
            for n in ir.walk(loop)
            if id(n) not in targets
        ):
            return None
        return self._passes(loop.target, loop.iter, loop.body)

    def _passes(self, target, sequence, body):
        """The passes over `sequence` (of functions or objects the body calls; enumerate or
        zip of such, and of other values) binding `target`, or None."""
        parts = _zipped(target, sequence, self.resolve)
        if parts is None and _enumerated(sequence, self.resolve) and len(target.elts) == 2:
            index, item = target.elts
            passes = self._passes(item, sequence.args[0], body)
            if passes is None or not isinstance(index, gast.Name):
                return None
            return [[(index, ir.const(k), True)] + bound for k, bound in enumerate(passes)]
        counted = _counted(sequence, self.resolve)
        if counted is not None and isinstance(target, gast.Name):
            return self._passes_by_index(target, counted, body)
        if parts is None:
            items = isinstance(target, gast.Name) and self._functions_listed(
                sequence, target.id, body
            )
            return [[(target, item, True)] for item in items] if items else None
        listed = [
            isinstance(t, gast.Name) and self._functions_listed(s, t.id, body) for t, s in parts
        ]
        known = [len(items) for items in listed if items]
        if not known:
            return None
        count = min(known + [len(s.elts) for s in _displays(parts)])
        return [
            [
                (t, items[k], True) if items else (t, _item(s, k), False)
                for (t, s), items in zip(parts, listed)
            ]
            for k in range(count)
        ]

    def _passes_by_index(self, index, sequence, body):
        """The passes of `for i in range(len(layers))` whose body calls `layers[i]`: i put in
        as 0, 1, ... (so that `layers[0](h)` resolves), or None."""
        calls = [  # (of the item, as a loop over the items names it: `_picked(h)`)
            gast.Expr(
                value=gast.Call(
                    func=ir.attr("_picked", call.func.attr)
                    if isinstance(call.func, gast.Attribute)
                    else ir.name("_picked"),
                    args=[],
                    keywords=[],
                )
            )
            for stmt in body
            for call in ir.walk(stmt)
            if isinstance(call, gast.Call) and _picks(call.func, sequence, index.id)
        ]
        if not calls:
            return None
        items = self._functions_listed(sequence, "_picked", calls)
        return [[(index, ir.const(k), True)] for k in range(len(items))] if items else None

    def _functions_listed(self, node, target=None, body=None):
        """The items of a list or tuple of functions: a display, or a global or closure
        one (`for act in ACTIVATIONS`: ACTIVATIONS[0], ...), or an argument's that the code is
        made for (a Static of kind "tree"); of objects and containers too, where `body`
        calls into its item `target` (`for layer in layers: h = layer(h)`); else []."""
        if isinstance(node, (gast.List, gast.Tuple)):
            return node.elts if all(self._is_function(e) for e in node.elts) else []
        part = _part(node, self.resolve)  # (`reversed(layers)`, `layers[:-1]`: of its items)
        if part is not None:
            return self._functions_listed(part[0], target, body)[part[1]]
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
            gast.Subscript(value=ir.copy_tree(node), slice=ir.const(k), ctx=gast.Load())
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

    stores, assigns = collections.Counter(), []  # (one walk)
    for n in ir.walk(func):
        if isinstance(n, gast.Name):
            if isinstance(n.ctx, (gast.Store, gast.Param)):
                stores[n.id] += 1
        elif (
            isinstance(n, gast.Assign)
            and len(n.targets) == 1
            and isinstance(n.targets[0], gast.Name)
        ):
            assigns.append(n)
    displays = {
        stmt.targets[0].id: stmt.value
        for stmt in assigns
        if stores[stmt.targets[0].id] == 1
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


def _zipped(target, sequence, resolve):
    """[(target, sequence)] of `for a, b in zip(xs, ys)`, else None."""
    if not (
        isinstance(sequence, gast.Call)
        and not sequence.keywords
        and sequence.args
        and not any(isinstance(a, gast.Starred) for a in sequence.args)
        and isinstance(target, (gast.Tuple, gast.List))
        and len(target.elts) == len(sequence.args)
        and resolve(sequence.func) is zip
    ):
        return None
    return list(zip(target.elts, sequence.args))


def _displays(parts):
    return [s for _, s in parts if isinstance(s, (gast.List, gast.Tuple))]


def _item(sequence, k):
    """The k-th item of a sequence: a display's own, else `sequence[k]`."""
    if isinstance(sequence, (gast.List, gast.Tuple)):
        return sequence.elts[k]
    return gast.Subscript(value=ir.copy_tree(sequence), slice=ir.const(k), ctx=gast.Load())


def _stored(node):
    return isinstance(node.ctx, (gast.Store, gast.Del))


def _aliased(stmt, stores, changed):
    """[(name, the path it reads)] of `a = path` or `a, b = path` (path[0], path[1]), names
    bound once to a path of constant keys from a name no assignment changes; else []."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1):
        return []
    target, path = stmt.targets[0], stmt.value
    if isinstance(target, gast.Name):
        pairs = [(target.id, path)]
    elif not isinstance(target, (gast.Tuple, gast.List)) or not all(
        isinstance(e, gast.Name) for e in target.elts
    ):
        return []
    elif isinstance(path, (gast.Tuple, gast.List)) and len(path.elts) == len(target.elts):
        pairs = [(e.id, v) for e, v in zip(target.elts, path.elts)]  # a, b = m.a, m.b
    else:
        pairs = [(e.id, _item(path, k)) for k, e in enumerate(target.elts)]
    fixed = all(_fixed_path(p, stores, changed) for _, p in pairs)
    return pairs if fixed and all(stores[name] == 1 for name, _ in pairs) else []


def _fixed_path(path, stores, changed):
    """Whether `path` reads through constant keys from a name nothing assigns or changes."""
    node = path
    while isinstance(node, (gast.Attribute, gast.Subscript)):
        if isinstance(node, gast.Subscript) and constant(node.slice) is None:
            return False
        node = node.value
    return isinstance(node, gast.Name) and not stores[node.id] and node.id not in changed


def _iterated(body, name):
    return any(
        isinstance(n, (gast.For, gast.comprehension))
        and isinstance(n.iter, gast.Name)
        and n.iter.id == name
        for stmt in body
        for n in ir.walk(stmt)
    )


def _counted(node, resolve):
    """The sequence of `range(len(xs))`, else None."""
    if not (
        isinstance(node, gast.Call)
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], gast.Call)
        and len(node.args[0].args) == 1
        and resolve(node.func) is range
        and resolve(node.args[0].func) is len
    ):
        return None
    return node.args[0].args[0]


def _picks(func, sequence, index):
    """Whether a call's function is `sequence[index]`, or a method of it."""
    item = func.value if isinstance(func, gast.Attribute) else func
    return (
        isinstance(item, gast.Subscript)
        and isinstance(item.slice, gast.Name)
        and item.slice.id == index
        and gast.dump(item.value) == gast.dump(sequence)
    )


def _part(node, resolve):
    """(the sequence, the slice of its items) of `reversed(xs)` or `xs[1:]` (constant
    bounds), else None."""
    if (
        isinstance(node, gast.Call)
        and len(node.args) == 1
        and not node.keywords
        and resolve(node.func) is reversed
    ):
        return node.args[0], slice(None, None, -1)
    if not (isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Slice)):
        return None
    bounds = [
        None if b is None else constant(b)
        for b in (node.slice.lower, node.slice.upper, node.slice.step)
    ]
    given = [b for b in (node.slice.lower, node.slice.upper, node.slice.step) if b is not None]
    if any(type(constant(b)) is not int for b in given):
        return None
    return node.value, slice(*bounds)


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
