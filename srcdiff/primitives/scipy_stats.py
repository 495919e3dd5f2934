"""The densities of SciPy's univariate distributions (scipy.stats: norm, t, gamma, beta,
expon, laplace, logistic, cauchy, lognorm), declared once the program imports scipy.stats
(optional.py): logpdf and pdf, differentiable in x, loc, scale and the shape parameters.

`scipy.stats.norm.logpdf` is a method bound to the distribution `norm`: a new object at each
look-up, but equal to every other, so the registry finds its record by equality. A pdf's
derivatives are its logpdf's times the density (z). Written with y = (x - loc) / scale, the
standardised value; loc and scale left out read as 0.0 and 1.0."""

import numpy as np
import scipy.special
import scipy.stats

from .. import runtime
from .registry import EVALUATE, Sample, primitive
from .samples import number, positive, real


def _method(function, samples):
    return primitive(function, shape=EVALUATE, fresh=True, samples=samples)


def _located(call, x=real(3, 4), loc=real(4), **shape_params):
    """A sample with every parameter an array (broadcast), and one with loc and scale left
    out: `call(x, <shape parameters>, loc, scale)`."""
    names = "".join(f", {name}" for name in shape_params)
    return [
        Sample(f"{call}(x{names}, loc, scale)", x=x, **shape_params, loc=loc, scale=positive(3, 1)),
        Sample(f"{call}(x{names})", x=x, **shape_params),
    ]


# --- the normal distribution ------------------------------------------------------------------


@_method(
    scipy.stats.norm.logpdf,
    samples=_located("scipy.stats.norm.logpdf")
    + [Sample("scipy.stats.norm.logpdf(x, scale=s)", x=real(4), s=number())],
)
class norm_logpdf:
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(-bz * (x - loc) / scale**2, x)
        bloc = runtime.unbroadcast(bz * (x - loc) / scale**2, loc)
        bscale = runtime.unbroadcast(bz * (((x - loc) / scale) ** 2 - 1) / scale, scale)

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = -dx * (x - loc) / scale**2
        dz = dloc * (x - loc) / scale**2
        dz = dscale * (((x - loc) / scale) ** 2 - 1) / scale


@_method(scipy.stats.norm.pdf, samples=_located("scipy.stats.norm.pdf"))
class norm_pdf:
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(-bz * z * (x - loc) / scale**2, x)
        bloc = runtime.unbroadcast(bz * z * (x - loc) / scale**2, loc)
        bscale = runtime.unbroadcast(bz * z * (((x - loc) / scale) ** 2 - 1) / scale, scale)

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = -dx * z * (x - loc) / scale**2
        dz = dloc * z * (x - loc) / scale**2
        dz = dscale * z * (((x - loc) / scale) ** 2 - 1) / scale


# --- Student's t: d/dx log(1 + y**2 / df) ** -((df + 1) / 2) ----------------------------------


@_method(
    scipy.stats.t.logpdf,
    samples=_located("scipy.stats.t.logpdf", df=positive(4, low=1.0, high=5.0)),
)
class t_logpdf:
    def adjoint(bz, z, x, df, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(-bz * (df + 1) * (x - loc) / (df * scale**2 + (x - loc) ** 2), x)
        bdf = runtime.unbroadcast(
            bz
            * (
                scipy.special.digamma((df + 1) / 2)
                - scipy.special.digamma(df / 2)
                - 1 / df
                - np.log1p(((x - loc) / scale) ** 2 / df)
                + (df + 1) * (x - loc) ** 2 / (df * (df * scale**2 + (x - loc) ** 2))
            )
            / 2,
            df,
        )
        bloc = runtime.unbroadcast(
            bz * (df + 1) * (x - loc) / (df * scale**2 + (x - loc) ** 2), loc
        )
        bscale = runtime.unbroadcast(
            bz * ((df + 1) * (x - loc) ** 2 / (df * scale**2 + (x - loc) ** 2) - 1) / scale, scale
        )

    def tangent(dz, z, x, df, loc=0.0, scale=1.0):
        dz = -dx * (df + 1) * (x - loc) / (df * scale**2 + (x - loc) ** 2)
        dz = (
            ddf
            * (
                scipy.special.digamma((df + 1) / 2)
                - scipy.special.digamma(df / 2)
                - 1 / df
                - np.log1p(((x - loc) / scale) ** 2 / df)
                + (df + 1) * (x - loc) ** 2 / (df * (df * scale**2 + (x - loc) ** 2))
            )
            / 2
        )
        dz = dloc * (df + 1) * (x - loc) / (df * scale**2 + (x - loc) ** 2)
        dz = dscale * ((df + 1) * (x - loc) ** 2 / (df * scale**2 + (x - loc) ** 2) - 1) / scale


@_method(
    scipy.stats.t.pdf, samples=_located("scipy.stats.t.pdf", df=positive(4, low=1.0, high=5.0))
)
class t_pdf:
    def adjoint(bz, z, x, df, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(
            -bz * z * (df + 1) * (x - loc) / (df * scale**2 + (x - loc) ** 2), x
        )
        bdf = runtime.unbroadcast(
            bz
            * z
            * (
                scipy.special.digamma((df + 1) / 2)
                - scipy.special.digamma(df / 2)
                - 1 / df
                - np.log1p(((x - loc) / scale) ** 2 / df)
                + (df + 1) * (x - loc) ** 2 / (df * (df * scale**2 + (x - loc) ** 2))
            )
            / 2,
            df,
        )
        bloc = runtime.unbroadcast(
            bz * z * (df + 1) * (x - loc) / (df * scale**2 + (x - loc) ** 2), loc
        )
        bscale = runtime.unbroadcast(
            bz * z * ((df + 1) * (x - loc) ** 2 / (df * scale**2 + (x - loc) ** 2) - 1) / scale,
            scale,
        )

    def tangent(dz, z, x, df, loc=0.0, scale=1.0):
        dz = -dx * z * (df + 1) * (x - loc) / (df * scale**2 + (x - loc) ** 2)
        dz = (
            ddf
            * z
            * (
                scipy.special.digamma((df + 1) / 2)
                - scipy.special.digamma(df / 2)
                - 1 / df
                - np.log1p(((x - loc) / scale) ** 2 / df)
                + (df + 1) * (x - loc) ** 2 / (df * (df * scale**2 + (x - loc) ** 2))
            )
            / 2
        )
        dz = dloc * z * (df + 1) * (x - loc) / (df * scale**2 + (x - loc) ** 2)
        dz = dscale * z * ((df + 1) * (x - loc) ** 2 / (df * scale**2 + (x - loc) ** 2) - 1) / scale


# --- gamma and beta: powers of y (and of 1 - y) ----------------------------------------------

_ABOVE_LOC = dict(x=positive(3, 4, low=1.5, high=3.0), loc=positive(4, low=-0.5, high=0.5))


@_method(
    scipy.stats.gamma.logpdf,
    samples=_located("scipy.stats.gamma.logpdf", a=positive(4), **_ABOVE_LOC),
)
class gamma_logpdf:
    def adjoint(bz, z, x, a, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(bz * ((a - 1) / (x - loc) - 1 / scale), x)
        ba = runtime.unbroadcast(bz * (np.log((x - loc) / scale) - scipy.special.digamma(a)), a)
        bloc = runtime.unbroadcast(-bz * ((a - 1) / (x - loc) - 1 / scale), loc)
        bscale = runtime.unbroadcast(bz * ((x - loc) / scale - a) / scale, scale)

    def tangent(dz, z, x, a, loc=0.0, scale=1.0):
        dz = dx * ((a - 1) / (x - loc) - 1 / scale)
        dz = da * (np.log((x - loc) / scale) - scipy.special.digamma(a))
        dz = -dloc * ((a - 1) / (x - loc) - 1 / scale)
        dz = dscale * ((x - loc) / scale - a) / scale


@_method(
    scipy.stats.gamma.pdf, samples=_located("scipy.stats.gamma.pdf", a=positive(4), **_ABOVE_LOC)
)
class gamma_pdf:
    def adjoint(bz, z, x, a, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(bz * z * ((a - 1) / (x - loc) - 1 / scale), x)
        ba = runtime.unbroadcast(bz * z * (np.log((x - loc) / scale) - scipy.special.digamma(a)), a)
        bloc = runtime.unbroadcast(-bz * z * ((a - 1) / (x - loc) - 1 / scale), loc)
        bscale = runtime.unbroadcast(bz * z * ((x - loc) / scale - a) / scale, scale)

    def tangent(dz, z, x, a, loc=0.0, scale=1.0):
        dz = dx * z * ((a - 1) / (x - loc) - 1 / scale)
        dz = da * z * (np.log((x - loc) / scale) - scipy.special.digamma(a))
        dz = -dloc * z * ((a - 1) / (x - loc) - 1 / scale)
        dz = dscale * z * ((x - loc) / scale - a) / scale


# x in (loc, loc + scale) for every loc in [-0.1, 0.1] and scale in [0.9, 1.1]
_INSIDE = dict(x=positive(3, 4, low=0.3, high=0.7), a=positive(4), b=positive(3, 1))


def _beta_samples(call):
    return [
        Sample(
            f"{call}(x, a, b, loc, scale)",
            **_INSIDE,
            loc=positive(4, low=-0.1, high=0.1),
            scale=positive(3, 1, low=0.9, high=1.1),
        ),
        Sample(f"{call}(x, a, b)", **_INSIDE),
    ]


@_method(scipy.stats.beta.logpdf, samples=_beta_samples("scipy.stats.beta.logpdf"))
class beta_logpdf:
    def adjoint(bz, z, x, a, b, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(bz * ((a - 1) / (x - loc) - (b - 1) / (scale - (x - loc))), x)
        ba = runtime.unbroadcast(
            bz
            * (np.log((x - loc) / scale) - scipy.special.digamma(a) + scipy.special.digamma(a + b)),
            a,
        )
        bb = runtime.unbroadcast(
            bz
            * (
                np.log1p(-(x - loc) / scale)
                - scipy.special.digamma(b)
                + scipy.special.digamma(a + b)
            ),
            b,
        )
        bloc = runtime.unbroadcast(-bz * ((a - 1) / (x - loc) - (b - 1) / (scale - (x - loc))), loc)
        bscale = runtime.unbroadcast(
            bz * ((b - 1) * (x - loc) / (scale - (x - loc)) - a) / scale, scale
        )

    def tangent(dz, z, x, a, b, loc=0.0, scale=1.0):
        dz = dx * ((a - 1) / (x - loc) - (b - 1) / (scale - (x - loc)))
        dz = da * (
            np.log((x - loc) / scale) - scipy.special.digamma(a) + scipy.special.digamma(a + b)
        )
        dz = db * (
            np.log1p(-(x - loc) / scale) - scipy.special.digamma(b) + scipy.special.digamma(a + b)
        )
        dz = -dloc * ((a - 1) / (x - loc) - (b - 1) / (scale - (x - loc)))
        dz = dscale * ((b - 1) * (x - loc) / (scale - (x - loc)) - a) / scale


@_method(scipy.stats.beta.pdf, samples=_beta_samples("scipy.stats.beta.pdf")[:1])
class beta_pdf:
    def adjoint(bz, z, x, a, b, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(bz * z * ((a - 1) / (x - loc) - (b - 1) / (scale - (x - loc))), x)
        ba = runtime.unbroadcast(
            bz
            * z
            * (np.log((x - loc) / scale) - scipy.special.digamma(a) + scipy.special.digamma(a + b)),
            a,
        )
        bb = runtime.unbroadcast(
            bz
            * z
            * (
                np.log1p(-(x - loc) / scale)
                - scipy.special.digamma(b)
                + scipy.special.digamma(a + b)
            ),
            b,
        )
        bloc = runtime.unbroadcast(
            -bz * z * ((a - 1) / (x - loc) - (b - 1) / (scale - (x - loc))), loc
        )
        bscale = runtime.unbroadcast(
            bz * z * ((b - 1) * (x - loc) / (scale - (x - loc)) - a) / scale, scale
        )

    def tangent(dz, z, x, a, b, loc=0.0, scale=1.0):
        dz = dx * z * ((a - 1) / (x - loc) - (b - 1) / (scale - (x - loc)))
        dz = (
            da
            * z
            * (np.log((x - loc) / scale) - scipy.special.digamma(a) + scipy.special.digamma(a + b))
        )
        dz = (
            db
            * z
            * (
                np.log1p(-(x - loc) / scale)
                - scipy.special.digamma(b)
                + scipy.special.digamma(a + b)
            )
        )
        dz = -dloc * z * ((a - 1) / (x - loc) - (b - 1) / (scale - (x - loc)))
        dz = dscale * z * ((b - 1) * (x - loc) / (scale - (x - loc)) - a) / scale


# --- exponential, Laplace, logistic, Cauchy ---------------------------------------------------


@_method(
    scipy.stats.expon.logpdf,
    samples=[
        Sample("scipy.stats.expon.logpdf(x, loc, scale)", **_ABOVE_LOC, scale=positive(3, 1)),
        Sample("scipy.stats.expon.logpdf(x, scale=s)", x=_ABOVE_LOC["x"], s=number()),
    ],
)
class expon_logpdf:  # -y - log(scale), for x above loc
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(-bz / scale, x)
        bloc = runtime.unbroadcast(bz / scale, loc)
        bscale = runtime.unbroadcast(bz * ((x - loc) / scale - 1) / scale, scale)

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = runtime.broadcast_like(-dx / scale, z)
        dz = runtime.broadcast_like(dloc / scale, z)
        dz = dscale * ((x - loc) / scale - 1) / scale


@_method(
    scipy.stats.expon.pdf,
    samples=[Sample("scipy.stats.expon.pdf(x, loc, scale)", **_ABOVE_LOC, scale=positive(3, 1))],
)
class expon_pdf:
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(-bz * z / scale, x)
        bloc = runtime.unbroadcast(bz * z / scale, loc)
        bscale = runtime.unbroadcast(bz * z * ((x - loc) / scale - 1) / scale, scale)

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = -dx * z / scale
        dz = dloc * z / scale
        dz = dscale * z * ((x - loc) / scale - 1) / scale


@_method(scipy.stats.laplace.logpdf, samples=_located("scipy.stats.laplace.logpdf"))
class laplace_logpdf:  # -|y| - log(2 scale)
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(-bz * np.sign(x - loc) / scale, x)
        bloc = runtime.unbroadcast(bz * np.sign(x - loc) / scale, loc)
        bscale = runtime.unbroadcast(bz * (np.abs(x - loc) / scale - 1) / scale, scale)

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = -dx * np.sign(x - loc) / scale
        dz = dloc * np.sign(x - loc) / scale
        dz = dscale * (np.abs(x - loc) / scale - 1) / scale


@_method(scipy.stats.laplace.pdf, samples=_located("scipy.stats.laplace.pdf")[:1])
class laplace_pdf:
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(-bz * z * np.sign(x - loc) / scale, x)
        bloc = runtime.unbroadcast(bz * z * np.sign(x - loc) / scale, loc)
        bscale = runtime.unbroadcast(bz * z * (np.abs(x - loc) / scale - 1) / scale, scale)

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = -dx * z * np.sign(x - loc) / scale
        dz = dloc * z * np.sign(x - loc) / scale
        dz = dscale * z * (np.abs(x - loc) / scale - 1) / scale


@_method(scipy.stats.logistic.logpdf, samples=_located("scipy.stats.logistic.logpdf"))
class logistic_logpdf:  # -y - 2 log(1 + exp(-y)), whose slope in y is -tanh(y / 2)
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(-bz * np.tanh((x - loc) / (2 * scale)) / scale, x)
        bloc = runtime.unbroadcast(bz * np.tanh((x - loc) / (2 * scale)) / scale, loc)
        bscale = runtime.unbroadcast(
            bz * ((x - loc) / scale * np.tanh((x - loc) / (2 * scale)) - 1) / scale, scale
        )

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = -dx * np.tanh((x - loc) / (2 * scale)) / scale
        dz = dloc * np.tanh((x - loc) / (2 * scale)) / scale
        dz = dscale * ((x - loc) / scale * np.tanh((x - loc) / (2 * scale)) - 1) / scale


@_method(scipy.stats.logistic.pdf, samples=_located("scipy.stats.logistic.pdf")[:1])
class logistic_pdf:
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(-bz * z * np.tanh((x - loc) / (2 * scale)) / scale, x)
        bloc = runtime.unbroadcast(bz * z * np.tanh((x - loc) / (2 * scale)) / scale, loc)
        bscale = runtime.unbroadcast(
            bz * z * ((x - loc) / scale * np.tanh((x - loc) / (2 * scale)) - 1) / scale, scale
        )

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = -dx * z * np.tanh((x - loc) / (2 * scale)) / scale
        dz = dloc * z * np.tanh((x - loc) / (2 * scale)) / scale
        dz = dscale * z * ((x - loc) / scale * np.tanh((x - loc) / (2 * scale)) - 1) / scale


@_method(scipy.stats.cauchy.logpdf, samples=_located("scipy.stats.cauchy.logpdf"))
class cauchy_logpdf:  # -log(pi scale (1 + y ** 2))
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(-2 * bz * (x - loc) / (scale**2 + (x - loc) ** 2), x)
        bloc = runtime.unbroadcast(2 * bz * (x - loc) / (scale**2 + (x - loc) ** 2), loc)
        bscale = runtime.unbroadcast(
            bz * ((x - loc) ** 2 - scale**2) / (scale * (scale**2 + (x - loc) ** 2)), scale
        )

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = -2 * dx * (x - loc) / (scale**2 + (x - loc) ** 2)
        dz = 2 * dloc * (x - loc) / (scale**2 + (x - loc) ** 2)
        dz = dscale * ((x - loc) ** 2 - scale**2) / (scale * (scale**2 + (x - loc) ** 2))


@_method(scipy.stats.cauchy.pdf, samples=_located("scipy.stats.cauchy.pdf")[:1])
class cauchy_pdf:
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(-2 * bz * z * (x - loc) / (scale**2 + (x - loc) ** 2), x)
        bloc = runtime.unbroadcast(2 * bz * z * (x - loc) / (scale**2 + (x - loc) ** 2), loc)
        bscale = runtime.unbroadcast(
            bz * z * ((x - loc) ** 2 - scale**2) / (scale * (scale**2 + (x - loc) ** 2)), scale
        )

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = -2 * dx * z * (x - loc) / (scale**2 + (x - loc) ** 2)
        dz = 2 * dloc * z * (x - loc) / (scale**2 + (x - loc) ** 2)
        dz = dscale * z * ((x - loc) ** 2 - scale**2) / (scale * (scale**2 + (x - loc) ** 2))


# --- log-normal: with w = log((x - loc) / scale), -w**2 / (2 s**2) - log(s (x - loc)) - ... ---


@_method(
    scipy.stats.lognorm.logpdf,
    samples=_located("scipy.stats.lognorm.logpdf", s=positive(4), **_ABOVE_LOC),
)
class lognorm_logpdf:
    def adjoint(bz, z, x, s, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(-bz * (np.log((x - loc) / scale) / s**2 + 1) / (x - loc), x)
        bs = runtime.unbroadcast(bz * (np.log((x - loc) / scale) ** 2 / s**2 - 1) / s, s)
        bloc = runtime.unbroadcast(bz * (np.log((x - loc) / scale) / s**2 + 1) / (x - loc), loc)
        bscale = runtime.unbroadcast(bz * np.log((x - loc) / scale) / (s**2 * scale), scale)

    def tangent(dz, z, x, s, loc=0.0, scale=1.0):
        dz = -dx * (np.log((x - loc) / scale) / s**2 + 1) / (x - loc)
        dz = ds * (np.log((x - loc) / scale) ** 2 / s**2 - 1) / s
        dz = dloc * (np.log((x - loc) / scale) / s**2 + 1) / (x - loc)
        dz = dscale * np.log((x - loc) / scale) / (s**2 * scale)


@_method(
    scipy.stats.lognorm.pdf,
    samples=_located("scipy.stats.lognorm.pdf", s=positive(4), **_ABOVE_LOC)[:1],
)
class lognorm_pdf:
    def adjoint(bz, z, x, s, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(-bz * z * (np.log((x - loc) / scale) / s**2 + 1) / (x - loc), x)
        bs = runtime.unbroadcast(bz * z * (np.log((x - loc) / scale) ** 2 / s**2 - 1) / s, s)
        bloc = runtime.unbroadcast(bz * z * (np.log((x - loc) / scale) / s**2 + 1) / (x - loc), loc)
        bscale = runtime.unbroadcast(bz * z * np.log((x - loc) / scale) / (s**2 * scale), scale)

    def tangent(dz, z, x, s, loc=0.0, scale=1.0):
        dz = -dx * z * (np.log((x - loc) / scale) / s**2 + 1) / (x - loc)
        dz = ds * z * (np.log((x - loc) / scale) ** 2 / s**2 - 1) / s
        dz = dloc * z * (np.log((x - loc) / scale) / s**2 + 1) / (x - loc)
        dz = dscale * z * np.log((x - loc) / scale) / (s**2 * scale)
