# Emitted by srcdiff from generated_examples/second_derivative.py (function second_derivative, mode grad2, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
"""Gradient of generated_examples.second_derivative.dsecond_derivative with respect to x.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def ddsecond_derivative(x):
    _t0 = np.sin(x)
    _t1 = x ** 3
    _t2 = _t0 * _t1
    _t3 = x * 0.5
    _t4 = np.exp(_t3)
    _t5 = _t2 + _t4
    b_t5 = runtime.grad_seed(_t5)
    b_t2 = runtime.unbroadcast(b_t5, _t2)
    b_t4 = runtime.unbroadcast(b_t5, _t4)
    b_t3 = b_t4 * _t4
    bx = b_t3 * 0.5
    _t6 = b_t2 * _t1
    b_t0 = runtime.unbroadcast(_t6, _t0)
    _t7 = b_t2 * _t0
    b_t1 = runtime.unbroadcast(_t7, _t1)
    _t8 = b_t1 * 3
    _t9 = x ** 2
    _t10 = _t8 * _t9
    bx_1 = bx + _t10
    _t11 = np.cos(x)
    _t12 = b_t0 * _t11
    bx_2 = bx_1 + _t12
    _t13 = runtime.as_grad(bx_2, x)
    b_t13 = runtime.grad_seed(_t13)
    bbx_2 = runtime.broadcast_like(b_t13, bx_2)
    bbx_1 = runtime.unbroadcast(bbx_2, bx_1)
    b_t12 = runtime.unbroadcast(bbx_2, _t12)
    bb_t0 = runtime.unbroadcast(b_t12 * _t11, b_t0)
    b_t11 = runtime.unbroadcast(b_t12 * b_t0, _t11)
    bx_ = -b_t11 * np.sin(x)
    bbx = runtime.unbroadcast(bbx_1, bx)
    b_t10 = runtime.unbroadcast(bbx_1, _t10)
    b_t8 = runtime.unbroadcast(b_t10 * _t9, _t8)
    b_t9 = runtime.unbroadcast(b_t10 * _t8, _t9)
    bx_ += b_t9 * 2 * x
    bb_t1 = b_t8 * 3
    b_t7 = runtime.broadcast_like(bb_t1, _t7)
    b_t0_ = runtime.unbroadcast(b_t7 * b_t2, _t0)
    b_t6 = runtime.broadcast_like(bb_t0, _t6)
    b_t1_ = runtime.unbroadcast(b_t6 * b_t2, _t1)
    bb_t3 = bbx * 0.5
    b_t4_ = runtime.unbroadcast(bb_t3 * b_t4, _t4)
    b_t3_ = b_t4_ * _t4
    bx_ += b_t3_ * 0.5
    bx_ += b_t1_ * 3 * x ** 2
    bx_ += b_t0_ * np.cos(x)
    return runtime.as_grad(bx_, x)
