"""One ResNet basic block built from srcdiff.nn layers (conv, batch norm, relu, shortcut)."""

import numpy as np

from srcdiff.nn import batch_norm, conv2d, relu

WRT = (0,)


def resnet_block(p, x):
    h = conv2d(x, p["w1"], 1, 1)
    h, _, _ = batch_norm(h, p["g1"], p["b1"])
    h = conv2d(relu(h), p["w2"], 1, 1)
    h, _, _ = batch_norm(h, p["g2"], p["b2"])
    return np.sum(relu(h + x) ** 2)


def example(rng):
    c = 3
    p = {
        "w1": rng.normal(size=(c, c, 3, 3)) * 0.3,
        "g1": np.ones(c),
        "b1": np.zeros(c),
        "w2": rng.normal(size=(c, c, 3, 3)) * 0.3,
        "g2": np.ones(c),
        "b2": np.zeros(c),
    }
    return p, rng.normal(size=(2, c, 5, 5))
