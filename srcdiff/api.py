"""The public API: grad, value_and_grad, vjp."""
import inspect
import linecache
import os
import sys
import warnings

import numpy as np

from . import cache, runtime, specialize
from .errors import ArgumentError, Location, SrcdiffError
from .shapes import Unsupported, key
from .transform import derive


def _caller():
    """The location of the user's code that called into srcdiff."""
    package = os.path.dirname(os.path.abspath(__file__))
    frame = sys._getframe(1)
    while frame is not None and os.path.dirname(os.path.abspath(
            frame.f_code.co_filename)) == package:
        frame = frame.f_back
    if frame is None:
        return None
    filename, lineno = frame.f_code.co_filename, frame.f_lineno
    return Location(filename, lineno, linecache.getline(filename, lineno).rstrip())


def _normalize_wrt(wrt):
    if isinstance(wrt, (int, np.integer)) and not isinstance(wrt, bool):
        return (int(wrt),), True
    if isinstance(wrt, (tuple, list)) and wrt and all(
            isinstance(w, (int, np.integer)) and not isinstance(w, bool) for w in wrt):
        return tuple(int(w) for w in wrt), False
    raise ArgumentError(f"wrt must be an int or a non-empty tuple of ints, not {wrt!r}",
                        hint="wrt=0 differentiates with respect to the first argument")


class Derivative:
    """A differentiated function: call it like the original; `.source` is the emitted code."""

    def __init__(self, fun, wrt=0, mode="grad", **options):
        self.fun = fun
        self._bound = getattr(fun, "__self__", None) if inspect.ismethod(fun) else None
        target = fun.__func__ if inspect.ismethod(fun) else fun
        if isinstance(fun, Derivative):  # higher order: differentiate the emitted source
            self._bound, target = fun._bound, fun._call
        self._target = target
        shift = 1 if self._bound is not None else 0
        self._jvp = None  # the emitted JVP behind forward-mode variants (False: none possible)
        try:
            self.wrt, self._single = _normalize_wrt(wrt)
            self._positions = tuple(w + shift for w in self.wrt)
            self._emitted = derive(target, self._positions, mode, **options)
        except SrcdiffError as exc:
            if exc.location is not None:
                raise
            raise type(exc)(exc.message, _caller(), exc.hint) from None
        self._call = self._emitted.function
        self._mode = mode
        self._options = options
        self._variants = {}  # argument signature -> (function, the Emitted it belongs to)
        # called with the emitted function's own arguments (no bound self, no tangents to split)
        self._plain = self._bound is None and mode != "jvp"
        self._offset = 1 if mode == "vjp" else 0
        # wrt=(k,) gives a tuple of one gradient, though the emitted code returns it bare
        self._one_of_many = not self._single and len(self.wrt) == 1 and mode != "jvp"
        self.__name__ = self._call.__name__
        self.__qualname__ = getattr(fun, "__qualname__", self.__name__)
        self.__doc__ = f"{'Gradient' if mode == 'grad' else 'VJP'} of {fun.__qualname__}."

    @property
    def source(self):
        return self._emitted.full_source()

    def source_for(self, *args):
        """The code a call with these arguments runs (without making it): the emitted source
        specialised to their types and shapes (specialize.py), or `.source` when it runs the
        generic code. Only the arguments' types, shapes and dtypes matter, not their values."""
        variant = self._variant_for(*self._arguments(args))
        return getattr(variant[0], "source", None) or self.source

    def _check(self, args, offset):
        for position, name in zip(self._positions, self._emitted.meta["params"]):
            if position + offset >= len(args):
                continue
            value = args[position + offset]
            if isinstance(value, (dict, list, tuple)):
                continue  # a pytree: its float leaves get gradients, others None
            kind = np.asarray(value).dtype.kind if not isinstance(value, float) else "f"
            if kind == "c":
                raise ArgumentError(
                    f"argument {name!r} is complex ({np.asarray(value).dtype}): srcdiff "
                    "differentiates with respect to real arguments only",
                    Location(*self._emitted.meta["def"]),
                    "pass the real and imaginary parts as two float arguments and combine "
                    "them inside the function (x + 1j * y)")
            if kind != "f":
                raise ArgumentError(
                    f"argument {name!r} is {type(value).__name__} with dtype "
                    f"{np.asarray(value).dtype}, which cannot be differentiated",
                    Location(*self._emitted.meta["def"]),
                    "pass a float or a float array, or leave it out of wrt")

    def _arguments(self, args):
        """(the emitted function's arguments, f's, the position of f's first among them)"""
        offset = self._offset
        if self._bound is not None and self._mode != "jvp":
            args = list(args[:offset]) + [self._bound] + list(args[offset:])
        if self._mode != "jvp":
            return args, args, offset
        *args, tangents = args  # f's arguments, then the tangents (one per wrt position)
        tangents = (tangents,) if self._single else tuple(tangents)
        if len(tangents) != len(self.wrt):
            raise ArgumentError(f"jvp with wrt={self.wrt} needs {len(self.wrt)} "
                                f"tangent(s), got {len(tangents)}",
                                Location(*self._emitted.meta["def"]))
        if self._bound is not None:
            args = [self._bound] + args
        return list(tangents) + args, args, offset

    def __call__(self, *args, **kwargs):
        if self._plain and not kwargs:  # the common case, kept short: calls may be tiny
            variant = self._variants.get(tuple(map(key, args))) or \
                self._variant_for(args, args, self._offset)
        else:
            args, checked, offset = self._arguments(args)
            if kwargs:
                self._check(checked, offset)
                variant = (self._call, self._emitted)
            else:
                variant = self._variant_for(args, checked, offset)
        function, emitted = variant
        if emitted.has_live:
            emitted.refresh()
        try:
            result = function(*args, **kwargs)
        except ArgumentError as exc:
            if exc.location is None:
                raise ArgumentError(exc.message, Location(*self._emitted.meta["return"]),
                                    exc.hint) from None
            raise
        if not self._one_of_many:
            return result
        if self._options.get("preserve_result") or self._options.get("has_aux"):
            return ((result[0],),) + tuple(result[1:])
        return (result,)

    def __repr__(self):
        return f"<srcdiff {self._mode} of {self.fun.__qualname__} wrt={self.wrt}>"

    def _variant_for(self, args, checked, offset):
        """(function, its Emitted) for the emitted function's arguments `args`: the cached
        variant of their signature, else a new one (checking f's arguments `checked` first)."""
        signature = tuple(map(key, args))
        variant = self._variants.get(signature)
        if variant is None:
            self._check(checked, offset)
            variant = self._variant(signature, args)
        return variant

    def _variant(self, signature, args):
        """The code to run for arguments of this signature: the emitted code specialised to
        their shapes (specialize.py), or the generic emitted code."""
        variant = (self._call, self._emitted)
        mode = specialize.settings["specialize"]
        if not mode or not self._options.get("optimized", True) or \
                len(self._variants) >= specialize.MAX_VARIANTS:
            return variant
        try:
            variant = self._forward_variant(args) or variant
            if variant[0] is self._call:
                variant = (specialize.reverse_variant(self._emitted, args), self._emitted)
        except Unsupported:
            pass
        except Exception as exc:  # noqa: BLE001  (a bug of srcdiff's must not stop the user)
            if mode == "check":
                raise
            warnings.warn(f"srcdiff: could not specialise {self.__name__} for these arguments "
                          f"({type(exc).__name__}: {exc}); running the generic code",
                          stacklevel=3)
        if mode == "check" and variant[0] is not self._call:
            variant = (_checked(variant[0]), variant[1])
        self._variants[signature] = variant
        return variant

    def _forward_variant(self, args):
        """For the gradient with respect to one Python float: forward mode (one JVP)."""
        options = self._options
        if self._mode != "grad" or len(self.wrt) != 1 or options.get("has_aux") or \
                self._positions[0] >= len(args) or type(args[self._positions[0]]) is not float \
                or self._jvp is False:
            return None
        try:
            if self._jvp is None:
                self._jvp = derive(self._target, self._positions, "jvp",
                                   optimized=options.get("optimized", True))
            function = specialize.forward_variant(
                self._jvp, args, self._positions[0], self._call.__name__,
                options.get("preserve_result", False))
        except SrcdiffError:
            self._jvp = False
            return None
        return None if function is None else (function, self._jvp)


def _checked(variant):
    """The variant, run together with the generic code it was made from, whose results it
    must match in every element (config(specialize="check"))."""
    def both(*args, **kwargs):
        return runtime.same_as(variant(*args, **kwargs), variant.reference(*args, **kwargs))

    both.source = variant.source
    return both


def grad(fun=None, wrt=0, preserve_result=False, has_aux=False, optimized=True):
    """The gradient of scalar-valued `fun` with respect to argument(s) `wrt`.

    Usable as `grad(f)`, `@grad` and `@grad(wrt=1)`. With a tuple `wrt` it returns a tuple of
    gradients; with `preserve_result=True` it returns `(gradient, value)`. With
    `has_aux=True`, `fun` returns `(value, aux)` and the result gains `aux` at the end."""
    if fun is None:
        return lambda f: grad(f, wrt=wrt, preserve_result=preserve_result, has_aux=has_aux,
                              optimized=optimized)
    return Derivative(fun, wrt, "grad", preserve_result=preserve_result, has_aux=has_aux,
                      optimized=optimized)


def value_and_grad(fun, wrt=0, has_aux=False, optimized=True):
    """`value_and_grad(f)(*args)` returns `(f(*args), gradient)` from one forward sweep
    (`((value, aux), gradient)` with `has_aux=True`)."""
    derivative = grad(fun, wrt=wrt, preserve_result=True, has_aux=has_aux, optimized=optimized)

    def value_and_gradient(*args, **kwargs):
        if has_aux:
            gradient, value, aux = derivative(*args, **kwargs)
            return (value, aux), gradient
        gradient, value = derivative(*args, **kwargs)
        return value, gradient

    value_and_gradient.source = derivative.source
    return value_and_gradient


def vjp(fun, wrt=0, optimized=True):
    """`vjp(f)(*args)` returns `(f(*args), pullback)`; `pullback(cotangent)` is the
    vector-Jacobian product. The pullback reruns the forward sweep of the emitted code."""
    derivative = Derivative(fun, wrt, "vjp", optimized=optimized)

    def forward(*args, **kwargs):
        out = fun(*args, **kwargs)
        return out, lambda cotangent: derivative(cotangent, *args, **kwargs)

    forward.source = derivative.source
    return forward


def jvp(fun, wrt=0, optimized=True):
    """`jvp(f, wrt)(*args, tangents)` returns `(f(*args), tangent of the output)`, by a
    forward-mode transform of f's source; `tangents` is one array per `wrt` position."""
    return Derivative(fun, wrt, "jvp", optimized=optimized)


def hvp(fun, wrt=0, optimized=True):
    """`hvp(f, wrt)(*args, v)`: the Hessian of scalar f times v, by forward mode over the
    emitted reverse-mode gradient."""
    tangent_of_gradient = jvp(grad(fun, wrt=wrt, optimized=optimized), wrt=wrt,
                              optimized=optimized)

    def hessian_vector_product(*args):
        return tangent_of_gradient(*args)[1]

    hessian_vector_product.source = tangent_of_gradient.source
    return hessian_vector_product


def hessian(fun, wrt=0, optimized=True):
    """`hessian(f, wrt)(*args)`: the Hessian of scalar f with respect to argument `wrt`
    (shape x.shape + x.shape), one Hessian-vector product per element of x."""
    product = hvp(fun, wrt=wrt, optimized=optimized)

    def full_hessian(*args):
        x = np.asarray(args[wrt], dtype=float)
        rows = []
        for index in np.ndindex(x.shape):
            basis = np.zeros_like(x)
            basis[index] = 1.0
            rows.append(np.asarray(product(*args, basis if x.ndim else float(basis))))
        return np.reshape(np.stack(rows, axis=-1), x.shape + x.shape)

    full_hessian.source = product.source
    return full_hessian


def config(cache=None, specialize=None):
    """Process-wide settings: `config(cache=False)` turns the on-disk cache off;
    `config(specialize=False)` always runs the generic emitted code (no per-shape variants),
    `config(specialize="check")` runs each variant beside it and compares their results."""
    if cache is not None:
        _cache_settings["cache"] = bool(cache)
    if specialize is not None:
        if specialize not in (True, False, "check"):
            raise ArgumentError(f"specialize must be True, False or 'check', not {specialize!r}",
                                _caller(), "config(specialize=False) turns variants off")
        _specialize_settings["specialize"] = specialize


_cache_settings = cache.settings
_specialize_settings = specialize.settings
