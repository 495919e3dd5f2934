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
import copy

import gast

from . import ir
from .desugar import desugar, lower_comprehensions
from .errors import UnsupportedError


class Inliner:
    """Inlines the local functions of one function (a gast FunctionDef, changed in place).
    `names` makes fresh names, `resolve` and `location` are the ParsedFunction's."""

    def __init__(self, func, names, resolve, location):
        self.func, self.names, self.resolve, self.location = func, names, resolve, location
        self.local = {}  # name -> (its FunctionDef, default values' names)
        self.active = []  # the local functions being inlined now (to refuse recursion)

    def run(self):
        _maps_to_comprehensions(self.func, self.resolve)
        self.func.body = self._name_lambdas(self.func.body)
        self.func.body = self._collect(self.func.body)
        if not self.local:
            return
        self._check_uses()
        calls = lambda node: any(self._local_call(n) for n in gast.walk(node))  # noqa: E731
        while lower_comprehensions(self.func.body, calls, self.names.fresh):
            pass
        self.func.body = self._block(self.func.body)

    # --- finding the local functions ------------------------------------------------------

    def _name_lambdas(self, body):
        """A lambda called where it is written (`(lambda v: f(v))(x)`, and what map gives)
        is bound to a name of its own first, as a local function."""
        out = []
        for stmt in body:
            for field in ("body", "orelse"):
                if isinstance(stmt, (gast.If, gast.For, gast.While)):
                    setattr(stmt, field, self._name_lambdas(getattr(stmt, field)))
            for node in gast.walk(stmt):
                if isinstance(node, gast.Call) and isinstance(node.func, gast.Lambda):
                    name = self.names.fresh("_lambda")
                    out.append(gast.copy_location(ir.assign(name, node.func), stmt))
                    node.func = ir.name(name)
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
            definition = _as_definition(stmt)
            if definition is None:
                out.append(stmt)
                continue
            if definition.name in self.local:
                raise UnsupportedError(f"the local function {definition.name!r} is defined "
                                       "twice", self.location(stmt),
                                       "give each local function a name of its own")
            defaults = []
            args = definition.args
            for param, value in zip((args.posonlyargs + args.args)[-len(args.defaults):]
                                    if args.defaults else [], args.defaults):
                held = self.names.fresh(f"{definition.name}_{param.id}_default")
                out.append(gast.copy_location(ir.assign(held, value), stmt))
                defaults.append((param.id, held))
            for param, value in zip(args.kwonlyargs, args.kw_defaults):
                if value is not None:
                    held = self.names.fresh(f"{definition.name}_{param.id}_default")
                    out.append(gast.copy_location(ir.assign(held, value), stmt))
                    defaults.append((param.id, held))
            self._refuse_unsupported(definition, stmt)
            Inliner(definition, self.names, self.resolve, self.location).run()  # its own
            self.local[definition.name] = (definition, dict(defaults))
        return out

    def _refuse_unsupported(self, definition, stmt):
        where = self.location(stmt)
        if definition.args.kwarg:
            raise UnsupportedError(f"the local function {definition.name!r} takes **kwargs",
                                   where, "name its parameters")
        vararg = definition.args.vararg
        if vararg is not None and vararg.id in _locals(definition):
            raise UnsupportedError(f"the local function {definition.name!r} assigns its "
                                   f"*{vararg.id}", where, "give the new value a name of its own")
        for node in gast.walk(definition):
            if isinstance(node, (gast.Yield, gast.YieldFrom)):
                raise UnsupportedError(f"the local function {definition.name!r} is a "
                                       "generator", where, "return a list instead of yielding")
            if isinstance(node, gast.Global):
                raise UnsupportedError("a global statement in a local function", where,
                                       "pass the value in and return the new one")

    def _check_uses(self):
        """Every use of a local function's name must be a call (it is inlined there)."""
        calls = {id(n.func) for n in gast.walk(self.func) if isinstance(n, gast.Call)}
        for node in gast.walk(self.func):
            if isinstance(node, gast.Name) and node.id in self.local and id(node) not in calls:
                raise UnsupportedError(
                    f"the local function {node.id!r} is used as a value (passed, stored or "
                    "returned): srcdiff inlines local functions where they are called",
                    self.location(node), "call it directly, or define it at module level and "
                    "pass what it closes over as arguments")

    def _local_call(self, node):
        return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
            node.func.id in self.local

    # --- inlining -------------------------------------------------------------------------

    def _block(self, body):
        out = []
        for stmt in body:
            for field in ("body", "orelse"):
                if isinstance(stmt, (gast.If, gast.For, gast.While)):
                    setattr(stmt, field, self._block(getattr(stmt, field)))
            header = stmt.test if isinstance(stmt, gast.While) else None
            if header is not None and any(self._local_call(n) for n in gast.walk(header)):
                raise UnsupportedError("a while loop's test calls a local function",
                                       self.location(stmt),
                                       "compute the test in the loop: while True: ... if not "
                                       "test: break")
            out += self._hoist(stmt) + [stmt]
        return out

    def _hoist(self, stmt):
        """The inlined bodies of the local calls `stmt` makes (outside its nested blocks),
        innermost first; each call is replaced by the name of its result."""
        fields = ("test", "iter", "value", "targets", "target", "msg", "exc")
        parts = [getattr(stmt, f) for f in fields if isinstance(getattr(stmt, f, None), (
            gast.AST, list)) and not (isinstance(stmt, gast.For) and f == "target")]
        out = []
        for part in parts:
            for node in (part if isinstance(part, list) else [part]):
                for call in _post_order_calls(node, self._local_call):
                    self._refuse_conditional(node, call, stmt)
                    statements, result = self._inline(call, stmt)
                    out += statements
                    _replace(stmt, call, ir.name(result))
        return out

    def _refuse_conditional(self, root, call, stmt):
        for node in gast.walk(root):
            if isinstance(node, gast.IfExp):
                parts = [node.body, node.orelse]
            elif isinstance(node, gast.BoolOp):
                parts = node.values[1:]
            else:
                continue
            if any(call is n for part in parts for n in gast.walk(part)):
                raise UnsupportedError("a local function called inside a conditional "
                                       "expression (a if c else b, and, or)",
                                       self.location(stmt), "write it as an if statement")

    def _inline(self, call, stmt):
        """(statements computing the call's result, the name holding it)."""
        name = call.func.id
        if name in self.active:
            raise UnsupportedError(f"the local function {name!r} calls itself (recursion)",
                                   self.location(stmt), "write the recursion as a loop")
        definition, defaults = self.local[name]
        body = copy.deepcopy(definition.body)
        bindings, extra = self._bind(definition, defaults, call, stmt)
        if definition.args.vararg is not None:  # *args: a tuple display of its values
            vararg = definition.args.vararg.id
            items = [self.names.fresh(f"{name}_{vararg}") for _ in extra]
            _Substitute(vararg, gast.Tuple(elts=[ir.name(i) for i in items],
                                           ctx=gast.Load())).visit_all(body)
            bindings = bindings + list(zip(items, extra))
        renames = {param: self.names.fresh(f"{name}_{param}") for param, _ in bindings
                   if param in _parameters(definition)}
        renames.update({local: self.names.fresh(f"{name}_{local}") for local in
                        _locals(definition) if local not in renames})
        out = [gast.copy_location(ir.assign(renames.get(param, param), value), stmt)
               for param, value in bindings]
        inner = gast.FunctionDef(name=name, args=definition.args, body=body, decorator_list=[],
                                 returns=None, type_comment=None, type_params=[])
        gast.copy_location(inner, definition)
        desugar(inner, self.names.fresh, self.resolve)  # one return, at the end
        result = self.names.fresh(f"{name}_result")
        statements, value, where = inner.body, ir.const(None), stmt
        if statements and isinstance(statements[-1], gast.Return):
            where = statements.pop()
            value = where.value if where.value is not None else value
        statements.append(gast.copy_location(ir.assign(result, value), where))
        _Rename(renames).visit_all(statements)
        self.active.append(name)
        try:
            statements = self._block(statements)
        finally:
            self.active.pop()
        return out + statements, result

    def _bind(self, definition, defaults, call, stmt):
        """(parameter, value expression) pairs of a call of a local function."""
        args = definition.args
        positional = [a.id for a in args.posonlyargs + args.args]
        if len(call.args) > len(positional) and args.vararg is None or any(
                isinstance(a, gast.Starred) for a in call.args):
            raise UnsupportedError(f"too many arguments, or *args, in a call of the local "
                                   f"function {definition.name!r}", self.location(stmt))
        values = dict(zip(positional, call.args))
        extra = call.args[len(positional):]
        for keyword in call.keywords:
            if keyword.arg is None:
                raise UnsupportedError("**kwargs in a call of a local function",
                                       self.location(stmt), "pass arguments by name")
            values[keyword.arg] = keyword.value
        bindings = []
        for param in positional + [a.id for a in args.kwonlyargs]:
            if param in values:
                bindings.append((param, values[param]))
            elif param in defaults:
                bindings.append((param, ir.name(defaults[param])))
            else:
                raise UnsupportedError(f"the call of {definition.name!r} gives no value for "
                                       f"{param!r}", self.location(stmt))
        return bindings, extra


def _as_definition(stmt):
    """The FunctionDef a statement defines a local function with (`def g` or `g = lambda`)."""
    if isinstance(stmt, gast.FunctionDef) and not stmt.decorator_list:
        return stmt
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
            isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Lambda):
        body = [gast.copy_location(gast.Return(value=stmt.value.body), stmt)]
        return gast.copy_location(gast.FunctionDef(
            name=stmt.targets[0].id, args=stmt.value.args, body=body, decorator_list=[],
            returns=None, type_comment=None, type_params=[]), stmt)
    return None


def _parameters(definition):
    args = definition.args
    return {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}


def _locals(definition):
    """The names a local function binds itself (not those it reads from the enclosing one,
    nor those it declares nonlocal: it writes those of the enclosing function)."""
    nonlocal_names = {n for node in gast.walk(definition) if isinstance(node, gast.Nonlocal)
                      for n in node.names}
    return {n.id for stmt in definition.body for n in gast.walk(stmt)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)} - nonlocal_names


def _post_order_calls(node, wanted):
    """The calls in `node` that `wanted` picks, innermost (first evaluated) first."""
    found = []
    for child in gast.iter_child_nodes(node):
        if not isinstance(child, (gast.Lambda, gast.ListComp, gast.GeneratorExp, gast.SetComp,
                                  gast.DictComp)):
            found += _post_order_calls(child, wanted)
    return found + [node] if wanted(node) else found


def _replace(root, old, new):
    for node in gast.walk(root):
        for field, value in gast.iter_fields(node):
            if value is old:
                setattr(node, field, new)
            elif isinstance(value, list):
                value[:] = [new if item is old else item for item in value]


class _Substitute(gast.NodeTransformer):
    """Puts a copy of expression `value` wherever name `name` is read."""

    def __init__(self, name, value):
        self.name, self.value = name, value

    def visit_Name(self, node):
        if node.id == self.name and isinstance(node.ctx, gast.Load):
            return copy.deepcopy(self.value)
        return node

    def visit_all(self, statements):
        statements[:] = [self.visit(s) for s in statements]


class _Rename(gast.NodeTransformer):
    def __init__(self, names):
        self.names = names

    def visit_Name(self, node):
        node.id = self.names.get(node.id, node.id)
        return node

    def visit_Nonlocal(self, node):
        return None  # the names it declares are the enclosing function's: written directly

    def visit_all(self, statements):
        statements[:] = [s for s in (self.visit(s) for s in statements) if s is not None]


def _maps_to_comprehensions(func, resolve):
    """`map(g, a, b)` is `[g(x, y) for x, y in zip(a, b)]` (a list where Python makes an
    iterator: what a for loop or np.stack take of it is the same; list(map(...)) too)."""
    def is_map(item):
        return isinstance(item, gast.Call) and resolve(item.func) is map and \
            len(item.args) >= 2 and not item.keywords

    for node in list(gast.walk(func)):
        for field, value in gast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            for k, item in enumerate(items):
                if isinstance(item, gast.Call) and resolve(item.func) is list and \
                        len(item.args) == 1 and is_map(item.args[0]):
                    item = item.args[0]
                elif not is_map(item):
                    continue
                function, *sequences = item.args
                elements = [ir.name(f"_map_item{j}", store=True) for j in range(len(sequences))]
                target = elements[0] if len(elements) == 1 else gast.Tuple(elts=elements,
                                                                          ctx=gast.Store())
                source = sequences[0] if len(sequences) == 1 else ir.call("zip", *sequences)
                call = gast.Call(func=function, args=[ir.name(e.id) for e in elements],
                                 keywords=[])
                comprehension = gast.copy_location(gast.ListComp(elt=call, generators=[
                    gast.comprehension(target=target, iter=source, ifs=[], is_async=0)]), item)
                if isinstance(value, list):
                    value[k] = comprehension
                else:
                    setattr(node, field, comprehension)
