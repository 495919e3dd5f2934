"""Makers of sample arguments for the tests generated from the registry: each is called with
a numpy Generator and returns one argument (arrays in float64; the tests make float32 ones
too). Kept small and plain, so a record's samples read as the call they test."""

import collections
import types

import numpy as np


def real(*shape):
    """Standard normal values."""
    return lambda rng: rng.normal(size=shape)


def positive(*shape, low=0.5, high=2.0):
    """Values in [low, high]: for logs, roots, divisors."""
    return lambda rng: rng.uniform(low, high, size=shape)


def unit(*shape):
    """Values in (-0.9, 0.9): for arcsin, arctanh."""
    return lambda rng: rng.uniform(-0.9, 0.9, size=shape)


def number(low=0.5, high=2.0):
    """A Python float."""
    return lambda rng: float(rng.uniform(low, high))


def ints(*shape, high=3):
    """Integers in [0, high): indices."""
    return lambda rng: rng.integers(0, high, size=shape)


def constant(value):
    """The value itself (a shape, an index array, a list of floats)."""
    return lambda rng: value


def well_conditioned(n, batch=()):
    """Square matrices with a dominant diagonal (invertible, far from singular)."""
    return lambda rng: rng.normal(size=batch + (n, n)) + 3 * np.eye(n)


def spd(n, batch=()):
    """Symmetric positive definite matrices."""

    def make(rng):
        a = rng.normal(size=batch + (n, n))
        return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)

    return make


def distinct(*shape):
    """Values at least 0.1 apart (no ties for max, sort, median)."""

    def make(rng):
        count = int(np.prod(shape))
        return (rng.permutation(count) * 0.3 + rng.uniform(0, 0.1, count)).reshape(shape)

    return make


def named_tuple(**makers):
    """A namedtuple with the made values as fields."""
    kind = collections.namedtuple("Fields", list(makers))
    return lambda rng: kind(**{k: make(rng) for k, make in makers.items()})


def record(**makers):
    """An object with the made values as attributes (a SimpleNamespace)."""
    return lambda rng: types.SimpleNamespace(**{k: make(rng) for k, make in makers.items()})


def with_nans(*shape):
    """Values at least 0.1 apart (no ties) with a NaN at every fifth place, so that no line
    along an axis of a small array is all NaN: for the NaN-ignoring reductions."""

    def make(rng):
        values = distinct(*shape)(rng).ravel()
        values[2::5] = np.nan
        return values.reshape(shape)

    return make
