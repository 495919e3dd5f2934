"""Derivatives made inside the differentiated function: `nf.grad(inner)(w, x)`, or `dg =
nf.grad(inner)` then `dg(w, x)`, where `inner` is a function the code names and every other
argument of the maker is a constant. The call is resolved as the transform reads f to the
derivative that call would make (the same object each time, so that its code is made once),
whose emitted function a call of it is differentiated through (api.Derivative.runs_as), as
a derivative made at module level is; at load time its path is found again the same way.
A call of a jvp or an hvp (made here or at module level) passes the tangent last, where its
emitted function takes it first: the call is rewritten as one of that function. A maker's call
the emitted code keeps (where the derivative's result carries no derivative of f) is written
`runtime.made_once(nf.grad, inner)`, which makes the derivative once in the process."""

import ast
import functools
import inspect
import re

import gast

from . import ir, runtime
from .errors import ArgumentError, StaticArgumentNeeded, UnsupportedError
from .statics import MISSING


def _makers():
    """The functions of srcdiff's API that make a derivative of a function."""
    from . import api, composed

    return (
        api.grad,
        api.jvp,
        composed.value_and_grad,
        composed.vjp,
        composed.hvp,
        composed.hessian,
        composed.jacobian,
        composed.jacrev,
        composed.jacfwd,
        composed.elementwise_grad,
    )


def is_derivative(value):
    """Whether `value` is a derivative srcdiff made (a call of it may be followed)."""
    from .api import Derivative
    from .composed import Transformed

    return isinstance(value, (Derivative, Transformed))


def made_derivative(call, parsed):
    """The derivative `call` (a gast.Call such as `nf.grad(inner, wrt=1)`) in the function
    `parsed` (a ParsedFunction) makes, when it calls one of srcdiff's makers with a function
    the code names and constants; else MISSING. Options the maker refuses (wrt=5) are an
    error at the call."""
    resolve = parsed.resolve
    maker = resolve(call.func)
    if not any(maker is m for m in _makers()) or not call.args:
        return MISSING
    fun = resolve(call.args[0])
    constants = [_constant(a) for a in call.args[1:]]
    keywords = tuple((k.arg, _constant(k.value)) for k in call.keywords)
    if fun is MISSING or MISSING in constants or any(v is MISSING for _, v in keywords):
        return MISSING
    if not (callable(fun) or is_derivative(fun)):
        return MISSING
    try:
        return made(maker, fun, tuple(constants), keywords)
    except ArgumentError as exc:
        raise ArgumentError(exc.message, parsed.location(call), exc.hint) from None


def made(maker, fun, constants, keywords):
    """The one derivative maker(fun, *constants, **keywords) makes in this process."""
    return runtime.made_once(maker, fun, *constants, **dict(keywords))


@functools.cache
def _maker_word():
    """A pattern of a maker's name as a word of a function's text (in a docstring's
    `gradient`, none)."""
    return re.compile(r"\b(%s)\b" % "|".join(maker.__name__ for maker in _makers()))


def made_once_calls(funcs, parsed):
    """Each call of a maker that the emitted functions `funcs` keep, `nf.grad(inner)` (its
    derivative's result carries no derivative of f), as `runtime.made_once(nf.grad, inner)`,
    rewritten in place: the derivative is made once, not at each call of f's. `parsed`: f's
    ParsedFunction, whose names the emitted code's are."""
    if not _maker_word().search(parsed.source):
        return  # (no walk of code f's text names no maker in: one it renamed stays as called)
    calls = [
        node
        for func in funcs
        for node in ir.walk(func)
        if isinstance(node, gast.Call) and made_derivative(node, parsed) is not MISSING
    ]
    for call in calls:
        call.args = [call.func, *call.args]
        call.func = ir.attr(ir.name("runtime"), "made_once")


def remade(path, follow):
    """At load time, what the path of a callee such as `nf.grad(inner, wrt=1)` or
    `nf.jvp(inner).tangents_first` names; `follow(path)` finds what a path without a call
    names."""
    node, steps = _call_root(path)
    obj = made(
        follow(ast.unparse(node.func)),
        follow(ast.unparse(node.args[0])),
        tuple(ast.literal_eval(a) for a in node.args[1:]),
        tuple((k.arg, ast.literal_eval(k.value)) for k in node.keywords),
    )
    for attribute in reversed(steps):
        obj = getattr(obj, attribute)
    return obj


def is_made_path(path):
    """Whether a callee's path starts with a derivative made by a call (`nf.grad(inner)`)."""
    return "(" in path and _call_root(path)[0] is not None


def _call_root(path):
    """(the call a path starts with, or None; the attributes read of it, last first)."""
    node, steps = ast.parse(path, mode="eval").body, []
    while isinstance(node, ast.Attribute):
        steps.append(node.attr)
        node = node.value
    return (node if isinstance(node, ast.Call) else None), steps


def _constant(node):
    """The value of a constant argument (a number, str, bool, None, or a tuple of them);
    else MISSING."""
    try:
        return ast.literal_eval(gast.gast_to_ast(node))
    except (ValueError, TypeError, SyntaxError):
        return MISSING


def refuse_unresolved_derivative(call, what, parsed, params, loc):
    """For `what`(...) calling the derivative `call` (nf.grad(g, ...)) makes where
    made_derivative could not make it: for g a parameter of f, the request to make the code
    for the function passed; else the error saying what to write."""
    if not any(parsed.resolve(call.func) is m for m in _makers()):
        return
    from .user_calls import STATIC_HINT

    made_what = gast.unparse(call)
    of = call.args[0] if call.args else None
    if isinstance(of, gast.Name) and of.id in params:
        raise StaticArgumentNeeded(
            f"{what}(...) differentiates the parameter {of.id!r}, a function known only when "
            "the function is called",
            loc,
            STATIC_HINT,
            parameter=of.id,
        )
    if of is not None and parsed.resolve(of) is not MISSING:  # (an option known at run time)
        raise UnsupportedError(
            f"{what}(...) calls the derivative {made_what} makes, whose options srcdiff "
            "cannot tell before the call runs",
            loc,
            "write each option as a constant (nf.grad(g, wrt=1), has_aux=True), as the code "
            "is made for them",
        )
    raise UnsupportedError(
        f"{what}(...) calls the derivative {made_what} makes, of a function srcdiff cannot "
        "tell before the call runs",
        loc,
        "differentiate a function defined outside f (a global, a closure value or a "
        "module's function) and called by its name: nf.grad(g)(w, x)",
    )


def inside_hint(derivative):
    """What to write instead of calling `derivative` inside f, where srcdiff cannot follow
    the call (see user_calls.refuse_derivative_object)."""
    from .composed import HVP, VJP, ValueAndGrad
    from .modes import Mode

    if isinstance(derivative, ValueAndGrad):
        return (
            "call nf.grad(g, has_aux=True), which returns (gradient, aux), and compute g's "
            "value by calling g"
        )
    if isinstance(derivative, (HVP, VJP)) or getattr(derivative, "_mode", None) is Mode.JVP:
        if getattr(derivative, "tangents_first", None) is not None:
            return "pass each of g's arguments by position, the tangent last: nf.jvp(g)(w, x, v)"
        if isinstance(derivative, HVP):
            return "call nf.hvp(g, wrt=k) once for each position k"
        if isinstance(derivative, VJP):
            return (
                "bind its pullback to a name of its own and only call it, with the cotangent: "
                "out, pullback = nf.vjp(g)(w, x), then pullback(u)"
            )
        return "call nf.jvp(g, wrt=k) once for each position k, and add the tangents"
    if len(getattr(derivative, "wrt", ())) > 1 or not getattr(derivative, "_single", True):
        return "call nf.grad(g, wrt=k) once for each position k"
    return (
        "make it nf.grad(g) or nf.grad(g, wrt=k), at module level or inside f, and call "
        "it, and compute g's value by calling g"
    )


def move_tangents_first(func, resolve, calls=None):
    """`nf.jvp(g)(w, x, v)` in f (the tangent last, as called) as the call of its emitted
    code, `nf.jvp(g).tangents_first(v, w, x)`, which returns (value, tangent); and
    `nf.hvp(g)(w, x, v)` as `nf.hvp(g).tangents_first(v, w, x)[1]` (its emitted code
    returns (gradient, product)). `func`: a gast FunctionDef, changed in place; `calls`:
    its calls, where known."""
    if pullbacks_as_calls(func, resolve):
        calls = None  # (calls of derivatives written anew)
    calls = [n for n in ir.walk(func) if isinstance(n, gast.Call)] if calls is None else calls
    moved = {id(call): made for call in calls if (made := _moved(call, resolve)) is not None}
    if not moved:  # (no walk that changes nothing)
        return

    class Mover(gast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            return moved.get(id(node), node)

    Mover().visit(func)


def _moved(call, resolve):
    """The call of the emitted code that a call of a jvp or hvp in f stands for, or None
    (where it is no such call, or one passing keywords or leaving defaults: refused where
    it is called, user_calls.refuse_derivative_object)."""
    from .composed import HVP

    derivative = resolve(call.func)
    if getattr(derivative, "gradient_and_value", None) is not None:
        return _reversed_result(call, "gradient_and_value")
    first = getattr(derivative, "tangents_first", None)
    if not callable(first) or call.keywords or any(isinstance(a, gast.Starred) for a in call.args):
        return None
    if len(call.args) != len(inspect.signature(first).parameters):
        return None
    moved = gast.Call(
        func=gast.Attribute(value=call.func, attr="tangents_first", ctx=gast.Load()),
        args=[call.args[-1], *call.args[:-1]],
        keywords=[],
    )
    if isinstance(derivative, HVP):
        moved = gast.Subscript(value=moved, slice=gast.Constant(1, None), ctx=gast.Load())
    return gast.copy_location(moved, call)


def _reversed_result(call, attribute):
    """`vg(w, x)` of a value_and_grad as `vg.gradient_and_value(w, x)[::-1]`: its
    derivative, made with preserve_result=True, which f may call, returns (gradient, value)."""
    moved = gast.Call(
        func=gast.Attribute(value=call.func, attr=attribute, ctx=gast.Load()),
        args=call.args,
        keywords=call.keywords,
    )
    backwards = gast.Slice(lower=None, upper=None, step=ir.const(-1))
    return gast.copy_location(gast.Subscript(value=moved, slice=backwards, ctx=gast.Load()), call)


def pullbacks_as_calls(func, resolve):
    """`out, pullback = nf.vjp(g)(w, x)` in f, then `pullback(u)`, as `pullback_w, pullback_x
    = w, x` and `out = nf.vjp(g).fun(pullback_w, pullback_x)`, each `pullback(u)` the call of
    the derivative taking the cotangent first, `nf.vjp(g).cotangent_first(u, pullback_w,
    pullback_x)` (g's forward sweep runs again there). Only where the pullback is bound
    there alone and only called, with one argument; else it is refused where the vjp is
    called. Whether any was rewritten."""
    taken = None  # (the names f uses, once a vjp's call is found)
    changed = False
    for block in _blocks(func):
        for k, stmt in enumerate(block):
            vjp_call, out, pullback = _vjp_call(stmt, resolve)
            if vjp_call is None or not _only_called(func, pullback):
                continue
            if taken is None:
                taken = ir.names_in(func) | ir.names_in(func, gast.Store)
            copies = [f"{pullback}_{_arg_name(a, n)}" for n, a in enumerate(vjp_call.args)]
            if taken & set(copies) or len(set(copies)) < len(copies):
                continue
            maker = vjp_call.func
            value = ir.call(ir.attr(ir.copy_tree(maker), "fun"), *map(ir.name, copies))
            block[k : k + 1] = [
                gast.copy_location(new, stmt)
                for new in [*map(ir.assign, copies, vjp_call.args), ir.assign(out, value)]
            ]
            for call in [n for n in ir.walk(func) if _calls_name(n, pullback)]:
                call.func = ir.attr(ir.copy_tree(maker), "cotangent_first")
                call.args = call.args + list(map(ir.name, copies))
            changed = True
    return changed


def _blocks(func):
    """The statement lists of `func`, its body's and each compound statement's."""
    for node in ir.walk_statements(func):
        for field in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                yield block


def _vjp_call(stmt, resolve):
    """(the call, the output's target, the pullback's name) of `out, pullback =
    nf.vjp(g)(...)`, its arguments by position; else (None, None, None)."""
    from .composed import VJP

    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1):
        return None, None, None
    target, call = stmt.targets[0], stmt.value
    if not (
        isinstance(target, (gast.Tuple, gast.List))
        and len(target.elts) == 2
        and isinstance(target.elts[1], gast.Name)
        and isinstance(call, gast.Call)
        and not call.keywords
        and not any(isinstance(a, gast.Starred) for a in call.args)
        and isinstance(resolve(call.func), VJP)
    ):
        return None, None, None
    return call, target.elts[0], target.elts[1].id


def _only_called(func, pullback):
    """Whether `pullback` is bound once in func and read only as a call of one argument."""
    names = [n for n in ir.name_nodes(func) if n.id == pullback]
    calls = [n for n in ir.walk(func) if _calls_name(n, pullback)]
    stored = [n for n in names if not isinstance(n.ctx, gast.Load)]
    return len(stored) == 1 and len(calls) == len(names) - 1


def _calls_name(node, name):
    return (
        isinstance(node, gast.Call)
        and isinstance(node.func, gast.Name)
        and node.func.id == name
        and len(node.args) == 1
        and not node.keywords
        and not isinstance(node.args[0], gast.Starred)
    )


def _arg_name(argument, position):
    return argument.id if isinstance(argument, gast.Name) else str(position)
