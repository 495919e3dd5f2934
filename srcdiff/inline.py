"""Before desugaring: functions defined inside the differentiated function (`def predict(...)`,
`act = lambda z: ...`) are inlined at their calls, so that what they close over (the
parameters being differentiated, say) is differentiated like any other value; `map(g, xs)`
becomes the list comprehension it stands for.

A call is replaced by a fresh name holding its result, computed by the function's body just
before the statement that made the call (its parameters and locals renamed apart, its free
names read from the enclosing function as Python's closures do, when it is called):

    def predict(inputs):                 predict_inputs0 = x
        return np.tanh(inputs @ W)  ->   predict_result0 = np.tanh(predict_inputs0 @ W)
    loss = np.sum(predict(x))            loss = np.sum(predict_result0)
"""

import inspect

import gast

from . import ir
from .container_facts import display_lengths
from .comprehension_loops import lower_comprehensions
from .errors import UnsupportedError
from .function_aliases import (
    apply_partials,
    call_partials,
    is_partial,
    partial_made,
    maps_to_comprehensions,
    partials_bound,
    substitute_function_aliases,
)
from .comprehensions_of_functions import comprehensions_of_functions
from .counted_recursion import unroll_counted_recursions
from .deques import deques_as_lists
from .frozen_distributions import unfreeze_distributions
from .function_values import LoopsOverFunctions, pick_local_functions
from .made_derivatives import move_tangents_first
from .generators import is_generator, iterated_calls, yields_into_a_list
from .inline_call import CallInlining, local_names
from .parse import is_function_value
from .plain import is_plain
from .taken_in import as_definition, sibling_facts, taken_in
from .python_versions import is_python_version


class Inliner(CallInlining, LoopsOverFunctions):
    """Inlines the local functions of one function (a gast FunctionDef, changed in place).
    `names` makes fresh names, `resolve` and `location` are the ParsedFunction's; `sibling`
    gives the definition of a function of the same module that may be inlined too (one that
    is passed a local function, or returns one). A `nested` inliner (of a local function)
    leaves the local functions it returns defined, for its caller to take over."""

    def __init__(self, func, names, resolve, location, sibling=None, nested=False, owners=None):
        self.func, self.names, self.resolve, self.location = func, names, resolve, location
        self.sibling, self.nested = sibling or (lambda fn: None), nested
        self.local = {}  # name -> (its FunctionDef, default values' names or expressions)
        self.origins = {}  # name of a module function taken in -> the function
        self.returned = {}  # result name -> {position: local function} of a returned tuple
        self.generators = set()  # local functions that were generators (now make lists)
        # a name an inlining gave -> id of the definition whose code holds it (CallInlining)
        self.owners = {} if owners is None else owners
        self.active = []  # the local functions being inlined now (to refuse recursion)
        self.lambdas = set()  # the names given to lambdas
        self.partials, self.partial_calls = set(), {}  # (see function_aliases.apply_partials)

    def run(self):
        """Inline; whether the function may have changed (a plain one is left as it is)."""
        if not self.nested and is_plain(
            self.func, self.resolve, self._may_take_in, containers=False
        ):
            return False  # (nothing to inline, nor to read through: each pass would walk it all)
        self.iterated = iterated_calls(self.func)  # (ids of the calls looped over)
        substitute_function_aliases(self.func, self.resolve)
        move_tangents_first(self.func, self.resolve)  # (of a name bound to nf.jvp(g))
        unfreeze_distributions(self.func, self.resolve, self.names)
        deques_as_lists(self.func, self.resolve)
        self._read_objects_through()
        maps_to_comprehensions(self.func, self.resolve)
        if comprehensions_of_functions(self.func, self.resolve, self.location):
            substitute_function_aliases(self.func, self.resolve)  # (of the displays made)
        self.func.body = self._name_lambdas(self.func.body)
        self.func.body = self._collect(self.func.body)
        unroll_counted_recursions(self.func, self.local, self.names, self.location)
        pick_local_functions(self.func, self.local, self.resolve)
        self.partials = partials_bound(self.func, self.resolve)
        self._comprehensions_over_functions()
        self.func.body = self._unroll_loops_over_functions(self.func.body)
        self.partial_calls = apply_partials(self.func, self.partials, self.names, self.resolve)
        calls = lambda node: any(self._local_call(n) for n in ir.walk(node))  # noqa: E731
        while lower_comprehensions(self.func.body, calls, self.names.fresh):
            pass
        self.func.body = self._block(self.func.body)
        # (a function taken in calls the one it is passed in a comprehension: now inlined)
        while lower_comprehensions(self.func.body, calls, self.names.fresh):
            self.func.body = self._block(self.func.body)
        self._check_uses()
        return True

    # --- finding the local functions ------------------------------------------------------

    def _name_lambdas(self, body):
        """A lambda called where it is written (`(lambda v: f(v))(x)`, and what map gives),
        held in a display (`[lambda z: z, np.tanh]`) or returned is bound to a name of its
        own first, as a local function."""
        out = []
        for stmt in body:
            for field in ("body", "orelse"):
                if isinstance(stmt, (gast.If, gast.For, gast.While)):
                    setattr(stmt, field, self._name_lambdas(getattr(stmt, field)))
            for node in _outside_functions(stmt):
                for field, items in _lambdas_held(node):
                    for k, function in enumerate(items):
                        if not isinstance(function, gast.Lambda):
                            continue
                        name = self.names.fresh("_lambda")
                        self.lambdas.add(name)
                        out.append(gast.copy_location(ir.assign(name, function), stmt))
                        items[k] = gast.copy_location(ir.name(name), function)
                    if field is not None:
                        setattr(node, field, items[0])
            out.append(stmt)
        return out

    def _collect(self, body):
        """`body` without its local function definitions (recorded in self.local), but for
        the assignments of their default values, made where the definition was."""
        out = []
        for stmt in body:
            for field in ("body", "orelse"):
                if isinstance(stmt, (gast.If, gast.For, gast.While)):
                    setattr(stmt, field, self._collect(getattr(stmt, field)))
            definition = as_definition(stmt)
            if definition is None:
                out.append(stmt)
                continue
            if definition.name in self.local:
                raise UnsupportedError(
                    f"the local function {definition.name!r} is defined twice",
                    self.location(stmt),
                    "give each local function a name of its own",
                )
            held, defaults = self._hold_defaults(definition, stmt)
            out += held
            self._take(definition.name, definition, defaults, stmt)
        return out

    def _hold_defaults(self, definition, stmt):
        """(the assignments of a local function's default values to names of their own, made
        where `stmt` defines it; {parameter: the name holding its default}). A module's
        function (fn=np.tanh) is its name: held in a local name, a call of it was refused
        as one of a function chosen at run time."""
        out, defaults, args = [], {}, definition.args
        positional = (args.posonlyargs + args.args)[-len(args.defaults) :] if args.defaults else []
        for param, value in [
            *zip(positional, args.defaults),
            *zip(args.kwonlyargs, args.kw_defaults),
        ]:
            if self._names_a_module_function(value):
                defaults[param.id] = ir.copy_tree(value)
            elif value is not None:
                held = self.names.fresh(f"{definition.name}_{param.id}_default")
                out.append(gast.copy_location(ir.assign(held, value), stmt))
                defaults[param.id] = held
        return out, defaults

    def _names_a_module_function(self, value):
        """Whether `value` is a dotted name of a function of a module (np.tanh, a global
        function), none of whose names f binds."""
        root = value
        while isinstance(root, gast.Attribute):
            root = root.value
        return (
            isinstance(root, gast.Name)
            and root.id not in local_names(self.func)
            and is_function_value(self.resolve(value))
        )

    def _name_functions_made(self, bindings, prefix, stmt):
        """The statements naming what a call passes a lambda or a functools.partial written
        there (`apply(lambda t: t ** 3, x)`), made where the call is: a local function, or
        a partial, of its own, which the parameter is bound to (as to one passed by name)."""
        out = []
        for k, (param, value) in enumerate(bindings):
            name = f"{prefix}_{param}"  # (what the parameter is named where inlined)
            if isinstance(value, gast.Lambda):
                name = self.names.named(name)
                self.lambdas.add(name)
                definition = ir.lambda_definition(name, value, stmt)
                held, defaults = self._hold_defaults(definition, stmt)
                self._take(name, definition, defaults, stmt)
            elif is_partial(value, self.resolve):
                name = self.names.named(name)
                held, self.partial_calls[name] = partial_made(
                    name, value, self.names, stmt, self.partial_calls, self.resolve
                )
            else:
                continue
            out += held
            bindings[k] = (param, ir.name(name))
        return out

    def _take(self, name, definition, defaults, stmt):
        """Record a local function (after inlining the local functions of its own); a
        generator as the function that makes the list of what it yields."""
        if is_generator(definition):
            definition = yields_into_a_list(definition, self.names.fresh, self.location)
            self.generators.add(name)
        self._refuse_unsupported(definition, stmt)
        nested = Inliner(
            definition,
            self.names,
            self.resolve,
            self.location,
            self.sibling,
            nested=True,
            owners=self.owners,
        )
        nested.run()
        self.local[name] = (definition, defaults)

    def _may_take_in(self, call, fn):
        """Whether `call` (of `fn`) may take a function of this module in (_adopt), in a
        function without local functions."""
        definition = self.sibling(fn) if inspect.isfunction(fn) else None
        return definition is not None and (
            definition.args.vararg is not None or taken_in(definition, call)
        )

    def _adopt(self, call):
        """Take a function of this module in as a local function, for this call, when it is
        passed a local function or returns one (the local function then is inlined where
        that function calls it, or where its result is called), or when it packs arguments
        into its *args."""
        fn = self.resolve(call.func)
        if not inspect.isfunction(fn):
            return False
        definition = self.sibling(fn)
        if definition is None or sibling_facts(definition)[1] and id(call) not in self.iterated:
            return False  # (a generator's items are a list's when a loop takes them all)
        if definition.args.vararg is not None:
            self._spread(call)
        if not (
            any(self._passes_function(a) for a in call.args + [k.value for k in call.keywords])
            or taken_in(definition, call)
        ):
            return False
        if any(self.origins.get(name) is fn for name in self.active):
            raise UnsupportedError(
                f"{fn.__name__} calls itself (recursion) with a local function",
                self.location(call),
                "write the recursion as a loop",
            )
        name, definition = self.names.fresh(fn.__name__), ir.copy_tree(definition)  # (shared)
        if is_python_version(fn):  # (its lines are srcdiff's: what it raises is the call's)
            for node in ir.walk(definition):
                if "lineno" in node._attributes:
                    node.lineno = node.end_lineno = call.lineno
        args = definition.args
        positional = (args.posonlyargs + args.args)[
            len(args.posonlyargs + args.args) - len(args.defaults) :
        ]
        defaults = dict(zip([a.id for a in positional], args.defaults))
        defaults.update(
            {a.id: v for a, v in zip(args.kwonlyargs, args.kw_defaults) if v is not None}
        )
        self._take(name, definition, defaults, call)
        self.origins[name] = fn
        call.func = ir.name(name)
        return True

    def _spread(self, call):
        """f(*parts) with parts a display, or a name bound once to one, as f(parts[0],
        parts[1]): the count of what f's *args packs is then in the code."""
        if not any(isinstance(a, gast.Starred) for a in call.args):
            return
        lengths, args = display_lengths(self.func), []
        for arg in call.args:
            held = arg.value if isinstance(arg, gast.Starred) else None
            if held is None:
                args.append(arg)
            elif isinstance(held, (gast.List, gast.Tuple)) and not any(
                isinstance(e, gast.Starred) for e in held.elts
            ):
                args += held.elts
            elif isinstance(held, gast.Name) and held.id in lengths:
                args += [
                    gast.Subscript(value=ir.name(held.id), slice=ir.const(k), ctx=gast.Load())
                    for k in range(lengths[held.id][1])
                ]
            else:
                return
        call.args = args

    def _passes_function(self, argument):
        """Whether a call's argument is a local function or partial, or a lambda or a
        functools.partial written there (which the call then is passed: see _inline)."""
        return (
            isinstance(argument, gast.Name)
            and (argument.id in self.local or argument.id in self.partial_calls)
            or isinstance(argument, gast.Lambda)
            or is_partial(argument, self.resolve)
        )

    def _is_function(self, node):
        return (
            isinstance(node, gast.Name)
            and (node.id in self.local or node.id in self.partials)
            or is_function_value(self.resolve(node))
        )

    def _refuse_unsupported(self, definition, stmt):
        where = self.location(stmt)
        vararg = definition.args.vararg
        if vararg is not None and vararg.id in local_names(definition):
            raise UnsupportedError(
                f"the local function {definition.name!r} assigns its *{vararg.id}",
                where,
                "give the new value a name of its own",
            )
        for node in ir.walk(definition):
            if isinstance(node, (gast.Yield, gast.YieldFrom)):
                raise UnsupportedError(
                    f"the local function {definition.name!r} is a generator",
                    where,
                    "return a list instead of yielding",
                )
            if isinstance(node, gast.Global):
                raise UnsupportedError(
                    "a global statement in a local function",
                    where,
                    "pass the value in and return the new one",
                )

    def _check_uses(self):
        """What is left of a local function is a use as a value (passed where srcdiff cannot
        follow it, stored): refused. (A nested inliner's returned ones are its caller's.)"""
        returned = {
            id(n)
            for stmt in (ir.walk(self.func) if self.nested and self.local else ())
            if isinstance(stmt, gast.Return)
            for n in ir.walk(stmt)
        }
        for stmt in self.func.body if self.local or self.partial_calls else ():  # (rare)
            if isinstance(stmt, gast.FunctionDef):
                continue
            for node in ir.walk(stmt):
                if not isinstance(node, gast.Name) or not isinstance(node.ctx, gast.Load):
                    continue
                if node.id in self.local and id(node) not in returned:
                    what = (
                        "a lambda" if node.id in self.lambdas else f"the local function {node.id!r}"
                    )
                elif node.id in self.partial_calls:  # (its assignment is gone: apply_partials)
                    what = "a functools.partial"
                else:
                    continue
                raise UnsupportedError(
                    f"{what} is used as a value (stored, or passed to a function "
                    "srcdiff does not inline): srcdiff inlines local functions where "
                    "they are called",
                    self.location(node),
                    "call it directly, pass it to a function of this module, or define "
                    "it at module level and pass what it closes over as arguments",
                )
        if self.nested:
            self._keep_returned()

    def _keep_returned(self):
        """Define again, first in the body, the local functions this one returns, and those
        they call (`return lambda a: k(a) + 1`, k local too); their calls of a partial call
        what it binds, held where it was made."""
        names = self._reached(
            n.id
            for stmt in ir.walk(self.func)
            if isinstance(stmt, gast.Return)
            for n in ir.walk(stmt)
            if isinstance(n, gast.Name) and n.id in self.local
        )
        for name in sorted(names):
            definition, defaults = self.local[name]
            if defaults:
                raise UnsupportedError(
                    f"the returned local function {name!r} has default values",
                    self.location(definition),
                    "pass those values in the calls instead",
                )
            kept = ir.copy_tree(definition)
            kept.name = name
            call_partials([kept], self.partial_calls)
            self.func.body.insert(0, kept)

    def _reached(self, names):
        """`names` of local functions, and those of the local functions their bodies name,
        and so on."""
        reached, pending = set(), list(names)
        while pending:
            name = pending.pop()
            if name not in reached:
                reached.add(name)
                definition = self.local[name][0]
                pending += [
                    n.id
                    for n in ir.walk(definition)
                    if isinstance(n, gast.Name) and n.id in self.local and n.id != name
                ]
        return reached

    def _prefix(self, name):
        """What the names an inlined call of `name` makes start with: a module function taken
        in (as g0, g1, once per call) gives its own name, g (they are made fresh anyway)."""
        return self.origins[name].__name__ if name in self.origins else name

    def _local_call(self, node):
        if not isinstance(node, gast.Call):
            return False
        call_partials([node], self.partial_calls)  # (of a partial passed on, or returned)
        return isinstance(node.func, gast.Name) and node.func.id in self.local or self._adopt(node)

    # --- inlining -------------------------------------------------------------------------

    def _block(self, body):
        out = []
        for stmt in body:
            for field in ("body", "orelse"):
                if isinstance(stmt, (gast.If, gast.For, gast.While)):
                    setattr(stmt, field, self._block(getattr(stmt, field)))
            header = stmt.test if isinstance(stmt, gast.While) else None
            if header is not None and any(self._local_call(n) for n in ir.walk(header)):
                raise UnsupportedError(
                    "a while loop's test calls a local function",
                    self.location(stmt),
                    "compute the test in the loop: while True: ... if not test: break",
                )
            self.iterated |= iterated_calls(stmt)
            out += self._hoist(stmt)
            if not self._names_local_functions(stmt):
                out.append(stmt)
        return out

    def _names_local_functions(self, stmt):
        """Whether `stmt` only gives local functions other names (`act = dense`, or `flat,
        unflatten = <a call's result>` for a returned tuple): recorded, not kept."""
        if not (
            isinstance(stmt, gast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.value, gast.Name)
        ):
            return False
        target, value = stmt.targets[0], stmt.value.id
        if isinstance(target, gast.Name) and value in self.local:
            self.local[target.id] = self.local[value]
            return True
        if isinstance(target, gast.Name) and value in self.partial_calls:
            self.partial_calls[target.id] = self.partial_calls[value]
            return True
        if isinstance(target, (gast.Tuple, gast.List)) and value in self.returned:
            for position, function in self.returned[value].items():
                item = target.elts[position]
                if not isinstance(item, gast.Name):
                    raise UnsupportedError(
                        f"a returned local function is unpacked into {gast.unparse(item)}",
                        self.location(stmt),
                        "unpack it into a name",
                    )
                self.local[item.id] = self.local[function]
                target.elts[position] = ir.name(self.names.fresh("_unused"), store=True)
        return False

    def _hoist(self, stmt):
        """The inlined bodies of the local calls `stmt` makes (outside its nested blocks),
        innermost first; each call is replaced by the name of its result."""
        fields = ("test", "iter", "value", "targets", "target", "msg", "exc")
        parts = [
            getattr(stmt, f)
            for f in fields
            if isinstance(getattr(stmt, f, None), (gast.AST, list))
            and not (isinstance(stmt, gast.For) and f == "target")
        ]
        out = []
        for part in parts:
            for node in part if isinstance(part, list) else [part]:
                # (one at a time: the result of one may be a local function called next)
                while calls := _post_order_calls(node, self._local_call):
                    self._refuse_conditional(node, calls[0], stmt)
                    statements, result = self._inline(calls[0], stmt)
                    out += statements
                    if calls[0] is node:
                        node = ir.name(result)
                    ir.replace_node(stmt, calls[0], ir.name(result))
        return out

    def _refuse_conditional(self, root, call, stmt):
        for node in ir.walk(root):
            if isinstance(node, gast.IfExp):
                parts = [node.body, node.orelse]
            elif isinstance(node, gast.BoolOp):
                parts = node.values[1:]
            else:
                continue
            if any(call is n for part in parts for n in ir.walk(part)):
                raise UnsupportedError(
                    "a local function called inside a conditional "
                    "expression (a if c else b, and, or)",
                    self.location(stmt),
                    "write it as an if statement",
                )


def _outside_functions(stmt):
    """The nodes of `stmt` outside the functions it defines (whose local functions are
    their own: their inliners name them)."""
    todo = [] if isinstance(stmt, gast.FunctionDef) else [stmt]
    for node in todo:
        todo += [
            c
            for c in ir.children(node)
            if not isinstance(c, gast.FunctionDef) and not isinstance(node, gast.Lambda)
        ]
        yield node


def _lambdas_held(node):
    """(field, [its value]) or (None, a list field) of `node` where a lambda is named."""
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Lambda):
        return [("func", [node.func])]
    if isinstance(node, gast.Return) and isinstance(node.value, gast.Lambda):
        return [("value", [node.value])]
    if isinstance(node, (gast.List, gast.Tuple)):
        return [(None, node.elts)]
    return [(None, node.values)] if isinstance(node, gast.Dict) else []


def _post_order_calls(node, wanted):
    """The calls in `node` that `wanted` picks, innermost (first evaluated) first. (The
    children are read as gast.iter_child_nodes gives them, off the node's fields directly:
    this visits every node of every statement.)"""
    found = []
    values = node.__dict__
    for field in node._fields:
        value = values.get(field)
        for child in value if value.__class__ is list else (value,):
            if isinstance(child, gast.AST) and child.__class__ not in _NOT_ENTERED:
                found += _post_order_calls(child, wanted)
    return found + [node] if wanted(node) else found


# scopes of their own (their calls run later, if at all), and the contexts (no calls below)
_NOT_ENTERED = frozenset(
    (gast.Lambda, gast.ListComp, gast.GeneratorExp, gast.SetComp, gast.DictComp)
    + (gast.Load, gast.Store, gast.Del, gast.Param)
)
