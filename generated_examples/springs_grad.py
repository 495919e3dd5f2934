# Emitted by srcdiff from generated_examples/springs.py (function springs, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
"""Gradient of generated_examples.springs.springs with respect to k.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dsprings(k, x0):
    _stack_t1 = []
    _stack_t2 = []
    _stack_t3 = []
    _stack_v = []
    _stack_t5 = []
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
        _stack_t1.append(runtime.shape_of(_t1))
        _t2 = 0.1 * v
        _stack_t2.append(runtime.shape_of(_t2))
        a = _t1 - _t2
        _t3 = dt * a
        _stack_t3.append(runtime.shape_of(_t3))
        _t4 = v + _t3
        _stack_v.append(runtime.shape_of(v))
        v = _t4
        _t5 = dt * v
        _stack_t5.append(runtime.shape_of(_t5))
        _t6 = x + _t5
        _stack_x.append(x)
        x = _t6
        t = t + dt
    _t7 = x ** 2
    _t8 = np.sum(_t7)
    b_t8 = runtime.grad_seed(_t8)
    b_t7 = runtime.unreduce(b_t8, _t7)
    bx = b_t7 * 2 * x
    b_t0 = runtime.zeros_like(_t0)
    bv = runtime.zeros_like(v)
    for _ in range(_n0):
        _t5 = _stack_t5.pop()
        _t3 = _stack_t3.pop()
        _t2 = _stack_t2.pop()
        _t1 = _stack_t1.pop()
        b_t6 = bx
        x = _stack_x.pop()
        bx = runtime.unbroadcast(b_t6, x)
        b_t5 = runtime.unbroadcast(b_t6, _t5)
        bv = bv + b_t5 * dt
        b_t4 = bv
        v = _stack_v.pop()
        bv = runtime.unbroadcast(b_t4, v)
        b_t3 = runtime.unbroadcast(b_t4, _t3)
        ba = b_t3 * dt
        b_t1 = runtime.unbroadcast(ba, _t1)
        b_t2 = runtime.unbroadcast(-ba, _t2)
        bv = bv + b_t2 * 0.1
        b_t0 += runtime.unbroadcast(b_t1 * x, _t0)
        bx = bx + runtime.unbroadcast(b_t1 * _t0, x)
    bk = -b_t0
    return runtime.as_grad(bk, k)
