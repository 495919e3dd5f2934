"""Inverse problem for the 1-d heat equation: explicit finite differences, the interior
updated in place by slicing each step; loss: misfit of the final temperature to
observations, differentiated with respect to the diffusivity field and the initial state."""

import numpy as np


def step(u, kappa, dt, dx):
    flux = kappa[1:] * (u[1:] - u[:-1]) / dx  # at the cell faces
    u_new = u.copy()
    u_new[1:-1] += dt * (flux[1:] - flux[:-1]) / dx
    u_new[0] = u_new[-1] = 0.0  # Dirichlet boundaries
    return u_new


def simulate(u0, kappa, dt, dx, steps):
    u = u0
    history = [u]
    for t in range(steps):
        u = step(u, kappa, dt, dx)
        if t % 5 == 4:
            history.append(u)
    return u, history


def loss(params, observed, dt=0.001, dx=0.1, steps=20):
    kappa = np.exp(params["log_kappa"])
    u, history = simulate(params["u0"], kappa, dt, dx, steps)
    smoothness = sum(np.sum(np.diff(h) ** 2) for h in history)
    return np.sum((u - observed) ** 2) + 1e-3 * smoothness


def example(rng, n=12):
    x = np.linspace(0, 1, n)
    params = {"log_kappa": np.log(1 + 0.2 * rng.random(n)), "u0": np.sin(np.pi * x)}
    observed = 0.8 * np.sin(np.pi * x) + 0.01 * rng.normal(size=n)
    return params, observed
