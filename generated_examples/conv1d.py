"""A loop-based 1-D convolution writing into a preallocated array."""

import numpy as np

WRT = (0, 1)


def conv1d(x, w):
    k = w.shape[0]
    n = x.shape[0] - k + 1
    y = np.zeros(n)
    for i in range(n):
        y[i] = np.sum(x[i : i + k] * w)
    return np.sum(y**2)


def example(rng):
    return rng.normal(size=10), rng.normal(size=3)
