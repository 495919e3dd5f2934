"""A neural ODE fitted to a trajectory: an MLP vector field integrated by fixed-step RK4."""

import numpy as np


def init_params(rng, dims, hidden, scale=0.3):
    return {
        "W1": scale * rng.normal(size=(dims + 1, hidden)),
        "b1": np.zeros(hidden),
        "W2": scale * rng.normal(size=(hidden, dims)),
        "b2": np.zeros(dims),
    }


def dynamics(params, y, t):
    inputs = np.concatenate([y, np.array([t])])
    hidden = np.tanh(inputs @ params["W1"] + params["b1"])
    return hidden @ params["W2"] + params["b2"]


def rk4_step(func, y, t, dt):
    k1 = func(y, t)
    k2 = func(y + dt * k1 / 2, t + dt / 2)
    k3 = func(y + dt * k2 / 2, t + dt / 2)
    k4 = func(y + dt * k3, t + dt)
    return y + dt * (k1 + 2 * k2 + 2 * k3 + k4) / 6


def odeint(func, y0, ts, steps_per_interval=2):
    ys = [y0]
    y = y0
    for t0, t1 in zip(ts[:-1], ts[1:]):
        dt = (t1 - t0) / steps_per_interval
        t = t0
        for _ in range(steps_per_interval):
            y = rk4_step(func, y, t, dt)
            t = t + dt
        ys.append(y)
    return np.stack(ys)


def loss(params, y0, ts, observed):
    def func(y, t):
        return dynamics(params, y, t)

    predicted = odeint(func, y0, ts)
    return np.mean((predicted - observed) ** 2)


def example(rng):
    ts = np.linspace(0.0, 1.0, 5)
    observed = np.stack([np.cos(2 * ts), np.sin(2 * ts)], axis=1)
    return init_params(rng, 2, 6), observed[0], ts, observed
