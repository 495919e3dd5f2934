# Emitted by srcdiff from tests/programs/mlp_activation.py (function loss, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
# Specialised for the example's arguments: [(float64[3, 5], float64[5]), (float64[5, 5], float64[5]), (float64[5, 1], float64[1])], float64[10, 3], float64[10, 1], softplus
"""Gradient of generated_examples.mlp_activation.loss with respect to params.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dloss(params, inputs, targets, nonlinearity=np.tanh):
    predictions, predict_saved = fwd_predict_s1(params, inputs, nonlinearity=nonlinearity)
    _t0 = predictions - targets
    _t1 = _t0 ** 2
    _t2 = np.mean(_t1)
    b_t2 = runtime.grad_seed(_t2)
    b_t1 = runtime.mean_grad(b_t2, _t1)
    b_t0 = b_t1 * 2 * _t0
    bpredictions = runtime.unbroadcast(b_t0, predictions)
    bparams, = bwd_predict_s1(bpredictions, predict_saved)
    return runtime.as_grad(bparams, params)


def fwd_predict_s1(params, inputs, nonlinearity=np.tanh):
    _stack_t1 = []
    _stack_W = []
    _stack_b = []
    _stack_t2 = []
    _stack_inputs = []
    _stack_softplus_saved = []
    _t0 = params[:-1]
    for _i0 in range(len(_t0)):
        _t1 = _t0[_i0]
        _stack_t1.append(runtime.shape_of(_t1))
        runtime.check_unpack(_t1, 2)
        W = _t1[0]
        _stack_W.append(W)
        b = _t1[1]
        _stack_b.append(runtime.shape_of(b))
        _t2 = inputs @ W
        _stack_t2.append(runtime.shape_of(_t2))
        _t3 = _t2 + b
        _stack_inputs.append(inputs)
        inputs, softplus_saved = fwd_softplus(_t3)
        _stack_softplus_saved.append(softplus_saved)
    _t4 = params[-1]
    W = _t4[0]
    b = _t4[1]
    _t5 = inputs @ W
    _t6 = _t5 + b
    return _t6, [W, _stack_W, _stack_b, _stack_inputs, _stack_softplus_saved, _stack_t1, _stack_t2,
        _t0, runtime.shape_of(_t4), runtime.shape_of(_t5), b, inputs, runtime.shape_of(params)]


def bwd_softplus_s1(b_t0, saved):
    _t0, x = saved
    saved.clear()
    bx = b_t0 * runtime.logaddexp_share(x, _t0, 0.0)
    del _t0, x
    return bx,


def bwd_predict_s1(b_t6, saved):
    (W, _stack_W, _stack_b, _stack_inputs, _stack_softplus_saved, _stack_t1, _stack_t2, _t0, _t4,
        _t5, b, inputs, params) = saved
    saved.clear()
    b_t5 = runtime.unbroadcast(b_t6, _t5)
    del _t5
    bb = runtime.unbroadcast(b_t6, b)
    binputs = runtime.matmul_grad(b_t5, inputs, W, 0)
    bW = runtime.matmul_grad(b_t5, inputs, W, 1)
    del b_t5
    b_t4 = runtime.getitem_grad(bb, _t4, 1)
    b_t4 = runtime.add_at(b_t4, _t4, 0, bW)
    del _t4
    bparams = runtime.getitem_grad(b_t4, params, -1)
    del b_t4
    b_t0 = runtime.zeros_like(_t0)
    for _i0 in reversed(range(len(_t0))):
        softplus_saved = _stack_softplus_saved.pop()
        _t2 = _stack_t2.pop()
        b = _stack_b.pop()
        W = _stack_W.pop()
        _t1 = _stack_t1.pop()
        b_t3, = bwd_softplus_s1(binputs, softplus_saved)
        inputs = _stack_inputs.pop()
        b_t2 = runtime.unbroadcast(b_t3, _t2)
        bb = runtime.unbroadcast(b_t3, b)
        binputs = runtime.matmul_grad(b_t2, inputs, W, 0)
        bW = runtime.matmul_grad(b_t2, inputs, W, 1)
        b_t1 = runtime.getitem_grad(bb, _t1, 1)
        b_t1 = runtime.add_at(b_t1, _t1, 0, bW)
        b_t0 = runtime.add_at(b_t0, _t0, _i0, b_t1)
    del (W, _stack_W, _stack_b, _stack_inputs, _stack_softplus_saved, _stack_t1, _stack_t2, _t0, b,
        bW, bb, binputs, inputs)
    bparams = runtime.add_at(bparams, params, np.s_[:-1], b_t0)
    del b_t0, params
    return bparams,


def fwd_softplus(x):
    _t0 = np.logaddexp(0.0, x)
    return _t0, [_t0, x]
