# Emitted by srcdiff from tests/programs/flatten.py (function loss, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
"""Gradient of generated_examples.flatten.loss with respect to params.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dloss(params, inputs, targets, decay=0.01):
    _stack_t0 = []
    _stack_flatten_size = []
    _stack_t2 = []
    _stack_flatten_start = []
    flatten_keys = sorted(runtime.dict_keys(params))
    flatten_shapes = []
    _seq0 = list(flatten_keys)
    for _flatten_k0 in _seq0:
        flatten_shapes.append(np.shape(params[_flatten_k0]))
    _items0 = []
    _seq1 = list(flatten_keys)
    for _flatten_k1 in _seq1:
        _t0 = params[_flatten_k1]
        _stack_t0.append(runtime.shape_of(_t0))
        _t1 = np.ravel(_t0)
        _items0.append(_t1)
    flatten_flat = np.concatenate(_items0)
    _result0 = flatten_flat, None
    runtime.check_unpack(_result0, 2)
    flat = _result0[0]
    flatten_pieces = []
    flatten_start = 0
    _seq2 = list(flatten_shapes)
    for flatten_shape in _seq2:
        flatten_size = int(np.prod(flatten_shape))
        _stack_flatten_size.append(flatten_size)
        _t2 = flat[flatten_start:flatten_start + flatten_size]
        _stack_t2.append(runtime.shape_of(_t2))
        _t3 = np.reshape(_t2, flatten_shape)
        flatten_pieces.append(_t3)
        _stack_flatten_start.append(flatten_start)
        flatten_start = flatten_start + flatten_size
    unflatten_result = runtime.dict_of(flatten_keys, flatten_pieces)
    _t4, predict_saved = fwd_predict(unflatten_result, inputs)
    residuals = _t4 - targets
    _t5 = residuals ** 2
    _t6 = np.mean(_t5)
    _t7 = np.dot(flat, flat)
    _t8 = decay * _t7
    _t9 = _t6 + _t8
    b_t9 = runtime.grad_seed(_t9)
    b_t6 = runtime.unbroadcast(b_t9, _t6)
    b_t8 = runtime.unbroadcast(b_t9, _t8)
    b_t7 = runtime.unbroadcast(b_t8 * decay, _t7)
    bflat = runtime.dot_grad(b_t7, flat, flat, 0) + runtime.dot_grad(b_t7, flat, flat, 1)
    b_t5 = runtime.mean_grad(b_t6, _t5)
    bresiduals = b_t5 * 2 * residuals
    b_t4 = runtime.unbroadcast(bresiduals, _t4)
    bparams, = bwd_predict(b_t4, predict_saved)
    bflatten_pieces = runtime.add_items([],
        runtime.dict_values_adjoint(bparams, flatten_keys, flatten_pieces), flatten_pieces)
    bunflatten_vector = runtime.zeros_like(flat)
    for flatten_shape in reversed(_seq2):
        _t2 = _stack_t2.pop()
        flatten_size = _stack_flatten_size.pop()
        flatten_start = _stack_flatten_start.pop()
        b_t3 = bflatten_pieces.pop()
        b_t2 = np.reshape(b_t3, np.shape(_t2))
        bunflatten_vector = runtime.add_at(bunflatten_vector, flat,
            np.s_[flatten_start:flatten_start + flatten_size], b_t2)
    bflat += bunflatten_vector
    bflatten_result = runtime.getitem_grad(bflat, _result0, 0)
    bflatten_flat = runtime.unpack_adjoint(bflatten_result, (flatten_flat, None))[0]
    b_items0 = runtime.add_items([],
        [runtime.unconcatenate(bflatten_flat, _items0, _k) for _k in range(len(_items0))])
    bflatten_params = runtime.zeros_like(params)
    for _flatten_k1 in reversed(_seq1):
        _t0 = _stack_t0.pop()
        b_t1 = b_items0.pop()
        b_t0 = np.reshape(b_t1, np.shape(_t0))
        bflatten_params = runtime.add_at(bflatten_params, params, _flatten_k1, b_t0)
    return runtime.as_grad(bflatten_params, params)


def fwd_predict(params, inputs):
    _t0 = params['w_hidden']
    _t1 = inputs @ _t0
    _t2 = params['b_hidden']
    _t3 = _t1 + _t2
    hidden = np.tanh(_t3)
    _t4 = params['w_out']
    _t5 = hidden @ _t4
    _t6 = params['b_out']
    _t7 = _t5 + _t6
    return _t7, [_t0, runtime.shape_of(_t1), runtime.shape_of(_t2), _t4, runtime.shape_of(_t5),
        runtime.shape_of(_t6), hidden, inputs]


def bwd_predict(b_t7, saved):
    _t0, _t1, _t2, _t4, _t5, _t6, hidden, inputs = saved
    saved.clear()
    b_t5 = runtime.unbroadcast(b_t7, _t5)
    del _t5
    b_t6 = runtime.unbroadcast(b_t7, _t6)
    del _t6
    bhidden = runtime.matmul_grad(b_t5, hidden, _t4, 0)
    b_t4 = runtime.matmul_grad(b_t5, hidden, _t4, 1)
    del _t4, b_t5
    b_t3 = bhidden * (1 - hidden * hidden)
    del bhidden, hidden
    b_t1 = runtime.unbroadcast(b_t3, _t1)
    del _t1
    b_t2 = runtime.unbroadcast(b_t3, _t2)
    del _t2, b_t3
    b_t0 = runtime.matmul_grad(b_t1, inputs, _t0, 1)
    del _t0, b_t1, inputs
    bparams = runtime.Sparse({'w_hidden': b_t0, 'b_hidden': b_t2, 'w_out': b_t4, 'b_out': b_t6})
    del b_t0, b_t2, b_t4, b_t6
    return bparams,
