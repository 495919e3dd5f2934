"""Elementwise primitives: the arithmetic operators and numpy's ufuncs (the trigonometric and
hyperbolic ones: trigonometric.py).

Broadcasting is undone by runtime.unbroadcast in adjoints and applied by
runtime.broadcast_like in tangents. max/min (np.maximum, np.minimum) split the gradient
evenly between tied elements. Complex numbers follow autograd's convention: products'
adjoints are not conjugated, and a complex adjoint reaching a real value keeps its real part
(runtime.real_for).
"""

import builtins

import gast
import numpy as np

from .. import runtime
from .registry import EVALUATE, Sample, primitive
from .samples import constant, number, positive, real


def ufunc(*functions, **facts):
    """A ufunc's record: numpy tells its output's shape and dtype, which is a new array."""
    return primitive(*functions, shape=EVALUATE, fresh=True, **facts)


def folded(fn):
    """Fold fn(c) of a positive number c to a Python float (a float64 scalar would not be
    weakly typed, and would turn float32 arithmetic into float64)."""

    def fold(value):
        return gast.Constant(value=float(fn(value)), kind=None) if value > 0 else None

    return fold


def unary(call, x=real(3, 4), scalar=number()):
    return [Sample(call, x=x), Sample(call, x=scalar)]


def binary(call, x1=real(3, 1), x2=real(4)):
    return [Sample(call, x1=x1, x2=x2), Sample(call, x1=number(), x2=x2)]


# --- arithmetic -------------------------------------------------------------------------------


@ufunc(np.add, operators=(gast.Add,), samples=binary("x1 + x2") + binary("np.add(x1, x2)"))
class add:
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(bz, x1)
        bx2 = runtime.unbroadcast(bz, x2)

    def tangent(dz, z, x1, x2):
        dz = runtime.broadcast_like(dx1, z)
        dz = runtime.broadcast_like(dx2, z)


@ufunc(
    np.subtract, operators=(gast.Sub,), samples=binary("x1 - x2") + binary("np.subtract(x1, x2)")
)
class subtract:
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(bz, x1)
        bx2 = runtime.unbroadcast(-bz, x2)

    def tangent(dz, z, x1, x2):
        dz = runtime.broadcast_like(dx1, z)
        dz = runtime.broadcast_like(-dx2, z)


@ufunc(
    np.multiply, operators=(gast.Mult,), samples=binary("x1 * x2") + binary("np.multiply(x1, x2)")
)
class multiply:
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(bz * x2, x1)
        bx2 = runtime.unbroadcast(bz * x1, x2)

    def tangent(dz, z, x1, x2):
        dz = dx1 * x2
        dz = x1 * dx2


@ufunc(
    np.true_divide,
    operators=(gast.Div,),
    samples=binary("x1 / x2", x2=positive(4)) + binary("np.divide(x1, x2)", x2=positive(4)),
)
class true_divide:
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(bz / x2, x1)
        bx2 = runtime.unbroadcast(-bz * z / x2, x2)

    def tangent(dz, z, x1, x2):
        dz = dx1 / x2
        dz = -dx2 * z / x2


# at the edge points autograd's values: d/dx x ** 0 is 0 (also at x = 0), d/dy 0 ** y is 0
@ufunc(
    np.power,
    np.float_power,
    operators=(gast.Pow,),
    samples=binary("x1 ** x2", x1=positive(3, 1))
    + [
        Sample("x ** 3 + 2.0 ** x + x ** 0.5", x=positive(4)),
        Sample("np.power(x1, x2)", x1=positive(3), x2=real(3)),
        Sample("np.float_power(x1, x2)", x1=positive(3), x2=real(3)),
    ],
)
class power:
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(bz * runtime.power_slope(x1, x2), x1)
        bx2 = runtime.unbroadcast(bz * z * runtime.unless_int(runtime.log_or_zero(x1, x2), x2), x2)

    def tangent(dz, z, x1, x2):
        dz = dx1 * runtime.power_slope(x1, x2)
        dz = dx2 * z * runtime.unless_int(runtime.log_or_zero(x1, x2), x2)


@ufunc(np.negative, samples=unary("-x") + unary("np.negative(x)"))
class negative:
    def adjoint(bz, z, x):
        bx = -bz

    def tangent(dz, z, x):
        dz = -dx


@ufunc(np.positive, samples=unary("np.positive(x)"))
class positive_:
    def adjoint(bz, z, x):
        bx = bz

    def tangent(dz, z, x):
        dz = dx


@ufunc(
    np.maximum,
    np.fmax,
    samples=binary("np.maximum(x1, x2)")
    + binary("np.fmax(x1, x2)")
    + [Sample("np.maximum(x, 0.0) * x", x=real(7))],
)
class maximum:
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(runtime.winner_share(bz, x1, x2), x1)
        bx2 = runtime.unbroadcast(runtime.winner_share(bz, x2, x1), x2)

    def tangent(dz, z, x1, x2):
        dz = runtime.winner_share(dx1, x1, x2)
        dz = runtime.winner_share(dx2, x2, x1)


@ufunc(np.minimum, np.fmin, samples=binary("np.minimum(x1, x2)") + binary("np.fmin(x1, x2)"))
class minimum:
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(runtime.winner_share(bz, x2, x1), x1)
        bx2 = runtime.unbroadcast(runtime.winner_share(bz, x1, x2), x2)

    def tangent(dz, z, x1, x2):
        dz = runtime.winner_share(dx1, x2, x1)
        dz = runtime.winner_share(dx2, x1, x2)


@ufunc(
    np.remainder,
    samples=binary("np.remainder(x1, x2)", x2=positive(4)) + binary("x1 % x2", x2=positive(4)),
    operators=(gast.Mod,),
)
class remainder:  # x1 - floor(x1 / x2) * x2
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(bz, x1)
        bx2 = runtime.unbroadcast(-bz * np.floor(x1 / x2), x2)

    def tangent(dz, z, x1, x2):
        dz = runtime.broadcast_like(dx1, z)
        dz = -dx2 * np.floor(x1 / x2)


@ufunc(np.fmod, samples=binary("np.fmod(x1, x2)", x2=positive(4)))
class fmod:  # x1 - trunc(x1 / x2) * x2
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(bz, x1)
        bx2 = runtime.unbroadcast(-bz * np.trunc(x1 / x2), x2)

    def tangent(dz, z, x1, x2):
        dz = runtime.broadcast_like(dx1, z)
        dz = -dx2 * np.trunc(x1 / x2)


# --- exponentials and logarithms --------------------------------------------------------------


@ufunc(np.exp, samples=unary("np.exp(x)"))
class exp:
    fold = folded(np.exp)

    def adjoint(bz, z, x):
        bx = bz * z

    def tangent(dz, z, x):
        dz = dx * z


@ufunc(np.exp2, samples=unary("np.exp2(x)"))
class exp2:
    def adjoint(bz, z, x):
        bx = bz * z * 0.6931471805599453

    def tangent(dz, z, x):
        dz = dx * z * 0.6931471805599453


@ufunc(np.expm1, samples=unary("np.expm1(x)"))
class expm1:
    def adjoint(bz, z, x):
        bx = bz * (z + 1)

    def tangent(dz, z, x):
        dz = dx * (z + 1)


@ufunc(np.log, samples=unary("np.log(x)", positive(3, 4)))
class log:
    fold = folded(np.log)

    def adjoint(bz, z, x):
        bx = bz / x

    def tangent(dz, z, x):
        dz = dx / x


@ufunc(np.log1p, samples=unary("np.log1p(x)", positive(3, 4)))
class log1p:
    def adjoint(bz, z, x):
        bx = bz / (1 + x)

    def tangent(dz, z, x):
        dz = dx / (1 + x)


@ufunc(np.log2, samples=unary("np.log2(x)", positive(3, 4)))
class log2:
    def adjoint(bz, z, x):
        bx = bz / (x * 0.6931471805599453)

    def tangent(dz, z, x):
        dz = dx / (x * 0.6931471805599453)


@ufunc(np.log10, samples=unary("np.log10(x)", positive(3, 4)))
class log10:
    def adjoint(bz, z, x):
        bx = bz / (x * 2.302585092994046)

    def tangent(dz, z, x):
        dz = dx / (x * 2.302585092994046)


@ufunc(np.logaddexp, samples=binary("np.logaddexp(x1, x2)"))
class logaddexp:
    def adjoint(bz, z, x1, x2):  # (each weighed by exp(x - z), half at a tie: of -infs too)
        bx1 = runtime.unbroadcast(bz * runtime.logaddexp_share(x1, z, x2), x1)
        bx2 = runtime.unbroadcast(bz * runtime.logaddexp_share(x2, z, x1), x2)

    def tangent(dz, z, x1, x2):
        dz = dx1 * runtime.logaddexp_share(x1, z, x2)
        dz = dx2 * runtime.logaddexp_share(x2, z, x1)


@ufunc(np.logaddexp2, samples=binary("np.logaddexp2(x1, x2)"))
class logaddexp2:
    def adjoint(bz, z, x1, x2):  # (2**(x - z) is exp((x - z) ln 2))
        bx1 = runtime.unbroadcast(
            bz
            * runtime.logaddexp_share(
                x1 * 0.6931471805599453, z * 0.6931471805599453, x2 * 0.6931471805599453
            ),
            x1,
        )
        bx2 = runtime.unbroadcast(
            bz
            * runtime.logaddexp_share(
                x2 * 0.6931471805599453, z * 0.6931471805599453, x1 * 0.6931471805599453
            ),
            x2,
        )

    def tangent(dz, z, x1, x2):
        dz = dx1 * runtime.logaddexp_share(
            x1 * 0.6931471805599453, z * 0.6931471805599453, x2 * 0.6931471805599453
        )
        dz = dx2 * runtime.logaddexp_share(
            x2 * 0.6931471805599453, z * 0.6931471805599453, x1 * 0.6931471805599453
        )


# --- powers and roots -------------------------------------------------------------------------


@ufunc(np.sqrt, samples=unary("np.sqrt(x)", positive(3, 4)))
class sqrt:
    fold = folded(np.sqrt)

    def adjoint(bz, z, x):
        bx = bz / (2 * z)

    def tangent(dz, z, x):
        dz = dx / (2 * z)


@ufunc(np.cbrt, samples=unary("np.cbrt(x)", positive(3, 4)))
class cbrt:
    def adjoint(bz, z, x):
        bx = bz / (3 * z * z)

    def tangent(dz, z, x):
        dz = dx / (3 * z * z)


@ufunc(np.square, samples=unary("np.square(x)"))
class square:
    def adjoint(bz, z, x):
        bx = bz * 2 * x

    def tangent(dz, z, x):
        dz = dx * 2 * x  # (2 * x would repeat a list x)


@ufunc(np.reciprocal, samples=unary("np.reciprocal(x)", positive(3, 4)))
class reciprocal:
    def adjoint(bz, z, x):
        bx = -bz * z * z

    def tangent(dz, z, x):
        dz = -dx * z * z


@ufunc(np.hypot, samples=binary("np.hypot(x1, x2)"))
class hypot:
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(runtime.divide_or_zero(bz * x1, z), x1)
        bx2 = runtime.unbroadcast(runtime.divide_or_zero(bz * x2, z), x2)

    def tangent(dz, z, x1, x2):
        dz = runtime.divide_or_zero(dx1 * x1, z)
        dz = runtime.divide_or_zero(dx2 * x2, z)


# --- absolute values, signs and limits --------------------------------------------------------


@ufunc(
    np.abs,
    builtins.abs,
    samples=unary("np.abs(x)")
    + unary("abs(x)")
    + [Sample("np.abs(x)", x=constant(np.zeros(3)), second_order=False)],
)
class abs_:
    def adjoint(bz, z, x):
        bx = runtime.divide_or_zero(bz * runtime.conj(x), z)  # the sign, or x's phase conjugated

    def tangent(dz, z, x):
        dz = runtime.real(runtime.divide_or_zero(dx * runtime.conj(x), z))


@ufunc(np.fabs, samples=unary("np.fabs(x)"))
class fabs:
    def adjoint(bz, z, x):
        bx = bz * np.sign(x)

    def tangent(dz, z, x):
        dz = dx * np.sign(x)


@primitive(
    np.clip,
    methods=("clip",),
    shape=EVALUATE,
    fresh=True,
    keyword_aliases=(("min", "a_min"), ("max", "a_max")),
    samples=[
        Sample("np.clip(x, -0.5, 0.5)", x=real(8)),
        Sample("np.clip(x, None, 0.2) * x", x=real(8)),
        Sample("np.clip(x, min=-0.5) + x.clip(max=0.3)", x=real(8)),
        Sample("x.clip(-0.3, 0.4)", x=real(8)),
        Sample(  # (x broadcast against its bounds)
            "x * np.clip(x, lo, hi)",
            x=real(1, 3),
            lo=positive(2, 3, low=-1.0, high=-0.3),
            hi=positive(2, 1, low=0.4, high=1.2),
        ),
        Sample(
            "np.clip(x, lo, hi)",
            x=real(8),
            lo=positive(8, low=-1.0, high=-0.3),
            hi=positive(8, low=0.4, high=1.2),
        ),
    ],
)
class clip:
    def adjoint(bz, z, a, a_min=None, a_max=None):
        ba = runtime.unbroadcast(bz * runtime.within(a, a_min, a_max), a)
        ba_min = runtime.unbroadcast(bz * runtime.clipped_low(a, a_min, a_max), a_min)
        ba_max = runtime.unbroadcast(bz * runtime.clipped_high(a, a_min, a_max), a_max)

    def tangent(dz, z, a, a_min=None, a_max=None):
        dz = da * runtime.within(a, a_min, a_max)
        dz = da_min * runtime.clipped_low(a, a_min, a_max)
        dz = da_max * runtime.clipped_high(a, a_min, a_max)


@ufunc(np.nan_to_num, samples=unary("np.nan_to_num(x)"))
class nan_to_num:  # the identity where x is finite, and flat where it is replaced
    def adjoint(bz, z, x, copy=True, nan=0.0, posinf=None, neginf=None):
        bx = np.where(np.isfinite(x), bz, 0)

    def tangent(dz, z, x, copy=True, nan=0.0, posinf=None, neginf=None):
        dz = np.where(np.isfinite(x), dx, 0)


def _where_shape(args, kwargs):
    from ..shapes import UNKNOWN, evaluate

    # np.where(c) gives the indices where c holds: as many as its values say
    return evaluate(np.where, args, kwargs, fresh=True) if len(args) == 3 else UNKNOWN


# (the condition is a mask: in a derivative's own derivative it arrives among the saved
# values that vary, and carries none)
@primitive(
    np.where,
    constant=("condition",),
    shape=_where_shape,
    samples=[
        Sample("np.where(x > y, x, y * 2)", x=real(3, 4), y=real(4)),
        Sample("np.where(x > 0, x, 0.0)", x=real(5)),
    ],
)
class where:
    def adjoint(bz, z, condition, x, y):
        bx = runtime.unbroadcast(np.where(condition, bz, 0), x)
        by = runtime.unbroadcast(np.where(condition, 0, bz), y)

    def tangent(dz, z, condition, x, y):
        dz = np.where(condition, dx, 0)
        dz = np.where(condition, 0, dy)


# --- complex numbers --------------------------------------------------------------------------


@primitive(  # (a view: of the array itself, for a real one)
    np.real,
    attributes=("real",),
    shape=EVALUATE,
    view=True,
    samples=[
        Sample("np.real(np.exp(1j * x) * (2 - 1j))", x=real(4)),
        Sample("(x * (1 + 2j)).real", x=real(4)),
    ],
)
class real_:
    def adjoint(bz, z, val):
        bval = bz

    def tangent(dz, z, val):
        dz = np.real(dval)


@primitive(  # (a view, for a complex array)
    np.imag,
    shape=EVALUATE,
    view=True,
    attributes=("imag",),
    samples=[
        Sample("np.imag(np.exp(1j * x) * x)", x=real(4)),
        Sample("(x * (1 + 2j)).imag", x=real(4)),
    ],
)
class imag:
    def adjoint(bz, z, val):
        bval = -1j * bz

    def tangent(dz, z, val):
        dz = np.imag(dval)


@ufunc(
    np.conj,
    np.conjugate,
    methods=("conj", "conjugate"),
    samples=[
        Sample("np.conj(x * (1 + 2j))", wrap="abs2", x=real(4)),
        Sample("(x * (2 - 1j)).conj() * x", wrap="abs2", x=real(4)),
    ],
)
class conj:
    def adjoint(bz, z, x):
        bx = np.conj(bz)

    def tangent(dz, z, x):
        dz = np.conj(dx)


# --- signs and exponents moved ----------------------------------------------------------------


# |x1| with x2's sign: the slope is +-1, x1's sign times x2's (x2 moves nothing)
@ufunc(np.copysign, constant=("x2",), samples=binary("np.copysign(x1, x2)"))
class copysign:
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(bz * np.copysign(1.0, x1) * np.copysign(1.0, x2), x1)

    def tangent(dz, z, x1, x2):
        dz = runtime.broadcast_like(dx1 * np.copysign(1.0, x1) * np.copysign(1.0, x2), z)


# x1 * 2 ** x2 for integers x2
@ufunc(
    np.ldexp,
    constant=("x2",),
    samples=[
        Sample("np.ldexp(x1, x2)", x1=real(3, 1), x2=constant(np.array([-1, 0, 3]))),
        Sample("np.ldexp(x1, 2)", x1=number()),
    ],
)
class ldexp:
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(np.ldexp(bz, x2), x1)

    def tangent(dz, z, x1, x2):
        dz = runtime.broadcast_like(np.ldexp(dx1, x2), z)
