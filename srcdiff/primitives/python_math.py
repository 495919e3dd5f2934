"""Python's math module: its functions of floats that compute what a numpy ufunc does, with
its parameters, are covered by that ufunc's record (registry.extend), so `math.exp(a)` in
scalar code is differentiated as `np.exp(a)` is. The forward sweep calls them as written
(a Python float out, Python's errors outside their domain). Those numpy lacks (erf, erfc,
gamma, lgamma) have records of their own, whose derivatives are math's functions again and
runtime.math_polygamma (plain Python: no SciPy needed), so every order differentiates."""

import math

import numpy as np

from .. import runtime
from .helpers import helper
from .registry import EVALUATE, Sample, constants, extend, primitive
from .samples import constant, number, real

_SAME = {
    np.exp: math.exp,
    np.expm1: math.expm1,
    np.log1p: math.log1p,
    np.sin: math.sin,
    np.cos: math.cos,
    np.tan: math.tan,
    np.arctan: math.atan,
    np.sinh: math.sinh,
    np.cosh: math.cosh,
    np.tanh: math.tanh,
    np.arcsinh: math.asinh,
    np.fabs: math.fabs,
    np.rad2deg: math.degrees,
    np.deg2rad: math.radians,
    np.log: math.log,  # (math.log(x, base) is math.log(x) / math.log(base): operator_calls)
    np.log2: math.log2,
    np.log10: math.log10,
    np.sqrt: math.sqrt,
}
# (math.remainder rounds x / y to the nearest integer, np.remainder down: not the same)
_IN_DOMAIN = {
    np.arcsin: (math.asin, number(-0.9, 0.9)),
    np.arccos: (math.acos, number(-0.9, 0.9)),
    np.arctanh: (math.atanh, number(-0.9, 0.9)),
    np.arccosh: (math.acosh, number(1.5, 3.0)),
}
for name in ("cbrt", "exp2"):  # (Python 3.11 and later)
    if hasattr(math, name):
        _SAME[getattr(np, name)] = getattr(math, name)

for ufunc, function in _SAME.items():  # (number(): positive, in every one's domain)
    extend(ufunc, function, samples=[Sample(f"math.{function.__name__}(x)", x=number())])
for ufunc, (function, inside) in _IN_DOMAIN.items():
    extend(ufunc, function, samples=[Sample(f"math.{function.__name__}(x)", x=inside)])
extend(np.power, math.pow, samples=[Sample("math.pow(x1, x2)", x1=number(), x2=number())])
extend(np.arctan2, math.atan2, samples=[Sample("math.atan2(x1, x2)", x1=number(), x2=number())])
extend(np.hypot, math.hypot, samples=[Sample("math.hypot(x1, x2)", x1=number(), x2=number())])
extend(
    np.copysign,
    math.copysign,
    samples=[Sample("math.copysign(x1, x2)", x1=number(), x2=number(-2.0, -0.5))],
)
extend(  # (x1 / x2 between 2 and 3: away from fmod's jumps)
    np.fmod,
    math.fmod,
    samples=[Sample("math.fmod(x1, x2)", x1=number(2.5, 2.9), x2=number(1.0, 1.1))],
)
extend(np.ldexp, math.ldexp, samples=[Sample("math.ldexp(x, 3)", x=number())])
for function in (math.floor, math.ceil, math.trunc, math.isfinite, math.isnan, math.isinf):
    # (an int, or a bool: no derivative)
    constants(function, samples=[Sample(f"x * math.{function.__name__}(3 * x)", x=number())])


# --- the functions numpy lacks: their own records -------------------------------------------


def _scalar(*functions, **facts):
    return primitive(*functions, shape=EVALUATE, **facts)


@_scalar(math.erf, samples=[Sample("math.erf(x)", x=number(-2.0, 2.0))])
class math_erf:
    def adjoint(bz, z, x):
        bx = bz * 2 / math.pi**0.5 * math.exp(-x * x)

    def tangent(dz, z, x):
        dz = dx * 2 / math.pi**0.5 * math.exp(-x * x)


@_scalar(math.erfc, samples=[Sample("math.erfc(x)", x=number(-2.0, 2.0))])
class math_erfc:
    def adjoint(bz, z, x):
        bx = -bz * 2 / math.pi**0.5 * math.exp(-x * x)

    def tangent(dz, z, x):
        dz = -dx * 2 / math.pi**0.5 * math.exp(-x * x)


# log |gamma(x)|: its slope is digamma's on either sign of x
@_scalar(
    math.lgamma,
    samples=[
        Sample("math.lgamma(x)", x=number(0.5, 5.0)),
        Sample("math.lgamma(x)", x=number(-2.9, -2.1)),
    ],
)
class math_lgamma:
    def adjoint(bz, z, x):
        bx = bz * runtime.math_polygamma(0, x)

    def tangent(dz, z, x):
        dz = dx * runtime.math_polygamma(0, x)


@_scalar(
    math.gamma,
    samples=[
        Sample("math.gamma(x)", x=number(0.5, 4.0)),
        Sample("math.gamma(x)", x=number(-1.9, -1.1)),
    ],
)
class math_gamma:
    def adjoint(bz, z, x):
        bx = bz * z * runtime.math_polygamma(0, x)

    def tangent(dz, z, x):
        dz = dx * z * runtime.math_polygamma(0, x)


@helper(
    runtime.math_polygamma,
    constant=("n",),
    samples=[
        Sample("runtime.math_polygamma(1, x)", x=number()),
        Sample("runtime.math_polygamma(n, x)", n=constant(2), x=number(-1.9, -1.1)),
    ],
)
class math_polygamma:
    def adjoint(bz, z, n, x):
        bx = bz * runtime.math_polygamma(n + 1, x)

    def tangent(dz, z, n, x):
        dz = dx * runtime.math_polygamma(n + 1, x)


# x - n y for the integer n nearest x / y (halves to even, as round() takes them)
@_scalar(
    math.remainder,
    samples=[Sample("math.remainder(x1, x2)", x1=number(2.5, 2.9), x2=number(1.0, 1.1))],
)
class math_remainder:
    def adjoint(bz, z, x, y):
        bx = bz
        by = -bz * round(x / y)

    def tangent(dz, z, x, y):
        dz = dx
        dz = -dy * round(x / y)


# the length of p - q, of two points given as sequences (or 1-d arrays) of numbers
@_scalar(
    math.dist,
    samples=[
        Sample("math.dist(p, q)", p=real(3), q=real(3)),
        Sample("math.dist([x, 2 * x], [1.0, y])", x=number(), y=number()),
    ],
)
class math_dist:
    def adjoint(bz, z, p, q):
        bp = bz * np.subtract(p, q) / z
        bq = bz * np.subtract(q, p) / z

    def tangent(dz, z, p, q):
        dz = np.sum(np.subtract(p, q) * dp) / z
        dz = np.sum(np.subtract(q, p) * dq) / z
