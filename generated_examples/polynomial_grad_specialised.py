# Emitted by srcdiff from generated_examples/polynomial.py (function polynomial, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
# Specialised for the example's arguments: float, [float, float, float, float]
"""Gradient of generated_examples.polynomial.polynomial with respect to x.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dpolynomial(x, coefficients):
    total = 0.0
    dtotal = 0.0
    for c in coefficients:
        d_t0 = dtotal * x + total
        total = total * x + c
        dtotal = d_t0
    return dtotal
