"""The probability mass functions of SciPy's Bernoulli, binomial, geometric and negative
binomial distributions (scipy.stats: logpmf and pmf), declared once the program imports
scipy.stats (optional.py): differentiable in p (and in nbinom's n, which SciPy takes real);
k is a count, and binom's n a number of trials: constants. A pmf's derivatives are its
logpmf's times the mass (z). Written with np.subtract(k, loc), the count from loc (0 left
out), an array also of a list of counts (`bernoulli.logpmf([0, 1, 1], p)`)."""

import numpy as np
import scipy.special
import scipy.stats

from .. import runtime
from .registry import EVALUATE, Sample, primitive
from .samples import constant, positive

# (a count per column, each row's p; and one p for every count)
_BERNOULLI = dict(k=constant([[0, 1, 1, 0]] * 3), p=positive(3, 1, low=0.2, high=0.8))
_COUNTS = dict(k=constant([[0, 1, 3, 5]] * 3), p=positive(3, 1, low=0.2, high=0.8))
_POSITIVE_COUNTS = dict(k=constant([[1, 2, 3, 5]] * 3), p=positive(3, 1, low=0.2, high=0.8))


def _method(function, samples, **facts):
    return primitive(function, shape=EVALUATE, fresh=True, samples=samples, **facts)


# --- Bernoulli: k log p + (1 - k) log(1 - p), of k - loc --------------------------------------


@_method(
    scipy.stats.bernoulli.logpmf,
    samples=[
        Sample("scipy.stats.bernoulli.logpmf(k, p)", **_BERNOULLI),
        Sample(
            "scipy.stats.bernoulli.logpmf(k, p, 1)",
            k=constant([1, 2]),
            p=positive(2, low=0.2, high=0.8),
        ),
    ],
)
class bernoulli_logpmf:
    def adjoint(bz, z, k, p, loc=0):
        bp = runtime.unbroadcast(bz * (np.subtract(k, loc) - p) / (p * (1 - p)), p)

    def tangent(dz, z, k, p, loc=0):
        dz = dp * (np.subtract(k, loc) - p) / (p * (1 - p))


@_method(
    scipy.stats.bernoulli.pmf, samples=[Sample("scipy.stats.bernoulli.pmf(k, p)", **_BERNOULLI)]
)
class bernoulli_pmf:
    def adjoint(bz, z, k, p, loc=0):
        bp = runtime.unbroadcast(bz * z * (np.subtract(k, loc) - p) / (p * (1 - p)), p)

    def tangent(dz, z, k, p, loc=0):
        dz = dp * z * (np.subtract(k, loc) - p) / (p * (1 - p))


# --- binomial: k log p + (n - k) log(1 - p) + log C(n, k), of k - loc -------------------------


@_method(
    scipy.stats.binom.logpmf,
    constant=("n",),
    samples=[
        Sample("scipy.stats.binom.logpmf(k, 6, p)", **_COUNTS),
        Sample("scipy.stats.binom.logpmf(k, n, p, loc=1)", n=constant(7), **_POSITIVE_COUNTS),
    ],
)
class binom_logpmf:
    def adjoint(bz, z, k, n, p, loc=0):
        bp = runtime.unbroadcast(bz * (np.subtract(k, loc) - n * p) / (p * (1 - p)), p)

    def tangent(dz, z, k, n, p, loc=0):
        dz = dp * (np.subtract(k, loc) - n * p) / (p * (1 - p))


@_method(
    scipy.stats.binom.pmf,
    constant=("n",),
    samples=[Sample("scipy.stats.binom.pmf(k, 5, p)", **_COUNTS)],
)
class binom_pmf:
    def adjoint(bz, z, k, n, p, loc=0):
        bp = runtime.unbroadcast(bz * z * (np.subtract(k, loc) - n * p) / (p * (1 - p)), p)

    def tangent(dz, z, k, n, p, loc=0):
        dz = dp * z * (np.subtract(k, loc) - n * p) / (p * (1 - p))


# --- geometric: log p + (k - 1) log(1 - p), of k - loc >= 1 -----------------------------------


@_method(
    scipy.stats.geom.logpmf,
    samples=[Sample("scipy.stats.geom.logpmf(k, p)", **_POSITIVE_COUNTS)],
)
class geom_logpmf:
    def adjoint(bz, z, k, p, loc=0):
        bp = runtime.unbroadcast(bz * (1 - np.subtract(k, loc) * p) / (p * (1 - p)), p)

    def tangent(dz, z, k, p, loc=0):
        dz = dp * (1 - np.subtract(k, loc) * p) / (p * (1 - p))


@_method(scipy.stats.geom.pmf, samples=[Sample("scipy.stats.geom.pmf(k, p)", **_POSITIVE_COUNTS)])
class geom_pmf:
    def adjoint(bz, z, k, p, loc=0):
        bp = runtime.unbroadcast(bz * z * (1 - np.subtract(k, loc) * p) / (p * (1 - p)), p)

    def tangent(dz, z, k, p, loc=0):
        dz = dp * z * (1 - np.subtract(k, loc) * p) / (p * (1 - p))


# --- negative binomial: log C(k + n - 1, k) + n log p + k log(1 - p), k counted from loc ------


@_method(
    scipy.stats.nbinom.logpmf,
    samples=[
        Sample("scipy.stats.nbinom.logpmf(k, n, p)", n=positive(4, low=1.0, high=4.0), **_COUNTS)
    ],
)
class nbinom_logpmf:
    def adjoint(bz, z, k, n, p, loc=0):
        bn = runtime.unbroadcast(
            bz
            * (
                scipy.special.digamma(np.subtract(k, loc) + n)
                - scipy.special.digamma(n)
                + np.log(p)
            ),
            n,
        )
        bp = runtime.unbroadcast(bz * (n - (n + np.subtract(k, loc)) * p) / (p * (1 - p)), p)

    def tangent(dz, z, k, n, p, loc=0):
        dz = dn * (
            scipy.special.digamma(np.subtract(k, loc) + n) - scipy.special.digamma(n) + np.log(p)
        )
        dz = dp * (n - (n + np.subtract(k, loc)) * p) / (p * (1 - p))


@_method(
    scipy.stats.nbinom.pmf,
    samples=[
        Sample("scipy.stats.nbinom.pmf(k, n, p)", n=positive(4, low=1.0, high=4.0), **_COUNTS)
    ],
)
class nbinom_pmf:
    def adjoint(bz, z, k, n, p, loc=0):
        bn = runtime.unbroadcast(
            bz
            * z
            * (
                scipy.special.digamma(np.subtract(k, loc) + n)
                - scipy.special.digamma(n)
                + np.log(p)
            ),
            n,
        )
        bp = runtime.unbroadcast(bz * z * (n - (n + np.subtract(k, loc)) * p) / (p * (1 - p)), p)

    def tangent(dz, z, k, n, p, loc=0):
        dz = (
            dn
            * z
            * (
                scipy.special.digamma(np.subtract(k, loc) + n)
                - scipy.special.digamma(n)
                + np.log(p)
            )
        )
        dz = dp * z * (n - (n + np.subtract(k, loc)) * p) / (p * (1 - p))
