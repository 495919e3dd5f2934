# Emitted by srcdiff from tests/programs/mlp.py (function loss, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
# Specialised for the example's arguments: [(float64[4, 6], float64[6]), (float64[6, 5], float64[5]), (float64[5, 3], float64[3])], float64[8, 4], float64[8, 3]
"""Gradient of generated_examples.mlp.loss with respect to params.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dloss(params, inputs, targets):
    log_probs, predict_saved = fwd_predict_s1(params, inputs)
    _t0 = log_probs * targets
    _t1 = np.sum(_t0, axis=1)
    _t2 = np.mean(_t1)
    _t3 = -_t2
    b_t3 = runtime.grad_seed(_t3)
    b_t2 = -b_t3
    b_t1 = runtime.mean_grad(b_t2, _t1)
    b_t0 = runtime.unreduce(b_t1, _t0, axis=1)
    blog_probs = runtime.unbroadcast(b_t0 * targets, log_probs)
    bparams, = bwd_predict_s1(blog_probs, predict_saved)
    return runtime.as_grad(bparams, params)


def fwd_predict_s1(params, inputs):
    _stack_t0 = []
    _stack_W = []
    _stack_b = []
    _stack_t1 = []
    _stack_outputs = []
    _stack_inputs = []
    outputs = None
    for _i0 in range(len(params)):
        _t0 = params[_i0]
        _stack_t0.append(runtime.shape_of(_t0))
        runtime.check_unpack(_t0, 2)
        W = _t0[0]
        _stack_W.append(W)
        b = _t0[1]
        _stack_b.append(runtime.shape_of(b))
        _t1 = inputs @ W
        _stack_t1.append(runtime.shape_of(_t1))
        _stack_outputs.append(runtime.shape_of(outputs))
        outputs = _t1 + b
        _stack_inputs.append(inputs)
        inputs = np.tanh(outputs)
    _t2 = np.exp(outputs)
    _t3 = np.sum(_t2, axis=1, keepdims=True)
    _t4 = np.log(_t3)
    _t5 = outputs - _t4
    return _t5, [_stack_W, _stack_b, _stack_inputs, _stack_outputs, _stack_t0, _stack_t1, _t2, _t3,
        runtime.shape_of(_t4), inputs, runtime.shape_of(outputs), params]


def bwd_predict_s1(b_t5, saved):
    (_stack_W, _stack_b, _stack_inputs, _stack_outputs, _stack_t0, _stack_t1, _t2, _t3, _t4,
        inputs, outputs, params) = saved
    saved.clear()
    boutputs = runtime.unbroadcast(b_t5, outputs)
    b_t4 = runtime.unbroadcast(-b_t5, _t4)
    del _t4
    b_t3 = b_t4 / _t3
    del _t3, b_t4
    b_t2 = runtime.unreduce(b_t3, _t2, axis=1, keepdims=True)
    del b_t3
    boutputs = boutputs + b_t2 * _t2
    del _t2, b_t2
    binputs = runtime.zeros_like(inputs)
    bparams = runtime.zeros_like(params)
    for _i0 in reversed(range(len(params))):
        _t1 = _stack_t1.pop()
        b = _stack_b.pop()
        W = _stack_W.pop()
        _t0 = _stack_t0.pop()
        boutputs = boutputs + binputs * (1 - inputs * inputs)
        inputs = _stack_inputs.pop()
        b_t1 = runtime.unbroadcast(boutputs, _t1)
        bb = runtime.unbroadcast(boutputs, b)
        outputs = _stack_outputs.pop()
        binputs = runtime.matmul_grad(b_t1, inputs, W, 0)
        bW = runtime.matmul_grad(b_t1, inputs, W, 1)
        b_t0 = runtime.getitem_grad(bb, _t0, 1)
        b_t0 = runtime.add_at(b_t0, _t0, 0, bW)
        bparams = runtime.add_at(bparams, params, _i0, b_t0)
        boutputs = runtime.zeros_like(outputs)
    del (_stack_W, _stack_b, _stack_inputs, _stack_outputs, _stack_t0, _stack_t1, binputs,
        boutputs, inputs, outputs, params)
    return bparams,
