# Emitted by srcdiff from generated_examples/rnn_states.py (function rnn_states, mode grad, wrt=(0, 1)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
# Specialised for the example's arguments: float64[3, 3], float64[5, 3]
"""Gradient of generated_examples.rnn_states.rnn_states with respect to w, xs.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def drnn_states(w, xs):
    _stack_t1 = []
    _stack_h = []
    inputs = []
    for _i0 in range(len(xs)):
        _x0 = xs[_i0]
        _t0 = np.tanh(_x0)
        inputs.append(_t0)
    h = np.zeros(w.shape[0])
    states = []
    for _i1 in range(len(inputs)):
        x = inputs[_i1]
        _t1 = w @ h
        _stack_t1.append(runtime.shape_of(_t1))
        _t2 = _t1 + x
        _stack_h.append(h)
        h = np.tanh(_t2)
        states.append(h)
    _t3 = np.stack(states)
    _t4 = _t3 ** 2
    _t5 = np.sum(_t4)
    b_t5 = runtime.grad_seed(_t5)
    b_t4 = runtime.unreduce(b_t5, _t4)
    b_t3 = b_t4 * 2 * _t3
    bstates = runtime.add_items([], [runtime.unstack(b_t3, _k) for _k in range(len(states))])
    bh = runtime.zeros_like(h)
    binputs = runtime.zeros_like(inputs)
    bw = np.zeros_like(w)
    for _i1 in reversed(range(len(inputs))):
        _t1 = _stack_t1.pop()
        x = inputs[_i1]
        bh += bstates.pop()
        b_t2 = bh * (1 - h * h)
        h = _stack_h.pop()
        b_t1 = runtime.unbroadcast(b_t2, _t1)
        bx = runtime.unbroadcast(b_t2, x)
        bw += runtime.matmul_grad(b_t1, w, h, 0)
        bh = runtime.matmul_grad(b_t1, w, h, 1)
        binputs = runtime.add_items(binputs, runtime.getitem_grad(bx, inputs, _i1), inputs)
    bxs = np.zeros_like(xs)
    for _i0 in reversed(range(len(xs))):
        _t0 = inputs[_i0]
        b_t0 = binputs.pop()
        b_x0 = b_t0 * (1 - _t0 * _t0)
        bxs = runtime.add_at(bxs, xs, _i0, b_x0)
    return bw, runtime.as_grad(bxs, xs)
