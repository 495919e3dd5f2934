"""Elementwise primitives: the arithmetic operators and numpy's ufuncs.

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
from .samples import constant, number, positive, real, unit


def _ufunc(*functions, **facts):
    """A ufunc's record: numpy tells its output's shape and dtype, which is a new array."""
    return primitive(*functions, shape=EVALUATE, fresh=True, **facts)


def _folded(fn):
    """Fold fn(c) of a positive number c to a Python float (a float64 scalar would not be
    weakly typed, and would turn float32 arithmetic into float64)."""
    def fold(value):
        return gast.Constant(value=float(fn(value)), kind=None) if value > 0 else None
    return fold


def _unary(call, x=real(3, 4), scalar=number()):
    return [Sample(call, x=x), Sample(call, x=scalar)]


def _binary(call, x1=real(3, 1), x2=real(4)):
    return [Sample(call, x1=x1, x2=x2), Sample(call, x1=number(), x2=x2)]


# --- arithmetic -------------------------------------------------------------------------------

@_ufunc(np.add, operators=(gast.Add,), samples=_binary("x1 + x2") + _binary("np.add(x1, x2)"))
class add:
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(bz, x1)
        bx2 = runtime.unbroadcast(bz, x2)

    def tangent(dz, z, x1, x2):
        dz = runtime.broadcast_like(dx1, z)
        dz = runtime.broadcast_like(dx2, z)


@_ufunc(np.subtract, operators=(gast.Sub,),
        samples=_binary("x1 - x2") + _binary("np.subtract(x1, x2)"))
class subtract:
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(bz, x1)
        bx2 = runtime.unbroadcast(-bz, x2)

    def tangent(dz, z, x1, x2):
        dz = runtime.broadcast_like(dx1, z)
        dz = runtime.broadcast_like(-dx2, z)


@_ufunc(np.multiply, operators=(gast.Mult,),
        samples=_binary("x1 * x2") + _binary("np.multiply(x1, x2)"))
class multiply:
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(bz * x2, x1)
        bx2 = runtime.unbroadcast(bz * x1, x2)

    def tangent(dz, z, x1, x2):
        dz = dx1 * x2
        dz = x1 * dx2


@_ufunc(np.true_divide, operators=(gast.Div,),
        samples=_binary("x1 / x2", x2=positive(4)) + _binary("np.divide(x1, x2)", x2=positive(4)))
class true_divide:
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(bz / x2, x1)
        bx2 = runtime.unbroadcast(-bz * z / x2, x2)

    def tangent(dz, z, x1, x2):
        dz = dx1 / x2
        dz = -dx2 * z / x2


# at the edge points autograd's values: d/dx x ** 0 is 0 (also at x = 0), d/dy 0 ** y is 0
@_ufunc(np.power, np.float_power, operators=(gast.Pow,),
        samples=_binary("x1 ** x2", x1=positive(3, 1)) + [
            Sample("x ** 3 + 2.0 ** x + x ** 0.5", x=positive(4)),
            Sample("np.power(x1, x2)", x1=positive(3), x2=real(3)),
            Sample("np.float_power(x1, x2)", x1=positive(3), x2=real(3))])
class power:
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(bz * runtime.power_slope(x1, x2), x1)
        bx2 = runtime.unbroadcast(bz * z * runtime.unless_int(runtime.log_or_zero(x1), x2), x2)

    def tangent(dz, z, x1, x2):
        dz = dx1 * runtime.power_slope(x1, x2)
        dz = dx2 * z * runtime.unless_int(runtime.log_or_zero(x1), x2)


@_ufunc(np.negative, samples=_unary("-x") + _unary("np.negative(x)"))
class negative:
    def adjoint(bz, z, x):
        bx = -bz

    def tangent(dz, z, x):
        dz = -dx


@_ufunc(np.positive, samples=_unary("np.positive(x)"))
class positive_:
    def adjoint(bz, z, x):
        bx = bz

    def tangent(dz, z, x):
        dz = dx


@_ufunc(np.maximum, np.fmax, samples=_binary("np.maximum(x1, x2)") + _binary(
    "np.fmax(x1, x2)") + [Sample("np.maximum(x, 0.0) * x", x=real(7))])
class maximum:
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(runtime.winner_share(bz, x1, x2), x1)
        bx2 = runtime.unbroadcast(runtime.winner_share(bz, x2, x1), x2)

    def tangent(dz, z, x1, x2):
        dz = runtime.winner_share(dx1, x1, x2)
        dz = runtime.winner_share(dx2, x2, x1)


@_ufunc(np.minimum, np.fmin, samples=_binary("np.minimum(x1, x2)") + _binary("np.fmin(x1, x2)"))
class minimum:
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(runtime.winner_share(bz, x2, x1), x1)
        bx2 = runtime.unbroadcast(runtime.winner_share(bz, x1, x2), x2)

    def tangent(dz, z, x1, x2):
        dz = runtime.winner_share(dx1, x2, x1)
        dz = runtime.winner_share(dx2, x1, x2)


@_ufunc(np.remainder, samples=_binary("np.remainder(x1, x2)", x2=positive(4)) + _binary(
    "x1 % x2", x2=positive(4)), operators=(gast.Mod,))
class remainder:  # x1 - floor(x1 / x2) * x2
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(bz, x1)
        bx2 = runtime.unbroadcast(-bz * np.floor(x1 / x2), x2)

    def tangent(dz, z, x1, x2):
        dz = runtime.broadcast_like(dx1, z)
        dz = -dx2 * np.floor(x1 / x2)


@_ufunc(np.fmod, samples=_binary("np.fmod(x1, x2)", x2=positive(4)))
class fmod:  # x1 - trunc(x1 / x2) * x2
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(bz, x1)
        bx2 = runtime.unbroadcast(-bz * np.trunc(x1 / x2), x2)

    def tangent(dz, z, x1, x2):
        dz = runtime.broadcast_like(dx1, z)
        dz = -dx2 * np.trunc(x1 / x2)


# --- exponentials and logarithms --------------------------------------------------------------

@_ufunc(np.exp, samples=_unary("np.exp(x)"))
class exp:
    fold = _folded(np.exp)

    def adjoint(bz, z, x):
        bx = bz * z

    def tangent(dz, z, x):
        dz = dx * z


@_ufunc(np.exp2, samples=_unary("np.exp2(x)"))
class exp2:
    def adjoint(bz, z, x):
        bx = bz * z * 0.6931471805599453

    def tangent(dz, z, x):
        dz = dx * z * 0.6931471805599453


@_ufunc(np.expm1, samples=_unary("np.expm1(x)"))
class expm1:
    def adjoint(bz, z, x):
        bx = bz * (z + 1)

    def tangent(dz, z, x):
        dz = dx * (z + 1)


@_ufunc(np.log, samples=_unary("np.log(x)", positive(3, 4)))
class log:
    fold = _folded(np.log)

    def adjoint(bz, z, x):
        bx = bz / x

    def tangent(dz, z, x):
        dz = dx / x


@_ufunc(np.log1p, samples=_unary("np.log1p(x)", positive(3, 4)))
class log1p:
    def adjoint(bz, z, x):
        bx = bz / (1 + x)

    def tangent(dz, z, x):
        dz = dx / (1 + x)


@_ufunc(np.log2, samples=_unary("np.log2(x)", positive(3, 4)))
class log2:
    def adjoint(bz, z, x):
        bx = bz / (x * 0.6931471805599453)

    def tangent(dz, z, x):
        dz = dx / (x * 0.6931471805599453)


@_ufunc(np.log10, samples=_unary("np.log10(x)", positive(3, 4)))
class log10:
    def adjoint(bz, z, x):
        bx = bz / (x * 2.302585092994046)

    def tangent(dz, z, x):
        dz = dx / (x * 2.302585092994046)


@_ufunc(np.logaddexp, samples=_binary("np.logaddexp(x1, x2)"))
class logaddexp:
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(bz * np.exp(x1 - z), x1)
        bx2 = runtime.unbroadcast(bz * np.exp(x2 - z), x2)

    def tangent(dz, z, x1, x2):
        dz = dx1 * np.exp(x1 - z)
        dz = dx2 * np.exp(x2 - z)


@_ufunc(np.logaddexp2, samples=_binary("np.logaddexp2(x1, x2)"))
class logaddexp2:
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(bz * np.exp2(x1 - z), x1)
        bx2 = runtime.unbroadcast(bz * np.exp2(x2 - z), x2)

    def tangent(dz, z, x1, x2):
        dz = dx1 * np.exp2(x1 - z)
        dz = dx2 * np.exp2(x2 - z)


# --- powers and roots -------------------------------------------------------------------------

@_ufunc(np.sqrt, samples=_unary("np.sqrt(x)", positive(3, 4)))
class sqrt:
    fold = _folded(np.sqrt)

    def adjoint(bz, z, x):
        bx = bz / (2 * z)

    def tangent(dz, z, x):
        dz = dx / (2 * z)


@_ufunc(np.cbrt, samples=_unary("np.cbrt(x)", positive(3, 4)))
class cbrt:
    def adjoint(bz, z, x):
        bx = bz / (3 * z * z)

    def tangent(dz, z, x):
        dz = dx / (3 * z * z)


@_ufunc(np.square, samples=_unary("np.square(x)"))
class square:
    def adjoint(bz, z, x):
        bx = bz * 2 * x

    def tangent(dz, z, x):
        dz = dx * 2 * x  # (2 * x would repeat a list x)


@_ufunc(np.reciprocal, samples=_unary("np.reciprocal(x)", positive(3, 4)))
class reciprocal:
    def adjoint(bz, z, x):
        bx = -bz * z * z

    def tangent(dz, z, x):
        dz = -dx * z * z


@_ufunc(np.hypot, samples=_binary("np.hypot(x1, x2)"))
class hypot:
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(runtime.divide_or_zero(bz * x1, z), x1)
        bx2 = runtime.unbroadcast(runtime.divide_or_zero(bz * x2, z), x2)

    def tangent(dz, z, x1, x2):
        dz = runtime.divide_or_zero(dx1 * x1, z)
        dz = runtime.divide_or_zero(dx2 * x2, z)


# --- trigonometry -----------------------------------------------------------------------------

@_ufunc(np.sin, samples=_unary("np.sin(x)"))
class sin:
    fold = _folded(np.sin)

    def adjoint(bz, z, x):
        bx = bz * np.cos(x)

    def tangent(dz, z, x):
        dz = dx * np.cos(x)


@_ufunc(np.cos, samples=_unary("np.cos(x)"))
class cos:
    fold = _folded(np.cos)

    def adjoint(bz, z, x):
        bx = -bz * np.sin(x)

    def tangent(dz, z, x):
        dz = -dx * np.sin(x)


@_ufunc(np.tan, samples=_unary("np.tan(x)", unit(3, 4), number(-0.9, 0.9)))
class tan:
    def adjoint(bz, z, x):
        bx = bz * (1 + z * z)

    def tangent(dz, z, x):
        dz = dx * (1 + z * z)


@_ufunc(np.arcsin, samples=_unary("np.arcsin(x)", unit(3, 4), number(-0.9, 0.9)))
class arcsin:
    def adjoint(bz, z, x):
        bx = bz / np.sqrt(1 - x * x)

    def tangent(dz, z, x):
        dz = dx / np.sqrt(1 - x * x)


@_ufunc(np.arccos, samples=_unary("np.arccos(x)", unit(3, 4), number(-0.9, 0.9)))
class arccos:
    def adjoint(bz, z, x):
        bx = -bz / np.sqrt(1 - x * x)

    def tangent(dz, z, x):
        dz = -dx / np.sqrt(1 - x * x)


@_ufunc(np.arctan, samples=_unary("np.arctan(x)"))
class arctan:
    def adjoint(bz, z, x):
        bx = bz / (1 + x * x)

    def tangent(dz, z, x):
        dz = dx / (1 + x * x)


@_ufunc(np.arctan2, samples=_binary("np.arctan2(x1, x2)"))
class arctan2:  # the angle of (x2, x1)
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(bz * x2 / (x1 * x1 + x2 * x2), x1)
        bx2 = runtime.unbroadcast(-bz * x1 / (x1 * x1 + x2 * x2), x2)

    def tangent(dz, z, x1, x2):
        dz = dx1 * x2 / (x1 * x1 + x2 * x2)
        dz = -dx2 * x1 / (x1 * x1 + x2 * x2)


@_ufunc(np.deg2rad, np.radians, samples=_unary("np.deg2rad(x)") + _unary("np.radians(x)"))
class deg2rad:
    def adjoint(bz, z, x):
        bx = bz * 0.017453292519943295

    def tangent(dz, z, x):
        dz = dx * 0.017453292519943295


@_ufunc(np.rad2deg, np.degrees, samples=_unary("np.rad2deg(x)") + _unary("np.degrees(x)"))
class rad2deg:
    def adjoint(bz, z, x):
        bx = bz * 57.29577951308232

    def tangent(dz, z, x):
        dz = dx * 57.29577951308232


# (at 0 exactly, its second derivative through these templates is 0, not -pi**2 / 3)
@_ufunc(np.sinc, samples=_unary("np.sinc(x)") + [
    Sample("np.sinc(x)", x=constant(np.zeros(3)), second_order=False)])
class sinc:  # sin(pi x) / (pi x): its slope (cos(pi x) - sinc(x)) / x is 0 at 0
    def adjoint(bz, z, x):
        bx = bz * runtime.divide_or_zero(np.cos(np.pi * x) - z, x)

    def tangent(dz, z, x):
        dz = dx * runtime.divide_or_zero(np.cos(np.pi * x) - z, x)


# --- hyperbolic functions ---------------------------------------------------------------------

@_ufunc(np.tanh, samples=_unary("np.tanh(x)"))
class tanh:
    def adjoint(bz, z, x):
        bx = bz * (1 - z * z)

    def tangent(dz, z, x):
        dz = dx * (1 - z * z)


@_ufunc(np.sinh, samples=_unary("np.sinh(x)"))
class sinh:
    def adjoint(bz, z, x):
        bx = bz * np.cosh(x)

    def tangent(dz, z, x):
        dz = dx * np.cosh(x)


@_ufunc(np.cosh, samples=_unary("np.cosh(x)"))
class cosh:
    def adjoint(bz, z, x):
        bx = bz * np.sinh(x)

    def tangent(dz, z, x):
        dz = dx * np.sinh(x)


@_ufunc(np.arcsinh, samples=_unary("np.arcsinh(x)"))
class arcsinh:
    def adjoint(bz, z, x):
        bx = bz / np.sqrt(x * x + 1)

    def tangent(dz, z, x):
        dz = dx / np.sqrt(x * x + 1)


@_ufunc(np.arccosh, samples=_unary("np.arccosh(x)", positive(3, 4, low=1.2, high=3.0), number(1.2, 3.0)))
class arccosh:
    def adjoint(bz, z, x):
        bx = bz / np.sqrt(x * x - 1)

    def tangent(dz, z, x):
        dz = dx / np.sqrt(x * x - 1)


@_ufunc(np.arctanh, samples=_unary("np.arctanh(x)", unit(3, 4), number(-0.9, 0.9)))
class arctanh:
    def adjoint(bz, z, x):
        bx = bz / (1 - x * x)

    def tangent(dz, z, x):
        dz = dx / (1 - x * x)


# --- absolute values, signs and limits --------------------------------------------------------

@_ufunc(np.abs, builtins.abs, samples=_unary("np.abs(x)") + _unary("abs(x)") + [
    Sample("np.abs(x)", x=constant(np.zeros(3)), second_order=False)])
class abs_:
    def adjoint(bz, z, x):
        bx = runtime.divide_or_zero(bz * runtime.conj(x), z)  # the sign, or x's phase conjugated

    def tangent(dz, z, x):
        dz = runtime.real(runtime.divide_or_zero(dx * runtime.conj(x), z))


@_ufunc(np.fabs, samples=_unary("np.fabs(x)"))
class fabs:
    def adjoint(bz, z, x):
        bx = bz * np.sign(x)

    def tangent(dz, z, x):
        dz = dx * np.sign(x)


@primitive(np.clip, methods=("clip",), shape=EVALUATE, fresh=True,
           keyword_aliases=(("min", "a_min"), ("max", "a_max")), samples=[
    Sample("np.clip(x, -0.5, 0.5)", x=real(8)), Sample("np.clip(x, None, 0.2) * x", x=real(8)),
    Sample("np.clip(x, min=-0.5) + x.clip(max=0.3)", x=real(8)),
    Sample("x.clip(-0.3, 0.4)", x=real(8)),
    Sample("np.clip(x, lo, hi)", x=real(8), lo=positive(8, low=-1.0, high=-0.3),
           hi=positive(8, low=0.4, high=1.2))])
class clip:
    def adjoint(bz, z, a, a_min=None, a_max=None):
        ba = bz * runtime.within(a, a_min, a_max)
        ba_min = runtime.unbroadcast(bz * (a < a_min), a_min)
        ba_max = runtime.unbroadcast(bz * (a > a_max), a_max)

    def tangent(dz, z, a, a_min=None, a_max=None):
        dz = da * runtime.within(a, a_min, a_max)
        dz = da_min * (a < a_min)
        dz = da_max * (a > a_max)


@_ufunc(np.nan_to_num, samples=_unary("np.nan_to_num(x)"))
class nan_to_num:  # the identity where x is finite, and flat where it is replaced
    def adjoint(bz, z, x, copy=True, nan=0.0, posinf=None, neginf=None):
        bx = np.where(np.isfinite(x), bz, 0)

    def tangent(dz, z, x, copy=True, nan=0.0, posinf=None, neginf=None):
        dz = np.where(np.isfinite(x), dx, 0)


def _where_shape(args, kwargs):
    from ..shapes import UNKNOWN, evaluate
    # np.where(c) gives the indices where c holds: as many as its values say
    return evaluate(np.where, args, kwargs, fresh=True) if len(args) == 3 else UNKNOWN


@primitive(np.where, shape=_where_shape, samples=[
    Sample("np.where(x > y, x, y * 2)", x=real(3, 4), y=real(4)),
    Sample("np.where(x > 0, x, 0.0)", x=real(5))])
class where:
    def adjoint(bz, z, condition, x, y):
        bx = runtime.unbroadcast(np.where(condition, bz, 0), x)
        by = runtime.unbroadcast(np.where(condition, 0, bz), y)

    def tangent(dz, z, condition, x, y):
        dz = np.where(condition, dx, 0)
        dz = np.where(condition, 0, dy)


# --- complex numbers --------------------------------------------------------------------------

@primitive(np.real, attributes=("real",), shape=EVALUATE, samples=[
    Sample("np.real(np.exp(1j * x) * (2 - 1j))", x=real(4)),
    Sample("(x * (1 + 2j)).real", x=real(4))])
class real_:
    def adjoint(bz, z, val):
        bval = bz

    def tangent(dz, z, val):
        dz = np.real(dval)


@_ufunc(np.imag, attributes=("imag",), samples=[
    Sample("np.imag(np.exp(1j * x) * x)", x=real(4)), Sample("(x * (1 + 2j)).imag", x=real(4))])
class imag:
    def adjoint(bz, z, val):
        bval = -1j * bz

    def tangent(dz, z, val):
        dz = np.imag(dval)


@_ufunc(np.conj, np.conjugate, methods=("conj", "conjugate"), samples=[
    Sample("np.conj(x * (1 + 2j))", wrap="abs2", x=real(4)),
    Sample("(x * (2 - 1j)).conj() * x", wrap="abs2", x=real(4))])
class conj:
    def adjoint(bz, z, x):
        bx = np.conj(bz)

    def tangent(dz, z, x):
        dz = np.conj(dx)
