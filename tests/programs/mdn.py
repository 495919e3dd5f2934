"""A mixture density network (Bishop 1994): a one-hidden-layer net maps x to the weights,
means and log scales of a 1-d Gaussian mixture over y; loss: the mean negative log-likelihood."""

import numpy as np


def init_params(rng, hidden=10, components=3):
    return {
        "hidden": (rng.normal(size=(1, hidden)), rng.normal(size=hidden)),
        "out": (0.3 * rng.normal(size=(hidden, 3 * components)), np.zeros(3 * components)),
    }


def logsumexp(a, axis):
    m = np.max(a, axis=axis, keepdims=True)
    return np.squeeze(m, axis) + np.log(np.sum(np.exp(a - m), axis=axis))


def mixture_parameters(params, x):
    W, b = params["hidden"]
    h = np.tanh(x @ W + b)
    W, b = params["out"]
    logits, means, log_scales = np.split(h @ W + b, 3, axis=1)
    log_weights = logits - logsumexp(logits, axis=1)[:, None]
    return log_weights, means, log_scales


def loss(params, x, y):
    log_weights, means, log_scales = mixture_parameters(params, x)
    z = (y - means) / np.exp(log_scales)
    log_normal = -0.5 * z**2 - log_scales - 0.5 * np.log(2 * np.pi)
    return -np.mean(logsumexp(log_weights + log_normal, axis=1))


def example(rng):
    y = rng.uniform(-1, 1, size=(16, 1))
    x = y + 0.3 * np.sin(4 * y) + 0.05 * rng.normal(size=(16, 1))  # the inverse problem
    return init_params(rng), x, y
