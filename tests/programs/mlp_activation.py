"""A regression MLP whose nonlinearity is an argument (a numpy function or one's own)."""

import numpy as np


def softplus(x):
    return np.logaddexp(0.0, x)


def init_params(rng, layer_sizes, scale=0.4):
    return [
        (scale * rng.normal(size=(m, n)), np.zeros(n))
        for m, n in zip(layer_sizes[:-1], layer_sizes[1:])
    ]


def predict(params, inputs, nonlinearity=np.tanh):
    for W, b in params[:-1]:
        inputs = nonlinearity(inputs @ W + b)
    W, b = params[-1]
    return inputs @ W + b


def loss(params, inputs, targets, nonlinearity=np.tanh):
    predictions = predict(params, inputs, nonlinearity=nonlinearity)
    return np.mean((predictions - targets) ** 2)


def example(rng):
    params = init_params(rng, [3, 5, 5, 1])
    inputs = rng.normal(size=(10, 3))
    targets = np.sin(inputs.sum(axis=1, keepdims=True))
    return params, inputs, targets, softplus
