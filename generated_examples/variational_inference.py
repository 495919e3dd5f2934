"""Black-box variational inference: the negative evidence lower bound of a Bayesian logistic
regression under a diagonal Gaussian approximation (mean, log_std), estimated from
reparameterised samples, with scipy.stats.norm.logpdf for the prior and the approximation."""

import numpy as np
import scipy.stats

WRT = (0, 1)


def variational_inference(mean, log_std, eps, x, y):
    std = np.exp(log_std)
    w = mean + std * eps  # a sample of the weights per row of eps
    log_prior = np.sum(scipy.stats.norm.logpdf(w, 0.0, 1.0), axis=1)
    logits = w @ x.T
    log_likelihood = np.sum(y * logits - np.logaddexp(0.0, logits), axis=1)
    log_q = np.sum(scipy.stats.norm.logpdf(w, mean, std), axis=1)
    return -np.mean(log_prior + log_likelihood - log_q)


def example(rng):
    x = rng.normal(size=(20, 3))
    y = (x @ np.array([1.0, -2.0, 0.5]) > 0).astype(np.float64)
    return rng.normal(size=3) * 0.1, np.full(3, -1.0), rng.normal(size=(8, 3)), x, y
