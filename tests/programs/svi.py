"""Black-box stochastic variational inference for Bayesian logistic regression: a diagonal
Gaussian approximate posterior, fitted through reparameterised samples."""

import numpy as np


def gaussian_log_density(x, mean, std):
    return -0.5 * ((x - mean) / std) ** 2 - np.log(std) - 0.5 * np.log(2 * np.pi)


def log_joint(weights, inputs, targets):
    """log p(weights) + log p(targets | inputs, weights), one value per row of weights."""
    log_prior = np.sum(gaussian_log_density(weights, 0.0, 1.0), axis=1)
    logits = weights @ inputs.T
    log_likelihood = np.sum(targets * logits - np.logaddexp(0.0, logits), axis=1)
    return log_prior + log_likelihood


def black_box_variational_inference(logprob, num_dims):
    """The negative ELBO of q = N(mean, diag(exp(log_std))^2) against the unnormalised
    density logprob, as a function of q's packed parameters and of standard normal noise
    of shape (num_samples, num_dims)."""

    def unpack_params(params):
        mean, log_std = params[:num_dims], params[num_dims:]
        return mean, log_std

    def gaussian_entropy(log_std):
        return 0.5 * num_dims * (1.0 + np.log(2 * np.pi)) + np.sum(log_std)

    def variational_objective(params, noise, inputs, targets):
        mean, log_std = unpack_params(params)
        samples = noise * np.exp(log_std) + mean
        lower_bound = gaussian_entropy(log_std) + np.mean(logprob(samples, inputs, targets))
        return -lower_bound

    return variational_objective


NUM_FEATURES = 3
loss = black_box_variational_inference(log_joint, NUM_FEATURES)


def example(rng):
    inputs = rng.normal(size=(10, NUM_FEATURES))
    targets = (inputs @ np.array([1.0, -2.0, 0.5]) + 0.3 * rng.normal(size=10) > 0) * 1.0
    params = np.concatenate([0.1 * rng.normal(size=NUM_FEATURES), -np.ones(NUM_FEATURES)])
    noise = rng.normal(size=(8, NUM_FEATURES))
    return params, noise, inputs, targets
