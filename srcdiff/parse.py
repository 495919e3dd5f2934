"""Stage 1: read a function's source with gast and resolve the names it uses."""

import builtins
import copy
import functools
import inspect
import keyword
import linecache

import gast
import numpy as np

from . import ir, remat, runtime
from .blocks import blocks_as_one_list
from .imports import hoisted_imports
from .property_reads import property_reads_as_calls
from .sources import read_function, readings
from .super_calls import explicit_super_calls
from .local_classes import local_classes
from .made_derivatives import made_derivative, move_tangents_first
from .generators import first_yield, mark_calls_taken_whole, yields_into_a_list
from .errors import Location, SrcdiffError, StaticArgumentNeeded, UnsupportedError
from .provenance import is_library_file
from .python_versions import is_python_version
from .spread_parameters import spread_keywords, spread_varargs
from .static_tests import drop_static_branches
from .statics import MISSING, is_function_value, is_object
from .wrappers import source_function


def _expand_partial_calls(calls, partials):
    """`act(x)` for a name `act` of functools.partial(g, a, k=b) (`partials`: name -> the
    partial) becomes `act.func(act.args[0], x, k=act.keywords['k'])`: g called directly, the
    values the partial binds read from it when the code runs. `calls`: the function's."""
    for call in calls if partials else ():
        if not (isinstance(call.func, gast.Name) and call.func.id in partials):
            continue
        name, partial = call.func.id, partials[call.func.id]
        held = [
            gast.Subscript(
                value=_attribute(name, "args"), slice=gast.Constant(k, None), ctx=gast.Load()
            )
            for k in range(len(partial.args))
        ]
        given = {k.arg for k in call.keywords}
        keywords = [
            gast.keyword(
                arg=k,
                value=gast.Subscript(
                    value=_attribute(name, "keywords"),
                    slice=gast.Constant(k, None),
                    ctx=gast.Load(),
                ),
            )
            for k in sorted(partial.keywords)
            if k not in given
        ]
        call.func = _attribute(name, "func")
        call.args = held + call.args
        call.keywords = keywords + call.keywords


def _getattr_as_attributes(parsed, calls):
    """`getattr(np, name)` with a name known here (a str written in the code, or held by a
    global, or a parameter the code is made for: a Static of kind "key") is `np.tanh`, read
    and resolved like any attribute. A name of a module's attribute that only the call will
    give asks for the code to be made for it. `calls`: the function's; returns whether it
    rewrote any."""
    calls = [
        node
        for node in calls
        if len(node.args) == 2
        and not node.keywords
        and isinstance(node.func, gast.Name)
        and node.func.id == "getattr"
        and parsed.resolve(node.func) is getattr
    ]
    args = parsed.node.args
    params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    rewritten = False
    for call in calls:
        obj, key = call.args
        name = parsed.key(key)
        if name is MISSING and isinstance(key, gast.Name) and key.id not in parsed.local_names:
            name = parsed.namespace.get(key.id, MISSING)  # (a global: provenance guards it)
        if isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name):
            ir.replace_node(
                parsed.node, call, gast.Attribute(value=obj, attr=name, ctx=gast.Load())
            )
            rewritten = True
        elif isinstance(key, gast.Name) and name is not MISSING and key.id in params:
            raise UnsupportedError(
                f"{gast.unparse(call)}: {key.id!r} is {name!r} here, which names no attribute",
                parsed.location(call),
                f"pass the name of a function of {gast.unparse(obj)} (a str)",
            )
        elif (
            isinstance(key, gast.Name)
            and key.id in params
            and inspect.ismodule(parsed.container(obj))
        ):
            raise StaticArgumentNeeded(
                f"{gast.unparse(call)} picks the function the parameter {key.id!r} names, "
                "which is known only when the function is called",
                parsed.location(call),
                "srcdiff makes the code for the name passed (a str): call the derivative "
                "with it, or give the parameter a default",
                parameter=key.id,
                kind="key",
            )
    return rewritten


def expand_object_calls(parsed, calls=None):
    """`model(x)` for an object (an argument, a global, or one held in a container argument
    or global: `layers[0](h)`) whose class defines `__call__` in the user's Python becomes
    `model.__call__(x)`: a method call, followed as the others are (an nf.checkpoint, a
    function value, keeps its call). `calls`: the function's, if known."""

    def called_in_python(func):
        static = parsed.statics.get(func.id) if isinstance(func, gast.Name) else None
        if static is not None and static.kind == "type":
            cls = static.value
        elif isinstance(func, gast.Name) and func.id in parsed.local_classes:
            cls = parsed.local_classes[func.id][0]
        elif isinstance(func, gast.Name) and func.id in parsed.local_names and static is None:
            return False
        else:
            value = parsed.container(func)
            if (
                not is_object(value)
                or is_function_value(value)
                or type(value).__module__.startswith("srcdiff.")  # (a derivative: its code)
            ):
                return False
            cls = type(value)
        call = getattr(cls, "__call__", None)
        return inspect.isfunction(call) and not is_library_function(call)

    for call in _Census(parsed.node).calls if calls is None else calls:
        if isinstance(call.func, (gast.Name, gast.Attribute, gast.Subscript)) and called_in_python(
            call.func
        ):
            call.func = gast.Attribute(value=call.func, attr="__call__", ctx=gast.Load())


class _Census:
    """The nodes of a function that reading it looks at, by kind, each list in walk order:
    one walk, where finding its locals, its local classes, and rewriting its getattr,
    partial and object calls took six."""

    def __init__(self, node):
        self.calls, self.assigns, self.functions, self.written = [], [], [], []
        self.loops = []  # (for statements and comprehensions: what their targets take)
        self.changed = set()  # names whose attribute is read or set, or whose item is set
        for n in ir.walk(node):
            kind = n.__class__
            if kind is gast.Name:
                if not isinstance(n.ctx, gast.Load):
                    self.written.append(n)  # (stored, deleted, or a parameter)
            elif kind is gast.Call:
                self.calls.append(n)
            elif kind is gast.Assign:
                self.assigns.append(n)
            elif kind is gast.FunctionDef:
                self.functions.append(n)
            elif kind is gast.For or kind is gast.comprehension:
                self.loops.append(n)
            elif (kind is gast.Attribute or kind is gast.Subscript) and (
                n.value.__class__ is gast.Name
                and (kind is gast.Attribute or n.ctx.__class__ is not gast.Load)
            ):
                self.changed.add(n.value.id)


def _attribute(name, attr):
    return gast.Attribute(
        value=gast.Name(name, gast.Load(), None, None), attr=attr, ctx=gast.Load()
    )


class ParsedFunction:
    """A function's gast tree (line numbers as in its file) and the namespace it runs in.
    `statics`: Static arguments, by which calls of a parameter (or methods of an object
    parameter) are resolved."""

    def __init__(self, fn, statics=()):
        self.fn = fn
        self.filename, self.node, self.source = read_function(fn)
        # a generator's first yield (None: fn is none), where a call of fn that a loop takes
        # all the items of is followed as the function returning the list of them
        code = getattr(source_function(fn), "__code__", None)  # (whose source was read)
        generator = code is None or code.co_flags & _YIELDING  # (a look, not a walk)
        self.yields = first_yield(self.node) if generator else None
        if self.yields is not None:
            self.node = yields_into_a_list(self.node, ir.Names(self.node).fresh, self.location)
        self.namespace = dict(fn.__globals__)
        self.namespace.update(_nonlocals(fn))
        self.statics = {static.name: static for static in statics}
        self.imports = hoisted_imports(self)  # (what the emitted module imports too)
        self._siblings = {}
        args = self.node.args
        spread_varargs(self.node, self.statics.get(getattr(args.vararg, "id", None)))
        spread_keywords(self, self.statics.get(getattr(args.kwarg, "id", None)))
        census = _Census(self.node)
        self.find_locals(census)
        # (a function passed for a parameter f binds again is not what calls of it call after)
        rebound = {n.id for n in census.written if isinstance(n.ctx, gast.Store)}
        for name in rebound & {n for n, s in self.statics.items() if s.kind == "value"}:
            del self.statics[name]
        if drop_static_branches(self):
            census = _Census(self.node)
            self.find_locals(census)
        if _getattr_as_attributes(self, census.calls):
            census = _Census(self.node)
        mark_calls_taken_whole(census.loops, census.calls)
        explicit_super_calls(self, census.calls)
        # (a partial's call rewritten holds no other call: the census stands)
        _expand_partial_calls(census.calls, self._partials(census.calls))
        expand_object_calls(self, census.calls)
        property_reads_as_calls(self)
        move_tangents_first(self.node, self.resolve, census.calls)
        blocks_as_one_list(self, census.calls)

    def copy(self):
        """A copy to change: the tree copied, and what the stages update in place."""
        twin = copy.copy(self)
        twin.node = ir.copy_tree(self.node)
        twin.namespace, twin.statics = dict(self.namespace), dict(self.statics)
        twin.local_names, twin.local_classes = set(self.local_names), dict(self.local_classes)
        return twin

    def _partials(self, calls):
        """name -> functools.partial object, of the static arguments and of the global or
        closure names the function calls that hold one (`LEAKY = partial(leaky, slope=0.1)`)."""
        found = {
            name: s.value
            for name, s in self.statics.items()
            if isinstance(s.value, functools.partial)
        }
        called = (
            {n.func.id for n in calls if isinstance(n.func, gast.Name)}
            - self.local_names
            - set(self.statics)
        )
        found.update(
            {
                name: self.namespace[name]
                for name in called
                if isinstance(self.namespace.get(name), functools.partial)
                and is_function_value(self.namespace[name].func)
            }
        )
        return found

    def find_locals(self, census=None):
        """Work out the names the function binds itself (again, after its code changed);
        `census`: its _Census, if just taken."""
        census = _Census(self.node) if census is None else census
        args = self.node.args  # (the parameters: not the names their defaults read)
        self.local_names = {
            a.id
            for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
            if a is not None
        }
        self.local_names.update(n.id for n in census.written if isinstance(n.ctx, gast.Store))
        self.local_names.update(n.name for n in census.functions if n is not self.node)
        self.local_classes = {}  # (what _local_classes resolves names by: none yet)
        self.local_classes = local_classes(self, census)

    def sibling(self, fn):
        """The definition of `fn` when it is a function of this one's module and file without
        a closure (which srcdiff may inline here), else None: shared, to be copied if taken.
        The Python version of a library function (python_versions.py) is one too where each
        name it reads from its module names the same here."""
        foreign = inspect.isfunction(fn) and fn.__globals__ is not self.fn.__globals__
        if not inspect.isfunction(fn) or fn.__closure__ or foreign and not is_python_version(fn):
            return None
        if fn not in self._siblings:
            try:
                filename, node, _ = read_function(fn, shared=True)
            except SrcdiffError:
                filename, node = None, None
            if foreign:
                alike = node is not None and self._reads_alike(fn, node)
                self._siblings[fn] = node if alike else None
            else:
                self._siblings[fn] = node if filename == self.filename else None
        return self._siblings[fn]

    def _reads_alike(self, fn, node):
        """Whether each global name fn's definition reads names what it does in this module."""
        read, written = ir.reads_and_writes(gast.Module(body=node.body, type_ignores=[]))
        read |= ir.names_in(node.args)  # (its defaults; not its decorators: they ran there)
        own = written | ir.names_in(node.args, gast.Param)
        here, there = self.fn.__globals__, fn.__globals__
        return all(
            here.get(n, getattr(builtins, n, MISSING)) is there.get(n, getattr(builtins, n, None))
            for n in read - own
        )

    def location(self, node):
        lineno = getattr(node, "lineno", None) or self.node.lineno
        return Location(
            self.filename,
            lineno,
            linecache.getline(self.filename, lineno).rstrip() or self._line(lineno),
        )

    def _line(self, lineno):
        lines = self.source.splitlines()
        index = lineno - self.node.lineno + len(self.node.decorator_list or [])
        return lines[index] if 0 <= index < len(lines) else ""

    def resolve(self, node):
        """The object an expression like `np.linalg.norm` names, or MISSING for a local value;
        a function picked from a constant container by a constant key (`ACTIVATIONS["relu"]`,
        or by a parameter whose value the transform is made for) too; of an nf.checkpoint,
        the function it marks (see `recomputed`)."""
        return remat.unwrap(self._resolve(node))[0]

    def recomputed(self, node):
        """Whether a call of `node` is to a function marked with nf.checkpoint."""
        return remat.unwrap(self._resolve(node))[1]

    def _resolve(self, node):
        if isinstance(node, gast.Subscript):
            item = self._item(node)
            return item if is_function_value(item) else MISSING
        return self.container(node)

    def container(self, node):
        """What `node` names, as resolve() does, but for an item of a global container
        (`LAYERS["hidden"]`), which resolve() gives only when it is a function."""
        if isinstance(node, gast.Subscript):
            return self._item(node)
        chain = []
        while isinstance(node, gast.Attribute):
            chain.append(node.attr)
            node = node.value
        static = self.statics.get(node.id) if isinstance(node, gast.Name) else None
        if isinstance(node, gast.Subscript):
            obj = self._item(node)
        elif isinstance(node, gast.Call):  # (nf.grad(inner): the derivative it makes)
            obj = made_derivative(node, self)
        elif not isinstance(node, gast.Name):
            return MISSING
        elif static is not None and (static.kind in ("value", "tree") or chain):
            obj = static.value  # (of an object: its class, whose methods are functions)
        elif chain and node.id in self.local_classes:  # (a method of an object f makes)
            method = getattr(self.local_classes[node.id][0], chain[-1], MISSING)
            return method if len(chain) == 1 and inspect.isfunction(method) else MISSING
        elif node.id in self.local_names:
            return MISSING
        elif node.id == "runtime" and node.id not in self.namespace:
            obj = runtime  # (the helpers srcdiff's own rewrites call, as emitted code does)
        else:  # (a builtin only when no global: getattr's miss costs an exception)
            obj = self.namespace.get(node.id, MISSING)
            if obj is MISSING:
                obj = getattr(builtins, node.id, MISSING)
        in_tree = static is not None and static.kind == "tree" or isinstance(node, gast.Subscript)
        for attr in reversed(chain):
            # (of a container argument's skeleton: a namedtuple's fields and an object's
            # methods, never a dict's or list's own: d.get(k) is an item read, refused)
            obj = (
                MISSING
                if in_tree and type(obj) in (dict, list, tuple)
                else getattr(obj, attr, MISSING)
            )
        return obj

    def _item(self, node):
        """The item `container[key]` names, for a container (a dict, list or tuple) that is
        a global (or an item of one) and a key known here; else MISSING."""
        container = self.container(node.value)
        key = self.key(node.slice)
        if not isinstance(container, (dict, list, tuple)) or key is MISSING:
            return MISSING
        try:
            return container[key]
        except (KeyError, IndexError, TypeError):
            return MISSING

    def key(self, node):
        """The value of a key written as a constant (`"relu"`, `-1`), or of a parameter the
        transform is made for (a Static of kind "key"); else MISSING."""
        if isinstance(node, gast.Constant) and isinstance(node.value, (str, int)):
            return node.value
        if (
            isinstance(node, gast.UnaryOp)
            and isinstance(node.op, gast.USub)
            and isinstance(node.operand, gast.Constant)
            and type(node.operand.value) is int
        ):
            return -node.operand.value
        static = self.statics.get(node.id) if isinstance(node, gast.Name) else None
        return static.value if static is not None and static.kind == "key" else MISSING

    def receiver(self, func):
        """The object a method is called on (`model` in `model.predict(x)`), for a method of
        an object parameter (a static type) or of a global object; else None."""
        if not isinstance(func, gast.Attribute):
            return None
        obj = self.resolve(func)
        if inspect.ismethod(obj) and (
            not inspect.isclass(obj.__self__) or self.resolve(func.value) is obj.__self__
        ):
            return func.value  # (an object's method, or a class's classmethod: Model.create)
        root = func.value
        static = self.statics.get(root.id) if isinstance(root, gast.Name) else None
        cls = (
            static.value
            if static is not None and static.kind == "type"
            else self.local_classes.get(root.id, (None,))[0]
            if isinstance(root, gast.Name)
            else None
        )
        if (
            cls is not None
            and inspect.isfunction(obj)
            and not isinstance(inspect.getattr_static(cls, func.attr, None), staticmethod)
        ):
            return root
        return None


def parsed_function(fn, statics=(), shared=False, first=False):
    """ParsedFunction(fn, statics), read once in a transform where there are no statics;
    `shared`: the one read, not a copy, for an analysis that changes nothing of it. `first`:
    for the transform of the function differentiated, which no analysis has read yet and
    few read after (a call of it in a recursion): a read of its own, no copy kept."""
    kept = readings.kept
    if statics or kept is None or first and fn not in kept:
        return ParsedFunction(fn, statics)
    if fn not in kept:
        kept[fn] = ParsedFunction(fn)
    return kept[fn] if shared else kept[fn].copy()


def _nonlocals(fn):
    """inspect.getclosurevars(fn).nonlocals, without its look at every global and builtin
    name the code reads."""
    fn = fn.__func__ if inspect.ismethod(fn) else fn
    cells = fn.__closure__ or ()
    return {name: cell.cell_contents for name, cell in zip(fn.__code__.co_freevars, cells)}


# the flags of a function's code that say its own body yields
_YIELDING = inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR

_NUMPY_MODULES = (
    ("np", np),
    ("np.linalg", np.linalg),
    ("np.fft", np.fft),
    ("np.lib.stride_tricks", np.lib.stride_tricks),
    ("np.random", np.random),
)


def spelling(obj):
    """The canonical source text for a numpy function or builtin in emitted code, or None.
    Emitted code spells numpy functions through `np`, so it needs no other import."""
    name = getattr(obj, "__name__", None)
    if name is None:
        return None
    for prefix, module in _NUMPY_MODULES:
        # (the module's own names: numpy's __getattr__ warns of some, `np.str` for str)
        if vars(module).get(name) is obj:
            return f"{prefix}.{name}"
    if getattr(builtins, name, None) is obj:
        return name
    return None


def is_library_function(fn):
    """Whether fn is a library's (SciPy's, numpy's, the stdlib's: its file is installed), not
    the user's: srcdiff differentiates a library function only by a registered rule, never
    through its source. srcdiff's own functions (srcdiff.nn) are meant to be read."""
    return is_library_file(fn.__code__.co_filename)
