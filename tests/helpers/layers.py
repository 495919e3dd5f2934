"""A module of plain numpy helpers, imported by tests that differentiate through calls."""

import numpy as np


def dense(w, b, x):
    return np.tanh(x @ w + b)


def scaled_square(x, scale=2.0):
    return scale * x * x
