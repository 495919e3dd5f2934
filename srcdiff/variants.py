"""At call time: the code a Derivative runs for arguments of one signature (its emitted
code specialised to their shapes, specialize.py, or forward mode for one float), kept per
signature (a mixin of api.Derivative)."""

import warnings
from inspect import Parameter

from . import ir, specialize
from .arguments import kind_in_key
from .errors import SrcdiffError
from .inference import Unsupported
from .modes import Mode
from .signatures import key
from .transform import derive


class Variants:
    """The variants of a Derivative, which provides the emitted code, modes and options
    these methods use."""

    def _start_variants(self):
        self._variants = {}  # argument signature -> (function, the Emitted it belongs to)
        self._rechecked = {}  # the same for signatures whose calls are each checked
        self._direct = {}  # signature -> the function run as it is: nothing to re-read or wrap
        self._direct_one = {}  # the same for one argument, keyed by its key alone
        self._last = None, None  # (the signature and function of the one made last)
        # called with the emitted function's own arguments (no bound self, no tangents to split)
        self._plain = self._bound is None and self._mode is not Mode.JVP
        self._offset = 1 if self._mode is Mode.VJP else 0
        # calls with this many positional arguments leave no parameter to its default
        positional = (Parameter.POSITIONAL_ONLY, Parameter.POSITIONAL_OR_KEYWORD)
        full = self._offset + sum(p.kind in positional for p in self._parameters)
        self._full = full if self._only_positional else float("inf")

    @property
    def tangents_first(self):
        """Of a forward-mode derivative for one position, the emitted function a call of it
        in f runs with its tangent moved first (made_derivatives.py), where nothing more
        is added to the call; else None."""
        simple = self._bound is None and self._spread is None and self._keywords is None
        if self._mode is Mode.JVP and self._single and simple:
            return self._call
        return None

    def _variant_for(self, args, checked, offset, keywords=None):
        """(function, its Emitted) for the emitted function's arguments `args` (and its
        keyword-only ones, `keywords`): the cached variant of their signature, else a new one
        (checking f's arguments `checked` first). An argument in wrt whose key does not say
        whether it holds complex numbers (an object's is its class) is checked at each call:
        its variant is kept apart, in _rechecked, found by no fast path."""
        signature = tuple(map(key, args))
        if keywords:  # (a signature no call without keywords has: found by no fast path)
            signature += (tuple((name, key(value)) for name, value in keywords.items()),)
        variant = self._variants.get(signature)
        if variant is None:
            self._check(checked, offset, keywords)
            variant = self._rechecked.get(signature)
        if variant is None:
            emitted = self._emitted_for(checked[offset:], keywords or ())
            keyed = self._keyed(checked, offset)
            variant = self._variant(signature, args, emitted, keyed, keywords)
        return variant

    def _keyed(self, checked, offset):
        """Whether the signature of f's arguments `checked` says if those _check looks at
        hold complex numbers."""
        keyed = all(
            kind_in_key(checked[p + offset]) for p in self._positions if p + offset < len(checked)
        )
        if self._of_derivative:
            return keyed and self.fun._keyed(checked[offset:], self.fun._offset)
        return keyed

    def _locate_in(self, function, exc):
        """Say where an error raised in a variant's `function` comes from."""
        self._locate(exc, next(e for f, e in self._variants.values() if f is function))

    @ir.pausing_gc
    def _variant(self, signature, args, emitted, keyed=True, keywords=None):
        """The code to run for arguments of this signature: `emitted` specialised to their
        shapes (specialize.py), or `emitted` as it is (`keyed`: whether it is kept where
        calls find it without a check). `keywords`: the emitted function's keyword-only
        arguments."""
        mode = specialize.settings["specialize"]
        if (
            not mode
            or not self._options.get("optimized", True)
            or self._mode is Mode.SPLIT
            or len(self._variants) + len(self._rechecked) >= specialize.MAX_VARIANTS
        ):
            return emitted.function, emitted
        variant = None  # (None: the generic code, whose module runs when first asked for)
        try:
            if emitted is self._emitted and not keywords:  # (forward mode: no static argument)
                variant = self._forward_variant(args)
            if variant is None:
                variant = (specialize.reverse_variant(emitted, args, keywords), emitted)
        except Unsupported:
            pass
        except Exception as exc:  # noqa: BLE001  (a bug of srcdiff's must not stop the user)
            if mode == "check":
                raise
            warnings.warn(
                f"srcdiff: could not specialise {self.__name__} for these arguments "
                f"({type(exc).__name__}: {exc}); running the generic code",
                stacklevel=3,
            )
        if variant is None:
            variant = (emitted.function, emitted)
        elif mode == "check":
            variant = (specialize.checked(variant[0], emitted), variant[1])
        if not keyed:
            self._rechecked[signature] = variant
            return variant
        self._variants[signature] = variant
        if keywords:
            return variant
        if self._plain and not (emitted.has_live or self._of_derivative or self._one_of_many):
            if len(signature) == 1:
                self._direct_one[signature[0]] = variant[0]
                self._last = signature[0], variant[0]  # (what __call__ checks first)
            else:
                self._direct[signature] = variant[0]
        return variant

    def _forward_variant(self, args):
        """For the gradient with respect to one Python float: forward mode (one JVP)."""
        options = self._options
        if (
            self._mode is not Mode.GRAD
            or len(self.wrt) != 1
            or options.get("has_aux")
            or self._positions[0] >= len(args)
            or type(args[self._positions[0]]) is not float
            or self._jvp is False
        ):
            return None
        try:
            if self._jvp is None:
                self._jvp = derive(
                    self._target,
                    self._positions,
                    Mode.JVP,
                    optimized=options.get("optimized", True),
                    **statics_option(self._statics),
                )
            function = specialize.forward_variant(
                self._jvp,
                args,
                self._positions[0],
                self._call.__name__,
                options.get("preserve_result", False),
            )
        except SrcdiffError:
            self._jvp = False
            return None
        return None if function is None else (function, self._jvp)


def statics_option(statics):
    return {"statics": statics} if statics else {}
