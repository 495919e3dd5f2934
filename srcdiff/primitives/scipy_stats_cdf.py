"""The distribution functions of SciPy's univariate distributions: cdf, logcdf and sf (and
norm's logsf, and its quantiles ppf and isf), declared once the program imports scipy.stats
(optional.py). As F((x - loc) / scale), their slopes in x, loc and scale are the density's:
pdf, -pdf and -pdf (x - loc) / scale (over the cdf for logcdf: exp(logpdf - logcdf)). Those
in a shape parameter (t's df, gamma's a, beta's a and b) have no closed form:
differentiating one is an error at its line."""

import numpy as np
import scipy.stats

from .. import runtime
from .registry import EVALUATE, Sample, primitive
from .samples import positive, real


def _method(function, samples):
    return primitive(function, shape=EVALUATE, fresh=True, samples=samples)


def _sample(call, x=real(3, 4), loc=real(4), **shape_params):
    names = "".join(f", {name}" for name in shape_params)
    return [
        Sample(
            f"{call}(x{names}, loc, scale)",
            x=x,
            **shape_params,
            loc=loc,
            scale=positive(3, 1),
            constant=tuple(shape_params),
        )
    ]


_ABOVE_LOC = dict(x=positive(3, 4, low=1.5, high=3.0), loc=positive(4, low=-0.5, high=0.5))
_INSIDE = dict(x=positive(3, 4, low=0.3, high=0.7), loc=positive(4, low=-0.1, high=0.1))


# --- norm ---------------------------------------------------------------------------------------


@_method(scipy.stats.norm.cdf, samples=_sample("scipy.stats.norm.cdf"))
class norm_cdf:
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(bz * scipy.stats.norm.pdf(x, loc, scale), x)
        bloc = runtime.unbroadcast(-bz * scipy.stats.norm.pdf(x, loc, scale), loc)
        bscale = runtime.unbroadcast(
            -bz * scipy.stats.norm.pdf(x, loc, scale) * (x - loc) / scale, scale
        )

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = dx * scipy.stats.norm.pdf(x, loc, scale)
        dz = -dloc * scipy.stats.norm.pdf(x, loc, scale)
        dz = -dscale * scipy.stats.norm.pdf(x, loc, scale) * (x - loc) / scale


@_method(scipy.stats.norm.logcdf, samples=_sample("scipy.stats.norm.logcdf"))
class norm_logcdf:
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(bz * np.exp(scipy.stats.norm.logpdf(x, loc, scale) - z), x)
        bloc = runtime.unbroadcast(-bz * np.exp(scipy.stats.norm.logpdf(x, loc, scale) - z), loc)
        bscale = runtime.unbroadcast(
            -bz * np.exp(scipy.stats.norm.logpdf(x, loc, scale) - z) * (x - loc) / scale, scale
        )

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = dx * np.exp(scipy.stats.norm.logpdf(x, loc, scale) - z)
        dz = -dloc * np.exp(scipy.stats.norm.logpdf(x, loc, scale) - z)
        dz = -dscale * np.exp(scipy.stats.norm.logpdf(x, loc, scale) - z) * (x - loc) / scale


@_method(scipy.stats.norm.sf, samples=_sample("scipy.stats.norm.sf"))
class norm_sf:
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(-bz * scipy.stats.norm.pdf(x, loc, scale), x)
        bloc = runtime.unbroadcast(bz * scipy.stats.norm.pdf(x, loc, scale), loc)
        bscale = runtime.unbroadcast(
            bz * scipy.stats.norm.pdf(x, loc, scale) * (x - loc) / scale, scale
        )

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = -dx * scipy.stats.norm.pdf(x, loc, scale)
        dz = dloc * scipy.stats.norm.pdf(x, loc, scale)
        dz = dscale * scipy.stats.norm.pdf(x, loc, scale) * (x - loc) / scale


# the quantiles: z = loc + scale * ndtri(q) (isf: of 1 - q), whose slope in q is one over the
# density at z, and in scale the standardised z
_QUANTILES = [
    Sample(
        "{}(q, loc, scale)",
        q=positive(3, 4, low=0.1, high=0.9),
        loc=real(4),
        scale=positive(3, 1),
    ),
    Sample("{}(q)", q=positive(3, low=0.1, high=0.9)),
]


def _quantile_samples(call):
    return [Sample(s.call.format(call), **s.args) for s in _QUANTILES]


@_method(scipy.stats.norm.ppf, samples=_quantile_samples("scipy.stats.norm.ppf"))
class norm_ppf:
    def adjoint(bz, z, q, loc=0.0, scale=1.0):
        bq = runtime.unbroadcast(bz / scipy.stats.norm.pdf(z, loc, scale), q)
        bloc = runtime.unbroadcast(bz, loc)
        bscale = runtime.unbroadcast(bz * (z - loc) / scale, scale)

    def tangent(dz, z, q, loc=0.0, scale=1.0):
        dz = dq / scipy.stats.norm.pdf(z, loc, scale)
        dz = runtime.broadcast_like(dloc, z)
        dz = dscale * (z - loc) / scale


@_method(scipy.stats.norm.isf, samples=_quantile_samples("scipy.stats.norm.isf"))
class norm_isf:
    def adjoint(bz, z, q, loc=0.0, scale=1.0):
        bq = runtime.unbroadcast(-bz / scipy.stats.norm.pdf(z, loc, scale), q)
        bloc = runtime.unbroadcast(bz, loc)
        bscale = runtime.unbroadcast(bz * (z - loc) / scale, scale)

    def tangent(dz, z, q, loc=0.0, scale=1.0):
        dz = -dq / scipy.stats.norm.pdf(z, loc, scale)
        dz = runtime.broadcast_like(dloc, z)
        dz = dscale * (z - loc) / scale


@_method(scipy.stats.norm.logsf, samples=_sample("scipy.stats.norm.logsf"))
class norm_logsf:
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(-bz * np.exp(scipy.stats.norm.logpdf(x, loc, scale) - z), x)
        bloc = runtime.unbroadcast(bz * np.exp(scipy.stats.norm.logpdf(x, loc, scale) - z), loc)
        bscale = runtime.unbroadcast(
            bz * np.exp(scipy.stats.norm.logpdf(x, loc, scale) - z) * (x - loc) / scale, scale
        )

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = -dx * np.exp(scipy.stats.norm.logpdf(x, loc, scale) - z)
        dz = dloc * np.exp(scipy.stats.norm.logpdf(x, loc, scale) - z)
        dz = dscale * np.exp(scipy.stats.norm.logpdf(x, loc, scale) - z) * (x - loc) / scale


# --- expon --------------------------------------------------------------------------------------


@_method(
    scipy.stats.expon.cdf,
    samples=_sample(
        "scipy.stats.expon.cdf",
        x=positive(3, 4, low=1.5, high=3.0),
        loc=positive(4, low=-0.5, high=0.5),
    ),
)
class expon_cdf:
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(bz * scipy.stats.expon.pdf(x, loc, scale), x)
        bloc = runtime.unbroadcast(-bz * scipy.stats.expon.pdf(x, loc, scale), loc)
        bscale = runtime.unbroadcast(
            -bz * scipy.stats.expon.pdf(x, loc, scale) * (x - loc) / scale, scale
        )

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = dx * scipy.stats.expon.pdf(x, loc, scale)
        dz = -dloc * scipy.stats.expon.pdf(x, loc, scale)
        dz = -dscale * scipy.stats.expon.pdf(x, loc, scale) * (x - loc) / scale


@_method(
    scipy.stats.expon.logcdf,
    samples=_sample(
        "scipy.stats.expon.logcdf",
        x=positive(3, 4, low=1.5, high=3.0),
        loc=positive(4, low=-0.5, high=0.5),
    ),
)
class expon_logcdf:
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(bz * np.exp(scipy.stats.expon.logpdf(x, loc, scale) - z), x)
        bloc = runtime.unbroadcast(-bz * np.exp(scipy.stats.expon.logpdf(x, loc, scale) - z), loc)
        bscale = runtime.unbroadcast(
            -bz * np.exp(scipy.stats.expon.logpdf(x, loc, scale) - z) * (x - loc) / scale, scale
        )

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = dx * np.exp(scipy.stats.expon.logpdf(x, loc, scale) - z)
        dz = -dloc * np.exp(scipy.stats.expon.logpdf(x, loc, scale) - z)
        dz = -dscale * np.exp(scipy.stats.expon.logpdf(x, loc, scale) - z) * (x - loc) / scale


@_method(
    scipy.stats.expon.sf,
    samples=_sample(
        "scipy.stats.expon.sf",
        x=positive(3, 4, low=1.5, high=3.0),
        loc=positive(4, low=-0.5, high=0.5),
    ),
)
class expon_sf:
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(-bz * scipy.stats.expon.pdf(x, loc, scale), x)
        bloc = runtime.unbroadcast(bz * scipy.stats.expon.pdf(x, loc, scale), loc)
        bscale = runtime.unbroadcast(
            bz * scipy.stats.expon.pdf(x, loc, scale) * (x - loc) / scale, scale
        )

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = -dx * scipy.stats.expon.pdf(x, loc, scale)
        dz = dloc * scipy.stats.expon.pdf(x, loc, scale)
        dz = dscale * scipy.stats.expon.pdf(x, loc, scale) * (x - loc) / scale


# --- laplace ------------------------------------------------------------------------------------


@_method(scipy.stats.laplace.cdf, samples=_sample("scipy.stats.laplace.cdf"))
class laplace_cdf:
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(bz * scipy.stats.laplace.pdf(x, loc, scale), x)
        bloc = runtime.unbroadcast(-bz * scipy.stats.laplace.pdf(x, loc, scale), loc)
        bscale = runtime.unbroadcast(
            -bz * scipy.stats.laplace.pdf(x, loc, scale) * (x - loc) / scale, scale
        )

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = dx * scipy.stats.laplace.pdf(x, loc, scale)
        dz = -dloc * scipy.stats.laplace.pdf(x, loc, scale)
        dz = -dscale * scipy.stats.laplace.pdf(x, loc, scale) * (x - loc) / scale


@_method(scipy.stats.laplace.logcdf, samples=_sample("scipy.stats.laplace.logcdf"))
class laplace_logcdf:
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(bz * np.exp(scipy.stats.laplace.logpdf(x, loc, scale) - z), x)
        bloc = runtime.unbroadcast(-bz * np.exp(scipy.stats.laplace.logpdf(x, loc, scale) - z), loc)
        bscale = runtime.unbroadcast(
            -bz * np.exp(scipy.stats.laplace.logpdf(x, loc, scale) - z) * (x - loc) / scale, scale
        )

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = dx * np.exp(scipy.stats.laplace.logpdf(x, loc, scale) - z)
        dz = -dloc * np.exp(scipy.stats.laplace.logpdf(x, loc, scale) - z)
        dz = -dscale * np.exp(scipy.stats.laplace.logpdf(x, loc, scale) - z) * (x - loc) / scale


@_method(scipy.stats.laplace.sf, samples=_sample("scipy.stats.laplace.sf"))
class laplace_sf:
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(-bz * scipy.stats.laplace.pdf(x, loc, scale), x)
        bloc = runtime.unbroadcast(bz * scipy.stats.laplace.pdf(x, loc, scale), loc)
        bscale = runtime.unbroadcast(
            bz * scipy.stats.laplace.pdf(x, loc, scale) * (x - loc) / scale, scale
        )

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = -dx * scipy.stats.laplace.pdf(x, loc, scale)
        dz = dloc * scipy.stats.laplace.pdf(x, loc, scale)
        dz = dscale * scipy.stats.laplace.pdf(x, loc, scale) * (x - loc) / scale


# --- logistic -----------------------------------------------------------------------------------


@_method(scipy.stats.logistic.cdf, samples=_sample("scipy.stats.logistic.cdf"))
class logistic_cdf:
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(bz * scipy.stats.logistic.pdf(x, loc, scale), x)
        bloc = runtime.unbroadcast(-bz * scipy.stats.logistic.pdf(x, loc, scale), loc)
        bscale = runtime.unbroadcast(
            -bz * scipy.stats.logistic.pdf(x, loc, scale) * (x - loc) / scale, scale
        )

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = dx * scipy.stats.logistic.pdf(x, loc, scale)
        dz = -dloc * scipy.stats.logistic.pdf(x, loc, scale)
        dz = -dscale * scipy.stats.logistic.pdf(x, loc, scale) * (x - loc) / scale


@_method(scipy.stats.logistic.logcdf, samples=_sample("scipy.stats.logistic.logcdf"))
class logistic_logcdf:
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(bz * np.exp(scipy.stats.logistic.logpdf(x, loc, scale) - z), x)
        bloc = runtime.unbroadcast(
            -bz * np.exp(scipy.stats.logistic.logpdf(x, loc, scale) - z), loc
        )
        bscale = runtime.unbroadcast(
            -bz * np.exp(scipy.stats.logistic.logpdf(x, loc, scale) - z) * (x - loc) / scale, scale
        )

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = dx * np.exp(scipy.stats.logistic.logpdf(x, loc, scale) - z)
        dz = -dloc * np.exp(scipy.stats.logistic.logpdf(x, loc, scale) - z)
        dz = -dscale * np.exp(scipy.stats.logistic.logpdf(x, loc, scale) - z) * (x - loc) / scale


@_method(scipy.stats.logistic.sf, samples=_sample("scipy.stats.logistic.sf"))
class logistic_sf:
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(-bz * scipy.stats.logistic.pdf(x, loc, scale), x)
        bloc = runtime.unbroadcast(bz * scipy.stats.logistic.pdf(x, loc, scale), loc)
        bscale = runtime.unbroadcast(
            bz * scipy.stats.logistic.pdf(x, loc, scale) * (x - loc) / scale, scale
        )

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = -dx * scipy.stats.logistic.pdf(x, loc, scale)
        dz = dloc * scipy.stats.logistic.pdf(x, loc, scale)
        dz = dscale * scipy.stats.logistic.pdf(x, loc, scale) * (x - loc) / scale


# --- cauchy -------------------------------------------------------------------------------------


@_method(scipy.stats.cauchy.cdf, samples=_sample("scipy.stats.cauchy.cdf"))
class cauchy_cdf:
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(bz * scipy.stats.cauchy.pdf(x, loc, scale), x)
        bloc = runtime.unbroadcast(-bz * scipy.stats.cauchy.pdf(x, loc, scale), loc)
        bscale = runtime.unbroadcast(
            -bz * scipy.stats.cauchy.pdf(x, loc, scale) * (x - loc) / scale, scale
        )

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = dx * scipy.stats.cauchy.pdf(x, loc, scale)
        dz = -dloc * scipy.stats.cauchy.pdf(x, loc, scale)
        dz = -dscale * scipy.stats.cauchy.pdf(x, loc, scale) * (x - loc) / scale


@_method(scipy.stats.cauchy.logcdf, samples=_sample("scipy.stats.cauchy.logcdf"))
class cauchy_logcdf:
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(bz * np.exp(scipy.stats.cauchy.logpdf(x, loc, scale) - z), x)
        bloc = runtime.unbroadcast(-bz * np.exp(scipy.stats.cauchy.logpdf(x, loc, scale) - z), loc)
        bscale = runtime.unbroadcast(
            -bz * np.exp(scipy.stats.cauchy.logpdf(x, loc, scale) - z) * (x - loc) / scale, scale
        )

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = dx * np.exp(scipy.stats.cauchy.logpdf(x, loc, scale) - z)
        dz = -dloc * np.exp(scipy.stats.cauchy.logpdf(x, loc, scale) - z)
        dz = -dscale * np.exp(scipy.stats.cauchy.logpdf(x, loc, scale) - z) * (x - loc) / scale


@_method(scipy.stats.cauchy.sf, samples=_sample("scipy.stats.cauchy.sf"))
class cauchy_sf:
    def adjoint(bz, z, x, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(-bz * scipy.stats.cauchy.pdf(x, loc, scale), x)
        bloc = runtime.unbroadcast(bz * scipy.stats.cauchy.pdf(x, loc, scale), loc)
        bscale = runtime.unbroadcast(
            bz * scipy.stats.cauchy.pdf(x, loc, scale) * (x - loc) / scale, scale
        )

    def tangent(dz, z, x, loc=0.0, scale=1.0):
        dz = -dx * scipy.stats.cauchy.pdf(x, loc, scale)
        dz = dloc * scipy.stats.cauchy.pdf(x, loc, scale)
        dz = dscale * scipy.stats.cauchy.pdf(x, loc, scale) * (x - loc) / scale


# --- t ------------------------------------------------------------------------------------------


@_method(scipy.stats.t.cdf, samples=_sample("scipy.stats.t.cdf", df=positive(4, low=1.0, high=5.0)))
class t_cdf:
    def adjoint(bz, z, x, df, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(bz * scipy.stats.t.pdf(x, df, loc, scale), x)
        bloc = runtime.unbroadcast(-bz * scipy.stats.t.pdf(x, df, loc, scale), loc)
        bscale = runtime.unbroadcast(
            -bz * scipy.stats.t.pdf(x, df, loc, scale) * (x - loc) / scale, scale
        )

    def tangent(dz, z, x, df, loc=0.0, scale=1.0):
        dz = dx * scipy.stats.t.pdf(x, df, loc, scale)
        dz = -dloc * scipy.stats.t.pdf(x, df, loc, scale)
        dz = -dscale * scipy.stats.t.pdf(x, df, loc, scale) * (x - loc) / scale


@_method(
    scipy.stats.t.logcdf, samples=_sample("scipy.stats.t.logcdf", df=positive(4, low=1.0, high=5.0))
)
class t_logcdf:
    def adjoint(bz, z, x, df, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(bz * np.exp(scipy.stats.t.logpdf(x, df, loc, scale) - z), x)
        bloc = runtime.unbroadcast(-bz * np.exp(scipy.stats.t.logpdf(x, df, loc, scale) - z), loc)
        bscale = runtime.unbroadcast(
            -bz * np.exp(scipy.stats.t.logpdf(x, df, loc, scale) - z) * (x - loc) / scale, scale
        )

    def tangent(dz, z, x, df, loc=0.0, scale=1.0):
        dz = dx * np.exp(scipy.stats.t.logpdf(x, df, loc, scale) - z)
        dz = -dloc * np.exp(scipy.stats.t.logpdf(x, df, loc, scale) - z)
        dz = -dscale * np.exp(scipy.stats.t.logpdf(x, df, loc, scale) - z) * (x - loc) / scale


@_method(scipy.stats.t.sf, samples=_sample("scipy.stats.t.sf", df=positive(4, low=1.0, high=5.0)))
class t_sf:
    def adjoint(bz, z, x, df, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(-bz * scipy.stats.t.pdf(x, df, loc, scale), x)
        bloc = runtime.unbroadcast(bz * scipy.stats.t.pdf(x, df, loc, scale), loc)
        bscale = runtime.unbroadcast(
            bz * scipy.stats.t.pdf(x, df, loc, scale) * (x - loc) / scale, scale
        )

    def tangent(dz, z, x, df, loc=0.0, scale=1.0):
        dz = -dx * scipy.stats.t.pdf(x, df, loc, scale)
        dz = dloc * scipy.stats.t.pdf(x, df, loc, scale)
        dz = dscale * scipy.stats.t.pdf(x, df, loc, scale) * (x - loc) / scale


# --- gamma --------------------------------------------------------------------------------------


@_method(
    scipy.stats.gamma.cdf, samples=_sample("scipy.stats.gamma.cdf", **_ABOVE_LOC, a=positive(4))
)
class gamma_cdf:
    def adjoint(bz, z, x, a, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(bz * scipy.stats.gamma.pdf(x, a, loc, scale), x)
        bloc = runtime.unbroadcast(-bz * scipy.stats.gamma.pdf(x, a, loc, scale), loc)
        bscale = runtime.unbroadcast(
            -bz * scipy.stats.gamma.pdf(x, a, loc, scale) * (x - loc) / scale, scale
        )

    def tangent(dz, z, x, a, loc=0.0, scale=1.0):
        dz = dx * scipy.stats.gamma.pdf(x, a, loc, scale)
        dz = -dloc * scipy.stats.gamma.pdf(x, a, loc, scale)
        dz = -dscale * scipy.stats.gamma.pdf(x, a, loc, scale) * (x - loc) / scale


@_method(
    scipy.stats.gamma.logcdf,
    samples=_sample("scipy.stats.gamma.logcdf", **_ABOVE_LOC, a=positive(4)),
)
class gamma_logcdf:
    def adjoint(bz, z, x, a, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(bz * np.exp(scipy.stats.gamma.logpdf(x, a, loc, scale) - z), x)
        bloc = runtime.unbroadcast(
            -bz * np.exp(scipy.stats.gamma.logpdf(x, a, loc, scale) - z), loc
        )
        bscale = runtime.unbroadcast(
            -bz * np.exp(scipy.stats.gamma.logpdf(x, a, loc, scale) - z) * (x - loc) / scale, scale
        )

    def tangent(dz, z, x, a, loc=0.0, scale=1.0):
        dz = dx * np.exp(scipy.stats.gamma.logpdf(x, a, loc, scale) - z)
        dz = -dloc * np.exp(scipy.stats.gamma.logpdf(x, a, loc, scale) - z)
        dz = -dscale * np.exp(scipy.stats.gamma.logpdf(x, a, loc, scale) - z) * (x - loc) / scale


@_method(scipy.stats.gamma.sf, samples=_sample("scipy.stats.gamma.sf", **_ABOVE_LOC, a=positive(4)))
class gamma_sf:
    def adjoint(bz, z, x, a, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(-bz * scipy.stats.gamma.pdf(x, a, loc, scale), x)
        bloc = runtime.unbroadcast(bz * scipy.stats.gamma.pdf(x, a, loc, scale), loc)
        bscale = runtime.unbroadcast(
            bz * scipy.stats.gamma.pdf(x, a, loc, scale) * (x - loc) / scale, scale
        )

    def tangent(dz, z, x, a, loc=0.0, scale=1.0):
        dz = -dx * scipy.stats.gamma.pdf(x, a, loc, scale)
        dz = dloc * scipy.stats.gamma.pdf(x, a, loc, scale)
        dz = dscale * scipy.stats.gamma.pdf(x, a, loc, scale) * (x - loc) / scale


# --- beta ---------------------------------------------------------------------------------------


@_method(
    scipy.stats.beta.cdf,
    samples=_sample("scipy.stats.beta.cdf", **_INSIDE, a=positive(4), b=positive(3, 1)),
)
class beta_cdf:
    def adjoint(bz, z, x, a, b, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(bz * scipy.stats.beta.pdf(x, a, b, loc, scale), x)
        bloc = runtime.unbroadcast(-bz * scipy.stats.beta.pdf(x, a, b, loc, scale), loc)
        bscale = runtime.unbroadcast(
            -bz * scipy.stats.beta.pdf(x, a, b, loc, scale) * (x - loc) / scale, scale
        )

    def tangent(dz, z, x, a, b, loc=0.0, scale=1.0):
        dz = dx * scipy.stats.beta.pdf(x, a, b, loc, scale)
        dz = -dloc * scipy.stats.beta.pdf(x, a, b, loc, scale)
        dz = -dscale * scipy.stats.beta.pdf(x, a, b, loc, scale) * (x - loc) / scale


@_method(
    scipy.stats.beta.logcdf,
    samples=_sample("scipy.stats.beta.logcdf", **_INSIDE, a=positive(4), b=positive(3, 1)),
)
class beta_logcdf:
    def adjoint(bz, z, x, a, b, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(bz * np.exp(scipy.stats.beta.logpdf(x, a, b, loc, scale) - z), x)
        bloc = runtime.unbroadcast(
            -bz * np.exp(scipy.stats.beta.logpdf(x, a, b, loc, scale) - z), loc
        )
        bscale = runtime.unbroadcast(
            -bz * np.exp(scipy.stats.beta.logpdf(x, a, b, loc, scale) - z) * (x - loc) / scale,
            scale,
        )

    def tangent(dz, z, x, a, b, loc=0.0, scale=1.0):
        dz = dx * np.exp(scipy.stats.beta.logpdf(x, a, b, loc, scale) - z)
        dz = -dloc * np.exp(scipy.stats.beta.logpdf(x, a, b, loc, scale) - z)
        dz = -dscale * np.exp(scipy.stats.beta.logpdf(x, a, b, loc, scale) - z) * (x - loc) / scale


@_method(
    scipy.stats.beta.sf,
    samples=_sample("scipy.stats.beta.sf", **_INSIDE, a=positive(4), b=positive(3, 1)),
)
class beta_sf:
    def adjoint(bz, z, x, a, b, loc=0.0, scale=1.0):
        bx = runtime.unbroadcast(-bz * scipy.stats.beta.pdf(x, a, b, loc, scale), x)
        bloc = runtime.unbroadcast(bz * scipy.stats.beta.pdf(x, a, b, loc, scale), loc)
        bscale = runtime.unbroadcast(
            bz * scipy.stats.beta.pdf(x, a, b, loc, scale) * (x - loc) / scale, scale
        )

    def tangent(dz, z, x, a, b, loc=0.0, scale=1.0):
        dz = -dx * scipy.stats.beta.pdf(x, a, b, loc, scale)
        dz = dloc * scipy.stats.beta.pdf(x, a, b, loc, scale)
        dz = dscale * scipy.stats.beta.pdf(x, a, b, loc, scale) * (x - loc) / scale
