"""Gaussian-process regression: the negative log marginal likelihood of the data under a
kernel passed in as a function, its hyperparameters spread from a dict (**params["kernel"]),
through a Cholesky factor (Rasmussen & Williams, alg. 2.1); parameters: log length-scale, log
signal and log noise variance."""

import numpy as np


def rbf_kernel(x1, x2, log_lengthscale=0.0, log_variance=0.0):
    sq_dists = np.sum((x1[:, None, :] - x2[None, :, :]) ** 2, axis=-1)
    return np.exp(log_variance) * np.exp(-0.5 * sq_dists / np.exp(2 * log_lengthscale))


def negative_log_marginal_likelihood(params, kernel, X, y):
    K = kernel(X, X, **params["kernel"])
    K = K + (np.exp(params["log_noise"]) + 1e-6) * np.eye(len(X))
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * len(X) * np.log(2 * np.pi)


def loss(params, X, y):
    return negative_log_marginal_likelihood(params, rbf_kernel, X, y)


def example(rng):
    X = rng.uniform(-2, 2, size=(8, 1))
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.normal(size=8)
    params = {"kernel": {"log_lengthscale": 0.1, "log_variance": -0.2}, "log_noise": np.log(0.1)}
    return params, X, y
