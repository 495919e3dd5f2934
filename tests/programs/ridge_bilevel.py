"""Hyperparameter optimisation by differentiating through a closed-form inner solution:
ridge regression's weights solve (X^T X + lambda D) w = X^T y for per-feature penalties,
and the loss is the validation error, differentiated with respect to the log penalties."""

import numpy as np


def ridge_weights(X, y, penalties):
    gram = X.T @ X + np.diag(penalties)
    return np.linalg.solve(gram, X.T @ y)


def loss(log_penalties, train, valid):
    (X_train, y_train), (X_valid, y_valid) = train, valid
    w = ridge_weights(X_train, y_train, np.exp(log_penalties))
    residual = X_valid @ w - y_valid
    return residual @ residual / len(y_valid)


def example(rng, features=4):
    true_w = np.array([1.0, 0.0, -0.5, 0.0])
    X = rng.normal(size=(15, features))
    y = X @ true_w + 0.3 * rng.normal(size=15)
    return 0.1 * rng.normal(size=features), (X[:10], y[:10]), (X[10:], y[10:])
