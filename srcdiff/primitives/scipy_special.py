"""SciPy's special functions (scipy.special), declared once the program imports scipy.special
(optional.py). Each derivative is written with SciPy's functions again (digamma's is the next
polygamma, i1's is made of i0 and iv), all of them declared here, so every order
differentiates. Constants are Python floats (np.pi ** 0.5), which keep float32 float32."""

import numpy as np
import scipy.special

from .. import ir, runtime
from .registry import EVALUATE, Sample, primitive
from .samples import constant, number, positive, real, unit


def _ufunc(*functions, **facts):
    return primitive(*functions, shape=EVALUATE, fresh=True, **facts)


def _unary(call, x=real(3, 4), scalar=number()):
    return [Sample(call, x=x), Sample(call, x=scalar)]


def _binary(call, x1=positive(3, 1), x2=positive(4)):
    return [Sample(call, x1=x1, x2=x2), Sample(call, x1=number(), x2=x2)]


# --- the logistic function and the error function ---------------------------------------------


@_ufunc(scipy.special.expit, samples=_unary("scipy.special.expit(x)"))
class expit:
    def adjoint(bz, z, x):
        bx = bz * z * (1 - z)

    def tangent(dz, z, x):
        dz = dx * z * (1 - z)


@_ufunc(
    scipy.special.logit,
    samples=_unary("scipy.special.logit(x)", positive(3, 4, low=0.1, high=0.9), number(0.1, 0.9)),
)
class logit:
    def adjoint(bz, z, x):
        bx = bz / (x * (1 - x))

    def tangent(dz, z, x):
        dz = dx / (x * (1 - x))


@_ufunc(scipy.special.erf, samples=_unary("scipy.special.erf(x)"))
class erf:
    def adjoint(bz, z, x):
        bx = bz * 2 / np.pi**0.5 * np.exp(-x * x)

    def tangent(dz, z, x):
        dz = dx * 2 / np.pi**0.5 * np.exp(-x * x)


@_ufunc(scipy.special.erfc, samples=_unary("scipy.special.erfc(x)"))
class erfc:
    def adjoint(bz, z, x):
        bx = -bz * 2 / np.pi**0.5 * np.exp(-x * x)

    def tangent(dz, z, x):
        dz = -dx * 2 / np.pi**0.5 * np.exp(-x * x)


@_ufunc(
    scipy.special.erfinv, samples=_unary("scipy.special.erfinv(x)", unit(3, 4), number(-0.9, 0.9))
)
class erfinv:
    def adjoint(bz, z, x):
        bx = bz * np.pi**0.5 / 2 * np.exp(z * z)

    def tangent(dz, z, x):
        dz = dx * np.pi**0.5 / 2 * np.exp(z * z)


@_ufunc(
    scipy.special.erfcinv,
    samples=_unary("scipy.special.erfcinv(x)", positive(3, 4, low=0.1, high=1.9), number(0.1, 1.9)),
)
class erfcinv:
    def adjoint(bz, z, x):
        bx = -bz * np.pi**0.5 / 2 * np.exp(z * z)

    def tangent(dz, z, x):
        dz = -dx * np.pi**0.5 / 2 * np.exp(z * z)


# --- the standard normal distribution ---------------------------------------------------------


@_ufunc(scipy.special.ndtr, samples=_unary("scipy.special.ndtr(x)"))
class ndtr:
    def adjoint(bz, z, x):
        bx = bz * np.exp(-x * x / 2) / (2 * np.pi) ** 0.5

    def tangent(dz, z, x):
        dz = dx * np.exp(-x * x / 2) / (2 * np.pi) ** 0.5


# the density over the distribution function, as one exponential: finite far in either tail
@_ufunc(
    scipy.special.log_ndtr,
    samples=_unary("scipy.special.log_ndtr(x)")
    + [Sample("scipy.special.log_ndtr(x)", x=constant(np.array([-30.0, -8.0, 8.0, 30.0])))],
)
class log_ndtr:
    def adjoint(bz, z, x):
        bx = bz * np.exp(-x * x / 2 - z) / (2 * np.pi) ** 0.5

    def tangent(dz, z, x):
        dz = dx * np.exp(-x * x / 2 - z) / (2 * np.pi) ** 0.5


@_ufunc(
    scipy.special.ndtri,
    samples=_unary("scipy.special.ndtri(x)", positive(3, 4, low=0.1, high=0.9), number(0.1, 0.9)),
)
class ndtri:
    def adjoint(bz, z, x):
        bx = bz * (2 * np.pi) ** 0.5 * np.exp(z * z / 2)

    def tangent(dz, z, x):
        dz = dx * (2 * np.pi) ** 0.5 * np.exp(z * z / 2)


# --- the gamma function and its relatives -----------------------------------------------------


@_ufunc(
    scipy.special.gammaln,
    samples=_unary("scipy.special.gammaln(x)", positive(3, 4))
    + [Sample("scipy.special.gammaln(x)", x=constant(np.array([-2.5, -0.5, 3.5, 40.0])))],
)
class gammaln:  # log |gamma(x)|: its slope is digamma's on either sign
    def adjoint(bz, z, x):
        bx = bz * scipy.special.digamma(x)

    def tangent(dz, z, x):
        dz = dx * scipy.special.digamma(x)


@_ufunc(
    scipy.special.gamma,
    samples=_unary("scipy.special.gamma(x)", positive(3, 4))
    + [Sample("scipy.special.gamma(x)", x=constant(np.array([-2.5, -0.5, 3.5])))],
)
class gamma:
    def adjoint(bz, z, x):
        bx = bz * z * scipy.special.digamma(x)

    def tangent(dz, z, x):
        dz = dx * z * scipy.special.digamma(x)


@_ufunc(
    scipy.special.digamma,
    samples=_unary("scipy.special.digamma(x)", positive(3, 4))
    + [Sample("scipy.special.psi(x)", x=constant(np.array([-2.5, -0.5, 3.5])))],
)
class digamma:  # (scipy.special.psi is digamma)
    def adjoint(bz, z, x):
        bx = bz * runtime.polygamma(1, x)

    def tangent(dz, z, x):
        dz = dx * runtime.polygamma(1, x)


@primitive(
    scipy.special.polygamma,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("scipy.special.polygamma(1, x)", x=positive(3, 4)),
        Sample("scipy.special.polygamma(n, x)", n=constant(np.array([0, 1, 2])), x=positive(2, 3)),
        Sample("scipy.special.polygamma(3, x)", x=number()),
    ],
)
class polygamma:
    def adjoint(bz, z, n, x):
        bx = runtime.unbroadcast(bz * scipy.special.polygamma(n + 1, x), x)

    def tangent(dz, z, n, x):
        dz = dx * scipy.special.polygamma(n + 1, x)


@primitive(
    runtime.polygamma,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("runtime.polygamma(1, x)", x=positive(3, 4)),
        Sample("runtime.polygamma(2, x)", x=number()),
    ],
)
class runtime_polygamma:
    def adjoint(bz, z, n, x):
        bx = runtime.unbroadcast(bz * runtime.polygamma(n + 1, x), x)

    def tangent(dz, z, n, x):
        dz = dx * runtime.polygamma(n + 1, x)


@_ufunc(scipy.special.beta, samples=_binary("scipy.special.beta(x1, x2)"))
class beta:
    def adjoint(bz, z, a, b):
        ba = runtime.unbroadcast(
            bz * z * (scipy.special.digamma(a) - scipy.special.digamma(a + b)), a
        )
        bb = runtime.unbroadcast(
            bz * z * (scipy.special.digamma(b) - scipy.special.digamma(a + b)), b
        )

    def tangent(dz, z, a, b):
        dz = da * z * (scipy.special.digamma(a) - scipy.special.digamma(a + b))
        dz = db * z * (scipy.special.digamma(b) - scipy.special.digamma(a + b))


@_ufunc(scipy.special.betaln, samples=_binary("scipy.special.betaln(x1, x2)"))
class betaln:
    def adjoint(bz, z, a, b):
        ba = runtime.unbroadcast(bz * (scipy.special.digamma(a) - scipy.special.digamma(a + b)), a)
        bb = runtime.unbroadcast(bz * (scipy.special.digamma(b) - scipy.special.digamma(a + b)), b)

    def tangent(dz, z, a, b):
        dz = da * (scipy.special.digamma(a) - scipy.special.digamma(a + b))
        dz = db * (scipy.special.digamma(b) - scipy.special.digamma(a + b))


# --- x log y ----------------------------------------------------------------------------------


# at x = y = 0 (where xlogy is 0) the slope in y is 0, its limit along x = 0
@_ufunc(scipy.special.xlogy, samples=_binary("scipy.special.xlogy(x1, x2)", x1=real(3, 1)))
class xlogy:
    def adjoint(bz, z, x, y):
        bx = runtime.unbroadcast(bz * np.log(y), x)
        by = runtime.unbroadcast(runtime.divide_or_zero(bz * x, y), y)

    def tangent(dz, z, x, y):
        dz = dx * np.log(y)
        dz = runtime.divide_or_zero(dy * x, y)


@_ufunc(scipy.special.xlog1py, samples=_binary("scipy.special.xlog1py(x1, x2)", x1=real(3, 1)))
class xlog1py:
    def adjoint(bz, z, x, y):
        bx = runtime.unbroadcast(bz * np.log1p(y), x)
        by = runtime.unbroadcast(bz * x / (1 + y), y)

    def tangent(dz, z, x, y):
        dz = dx * np.log1p(y)
        dz = dy * x / (1 + y)


# --- softmax and logsumexp --------------------------------------------------------------------


def _axes(call, x=real(2, 3, 4)):
    return [
        Sample(call.format(axes), x=x) for axes in ("", ", axis=1", ", axis=(0, 2)", ", axis=-1")
    ]


@primitive(
    scipy.special.softmax, shape=EVALUATE, fresh=True, samples=_axes("scipy.special.softmax(x{})")
)
class softmax:
    def adjoint(bz, z, x, axis=None):
        bx = z * (bz - np.sum(bz * z, axis=axis, keepdims=True))

    def tangent(dz, z, x, axis=None):
        dz = z * (dx - np.sum(dx * z, axis=axis, keepdims=True))


@primitive(
    scipy.special.log_softmax,
    shape=EVALUATE,
    fresh=True,
    samples=_axes("scipy.special.log_softmax(x{})"),
)
class log_softmax:
    def adjoint(bz, z, x, axis=None):
        bx = bz - np.exp(z) * np.sum(bz, axis=axis, keepdims=True)

    def tangent(dz, z, x, axis=None):
        dz = dx - np.sum(np.exp(z) * dx, axis=axis, keepdims=True)


# the sum s runs over a and b broadcast together (`a * b`, read for its shape). With
# return_sign=True the value is (log |s|, the sign of s), whose log |s| the runtime helpers
# first_of, sign_of and as_pair read (d log |s| = sign ds / |s|); return_sign's default is 0
# here, not False, so that they fold away where a call leaves it out
@primitive(
    scipy.special.logsumexp,
    shape=EVALUATE,
    fresh=True,
    samples=_axes("scipy.special.logsumexp(x{})")
    + [
        Sample("scipy.special.logsumexp(x, axis=1, keepdims=True)", x=real(3, 4)),
        Sample("scipy.special.logsumexp(x, b=w, axis=0)", x=real(3, 4), w=positive(3, 1)),
        Sample("scipy.special.logsumexp(x, b=w)", wrap=None, x=real(5), w=positive(5)),
        Sample(  # (b of more dimensions than x: the sum runs over their broadcast shape)
            "scipy.special.logsumexp(x, axis=-1, b=w)", x=real(3), w=positive(2, 3)
        ),
        Sample(
            "scipy.special.logsumexp(x, axis=0, b=w, keepdims=True)", x=real(4, 1), w=positive(4, 3)
        ),
        Sample(  # (of a 0-d x, scipy's keepdims gives shape (1,))
            "scipy.special.logsumexp(x, axis=-1, keepdims=True)",
            x=lambda rng: np.array(rng.normal()),
        ),
        Sample(  # (s of either sign along the rows: b's signs, the larger terms first)
            "np.sum(np.sin(value) * sign)",
            wrap=None,
            setup="value, sign = scipy.special.logsumexp(x, axis=1, b=w, return_sign=True)",
            x=lambda rng: rng.normal(size=(2, 4)) * 0.3,
            w=lambda rng: (
                np.array([[2.0, -0.3, 1.5, -0.2], [-2.0, 0.3, -1.5, 0.2]])
                + rng.uniform(0, 0.1, (2, 4))
            ),
        ),
        Sample(
            "scipy.special.logsumexp(x, b=w, return_sign=True)[0]",
            wrap=None,
            x=real(3),
            w=constant(np.array([-1.0, -2.0, -0.5])),
        ),
    ],
)
class logsumexp:  # with the default b=None read as 1.0, which `* b` then folds away
    def adjoint(bz, z, a, axis=None, b=1.0, keepdims=False, return_sign=0):
        ba = runtime.unbroadcast(
            runtime.unreduce(
                runtime.first_of(bz, return_sign) * runtime.sign_of(z, return_sign),
                a * b,
                axis=axis,
                keepdims=keepdims,
            )
            * b
            * np.exp(
                a
                - runtime.unreduce(
                    runtime.first_of(z, return_sign), a * b, axis=axis, keepdims=keepdims
                )
            ),
            a,
        )
        bb = runtime.unbroadcast(
            runtime.unreduce(
                runtime.first_of(bz, return_sign) * runtime.sign_of(z, return_sign),
                a * b,
                axis=axis,
                keepdims=keepdims,
            )
            * np.exp(
                a
                - runtime.unreduce(
                    runtime.first_of(z, return_sign), a * b, axis=axis, keepdims=keepdims
                )
            ),
            b,
        )

    def tangent(dz, z, a, axis=None, b=1.0, keepdims=False, return_sign=0):
        dz = runtime.as_pair(
            np.sum(
                da
                * b
                * np.exp(
                    a
                    - runtime.unreduce(
                        runtime.first_of(z, return_sign), a * b, axis=axis, keepdims=keepdims
                    )
                ),
                axis=axis,
                keepdims=keepdims,
            )
            * runtime.sign_of(z, return_sign),
            0.0,
            return_sign,
        )
        dz = runtime.as_pair(
            np.sum(
                db
                * np.exp(
                    a
                    - runtime.unreduce(
                        runtime.first_of(z, return_sign), a * b, axis=axis, keepdims=keepdims
                    )
                ),
                axis=axis,
                keepdims=keepdims,
            )
            * runtime.sign_of(z, return_sign),
            0.0,
            return_sign,
        )


# (see logsumexp)
@primitive(
    runtime.sign_of,
    differentiable=False,
    shape=EVALUATE,
    samples=[Sample("x * runtime.sign_of((x, np.sign(x)), True)", x=real(3))],
)
class sign_of:
    def fold(z, return_sign):
        return ir.const(1.0) if return_sign == 0 else None


# --- modified Bessel functions of the first kind ----------------------------------------------


@_ufunc(scipy.special.i0, samples=_unary("scipy.special.i0(x)"))
class i0:
    def adjoint(bz, z, x):
        bx = bz * scipy.special.i1(x)

    def tangent(dz, z, x):
        dz = dx * scipy.special.i1(x)


@_ufunc(scipy.special.i1, samples=_unary("scipy.special.i1(x)"))
class i1:  # (I0 + I2) / 2 rather than I0 - I1 / x: exact at x = 0 too
    def adjoint(bz, z, x):
        bx = bz * (scipy.special.i0(x) + scipy.special.iv(2, x)) / 2

    def tangent(dz, z, x):
        dz = dx * (scipy.special.i0(x) + scipy.special.iv(2, x)) / 2


@_ufunc(
    scipy.special.iv,
    samples=[
        Sample(
            "scipy.special.iv(v, x)",
            v=constant(np.array([0.0, 1.5, 3.0])),
            x=positive(2, 3),
            constant=("v",),
        ),
        Sample("scipy.special.iv(2, x)", x=number()),
    ],
)
class iv:  # differentiable in x only (of a non-integer order, x > 0)
    def adjoint(bz, z, v, x):
        bx = runtime.unbroadcast(
            bz * (scipy.special.iv(v - 1, x) + scipy.special.iv(v + 1, x)) / 2, x
        )

    def tangent(dz, z, v, x):
        dz = dx * (scipy.special.iv(v - 1, x) + scipy.special.iv(v + 1, x)) / 2


# the exponentially scaled forms: I(x) exp(-|x|)
@_ufunc(
    scipy.special.ive,
    samples=[
        Sample(
            "scipy.special.ive(v, x)",
            v=constant(np.array([0.0, 1.5, 3.0])),
            x=positive(2, 3),
            constant=("v",),
        ),
        Sample(
            "scipy.special.ive(v, x)",
            v=constant(np.array([0.0, 1.0, 3.0])),
            x=real(2, 3),
            constant=("v",),
        ),
        Sample("scipy.special.ive(2, x)", x=number()),
    ],
)
class ive:
    def adjoint(bz, z, v, x):
        bx = runtime.unbroadcast(
            bz * ((scipy.special.ive(v - 1, x) + scipy.special.ive(v + 1, x)) / 2 - np.sign(x) * z),
            x,
        )

    def tangent(dz, z, v, x):
        dz = dx * ((scipy.special.ive(v - 1, x) + scipy.special.ive(v + 1, x)) / 2 - np.sign(x) * z)


@_ufunc(scipy.special.i0e, samples=_unary("scipy.special.i0e(x)"))
class i0e:
    def adjoint(bz, z, x):
        bx = bz * (scipy.special.i1e(x) - np.sign(x) * z)

    def tangent(dz, z, x):
        dz = dx * (scipy.special.i1e(x) - np.sign(x) * z)


@_ufunc(scipy.special.i1e, samples=_unary("scipy.special.i1e(x)"))
class i1e:
    def adjoint(bz, z, x):
        bx = bz * ((scipy.special.i0e(x) + scipy.special.ive(2, x)) / 2 - np.sign(x) * z)

    def tangent(dz, z, x):
        dz = dx * ((scipy.special.i0e(x) + scipy.special.ive(2, x)) / 2 - np.sign(x) * z)
