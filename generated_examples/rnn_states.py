"""An RNN that keeps every state: a list comprehension and a list built with append become
loops whose list's adjoint is a list too, handed back item by item as the appends unwind."""

import numpy as np

WRT = (0, 1)


def rnn_states(w, xs):
    inputs = [np.tanh(x) for x in xs]
    h = np.zeros(w.shape[0])
    states = []
    for x in inputs:
        h = np.tanh(w @ h + x)
        states.append(h)
    return np.sum(np.stack(states) ** 2)


def example(rng):
    return rng.normal(size=(3, 3)) * 0.5, rng.normal(size=(5, 3))
