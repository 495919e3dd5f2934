"""The runtime helpers that emitted code calls, as primitives: their templates differentiate
gradient code again (grad of grad, hvp), their shape facts let shapes.py follow gradient code,
and their rewrites turn a call whose outcome the shapes decide into plain numpy
(specialize.py). This module: broadcasting, elementwise edge cases and bookkeeping;
helpers_reductions.py: reductions; helpers_products.py: products, indexing, joins and windows;
helpers_containers.py: containers of adjoints and tangents.

`shape_args` are the argument positions a helper reads only for shape and dtype, so the
reverse transform saves only a shape for them (runtime.shape_of)."""

import gast
import numpy as np

from .. import ir, runtime
from ..shapes import Const, Items, ListOf, Mapping, ShapeOf, Typed, widen
from .registry import EVALUATE, Sample, primitive
from .rewriting import (
    axes_literal,
    dtype_kind,
    dtype_literal,
    is_array,
    is_float,
    literal,
    shape,
)
from .samples import constant, number, positive, real


def helper(*functions, **facts):
    """A runtime helper whose result's type and shape follow from its arguments'."""
    facts.setdefault("shape", EVALUATE)
    return primitive(*functions, **facts)


# --- broadcasting -----------------------------------------------------------------------------


@helper(
    runtime.unbroadcast,
    constant=("x",),
    shape_args={1},
    samples=[
        Sample("runtime.unbroadcast(g, x)", g=real(2, 3, 4), x=real(3, 1), constant=("x",)),
        Sample("runtime.unbroadcast(g, x)", g=real(3), x=number(), constant=("x",)),
    ],
)
class unbroadcast:
    def adjoint(bz, z, g, x):
        bg = runtime.broadcast_like(bz, g)

    def tangent(dz, z, g, x):
        dz = runtime.unbroadcast(dg, x)

    def rewrite(node, g, x):
        if is_float(g) and is_float(x):
            return node.args[0]
        if dtype_kind(g) == "c" and dtype_kind(x) != "c":
            return None  # (a complex adjoint of a real value keeps its real part)
        gs, xs = shape(g), shape(x)
        if gs is None or xs is None:
            return None
        if gs == xs:
            return node.args[0]
        extra = len(gs) - len(xs)
        if not is_array(g) or extra < 0:
            return None
        rest = gs[extra:]
        stretched = tuple(i for i, n in enumerate(xs) if n == 1 and rest[i] != 1)
        if tuple(1 if i in stretched else n for i, n in enumerate(rest)) != xs:
            return None
        out = node.args[0]  # an array: its sum method costs half of np.sum's call
        if extra:
            out = ir.call(ir.attr(out, "sum"), axis=axes_literal(tuple(range(extra))))
        if stretched:
            out = ir.call(
                ir.attr(out, "sum"), axis=axes_literal(stretched), keepdims=ir.const(True)
            )
        return out


@helper(
    runtime.broadcast_like,
    constant=("like",),
    shape_args={1},
    samples=[
        Sample(
            "runtime.broadcast_like(d, like)", d=real(3, 1), like=real(2, 3, 4), constant=("like",)
        )
    ],
)
class broadcast_like:
    def adjoint(bz, z, d, like):
        bd = runtime.unbroadcast(bz, d)

    def tangent(dz, z, d, like):
        dz = runtime.broadcast_like(dd, like)

    def rewrite(node, d, like):
        ds, ls = shape(d), shape(like)
        if ds is None or ls is None:
            return None
        return node.args[0] if ds == ls else ir.call("np.broadcast_to", node.args[0], literal(ls))


@helper(
    runtime.as_grad,
    constant=("x",),
    samples=[Sample("runtime.as_grad(g, x)", g=real(1, 4), x=real(4), constant=("x",))],
)
class as_grad:
    def adjoint(bz, z, g, x):
        bg = runtime.broadcast_like(bz, g)

    def tangent(dz, z, g, x):
        dz = runtime.as_grad(dg, x)

    def rewrite(node, g, x):
        if _given_as_is(g, x):
            return node.args[0]
        g, x = widen(g), widen(x)
        if is_array(g) and is_array(x) and (g.shape, g.dtype) == (x.shape, x.dtype):
            return ir.call(ir.attr(node.args[0], "copy"))  # (not writeable: a view)
        scalar = is_float(g) or isinstance(g, Typed) and g.shape == ()  # (is_float: either)
        if isinstance(x, Typed) and x.type is float and scalar:
            return ir.call("float", node.args[0])
        return None


def _given_as_is(g, x):
    """Whether runtime.as_grad(g, x) is g (or a dict equal to it): an array of x's shape and
    dtype that may be written into, a float for a float, a dict (not a Sparse one) with x's
    keys whose items are each given as they are."""
    if isinstance(g, Mapping) and isinstance(x, Mapping):
        return [k for k, _ in g.items] == [k for k, _ in x.items] and all(
            _given_as_is(a, b) for (_, a), (_, b) in zip(g.items, x.items)
        )
    g, x = widen(g), widen(x)
    if is_array(g) and is_array(x):
        return (g.shape, g.dtype) == (x.shape, x.dtype) and g.writeable
    return isinstance(x, Typed) and x.type is float and isinstance(g, Typed) and g.type is float


@helper(
    runtime.cast_grad,
    constant=("z", "x"),
    shape_args={1, 2},
    samples=[
        Sample("runtime.cast_grad(g, z, x)", g=real(3), z=real(3), x=real(3), constant=("z", "x"))
    ],
)
class cast_grad:
    def adjoint(bout, out, g, z, x):
        bg = runtime.cast_grad(bout, z, g)

    def tangent(dout, out, g, z, x):
        dout = runtime.cast_grad(dg, z, x)


@helper(
    runtime.through_write,
    constant=("into",),
    shape_args={1},
    samples=[
        Sample("runtime.through_write(g, y)", g=real(3), y=real(3), constant=("y",)),
        Sample("runtime.through_write(g, n)", g=real(3), n=constant(np.arange(3))),
    ],
)
class through_write:
    def adjoint(bz, z, g, into):
        bg = runtime.through_write(bz, into)

    def tangent(dz, z, g, into):
        dz = runtime.through_write(dg, into)

    def rewrite(node, g, into):
        kind = dtype_kind(into)
        if kind in ("f", "c") or isinstance(widen(into), (Items, ListOf, Mapping)):
            return node.args[0]
        return None


@helper(
    runtime.real_for,
    constant=("x",),
    samples=[Sample("runtime.real_for(g * (1 + 1j), x)", g=real(3), x=real(3), constant=("x",))],
)
class real_for:
    def adjoint(bz, z, g, x):
        bg = bz

    def tangent(dz, z, g, x):
        dz = runtime.real_for(dg, x)


@helper(runtime.real, samples=[Sample("runtime.real(x * (2 - 1j))", x=real(3))])
class runtime_real:
    def adjoint(bz, z, x):
        bx = bz

    def tangent(dz, z, x):
        dz = runtime.real(dx)


@helper(runtime.conj, samples=[Sample("runtime.conj(x * (2 - 1j)) * x", wrap="abs2", x=real(3))])
class runtime_conj:
    def adjoint(bz, z, x):
        bx = runtime.conj(bz)

    def tangent(dz, z, x):
        dz = runtime.conj(dx)


# --- elementwise edge cases -------------------------------------------------------------------


@helper(
    runtime.winner_share,
    constant=("x", "other"),
    fresh=True,
    samples=[
        Sample(
            "runtime.winner_share(g, x, other)",
            g=real(4),
            x=real(4),
            other=real(4),
            constant=("x", "other"),
        )
    ],
)
class winner_share:
    def adjoint(bz, z, g, x, other):
        bg = runtime.unbroadcast(runtime.winner_share(bz, x, other), g)

    def tangent(dz, z, g, x, other):
        dz = runtime.winner_share(dg, x, other)


# (the tie where both are -inf keeps its 1/2: what it multiplies there is zero)
@helper(
    runtime.logaddexp_share,
    constant=("other",),
    samples=[
        Sample(
            "runtime.logaddexp_share(x, total, other)",
            x=real(4),
            total=real(4),
            other=real(4),
            constant=("other",),
        ),
        Sample("runtime.logaddexp_share(x, total, 0.5)", x=real(2, 3), total=real(3)),
    ],
)
class logaddexp_share:
    def adjoint(bz, z, x, total, other):
        bx = runtime.unbroadcast(bz * z, x)
        btotal = runtime.unbroadcast(-bz * z, total)

    def tangent(dz, z, x, total, other):
        dz = dx * z
        dz = -dtotal * z


@helper(
    runtime.within,
    differentiable=False,
    samples=[Sample("x * runtime.within(x, -0.5, None)", x=real(4))],
)
class within:
    pass


@helper(
    runtime.clipped_low,
    differentiable=False,
    samples=[Sample("x * runtime.clipped_low(x, -0.5, 0.3)", x=real(4))],
)
class clipped_low:
    pass


@helper(
    runtime.clipped_high,
    differentiable=False,
    samples=[Sample("x * runtime.clipped_high(x, None, 0.3)", x=real(4))],
)
class clipped_high:
    pass


@helper(
    runtime.power_slope,
    samples=[
        Sample("runtime.power_slope(x, y)", x=positive(3), y=real(3)),
        Sample("runtime.power_slope(x, 0.0) + runtime.power_slope(x, 2)", x=real(3)),
    ],
)
class power_slope:
    def adjoint(bz, z, x, y):
        bx = runtime.unbroadcast(bz * runtime.power_curvature(x, y), x)
        by = runtime.unbroadcast(
            bz * runtime.unless_int(x ** (y - 1) + z * runtime.log_or_zero(x, y), y), y
        )

    def tangent(dz, z, x, y):
        dz = dx * runtime.power_curvature(x, y)
        dz = dy * runtime.unless_int(x ** (y - 1) + z * runtime.log_or_zero(x, y), y)

    def fold(x, y):  # y * x ** (y - 1) for a number y (and 0 or 1 as the numbers they are)
        if y in (0, 1):
            return ir.const(float(y))
        return gast.BinOp(
            left=ir.const(y),
            op=gast.Mult(),
            right=gast.BinOp(left=x, op=gast.Pow(), right=ir.const(y - 1)),
        )


# (y * power_slope(x, y - 1) would be 0 * inf where y is 0 and x is 0: NaN, for 0)
@helper(
    runtime.power_curvature,
    samples=[
        Sample("runtime.power_curvature(x, y)", x=positive(3), y=real(3)),
        Sample("runtime.power_curvature(x, 0.0) + runtime.power_curvature(x, 3)", x=real(3)),
    ],
)
class power_curvature:
    def adjoint(bz, z, x, y):
        bx = runtime.unbroadcast(bz * y * runtime.power_curvature(x, y - 1), x)
        by = runtime.unbroadcast(
            bz * runtime.unless_int((2 * y - 1) * x ** (y - 2) + z * runtime.log_or_zero(x, y), y),
            y,
        )

    def tangent(dz, z, x, y):
        dz = dx * y * runtime.power_curvature(x, y - 1)
        dz = dy * runtime.unless_int((2 * y - 1) * x ** (y - 2) + z * runtime.log_or_zero(x, y), y)

    def fold(x, y):  # y (y - 1) x ** (y - 2) for a number y
        if y in (0, 1):
            return ir.const(0.0)
        if y == 2:
            return ir.const(2.0)
        return gast.BinOp(
            left=ir.const(y * (y - 1)),
            op=gast.Mult(),
            right=gast.BinOp(left=x, op=gast.Pow(), right=ir.const(y - 2)),
        )


@helper(
    runtime.unless_int,
    constant=("y",),
    samples=[
        Sample("runtime.unless_int(x * 2.0, y)", x=real(3), y=real(3), constant=("y",)),
        Sample("x + runtime.unless_int(x * 2.0, 3)", x=real(3)),
    ],
)
class unless_int:
    def adjoint(bz, z, value, y):
        bvalue = runtime.unless_int(bz, y)

    def tangent(dz, z, value, y):
        dz = runtime.unless_int(dvalue, y)


@helper(
    runtime.log_or_zero,
    constant=("exponent",),
    samples=[
        Sample("runtime.log_or_zero(x)", x=positive(3)),
        Sample("runtime.log_or_zero(x, 2) + runtime.log_or_zero(x, 2.0) * x", x=positive(3)),
    ],
)
class log_or_zero:
    def adjoint(bz, z, x, exponent=None):
        bx = runtime.unless_int(runtime.divide_or_zero(bz, x), exponent)

    def tangent(dz, z, x, exponent=None):
        dz = runtime.unless_int(runtime.divide_or_zero(dx, x), exponent)

    def fold(x, exponent=None):
        if exponent is not None and np.asarray(exponent).dtype.kind in "biu":
            return ir.const(0.0)
        return ir.const(float(np.log(x)) if x else 0.0) if x >= 0 else None


@helper(
    runtime.divide_or_zero,
    samples=[Sample("runtime.divide_or_zero(a, b)", a=real(3, 1), b=positive(4))],
)
class divide_or_zero:
    def adjoint(bz, z, a, b):
        ba = runtime.unbroadcast(runtime.divide_or_zero(bz, b), a)
        bb = runtime.unbroadcast(-runtime.divide_or_zero(bz * z, b), b)

    def tangent(dz, z, a, b):
        dz = runtime.divide_or_zero(da, b)
        dz = -runtime.divide_or_zero(db * z, b)

    def fold(a, b):
        return gast.BinOp(left=a, op=gast.Div(), right=ir.const(b)) if b else ir.const(0.0)


# --- bookkeeping: seeds, zeros, saved shapes, checks ------------------------------------------


@helper(
    runtime.grad_seed,
    differentiable=False,
    samples=[Sample("x * runtime.grad_seed(1.0)", x=real(3))],
)
class grad_seed:
    def rewrite(node, z):
        if is_float(z):
            return ir.const(1.0)
        z = widen(z)
        if (
            isinstance(z, Typed)
            and z.shape == ()
            and z.type is not float
            and z.dtype.kind == "f"
            and dtype_literal(z.dtype) is not None
        ):
            return ir.call("np.ones", literal(()), dtype_literal(z.dtype))  # a 0-d array's
        return None


@helper(
    runtime.zeros_like,
    differentiable=False,
    shape_args={0},
    samples=[Sample("x + runtime.zeros_like(x)", x=real(3))],
)
class zeros_like:
    def rewrite(node, x):
        x = widen(x)
        if isinstance(x, Typed) and x.type is float:
            return ir.const(0.0)
        if is_array(x):
            return ir.call("np.zeros_like", node.args[0])
        if isinstance(x, ShapeOf) and dtype_literal(x.dtype) is not None:
            return ir.call("np.zeros", literal(x.shape), dtype_literal(x.dtype))
        return None


@helper(
    runtime.shape_of,
    differentiable=False,
    samples=[Sample("x * np.shape(runtime.shape_of(x))[0]", x=real(3))],
)
class shape_of:
    def rewrite(node, x):
        x = widen(x)
        if (
            isinstance(x, ShapeOf)
            or isinstance(x, Typed)
            and not (x.is_array and int(np.prod(x.shape)) > 4096)
        ):
            return node.args[0]  # (a large array's shape is what the stack should keep)
        return None


@helper(
    runtime.zero_tangent,
    differentiable=False,
    samples=[Sample("x + runtime.zero_tangent(x)", x=real(3))],
)
class zero_tangent:
    def rewrite(node, x):
        x = widen(x)
        if isinstance(x, Typed) and x.type is float:
            return ir.const(0.0)
        return ir.call("np.zeros_like", node.args[0]) if is_array(x) else None


@helper(
    runtime.check_unpack,
    differentiable=False,
    pure=False,
    samples=[Sample("x * (runtime.check_unpack(x, 3) is None)", x=real(3))],
)
class check_unpack:
    def rewrite(node, value, count):
        """Nothing to check when the value's length is known (a bare None: the statement
        goes)."""
        if isinstance(count, Const) and (
            isinstance(value, Items)
            and len(value.items) == count.value
            or isinstance(value, Const)
            and isinstance(value.value, tuple)
            and len(value.value) == count.value
            or isinstance(value, Typed)
            and value.is_array
            and value.shape[:1] == (count.value,)
        ):
            return ir.const(None)
        return None


@helper(
    runtime.check_keys,
    differentiable=False,
    pure=False,
    samples=[Sample("x * (runtime.check_keys({'a': x}, ('a',)) is None)", x=real(3))],
)
class check_keys:
    pass


# checks that raise for a program srcdiff cannot follow: never dropped
for check, call in (
    (runtime.check_not_shared, "runtime.check_not_shared(1.0, 'y', 'z', '', 1)"),
    (runtime.check_unviewed, "runtime.check_unviewed(x, 0, (), 'x', '', '', 1)"),
    (runtime.check_item_alone, "runtime.check_item_alone([x, 1.0], 0, 'p[0]', '+', '', 1)"),
    (runtime.check_apart, "runtime.check_apart(x, 'x', True, (), (), '', 1)"),
):
    helper(
        check,
        differentiable=False,
        pure=False,
        samples=[Sample(f"x * ({call} is None)", x=real(3))],
    )(type(check.__name__, (), {}))
