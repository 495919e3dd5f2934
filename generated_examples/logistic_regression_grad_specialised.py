# Emitted by srcdiff from generated_examples/logistic_regression.py (function logistic_regression, mode grad, wrt=(0, 1)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
# Specialised for the example's arguments: float64[4], float, float64[16, 4], float64[16]
"""Gradient of generated_examples.logistic_regression.logistic_regression with respect to w, b.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dlogistic_regression(w, b, x, y):
    _t0 = x @ w
    logits = _t0 + b
    _t1 = -logits
    _t2 = np.exp(_t1)
    _t3 = 1 + _t2
    p = 1 / _t3
    _t6 = 1 - y
    _t7 = 1 - p
    b_t15 = 1.0
    b_t13 = b_t15 * 0.01
    bw = b_t13 * 2 * w
    b_t11 = -b_t15
    b_t10 = b_t11 / 16
    b_t8 = b_t10 * _t6
    b_t7 = b_t8 / _t7
    bp = -b_t7
    b_t4 = b_t10 * y
    bp += b_t4 / p
    b_t3 = -bp * p / _t3
    b_t1 = b_t3 * _t2
    blogits = -b_t1
    bb = blogits.sum(axis=0)
    bw += x.T @ blogits
    return bw, float(bb)
