"""Parameters as a dict of arrays, flattened into one vector (for weight decay) and back."""

import numpy as np


def flatten(params):
    """One vector of every parameter (sorted by name), and the function that undoes it."""
    keys = sorted(params)
    shapes = [np.shape(params[k]) for k in keys]
    flat = np.concatenate([np.ravel(params[k]) for k in keys])

    def unflatten(vector):
        pieces, start = [], 0
        for shape in shapes:
            size = int(np.prod(shape))
            pieces.append(np.reshape(vector[start : start + size], shape))
            start += size
        return dict(zip(keys, pieces))

    return flat, unflatten


def predict(params, inputs):
    hidden = np.tanh(inputs @ params["w_hidden"] + params["b_hidden"])
    return hidden @ params["w_out"] + params["b_out"]


def loss(params, inputs, targets, decay=1e-2):
    flat, unflatten = flatten(params)
    params = unflatten(flat)
    residuals = predict(params, inputs) - targets
    return np.mean(residuals**2) + decay * np.dot(flat, flat)


def example(rng):
    params = {
        "w_hidden": 0.5 * rng.normal(size=(3, 4)),
        "b_hidden": 0.1 * rng.normal(size=4),
        "w_out": 0.5 * rng.normal(size=(4, 1)),
        "b_out": np.zeros(1),
    }
    inputs = rng.normal(size=(6, 3))
    targets = rng.normal(size=(6, 1))
    return params, inputs, targets
