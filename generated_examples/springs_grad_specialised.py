# Emitted by srcdiff from generated_examples/springs.py (function springs, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
# Specialised for the example's arguments: float64[3], float64[3]
"""Gradient of generated_examples.springs.springs with respect to k.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dsprings(k, x0):
    _stack_x = []
    x = x0
    v = np.zeros_like(x0)
    t = 0.0
    dt = 0.05
    _t0 = -k
    _n0 = 0
    while t < 1.0:
        _n0 = _n0 + 1
        _t1 = _t0 * x
        _t2 = 0.1 * v
        a = _t1 - _t2
        _t3 = dt * a
        v = v + _t3
        _t5 = dt * v
        _t6 = x + _t5
        _stack_x.append(x)
        x = _t6
        t = t + dt
    b_t8 = 1.0
    bx = b_t8 * 2 * x
    b_t0 = np.zeros_like(_t0)
    bv = np.zeros_like(v)
    for _ in range(_n0):
        x = _stack_x.pop()
        bv = bv + bx * dt
        ba = bv * dt
        b_t2 = -ba
        bv = bv + b_t2 * 0.1
        b_t0 += ba * x
        bx = bx + ba * _t0
    bk = -b_t0
    return bk
