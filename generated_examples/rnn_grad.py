# Emitted by srcdiff from generated_examples/rnn.py (function rnn, mode grad, wrt=(0, 1)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
"""Gradient of generated_examples.rnn.rnn with respect to w, b.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def drnn(w, b, h, xs):
    _stack_t0 = []
    _stack_t2 = []
    _stack_h = []
    for t in range(xs.shape[0]):
        _t0 = w @ h
        _stack_t0.append(runtime.shape_of(_t0))
        _t1 = xs[t]
        _t2 = _t0 + _t1
        _stack_t2.append(runtime.shape_of(_t2))
        _t3 = _t2 + b
        _stack_h.append(h)
        h = np.tanh(_t3)
    _t4 = h ** 2
    _t5 = np.sum(_t4)
    b_t5 = runtime.grad_seed(_t5)
    b_t4 = runtime.unreduce(b_t5, _t4)
    bh = b_t4 * 2 * h
    bb = runtime.zeros_like(b)
    bw = runtime.zeros_like(w)
    for t in reversed(range(xs.shape[0])):
        _t2 = _stack_t2.pop()
        _t0 = _stack_t0.pop()
        b_t3 = bh * (1 - h * h)
        h = _stack_h.pop()
        b_t2 = runtime.unbroadcast(b_t3, _t2)
        bb += runtime.unbroadcast(b_t3, b)
        b_t0 = runtime.unbroadcast(b_t2, _t0)
        bw += runtime.matmul_grad(b_t0, w, h, 0)
        bh = runtime.matmul_grad(b_t0, w, h, 1)
    return runtime.as_grad(bw, w), runtime.as_grad(bb, b)
