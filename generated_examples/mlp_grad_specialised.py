# Emitted by srcdiff from generated_examples/mlp.py (function mlp, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
# Specialised for the example's arguments: {w1: float64[3, 5], b1: float64[5], w2: float64[5, 2], b2: float64[2]}, float64[8, 3], float64[8, 2]
"""Gradient of generated_examples.mlp.mlp with respect to params.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dmlp(params, x, y):
    _t0 = params['w1']
    _t1 = params['b1']
    h, dense_saved = fwd_dense_s1(_t0, _t1, x)
    _t2 = params['w2']
    _t3 = h @ _t2
    _t4 = params['b2']
    out = _t3 + _t4
    _t5 = out - y
    b_t7 = 1.0
    b_t6 = b_t7 / 16
    b_t5 = b_t6 * 2 * _t5
    b_t4 = b_t5.sum(axis=0)
    bh = b_t5 @ _t2.T
    b_t2 = h.T @ b_t5
    b_t0, b_t1 = bwd_dense_s1(bh, dense_saved)
    bparams = {'w1': b_t0, 'b1': b_t1, 'w2': b_t2, 'b2': b_t4}
    return bparams


def fwd_dense_s1(w, b, x):
    _t0 = x @ w
    _t1 = _t0 + b
    _t2 = np.tanh(_t1)
    return _t2, [_t2, x]


def bwd_dense_s1(b_t2, saved):
    _t2, x = saved
    saved.clear()
    b_t1 = b_t2 * (1 - _t2 * _t2)
    del _t2
    bb = b_t1.sum(axis=0)
    bw = x.T @ b_t1
    del b_t1, x
    return bw, bb
