"""A two-layer perceptron whose weights live in a dict; the gradient is a dict too."""

import numpy as np

WRT = (0,)


def dense(w, b, x):
    return np.tanh(x @ w + b)


def mlp(params, x, y):
    h = dense(params["w1"], params["b1"], x)
    out = h @ params["w2"] + params["b2"]
    return np.mean((out - y) ** 2)


def example(rng):
    params = {
        "w1": rng.normal(size=(3, 5)),
        "b1": np.zeros(5),
        "w2": rng.normal(size=(5, 2)),
        "b2": np.zeros(2),
    }
    return params, rng.normal(size=(8, 3)), rng.normal(size=(8, 2))
