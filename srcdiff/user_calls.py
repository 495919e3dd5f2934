"""Stage 2c, calls of user functions: `y = g(a, b)` becomes `y, g_saved = fwd_g(a, b)`.

The callee is derived once per way it is called (which arguments carry derivatives, which
outputs are read, which functions and classes it is passed) and named after itself where
that is the only way (naming.py).
"""

import collections
import inspect
import linecache
import os

import gast

from . import ir, naming, recursion, tree, unparse
from .changed_later import left_as_passed
from .errors import SrcdiffError, StaticArgumentNeeded, UnsupportedError
from .initialised import initialised_fields
from .local_classes import made_class
from .made_derivatives import inside_hint
from .parse import MISSING, parsed_function
from .python_versions import is_python_version
from .sources import signature
from .statics import Static, holds_parts, is_function_value, is_object, object_class, skeleton

STATIC_HINT = (
    "srcdiff makes the code for the function (or the object's class) passed: call "
    "the derivative with it, or give the parameter a default"
)


def refuse_spread_arguments(node, loc):
    """Refuse f(*args) and f(**kwargs) in a differentiated call."""
    if any(isinstance(a, gast.Starred) for a in node.args) or any(
        k.arg is None for k in node.keywords
    ):
        raise UnsupportedError(
            "*args/**kwargs in a differentiated call are not supported",
            loc,
            "pass arguments one by one (g(x, parts[0], parts[1])); srcdiff spreads a name's "
            "*parts itself, last, into a function of yours whose parameters count them "
            "(none left with a default)",
        )


def _spread_count(fn, node):
    """How many items `*parts` stands for in `g(a, *parts)` of a Python function g whose
    parameters count them (none with a default, no *args, none passed by keyword), else
    None: `model(x, *params)` of `def model(x, W, b)` passes two."""
    *given, last = node.args or [None]
    if not (
        isinstance(last, gast.Starred)
        and isinstance(last.value, gast.Name)
        and not any(isinstance(a, gast.Starred) for a in given)
        and all(k.arg is not None for k in node.keywords)
        and inspect.isfunction(fn)
    ):
        return None
    code = fn.__code__
    if code.co_flags & inspect.CO_VARARGS:
        return None
    names = code.co_varnames[: code.co_argcount]
    defaults = len(fn.__defaults__ or ())
    left = names[len(given) : len(names) - defaults]
    named = {k.arg for k in node.keywords}
    if len(left) != len(names) - len(given) or named & set(names[len(given) :]):
        return None
    return len(left)


def _check_callable(fn, node, loc):
    """Refuse the calls of user functions srcdiff cannot follow, saying what to write."""
    refuse_spread_arguments(node, loc)
    if getattr(fn, "__globals__", None) is vars(tree):  # (their recursion has no depth)
        raise UnsupportedError(
            f"srcdiff's {fn.__name__} walks a tree of any depth, which srcdiff does not "
            "follow inside a function it differentiates",
            loc,
            "write the walk over your parameters' structure itself ({k: f(v) for k, v in "
            "params.items()}, [f(W) for W in layers], np.concatenate([np.ravel(W), "
            "np.ravel(b)])), or call it outside",
        )
    if inspect.isgeneratorfunction(fn) and not getattr(node, "_taken_whole", False):
        raise UnsupportedError(
            f"{fn.__name__} is a generator, and generators and coroutines cannot be "
            "differentiated by themselves: srcdiff follows a generator where a loop takes "
            "all its items (for x in gen(...), list(gen(...)), sum(gen(...)))",
            loc,
            "loop over the generator here, or make it return a list",
        )


def _refuse_a_method_passed(held, node, loc):
    """A method passed as a value, bound to its object (`g(model.act)`): where g calls it,
    srcdiff followed the method's function without the object (an error about a missing
    argument, at g's line)."""
    if inspect.ismethod(held) and not inspect.isclass(held.__self__):
        method = gast.unparse(node)
        raise UnsupportedError(
            f"{method} is passed as a value, a method bound to its object, which srcdiff "
            "follows only where it is called on its object",
            loc,
            f"pass a lambda calling it (lambda v: {method}(v))",
        )


class UserCalls:
    """Calls of user functions, for the Expressions of the Normalizer (anf.py)."""

    def user_call(self, node, loc, out, target, outputs=None):
        """`y = g(a, b)` for a Python function g: `y, g_saved = fwd_g(a, b)` (a method is its
        function called with its object first). `outputs` marks the items of a returned
        tuple the caller differentiates (None: all)."""
        fn = self.p.resolve(node.func)
        fn = fn.__func__ if inspect.ismethod(fn) else fn
        receiver = self.p.receiver(node.func)
        if receiver is None and _spread_count(fn, node) is not None:
            node = self._spread_by_item(node, _spread_count(fn, node), loc, out)
        _check_callable(fn, node, loc)
        given = ([receiver] if receiver is not None else []) + list(node.args)
        written = {k.arg: k.value for k in node.keywords}
        args = [self._passed(a, loc, out) for a in given]
        keywords = {k: self._passed(v, loc, out) for k, v in written.items()}
        self._copy_changed_later(fn, given, written, args, keywords, loc, out)
        bound, positional = self._bind_call(fn, args, keywords, node, loc)
        wrt = tuple(i for i, n in enumerate(positional) if n in bound and self._carries(bound[n]))
        statics, alike = self._callee_statics(fn, given, written, receiver, loc)
        try:
            names = self._callee_names(fn, wrt, outputs, statics, alike, node, positional, loc)
        except StaticArgumentNeeded as exc:
            raise self._unresolved(exc, fn, given, written, node, loc) from None
        forward = gast.Call(
            func=ir.name(names[0]),
            args=args,
            keywords=[gast.keyword(arg=k, value=v) for k, v in keywords.items()],
        )
        name = self.store(target) if target else self.names.fresh("_t")
        self.active.add(name)
        # what fwd_g saves for bwd_g, and what bwd_g returns: named after g, numbered only
        # beside another call's
        base = naming.base_name(fn)
        saved, grads = self.names.named(f"{base}_saved"), self.names.named(f"{base}_grads")
        atoms = [bound[positional[i]] for i in wrt]
        if self.p.recomputed(node.func) and not self.forward_mode:  # `y = fwd_g(a, b)[0]`
            callee = ir.Callee(names[-1], atoms, saved, grads, ir.copy_tree(forward))
            first = gast.Subscript(value=forward, slice=ir.const(0), ctx=gast.Load())
            if name not in ir.names_in(forward):
                out.append(ir.Assign([name], first, loc, callee=callee))
                return name
            held = self.names.fresh("_t")  # x = g(x): the adjoint sweep calls g(x) again with
            self.active.add(held)  # the x this line read, so it must stay readable
            out.append(ir.Assign([held], first, loc, callee=callee))
            self.emit_copy(name, ir.name(held), loc, out)
            return name
        out.append(
            ir.Assign(
                [name, saved],
                forward,
                loc,
                unpack=True,
                callee=ir.Callee(names[-1], atoms, saved, grads),
            )
        )
        return name

    def _spread_by_item(self, node, count, loc, out):
        """`g(a, *parts)` as `g(a, parts[0], parts[1])`, after Python's check that parts
        holds as many items as g takes."""
        parts = node.args[-1].value
        check = ir.call("runtime.check_unpack", ir.name(parts.id), ir.const(count))
        out.append(ir.Statement(ir.expr_stmt(check), loc))
        items = [
            gast.Subscript(value=ir.name(parts.id), slice=ir.const(k), ctx=gast.Load())
            for k in range(count)
        ]
        return gast.Call(func=node.func, args=node.args[:-1] + items, keywords=node.keywords)

    def refuse_property(self, node, loc):
        """A property of a differentiated object read (`self.weight`, computed from its
        fields): srcdiff follows fields, and would give the property's value a gradient
        of its own that no field holds (the fields' gradients lost)."""
        root = node.value
        static = self.p.statics.get(root.id) if isinstance(root, gast.Name) else None
        held = self.p.container(root)
        cls = (
            static.value
            if static is not None and static.kind == "type"
            else type(held)
            if is_object(held)
            else None
        )
        if cls is not None and isinstance(inspect.getattr_static(cls, node.attr, None), property):
            raise UnsupportedError(
                f"{gast.unparse(node)} reads a property of a differentiated "
                f"{cls.__name__}: srcdiff follows its fields, not what a property computes "
                "from them",
                loc,
                f"make it a method (def {node.attr}(self): ...) and call it: "
                f"{gast.unparse(node)}()",
            )

    def _passed(self, node, loc, out):
        """An argument of a user function's call, as an atom; a display of differentiated
        values (`g([w, b], x)`) is named first, as `params = [w, b]; g(params, x)` does."""
        if isinstance(node, (gast.List, gast.Tuple)) and self._is_active(node):
            return ir.name(self.active_value(node, loc, out))
        return self.argument(node, loc, out)

    def _copy_changed_later(self, fn, given, written, args, keywords, loc, out):
        """Replace in `args` and `keywords` each argument not differentiated that f may
        change in place after this call by a copy of it as it is now, where fn leaves it as
        passed (truths.py): fwd_g keeps it for bwd_g, which would read it changed."""
        if not any(map(self._changed_later, [*given, *written.values()])):
            return
        try:
            parsed = parsed_function(fn, shared=True)
            places = signature(fn).bind(*range(len(given)), **{k: k for k in written})
        except (SrcdiffError, TypeError):
            return  # (refused where the call is bound)
        unchanged = left_as_passed(parsed.node, parsed.resolve)
        for param, place in places.arguments.items():  # (*args and **kwargs: as passed)
            into, nodes = (args, given) if isinstance(place, int) else (keywords, written)
            if param in unchanged and isinstance(place, (int, str)):
                if self._changed_later(nodes[place]):
                    into[place] = self.copied(into[place], loc, out)

    def _carries(self, value):
        """Whether an argument (a node, or what a variadic parameter binds) is active."""
        if isinstance(value, gast.AST):
            return self._is_active(value)
        return any(map(self._carries, value.values() if isinstance(value, dict) else value))

    def _bind_call(self, fn, args, keywords, node, loc):
        """(parameter -> argument, the named parameters in order) of a call of fn."""
        parameters = signature(fn)
        try:
            bound = parameters.bind(*args, **keywords).arguments
        except TypeError as exc:
            call = gast.unparse(node.func)
            hint = (
                f"srcdiff follows {call} as a function of {parameters}: pass it only "
                "those, and what more a function it calls takes through a lambda "
                "(lambda row: g(row, s))"
                if is_python_version(fn)
                else None
            )
            raise SrcdiffError(f"cannot call {call}: {exc}", loc, hint=hint) from None
        positional = [
            n
            for n, p in parameters.parameters.items()  # (then keyword-only ones)
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
        for n, value in bound.items():
            if n not in positional and self._carries(value):
                raise UnsupportedError(
                    f"{gast.unparse(node.func)} takes {n!r} as a variadic "
                    "parameter (*args or **kwargs), which srcdiff cannot "
                    "differentiate",
                    loc,
                    "name the parameter",
                )
        return bound, positional

    def _callee_statics(self, fn, given, written, receiver, loc):
        """([parameter, kind, path] of the callee's static arguments: functions passed to it,
        the objects (a method's own, or ones passed) whose class is known here, and parts of
        a container argument it calls into; the Static each path finds, by which two calls
        that pass the same functions and classes share the callee's code)."""
        try:
            bound = signature(fn).bind(*given, **written).arguments
        except TypeError:
            return [], ()
        statics, alike = [], []
        for param, node in bound.items():
            if not isinstance(node, gast.AST):
                continue
            static = self.p.statics.get(node.id) if isinstance(node, gast.Name) else None
            typed = static is not None and static.kind == "type"
            held = (
                static.value
                if typed
                else self.p.container(node)
                if self._named_constant(node)
                else MISSING
            )
            path = None  # (as written, unless f makes the object: unparsed only if kept)
            made = (  # (an object f makes: named, or made where it is passed, g(Model(w)))
                self.p.local_classes.get(node.id)
                if isinstance(node, gast.Name)
                else made_class(self.p, node)
            )
            if self._in_tree(node) and isinstance(held, (dict, list, tuple)):
                kind = "tree"  # (what it calls in it; of a method, a namedtuple's own)
            elif holds_parts(tree := skeleton(held) if is_object(held) else None):
                kind, held = "tree", tree  # (an object holding layers: `self.layers`)
            elif made is not None:  # (an object f makes: its class, by the name f calls)
                kind, (held, path) = "type", made
            elif node is receiver or typed or is_object(held) and not is_function_value(held):
                kind, held = "type", held if inspect.isclass(held) else object_class(held)
            elif is_function_value(self.p.resolve(node)) and held is not MISSING:
                _refuse_a_method_passed(held, node, loc)
                kind = "value"
            else:
                continue
            statics.append([param, kind, unparse.expression(node) if path is None else path])
            alike.append(Static(param, kind, held))
        for param, p in signature(fn).parameters.items():
            if param not in bound and is_function_value(p.default):
                statics.append([param, "value", None])  # (its default)
        return statics, tuple(alike)

    def _in_tree(self, node):
        """Whether `node` is (or is in) a container argument the code is made for."""
        while isinstance(node, (gast.Attribute, gast.Subscript)):
            node = node.value
        return (
            isinstance(node, gast.Name)
            and getattr(self.p.statics.get(node.id), "kind", None) == "tree"
        )

    def _named_constant(self, node):
        """Whether `node` names the same object wherever the code is loaded: a dotted
        name, or items of one picked by a constant key or a static key argument
        (`ACTIVATIONS[name]`; callee_paths.resolve_path finds it again)."""
        while isinstance(node, (gast.Attribute, gast.Subscript)):
            if isinstance(node, gast.Subscript) and self.p.key(node.slice) is MISSING:
                return False
            node = node.value
        return isinstance(node, gast.Name) and node.id not in self.p.local_classes

    def _unresolved(self, exc, fn, given, written, node, loc):
        """The error for a callee that calls its parameter: passed one of ours, it waits for
        our call as well; passed a function chosen at run time, it cannot be made."""
        argument = signature(fn).bind(*given, **written).arguments.get(exc.parameter)
        if argument is None:
            return exc
        call = gast.unparse(node.func)
        if isinstance(argument, gast.Name) and argument.id in self.params:
            return StaticArgumentNeeded(
                f"{call}(...) is passed the parameter {argument.id!r}, which it calls, and "
                "which is known only when the function is called",
                loc,
                STATIC_HINT,
                parameter=argument.id,
                kind=exc.kind,
            )
        if isinstance(argument, gast.Subscript):  # ACTIVATIONS[name], name a parameter
            self._picked_at_run_time(argument, loc)
        named = isinstance(argument, gast.Name)
        made = self.p.local_classes.get(argument.id) if named else made_class(self.p, argument)
        if made is not None:  # (of an object f makes, srcdiff knows the class, not its parts)
            return UnsupportedError(
                f"{call}(...) calls a function or object that the {made[0].__name__} "
                f"{argument.id if named else 'made here'} holds, and of an object f makes "
                "srcdiff knows the class, not what it holds",
                loc,
                f"make the {made[0].__name__} outside the differentiated function and pass it "
                "in as an argument (srcdiff follows what an argument's object holds), its "
                "arrays as the parameters differentiated",
            )
        passed = gast.unparse(argument)
        return UnsupportedError(
            f"{call}(...) calls its parameter {exc.parameter!r}, passed {passed} here: "
            "srcdiff cannot tell which function that is before the call runs",
            loc,
            "pass a function by its name (a global function, or a parameter of the "
            "differentiated function), not one chosen at run time: "
            + (
                f"a lambda calling it (lambda v: {passed}(v))"
                if isinstance(argument, gast.Attribute) or self._loop_target(argument)
                else f"for a choice, {call}(np.sin, ...) if c else {call}(np.cos, ...)"
            ),
        )

    def _loop_target(self, argument):
        """Whether `argument` names what a for loop takes from what it iterates (a function
        of a list of them: a lambda calling it is made for each)."""
        return isinstance(argument, gast.Name) and any(
            isinstance(n, gast.For)
            and any(isinstance(t, gast.Name) and t.id == argument.id for t in ir.walk(n.target))
            for n in ir.walk(self.p.node)
        )

    def _callee_path(self, func):
        """The dotted name by which a callee is found again as the emitted code loads: as
        written, but for a method of an object f makes, by its class (`Dense.forward`)."""
        root = func.value if isinstance(func, gast.Attribute) else None
        made = self.p.local_classes.get(root.id) if isinstance(root, gast.Name) else None
        return unparse.expression(func) if made is None else f"{made[1]}.{func.attr}"

    def _callee_names(self, fn, wrt, outputs, statics, alike, node, positional, loc):
        """The emitted names of the callee's functions (jvp_g, or fwd_g and bwd_g), deriving
        it the first time this variant of it is called."""
        key = (fn, wrt, outputs, alike)
        names = next((c["names"] for c in self.callees if c["key"] == key), None)
        names = self.recursive_calls.get(key, names)
        if names is not None:
            return names
        taken = {n for c in self.callees for n in c["names"]} | self.names.used
        taken |= recursion.names_in_making(fn)
        wrt_names = [positional[i] for i in wrt]
        names = naming.callee_names(
            fn, wrt_names, outputs, self.suffixed, self.callee_prefixes, taken
        )
        made = self.derive_callee(fn, wrt, names, outputs, loc, statics)
        suffixed, variant, called_back, cyclic = made
        if called_back is not None and not cyclic:  # (into the function differentiated)
            self.recursive_calls[key] = called_back
            return called_back
        names = called_back or names  # (into a function that called this one: its names)
        self.callees.append(
            {
                "key": key,
                "path": self._callee_path(node.func),
                "wrt": list(wrt),
                "names": names,
                "outputs": outputs,
                "statics": statics,
                "suffixed": suffixed,
                "naming": (fn, wrt_names, outputs, variant),
                "cyclic": cyclic,
            }
        )
        return names


def refuse_user_class(obj, loc):
    """The error for an object of a user class made from differentiated values that
    container_joins.made_record could not make field by field (rather than a rule's advice:
    the class is no primitive): where its __init__ does more with one than store it."""
    if obj is collections.deque:
        raise UnsupportedError(
            "collections.deque(...) of differentiated values: srcdiff follows a deque made "
            "empty, collections.deque(), then changed by append and pop as a stack",
            loc,
            "make it empty and append the items one by one, or keep a list and read it "
            "in order by a count (v = items[k]; k += 1)",
        )
    if not inspect.isclass(obj) or obj.__module__.split(".")[0] in ("builtins", "numpy"):
        return
    made = initialised_fields(obj)
    if made is not None and made.unfollowed:
        filename, line = next(iter(made.unfollowed.values()))
        raise UnsupportedError(
            f"{obj.__name__}(...) makes an object of a class of yours from differentiated "
            f"values, and its __init__ does more with them than store them "
            f"({os.path.basename(filename)}:{line}: {linecache.getline(filename, line).strip()})",
            loc,
            f"store each parameter as given (self.W = W) and compute with it in the methods, "
            f"or pass the {obj.__name__} in as an argument",
        )
    why = f", and {made.refused}" if made is not None and made.refused else ""
    raise UnsupportedError(
        f"{obj.__name__}(...) makes an object of a class of yours from differentiated "
        f"values{why}, which srcdiff cannot follow",
        loc,
        f"pass the {obj.__name__} in as an argument (a dataclass or NamedTuple "
        f"argument is differentiated as a whole, its gradient a {obj.__name__} too), "
        "or compute with its arrays directly",
    )


def refuse_derivative_object(obj, what, loc):
    """The error for a call of a derivative srcdiff made other than nf.grad(g, wrt=k), whose
    emitted code a call of it runs as it is (api.Derivative.runs_as), or nf.jvp(g, wrt=k)
    or nf.hvp(g, wrt=k), whose emitted code it runs with the tangent moved first
    (made_derivatives.move_tangents_first)."""
    if type(obj).__module__.split(".")[0] == "srcdiff":
        raise UnsupportedError(
            f"{what}(...) calls a derivative that srcdiff made, which f can call only where "
            "it is nf.grad(g), nf.jvp(g) or nf.hvp(g) (wrt one position or name, or none), "
            "and a jvp or hvp with every argument passed by position",
            loc,
            inside_hint(obj),
        )
