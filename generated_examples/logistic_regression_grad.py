# Emitted by srcdiff from generated_examples/logistic_regression.py (function logistic_regression, mode grad, wrt=(0, 1)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
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
    _t4 = np.log(p)
    _t5 = y * _t4
    _t6 = 1 - y
    _t7 = 1 - p
    _t8 = np.log(_t7)
    _t9 = _t6 * _t8
    _t10 = _t5 + _t9
    _t11 = np.mean(_t10)
    nll = -_t11
    _t12 = w ** 2
    _t13 = np.sum(_t12)
    _t14 = 0.01 * _t13
    _t15 = nll + _t14
    b_t15 = runtime.grad_seed(_t15)
    b_t14 = runtime.unbroadcast(b_t15, _t14)
    b_t13 = b_t14 * 0.01
    b_t12 = runtime.unreduce(b_t13, _t12)
    bw = b_t12 * 2 * w
    b_t11 = -b_t15
    b_t10 = runtime.mean_grad(b_t11, _t10)
    b_t5 = runtime.unbroadcast(b_t10, _t5)
    b_t9 = runtime.unbroadcast(b_t10, _t9)
    b_t8 = runtime.unbroadcast(b_t9 * _t6, _t8)
    b_t7 = b_t8 / _t7
    bp = -b_t7
    b_t4 = runtime.unbroadcast(b_t5 * y, _t4)
    bp += b_t4 / p
    b_t3 = -bp * p / _t3
    b_t1 = b_t3 * _t2
    blogits = -b_t1
    b_t0 = runtime.unbroadcast(blogits, _t0)
    bb = runtime.unbroadcast(blogits, b)
    bw += runtime.matmul_grad(b_t0, x, w, 1)
    return runtime.as_grad(bw, w), runtime.as_grad(bb, b)
