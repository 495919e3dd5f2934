"""The moments of SciPy's univariate distributions (scipy.stats: mean, median, std and var of
norm, expon, uniform, laplace, logistic, cauchy, gamma, beta, t and lognorm), declared once the
program imports scipy.stats (optional.py), differentiable in loc, scale and the shape
parameters. A frozen distribution's `st.norm(m, s).mean()` is `st.norm.mean(m, s)`
(frozen_distributions.py).

Of a location-scale family, a location (mean, median) is loc + c * scale, a spread (std)
c * scale and a variance c * scale ** 2 for a constant c of the family, so its derivatives
are written with the output z: (z - loc) / scale, z / scale and 2 z / scale. A shape
parameter's is that of log z (of z - loc for a location)."""

import numpy as np
import scipy.stats

from .. import runtime
from .registry import EVALUATE, Sample, primitive
from .samples import number, positive, real

_LOC_SCALE = dict(loc=real(4), scale=positive(3, 1))


def _moment(*functions, **facts):
    return primitive(*functions, shape=EVALUATE, fresh=True, **facts)


def _samples(*calls, **shape_params):
    """One sample of each `call(<shape parameters>, loc, scale)`, every parameter an array."""
    return [
        Sample(
            f"{call}({''.join(f'{p}, ' for p in shape_params)}loc, scale)",
            **shape_params,
            **_LOC_SCALE,
        )
        for call in calls
    ]


# --- location-scale families: their moments are loc and scale times a constant ----------------

_FAMILIES = ("norm", "expon", "uniform", "laplace", "logistic")


@_moment(
    *(getattr(scipy.stats, family).mean for family in _FAMILIES),
    *(getattr(scipy.stats, family).median for family in (*_FAMILIES, "cauchy")),
    samples=_samples(*(f"scipy.stats.{f}.mean" for f in _FAMILIES))
    + _samples("scipy.stats.expon.median", "scipy.stats.cauchy.median")
    + [Sample("scipy.stats.norm.mean(loc)", loc=real(3))],
)
class location:  # loc + c * scale
    def adjoint(bz, z, loc=0.0, scale=1.0):
        bloc = runtime.unbroadcast(bz, loc)
        bscale = runtime.unbroadcast(bz * (z - loc) / scale, scale)

    def tangent(dz, z, loc=0.0, scale=1.0):
        dz = runtime.broadcast_like(dloc, z)
        dz = dscale * (z - loc) / scale


@_moment(
    *(getattr(scipy.stats, family).std for family in _FAMILIES),
    constant=("loc",),
    samples=_samples(*(f"scipy.stats.{f}.std" for f in _FAMILIES)),
)
class spread:  # c * scale
    def adjoint(bz, z, loc=0.0, scale=1.0):
        bscale = runtime.unbroadcast(bz * z / scale, scale)

    def tangent(dz, z, loc=0.0, scale=1.0):
        dz = dscale * z / scale


@_moment(
    *(getattr(scipy.stats, family).var for family in _FAMILIES),
    constant=("loc",),
    samples=_samples(*(f"scipy.stats.{f}.var" for f in _FAMILIES)),
)
class variance:  # c * scale ** 2
    def adjoint(bz, z, loc=0.0, scale=1.0):
        bscale = runtime.unbroadcast(2 * bz * z / scale, scale)

    def tangent(dz, z, loc=0.0, scale=1.0):
        dz = 2 * dscale * z / scale


# --- gamma: mean loc + a scale, variance a scale ** 2 -----------------------------------------


@_moment(scipy.stats.gamma.mean, samples=_samples("scipy.stats.gamma.mean", a=positive(4)))
class gamma_mean:
    def adjoint(bz, z, a, loc=0.0, scale=1.0):
        ba = runtime.unbroadcast(bz * scale, a)
        bloc = runtime.unbroadcast(bz, loc)
        bscale = runtime.unbroadcast(bz * a, scale)

    def tangent(dz, z, a, loc=0.0, scale=1.0):
        dz = runtime.broadcast_like(da * scale, z)
        dz = runtime.broadcast_like(dloc, z)
        dz = runtime.broadcast_like(dscale * a, z)


@_moment(
    scipy.stats.gamma.var,
    constant=("loc",),
    samples=_samples("scipy.stats.gamma.var", a=positive(4)),
)
class gamma_var:
    def adjoint(bz, z, a, loc=0.0, scale=1.0):
        ba = runtime.unbroadcast(bz * z / a, a)
        bscale = runtime.unbroadcast(2 * bz * z / scale, scale)

    def tangent(dz, z, a, loc=0.0, scale=1.0):
        dz = da * z / a
        dz = 2 * dscale * z / scale


@_moment(
    scipy.stats.gamma.std,
    constant=("loc",),
    samples=_samples("scipy.stats.gamma.std", a=positive(4)),
)
class gamma_std:
    def adjoint(bz, z, a, loc=0.0, scale=1.0):
        ba = runtime.unbroadcast(bz * z / (2 * a), a)
        bscale = runtime.unbroadcast(bz * z / scale, scale)

    def tangent(dz, z, a, loc=0.0, scale=1.0):
        dz = da * z / (2 * a)
        dz = dscale * z / scale


# the median loc + scale q, q the quantile 1/2 of the shape: in loc and scale only, the shape
# an error where differentiated (q's slope in it, -dF/da / pdf at q by the implicit function
# theorem, needs the cdf's slope in the shape, which scipy.special has not, nor of beta's)
@_moment(
    scipy.stats.gamma.median,
    samples=[
        Sample(
            "scipy.stats.gamma.median(a, loc, scale)", a=positive(4), **_LOC_SCALE, constant=("a",)
        )
    ],
)
class gamma_median:
    def adjoint(bz, z, a, loc=0.0, scale=1.0):
        bloc = runtime.unbroadcast(bz, loc)
        bscale = runtime.unbroadcast(bz * (z - loc) / scale, scale)

    def tangent(dz, z, a, loc=0.0, scale=1.0):
        dz = runtime.broadcast_like(dloc, z)
        dz = dscale * (z - loc) / scale


# --- beta: mean loc + scale a / (a + b), variance scale ** 2 a b / ((a + b) ** 2 (a + b + 1)) ---

_AB = dict(a=positive(4), b=positive(3, 1))


@_moment(scipy.stats.beta.mean, samples=_samples("scipy.stats.beta.mean", **_AB))
class beta_mean:
    def adjoint(bz, z, a, b, loc=0.0, scale=1.0):
        ba = runtime.unbroadcast(bz * scale * b / (a + b) ** 2, a)
        bb = runtime.unbroadcast(-bz * scale * a / (a + b) ** 2, b)
        bloc = runtime.unbroadcast(bz, loc)
        bscale = runtime.unbroadcast(bz * a / (a + b), scale)

    def tangent(dz, z, a, b, loc=0.0, scale=1.0):
        dz = runtime.broadcast_like(da * scale * b / (a + b) ** 2, z)
        dz = runtime.broadcast_like(-db * scale * a / (a + b) ** 2, z)
        dz = runtime.broadcast_like(dloc, z)
        dz = runtime.broadcast_like(dscale * a / (a + b), z)


@_moment(scipy.stats.beta.var, constant=("loc",), samples=_samples("scipy.stats.beta.var", **_AB))
class beta_var:  # d log z / da = 1 / a - 2 / (a + b) - 1 / (a + b + 1)
    def adjoint(bz, z, a, b, loc=0.0, scale=1.0):
        ba = runtime.unbroadcast(bz * z * (1 / a - 2 / (a + b) - 1 / (a + b + 1)), a)
        bb = runtime.unbroadcast(bz * z * (1 / b - 2 / (a + b) - 1 / (a + b + 1)), b)
        bscale = runtime.unbroadcast(2 * bz * z / scale, scale)

    def tangent(dz, z, a, b, loc=0.0, scale=1.0):
        dz = da * z * (1 / a - 2 / (a + b) - 1 / (a + b + 1))
        dz = db * z * (1 / b - 2 / (a + b) - 1 / (a + b + 1))
        dz = 2 * dscale * z / scale


@_moment(scipy.stats.beta.std, constant=("loc",), samples=_samples("scipy.stats.beta.std", **_AB))
class beta_std:  # half the variance's d log z
    def adjoint(bz, z, a, b, loc=0.0, scale=1.0):
        ba = runtime.unbroadcast(bz * z * (1 / a - 2 / (a + b) - 1 / (a + b + 1)) / 2, a)
        bb = runtime.unbroadcast(bz * z * (1 / b - 2 / (a + b) - 1 / (a + b + 1)) / 2, b)
        bscale = runtime.unbroadcast(bz * z / scale, scale)

    def tangent(dz, z, a, b, loc=0.0, scale=1.0):
        dz = da * z * (1 / a - 2 / (a + b) - 1 / (a + b + 1)) / 2
        dz = db * z * (1 / b - 2 / (a + b) - 1 / (a + b + 1)) / 2
        dz = dscale * z / scale


@_moment(
    scipy.stats.beta.median,
    samples=[
        Sample(
            "scipy.stats.beta.median(a, b, loc, scale)", **_AB, **_LOC_SCALE, constant=("a", "b")
        )
    ],
)
class beta_median:  # (as gamma's)
    def adjoint(bz, z, a, b, loc=0.0, scale=1.0):
        bloc = runtime.unbroadcast(bz, loc)
        bscale = runtime.unbroadcast(bz * (z - loc) / scale, scale)

    def tangent(dz, z, a, b, loc=0.0, scale=1.0):
        dz = runtime.broadcast_like(dloc, z)
        dz = dscale * (z - loc) / scale


# --- Student's t: mean and median loc, variance scale ** 2 df / (df - 2) for df > 2 ----------

# (a float: SciPy's t of float32 arrays fails, casting its float64 result into them)
_DF = dict(df=number(low=3.0, high=6.0))


@_moment(
    scipy.stats.t.mean,
    scipy.stats.t.median,
    constant=("df", "scale"),
    samples=_samples("scipy.stats.t.mean", "scipy.stats.t.median", **_DF),
)
class t_location:
    def adjoint(bz, z, df, loc=0.0, scale=1.0):
        bloc = runtime.unbroadcast(bz, loc)

    def tangent(dz, z, df, loc=0.0, scale=1.0):
        dz = runtime.broadcast_like(dloc, z)


@_moment(scipy.stats.t.var, constant=("loc",), samples=_samples("scipy.stats.t.var", **_DF))
class t_var:  # d log z / d df = -2 / (df (df - 2))
    def adjoint(bz, z, df, loc=0.0, scale=1.0):
        bdf = runtime.unbroadcast(-2 * bz * z / (df * (df - 2)), df)
        bscale = runtime.unbroadcast(2 * bz * z / scale, scale)

    def tangent(dz, z, df, loc=0.0, scale=1.0):
        dz = -2 * ddf * z / (df * (df - 2))
        dz = 2 * dscale * z / scale


@_moment(scipy.stats.t.std, constant=("loc",), samples=_samples("scipy.stats.t.std", **_DF))
class t_std:
    def adjoint(bz, z, df, loc=0.0, scale=1.0):
        bdf = runtime.unbroadcast(-bz * z / (df * (df - 2)), df)
        bscale = runtime.unbroadcast(bz * z / scale, scale)

    def tangent(dz, z, df, loc=0.0, scale=1.0):
        dz = -ddf * z / (df * (df - 2))
        dz = dscale * z / scale


# --- lognorm (shape s, written sigma: `s` is taken for an integral parameter elsewhere):
# mean loc + scale exp(s ** 2 / 2), median loc + scale, variance
# scale ** 2 (exp(s ** 2) - 1) exp(s ** 2) -------------------------------------------------------

_SIGMA = dict(sigma=positive(4, low=0.2, high=1.0))
_S = (("s", "sigma"),)  # (the keyword SciPy takes for it, the templates' name)


@_moment(
    scipy.stats.lognorm.mean,
    keyword_aliases=_S,
    samples=_samples("scipy.stats.lognorm.mean", **_SIGMA),
)
class lognorm_mean:
    def adjoint(bz, z, sigma, loc=0.0, scale=1.0):
        bsigma = runtime.unbroadcast(bz * (z - loc) * sigma, sigma)
        bloc = runtime.unbroadcast(bz, loc)
        bscale = runtime.unbroadcast(bz * (z - loc) / scale, scale)

    def tangent(dz, z, sigma, loc=0.0, scale=1.0):
        dz = dsigma * (z - loc) * sigma
        dz = runtime.broadcast_like(dloc, z)
        dz = dscale * (z - loc) / scale


@_moment(
    scipy.stats.lognorm.median,
    keyword_aliases=_S,
    constant=("sigma",),
    samples=_samples("scipy.stats.lognorm.median", **_SIGMA),
)
class lognorm_median:
    def adjoint(bz, z, sigma, loc=0.0, scale=1.0):
        bloc = runtime.unbroadcast(bz, loc)
        bscale = runtime.unbroadcast(bz, scale)

    def tangent(dz, z, sigma, loc=0.0, scale=1.0):
        dz = runtime.broadcast_like(dloc, z)
        dz = runtime.broadcast_like(dscale, z)


@_moment(
    scipy.stats.lognorm.var,
    keyword_aliases=_S,
    constant=("loc",),
    samples=_samples("scipy.stats.lognorm.var", **_SIGMA),
)
class lognorm_var:  # d log z / d s = 2 s (exp(s ** 2) / (exp(s ** 2) - 1) + 1)
    def adjoint(bz, z, sigma, loc=0.0, scale=1.0):
        bsigma = runtime.unbroadcast(
            2 * bz * z * sigma * (1 / (1 - np.exp(-(sigma**2))) + 1), sigma
        )
        bscale = runtime.unbroadcast(2 * bz * z / scale, scale)

    def tangent(dz, z, sigma, loc=0.0, scale=1.0):
        dz = 2 * dsigma * z * sigma * (1 / (1 - np.exp(-(sigma**2))) + 1)
        dz = 2 * dscale * z / scale


@_moment(
    scipy.stats.lognorm.std,
    keyword_aliases=_S,
    constant=("loc",),
    samples=_samples("scipy.stats.lognorm.std", **_SIGMA),
)
class lognorm_std:
    def adjoint(bz, z, sigma, loc=0.0, scale=1.0):
        bsigma = runtime.unbroadcast(bz * z * sigma * (1 / (1 - np.exp(-(sigma**2))) + 1), sigma)
        bscale = runtime.unbroadcast(bz * z / scale, scale)

    def tangent(dz, z, sigma, loc=0.0, scale=1.0):
        dz = dsigma * z * sigma * (1 / (1 - np.exp(-(sigma**2))) + 1)
        dz = dscale * z / scale
