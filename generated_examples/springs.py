"""A damped spring integrated until t = 1 in a while loop: `-k`, the same in every step, is
computed once before the loop, so neither sweep keeps it per step, and k's adjoint is summed
in the loop and taken once after it."""

import numpy as np

WRT = (0,)


def springs(k, x0):
    x, v, t, dt = x0, np.zeros_like(x0), 0.0, 0.05
    while t < 1.0:
        a = -k * x - 0.1 * v
        v = v + dt * a
        x = x + dt * v
        t += dt
    return np.sum(x**2)


def example(rng):
    return rng.random(3) + 0.5, rng.normal(size=3)
