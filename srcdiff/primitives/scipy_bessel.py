"""SciPy's Bessel functions of the first and second kind (j0 j1 jv y0 y1 yv), the modified
ones of the second kind (k0 k1 kv), differentiable in x only (as iv is, scipy_special.py), and
the scaled complementary error function erfcx. Each slope is written with the functions
themselves, by the recurrences C'(v, x) = (C(v - 1, x) - C(v + 1, x)) / 2 for J and Y and
K'(v, x) = -(K(v - 1, x) + K(v + 1, x)) / 2, so every order differentiates."""

import numpy as np
import scipy.special

from .. import runtime
from .registry import EVALUATE, Sample, primitive
from .samples import constant, number, positive, real


def _ufunc(*functions, **facts):
    return primitive(*functions, shape=EVALUATE, fresh=True, **facts)


def _unary(call):
    return [Sample(call, x=positive(3, 4)), Sample(call, x=number())]


def _of_order(call):
    return [
        Sample(call, v=constant(np.array([0.0, 1.5, 3.0])), x=positive(2, 3), constant=("v",)),
        Sample(call.replace("v, x", "2, x"), x=number()),
    ]


# --- of the first kind ------------------------------------------------------------------------


@_ufunc(scipy.special.j0, samples=_unary("scipy.special.j0(x)"))
class j0:
    def adjoint(bz, z, x):
        bx = -bz * scipy.special.j1(x)

    def tangent(dz, z, x):
        dz = -dx * scipy.special.j1(x)


@_ufunc(scipy.special.j1, samples=_unary("scipy.special.j1(x)"))
class j1:
    def adjoint(bz, z, x):
        bx = bz * (scipy.special.j0(x) - scipy.special.jv(2, x)) / 2

    def tangent(dz, z, x):
        dz = dx * (scipy.special.j0(x) - scipy.special.jv(2, x)) / 2


@_ufunc(scipy.special.jv, samples=_of_order("scipy.special.jv(v, x)"))
class jv:
    def adjoint(bz, z, v, x):
        bx = runtime.unbroadcast(
            bz * (scipy.special.jv(v - 1, x) - scipy.special.jv(v + 1, x)) / 2, x
        )

    def tangent(dz, z, v, x):
        dz = dx * (scipy.special.jv(v - 1, x) - scipy.special.jv(v + 1, x)) / 2


# --- of the second kind -----------------------------------------------------------------------


@_ufunc(scipy.special.y0, samples=_unary("scipy.special.y0(x)"))
class y0:
    def adjoint(bz, z, x):
        bx = -bz * scipy.special.y1(x)

    def tangent(dz, z, x):
        dz = -dx * scipy.special.y1(x)


@_ufunc(scipy.special.y1, samples=_unary("scipy.special.y1(x)"))
class y1:
    def adjoint(bz, z, x):
        bx = bz * (scipy.special.y0(x) - scipy.special.yv(2, x)) / 2

    def tangent(dz, z, x):
        dz = dx * (scipy.special.y0(x) - scipy.special.yv(2, x)) / 2


@_ufunc(scipy.special.yv, samples=_of_order("scipy.special.yv(v, x)"))
class yv:
    def adjoint(bz, z, v, x):
        bx = runtime.unbroadcast(
            bz * (scipy.special.yv(v - 1, x) - scipy.special.yv(v + 1, x)) / 2, x
        )

    def tangent(dz, z, v, x):
        dz = dx * (scipy.special.yv(v - 1, x) - scipy.special.yv(v + 1, x)) / 2


# --- modified, of the second kind -------------------------------------------------------------


@_ufunc(scipy.special.k0, samples=_unary("scipy.special.k0(x)"))
class k0:
    def adjoint(bz, z, x):
        bx = -bz * scipy.special.k1(x)

    def tangent(dz, z, x):
        dz = -dx * scipy.special.k1(x)


@_ufunc(scipy.special.k1, samples=_unary("scipy.special.k1(x)"))
class k1:
    def adjoint(bz, z, x):
        bx = -bz * (scipy.special.k0(x) + scipy.special.kv(2, x)) / 2

    def tangent(dz, z, x):
        dz = -dx * (scipy.special.k0(x) + scipy.special.kv(2, x)) / 2


@_ufunc(scipy.special.kv, samples=_of_order("scipy.special.kv(v, x)"))
class kv:
    def adjoint(bz, z, v, x):
        bx = runtime.unbroadcast(
            -bz * (scipy.special.kv(v - 1, x) + scipy.special.kv(v + 1, x)) / 2, x
        )

    def tangent(dz, z, v, x):
        dz = -dx * (scipy.special.kv(v - 1, x) + scipy.special.kv(v + 1, x)) / 2


# --- the scaled complementary error function: exp(x²) erfc(x) ---------------------------------

_TWO_OVER_ROOT_PI = 2 / float(np.sqrt(np.pi))  # (a Python float keeps float32 float32)


@_ufunc(
    scipy.special.erfcx,
    samples=[
        Sample("scipy.special.erfcx(x)", x=real(3, 4)),
        Sample("scipy.special.erfcx(x)", x=number()),
    ],
)
class erfcx:
    def adjoint(bz, z, x):
        bx = bz * (2 * x * z - _TWO_OVER_ROOT_PI)

    def tangent(dz, z, x):
        dz = dx * (2 * x * z - _TWO_OVER_ROOT_PI)
