# Emitted by srcdiff from generated_examples/piecewise.py (function piecewise, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
# Specialised for the example's arguments: float64[4], float64[4]
"""Gradient of generated_examples.piecewise.piecewise with respect to x.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dpiecewise(x, y):
    _cond0 = np.sum(x) > 0
    if not _cond0:
        _cond1 = np.sum(x) > -1
    b_t2 = 1.0
    bz = b_t2 * y
    if _cond0:
        bx = bz * y
    elif _cond1:
        b_t0 = bz * 3
        bx = b_t0 * np.cos(x)
    else:
        bx = bz * 2 * x
    return bx
