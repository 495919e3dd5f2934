"""Before inlining: a method of a frozen SciPy distribution is the distribution's own method
with the frozen arguments after the method's, as scipy.stats computes it, so that it reaches
the method's rules: `st.norm(m, s).logpdf(x)` is `st.norm.logpdf(x, m, s)`, and so is
`d.logpdf(x)` after `d = st.norm(m, s)` when d is bound once and only such methods of it are
called (the arguments are then held in names where it was frozen, as they were then). A
distribution frozen outside (`prior = st.norm(0, 1)`, a global) is read through the same way:
`prior.logpdf(x)` is `prior.dist.logpdf(x, prior.args[0], prior.args[1])`."""

import copy
import inspect
import sys

import gast

from . import ir

# the frozen methods that pass their own arguments first (not rvs, nor expect)
_METHODS = frozenset(
    "pdf logpdf cdf logcdf sf logsf ppf isf pmf logpmf mean var std median entropy moment "
    "interval stats support".split()
)


def is_distribution(obj):
    """Whether obj is one of scipy.stats' distributions (st.norm, st.multivariate_normal),
    which a call freezes. (srcdiff never imports SciPy: the classes are known by name.)"""
    return "scipy.stats" in sys.modules and any(
        cls.__name__ in ("rv_generic", "multi_rv_generic")
        and cls.__module__.startswith("scipy.stats")
        for cls in type(obj).__mro__
    )


def is_frozen_method(fn):
    """Whether fn is a method of a frozen distribution (`prior.logpdf`, prior = st.norm(0, 1))."""
    return "scipy.stats" in sys.modules and any(
        cls.__name__ in ("rv_frozen", "multi_rv_frozen")
        and cls.__module__.startswith("scipy.stats")
        for cls in type(getattr(fn, "__self__", None)).__mro__
    )


def unfreeze_distributions(func, resolve, names):
    """Rewrite the frozen distributions' method calls in func (a gast FunctionDef) in place;
    `names` makes fresh names for the held arguments."""
    if "scipy.stats" not in sys.modules:  # (no distribution to freeze: no walk of func)
        return
    for node in ir.walk(func):
        if _method_call(node) and _freezes(node.func.value, resolve):
            _unfreeze(node, node.func.value)
        elif _method_call(node) and _is_frozen(resolve(node.func.value)):
            _read_through(node, resolve(node.func.value))
    frozen = _frozen_names(func, resolve)
    if frozen:
        func.body = _held(func.body, frozen, names, resolve)
        for node in ir.walk(func):
            if _method_call(node) and isinstance(node.func.value, gast.Name):
                if node.func.value.id in frozen:
                    _unfreeze(node, frozen[node.func.value.id])


def _method_call(node):
    return (
        isinstance(node, gast.Call)
        and isinstance(node.func, gast.Attribute)
        and node.func.attr in _METHODS
    )


def _freezes(node, resolve):
    """Whether node is a call freezing a distribution, with no * or ** argument."""
    return (
        isinstance(node, gast.Call)
        and is_distribution(resolve(node.func))
        and not any(isinstance(a, gast.Starred) for a in node.args)
        and all(k.arg is not None for k in node.keywords)
    )


def _unfreeze(call, freezing):
    """`D(a, k=b).m(x)` (or `d.m(x)`, d holding it) becomes `D.m(x, a, k=b)`."""
    call.func = gast.Attribute(
        value=copy.deepcopy(freezing.func), attr=call.func.attr, ctx=gast.Load()
    )
    call.args = call.args + copy.deepcopy(freezing.args)
    call.keywords = copy.deepcopy(freezing.keywords) + call.keywords


def _is_frozen(obj):
    """Whether obj is a frozen univariate distribution (a global `prior = st.norm(0, 1)`)."""
    return is_distribution(getattr(obj, "dist", None)) and hasattr(obj, "kwds")


def _read_through(call, frozen):
    """`prior.m(x)`, prior a frozen distribution the code names, becomes
    `prior.dist.m(x, prior.args[0], ..., k=prior.kwds["k"])`: the distribution's own method of
    the arguments it was frozen with (constants)."""
    receiver = call.func.value

    def part(field, key):
        attribute = gast.Attribute(value=copy.deepcopy(receiver), attr=field, ctx=gast.Load())
        return gast.Subscript(value=attribute, slice=ir.const(key), ctx=gast.Load())

    dist = gast.Attribute(value=copy.deepcopy(receiver), attr="dist", ctx=gast.Load())
    call.func = gast.Attribute(value=dist, attr=call.func.attr, ctx=gast.Load())
    call.args = call.args + [part("args", k) for k in range(len(frozen.args))]
    call.keywords = call.keywords + [
        gast.keyword(arg=key, value=part("kwds", key)) for key in frozen.kwds
    ]


def _frozen_names(func, resolve):
    """{name: the call freezing it} of the names bound once to a frozen distribution, not a
    parameter, and read only for their methods of _METHODS."""
    nodes = list(ir.walk(func))
    stores, loads = {}, {}
    for node in nodes:
        if isinstance(node, gast.Name):
            counts = loads if isinstance(node.ctx, gast.Load) else stores
            counts[node.id] = counts.get(node.id, 0) + 1
    methods_read = {}
    for node in nodes:
        if _method_call(node) and isinstance(node.func.value, gast.Name):
            methods_read[node.func.value.id] = methods_read.get(node.func.value.id, 0) + 1
    return {
        stmt.targets[0].id: stmt.value
        for stmt in nodes
        if isinstance(stmt, gast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], gast.Name)
        and stores.get(stmt.targets[0].id) == 1
        and loads.get(stmt.targets[0].id, 0) == methods_read.get(stmt.targets[0].id, 0)
        and _freezes(stmt.value, resolve)
    }


def _held(body, frozen, names, resolve):
    """body with each freezing assignment replaced by assignments holding its arguments (but
    for constants), which the freezing calls then read: `d_loc = m` for d = st.norm(m)."""
    out = []
    for stmt in body:
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(stmt, field, None), list) and not isinstance(stmt, gast.Lambda):
                setattr(stmt, field, _held(getattr(stmt, field), frozen, names, resolve))
        target = stmt.targets[0].id if isinstance(stmt, gast.Assign) else None
        if target not in frozen or frozen[target] is not stmt.value:
            out.append(stmt)
            continue
        call = stmt.value
        parameters = _parameters(resolve(call.func))
        for k, arg in enumerate(call.args):
            parameter = parameters[k] if k < len(parameters) else "arg"
            call.args[k] = _hold(arg, f"{target}_{parameter}", stmt, names, out)
        for keyword in call.keywords:
            keyword.value = _hold(keyword.value, f"{target}_{keyword.arg}", stmt, names, out)
    return out


def _parameters(distribution):
    """The names of what a call of the distribution takes by position: its shape parameters
    then loc and scale (st.gamma: a, loc, scale), or its own (st.multivariate_normal)."""
    if hasattr(distribution, "numargs"):  # (a univariate one)
        shapes = distribution.shapes.split(", ") if distribution.shapes else []
        return shapes + ["loc", "scale"]
    try:
        return list(inspect.signature(distribution).parameters)
    except (TypeError, ValueError):
        return []


def _hold(value, stem, stmt, names, out):
    if isinstance(value, gast.Constant):
        return value
    name = names.named(stem)
    out.append(gast.copy_location(ir.assign(name, value), stmt))
    return ir.name(name)
