"""A 3-layer perceptron classifier, parameters held as a list of (W, b) pairs."""

import numpy as np


def init_params(rng, layer_sizes, scale=0.3):
    return [
        (scale * rng.normal(size=(m, n)), scale * rng.normal(size=n))
        for m, n in zip(layer_sizes[:-1], layer_sizes[1:])
    ]


def predict(params, inputs):
    for W, b in params:
        outputs = inputs @ W + b
        inputs = np.tanh(outputs)
    return outputs - np.log(np.sum(np.exp(outputs), axis=1, keepdims=True))


def loss(params, inputs, targets):
    log_probs = predict(params, inputs)
    return -np.mean(np.sum(log_probs * targets, axis=1))


def example(rng):
    params = init_params(rng, [4, 6, 5, 3])
    inputs = rng.normal(size=(8, 4))
    targets = np.eye(3)[rng.integers(0, 3, size=8)]
    return params, inputs, targets
