"""Maximum likelihood for a mixture of diagonal Gaussians."""

import numpy as np


def logsumexp(a, axis=None, keepdims=False):
    a_max = np.max(a, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(a - a_max), axis=axis, keepdims=True)) + a_max
    if not keepdims:
        out = np.squeeze(out, axis=axis)
    return out


def init_params(rng, num_components, dims, scale=1.0):
    return {
        "log proportions": rng.normal(size=num_components) * 0.1,
        "means": rng.normal(size=(num_components, dims)) * scale,
        "log stds": rng.normal(size=(num_components, dims)) * 0.1,
    }


def log_normalize(x):
    return x - logsumexp(x)


def unpack_params(params):
    return log_normalize(params["log proportions"]), params["means"], params["log stds"]


def diag_gaussian_logpdf(x, mean, log_std):
    z = (x - mean) / np.exp(log_std)
    return np.sum(-0.5 * z**2 - log_std - 0.5 * np.log(2 * np.pi), axis=1)


def gmm_log_likelihood(params, data):
    cluster_lls = []
    for log_proportion, mean, log_std in zip(*unpack_params(params)):
        cluster_lls.append(log_proportion + diag_gaussian_logpdf(data, mean, log_std))
    return np.sum(logsumexp(np.vstack(cluster_lls), axis=0))


def loss(params, data):
    return -gmm_log_likelihood(params, data) / data.shape[0]


def example(rng):
    centres = np.array([[-2.0, 0.0], [2.0, 1.0]])
    data = centres[rng.integers(0, 2, size=20)] + 0.5 * rng.normal(size=(20, 2))
    return init_params(rng, 3, 2), data
