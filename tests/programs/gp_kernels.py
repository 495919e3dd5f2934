"""Gaussian-process hyperparameter fitting in the style of a GP library: a kernel built by
composing kernel functions (a sum of an RBF and a periodic kernel, bound with
functools.partial and lambdas), the marginal likelihood by a Cholesky factor and scipy's
triangular solve, and log-normal priors on the hyperparameters."""

import functools

import numpy as np
from scipy.linalg import solve_triangular


def squared_distances(a, b):
    return np.sum(a**2, 1)[:, None] + np.sum(b**2, 1)[None, :] - 2 * a @ b.T


def rbf(a, b, lengthscale, variance):
    return variance * np.exp(-0.5 * squared_distances(a, b) / lengthscale**2)


def periodic(a, b, lengthscale, period, variance):
    dists = np.abs(a[:, None, 0] - b[None, :, 0])
    return variance * np.exp(-2 * np.sin(np.pi * dists / period) ** 2 / lengthscale**2)


def make_kernel(hyper):
    smooth = functools.partial(
        rbf, lengthscale=np.exp(hyper["rbf"][0]), variance=np.exp(hyper["rbf"][1])
    )
    scale, period, variance = np.exp(hyper["periodic"])
    return lambda a, b: smooth(a, b) + periodic(a, b, scale, period, variance)


def log_marginal_likelihood(kernel, noise, X, y):
    K = kernel(X, X) + noise * np.eye(X.shape[0])
    L = np.linalg.cholesky(K)
    z = solve_triangular(L, y, lower=True)
    return -0.5 * z @ z - np.sum(np.log(np.diag(L))) - 0.5 * len(y) * np.log(2 * np.pi)


def log_prior(hyper):
    return sum(-0.5 * np.sum(v**2) for v in hyper.values())


def loss(hyper, X, y):
    kernel = make_kernel(hyper)
    noise = np.exp(hyper["log_noise"]) + 1e-6
    return -(log_marginal_likelihood(kernel, noise, X, y) + log_prior(hyper))


def example(rng):
    X = np.sort(rng.uniform(0, 4, size=(9, 1)), axis=0)
    y = np.sin(3 * X[:, 0]) + 0.2 * X[:, 0] + 0.1 * rng.normal(size=9)
    hyper = {
        "rbf": np.array([0.3, -0.5]),
        "periodic": np.array([0.1, 0.6, -0.3]),
        "log_noise": np.array(-2.0),
    }
    return hyper, X, y
