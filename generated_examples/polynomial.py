"""A scalar polynomial evaluated with Horner's rule in a loop."""

import numpy as np

WRT = (0,)


def polynomial(x, coefficients):
    total = 0.0
    for c in coefficients:
        total = total * x + c
    return total


def example(rng):
    return 0.7, [3.0, -2.0, 0.5, 1.0]
