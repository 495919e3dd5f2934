"""An implicit layer solved by fixed-point iteration in a while loop until it converges (a
deep equilibrium model, Bai et al. 2019, differentiated by unrolling the solver), then a
linear readout; loss: squared error."""

import numpy as np


def fixed_point(f, z0, tol=1e-10, max_iter=200):
    z, z_prev = f(z0), z0
    iterations = 1
    while np.max(np.abs(z - z_prev)) > tol and iterations < max_iter:
        z_prev, z = z, f(z)
        iterations += 1
    return z


def loss(params, x, y):
    W, U, b, readout = params["W"], params["U"], params["b"], params["readout"]
    injected = x @ U + b
    z_star = fixed_point(lambda z: np.tanh(z @ W + injected), np.zeros((x.shape[0], W.shape[0])))
    return 0.5 * np.mean((z_star @ readout - y) ** 2)


def example(rng, dim=3, hidden=4):
    W = rng.normal(size=(hidden, hidden))
    params = {
        "W": 0.5 * W / np.linalg.norm(W, 2),  # a contraction
        "U": rng.normal(size=(dim, hidden)),
        "b": 0.1 * rng.normal(size=hidden),
        "readout": rng.normal(size=hidden),
    }
    x = rng.normal(size=(5, dim))
    return params, x, rng.normal(size=5)
