"""t-SNE's objective: KL(P || Q) with Student-t affinities Q in the embedding (van der Maaten &
Hinton 2008); P from Gaussian affinities at a fixed bandwidth, symmetrised."""

import numpy as np


def pairwise_sq_dists(Y):
    sum_Y = np.sum(np.square(Y), 1)
    return np.add(np.add(-2 * np.dot(Y, Y.T), sum_Y).T, sum_Y)


def joint_probabilities(X, sigma=1.0):
    D = pairwise_sq_dists(X)
    P = np.exp(-D / (2 * sigma**2))
    np.fill_diagonal(P, 0.0)
    P = P / np.sum(P, axis=1, keepdims=True)
    P = (P + P.T) / (2 * X.shape[0])
    return np.maximum(P, 1e-12)


def loss(Y, P):
    num = 1.0 / (1.0 + pairwise_sq_dists(Y))
    n = Y.shape[0]
    num = num * (1 - np.eye(n))
    Q = np.maximum(num / np.sum(num), 1e-12)
    return np.sum(P * np.log(P / Q))


def example(rng):
    X = rng.normal(size=(7, 5))
    return 0.1 * rng.normal(size=(7, 2)), joint_probabilities(X)
