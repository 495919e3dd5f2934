# Emitted by srcdiff from generated_examples/early_exit.py (function early_exit, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
# Specialised for the example's arguments: float64[3]
"""Gradient of generated_examples.early_exit.early_exit with respect to x.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dearly_exit(x):
    _stack_cond0 = []
    _stack_t0 = []
    total = 0.0
    _n0 = 0
    for i in range(8):
        _n0 = _n0 + 1
        _cond0 = i % 3 == 2
        _stack_cond0.append(_cond0)
        if not _cond0:
            _t0 = x * i
            _stack_t0.append(_t0)
            _t1 = np.sin(_t0)
            _t2 = np.sum(_t1)
            total = total + _t2
            _cond1 = total > 2.0
            if _cond1:
                break
    _cond2 = total < 0
    b_result0 = 1.0
    if _cond2:
        btotal = -b_result0
    else:
        btotal = b_result0 * 2
    bx = np.zeros_like(x)
    for i in reversed(range(8)[:_n0]):
        _cond0 = _stack_cond0.pop()
        if not _cond0:
            _t0 = _stack_t0.pop()
            b_t0 = btotal * np.cos(_t0)
            bx += b_t0 * i
    return bx
