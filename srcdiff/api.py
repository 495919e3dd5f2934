"""The public API: grad and jvp (the Derivative they return), config; the transformations
composed from them (value_and_grad, vjp, hvp, hessian, jacobians) are in composed.py."""

from __future__ import annotations

import inspect
from typing import Any, Callable, Literal, Sequence

import numpy as np

from . import arguments, cache, codegen, specialize
from .arguments import (
    Wrt,
    caller,
    check_differentiable,
    check_shaped_like,
    choose_wrt,
    complex_leaf,
    is_wrt,
    keywords_of,
    normalize_wrt,
    refuse_container_methods,
    split_tangents,
    spread_of,
)
from .errors import ArgumentError, SrcdiffError, StaticArgumentNeeded
from .modes import Mode
from .sources import check_function
from .statics import Static, is_function_value, is_object, object_class, skeleton
from .signatures import key
from .transform import derive, emitted_name
from .variants import Variants, statics_option
from .wrappers import as_routine, source_function

_NDARRAY = np.ndarray


_NONE = object()  # (no argument given)


class _NO_DEFAULTS:  # (what a derivative of a derivative takes its defaults from)
    __defaults__ = __kwdefaults__ = None


class Derivative(Variants):
    """A differentiated function: call it like the original; `.source` is the emitted code."""

    def __init__(self, fun, wrt=0, mode=Mode.GRAD, **options):
        fun = as_routine(fun)
        self.fun, self._made_with = fun, (wrt, mode, options)
        self._of_derivative, self._remaking = isinstance(fun, Derivative), False
        self._bound = getattr(fun, "__self__", None) if inspect.ismethod(fun) else None
        target = fun.__func__ if inspect.ismethod(fun) else fun
        if isinstance(fun, Derivative):  # higher order: differentiate the emitted source
            self._bound, target = fun._bound, fun._call
            self._parameters = fun._emitted_parameters()
        else:
            if not inspect.isfunction(target):
                try:
                    check_function(target)
                except SrcdiffError as exc:
                    raise type(exc)(exc.message, caller(), exc.hint) from None
            self._parameters = list(inspect.signature(target).parameters.values())
        self._target = target
        # the function whose defaults the emitted code takes, and them (replaced: made anew)
        self._take_defaults(None if isinstance(fun, Derivative) else source_function(target))
        shift = 1 if self._bound is not None else 0
        self._names = [
            p.name for p in self._parameters if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
        self._jvp = None  # the emitted JVP behind forward-mode variants (False: none possible)
        mode = Mode(mode)
        self._mode, self._options = mode, options
        try:
            # (f's **kwargs, the keywords of it wrt names) and (f's *args, where its values
            # start) when wrt counts them: code for each set of keywords, and each count
            self._resolve_wrt(wrt, shift)
            # parameters whose value (a key) picks a function f calls, and containers
            # holding the functions or objects f calls
            self._keys = set(fun._keys) if isinstance(fun, Derivative) else set()
            self._trees = set(fun._trees) if isinstance(fun, Derivative) else set()
            self._statics = self._statics_of(())  # (what the defaults make static)
            self._by_statics = {}
            self._emitted, self._deferred = self._first_emitted()
        except SrcdiffError as exc:
            if exc.location is not None:
                raise
            raise type(exc)(exc.message, caller(), exc.hint) from None
        self._start_variants()
        # wrt=(k,) gives a tuple of one gradient, though the emitted code returns it bare
        self._one_of_many = (
            not self._single and len(self.wrt) == 1 and mode in (Mode.GRAD, Mode.VJP)
        )
        # f's parameters as its caller sees them (no bound self), to place keyword arguments
        self.signature = inspect.Signature(self._parameters[shift:])
        self.__name__ = emitted_name(
            mode, getattr(fun, "__name__", None) if target is None else target.__name__
        )
        self.__qualname__ = getattr(fun, "__qualname__", self.__name__)
        self.__doc__ = f"{mode.title} of {fun.__qualname__}."

    @property
    def _call(self):
        return self._emitted.function if self._emitted else None

    def runs_as(self):
        """The emitted function a call of this derivative runs as it is (same arguments,
        same result), which f calling it is differentiated through; else None."""
        simple = self._spread is None and self._keywords is None  # (no arguments to add)
        return self._call if self._plain and simple and not self._one_of_many else None

    def _take_defaults(self, owner):
        self._defaults_of = owner if inspect.isfunction(owner) else _NO_DEFAULTS
        self._defaults = self._defaults_of.__defaults__, self._defaults_of.__kwdefaults__
        # (f's __kwdefaults__ matter only to its keyword-only parameters: calls check it then)
        self._only_positional = not (inspect.isfunction(owner) and owner.__code__.co_kwonlyargcount)

    def _resolve_wrt(self, wrt, shift):
        """The positions wrt names, and how *args or **kwargs count in them."""
        self._keywords = keywords_of(self._parameters[shift:], wrt)
        self.wrt, self._single = normalize_wrt(
            wrt, self._names[shift:], self._keywords[1] if self._keywords else ()
        )
        self._positions = tuple(w + shift for w in self.wrt)
        self._spread = spread_of(self._parameters[shift:], wrt)
        if self._spread is not None:
            self._spread = self._spread[0], self._spread[1] + shift
            if self._keywords is not None:
                raise ArgumentError(
                    "wrt counts values of *args and names keywords of "
                    "**kwargs: the positions of both depend on the call",
                    caller(),
                    "differentiate them in two calls",
                )

    def _first_emitted(self):
        """(the code for the defaults, None) or, when the code depends on arguments only a
        call gives (a function it calls, an object's class), (None, the error saying so)."""
        if isinstance(self.fun, Derivative) and self.fun._deferred is not None:
            return None, self.fun._deferred
        if self._spread is not None or self._keywords is not None:
            what = (
                f"how many values *{self._spread[0]} takes"
                if self._spread
                else f"which keywords **{self._keywords[0]} takes"
            )
            return None, StaticArgumentNeeded(
                f"the code depends on {what}",
                caller(),
                parameter=(self._spread or self._keywords)[0],
                kind="count",
            )
        try:
            return derive(
                self._target,
                self._positions,
                self._mode,
                **self._options,
                **statics_option(self._statics),
            ), None
        except StaticArgumentNeeded as exc:
            if self._wants(exc):  # (a key, or a container, that decides what f calls)
                self._statics = self._statics_of(())
                if any(s.name == exc.parameter for s in self._statics):  # (its default)
                    return self._first_emitted()
            return None, exc

    def _wants(self, exc):
        """Note the parameter a StaticArgumentNeeded asks for: whether it is new."""
        wanted = self._keys if exc.kind == "key" else self._trees
        new = exc.parameter in self._names and exc.parameter not in wanted
        wanted.add(exc.parameter)
        return new

    def _emitted_parameters(self):
        """The parameters of the emitted function: the tangents (jvp) or the cotangent
        (vjp) first, then f's own."""
        if self._call is not None:
            return list(inspect.signature(self._call).parameters.values())
        leading = len(self.wrt) if self._mode is Mode.JVP else self._offset
        return [
            inspect.Parameter(f"_{k}", inspect.Parameter.POSITIONAL_ONLY) for k in range(leading)
        ] + self._parameters

    @property
    def source(self):
        if self._deferred is not None:
            raise type(self._deferred)(
                self._deferred.message,
                self._deferred.location,
                "the code depends on the arguments: .source_for(*args) shows the code a call runs",
            )
        return self._emitted.full_source()

    def source_for(self, *args, **kwargs):
        """The code a call with these arguments runs (without making it): the emitted source
        specialised to their types and shapes (specialize.py), or `.source` when it runs the
        generic code. Only the arguments' types, shapes and dtypes matter, not their values."""
        if kwargs:
            args, kwargs = self.bind(args, kwargs)
        variant = self._variant_for(*self._arguments(args), kwargs)
        return getattr(variant[0], "source", None) or variant[1].full_source()

    def _statics_of(self, args, keywords=()):
        """The Static arguments of a call with f's arguments `args` (the defaults for the
        rest) and keywords (its keyword-only ones, and those for its **kwargs): functions
        passed where f calls them, objects whose methods f calls, and how many values *args
        and which keywords **kwargs take where wrt counts them."""
        defaults = {p.name: p.default for p in self._parameters if p.default is not p.empty}
        named = dict(keywords)
        statics = []
        for k, name in enumerate(self._names):
            value = args[k] if k < len(args) else named.get(name, defaults.get(name, None))
            if is_function_value(value) and k not in self._positions:
                statics.append(Static(name, "value", value))
            elif name in self._keys and isinstance(value, (str, int, np.integer)):
                statics.append(Static(name, "key", value if isinstance(value, str) else int(value)))
            elif is_object(value):  # (an object holding layers: the parts it holds, if asked)
                tree = skeleton(value) if name in self._trees else None
                statics.append(
                    Static(name, "tree", tree)
                    if tree is not None
                    else Static(name, "type", object_class(value))
                )
            elif name in self._trees and (tree := skeleton(value)) is not None:
                statics.append(Static(name, "tree", tree))
        if self._spread is not None and len(args) >= self._spread[1]:
            statics.append(Static(self._spread[0], "count", len(args) - self._spread[1]))
        if self._keywords is not None and keywords:
            name, keys = self._keywords
            statics.append(
                Static(
                    name, "keys", keys + tuple(sorted(set(keywords) - set(keys) - set(self._names)))
                )
            )
        return tuple(statics)

    def _name_of(self, position):
        """The parameter at a position of f's arguments (of *args, the item: 'params[0]')."""
        if self._spread is not None and position >= self._spread[1]:
            return f"{self._spread[0]}[{position - self._spread[1]}]"
        if position >= len(self._names):  # (a keyword of **kwargs)
            return self._keywords[1][position - len(self._names)]
        return self._names[position]

    def wrt_values(self, args, keywords):
        """The values of f's arguments that wrt picks, of a call's (as passed) and keywords."""
        shift = 1 if self._bound is not None else 0
        return [
            keywords[self._name_of(w + shift)]
            if w + shift >= len(self._names) and self._keywords is not None
            else args[w]
            for w in self.wrt
        ]

    def _emitted_for(self, args, keywords=()):
        """The Emitted that a call with f's arguments `args` runs: one per set of static
        arguments (derived the first time that set is met)."""
        statics = self._statics_of(args, keywords)
        if statics == self._statics and self._deferred is not None:
            refuse_container_methods(self._deferred, self._names, args)
        try:
            return self._derived(statics)
        except StaticArgumentNeeded as exc:  # (another parameter: a container f calls into)
            if not self._wants(exc):
                raise
            return self._emitted_for(args, keywords)

    def _emitted_of_call(self, args, keywords=()):
        """The Emitted that a call with these arguments (as the user passes them) runs."""
        _, checked, offset = self._arguments(args)
        return self._emitted_for(checked[offset:], keywords)

    def _derived(self, statics):
        if statics == self._statics:
            if self._deferred is not None:
                raise self._deferred
            return self._emitted
        emitted = self._by_statics.get(statics)
        if emitted is None:
            target = self._target
            if isinstance(self.fun, Derivative):  # (the inner code made for these statics)
                inner = set(self.fun._names)
                target = self.fun._derived(
                    tuple(s for s in statics if s.name in inner or s.kind in ("count", "keys"))
                )
                target = target.function
            emitted = derive(
                target, self._positions, self._mode, **self._options, **statics_option(statics)
            )
            self._by_statics[statics] = emitted
        return emitted

    def _location(self, kind, emitted=None):
        """Where f is defined (kind "defined") or returns ("returned"), as the code made for
        it says (before any is made: the call that needs the arguments)."""
        emitted = emitted or self._emitted or next(iter(self._by_statics.values()), None)
        return self._deferred.location if emitted is None else getattr(emitted.meta, kind)

    def _check(self, args, offset, keywords=None):
        arguments = []
        for position in self._positions:
            name = self._name_of(position)
            if self._keywords is not None and position >= len(self._names):
                if name not in (keywords or {}):
                    raise ArgumentError(
                        f"wrt={name!r} names a keyword of "
                        f"**{self._keywords[0]}, but the call passes no "
                        f"{name}=...",
                        caller(),
                        f"pass {name}=... too",
                    )
                arguments.append((name, keywords[name]))
            elif position + offset < len(args):
                arguments.append((name, args[position + offset]))
            else:  # (left to its default, which must not be complex either)
                default = next((p.default for p in self._parameters if p.name == name), None)
                if (leaf := complex_leaf(default, name)) is not None:
                    arguments.append(leaf)
        check_differentiable(arguments, lambda: self._location("defined"))
        if self._of_derivative:  # (its code, run within this one, takes its own wrt as real)
            self.fun._check(args[offset:], self.fun._offset, keywords)

    def _arguments(self, args):
        """(the emitted function's arguments, f's, the position of f's first among them)"""
        offset = self._offset
        if self._bound is not None and self._mode is not Mode.JVP:
            args = list(args[:offset]) + [self._bound] + list(args[offset:])
        if self._mode is not Mode.JVP:
            return args, args, offset
        *args, tangents = split_tangents(
            args,
            self.signature,
            self.wrt,
            self._single,
            self.fun.__name__,
            self._location("defined"),
        )
        tangents = (tangents,) if self._single else tuple(tangents)
        for position, name, tangent in zip(self.wrt, map(self._name_of, self._positions), tangents):
            if position < len(args):
                check_shaped_like(
                    tangent,
                    args[position],
                    f"the tangent of argument {name!r}",
                    self._location("defined"),
                    "give a tangent shaped like its argument",
                )
        tangents = arguments.tangents_with_zeros(tangents, args, self.wrt)
        if self._bound is not None:
            args = [self._bound] + args
        return list(tangents) + args, args, offset

    def bind(self, args, kwargs):
        """(positional arguments, keyword-only ones) of a call: f's arguments given by keyword
        are put in their places, defaults filled in, so that they get every check positional
        ones get. A vjp's cotangent stays first and a jvp's tangents last."""
        head, args, tail = args[: self._offset], args[self._offset :], ()
        if self._mode is Mode.JVP and args:
            args, tail = args[:-1], args[-1:]
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise ArgumentError(
                f"cannot call {self.__qualname__}: {exc}",
                caller(),
                f"pass the arguments {self.fun.__name__}{self.signature} takes",
            ) from None
        bound.apply_defaults()
        return (*head, *bound.args, *tail), bound.kwargs

    def __call__(self, value=_NONE, /, *args, **kwargs):
        # The common case, kept short, for calls may be tiny: positional arguments of a
        # signature met before whose code runs as it is (Variants._variant says which). A lone
        # argument comes apart from the rest, its key made inline for the two commonest kinds.
        if kwargs or value is _NONE or not self._plain:
            return self._general_call(() if value is _NONE else (value, *args), kwargs)
        if not args:
            kind = type(value)
            if kind is _NDARRAY:
                signature = value.shape, value.dtype, value.flags.writeable  # (as signatures.key)
                last = self._last  # (the variant made last, checked before any look-up)
                function = last[1] if signature == last[0] else self._direct_one.get(signature)
            else:
                signature = float if kind is float else key(value)
                function = self._direct_one.get(signature)
            if function is not None and (self._full <= 1 or self._defaults_kept()):
                try:
                    return function(value)
                except Exception as exc:
                    self._locate_in(function, exc)
                    raise
            args, signature = (value,), (signature,)
        else:
            args = (value, *args)
            signature = tuple(map(key, args))
            function = self._direct.get(signature)
            if function is not None and (self._full <= len(args) or self._defaults_kept()):
                try:
                    return function(*args)
                except Exception as exc:
                    self._locate_in(function, exc)
                    raise
        return self._general_call(args, kwargs, self._variants.get(signature))

    def _general_call(self, args, kwargs, variant=None):
        """A call the fast path of __call__ leaves: the variant (None: not made yet) made, or
        run where it needs more than a call (keywords to bind, arguments to add, names to
        re-read)."""
        given, named = args, kwargs
        if self._defaults_replaced():
            self._remake()
            return self(*given, **named)
        if kwargs or arguments.takes_fewer(self.signature, len(args) - self._offset, self._mode):
            args, kwargs = self.bind(args, kwargs)
        if variant is None and self._plain and not kwargs:
            variant = self._variant_for(args, args, self._offset)
        elif variant is None:
            args, checked, offset = self._arguments(args)
            variant = self._variant_for(args, checked, offset, kwargs)
        function, emitted = variant
        if emitted.has_live or self._of_derivative:
            if not self._current(emitted) and not self._remaking:  # (a callee rebound since)
                self._remake()
                self._remaking = True  # (once: what a name finds may be new at each look-up)
                try:
                    return self(*given, **named)
                finally:
                    self._remaking = False
            emitted.refresh()
        try:
            result = function(*args, **kwargs)
        except Exception as exc:
            self._locate(exc, emitted)
            raise
        if not self._one_of_many:
            return result
        if self._options.get("preserve_result") or self._options.get("has_aux"):
            return ((result[0],),) + tuple(result[1:])
        return (result,)

    def _defaults_kept(self):
        """Whether neither f.__defaults__ nor f.__kwdefaults__ was assigned since the code was
        made (for a call that does not pass every argument: then they matter)."""
        of = self._defaults_of
        return of.__defaults__ is self._defaults[0] and (
            self._only_positional or of.__kwdefaults__ is self._defaults[1]
        )

    def _defaults_replaced(self):
        """Whether f.__defaults__ or f.__kwdefaults__ was assigned since the code was made."""
        if self._of_derivative:
            return self.fun._defaults_replaced()
        return not self._defaults_kept()

    def _locate(self, exc, emitted):
        """Say where an error raised in emitted code comes from (f's return or its line)."""
        if not isinstance(exc, ArgumentError):
            codegen.name_user_line(exc)
        elif exc.location is None:  # (raised by a runtime helper: its line in f)
            where = codegen.user_line(exc.__traceback__)
            if where is None or codegen.is_emitted(where[0]):  # (a derivative's own line)
                returned = self._returned(emitted)
                where = returned.filename, returned.lineno
            raise ArgumentError(exc.message, codegen.user_location(*where), exc.hint) from None
        elif codegen.is_emitted(exc.location.filename):
            exc.locate(codegen.user_location(exc.location.filename, exc.location.lineno))

    def _returned(self, emitted=None):
        """Where the user's f returns: of a derivative of a derivative, f's return, not the
        return of the derivative's emitted code."""
        if self._of_derivative:
            return self.fun._returned()
        return self._location("returned", emitted)

    def _current(self, emitted):
        """Whether `emitted` (and for a derivative of a derivative, the code it was made
        from) still calls what the names in f refer to now."""
        inner = (
            self.fun._emitted or next(iter(self.fun._by_statics.values()), None)
            if self._of_derivative
            else None
        )
        return emitted.current() and (inner is None or self.fun._current(inner))

    def _remake(self):
        if self._of_derivative:
            self.fun._remake()
        wrt, mode, options = self._made_with
        self.__init__(self.fun, wrt, mode, **options)

    def __repr__(self):
        mode = "forward sweep" if self._mode is Mode.SPLIT else self._mode.value
        wrt = self.wrt[0] if self._single else self.wrt
        return f"<srcdiff {mode} of {self.fun.__qualname__} wrt={wrt}>"


def grad(
    fun: Callable[..., Any] | None = None,
    wrt: Wrt | None = None,
    preserve_result: bool = False,
    has_aux: bool = False,
    optimized: bool = True,
    *,
    argnums: Wrt | None = None,
) -> Derivative | Callable[[Callable[..., Any]], Derivative]:
    """The gradient of scalar-valued `fun` with respect to argument(s) `wrt` (or `argnums`,
    JAX's name for it; the first argument by default).

    Usable as `grad(f)`, `@grad` and `@grad(wrt=1)`. With a tuple `wrt` it returns a tuple of
    gradients; with `preserve_result=True` it returns `(gradient, value)`. With
    `has_aux=True`, `fun` returns `(value, aux)` and the result gains `aux` at the end."""
    wrt = choose_wrt(wrt, argnums)
    if fun is None:
        return lambda f: grad(
            f, wrt=wrt, preserve_result=preserve_result, has_aux=has_aux, optimized=optimized
        )
    return Derivative(
        fun, wrt, Mode.GRAD, preserve_result=preserve_result, has_aux=has_aux, optimized=optimized
    )


def jvp(
    fun: Callable[..., Any],
    primals: Sequence[Any] | Wrt | None = None,
    tangents: Sequence[Any] | None = None,
    *,
    wrt: Wrt | None = None,
    argnums: Wrt | None = None,
    optimized: bool = True,
) -> Derivative | tuple[Any, Any]:
    """Forward mode, by a transform of f's source, in two forms:

    - `jvp(f, wrt)(*args, tangents)` returns `(f(*args), tangent of the output)`; `tangents`
      is one array for an int `wrt`, a tuple of one per position for a tuple.
    - `jvp(f, primals, tangents)`, as in JAX: f's arguments and a tangent for each (None for
      one held constant); returns `(f(*primals), tangent of the output)`."""
    if tangents is None:  # the first form, wrt given by position or by name
        if primals is not None and wrt is None and argnums is None:
            if not is_wrt(primals):
                raise ArgumentError(
                    "jvp(f, primals, tangents) needs the tangents too",
                    caller(),
                    "jvp(f, (x,), (dx,)), or jvp(f, wrt=0)(x, dx)",
                )
            wrt = primals
        return Derivative(fun, choose_wrt(wrt, argnums), Mode.JVP, optimized=optimized)
    if wrt is not None or argnums is not None:
        raise ArgumentError(
            "jvp(f, primals, tangents) differentiates with respect to each "
            "primal given a tangent: it takes no wrt",
            caller(),
            "pass None as the tangent of a primal to hold it constant",
        )
    if (
        not isinstance(primals, (tuple, list))
        or not isinstance(tangents, (tuple, list))
        or len(primals) != len(tangents)
    ):
        raise ArgumentError(
            "jvp(f, primals, tangents) takes a tuple of f's arguments and a "
            "tuple of as many tangents",
            caller(),
            "jvp(f, (x, w), (dx, None)): None holds w constant",
        )
    positions = tuple(i for i, t in enumerate(tangents) if t is not None)
    if not positions:
        raise ArgumentError(
            "every tangent is None: there is nothing to differentiate",
            caller(),
            "give at least one primal a tangent",
        )
    forward = Derivative(fun, positions, Mode.JVP, optimized=optimized)
    return forward(*primals, tuple(tangents[i] for i in positions))


def config(cache: bool | None = None, specialize: bool | Literal["check"] | None = None) -> None:
    """Process-wide settings: `config(cache=False)` turns the on-disk cache off;
    `config(specialize=False)` always runs the generic emitted code (no per-shape variants),
    `config(specialize="check")` runs each variant beside it and compares their results."""
    if cache is not None:
        _cache_settings["cache"] = bool(cache)
    if specialize is not None:
        if specialize not in (True, False, "check"):
            raise ArgumentError(
                f"specialize must be True, False or 'check', not {specialize!r}",
                caller(),
                "config(specialize=False) turns variants off",
            )
        _specialize_settings["specialize"] = specialize


_cache_settings = cache.settings
_specialize_settings = specialize.settings
