"""Independent component analysis as in autograd's example: observed signals are a mixture
(weights @ latents) of heavy-tailed sources with Student-t noise; the negative log joint
density of the weights and the sources, with scipy.stats.t.logpdf."""

import numpy as np
import scipy.stats

WRT = (0, 1)


def ica(weights, latents, observed, noise_std):
    predicted = weights @ latents
    log_likelihood = np.sum(scipy.stats.t.logpdf(predicted, 2.4, observed, noise_std))
    log_prior = np.sum(scipy.stats.t.logpdf(latents, 2.4))
    return -(log_likelihood + log_prior)


def example(rng):
    latents = rng.standard_t(2.4, size=(2, 30))
    weights = rng.normal(size=(4, 2))
    observed = weights @ latents + 0.1 * rng.standard_t(2.4, size=(4, 30))
    return rng.normal(size=(4, 2)), rng.normal(size=(2, 30)), observed, 0.1
