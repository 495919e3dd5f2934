"""L2-regularised logistic regression fitted by scipy's L-BFGS with srcdiff's gradient as the
Jacobian: the objective is a closure over the data made inside `fit`, as scikit-learn-style
code writes it; `loss` is the objective itself, with the data passed in."""

import numpy as np
from scipy.optimize import minimize

import srcdiff as nf


def log_loss(w, X, y, l2):
    logits = X @ w[:-1] + w[-1]
    # log(1 + exp(-y z)) with labels in {-1, +1}, stable for large |z|
    return np.mean(np.logaddexp(0.0, -y * logits)) + 0.5 * l2 * np.sum(w[:-1] ** 2)


def fit(X, y, l2=0.1):
    def objective(w):
        return log_loss(w, X, y, l2)

    result = minimize(
        objective, np.zeros(X.shape[1] + 1), jac=nf.grad(objective), method="L-BFGS-B"
    )
    return result.x, result


def loss(w, X, y, l2=0.1):
    return log_loss(w, X, y, l2)


def example(rng):
    X = rng.normal(size=(20, 3))
    y = np.sign(X @ np.array([1.0, -2.0, 0.5]) + 0.3 * rng.normal(size=20))
    return 0.1 * rng.normal(size=4), X, y
