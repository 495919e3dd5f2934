# Emitted by srcdiff from generated_examples/piecewise.py (function piecewise, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
"""Gradient of generated_examples.piecewise.piecewise with respect to x.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dpiecewise(x, y):
    _cond0 = np.sum(x) > 0
    if _cond0:
        z = x * y
    else:
        _cond1 = np.sum(x) > -1
        if _cond1:
            _t0 = np.sin(x)
            z = _t0 * 3
        else:
            z = x ** 2
    _t1 = z * y
    _t2 = np.sum(_t1)
    b_t2 = runtime.grad_seed(_t2)
    b_t1 = runtime.unreduce(b_t2, _t1)
    bz = runtime.unbroadcast(b_t1 * y, z)
    if _cond0:
        bx = runtime.unbroadcast(bz * y, x)
    elif _cond1:
        b_t0 = bz * 3
        bx = b_t0 * np.cos(x)
    else:
        bx = bz * 2 * x
    return runtime.as_grad(bx, x)
