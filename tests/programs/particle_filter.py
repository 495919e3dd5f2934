"""A bootstrap particle filter's log-likelihood estimate for a nonlinear state-space model
(x' = a sin(x) + noise, y = x + noise), with multinomial resampling by np.searchsorted on
the weights' cumulative sum (uniforms and noise drawn outside; the resampled indices carry no
derivative, as in the biased estimator people differentiate); parameters: a and the log noise
scales."""

import numpy as np


def logsumexp(v):
    m = np.max(v)
    return m + np.log(np.sum(np.exp(v - m)))


def loss(params, observations, initial, noise, uniforms):
    a = params["a"]
    q, r = np.exp(params["log_q"]), np.exp(params["log_r"])
    particles = initial
    n = particles.shape[0]
    log_likelihood = 0.0
    for t, y in enumerate(observations):
        particles = a * np.sin(particles) + q * noise[t]
        log_w = -0.5 * ((y - particles) / r) ** 2 - np.log(r) - 0.5 * np.log(2 * np.pi)
        log_likelihood = log_likelihood + logsumexp(log_w) - np.log(n)
        weights = np.exp(log_w - logsumexp(log_w))
        edges = np.cumsum(weights)[:-1]  # (the last edge, 1 up to rounding, left out)
        ancestors = np.searchsorted(edges, (uniforms[t] + np.arange(n)) / n)
        particles = particles[ancestors]
    return -log_likelihood


def example(rng, steps=5, particles=16):
    x, observations = 0.5, []
    for _ in range(steps):
        x = 0.9 * np.sin(x) + 0.3 * rng.normal()
        observations.append(x + 0.2 * rng.normal())
    params = {"a": 0.8, "log_q": np.log(0.3), "log_r": np.log(0.25)}
    return (
        params,
        np.array(observations),
        rng.normal(size=particles),
        rng.normal(size=(steps, particles)),
        rng.random(steps),
    )
