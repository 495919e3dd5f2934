"""What autograd twins (tests/oracle.py) read for the functions autograd lacks: math's as
autograd.scipy.special's and autograd.numpy's ufuncs, the NaN-ignoring quantiles written
with a sort (whose vjp autograd has), and np.average with returned=True written out. A module whose functions use them names them in its
AUTOGRAD_NAMES (a dict: name -> what the twins read instead)."""

import types

import autograd.numpy as anp
import autograd.scipy.special as special
import numpy as np


def _value(x):
    return getattr(x, "_value", x)


math = types.SimpleNamespace(
    erf=special.erf,
    erfc=special.erfc,
    gamma=special.gamma,
    lgamma=special.gammaln,
    sin=anp.sin,
    exp=anp.exp,
    asin=anp.arcsin,
    acos=anp.arccos,
    atanh=anp.arctanh,
    acosh=anp.arccosh,
    cbrt=lambda x: x ** (1 / 3),  # (autograd.numpy.cbrt has no vjp; x is positive here)
    exp2=lambda x: 2.0**x,
    copysign=lambda x, y: anp.abs(x) * np.sign(y),
    ldexp=lambda x, i: x * 2.0**i,
    fmod=lambda x, y: x - y * np.trunc(_value(x) / y),  # (y constant here)
    remainder=lambda x, y: x - y * np.round(_value(x) / _value(y)),
    dist=lambda p, q: anp.sqrt(anp.sum((anp.array(p) - anp.array(q)) ** 2)),
)


def _sorted_quantile(values, q, method):
    """The quantile q of the 1-d values (no NaN), by numpy's method, read off a sort."""
    ranked = anp.sort(values)
    position = q * (len(ranked) - 1)
    low, high = int(np.floor(position)), int(np.ceil(position))
    if method == "lower":
        return ranked[low]
    if method == "higher":
        return ranked[high]
    if method == "nearest":
        return ranked[int(np.around(position))]
    if method == "midpoint":
        return (ranked[low] + ranked[high]) / 2
    return ranked[low] * (1 - (position - low)) + ranked[high] * (position - low)


def nanquantile(a, q, axis=None, method="linear", keepdims=False):
    """np.nanquantile, line by line: each line's numbers sorted and interpolated."""
    shape = np.shape(_value(a))
    axes = range(len(shape)) if axis is None else np.atleast_1d(axis) % len(shape)
    axes = sorted(int(k) for k in axes)
    kept = [k for k in range(len(shape)) if k not in axes]
    lines = anp.reshape(anp.transpose(a, kept + axes), (-1, int(np.prod([shape[k] for k in axes]))))
    numbers = ~np.isnan(_value(lines))
    out_shape = (
        tuple(1 if k in axes else n for k, n in enumerate(shape))
        if keepdims
        else tuple(shape[k] for k in kept)
    )
    quantiles = [
        anp.reshape(
            anp.array(
                [
                    _sorted_quantile(lines[i][np.flatnonzero(numbers[i])], level, method)
                    for i in range(len(numbers))
                ]
            ),
            out_shape,
        )
        for level in np.ravel(q)
    ]
    return anp.reshape(anp.array(quantiles), np.shape(q) + out_shape)


numpy = types.SimpleNamespace(**{k: getattr(anp, k) for k in dir(anp) if not k.startswith("__")})
numpy.nanquantile = nanquantile
numpy.nanmedian = lambda a, axis=None, keepdims=False: nanquantile(a, 0.5, axis, "linear", keepdims)
numpy.nanpercentile = lambda a, q, axis=None, method="linear", keepdims=False: nanquantile(
    a, np.divide(q, 100), axis, method, keepdims
)


def average(a, axis=None, weights=None, returned=False):
    """np.average as sum(a w) / sum(w) (weights along `axis`, an int, or of a's shape)."""
    if weights is None:
        weights = anp.ones(np.shape(_value(a)))
    elif axis is not None and np.ndim(_value(weights)) == 1:
        weights = anp.reshape(weights, [-1 if k == axis else 1 for k in range(np.ndim(_value(a)))])
    laid = weights * anp.ones(np.shape(_value(a)))
    total = anp.sum(laid, axis=axis)
    mean = anp.sum(a * laid, axis=axis) / total
    return (mean, total * anp.ones(np.shape(_value(mean)))) if returned else mean


numpy.average = average
