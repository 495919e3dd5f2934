"""A branchy piecewise function: the adjoint sweep replays the branch that was taken."""

import numpy as np

WRT = (0,)


def piecewise(x, y):
    if np.sum(x) > 0:
        z = x * y
    elif np.sum(x) > -1:
        z = np.sin(x) * 3
    else:
        z = x**2
    return np.sum(z * y)


def example(rng):
    return rng.normal(size=4) + 0.5, rng.normal(size=4)
