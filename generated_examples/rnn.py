"""A vanilla RNN over a sequence: the loop-carried h is saved on a stack, w is not."""

import numpy as np

WRT = (0, 1)


def rnn(w, b, h, xs):
    for t in range(xs.shape[0]):
        h = np.tanh(w @ h + xs[t] + b)
    return np.sum(h**2)


def example(rng):
    return (
        rng.normal(size=(4, 4)) * 0.5,
        rng.normal(size=4),
        rng.normal(size=4),
        rng.normal(size=(10, 4)),
    )
