# Emitted by srcdiff from generated_examples/rnn.py (function rnn, mode grad, wrt=(0, 1)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
# Specialised for the example's arguments: float64[4, 4], float64[4], float64[4], float64[10, 4]
"""Gradient of generated_examples.rnn.rnn with respect to w, b.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def drnn(w, b, h, xs):
    _stack_h = []
    for t in range(xs.shape[0]):
        _t0 = w @ h
        _t1 = xs[t]
        _t2 = _t0 + _t1
        _t3 = _t2 + b
        _stack_h.append(h)
        h = np.tanh(_t3)
    b_t5 = 1.0
    bh = b_t5 * 2 * h
    bb = np.zeros_like(b)
    bw = np.zeros_like(w)
    for t in reversed(range(xs.shape[0])):
        b_t3 = bh * (1 - h * h)
        h = _stack_h.pop()
        bb += b_t3
        bw += np.outer(b_t3, h)
        bh = w.T @ b_t3
    return bw, bb
