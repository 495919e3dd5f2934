"""Derivatives of elementwise functions numpy lacks or whose closed form loses its digits
near a point (and where np.clip gives its argument or a bound): emitted code calls them, and
their templates (srcdiff/primitives) call them again one order up, so that gradient code
differentiates to any order."""

import math

import numpy as np

__all__ = [
    "bessel_i",
    "clipped_high",
    "clipped_low",
    "logaddexp_share",
    "math_polygamma",
    "sinc_derivative",
    "within",
]

_TERMS = 12  # of the series, enough for float64 where it is used (|pi x| < 1)


def sinc_derivative(n, x):
    """The n-th derivative of np.sinc at x: pi**n f_n(pi x) for f(t) = sin t / t. Away from 0
    by f_n = (sin(t + n pi / 2) - n f_(n-1)) / t (t f = sin t, differentiated n times), whose
    quotient near 0 is of two nearly equal numbers; for |t| < 1 by f's Taylor series instead,
    f_n(t) = sum over k >= n / 2 of (-1)**k t**(2k - n) / ((2k + 1) (2k - n)!)."""
    t = np.pi * np.asarray(x)
    near = np.abs(t) < 1
    far = _by_recurrence(n, np.where(near, 1, t))
    if np.any(near):
        far = np.where(near, _by_series(n, np.where(near, t, 0)), far)
    return (np.pi**n * far)[()]


def _by_recurrence(n, t):
    waves = (np.sin(t), np.cos(t), -np.sin(t), -np.cos(t))  # sin(t + j pi / 2), by j % 4
    f = waves[0] / t
    for j in range(1, n + 1):
        f = (waves[j % 4] - j * f) / t
    return f


def _by_series(n, t):
    first = (n + 1) // 2
    return sum(
        (-1) ** k * t ** (2 * k - n) / ((2 * k + 1) * math.factorial(2 * k - n))
        for k in range(first, first + _TERMS)
    )


def bessel_i(n, x):
    """The modified Bessel function I_n of integer order n at x (np.i0's derivatives: numpy
    has no i1): the mean of exp(x cos t) cos(n t) over [0, pi], by the midpoint rule. The
    integrand is smooth and periodic, so the rule's error is the aliased I_(2m - n)(x) of its
    m nodes, below float64's digits with m = 16 + n + 6 sqrt(max |x|) up to where np.i0
    overflows."""
    x = np.asarray(x)
    nodes = 16 + abs(n) + int(6 * math.sqrt(float(np.max(np.abs(x), initial=0.0))))
    t = (np.pi * (np.arange(nodes) + 0.5) / nodes).astype(np.result_type(x, np.float32))
    return np.mean(np.exp(x[..., None] * np.cos(t)) * np.cos(n * t), axis=-1)[()]


def within(a, low, high):
    """Where np.clip(a, low, high) lets a through (either bound may be None)."""
    inside = np.ones(np.shape(a), dtype=bool) if low is None else np.greater_equal(a, low)
    return inside if high is None else inside & np.less_equal(a, high)


def clipped_low(a, low, high):
    """Where np.clip(a, low, high) gives `low`: a below it, and low not above high (numpy
    applies high last, so a low above high gives high)."""
    below = np.less(a, low)
    return below if high is None else below & np.less_equal(low, high)


def clipped_high(a, low, high):
    """Where np.clip(a, low, high) gives `high`: a above it, or low above it."""
    return np.greater(a if low is None else np.maximum(a, low), high)


def logaddexp_share(x, total, other):
    """x's part of the derivative of total = np.logaddexp(x, other), exp(x - total): half
    where x and other tie, as at a finite tie, also where both are -inf (log-probabilities of
    zero: a CTC or soft-DTW table's cells not reached), whose exp(-inf - -inf) is NaN; all of
    it where x alone is +inf."""
    with np.errstate(invalid="ignore"):  # (-inf - -inf and inf - inf: replaced below)
        share = np.exp(x - total)
    return np.where(np.equal(x, other), 0.5, np.where(np.isposinf(x), 1.0, share)).astype(
        share.dtype, copy=False
    )[()]


# the Bernoulli numbers B_2k, k = 1, 2, ...: of the asymptotic series of digamma's derivatives
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)
_SERIES_FROM = 20.0  # where the series' terms fall below float64's digits (plus n, below)


def math_polygamma(n, x):
    """The n-th derivative of digamma at a number x (math.lgamma's derivative is digamma,
    math.gamma's is gamma times it), in plain Python, so that differentiating math's gamma
    functions needs no SciPy. psi_n(x) = psi_n(x + 1) - (-1)**n n! / x**(n + 1) carries x up
    (from either sign) to where the asymptotic series in 1/x is exact to float64."""
    x, n = float(x), int(n)
    sign, total = (-1.0) ** n, 0.0
    while x < _SERIES_FROM + n:
        total -= sign * math.factorial(n) / x ** (n + 1)
        x += 1.0
    if n == 0:
        series = math.log(x) - 1 / (2 * x)
        series -= sum(b / (2 * k + 2) / x ** (2 * k + 2) for k, b in enumerate(_BERNOULLI))
    else:  # (-1)**(n+1) ((n-1)!/x**n + n!/(2 x**(n+1)) + the sum of B_2k (2k+n-1)!/(2k)! x**(2k+n))
        series = math.factorial(n - 1) / x**n + math.factorial(n) / (2 * x ** (n + 1))
        series += sum(
            b * math.factorial(2 * k + n + 1) / math.factorial(2 * k + 2) / x ** (2 * k + 2 + n)
            for k, b in enumerate(_BERNOULLI)
        )
        series *= -sign
    return total + series
