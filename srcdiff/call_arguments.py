"""Stage 2c, expressions: a call's arguments bound to the parameters of its primitive's
templates (a mixin of Expressions, expressions.py)."""

import functools
import inspect

import gast
import numpy as np

from . import codegen, ir
from .errors import NoAdjointError, SrcdiffError
from .parse import MISSING
from .primitives import registry
from .primitives.shape import as_list, as_tuple
from .text_signatures import signature as signature_of


class CallArguments:
    """Binding for the Expressions of the Normalizer (anf.py), which provides the names,
    activity and displays these methods use."""

    def bind(self, record, args, keywords, node, loc, out, forward):
        template = self._rules(record)
        aliases = dict(record.keyword_aliases)
        called = self.p.resolve(node.func)
        if called is MISSING and isinstance(node.func, gast.Attribute):  # (x.mean(0, None, ...)
            called = getattr(np, node.func.attr, None)  # takes np.mean's after x)
        if called in record.functions and not record.vararg_method:
            args, keywords = _named_past_the_template(called, args, keywords, template.signature)
        keywords = _without_stated_defaults(record.functions, keywords, template.signature)
        keywords = {k: v for k, v in keywords.items() if k not in record.inert_keywords}
        try:
            bound = template.bind(args, {aliases.get(k, k): v for k, v in keywords.items()})
        except TypeError as exc:
            raise _unmatched(record.function, node, keywords, template, loc, exc) from None
        # (the adjoint's rules tell in both modes whether a parameter takes a sequence)
        adjoint = record.adjoint if _takes_array_likes(record.function) else None
        for param, rule in template.rules.items():
            value = bound.get(param)
            if (
                adjoint is not None
                and param in adjoint.rules
                and adjoint.rules[param].index is None
                and isinstance(value, (gast.List, gast.Tuple))
                and self._is_active(value)
            ):
                bound[param] = self._as_array(value, loc, out, forward)
            if param in template.sequence_params and adjoint is not None:
                # (np.einsum(s, [t, 1.0], x): numpy makes an array of each operand)
                value.elts = [
                    self._as_array(e, loc, out, forward)
                    if isinstance(e, (gast.List, gast.Tuple)) and self._is_active(e)
                    else e
                    for e in value.elts
                ]
            if (
                rule.index is not None
                and value is not None
                and not isinstance(value, (gast.List, gast.Tuple))
                and not (isinstance(value, gast.Name) and value.id in self.stacks)
            ):
                display = self.displays.get(getattr(value, "id", None), (None, None))
                if display[1] is out:  # a list or tuple display made just before, unchanged
                    bound[param] = ir.copy_tree(display[0])
        self._refuse_flat_dtype(record, bound, node, loc)
        if record.reads_in_order:
            _refuse_layout_order(bound.get("order"), node, loc)
        self._refuse_undifferentiated(record, template, bound, node, loc)
        return bound

    def _refuse_undifferentiated(self, record, template, bound, node, loc):
        """Refuse a differentiated argument the template gives no rule for. (In emitted code
        such an argument is one the first derivative took as it was, not differentiated: an
        axis a higher derivative finds varied, unpacked from saved values.)"""
        if codegen.is_emitted(loc.filename):
            return
        for param, value in bound.items():
            if (
                param not in template.rules
                and param not in template.constant
                and self._is_active(value)
            ):
                if record.function is np.einsum and param == "subscripts":
                    raise _interleaved_einsum_refused(node, loc)
                raise NoAdjointError(
                    f"{gast.unparse(node.func)} has no gradient with respect "
                    f"to its argument {param!r}",
                    loc,
                    f"make {param!r} a constant",
                )

    def _refuse_flat_dtype(self, record, bound, node, loc):
        """A differentiated call told to make ints or bools (np.sum(x, dtype=int)) is flat:
        refused unless its templates follow that (the casts, np.array(xs, dtype=int))."""
        dtype = bound.get("dtype")
        if dtype is None or record.casts or not any(map(self._is_active, bound.values())):
            return
        named = dtype.value if isinstance(dtype, gast.Constant) else self.p.resolve(dtype)
        try:
            flat = np.dtype(named).kind in "biu"
        except (TypeError, ValueError):
            return  # (a dtype only the call can tell)
        if flat:
            raise NoAdjointError(
                f"{gast.unparse(node.func)}(..., dtype={gast.unparse(dtype)}) makes ints or "
                "bools, whose derivative srcdiff would not make zero",
                loc,
                "cast the result instead (.astype(int): flat, its derivative zero)",
            )

    def _as_array(self, display, loc, out, forward):
        """A display where the adjoint takes one value (np.sum([a, b])): the array numpy
        would make of it, whose adjoint hands each item its row. Returns its name."""
        items, held = self.names.fresh("_t"), self.names.fresh("_t")
        self.active |= {items, held}
        listing = registry.find(as_list if isinstance(display, gast.List) else as_tuple)
        out.append(
            ir.Assign([items], display, loc, listing, self._rules(listing).bind([display], {}))
        )
        making = registry.find(np.array)
        out.append(
            ir.Assign(
                [held],
                ir.call("np.array", ir.name(items)),
                loc,
                making,
                self._rules(making).bind([ir.name(items)], {}),
            )
        )
        forward.args = [ir.name(held) if a is display else a for a in forward.args]
        for k in forward.keywords:
            k.value = ir.name(held) if k.value is display else k.value
        return ir.name(held)


def _refuse_layout_order(order, node, loc):
    """A reshape's order= other than 'C' or 'F' (the default: none given) reads by the
    argument's memory layout ('A', 'K'), which its adjoint's fresh arrays do not have."""
    if order is None or isinstance(order, gast.Constant) and order.value in ("C", "F"):
        return
    raise NoAdjointError(
        f"{gast.unparse(node.func)}(..., order={gast.unparse(order).strip()}) reads by the "
        "memory layout of its argument (order 'A' or 'K', or one only the call tells), "
        "which srcdiff's derivative cannot follow",
        loc,
        "pass order='C' or order='F' as a literal",
    )


def _without_stated_defaults(functions, keywords, signature):
    """The keywords without those that only state the function's own default (np.exp(x,
    out=None), logsumexp(a, b=None), where=True), which a template need not take: it has its
    own default for them, or does without. (Of a record covering several functions, the
    default of any: the call is to one of them, which refuses what it does not take.)"""
    if not keywords:
        return {}  # (the commonest call: no keyword to look at)
    defaults = [_defaults(fn) for fn in functions]
    stated = {
        k
        for k, v in keywords.items()
        if k not in signature.parameters
        and isinstance(v, gast.Constant)
        and any(_same_constant(v.value, d.get(k, MISSING)) for d in defaults)
    }
    stated |= {
        k
        for k, v in keywords.items()
        if k in signature.parameters
        and isinstance(v, gast.Constant)
        and v.value is None
        and any(d.get(k, MISSING) is None for d in defaults)
        and signature.parameters[k].default is not None
    }
    return {k: v for k, v in keywords.items() if k not in stated}


def _named_past_the_template(fn, args, keywords, signature):
    """(args, keywords) with the positional arguments from the first one the templates do
    not take on passed by fn's names for them: np.sum(x, 0, None, None, True) passes out
    fourth, then keepdims, which the templates (taking no out) bound as keepdims, then
    initial."""
    params = _parameters(fn)
    if params is None:
        return args, keywords  # (a ufunc's, or a builtin's: positions as the templates')
    params = params[: len(args)]
    names = list(signature.parameters)
    for k, param in enumerate(params):
        if param.kind not in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD) or any(
            isinstance(a, gast.Starred) for a in args
        ):
            return args, keywords
        if k >= len(names) or names[k] != param.name:
            if k == 0 or param.kind is param.POSITIONAL_ONLY or param.name in names:
                return args, keywords  # (the templates name fn's parameters otherwise)
            if len(params) < len(args):
                return args, keywords  # (more than fn takes: refused as it is)
            moved = {p.name: a for p, a in zip(params[k:], args[k:])}
            return args[:k], {**moved, **keywords}
    return args, keywords


@functools.cache
@functools.cache
def _parameters(fn):
    """signature_of(fn)'s parameters, or None where it has none (a ufunc, a builtin):
    found once a primitive's function, not at each of its calls (a failed look raises)."""
    try:
        return tuple(signature_of(fn).parameters.values())
    except (TypeError, ValueError):
        return None


def _same_constant(a, b):
    return type(a) is type(b) and a == b


@functools.cache
def _defaults(fn):
    """fn's keyword defaults, where its signature says them (`where=True` means everywhere)."""
    if "=" not in (getattr(fn, "__text_signature__", None) or "="):
        return {}  # (a builtin's signature without any: math.sqrt's, read without tokenizing)
    try:
        parameters = signature_of(fn).parameters
    except (TypeError, ValueError):
        return {}
    found = {k: p.default for k, p in parameters.items() if p.default is not p.empty}
    if "where" in parameters:
        found["where"] = True
    return found


def _takes_array_likes(fn):
    """Whether fn is numpy's, scipy.special's or scipy.stats', which make an array of a list
    they are given (scipy.linalg's cho_solve((c, low), b) takes a pair)."""
    module = getattr(fn, "__module__", None) or ""
    return isinstance(fn, np.ufunc) or module.startswith(("numpy", "scipy.special", "scipy.stats"))


def _unmatched(function, node, keywords, template, loc, exc):
    """The error for a call whose arguments its templates do not take: an option of the
    function the rules leave at its default (svd's hermitian=), or arguments of no name."""
    call, taken = gast.unparse(node.func), template.signature.parameters
    try:
        own = signature_of(function).parameters
    except (TypeError, ValueError):
        own = {}
    option = next((k for k in keywords if k not in taken and k in own), None)
    if option is not None and own[option].default is not inspect.Parameter.empty:
        default = own[option].default
        return NoAdjointError(
            f"srcdiff differentiates {call}(...) only without {option}="
            if default is np._NoValue  # (numpy's own stand-in: its repr is "<no value>")
            else f"srcdiff differentiates {call}(...) only with {option} at its default "
            f"({default!r})",
            loc,
            f"call it without {option}= (its rules take {', '.join(taken)})"
            + (
                "; a mean over a mask m is np.sum(x, axis, where=m) / np.sum(m, axis)"
                if option == "where"
                else ""
            ),
        )
    return SrcdiffError(
        f"cannot match the arguments of {call}(...) to its adjoint: {exc}",
        loc,
        f"pass only the arguments its rules take, by position or by name ({', '.join(taken)})",
    )


def _interleaved_einsum_refused(node, loc):
    """np.einsum(a, sub_a, b, sub_b) whose sublists are not written in the call as lists
    of numbers (operator_calls.py rewrites those into the subscripts string)."""
    return NoAdjointError(
        f"{gast.unparse(node.func)}(operand, sublist, ...) is followed only with each "
        "sublist written in the call as a list of numbers",
        loc,
        "write them in the call (np.einsum(a, [0, 1], b, [1, 2], [0, 2])), or give the "
        "subscripts string (np.einsum('ab,bc->ac', a, b))",
    )
