"""Elementwise primitives: the trigonometric and hyperbolic functions, and np.i0 (see
elementwise.py)."""

import numpy as np

from .. import runtime
from .elementwise import binary, folded, ufunc, unary
from .registry import EVALUATE, Sample, constants, primitive
from .samples import constant, number, positive, real, unit


# --- trigonometry -----------------------------------------------------------------------------


@ufunc(np.sin, samples=unary("np.sin(x)"))
class sin:
    fold = folded(np.sin)

    def adjoint(bz, z, x):
        bx = bz * np.cos(x)

    def tangent(dz, z, x):
        dz = dx * np.cos(x)


@ufunc(np.cos, samples=unary("np.cos(x)"))
class cos:
    fold = folded(np.cos)

    def adjoint(bz, z, x):
        bx = -bz * np.sin(x)

    def tangent(dz, z, x):
        dz = -dx * np.sin(x)


@ufunc(np.tan, samples=unary("np.tan(x)", unit(3, 4), number(-0.9, 0.9)))
class tan:
    def adjoint(bz, z, x):
        bx = bz * (1 + z * z)

    def tangent(dz, z, x):
        dz = dx * (1 + z * z)


@ufunc(np.arcsin, samples=unary("np.arcsin(x)", unit(3, 4), number(-0.9, 0.9)))
class arcsin:
    def adjoint(bz, z, x):
        bx = bz / np.sqrt(1 - x * x)

    def tangent(dz, z, x):
        dz = dx / np.sqrt(1 - x * x)


@ufunc(np.arccos, samples=unary("np.arccos(x)", unit(3, 4), number(-0.9, 0.9)))
class arccos:
    def adjoint(bz, z, x):
        bx = -bz / np.sqrt(1 - x * x)

    def tangent(dz, z, x):
        dz = -dx / np.sqrt(1 - x * x)


@ufunc(np.arctan, samples=unary("np.arctan(x)"))
class arctan:
    def adjoint(bz, z, x):
        bx = bz / (1 + x * x)

    def tangent(dz, z, x):
        dz = dx / (1 + x * x)


@ufunc(np.arctan2, samples=binary("np.arctan2(x1, x2)"))
class arctan2:  # the angle of (x2, x1)
    def adjoint(bz, z, x1, x2):
        bx1 = runtime.unbroadcast(bz * x2 / (x1 * x1 + x2 * x2), x1)
        bx2 = runtime.unbroadcast(-bz * x1 / (x1 * x1 + x2 * x2), x2)

    def tangent(dz, z, x1, x2):
        dz = dx1 * x2 / (x1 * x1 + x2 * x2)
        dz = -dx2 * x1 / (x1 * x1 + x2 * x2)


@ufunc(np.deg2rad, np.radians, samples=unary("np.deg2rad(x)") + unary("np.radians(x)"))
class deg2rad:
    def adjoint(bz, z, x):
        bx = bz * 0.017453292519943295

    def tangent(dz, z, x):
        dz = dx * 0.017453292519943295


@ufunc(np.rad2deg, np.degrees, samples=unary("np.rad2deg(x)") + unary("np.degrees(x)"))
class rad2deg:
    def adjoint(bz, z, x):
        bx = bz * 57.29577951308232

    def tangent(dz, z, x):
        dz = dx * 57.29577951308232


@ufunc(
    np.sinc,
    samples=unary("np.sinc(x)") + [Sample("np.sinc(x)", x=constant(np.array([0.0, 1e-8, 0.3])))],
)
class sinc:  # sin(pi x) / (pi x), whose slope at and near 0 takes a series (runtime/special.py)
    def adjoint(bz, z, x):
        bx = bz * runtime.sinc_derivative(1, x)

    def tangent(dz, z, x):
        dz = dx * runtime.sinc_derivative(1, x)


@primitive(
    runtime.sinc_derivative,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("runtime.sinc_derivative(1, x)", x=real(3, 4)),
        Sample("runtime.sinc_derivative(2, x)", x=number()),
        Sample("runtime.sinc_derivative(3, x)", x=constant(np.array([0.0, 3e-9, 0.31, -2.5]))),
    ],
)
class sinc_derivative:  # the n-th derivative's slope is the (n + 1)-th: to any order
    def adjoint(bz, z, n, x):
        bx = bz * runtime.sinc_derivative(n + 1, x)

    def tangent(dz, z, n, x):
        dz = dx * runtime.sinc_derivative(n + 1, x)


# --- hyperbolic functions ---------------------------------------------------------------------


@ufunc(np.tanh, samples=unary("np.tanh(x)"))
class tanh:
    def adjoint(bz, z, x):
        bx = bz * (1 - z * z)

    def tangent(dz, z, x):
        dz = dx * (1 - z * z)


@ufunc(np.sinh, samples=unary("np.sinh(x)"))
class sinh:
    def adjoint(bz, z, x):
        bx = bz * np.cosh(x)

    def tangent(dz, z, x):
        dz = dx * np.cosh(x)


@ufunc(np.cosh, samples=unary("np.cosh(x)"))
class cosh:
    def adjoint(bz, z, x):
        bx = bz * np.sinh(x)

    def tangent(dz, z, x):
        dz = dx * np.sinh(x)


@ufunc(np.arcsinh, samples=unary("np.arcsinh(x)"))
class arcsinh:
    def adjoint(bz, z, x):
        bx = bz / np.sqrt(x * x + 1)

    def tangent(dz, z, x):
        dz = dx / np.sqrt(x * x + 1)


@ufunc(
    np.arccosh, samples=unary("np.arccosh(x)", positive(3, 4, low=1.2, high=3.0), number(1.2, 3.0))
)
class arccosh:
    def adjoint(bz, z, x):
        bx = bz / np.sqrt(x * x - 1)

    def tangent(dz, z, x):
        dz = dx / np.sqrt(x * x - 1)


@ufunc(np.arctanh, samples=unary("np.arctanh(x)", unit(3, 4), number(-0.9, 0.9)))
class arctanh:
    def adjoint(bz, z, x):
        bx = bz / (1 - x * x)

    def tangent(dz, z, x):
        dz = dx / (1 - x * x)


# --- the angle of a complex number ------------------------------------------------------------


# Im(conj(x) dx) / |x|^2 (autograd's rule), in degrees for deg=True: 0 for real x, whose
# angle is 0 or pi (and at x = 0, where it is undefined)
@ufunc(
    np.angle,
    samples=[
        Sample("np.angle(x * (1 + 2j) + y * 1j - 0.5)", x=real(3, 2), y=real(2)),
        Sample("np.angle(x * (1 - 1j), deg=True)", x=real(3)),
        Sample("np.angle(x) * x", x=real(3)),
    ],
)
class angle:  # (numpy names its argument z: the angle is w here)
    def adjoint(bw, w, z, deg=False):
        bz = runtime.real_for(
            runtime.divide_or_zero(bw * runtime.conj(z * 1j), np.abs(z) ** 2), z
        ) * runtime.angle_unit(deg)

    def tangent(dw, w, z, deg=False):
        dw = runtime.real(
            runtime.divide_or_zero(dz * runtime.conj(z * 1j), np.abs(z) ** 2)
        ) * runtime.angle_unit(deg)


constants(runtime.angle_unit, samples=[Sample("x * runtime.angle_unit(True)", x=real(2))])


# --- the modified Bessel function I0 ------------------------------------------------------------


# I0' = I1 and I_n' = (I_(n - 1) + I_(n + 1)) / 2, with I_(-1) = I_1 (runtime.bessel_i)
@primitive(np.i0, shape=EVALUATE, fresh=True, samples=unary("np.i0(x)"))
class i0:
    def adjoint(bz, z, x):
        bx = bz * runtime.bessel_i(1, x)

    def tangent(dz, z, x):
        dz = dx * runtime.bessel_i(1, x)


@primitive(
    runtime.bessel_i,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("runtime.bessel_i(1, x)", x=real(3, 4)),
        Sample("runtime.bessel_i(2, x)", x=number()),
        Sample("runtime.bessel_i(0, x)", x=constant(np.array([0.0, -3.5, 4.5]))),
    ],
)
class bessel_i:
    def adjoint(bz, z, n, x):
        bx = bz * (runtime.bessel_i(n - 1, x) + runtime.bessel_i(n + 1, x)) / 2

    def tangent(dz, z, n, x):
        dz = dx * (runtime.bessel_i(n - 1, x) + runtime.bessel_i(n + 1, x)) / 2
