"""Inlining one call of a local function: its parameters bound to the call's arguments
(`*args` and `**kwargs` as displays), its locals renamed apart, its body desugared to end in a
single return whose value a fresh name takes; local functions it returns become the caller's."""

import inspect
import re

import gast

from . import ir
from .container_facts import spread_keyword_displays
from .desugar import desugar
from .errors import UnsupportedError
from .function_aliases import call_partials
from .statics import is_function_value


class CallInlining:
    """The inlining of one call, for the Inliner (inline.py), which provides the local
    functions, fresh names and locations these methods use."""

    def _inline(self, call, stmt):
        """(statements computing the call's result, the name holding it)."""
        name = call.func.id
        self._check_inlinable(name, call, stmt)
        definition, defaults = self.local[name]
        call, checks = _spread(definition, call, stmt)
        call, keys_checked = _spread_keywords(definition, call, stmt)
        checks += keys_checked
        body = ir.copy_tree(definition.body)
        prefix = self._prefix(name)
        bindings = self._bind_packed(
            definition, body, prefix, *self._bind(definition, defaults, call, stmt)
        )
        made = self._name_functions_made(bindings, prefix, stmt)
        passed, picked = self._functions_passed(bindings, definition, body, stmt)
        renames = self._renames(prefix, bindings, passed, definition)
        self._own(renames, body)
        out = (
            checks
            + made
            + [
                gast.copy_location(ir.assign(renames.get(param, param), value), stmt)
                for param, value in bindings
                if param not in passed
            ]
        )
        inner = ir.function_def(name, definition.args, body)
        gast.copy_location(inner, definition)
        desugar(inner, self.names.fresh, self.resolve)  # one return, at the end
        result = self._given(self.names.named(f"{prefix}_result"))
        statements, value, where = inner.body, ir.const(None), stmt
        if statements and isinstance(statements[-1], gast.Return):
            where = statements.pop()
            value = where.value if where.value is not None else value
        statements.append(gast.copy_location(ir.assign(result, value), where))
        Rename(renames).visit_all(statements)
        for param, value in picked:  # (read where called, as a function named there is)
            Substitute(renames[param], value).visit_all(statements)
        call_partials(statements, self.partial_calls)
        statements = self._take_returned(name, statements, result)
        self.active.append(name)
        try:
            statements = self._block(statements)
        finally:
            self.active.pop()
        return out + statements, result

    def _functions_passed(self, bindings, definition, body, stmt):
        """The parameters bound to functions, and the name each is called by: a local
        function or partial passed in by its own name (then inlined in turn); a function the
        code names (np.tanh, a global one) is substituted into body as itself (None); and
        (param, value) of the items or attributes (`FS[i]`, `cfg["act"]`, `model.apply`) the
        body calls, to put where the parameter is read once its locals are renamed."""
        passed = {
            param: value.id
            for param, value in bindings
            if isinstance(value, gast.Name)
            and (value.id in self.local or value.id in self.partial_calls)
        }
        picked = []
        for param, value in bindings:
            if param in passed or param in local_names(definition):
                continue
            if is_function_value(self.resolve(value)):
                Substitute(param, value).visit_all(body)
                passed[param] = None
            elif _is_path(value) and _calls(body, param) and not _writes_enclosing(body):
                picked.append((param, value))
                passed[param] = None
            elif self._chosen_as_it_runs(value) and _calls(body, param):
                raise UnsupportedError(
                    f"{definition.name}(...) calls its parameter {param!r}, passed "
                    f"{gast.unparse(value)} here: srcdiff cannot tell which function that is "
                    "before the call runs",
                    self.location(stmt),
                    "make the call in each branch of an if statement"
                    if isinstance(value, (gast.IfExp, gast.BoolOp))
                    else "pass the function by its name",
                )
        return passed, picked

    def _chosen_as_it_runs(self, value):
        """Whether `value` picks a function only as the code runs: `g if c else h`, or
        what a function of the user's returns (one returning a local function is inlined
        before: its result is then that function's name)."""
        return isinstance(value, (gast.IfExp, gast.BoolOp)) or (
            isinstance(value, gast.Call) and inspect.isfunction(self.resolve(value.func))
        )

    def _renames(self, prefix, bindings, passed, definition):
        """The name each parameter and local of the definition takes where it is inlined."""
        renames = {
            param: passed.get(param) or self._inlined_name(prefix, param, definition)
            for param, _ in bindings
            if param in parameter_names(definition)
        }
        renames.update(
            {
                local: self._inlined_name(prefix, local, definition)
                for local in sorted(local_names(definition))
                if local not in renames
            }
        )
        return renames

    def _inlined_name(self, prefix, local, definition):
        """The name a parameter or local of an inlined call takes: `g_local` (numbered only
        if that is in use); the name an inlining gave it already, inside this definition,
        kept at the definition's first inlining (so that nested inlining does not pile up
        prefixes: `unflatten_size`, not `unflatten_flatten_size`)."""
        if self.owners.get(local) == id(definition):
            del self.owners[local]  # (a second inlining of it names its locals anew)
            return local
        if local in self.owners:  # (another inlining of code inlined before: numbered anew)
            return self.names.numbered(re.sub(r"_[0-9]+$", "", local))
        return self.names.named(f"{prefix}_{local}")

    def _given(self, name):
        """`name`, given by an inlining into this function's own code."""
        self.owners[name] = id(self.func)
        return name

    def _own(self, renames, body):
        """Record where the names just given end up: in the local function defined in the
        inlined `body` that binds them, else in the code of the function inlined into."""
        nested = {
            local: id(node)
            for stmt in body
            for node in ir.walk(stmt)
            if isinstance(node, gast.FunctionDef)
            for local in local_names(node)
        }
        for local, given in renames.items():
            if (given != local or local not in self.owners) and given not in self.local:
                self.owners[given] = nested.get(local, id(self.func))

    def _check_inlinable(self, name, call, stmt):
        if name in self.active:
            raise UnsupportedError(
                f"the local function {name!r} calls itself (recursion)",
                self.location(stmt),
                "write the recursion as a loop",
            )
        if name in self.generators and id(call) not in self.iterated:
            raise UnsupportedError(
                f"the generator {name!r} is called where its items are not all looped over: "
                "srcdiff differentiates a generator as the list of what it yields",
                self.location(stmt),
                f"loop over it (for item in {name}(...)), or build and return a list",
            )

    def _bind_packed(self, definition, body, prefix, bindings, extra, named):
        """`bindings` with the values packed into *args and **kwargs, each bound to a name
        of its own; in `body`, *args becomes a tuple display of those names, **kwargs a
        dict display."""
        if definition.args.vararg is not None:
            vararg = definition.args.vararg.id
            items = [
                self._given(self.names.named(f"{prefix}_{vararg}{k}")) for k in range(len(extra))
            ]  # (args0: args[0])
            Substitute(
                vararg, gast.Tuple(elts=[ir.name(i) for i in items], ctx=gast.Load())
            ).visit_all(body)
            bindings = bindings + list(zip(items, extra))
        if definition.args.kwarg is not None:
            kwarg = definition.args.kwarg.id
            items = [self._given(self.names.named(f"{prefix}_{key}")) for key in named]
            Substitute(
                kwarg,
                gast.Dict(keys=[ir.const(k) for k in named], values=[ir.name(i) for i in items]),
            ).visit_all(body)
            bindings = bindings + list(zip(items, named.values()))
        return bindings

    def _take_returned(self, name, statements, result):
        """The inlined statements without the local functions the call returns (defined
        first in them): those become this function's, named apart, and the result names
        them (or, for a tuple, its items do); so does a partial it returns."""
        kept = [s for s in statements if isinstance(s, gast.FunctionDef)]
        renames = {d.name: self.names.fresh(f"{name}_{d.name}") for d in kept}
        statements = [s for s in statements if not isinstance(s, gast.FunctionDef)]
        Rename(renames).visit_all(statements)
        for definition in kept:
            Rename(renames).visit(definition)
            definition.name = renames[definition.name]
            self.local[definition.name] = (definition, {})
        chain = copies_of(statements, statements[-1])
        value = chain[-1].value
        if isinstance(value, gast.Name) and value.id in self.local:
            self.local[result] = self.local[value.id]
            statements = [s for s in statements if not any(s is c for c in chain)]
        elif isinstance(value, gast.Name) and value.id in self.partial_calls:
            self.partial_calls[result] = self.partial_calls[value.id]
            statements = [s for s in statements if not any(s is c for c in chain)]
        elif isinstance(value, (gast.Tuple, gast.List)):
            functions = {
                k: e.id
                for k, e in enumerate(value.elts)
                if isinstance(e, gast.Name) and e.id in self.local
            }
            for k in functions:
                value.elts[k] = ir.const(None)
            if functions:
                self.returned[result] = functions
        return statements

    def _bind(self, definition, defaults, call, stmt):
        """(parameter, value expression) pairs of a call of a local function."""
        args = definition.args
        positional = [a.id for a in args.posonlyargs + args.args]
        if (
            len(call.args) > len(positional)
            and args.vararg is None
            or any(isinstance(a, gast.Starred) for a in call.args)
        ):
            raise UnsupportedError(
                f"too many arguments, or *args, in a call of the local "
                f"function {definition.name!r}",
                self.location(stmt),
            )
        values = dict(zip(positional, call.args))
        extra, named = call.args[len(positional) :], {}
        for keyword in spread_keyword_displays(call.keywords):
            if keyword.arg is None:
                raise UnsupportedError(
                    "**kwargs in a call of a local function",
                    self.location(stmt),
                    "pass arguments by name",
                )
            if keyword.arg in positional + [a.id for a in args.kwonlyargs] or args.kwarg is None:
                values[keyword.arg] = keyword.value
            else:
                named[keyword.arg] = keyword.value
        bindings = []
        for param in positional + [a.id for a in args.kwonlyargs]:
            if param in values:
                bindings.append((param, values[param]))
            elif param in defaults:  # (held in a name, or a module function's expression)
                default = defaults[param]
                bindings.append(
                    (
                        param,
                        ir.name(default) if isinstance(default, str) else ir.copy_tree(default),
                    )
                )
            else:
                raise UnsupportedError(
                    f"the call of {definition.name!r} gives no value for {param!r}",
                    self.location(stmt),
                )
        return bindings, extra, named


def _spread(definition, call, stmt):
    """(the call with `*pieces`, a name, spread over the parameters it fills, as in
    `layer(*p, h)` of `def layer(W, b, x)`: p[0], p[1]; the check that there are that many
    as it runs), where those parameters count them (no default, no *args); else (call, [])."""
    args = definition.args
    starred = [a for a in call.args if isinstance(a, gast.Starred)]
    if (
        len(starred) != 1
        or not isinstance(starred[0].value, gast.Name)
        or args.vararg is not None
        or args.defaults
        or call.keywords
    ):
        return call, []
    count = len(args.posonlyargs + args.args) - (len(call.args) - 1)
    if count < 1:
        return call, []
    pieces = starred[0].value.id
    spread = [
        gast.Subscript(value=ir.name(pieces), slice=ir.const(k), ctx=gast.Load())
        for k in range(count)
    ]
    given = [p for a in call.args for p in (spread if a is starred[0] else [a])]
    check = ir.call(ir.attr("runtime", "check_unpack"), ir.name(pieces), ir.const(count))
    spread_call = gast.copy_location(gast.Call(func=call.func, args=given, keywords=[]), call)
    return spread_call, [gast.copy_location(ir.expr_stmt(check), stmt)]


def _spread_keywords(definition, call, stmt):
    """(the call with `**d` passed as the parameters it fills, as in `k(x, x, **hyper)` of
    `def k(a, b, scale, var)`: scale=hyper['scale'], var=hyper['var']; the check that d has
    those keys as it runs), where d is a name or a path from one; else (call, [])."""
    args = definition.args
    spread = [k for k in call.keywords if k.arg is None]
    if (
        len(spread) != 1
        or not (isinstance(spread[0].value, gast.Name) or _is_path(spread[0].value))
        or args.kwarg is not None
        or any(isinstance(a, gast.Starred) for a in call.args)
    ):
        return call, []
    given = {k.arg for k in call.keywords}
    filled = max(0, len(call.args) - len(args.posonlyargs))  # (positional parameters given)
    names = [a.id for a in args.args[filled:] + args.kwonlyargs if a.id not in given]
    if not names:
        return call, []
    items = spread[0].value
    listed = gast.Tuple(elts=[ir.const(n) for n in names], ctx=gast.Load())
    check = ir.call(ir.attr("runtime", "check_keys"), ir.copy_tree(items), listed)
    keywords = [k for k in call.keywords if k.arg is not None] + [
        gast.keyword(
            arg=n,
            value=gast.Subscript(value=ir.copy_tree(items), slice=ir.const(n), ctx=gast.Load()),
        )
        for n in names
    ]
    spread_call = gast.copy_location(
        gast.Call(func=call.func, args=call.args, keywords=keywords), call
    )
    return spread_call, [gast.copy_location(ir.expr_stmt(check), stmt)]


def _is_path(node):
    """Whether `node` is an item or attribute path from a name, by names or constants."""
    if not isinstance(node, (gast.Attribute, gast.Subscript)):
        return False
    while isinstance(node, (gast.Attribute, gast.Subscript)):
        if isinstance(node, gast.Subscript) and not isinstance(
            node.slice, (gast.Name, gast.Constant)
        ):
            return False
        node = node.value
    return isinstance(node, gast.Name)


def _calls(body, name):
    return any(
        isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id == name
        for stmt in body
        for n in ir.walk(stmt)
    )


def _writes_enclosing(body):
    """Whether an inlined body may change the caller's names (what a path reads)."""
    return any(isinstance(n, (gast.Nonlocal, gast.Global)) for s in body for n in ir.walk(s))


def copies_of(statements, assignment):
    """`assignment` and the assignments that made the value it copies (`r = _t` after
    `_t = v`, for names bound once in `statements`), the first made last."""
    chain = [assignment]
    while isinstance(assignment.value, gast.Name):
        name = assignment.value.id
        made = [
            s
            for s in statements
            if isinstance(s, gast.Assign)
            and any(isinstance(t, gast.Name) and t.id == name for t in s.targets)
        ]
        bound = [
            n
            for s in statements
            for n in ir.walk(s)
            if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Store)
        ]
        if len(made) != 1 or len(bound) != 1 or len(made[0].targets) != 1:
            break
        assignment = made[0]
        chain.append(assignment)
    return chain


def parameter_names(definition):
    args = definition.args
    return {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}


def local_names(definition):
    """The names a local function binds itself (not those it reads from the enclosing one,
    nor those it declares nonlocal: it writes those of the enclosing function)."""
    nonlocal_names = {
        n for node in ir.walk(definition) if isinstance(node, gast.Nonlocal) for n in node.names
    }
    return {
        n.id
        for stmt in definition.body
        for n in ir.walk(stmt)
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)
    } - nonlocal_names


class Substitute(gast.NodeTransformer):
    """Puts a copy of expression `value` wherever name `name` is read."""

    def __init__(self, name, value):
        self.name, self.value = name, value

    def visit_Name(self, node):
        if node.id == self.name and isinstance(node.ctx, gast.Load):
            return ir.copy_tree(self.value)
        return node

    def visit_all(self, statements):
        statements[:] = [self.visit(s) for s in statements]


class Rename(gast.NodeTransformer):
    def __init__(self, names):
        self.names = names

    def visit_Name(self, node):
        node.id = self.names.get(node.id, node.id)
        return node

    def visit_Nonlocal(self, node):
        return None  # the names it declares are the enclosing function's: written directly

    def visit_all(self, statements):
        statements[:] = [s for s in (self.visit(s) for s in statements) if s is not None]
