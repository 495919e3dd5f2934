"""The transformations composed from grad, jvp and the split sweep: value_and_grad, vjp, hvp,
hessian, the Jacobians (jacobian, jacrev, jacfwd) and elementwise_grad.

Each returns an object that is called like f and shows, as grad's Derivative does, the emitted
code it runs: `.source`, `.source_for(*args)` (the code a call with such arguments runs), `.fun`
and a repr.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

import numpy as np

from . import runtime
from .api import Derivative, grad, jvp
from .arguments import Wrt, caller, check_shaped_like, choose_wrt, with_zeros_for_none
from .errors import ArgumentError
from .modes import Mode
from .tree import tree_flatten, tree_unflatten
from .tree_blocks import blocks, is_float_leaf, unit_tangents, units


class Transformed:
    """What the transformations of this module return: call it as f is called."""

    kind = "transform"

    def __init__(self, fun: Callable[..., Any], derivative: Derivative):
        self.fun = fun
        self.wrt = derivative.wrt
        self._single = derivative._single
        self._derivative = derivative
        self.__name__ = f"{self.kind}_{getattr(fun, '__name__', 'f')}"
        self.__qualname__ = getattr(fun, "__qualname__", self.__name__)
        self.__doc__ = f"{self.kind} of {self.__qualname__}."

    @property
    def source(self) -> str:
        """The emitted Python source this runs."""
        return self._derivative.source

    def source_for(self, *args: Any) -> str:
        """The code a call with these arguments runs: the emitted source specialised to
        their types and shapes, where srcdiff specialises it, else `.source`."""
        return self._derivative.source_for(*args)

    def __repr__(self) -> str:
        wrt = self.wrt[0] if self._single else self.wrt
        return f"<srcdiff {self.kind} of {self.__qualname__} wrt={wrt}>"

    def _bind(self, args, kwargs):
        """f's arguments all by position (defaults filled in) and its keyword-only ones."""
        try:
            bound = self._derivative.signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise ArgumentError(
                f"cannot call {self.__name__}: {exc}",
                caller(),
                f"pass the arguments {getattr(self.fun, '__name__', 'f')}"
                f"{self._derivative.signature} takes",
            ) from None
        bound.apply_defaults()
        return bound.args, bound.kwargs

    def _one_output(self, out):
        """f's output, which must be one array or number for a Jacobian."""
        if isinstance(out, (tuple, list, dict)):
            raise ArgumentError(
                f"{self.kind} needs {getattr(self.fun, '__name__', 'f')} to return one array "
                f"or number, not a {type(out).__name__}",
                self._derivative._location("returned"),
                "return one array (np.concatenate the outputs), or differentiate each output",
            )
        return out


class ValueAndGrad(Transformed):
    """`(f(*args), gradient)` from one forward sweep."""

    kind = "value_and_grad"

    def __init__(self, fun, wrt, has_aux, optimized):
        super().__init__(
            fun, grad(fun, wrt=wrt, preserve_result=True, has_aux=has_aux, optimized=optimized)
        )
        self._has_aux = has_aux

    @property
    def gradient_and_value(self):
        """The derivative whose (gradient, value) a call in f gives reversed, or None (with
        has_aux) (made_derivatives.move_tangents_first)."""
        return None if self._has_aux else self._derivative

    def __call__(self, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        if self._has_aux:
            gradient, value, aux = self._derivative(*args, **kwargs)
            return (value, aux), gradient
        gradient, value = self._derivative(*args, **kwargs)
        return value, gradient


class VJP(Transformed):
    """`(f(*args), pullback)`: the forward sweep runs once and keeps what the backward sweep
    needs; `pullback(cotangent)` runs only the backward sweep (`fwd_f` and `bwd_f` in
    `.source`)."""

    kind = "vjp"

    def __init__(self, fun, wrt, optimized):
        super().__init__(fun, Derivative(fun, wrt, Mode.SPLIT, optimized=optimized))
        self._given, self._cotangent_first = (wrt, optimized), None

    @property
    def cotangent_first(self):
        """The derivative a pullback's call in f runs, vjp_<f>(cotangent, *args), made when
        first asked for (made_derivatives.pullbacks_as_calls)."""
        if self._cotangent_first is None:
            wrt, optimized = self._given
            self._cotangent_first = Derivative(self.fun, wrt, Mode.VJP, optimized=optimized)
        return self._cotangent_first

    def __call__(self, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        args, kwargs = self._bind(args, kwargs)
        out, saved = self._derivative(*args, **kwargs)
        # (the backward sweep of the code that ran: one per set of static arguments)
        emitted = self._derivative._emitted_of_call(args, kwargs)
        return out, Pullback(self, emitted, saved, self._derivative.wrt_values(args, kwargs), out)


class Pullback:
    """The vector-Jacobian product at the point where vjp was called. Call it with a
    cotangent shaped like f's output (a tuple of them for a tuple); it may be called again."""

    def __init__(self, vjp: VJP, emitted, saved: list, primals: list, out: Any = None):
        self._vjp, self._emitted, self._saved, self._primals = vjp, emitted, saved, primals
        self._out = out

    def __call__(self, cotangent: Any) -> Any:
        emitted = self._emitted
        if cotangent is None:
            raise ArgumentError(
                "the cotangent is None",
                caller(),
                "give a cotangent shaped like f's output (zeros for none)",
            )
        check_shaped_like(
            cotangent,
            self._out,
            "the cotangent",
            caller(),
            "give a cotangent shaped like f's output",
        )
        if emitted.has_live:
            emitted.refresh()
        try:
            # the backward sweep pops its stacks and clears its lists: give it copies
            backward = emitted.functions[emitted.meta.names[1]]
            grads = backward(
                with_zeros_for_none(cotangent, self._out), runtime.unconsumed(self._saved)
            )
        except ArgumentError as exc:
            if exc.location is not None:
                raise
            raise ArgumentError(exc.message, emitted.meta.returned, exc.hint) from None
        grads = tuple(runtime.as_grad(g, x) for g, x in zip(grads, self._primals))
        return grads[0] if self._vjp._single else grads

    def __repr__(self) -> str:
        return f"<srcdiff pullback of {self._vjp.__qualname__}>"


class HVP(Transformed):
    """`hvp(f)(*args, v)`: the Hessian of scalar f times v (forward over reverse)."""

    kind = "hvp"

    def __init__(self, fun, wrt, optimized):
        super().__init__(
            fun, jvp(grad(fun, wrt=wrt, optimized=optimized), wrt=wrt, optimized=optimized)
        )

    @property
    def tangents_first(self):
        """The emitted function item 1 of whose result a call in f gives (Variants')."""
        return self._derivative.tangents_first

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self._check_v_given(args, kwargs)
        product = self._derivative(*args, **kwargs)[1]
        # the gradient for wrt=(k,) is emitted bare (grad wraps it): so is its tangent
        return (product,) if not self._single and len(self.wrt) == 1 else product

    def _check_v_given(self, args, kwargs):
        """Refuse a call without v at the user's line (the jvp of the gradient would name
        its own emitted code)."""
        try:
            parameters = inspect.signature(self.fun).parameters.values()
        except (TypeError, ValueError):  # (no signature to tell: the call says)
            return
        required = [
            p
            for p in parameters
            if p.default is p.empty
            and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
            and p.name not in kwargs
        ]
        if len(args) <= len(required):
            raise ArgumentError(
                f"hvp of {self.fun.__name__} needs its arguments and then v, but got "
                f"{len(args)} argument(s) by position: v is missing",
                caller(),
                f"call it as hvp(f)(*args, v), v shaped like argument {self.wrt[0]}"
                if self._single
                else "call it as hvp(f)(*args, v), v a tuple of one per position in wrt",
            )


class Hessian(Transformed):
    """The Hessian of scalar f, one Hessian-vector product per element of the arguments in
    wrt: shape x.shape + x.shape for one, a tuple of tuples of blocks H[i][j] of shape
    x_i.shape + x_j.shape for a tuple wrt (as JAX)."""

    kind = "hessian"

    def __init__(self, fun, wrt, optimized):
        self._product = HVP(fun, wrt, optimized)
        super().__init__(fun, self._product._derivative)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        args, kwargs = self._bind(args, kwargs)
        xs = self._derivative.wrt_values(args, kwargs)
        every = units(xs)
        products = [
            self._product(*args, unit_tangents(xs, unit, self._single), **kwargs) for unit in every
        ]
        products = [(p,) if self._single else p for p in products]
        rows = [[None] * len(xs) for _ in xs]
        for j, x in enumerate(xs):
            units_j = [u for u in every if u[0] == j]
            taken = [p for p, u in zip(products, every) if u[0] == j]
            for i, out in enumerate(xs):
                rows[i][j] = blocks([p[i] for p in taken], units_j, x, out)
        return rows[0][0] if self._single else tuple(map(tuple, rows))

    def source_for(self, *args: Any) -> str:
        xs = [args[w] for w in self.wrt]
        return self._derivative.source_for(*args, unit_tangents(xs, None, self._single))


class Jacobian(Transformed):
    """The Jacobian of f: shape out.shape + x.shape (a tuple of them for a tuple wrt), by
    reverse mode (one pullback per output element: jacrev), forward mode (one JVP per input
    element: jacfwd), or whichever needs fewer sweeps (jacobian)."""

    def __init__(self, fun, wrt, optimized, kind):
        self.kind = kind
        self._reverse = VJP(fun, wrt, optimized) if kind != "jacfwd" else None
        self._forward = (
            Derivative(fun, wrt, Mode.JVP, optimized=optimized) if kind != "jacrev" else None
        )
        super().__init__(fun, self._forward if kind == "jacfwd" else self._reverse._derivative)

    @property
    def source(self) -> str:
        """The emitted source: the forward and backward sweeps (jacrev), the JVP (jacfwd), or
        both, one after the other (jacobian)."""
        return "\n\n".join(part.source for part in (self._reverse, self._forward) if part)

    def source_for(self, *args: Any) -> str:
        """The code a call with these arguments runs. For `jacobian` this runs f once, to
        learn the size of its output, which decides the mode."""
        if self.kind == "jacrev" or (self.kind == "jacobian" and not self._forward_wins(args)):
            return self._reverse.source_for(*args)
        xs = [args[w] for w in self.wrt]
        return self._forward.source_for(*args, unit_tangents(xs, None, self._single))

    def _forward_wins(self, args):
        out = self._one_output(self.fun(*args))
        return np.size(out) > sum(np.size(args[w]) for w in self.wrt)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        args, kwargs = self._bind(args, kwargs)
        xs = self._derivative.wrt_values(args, kwargs)
        if self.kind == "jacfwd":
            return self._by_forward(args, kwargs, xs)
        out, pullback = self._reverse(*args, **kwargs)
        self._one_output(out)
        if self.kind == "jacobian" and np.size(out) > sum(np.size(x) for x in xs):
            return self._by_forward(args, kwargs, xs)
        rows = []
        for index in np.ndindex(np.shape(out)):
            cotangent = 1.0 if isinstance(out, float) else unit_tangents([out], (0, 0, index), True)
            grads = pullback(cotangent)
            grads = (grads,) if self._single else grads
            if np.iscomplexobj(out):  # (a pullback gives d Re(c* f): c = 1, then c = 1j)
                imaginary = pullback(1j * cotangent)
                imaginary = (imaginary,) if self._single else imaginary
                grads = [g - 1j * np.asarray(i) for g, i in zip(grads, imaginary)]
            rows.append(grads)
        jacobians = [
            _rows_stacked([r[j] for r in rows], x, np.shape(out)) for j, x in enumerate(xs)
        ]
        return jacobians[0] if self._single else tuple(jacobians)

    def _by_forward(self, args, kwargs, xs):
        every, columns, out = units(xs), [], None
        for unit in every:
            out, tangent = self._forward(*args, unit_tangents(xs, unit, self._single), **kwargs)
            columns.append(tangent)
        out = self._one_output(self.fun(*args, **kwargs) if out is None else out)
        jacobians = [
            blocks(
                [c for c, u in zip(columns, every) if u[0] == j],
                [u for u in every if u[0] == j],
                x,
                out,
            )
            for j, x in enumerate(xs)
        ]
        return jacobians[0] if self._single else tuple(jacobians)


def _rows_stacked(rows, x, out_shape):
    """The Jacobian with respect to pytree x from the gradient (like x) of each element of
    the output: each leaf's rows stacked, shaped out_shape + leaf.shape."""
    leaves, treedef = tree_flatten(x)
    per_row = [tree_flatten(r)[0] for r in rows]
    return tree_unflatten(
        treedef,
        [
            np.reshape(
                np.stack([np.asarray(r[m]) for r in per_row])
                if per_row
                else np.zeros((0,) + np.shape(leaf)),
                out_shape + np.shape(leaf),
            )
            if is_float_leaf(leaf)
            else None
            for m, leaf in enumerate(leaves)
        ],
    )


class ElementwiseGrad(Transformed):
    """The derivative of each output element with respect to the matching input element, for
    f applied elementwise: the vjp with a cotangent of ones (autograd's elementwise_grad)."""

    kind = "elementwise_grad"

    def __init__(self, fun, wrt, optimized):
        self._vjp = VJP(fun, wrt, optimized)
        super().__init__(fun, self._vjp._derivative)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        out, pullback = self._vjp(*args, **kwargs)
        self._one_output(out)
        return pullback(1.0 if isinstance(out, float) else np.ones_like(out, dtype=float))


def value_and_grad(
    fun: Callable[..., Any],
    wrt: Wrt | None = None,
    has_aux: bool = False,
    optimized: bool = True,
    *,
    argnums: Wrt | None = None,
) -> ValueAndGrad:
    """`value_and_grad(f)(*args)` returns `(f(*args), gradient)` from one forward sweep
    (`((value, aux), gradient)` with `has_aux=True`)."""
    return ValueAndGrad(fun, choose_wrt(wrt, argnums), has_aux, optimized)


def vjp(
    fun: Callable[..., Any],
    wrt: Wrt | None = None,
    optimized: bool = True,
    *,
    argnums: Wrt | None = None,
) -> VJP:
    """`vjp(f)(*args)` returns `(f(*args), pullback)`; `pullback(cotangent)` is the
    vector-Jacobian product, computed from the values the forward sweep kept."""
    return VJP(fun, choose_wrt(wrt, argnums), optimized)


def hvp(
    fun: Callable[..., Any],
    wrt: Wrt | None = None,
    optimized: bool = True,
    *,
    argnums: Wrt | None = None,
) -> HVP:
    """`hvp(f, wrt)(*args, v)`: the Hessian of scalar f times v, by forward mode over the
    emitted reverse-mode gradient (v a tuple of one per position for a tuple wrt)."""
    return HVP(fun, choose_wrt(wrt, argnums), optimized)


def hessian(
    fun: Callable[..., Any],
    wrt: Wrt | None = None,
    optimized: bool = True,
    *,
    argnums: Wrt | None = None,
) -> Hessian:
    """`hessian(f, wrt)(*args)`: the Hessian of scalar f, shape x.shape + x.shape; for a
    tuple wrt, a tuple of tuples of blocks H[i][j] of shape x_i.shape + x_j.shape."""
    return Hessian(fun, choose_wrt(wrt, argnums), optimized)


def jacobian(
    fun: Callable[..., Any],
    wrt: Wrt | None = None,
    optimized: bool = True,
    *,
    argnums: Wrt | None = None,
) -> Jacobian:
    """`jacobian(f, wrt)(*args)`: the Jacobian, shape out.shape + x.shape (a tuple of them for
    a tuple wrt), by reverse mode when f has no more outputs than inputs, else forward."""
    return Jacobian(fun, choose_wrt(wrt, argnums), optimized, "jacobian")


def jacrev(
    fun: Callable[..., Any],
    wrt: Wrt | None = None,
    optimized: bool = True,
    *,
    argnums: Wrt | None = None,
) -> Jacobian:
    """The Jacobian by reverse mode: one pullback per element of f's output."""
    return Jacobian(fun, choose_wrt(wrt, argnums), optimized, "jacrev")


def jacfwd(
    fun: Callable[..., Any],
    wrt: Wrt | None = None,
    optimized: bool = True,
    *,
    argnums: Wrt | None = None,
) -> Jacobian:
    """The Jacobian by forward mode: one JVP per element of the arguments in wrt."""
    return Jacobian(fun, choose_wrt(wrt, argnums), optimized, "jacfwd")


def elementwise_grad(
    fun: Callable[..., Any],
    wrt: Wrt | None = None,
    optimized: bool = True,
    *,
    argnums: Wrt | None = None,
) -> ElementwiseGrad:
    """For f applied elementwise, the derivative of each output element with respect to its
    input element, in one reverse sweep (autograd's elementwise_grad): the vjp with ones."""
    return ElementwiseGrad(fun, choose_wrt(wrt, argnums), optimized)
