"""More of SciPy's special functions (scipy.special): entropies and divergences, the robust
losses, expm1 and log1p, Box-Cox, the log-gamma functions, softplus, the regularised
incomplete gamma functions (in x only: their slope in a has no closed form, and
differentiating in a is an error at the call's line) and Hurwitz's zeta (in q only, so). Declared with scipy_special.py once the
program imports scipy.special (optional.py); each derivative is written with functions that
have templates, so every order differentiates."""

import numpy as np
import scipy.special

from .. import runtime
from .registry import EVALUATE, Sample, primitive
from .samples import constant, number, positive, real


def _ufunc(*functions, **facts):
    return primitive(*functions, shape=EVALUATE, fresh=True, **facts)


def _binary(call, x1=positive(3, 1), x2=positive(4)):
    return [Sample(call, x1=x1, x2=x2), Sample(call, x1=number(), x2=x2)]


# --- entropies and divergences ----------------------------------------------------------------


@_ufunc(
    scipy.special.entr,
    samples=[
        Sample("scipy.special.entr(x)", x=positive(3, 4)),
        Sample("scipy.special.entr(x)", x=number()),
    ],
)
class entr:  # -x log x
    def adjoint(bz, z, x):
        bx = -bz * (np.log(x) + 1)

    def tangent(dz, z, x):
        dz = -dx * (np.log(x) + 1)


@_ufunc(scipy.special.rel_entr, samples=_binary("scipy.special.rel_entr(x1, x2)"))
class rel_entr:  # x log(x / y)
    def adjoint(bz, z, x, y):
        bx = runtime.unbroadcast(bz * (np.log(x / y) + 1), x)
        by = runtime.unbroadcast(-bz * x / y, y)

    def tangent(dz, z, x, y):
        dz = dx * (np.log(x / y) + 1)
        dz = -dy * x / y


@_ufunc(scipy.special.kl_div, samples=_binary("scipy.special.kl_div(x1, x2)"))
class kl_div:  # x log(x / y) - x + y
    def adjoint(bz, z, x, y):
        bx = runtime.unbroadcast(bz * np.log(x / y), x)
        by = runtime.unbroadcast(bz * (1 - x / y), y)

    def tangent(dz, z, x, y):
        dz = dx * np.log(x / y)
        dz = dy * (1 - x / y)


# --- robust losses ----------------------------------------------------------------------------


# r ** 2 / 2 within delta of 0, delta (|r| - delta / 2) beyond: the slope in r is r clipped
# to [-delta, delta]
@_ufunc(
    scipy.special.huber,
    samples=[
        Sample("scipy.special.huber(delta, r)", delta=positive(3, 1), r=real(4)),
        Sample("scipy.special.huber(1.0, r)", r=real(2, 3)),
    ],
)
class huber:
    def adjoint(bz, z, delta, r):
        bdelta = runtime.unbroadcast(bz * np.maximum(np.abs(r) - delta, 0), delta)
        br = runtime.unbroadcast(bz * np.clip(r, -delta, delta), r)

    def tangent(dz, z, delta, r):
        dz = ddelta * np.maximum(np.abs(r) - delta, 0)
        dz = dr * np.clip(r, -delta, delta)


# delta ** 2 (sqrt(1 + (r / delta) ** 2) - 1)
@_ufunc(
    scipy.special.pseudo_huber,
    samples=[
        Sample("scipy.special.pseudo_huber(delta, r)", delta=positive(3, 1), r=real(4)),
        Sample("scipy.special.pseudo_huber(0.7, r)", r=real(2, 3)),
    ],
)
class pseudo_huber:
    def adjoint(bz, z, delta, r):
        bdelta = runtime.unbroadcast(
            bz * (2 * z / delta - r * r / (delta * np.sqrt(1 + (r / delta) ** 2))), delta
        )
        br = runtime.unbroadcast(bz * r / np.sqrt(1 + (r / delta) ** 2), r)

    def tangent(dz, z, delta, r):
        dz = ddelta * (2 * z / delta - r * r / (delta * np.sqrt(1 + (r / delta) ** 2)))
        dz = dr * r / np.sqrt(1 + (r / delta) ** 2)


# --- exponentials and logarithms --------------------------------------------------------------


@_ufunc(
    scipy.special.expm1,
    samples=[
        Sample("scipy.special.expm1(x)", x=real(3, 4)),
        Sample("scipy.special.expm1(x)", x=number()),
    ],
)
class expm1:
    def adjoint(bz, z, x):
        bx = bz * (z + 1)

    def tangent(dz, z, x):
        dz = dx * (z + 1)


@_ufunc(
    scipy.special.log1p,
    samples=[
        Sample("scipy.special.log1p(x)", x=positive(3, 4)),
        Sample("scipy.special.log1p(x)", x=number()),
    ],
)
class log1p:
    def adjoint(bz, z, x):
        bx = bz / (1 + x)

    def tangent(dz, z, x):
        dz = dx / (1 + x)


@_ufunc(
    scipy.special.softplus,
    samples=[
        Sample("scipy.special.softplus(x)", x=real(3, 4)),
        Sample("scipy.special.softplus(x)", x=number()),
    ],
)
class softplus:  # log(1 + exp(x))
    def adjoint(bz, z, x):
        bx = bz * scipy.special.expit(x)

    def tangent(dz, z, x):
        dz = dx * scipy.special.expit(x)


@_ufunc(
    scipy.special.log_expit,
    samples=[
        Sample("scipy.special.log_expit(x)", x=real(3, 4)),
        Sample("scipy.special.log_expit(x)", x=number()),
    ],
)
class log_expit:  # log(1 / (1 + exp(-x))), whose slope is 1 - expit(x)
    def adjoint(bz, z, x):
        bx = bz * scipy.special.expit(-x)

    def tangent(dz, z, x):
        dz = dx * scipy.special.expit(-x)


# (x ** lmbda - 1) / lmbda, log x at lmbda = 0: the slope in lmbda is
# (x ** lmbda log x - z) / lmbda, its limit (log x) ** 2 / 2 at lmbda = 0
@_ufunc(
    scipy.special.boxcox,
    samples=[
        Sample("scipy.special.boxcox(x, lmbda)", x=positive(3, 1), lmbda=real(4)),
        Sample("scipy.special.boxcox(x, 0.0)", x=positive(2, 3)),
        Sample(
            "scipy.special.boxcox(x, lmbda)",
            x=positive(3),
            lmbda=constant(np.array([0.0, 0.5, -1.0])),
            constant=("lmbda",),
        ),
    ],
)
class boxcox:
    def adjoint(bz, z, x, lmbda):
        bx = runtime.unbroadcast(bz * x ** (lmbda - 1), x)
        blmbda = runtime.unbroadcast(
            bz
            * (
                runtime.divide_or_zero(x**lmbda * np.log(x) - z, lmbda)
                + np.where(lmbda == 0, np.log(x) ** 2 / 2, 0)
            ),
            lmbda,
        )

    def tangent(dz, z, x, lmbda):
        dz = dx * x ** (lmbda - 1)
        dz = dlmbda * (
            runtime.divide_or_zero(x**lmbda * np.log(x) - z, lmbda)
            + np.where(lmbda == 0, np.log(x) ** 2 / 2, 0)
        )


# --- log-gamma functions ----------------------------------------------------------------------


@_ufunc(
    scipy.special.loggamma,
    samples=[
        Sample("scipy.special.loggamma(x)", x=positive(3, 4)),
        Sample("scipy.special.loggamma(x)", x=number()),
    ],
)
class loggamma:  # (of real x > 0)
    def adjoint(bz, z, x):
        bx = bz * scipy.special.digamma(x)

    def tangent(dz, z, x):
        dz = dx * scipy.special.digamma(x)


# the log of the multivariate gamma function of dimension d: a sum of gammaln(a - j / 2)
@primitive(
    scipy.special.multigammaln,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("scipy.special.multigammaln(a, 3)", a=positive(2, 2, low=2.0, high=3.0)),
        Sample("scipy.special.multigammaln(a, 2)", a=number(1.5, 3.0)),
    ],
)
class multigammaln:
    def adjoint(bz, z, a, d):
        ba = bz * np.sum(scipy.special.digamma(np.expand_dims(a, -1) - np.arange(d) / 2), axis=-1)

    def tangent(dz, z, a, d):
        dz = da * np.sum(scipy.special.digamma(np.expand_dims(a, -1) - np.arange(d) / 2), axis=-1)


# --- the regularised incomplete gamma functions, in x ----------------------------------------


# the slope in x is the gamma density x ** (a - 1) exp(-x) / gamma(a)
@_ufunc(
    scipy.special.gammainc,
    samples=[
        Sample(
            "scipy.special.gammainc(a, x)",
            a=constant(np.array([[0.5], [2.0]])),
            x=positive(3),
            constant=("a",),
        ),
        Sample("scipy.special.gammainc(1.5, x)", x=number()),
    ],
)
class gammainc:
    def adjoint(bz, z, a, x):
        bx = runtime.unbroadcast(
            bz * np.exp(scipy.special.xlogy(a - 1, x) - x - scipy.special.gammaln(a)), x
        )

    def tangent(dz, z, a, x):
        dz = dx * np.exp(scipy.special.xlogy(a - 1, x) - x - scipy.special.gammaln(a))


@_ufunc(
    scipy.special.gammaincc,
    samples=[
        Sample(
            "scipy.special.gammaincc(a, x)",
            a=constant(np.array([[0.5], [2.0]])),
            x=positive(3),
            constant=("a",),
        ),
        Sample("scipy.special.gammaincc(3.0, x)", x=number()),
    ],
)
class gammaincc:
    def adjoint(bz, z, a, x):
        bx = runtime.unbroadcast(
            -bz * np.exp(scipy.special.xlogy(a - 1, x) - x - scipy.special.gammaln(a)), x
        )

    def tangent(dz, z, a, x):
        dz = -dx * np.exp(scipy.special.xlogy(a - 1, x) - x - scipy.special.gammaln(a))


# Hurwitz's zeta(x, q) = sum over k of (k + q) ** -x, in q only (its slope in x has no closed
# form: differentiating in x is an error at the call's line, as Riemann's zeta(x) is)
@_ufunc(
    scipy.special.zeta,
    samples=[
        Sample(
            "scipy.special.zeta(x, q)",
            x=constant(np.array([[2.0], [3.5], [5.0]])),
            q=positive(4),
            constant=("x",),
        ),
        Sample("scipy.special.zeta(3.0, q)", q=number(0.5, 2.0)),
    ],
)
class zeta:
    def adjoint(bz, z, x, q=None):
        bq = runtime.unbroadcast(bz * -x * scipy.special.zeta(x + 1, q), q)

    def tangent(dz, z, x, q=None):
        dz = dq * -x * scipy.special.zeta(x + 1, q)
