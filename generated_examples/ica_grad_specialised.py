# Emitted by srcdiff from generated_examples/ica.py (function ica, mode grad, wrt=(0, 1)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
# Specialised for the example's arguments: float64[4, 2], float64[2, 30], float64[4, 30], float
"""Gradient of generated_examples.ica.ica with respect to weights, latents.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dica(weights, latents, observed, noise_std):
    predicted = weights @ latents
    b_t3 = 1.0
    b_t2 = -b_t3
    blatents = -b_t2 * 3.4 * latents / (2.4 + latents ** 2)
    bpredicted = (-b_t2 * 3.4 * (predicted - observed)
        / (2.4 * noise_std ** 2 + (predicted - observed) ** 2))
    bweights = bpredicted @ latents.T
    blatents += weights.T @ bpredicted
    return bweights, blatents
