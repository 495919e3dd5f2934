"""Entropy-regularised optimal transport between two point clouds by Sinkhorn's iterations
(Cuturi 2013), in the log domain; loss: the transport cost, differentiated with respect to
the source points (as for a Wasserstein flow)."""

import numpy as np


def logsumexp(a, axis):
    a_max = np.max(a, axis=axis, keepdims=True)
    return np.log(np.sum(np.exp(a - a_max), axis=axis)) + np.squeeze(a_max, axis=axis)


def sinkhorn_plan(cost, a, b, epsilon=0.1, iterations=30):
    log_a, log_b = np.log(a), np.log(b)
    f, g = np.zeros_like(a), np.zeros_like(b)
    for _ in range(iterations):
        f = epsilon * log_a - epsilon * logsumexp((g[None, :] - cost) / epsilon, axis=1)
        g = epsilon * log_b - epsilon * logsumexp((f[:, None] - cost) / epsilon, axis=0)
    return np.exp((f[:, None] + g[None, :] - cost) / epsilon)


def loss(x, y, a, b):
    cost = np.sum((x[:, None, :] - y[None, :, :]) ** 2, axis=-1)
    plan = sinkhorn_plan(cost, a, b)
    return np.sum(plan * cost)


def example(rng):
    x = rng.normal(size=(6, 2))
    y = rng.normal(size=(5, 2)) + np.array([1.0, 0.5])
    return x, y, np.full(6, 1 / 6), np.full(5, 1 / 5)
