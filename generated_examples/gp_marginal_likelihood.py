"""Negative log marginal likelihood of a Gaussian process (RBF kernel) in its log
hyperparameters: the quadratic term through the Cholesky factor and a triangular solve with
it, the log determinant by slogdet."""

import numpy as np
import scipy.linalg

WRT = (0,)


def gp_marginal_likelihood(params, x, y):
    lengthscale, signal, noise = np.exp(params[0]), np.exp(params[1]), np.exp(params[2])
    sqdist = np.sum((x[:, None, :] - x[None, :, :]) ** 2, axis=-1)
    k = signal**2 * np.exp(-0.5 * sqdist / lengthscale**2) + noise**2 * np.eye(len(y))
    factor = np.linalg.cholesky(k)
    alpha = scipy.linalg.solve_triangular(
        factor, y, lower=True
    )  # factor^-1 y, so y^T k^-1 y = alpha^T alpha
    sign, logdet = np.linalg.slogdet(k)
    return 0.5 * alpha @ alpha + 0.5 * logdet + 0.5 * len(y) * np.log(2 * np.pi)


def example(rng):
    x = rng.uniform(-2, 2, size=(8, 2))
    y = np.sin(x[:, 0]) + 0.1 * rng.normal(size=8)
    return np.array([0.1, -0.2, -1.0]), x, y
