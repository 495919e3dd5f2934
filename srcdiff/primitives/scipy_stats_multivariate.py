"""SciPy's Poisson, Dirichlet and multivariate normal distributions (scipy.stats), declared
once the program imports scipy.stats (optional.py), and the runtime helpers their templates
call.

- poisson: logpmf, pmf, cdf, logcdf, sf and logsf in mu (k is a count: a constant).
- dirichlet: logpdf and pdf in x (components along its first axis, all of them) and alpha.
- multivariate_normal: logpdf and pdf in x (components along its last axis), mean and cov
  (a matrix, a vector of variances or one variance, as SciPy takes it). cov is symmetric, so
  its gradient is too: the average of what each triangle would get (SciPy reads one)."""

import numpy as np
import scipy.special
import scipy.stats

from .. import runtime
from .registry import EVALUATE, Sample, primitive
from .samples import constant, number, positive, real, spd


def _method(function, samples, **facts):
    return primitive(function, shape=EVALUATE, fresh=True, samples=samples, **facts)


# --- Poisson ----------------------------------------------------------------------------------

_COUNTS = dict(k=constant(np.array([[0, 1, 3, 6]] * 3)), mu=positive(3, 1, low=1.0, high=4.0))


@_method(
    scipy.stats.poisson.logpmf,
    samples=[
        Sample("scipy.stats.poisson.logpmf(k, mu)", **_COUNTS),
        Sample("scipy.stats.poisson.logpmf(k, mu, 1)", k=constant(np.array([2, 4])), mu=number()),
    ],
)
class poisson_logpmf:  # k log mu - mu - log k!, of k - loc
    def adjoint(bz, z, k, mu, loc=0):
        bmu = runtime.unbroadcast(bz * ((k - loc) / mu - 1), mu)

    def tangent(dz, z, k, mu, loc=0):
        dz = dmu * ((k - loc) / mu - 1)


@_method(scipy.stats.poisson.pmf, samples=[Sample("scipy.stats.poisson.pmf(k, mu)", **_COUNTS)])
class poisson_pmf:
    def adjoint(bz, z, k, mu, loc=0):
        bmu = runtime.unbroadcast(bz * z * ((k - loc) / mu - 1), mu)

    def tangent(dz, z, k, mu, loc=0):
        dz = dmu * z * ((k - loc) / mu - 1)


@_method(scipy.stats.poisson.cdf, samples=[Sample("scipy.stats.poisson.cdf(k, mu)", **_COUNTS)])
class poisson_cdf:  # d/dmu P(K <= k) = -P(K = floor(k))
    def adjoint(bz, z, k, mu, loc=0):
        bmu = runtime.unbroadcast(-bz * scipy.stats.poisson.pmf(np.floor(k), mu, loc), mu)

    def tangent(dz, z, k, mu, loc=0):
        dz = -dmu * scipy.stats.poisson.pmf(np.floor(k), mu, loc)


@_method(scipy.stats.poisson.sf, samples=[Sample("scipy.stats.poisson.sf(k, mu)", **_COUNTS)])
class poisson_sf:
    def adjoint(bz, z, k, mu, loc=0):
        bmu = runtime.unbroadcast(bz * scipy.stats.poisson.pmf(np.floor(k), mu, loc), mu)

    def tangent(dz, z, k, mu, loc=0):
        dz = dmu * scipy.stats.poisson.pmf(np.floor(k), mu, loc)


@_method(
    scipy.stats.poisson.logcdf, samples=[Sample("scipy.stats.poisson.logcdf(k, mu)", **_COUNTS)]
)
class poisson_logcdf:  # d/dmu log P(K <= k) = -P(K = floor(k)) / P(K <= k)
    def adjoint(bz, z, k, mu, loc=0):
        bmu = runtime.unbroadcast(
            -bz * np.exp(scipy.stats.poisson.logpmf(np.floor(k), mu, loc) - z), mu
        )

    def tangent(dz, z, k, mu, loc=0):
        dz = -dmu * np.exp(scipy.stats.poisson.logpmf(np.floor(k), mu, loc) - z)


@_method(scipy.stats.poisson.logsf, samples=[Sample("scipy.stats.poisson.logsf(k, mu)", **_COUNTS)])
class poisson_logsf:
    def adjoint(bz, z, k, mu, loc=0):
        bmu = runtime.unbroadcast(
            bz * np.exp(scipy.stats.poisson.logpmf(np.floor(k), mu, loc) - z), mu
        )

    def tangent(dz, z, k, mu, loc=0):
        dz = dmu * np.exp(scipy.stats.poisson.logpmf(np.floor(k), mu, loc) - z)


# --- Dirichlet: -log B(alpha) + sum((alpha - 1) log x) over the components --------------------

# x on the simplex, and kept there by the finite differences: a softmax of free values
# (of float64 values: a float32 softmax is too far from the simplex for SciPy's check)
_SIMPLEX = "scipy.special.softmax(u.astype(np.float64), axis=0)"


@_method(
    scipy.stats.dirichlet.logpdf,
    samples=[
        Sample(f"scipy.stats.dirichlet.logpdf({_SIMPLEX}, alpha)", u=real(3, 4), alpha=positive(3)),
        Sample(
            f"scipy.stats.dirichlet.logpdf({_SIMPLEX}, alpha)",
            wrap=None,
            u=real(3),
            alpha=positive(3, low=1.5, high=3.0),
        ),
    ],
)
class dirichlet_logpdf:
    def adjoint(bz, z, x, alpha):
        bx = np.transpose(
            np.expand_dims(bz, -1) * (alpha - 1) / runtime.dirichlet_components(x, alpha)
        )
        balpha = runtime.unbroadcast(
            np.expand_dims(bz, -1)
            * (
                np.log(runtime.dirichlet_components(x, alpha))
                + scipy.special.digamma(np.sum(alpha))
                - scipy.special.digamma(alpha)
            ),
            alpha,
        )

    def tangent(dz, z, x, alpha):
        dz = np.sum(
            (alpha - 1)
            * runtime.dirichlet_components(dx, alpha)
            / runtime.dirichlet_components(x, alpha),
            axis=-1,
        )
        dz = np.sum(
            dalpha
            * (
                np.log(runtime.dirichlet_components(x, alpha))
                + scipy.special.digamma(np.sum(alpha))
                - scipy.special.digamma(alpha)
            ),
            axis=-1,
        )


@_method(
    scipy.stats.dirichlet.pdf,
    samples=[
        Sample(f"scipy.stats.dirichlet.pdf({_SIMPLEX}, alpha)", u=real(3, 4), alpha=positive(3))
    ],
)
class dirichlet_pdf:
    def adjoint(bz, z, x, alpha):
        bx = np.transpose(
            np.expand_dims(bz * z, -1) * (alpha - 1) / runtime.dirichlet_components(x, alpha)
        )
        balpha = runtime.unbroadcast(
            np.expand_dims(bz * z, -1)
            * (
                np.log(runtime.dirichlet_components(x, alpha))
                + scipy.special.digamma(np.sum(alpha))
                - scipy.special.digamma(alpha)
            ),
            alpha,
        )

    def tangent(dz, z, x, alpha):
        dz = z * np.sum(
            (alpha - 1)
            * runtime.dirichlet_components(dx, alpha)
            / runtime.dirichlet_components(x, alpha),
            axis=-1,
        )
        dz = z * np.sum(
            dalpha
            * (
                np.log(runtime.dirichlet_components(x, alpha))
                + scipy.special.digamma(np.sum(alpha))
                - scipy.special.digamma(alpha)
            ),
            axis=-1,
        )


@primitive(
    runtime.dirichlet_components,
    constant=("alpha",),
    shape=EVALUATE,
    samples=[
        Sample(
            "runtime.dirichlet_components(x, alpha)",
            x=real(3, 4),
            alpha=real(3),
            constant=("alpha",),
        )
    ],
)
class dirichlet_components:
    def adjoint(bz, z, x, alpha):
        bx = np.transpose(bz)

    def tangent(dz, z, x, alpha):
        dz = runtime.dirichlet_components(dx, alpha)


# --- the multivariate normal: -(d log 2 pi + log det C + r C^-1 r) / 2, r = x - mean ----------
# with S = r C^-1 (a row per point): d/dx = -S, d/dmean = S, d/dC = (S^T S - C^-1) / 2
# (summed over the points); runtime.precision is C^-1


def _covariances(call, **more):
    """Samples with cov a symmetric positive definite matrix built from free values (finite
    differences keep it symmetric), a vector of variances, and one variance."""
    return [
        Sample(
            f"{call}(x, mean, a @ a.T + 3 * np.eye(3))",
            x=real(4, 3),
            mean=real(3),
            a=real(3, 3),
            **more,
        ),
        Sample(f"{call}(x, mean, v)", x=real(2, 3), mean=real(3), v=positive(3), **more),
        Sample(f"{call}(x, mean, c)", x=real(3), mean=real(3), c=number(), **more),
    ]


@_method(
    scipy.stats.multivariate_normal.logpdf,
    samples=_covariances("scipy.stats.multivariate_normal.logpdf")
    + [
        Sample(
            "scipy.stats.multivariate_normal.logpdf(x, cov=c)",
            x=real(3, 2),
            c=spd(2),
            constant=("c",),
        )
    ],
)
class multivariate_normal_logpdf:
    def adjoint(bz, z, x, mean=0.0, cov=1.0, allow_singular=False):
        bx = -np.expand_dims(bz, -1) * ((x - mean) @ runtime.precision(cov, x))
        bmean = runtime.unbroadcast(
            np.expand_dims(bz, -1) * ((x - mean) @ runtime.precision(cov, x)), mean
        )
        bcov = runtime.covariance_part(
            (
                runtime.outer_sum(
                    np.expand_dims(bz, -1) * ((x - mean) @ runtime.precision(cov, x)),
                    (x - mean) @ runtime.precision(cov, x),
                )
                - np.sum(bz) * runtime.precision(cov, x)
            )
            / 2,
            cov,
        )

    def tangent(dz, z, x, mean=0.0, cov=1.0, allow_singular=False):
        dz = -np.sum(dx * ((x - mean) @ runtime.precision(cov, x)), axis=-1)
        dz = np.sum(dmean * ((x - mean) @ runtime.precision(cov, x)), axis=-1)
        dz = (
            np.sum(
                (x - mean)
                @ runtime.precision(cov, x)
                @ runtime.covariance_matrix(dcov, x)
                * ((x - mean) @ runtime.precision(cov, x)),
                axis=-1,
            )
            - np.sum(runtime.precision(cov, x) * runtime.covariance_matrix(dcov, x))
        ) / 2


@_method(
    scipy.stats.multivariate_normal.pdf,
    samples=_covariances("scipy.stats.multivariate_normal.pdf")[:1],
)
class multivariate_normal_pdf:
    def adjoint(bz, z, x, mean=0.0, cov=1.0, allow_singular=False):
        bx = -np.expand_dims(bz * z, -1) * ((x - mean) @ runtime.precision(cov, x))
        bmean = runtime.unbroadcast(
            np.expand_dims(bz * z, -1) * ((x - mean) @ runtime.precision(cov, x)), mean
        )
        bcov = runtime.covariance_part(
            (
                runtime.outer_sum(
                    np.expand_dims(bz * z, -1) * ((x - mean) @ runtime.precision(cov, x)),
                    (x - mean) @ runtime.precision(cov, x),
                )
                - np.sum(bz * z) * runtime.precision(cov, x)
            )
            / 2,
            cov,
        )

    def tangent(dz, z, x, mean=0.0, cov=1.0, allow_singular=False):
        dz = -z * np.sum(dx * ((x - mean) @ runtime.precision(cov, x)), axis=-1)
        dz = z * np.sum(dmean * ((x - mean) @ runtime.precision(cov, x)), axis=-1)
        dz = (
            z
            * (
                np.sum(
                    (x - mean)
                    @ runtime.precision(cov, x)
                    @ runtime.covariance_matrix(dcov, x)
                    * ((x - mean) @ runtime.precision(cov, x)),
                    axis=-1,
                )
                - np.sum(runtime.precision(cov, x) * runtime.covariance_matrix(dcov, x))
            )
            / 2
        )


@primitive(
    runtime.precision,
    constant=("x",),
    shape=EVALUATE,
    shape_args={1},
    samples=[
        Sample(
            "runtime.precision(a @ a.T + 3 * np.eye(3), x)",
            a=real(3, 3),
            x=real(3),
            constant=("x",),
        ),
        Sample("runtime.precision(v, x)", v=positive(3), x=real(2, 3), constant=("x",)),
    ],
)
class precision:  # of a symmetric covariance
    def adjoint(bz, z, cov, x):
        bcov = runtime.covariance_part(-z @ bz @ z, cov)

    def tangent(dz, z, cov, x):
        dz = -z @ runtime.covariance_matrix(dcov, x) @ z


@primitive(
    runtime.outer_sum,
    shape=EVALUATE,
    samples=[
        Sample("runtime.outer_sum(a, b)", a=real(4, 3), b=real(4, 2)),
        Sample("runtime.outer_sum(a, b)", a=real(3), b=real(3)),
        Sample("runtime.outer_sum(a, a)", a=real(2, 2, 3)),
    ],
)
class outer_sum:
    def adjoint(bz, z, a, b):
        ba = b @ bz.T
        bb = a @ bz

    def tangent(dz, z, a, b):
        dz = runtime.outer_sum(da, b)
        dz = runtime.outer_sum(a, db)


@primitive(
    runtime.covariance_matrix,
    constant=("x",),
    shape=EVALUATE,
    shape_args={1},
    samples=[
        Sample("runtime.covariance_matrix(c, x)", c=real(3, 3), x=real(3), constant=("x",)),
        Sample("runtime.covariance_matrix(v, x)", v=real(3), x=real(2, 3), constant=("x",)),
        Sample("runtime.covariance_matrix(c, x)", c=number(), x=real(3), constant=("x",)),
    ],
)
class covariance_matrix:
    def adjoint(bz, z, cov, x):
        bcov = runtime.covariance_part(bz, cov)

    def tangent(dz, z, cov, x):
        dz = runtime.covariance_matrix(dcov, x)


@primitive(
    runtime.covariance_part,
    constant=("cov",),
    shape=EVALUATE,
    shape_args={1},
    samples=[
        Sample("runtime.covariance_part(g, cov)", g=real(3, 3), cov=real(3), constant=("cov",)),
        Sample("runtime.covariance_part(g, cov)", g=real(3, 3), cov=number(), constant=("cov",)),
    ],
)
class covariance_part:
    def adjoint(bz, z, g, cov):
        bg = runtime.covariance_matrix(bz, g)

    def tangent(dz, z, g, cov):
        dz = runtime.covariance_part(dg, cov)
