"""Adjoint templates: Python functions whose bodies *are* the adjoint, as in Tangent.

A template for a primitive `f(x, y, axis=None)` reads

    @adjoint(f)
    def f_adjoint(bz, z, x, y, axis=None):
        bx = <expression of bz, z, x, y, axis>
        by = ...

`bz` is the adjoint of the output `z`. When the reverse transform meets `out = f(a, b)` it binds
the template's parameters to the call's arguments and substitutes names into each expression.
A parameter that takes a sequence (`*arrays`, or a list literal at the call site) is written with
an element index: `barrays[i] = ... i ...` gives one contribution per element.
An optional parameter left out at the call site drops out of every keyword argument it feeds,
so `np.sum(x)` yields `runtime.unreduce(bz, x)` rather than `..., axis=None, keepdims=False)`.
"""

import ast
import builtins
import dis
import inspect
import os
import sys

import gast
import numpy as np

from . import conversion, ir, runtime, text_signatures, wrappers
from .errors import Location, TemplateError

_TEMPLATE_GLOBALS = {"np", "runtime"}
_PACKAGE = os.path.dirname(os.path.abspath(__file__))


class Rule:
    """One adjoint expression: the contribution to parameter `param` (per element if `index`)."""

    def __init__(self, param, expr, index):
        self.param, self.expr, self.index = param, expr, index


class Template:
    """An adjoint template (`kind="adjoint"`: statements `b<param> = ...`) or a tangent
    template (`kind="tangent"`: statements `dz = <expression of d<param>>`, one per
    parameter, summed when several parameters carry tangents)."""

    # what reading the template's source gives (`_read`); a lazy template reads it on first use
    _READ = frozenset(
        {
            "source",
            "adjoint_param",
            "output_param",
            "signature",
            "params",
            "sequence_params",
            "rules",
            "constant",
            "globals",
        }
    )

    def __init__(
        self,
        primals,
        fn,
        kind="adjoint",
        constant=(),
        lazy=False,
        widens=False,
        aliases=(),
        integral=frozenset(),
    ):
        """`lazy`: read and check the source only when the template is first used (srcdiff's
        own hundreds of templates, so that importing srcdiff stays cheap); a user's template
        is checked now, so a mistake fails where it is registered. `widens` and `aliases` (its
        keyword_aliases): see Primitive. `integral`: names of parameters the library takes
        only as ints, bools or strings, constant where the template gives them no rule."""
        self.kind, self.fn, self.primals, self.widens = kind, fn, tuple(primals), widens
        self.integral = frozenset(integral)
        self.aliases = tuple(aliases)
        self.renamed = {template: numpy for numpy, template in aliases}
        self.module_globals = fn.__globals__
        self.lazy = lazy
        self._declared_constant = set(constant)
        if not lazy:
            self._read()

    def __getattr__(self, name):  # only for what is missing: a lazy template not read yet
        if name in Template._READ and "rules" not in self.__dict__:
            if name == "globals" and not _module_names(self.fn):
                return {}  # (template_globals asks every template: no need to read them)
            self._read()
            return self.__dict__[name]
        raise AttributeError(name)

    @property
    def description(self):
        """What the cache key says of this template: its source, or for one of srcdiff's own
        the name alone (its source is part of the transformer's digest already)."""
        if self.lazy and self.fn.__code__.co_filename.startswith(_PACKAGE):
            return f"{self.fn.__module__}.{self.fn.__qualname__}"
        return self.source

    def _read(self):
        fn, kind = self.fn, self.kind
        self.constant = set(self._declared_constant)  # args that matter by shape or as a mask
        lines, first, tree = wrappers.source_and_tree(fn)
        self.source = wrappers.dedented(lines)
        if tree is None:  # (inspect read the lines)
            tree = ast.parse(wrappers.numbered(lines, first))
        node = tree.body[0]  # (an ast FunctionDef: only its statements are made gast)

        written = self.source.splitlines()
        filename = fn.__code__.co_filename  # (a module's: inspect would look it up again)
        if not filename.endswith(".py"):
            filename = inspect.getsourcefile(fn) or "<template>"

        def where(n):
            line = written[n.lineno - first] if 0 <= n.lineno - first < len(written) else ""
            return Location(filename, n.lineno, line)

        sig = inspect.signature(fn)
        params = list(sig.parameters.values())
        if len(params) < 2:
            raise TemplateError(
                "an adjoint template starts with the output's adjoint and the "
                "output, e.g. def f_adjoint(bz, z, x)",
                where(node),
            )
        self.adjoint_param, self.output_param = params[0].name, params[1].name
        self.signature = sig.replace(parameters=params[2:])
        self.params = [p.name for p in params[2:]]
        self.sequence_params = {p.name for p in params[2:] if p.kind is p.VAR_POSITIONAL}
        if not self.lazy:  # (srcdiff's own are checked by its tests, which read each eagerly)
            for primal in self.primals:
                _check_arity(primal, self.signature, where(node), self.renamed)
        unknown = self.constant - set(self.params)
        if unknown:
            raise TemplateError(f"constant= names no parameter: {sorted(unknown)}", where(node))

        self.globals = {}  # names a user template takes from its module (emitted code needs them)
        rules = {}
        for stmt in node.body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue  # docstring
            parse = self._parse_rule if kind == "adjoint" else self._parse_tangent_rule
            rule = parse(conversion.ast_to_gast(stmt), where(stmt))
            if rule.param in rules:
                raise TemplateError(
                    f"two {kind} expressions for parameter {rule.param!r}", where(stmt)
                )
            rules[rule.param] = rule
        if any(runtime.is_helper(primal) for primal in self.primals):
            # a helper of emitted code: what has no rule is a shape, an axis or an index, which
            # a higher derivative may still see as varied (an int unpacked from saved values)
            self.constant |= set(self.params) - set(rules)
        # (an axis or a shape seen as varied: an int unpacked beside arrays from one list)
        self.constant |= (self.integral & set(self.params)) - set(rules)
        self.rules = rules  # last: a template whose reading failed stays unread

    def _parse_rule(self, stmt, loc):
        shape_hint = "each statement must read `b<param> = expr` or `b<param>[i] = expr`"
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1):
            raise TemplateError("unexpected statement in an adjoint template", loc, shape_hint)
        target, index = stmt.targets[0], None
        if isinstance(target, gast.Subscript):
            if not isinstance(target.slice, gast.Name):
                raise TemplateError("an element rule is indexed by a plain name", loc, shape_hint)
            index, target = target.slice.id, target.value
        if not (
            isinstance(target, gast.Name)
            and target.id.startswith("b")
            and target.id[1:] in self.params
        ):
            raise TemplateError(
                f"adjoint target {gast.unparse(stmt.targets[0])!r} names no parameter of the "
                f"template (parameters: {', '.join(self.params)})",
                loc,
                shape_hint,
            )
        known = set(self.params) | {self.adjoint_param, self.output_param} | _TEMPLATE_GLOBALS
        if index:
            known.add(index)
        for name in ir.walk(stmt.value):
            if isinstance(name, gast.Name) and name.id not in known:
                self._module_name(name.id, loc, "adjoint")
        value = stmt.value
        if not self.lazy and self._may_broadcast(value):
            # a user's rule written with numpy's operations is summed to its value's shape, as
            # autograd's are: else a broadcast result, added into another adjoint, would count
            # again for each copy (runtime.as_grad refuses what is left wider than its value)
            of = ir.name(target.id[1:])
            if index:
                of = gast.Subscript(value=of, slice=ir.name(index), ctx=gast.Load())
            value = ir.call("runtime.unbroadcast", value, of)
        return Rule(target.id[1:], value, index)

    def _may_broadcast(self, value):
        """Whether a user's rule may give more than its value's shape: not one that sums it
        itself, nor a call of a function of the user's module written for it (nn.py's
        conv2d_weight_grad), which is taken to give that shape."""
        if _is_unbroadcast(value):
            return False
        called = value.func if isinstance(value, gast.Call) else None
        return not (
            isinstance(called, gast.Name)
            and called.id not in _TEMPLATE_GLOBALS
            and callable(self.module_globals.get(called.id))
            and getattr(self.module_globals[called.id], "__module__", None)
            == self.module_globals.get("__name__")
        )

    def _parse_tangent_rule(self, stmt, loc):
        hint = (
            f"each statement must read `{self.adjoint_param} = expr` (or "
            f"`{self.adjoint_param}[i] = expr`), expr using one tangent d<param>"
        )
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1):
            raise TemplateError("unexpected statement in a tangent template", loc, hint)
        target, index = stmt.targets[0], None
        if isinstance(target, gast.Subscript) and isinstance(target.slice, gast.Name):
            index, target = target.slice.id, target.value
        if not (isinstance(target, gast.Name) and target.id == self.adjoint_param):
            raise TemplateError(f"a tangent template assigns {self.adjoint_param!r}", loc, hint)
        names = {n.id for n in ir.walk(stmt.value) if isinstance(n, gast.Name)}
        used = [p for p in self.params if "d" + p in names]
        if len(used) != 1:
            raise TemplateError(
                f"a tangent expression must use exactly one of "
                f"{', '.join('d' + p for p in self.params)}",
                loc,
                hint,
            )
        known = (
            set(self.params)
            | {self.output_param, "d" + used[0]}
            | _TEMPLATE_GLOBALS
            | ({index} if index else set())
        )
        for name in names - known:
            self._module_name(name, loc, "tangent")
        return Rule(used[0], stmt.value, index)

    def _module_name(self, name, loc, kind):
        """Accept a builtin or a name defined in the template's module (recorded, so emitted
        code can see it); anything else is an error now, not when the template is used."""
        if hasattr(builtins, name):
            return
        if name not in self.module_globals:
            raise TemplateError(
                f"unknown name {name!r} in an {kind} template",
                loc,
                "templates may use their parameters, np, runtime, and names "
                "defined in their module",
            )
        self.globals[name] = self.module_globals[name]

    def bind(self, args, keywords):
        """Map the call's argument nodes to template parameters (TypeError if they do not fit)."""
        layout = self.__dict__.get("_positional") or self._positional_layout()
        names, required = layout
        if not keywords and names is not None and required <= len(args) <= len(names):
            return dict(zip(names, args))  # (what Signature.bind gives, at a third of its cost)
        bound = self.signature.bind(*args, **keywords)
        values = dict(bound.arguments)
        for name in self.sequence_params & set(values):
            values[name] = gast.Tuple(elts=list(values[name]), ctx=gast.Load())
        return values

    def _positional_layout(self):
        """(the names of the parameters arguments bind to by position, how many of them a
        call must pass), where a call passing only those binds them in order: no *args, no
        keyword-only parameter without a default; else (None, 0)."""
        params = self.signature.parameters.values()
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        plain = not any(
            p.kind is p.VAR_POSITIONAL or p.kind is p.KEYWORD_ONLY and p.default is p.empty
            for p in params
        )
        required = sum(p.default is p.empty for p in positional)
        layout = (tuple(p.name for p in positional), required) if plain else (None, 0)
        self._positional = layout
        return layout

    def instantiate(self, rule, bound, output, adjoint, element=None, tangent=None, fold=None):
        """The expression for `rule` with the call's names substituted in (for a tangent
        rule, `tangent` is the expression for d<param>). `fold`: passes/fold.py's `folded`,
        to fold it as it is made (children first, as fold does), else not yet folded."""
        mapping = dict(bound)
        mapping[self.output_param] = output
        if adjoint is not None:
            mapping[self.adjoint_param] = adjoint
        if tangent is not None:
            mapping["d" + rule.param] = tangent
        if rule.index is not None:  # an item's number, or a name holding it
            mapping[rule.index] = (
                element
                if isinstance(element, gast.AST)
                else gast.Constant(value=element, kind=None)
            )
        defaults = {p: self.signature.parameters[p].default for p in self.params if p not in bound}
        expr = rule.expr
        others = [bound[p] for p in self.params if p in bound and p != rule.param]
        if others and all(_is_number(v) for v in others) and not self.widens:
            expr = _drop_unbroadcast(expr)
        return _Substitute(mapping, defaults, self.module_globals, fold).visit(expr)


def _module_names(fn):
    """The names fn's code reads from its module other than np, runtime and builtins: the
    only ones a template may take from there (most take none)."""
    code = fn.__code__
    if not any(
        name in fn.__globals__ and name not in _TEMPLATE_GLOBALS for name in code.co_names
    ):  # (a quick look first: co_names has attribute names too)
        return []
    return [
        name
        for name in _global_loads(code)
        if name in fn.__globals__ and name not in _TEMPLATE_GLOBALS and not hasattr(builtins, name)
    ]


def _global_loads(code):
    """The names of code's LOAD_GLOBAL instructions, in order, read off its bytecode as dis
    does but without an Instruction object each (template_globals asks this of every one of
    srcdiff's templates): bytes.find over the opcodes (co_code's even bytes) finds them, an
    EXTENDED_ARG before one giving its argument's high bytes. co_code has its inline caches
    zeroed: they read as no-ops."""
    raw, names = code.co_code, []
    opcodes = raw[::2]
    found = opcodes.find(_LOAD_GLOBAL)
    while found != -1:
        arg, before, shift = raw[2 * found + 1], found - 1, 8
        while before >= 0 and opcodes[before] == dis.EXTENDED_ARG:
            arg |= raw[2 * before + 1] << shift
            before, shift = before - 1, shift + 8
        # (from 3.11 its low bit says whether NULL is pushed too)
        names.append(code.co_names[arg >> 1 if sys.version_info >= (3, 11) else arg])
        found = opcodes.find(_LOAD_GLOBAL, found + 1)
    return names


_LOAD_GLOBAL = dis.opmap["LOAD_GLOBAL"]


def _check_arity(primal, signature, loc, renamed):
    positional = [
        p
        for p in signature.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    if isinstance(primal, np.ufunc):
        required = [p for p in positional if p.default is p.empty]
        if len(required) != primal.nin:
            raise TemplateError(
                f"{primal.__name__} takes {primal.nin} array argument(s) but the "
                f"template declares {len(required)}",
                loc,
            )
        return
    try:
        primal_params = inspect.signature(primal).parameters
    except (TypeError, ValueError):
        return
    kinds = {p.kind for p in primal_params.values()}
    if inspect.Parameter.VAR_KEYWORD in kinds:
        return
    # (a positional-only parameter's name is not numpy's to keep: np.float64's was x, then value)
    by_position = [p.kind is p.POSITIONAL_ONLY for p in primal_params.values()]
    for position, (name, p) in enumerate(signature.parameters.items()):
        if p.kind is p.VAR_POSITIONAL:
            if inspect.Parameter.VAR_POSITIONAL not in kinds:
                raise TemplateError(f"{primal.__name__} takes no *{name}", loc)
        elif renamed.get(name, name) not in primal_params and not (
            position < len(by_position) and by_position[position]
        ):
            raise TemplateError(
                f"{getattr(primal, '__name__', primal)} has no parameter "
                f"{name!r}; template parameters after the output must match "
                f"its signature ({', '.join(primal_params)})",
                loc,
            )
    missing = [
        n
        for position, (n, p) in enumerate(primal_params.items())
        if p.default is p.empty
        and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        and n not in signature.parameters
        and not (p.kind is p.POSITIONAL_ONLY and position < len(signature.parameters))
    ]
    if missing:
        raise TemplateError(f"the template leaves out required parameter(s) {missing}", loc)


class _Substitute:
    """Makes a copy of a rule with the call's expressions put in for the template's names
    (each template instance is one: copied, substituted and folded in one direct recursion;
    `fold` applied to each node made, its children first)."""

    def __init__(self, mapping, defaults, scope, fold=None):
        self.mapping, self.defaults, self.scope, self.fold = mapping, defaults, scope, fold

    def visit(self, node):
        kind = node.__class__
        if kind is gast.Name and node.id in self.mapping:
            value = self.mapping[node.id]
            if self.fold is None or value.__class__ is gast.Name:  # (a Name folds to itself)
                return ir.copy_tree(value)
            return _Substitute({}, {}, self.scope, self.fold).visit(value)
        if kind is gast.Name:
            made = (
                gast.Constant(value=self.defaults[node.id], kind=None)
                if node.id in self.defaults
                else ir.copy_tree(node)
            )
        elif kind in ir.FIELDLESS:  # (a context, an operator: nothing in it, no fold rule)
            return kind.__new__(kind)
        else:
            made = kind.__new__(kind)
            fields = made.__dict__
            for field, value in node.__dict__.items():
                if value.__class__ is list:
                    if kind is gast.Call and field == "keywords":
                        value = [k for k in value if not self._callee_default(node.func, k)]
                    fields[field] = [
                        self.visit(item) if isinstance(item, gast.AST) else item for item in value
                    ]
                elif isinstance(value, gast.AST):
                    fields[field] = self.visit(value)
                else:  # (a rule's nodes hold numbers and strings: parsed from its source)
                    fields[field] = value
        return made if self.fold is None else self.fold(made)

    def _callee_default(self, func, keyword):
        """Whether `keyword` passes a template default the callee itself has (so it can go):
        the callee's defaults, not the template's, decide (numpy's change between versions)."""
        if not (isinstance(keyword.value, gast.Name) and keyword.value.id in self.defaults):
            return False
        own = _defaults_of(ir.dotted(func), self.scope).get(keyword.arg, inspect.Parameter.empty)
        wanted = self.defaults[keyword.value.id]
        return own is np._NoValue or (type(own) is type(wanted) and own == wanted)


_DEFAULTS = {}


def _defaults_of(path, scope):
    """{parameter: default} of the function the dotted `path` (np, linalg, norm) names in
    `scope`; {} for what it cannot name (a method of a value, say): keep every keyword."""
    key = (path, id(scope))
    if key not in _DEFAULTS:
        _DEFAULTS[key] = {}
        found = scope.get(path[0], getattr(builtins, path[0], None)) if path else None
        for attr in (path or ())[1:]:
            found = getattr(found, attr, None)
        try:
            parameters = text_signatures.signature(found).parameters
            _DEFAULTS[key] = {name: p.default for name, p in parameters.items()}
        except (TypeError, ValueError):
            pass
    return _DEFAULTS[key]


def _is_number(node):
    return isinstance(node, gast.Constant) and type(node.value) in (int, float)


def _is_unbroadcast(expr):
    return (
        isinstance(expr, gast.Call)
        and isinstance(expr.func, gast.Attribute)
        and expr.func.attr == runtime.unbroadcast.__name__
    )


def _drop_unbroadcast(expr):
    """unbroadcast(g, x) is g when every other operand is a Python number."""
    return expr.args[0] if _is_unbroadcast(expr) else expr
