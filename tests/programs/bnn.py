"""A Bayesian neural network by variational inference (Blundell et al. 2015): a mean-field
Gaussian over the weights of every layer, sampled by the reparameterisation trick with noise
drawn outside the loss; loss: the negative ELBO (expected log-likelihood minus KL)."""

import numpy as np


def unpack_layers(variational_params, layer_sizes):
    shapes = list(zip(layer_sizes[:-1], layer_sizes[1:]))
    mean, log_std = variational_params
    offset = 0
    for m, n in shapes:
        size = m * n + n
        yield (
            mean[offset : offset + size],
            log_std[offset : offset + size],
            (m, n),
        )
        offset += size


def sample_weights(variational_params, layer_sizes, noise):
    weights = []
    start = 0
    for mean, log_std, (m, n) in unpack_layers(variational_params, layer_sizes):
        eps = noise[start : start + mean.size]
        w = mean + np.exp(log_std) * eps
        weights.append((w[: m * n].reshape(m, n), w[m * n :]))
        start += mean.size
    return weights


def predict(weights, inputs):
    h = inputs
    for k, (W, b) in enumerate(weights):
        h = h @ W + b
        if k < len(weights) - 1:
            h = np.tanh(h)
    return h


def gaussian_kl(mean, log_std, prior_std=1.0):
    var = np.exp(2 * log_std)
    return np.sum(np.log(prior_std) - log_std + (var + mean**2) / (2 * prior_std**2) - 0.5)


def loss(variational_params, inputs, targets, noise_samples, layer_sizes=(1, 6, 1)):
    mean, log_std = variational_params
    log_likelihoods = [
        -0.5
        * np.sum(
            (predict(sample_weights(variational_params, layer_sizes, eps), inputs) - targets) ** 2
            / 0.1**2
        )
        for eps in noise_samples
    ]
    expected_log_likelihood = sum(log_likelihoods) / len(noise_samples)
    return -(expected_log_likelihood - gaussian_kl(mean, log_std)) / inputs.shape[0]


def example(rng, layer_sizes=(1, 6, 1)):
    num_weights = sum(m * n + n for m, n in zip(layer_sizes[:-1], layer_sizes[1:]))
    variational_params = (
        0.5 * rng.normal(size=num_weights),
        -2 + 0.1 * rng.normal(size=num_weights),
    )
    inputs = np.linspace(-2, 2, 12)[:, None]
    targets = np.cos(inputs) + 0.1 * rng.normal(size=inputs.shape)
    noise_samples = rng.normal(size=(3, num_weights))
    return variational_params, inputs, targets, noise_samples
