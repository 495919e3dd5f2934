"""Second order: srcdiff differentiates its own emitted gradient (grad of grad)."""

import numpy as np

WRT = (0,)
MODE = "grad2"


def second_derivative(x):
    return np.sin(x) * x**3 + np.exp(x * 0.5)


def example(rng):
    return (0.7,)
