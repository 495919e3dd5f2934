"""A Keras-style model: layer objects (dense, layer norm, a fixed dropout mask) with
__call__(params, x), held by a Sequential that threads its parameters through them; parameters
as a list of dicts, one per layer (an empty one for dropout)."""

import numpy as np


class Dense:
    def __init__(self, activation=None):
        self.activation = activation

    def __call__(self, params, x):
        out = x @ params["W"] + params["b"]
        if self.activation is not None:
            out = self.activation(out)
        return out


class LayerNorm:
    eps = 1e-5

    def __call__(self, params, x):
        centred = x - x.mean(axis=-1, keepdims=True)
        scale = np.sqrt((centred**2).mean(axis=-1, keepdims=True) + self.eps)
        return params["gain"] * centred / scale + params["bias"]


class Dropout:
    def __init__(self, mask, rate):
        self.mask, self.rate = mask, rate

    def __call__(self, params, x):
        return x * self.mask / (1 - self.rate)


def relu(x):
    return np.maximum(x, 0.0)


class Sequential:
    def __init__(self, *layers):
        self.layers = layers

    def __call__(self, params, x):
        for layer, layer_params in zip(self.layers, params):
            x = layer(layer_params, x)
        return x


def loss(params, model, x, labels):
    logits = model(params, x)
    logits = logits - logits.max(axis=1, keepdims=True)
    log_probs = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    return -np.mean(log_probs[np.arange(len(labels)), labels])


def example(rng, inputs=4, hidden=6, classes=3, batch=5):
    model = Sequential(
        Dense(np.tanh),
        LayerNorm(),
        Dropout(rng.random((batch, hidden)) > 0.2, 0.2),
        Dense(relu),
        Dense(),
    )
    params = [
        {"W": 0.5 * rng.normal(size=(inputs, hidden)), "b": 0.1 * rng.normal(size=hidden)},
        {"gain": 1 + 0.1 * rng.normal(size=hidden), "bias": 0.1 * rng.normal(size=hidden)},
        {},
        {"W": 0.5 * rng.normal(size=(hidden, hidden)), "b": 0.1 * rng.normal(size=hidden)},
        {"W": 0.5 * rng.normal(size=(hidden, classes)), "b": np.zeros(classes)},
    ]
    return params, model, rng.normal(size=(batch, inputs)), rng.integers(0, classes, size=batch)
