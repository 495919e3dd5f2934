"""A normalizing flow: planar flows (Rezende & Mohamed 2015) followed by a RealNVP affine
coupling layer (Dinh et al. 2017); loss: the negative log-likelihood of data under a standard
normal base, through the change of variables' log-determinants."""

import numpy as np


def planar_flow(z, u, w, b):
    # keep w . u >= -1 so the map stays invertible
    wu = w @ u
    u_hat = u + (np.log1p(np.exp(wu)) - 1 - wu) * w / np.sum(w**2)
    a = np.tanh(z @ w + b)
    psi = (1 - a**2)[:, None] * w
    log_det = np.log(np.abs(1 + psi @ u_hat))
    return z + a[:, None] * u_hat, log_det


def coupling_layer(z, params, mask):
    W1, b1, W_scale, W_shift = params
    z_fixed = z * mask
    h = np.tanh(z_fixed @ W1 + b1)
    log_scale = np.tanh(h @ W_scale) * (1 - mask)
    shift = (h @ W_shift) * (1 - mask)
    return z_fixed + (1 - mask) * (z * np.exp(log_scale) + shift), np.sum(log_scale, axis=1)


def loss(params, x):
    planar, coupling = params
    z, total_log_det = x, np.zeros(x.shape[0])
    for u, w, b in planar:
        z, log_det = planar_flow(z, u, w, b)
        total_log_det = total_log_det + log_det
    mask = np.arange(x.shape[1]) % 2
    for layer in coupling:
        z, log_det = coupling_layer(z, layer, mask)
        total_log_det += log_det
        mask = 1 - mask
    log_base = -0.5 * np.sum(z**2, axis=1) - 0.5 * z.shape[1] * np.log(2 * np.pi)
    return -np.mean(log_base + total_log_det)


def example(rng, dims=2, hidden=5):
    planar = [
        (0.5 * rng.normal(size=dims), 0.5 * rng.normal(size=dims), 0.1 * rng.normal())
        for _ in range(2)
    ]
    coupling = [
        (
            0.5 * rng.normal(size=(dims, hidden)),
            0.1 * rng.normal(size=hidden),
            0.3 * rng.normal(size=(hidden, dims)),
            0.3 * rng.normal(size=(hidden, dims)),
        )
        for _ in range(2)
    ]
    x = rng.normal(size=(10, dims)) @ np.array([[1.0, 0.5], [0.0, 0.7]])
    return (planar, coupling), x
