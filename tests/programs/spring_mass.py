"""A chain of masses joined by damped springs, integrated by semi-implicit Euler in a while
loop over time with the state as a tuple; loss: how far the last mass ends from a target,
plus the energy spent, differentiated with respect to the stiffnesses and the rest lengths
(system identification by shooting)."""

import numpy as np


class Chain:
    def __init__(self, masses, damping):
        self.masses = masses
        self.damping = damping

    def forces(self, x, v, stiffness, rest):
        stretch = np.diff(x) - rest
        tension = stiffness * stretch
        f = np.zeros_like(x)
        f[:-1] += tension
        f[1:] -= tension
        f[0] = 0.0  # the first mass is pinned
        return f - self.damping * v


def simulate(chain, state, params, dt, duration):
    t = 0.0
    work = 0.0
    while t < duration:
        x, v = state
        a = chain.forces(x, v, params["stiffness"], params["rest"]) / chain.masses
        v = v + dt * a
        x = x + dt * v
        work += dt * np.sum(chain.damping * v**2)
        state = (x, v)
        t += dt
    return state, work


def loss(params, chain, x0, target, dt=0.05, duration=0.5):
    (x, v), work = simulate(chain, (x0, np.zeros_like(x0)), params, dt, duration)
    return (x[-1] - target) ** 2 + 0.1 * work


def example(rng, n=4):
    chain = Chain(masses=1.0 + 0.1 * rng.random(n), damping=0.2)
    params = {"stiffness": 2.0 + rng.random(n - 1), "rest": 1.0 + 0.1 * rng.normal(size=n - 1)}
    x0 = np.arange(n, dtype=float) * 1.1
    return params, chain, x0, 3.5
