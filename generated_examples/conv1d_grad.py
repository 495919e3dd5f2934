# Emitted by srcdiff from generated_examples/conv1d.py (function conv1d, mode grad, wrt=(0, 1)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
"""Gradient of generated_examples.conv1d.conv1d with respect to x, w.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dconv1d(x, w):
    _stack_t0 = []
    _stack_t1 = []
    _stack_t2 = []
    _stack_y = []
    k = w.shape[0]
    n = x.shape[0] - k + 1
    y = np.zeros(n)
    for i in range(n):
        _t0 = x[i:i + k]
        _stack_t0.append(_t0)
        _t1 = _t0 * w
        _stack_t1.append(runtime.shape_of(_t1))
        _t2 = np.sum(_t1)
        _stack_t2.append(runtime.shape_of(_t2))
        _stack_y.append(np.copy(y[i]))
        y[i] = _t2
    _t3 = y ** 2
    _t4 = np.sum(_t3)
    b_t4 = runtime.grad_seed(_t4)
    b_t3 = runtime.unreduce(b_t4, _t3)
    by = b_t3 * 2 * y
    bw = runtime.zeros_like(w)
    bx = runtime.zeros_like(x)
    for i in reversed(range(n)):
        _t2 = _stack_t2.pop()
        _t1 = _stack_t1.pop()
        _t0 = _stack_t0.pop()
        b_t2 = runtime.unbroadcast(runtime.through_write(runtime.written(by, i), y), _t2)
        by = runtime.zero_at(by, i)
        y[i] = _stack_y.pop()
        b_t1 = runtime.unreduce(b_t2, _t1)
        b_t0 = runtime.unbroadcast(b_t1 * w, _t0)
        bw += runtime.unbroadcast(b_t1 * _t0, w)
        bx = runtime.add_at(bx, x, np.s_[i:i + k], b_t0)
    return runtime.as_grad(bx, x), runtime.as_grad(bw, w)
