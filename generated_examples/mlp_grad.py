# Emitted by srcdiff from generated_examples/mlp.py (function mlp, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
"""Gradient of generated_examples.mlp.mlp with respect to params.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dmlp(params, x, y):
    _t0 = params['w1']
    _t1 = params['b1']
    h, dense_saved = fwd_dense(_t0, _t1, x)
    _t2 = params['w2']
    _t3 = h @ _t2
    _t4 = params['b2']
    out = _t3 + _t4
    _t5 = out - y
    _t6 = _t5 ** 2
    _t7 = np.mean(_t6)
    b_t7 = runtime.grad_seed(_t7)
    b_t6 = runtime.mean_grad(b_t7, _t6)
    b_t5 = b_t6 * 2 * _t5
    bout = runtime.unbroadcast(b_t5, out)
    b_t3 = runtime.unbroadcast(bout, _t3)
    b_t4 = runtime.unbroadcast(bout, _t4)
    bh = runtime.matmul_grad(b_t3, h, _t2, 0)
    b_t2 = runtime.matmul_grad(b_t3, h, _t2, 1)
    b_t0, b_t1 = bwd_dense(bh, dense_saved)
    bparams = {'w1': b_t0, 'b1': b_t1, 'w2': b_t2, 'b2': b_t4}
    return runtime.as_grad(bparams, params)


def fwd_dense(w, b, x):
    _t0 = x @ w
    _t1 = _t0 + b
    _t2 = np.tanh(_t1)
    return _t2, [runtime.shape_of(_t0), _t2, runtime.shape_of(b), w, x]


def bwd_dense(b_t2, saved):
    _t0, _t2, b, w, x = saved
    saved.clear()
    b_t1 = b_t2 * (1 - _t2 * _t2)
    del _t2
    b_t0 = runtime.unbroadcast(b_t1, _t0)
    del _t0
    bb = runtime.unbroadcast(b_t1, b)
    del b, b_t1
    bw = runtime.matmul_grad(b_t0, x, w, 1)
    del b_t0, w, x
    return bw, bb
