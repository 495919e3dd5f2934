"""Mean logistic loss of a linear classifier with an L2 penalty."""

import numpy as np

WRT = (0, 1)


def logistic_regression(w, b, x, y):
    logits = x @ w + b
    p = 1 / (1 + np.exp(-logits))
    nll = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
    return nll + 0.01 * np.sum(w**2)


def example(rng):
    x = rng.normal(size=(16, 4))
    return rng.normal(size=4) * 0.1, 0.0, x, (x[:, 0] > 0).astype(np.float64)
