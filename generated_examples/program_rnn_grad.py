# Emitted by srcdiff from tests/programs/rnn.py (function loss, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
"""Gradient of generated_examples.rnn.loss with respect to params.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dloss(params, inputs, targets):
    _stack_t0 = []
    _stack_t1 = []
    _stack_t2 = []
    _stack_t3 = []
    _stack_loglik = []
    logprobs, _saved0 = fwd_rnn_predict_params(params, inputs)
    num_time_steps, num_examples, _ = inputs.shape
    loglik = 0.0
    for t in range(num_time_steps):
        _t0 = logprobs[t]
        _stack_t0.append(runtime.shape_of(_t0))
        _t1 = targets[t]
        _stack_t1.append(_t1)
        _t2 = _t0 * _t1
        _stack_t2.append(runtime.shape_of(_t2))
        _t3 = np.sum(_t2)
        _stack_t3.append(runtime.shape_of(_t3))
        _t4 = loglik + _t3
        _stack_loglik.append(runtime.shape_of(loglik))
        loglik = _t4
    _t5 = -loglik
    _t6 = num_time_steps * num_examples
    _t7 = _t5 / _t6
    b_t7 = runtime.grad_seed(_t7)
    b_t5 = runtime.unbroadcast(b_t7 / _t6, _t5)
    bloglik = -b_t5
    blogprobs = runtime.zeros_like(logprobs)
    for t in reversed(range(num_time_steps)):
        _t3 = _stack_t3.pop()
        _t2 = _stack_t2.pop()
        _t1 = _stack_t1.pop()
        _t0 = _stack_t0.pop()
        b_t4 = bloglik
        loglik = _stack_loglik.pop()
        bloglik = runtime.unbroadcast(b_t4, loglik)
        b_t3 = runtime.unbroadcast(b_t4, _t3)
        b_t2 = runtime.unreduce(b_t3, _t2)
        b_t0 = runtime.unbroadcast(b_t2 * _t1, _t0)
        blogprobs = runtime.add_at(blogprobs, logprobs, t, b_t0)
    bparams, = bwd_rnn_predict_params(blogprobs, _saved0)
    return runtime.as_grad(bparams, params)


def fwd_rnn_predict_params(params, inputs):
    _saved1 = None
    _t3 = None
    _t4 = None
    _t5 = None
    hiddens_to_output_probs_concat_and_multiply1_args01 = None
    hiddens_to_output_probs_concat_and_multiply1_cat_state01 = None
    hiddens_to_output_probs_concat_and_multiply1_weights01 = None
    hiddens_to_output_probs_output1 = None
    update_rnn_concat_and_multiply0_args00 = None
    update_rnn_concat_and_multiply0_args10 = None
    update_rnn_concat_and_multiply0_cat_state00 = None
    update_rnn_concat_and_multiply0_weights00 = None
    update_rnn_result0 = None
    _stack_update_rnn_concat_and_multiply0_weights00 = []
    _stack_update_rnn_concat_and_multiply0_args00 = []
    _stack_update_rnn_concat_and_multiply0_args10 = []
    _stack_t3 = []
    _stack_update_rnn_concat_and_multiply0_cat_state00 = []
    _stack_update_rnn_result0 = []
    _stack_hiddens = []
    _stack_hiddens_to_output_probs_concat_and_multiply1_weights01 = []
    _stack_hiddens_to_output_probs_concat_and_multiply1_args01 = []
    _stack_t4 = []
    _stack_hiddens_to_output_probs_concat_and_multiply1_cat_state01 = []
    _stack_hiddens_to_output_probs_output1 = []
    _stack_t5 = []
    _stack_saved1 = []
    num_sequences = inputs.shape[1]
    _t0 = params['init hiddens']
    hiddens = np.repeat(_t0, num_sequences, axis=0)
    hiddens_to_output_probs_concat_and_multiply1_weights00 = params['predict']
    hiddens_to_output_probs_concat_and_multiply1_args00 = hiddens
    _t1 = np.ones(((hiddens_to_output_probs_concat_and_multiply1_args00,)[0].shape[0], 1))
    hiddens_to_output_probs_concat_and_multiply1_cat_state00 = np.hstack(
        (hiddens_to_output_probs_concat_and_multiply1_args00, _t1))
    hiddens_to_output_probs_concat_and_multiply1_result00 = np.dot(
        hiddens_to_output_probs_concat_and_multiply1_cat_state00,
        hiddens_to_output_probs_concat_and_multiply1_weights00)
    _t2, _saved0 = fwd_logsumexp_x(hiddens_to_output_probs_concat_and_multiply1_result00, axis=1,
        keepdims=True)
    hiddens_to_output_probs_result0 = hiddens_to_output_probs_concat_and_multiply1_result00 - _t2
    output = [hiddens_to_output_probs_result0]
    _seq0 = list(inputs)
    for input in _seq0:
        update_rnn_concat_and_multiply0_weights00 = params['change']
        _stack_update_rnn_concat_and_multiply0_weights00.append(
            update_rnn_concat_and_multiply0_weights00)
        update_rnn_concat_and_multiply0_args00 = input
        _stack_update_rnn_concat_and_multiply0_args00.append(
            update_rnn_concat_and_multiply0_args00)
        update_rnn_concat_and_multiply0_args10 = hiddens
        _stack_update_rnn_concat_and_multiply0_args10.append(
            update_rnn_concat_and_multiply0_args10)
        _t3 = np.ones(((update_rnn_concat_and_multiply0_args00,
            update_rnn_concat_and_multiply0_args10)[0].shape[0], 1))
        _stack_t3.append(_t3)
        update_rnn_concat_and_multiply0_cat_state00 = np.hstack(
            (update_rnn_concat_and_multiply0_args00, update_rnn_concat_and_multiply0_args10, _t3))
        _stack_update_rnn_concat_and_multiply0_cat_state00.append(
            update_rnn_concat_and_multiply0_cat_state00)
        update_rnn_concat_and_multiply0_result00 = np.dot(
            update_rnn_concat_and_multiply0_cat_state00, update_rnn_concat_and_multiply0_weights00)
        update_rnn_result0 = np.tanh(update_rnn_concat_and_multiply0_result00)
        _stack_update_rnn_result0.append(update_rnn_result0)
        _stack_hiddens.append(runtime.shape_of(hiddens))
        hiddens = update_rnn_result0
        hiddens_to_output_probs_concat_and_multiply1_weights01 = params['predict']
        _stack_hiddens_to_output_probs_concat_and_multiply1_weights01.append(
            hiddens_to_output_probs_concat_and_multiply1_weights01)
        hiddens_to_output_probs_concat_and_multiply1_args01 = hiddens
        _stack_hiddens_to_output_probs_concat_and_multiply1_args01.append(
            hiddens_to_output_probs_concat_and_multiply1_args01)
        _t4 = np.ones(((hiddens_to_output_probs_concat_and_multiply1_args01,)[0].shape[0], 1))
        _stack_t4.append(_t4)
        hiddens_to_output_probs_concat_and_multiply1_cat_state01 = np.hstack(
            (hiddens_to_output_probs_concat_and_multiply1_args01, _t4))
        _stack_hiddens_to_output_probs_concat_and_multiply1_cat_state01.append(
            hiddens_to_output_probs_concat_and_multiply1_cat_state01)
        hiddens_to_output_probs_concat_and_multiply1_result01 = np.dot(
            hiddens_to_output_probs_concat_and_multiply1_cat_state01,
            hiddens_to_output_probs_concat_and_multiply1_weights01)
        hiddens_to_output_probs_output1 = hiddens_to_output_probs_concat_and_multiply1_result01
        _stack_hiddens_to_output_probs_output1.append(
            runtime.shape_of(hiddens_to_output_probs_output1))
        _t5, _saved1 = fwd_logsumexp_x(hiddens_to_output_probs_output1, axis=1, keepdims=True)
        _stack_t5.append(runtime.shape_of(_t5))
        _stack_saved1.append(_saved1)
        hiddens_to_output_probs_result1 = hiddens_to_output_probs_output1 - _t5
        output.append(hiddens_to_output_probs_result1)
    return output, [_saved0, _saved1, _seq0, _stack_hiddens,
        _stack_hiddens_to_output_probs_concat_and_multiply1_args01,
        _stack_hiddens_to_output_probs_concat_and_multiply1_cat_state01,
        _stack_hiddens_to_output_probs_concat_and_multiply1_weights01,
        _stack_hiddens_to_output_probs_output1, _stack_saved1, _stack_t3, _stack_t4, _stack_t5,
        _stack_update_rnn_concat_and_multiply0_args00,
        _stack_update_rnn_concat_and_multiply0_args10,
        _stack_update_rnn_concat_and_multiply0_cat_state00,
        _stack_update_rnn_concat_and_multiply0_weights00, _stack_update_rnn_result0,
        runtime.shape_of(_t0), _t1, runtime.shape_of(_t2), _t3, _t4, _t5,
        runtime.shape_of(hiddens), hiddens_to_output_probs_concat_and_multiply1_args00,
        hiddens_to_output_probs_concat_and_multiply1_args01,
        hiddens_to_output_probs_concat_and_multiply1_cat_state00,
        hiddens_to_output_probs_concat_and_multiply1_cat_state01,
        hiddens_to_output_probs_concat_and_multiply1_weights00,
        hiddens_to_output_probs_concat_and_multiply1_weights01,
        runtime.shape_of(hiddens_to_output_probs_concat_and_multiply1_result00),
        hiddens_to_output_probs_output1, runtime.shape_of(hiddens_to_output_probs_result0),
        num_sequences, output, runtime.shape_of(params), update_rnn_concat_and_multiply0_args00,
        update_rnn_concat_and_multiply0_args10, update_rnn_concat_and_multiply0_cat_state00,
        update_rnn_concat_and_multiply0_weights00, update_rnn_result0]


def bwd_rnn_predict_params(boutput, saved):
    (_saved0, _saved1, _seq0, _stack_hiddens,
        _stack_hiddens_to_output_probs_concat_and_multiply1_args01,
        _stack_hiddens_to_output_probs_concat_and_multiply1_cat_state01,
        _stack_hiddens_to_output_probs_concat_and_multiply1_weights01,
        _stack_hiddens_to_output_probs_output1, _stack_saved1, _stack_t3, _stack_t4, _stack_t5,
        _stack_update_rnn_concat_and_multiply0_args00,
        _stack_update_rnn_concat_and_multiply0_args10,
        _stack_update_rnn_concat_and_multiply0_cat_state00,
        _stack_update_rnn_concat_and_multiply0_weights00, _stack_update_rnn_result0, _t0, _t1, _t2,
        _t3, _t4, _t5, hiddens, hiddens_to_output_probs_concat_and_multiply1_args00,
        hiddens_to_output_probs_concat_and_multiply1_args01,
        hiddens_to_output_probs_concat_and_multiply1_cat_state00,
        hiddens_to_output_probs_concat_and_multiply1_cat_state01,
        hiddens_to_output_probs_concat_and_multiply1_weights00,
        hiddens_to_output_probs_concat_and_multiply1_weights01, hiddens_to_output_probs_output0,
        hiddens_to_output_probs_output1, hiddens_to_output_probs_result0, num_sequences, output,
        params, update_rnn_concat_and_multiply0_args00, update_rnn_concat_and_multiply0_args10,
        update_rnn_concat_and_multiply0_cat_state00, update_rnn_concat_and_multiply0_weights00,
        update_rnn_result0) = saved
    saved.clear()
    boutput = runtime.add_items([], boutput, output)
    del output
    bhiddens = runtime.zeros_like(hiddens)
    bparams = runtime.zeros_like(params)
    for input in reversed(_seq0):
        _saved1 = _stack_saved1.pop()
        _t5 = _stack_t5.pop()
        hiddens_to_output_probs_output1 = _stack_hiddens_to_output_probs_output1.pop()
        hiddens_to_output_probs_concat_and_multiply1_cat_state01 = _stack_hiddens_to_output_probs_concat_and_multiply1_cat_state01.pop()
        _t4 = _stack_t4.pop()
        hiddens_to_output_probs_concat_and_multiply1_args01 = _stack_hiddens_to_output_probs_concat_and_multiply1_args01.pop()
        hiddens_to_output_probs_concat_and_multiply1_weights01 = _stack_hiddens_to_output_probs_concat_and_multiply1_weights01.pop()
        update_rnn_result0 = _stack_update_rnn_result0.pop()
        update_rnn_concat_and_multiply0_cat_state00 = _stack_update_rnn_concat_and_multiply0_cat_state00.pop()
        _t3 = _stack_t3.pop()
        update_rnn_concat_and_multiply0_args10 = _stack_update_rnn_concat_and_multiply0_args10.pop()
        update_rnn_concat_and_multiply0_args00 = _stack_update_rnn_concat_and_multiply0_args00.pop()
        update_rnn_concat_and_multiply0_weights00 = _stack_update_rnn_concat_and_multiply0_weights00.pop()
        bhiddens_to_output_probs_result1 = boutput.pop()
        bhiddens_to_output_probs_output1 = runtime.unbroadcast(bhiddens_to_output_probs_result1,
            hiddens_to_output_probs_output1)
        b_t5 = runtime.unbroadcast(-bhiddens_to_output_probs_result1, _t5)
        b_saved1 = bwd_logsumexp_x(b_t5, _saved1)
        bhiddens_to_output_probs_output1 = bhiddens_to_output_probs_output1 + b_saved1[0]
        bhiddens_to_output_probs_concat_and_multiply1_cat_state01 = runtime.dot_grad(
            bhiddens_to_output_probs_output1,
            hiddens_to_output_probs_concat_and_multiply1_cat_state01,
            hiddens_to_output_probs_concat_and_multiply1_weights01, 0)
        bhiddens_to_output_probs_concat_and_multiply1_weights01 = runtime.dot_grad(
            bhiddens_to_output_probs_output1,
            hiddens_to_output_probs_concat_and_multiply1_cat_state01,
            hiddens_to_output_probs_concat_and_multiply1_weights01, 1)
        bhiddens_to_output_probs_concat_and_multiply1_args01 = runtime.unstacked(
            bhiddens_to_output_probs_concat_and_multiply1_cat_state01,
            (hiddens_to_output_probs_concat_and_multiply1_args01, _t4), 0, 'hstack')
        bparams = runtime.add_at(bparams, params, 'predict',
            bhiddens_to_output_probs_concat_and_multiply1_weights01)
        bhiddens = bhiddens + bhiddens_to_output_probs_concat_and_multiply1_args01
        hiddens = _stack_hiddens.pop()
        bupdate_rnn_concat_and_multiply0_result00 = bhiddens * (1 - update_rnn_result0
            * update_rnn_result0)
        bupdate_rnn_concat_and_multiply0_cat_state00 = runtime.dot_grad(
            bupdate_rnn_concat_and_multiply0_result00, update_rnn_concat_and_multiply0_cat_state00,
            update_rnn_concat_and_multiply0_weights00, 0)
        bupdate_rnn_concat_and_multiply0_weights00 = runtime.dot_grad(
            bupdate_rnn_concat_and_multiply0_result00, update_rnn_concat_and_multiply0_cat_state00,
            update_rnn_concat_and_multiply0_weights00, 1)
        bupdate_rnn_concat_and_multiply0_args10 = runtime.unstacked(
            bupdate_rnn_concat_and_multiply0_cat_state00, (update_rnn_concat_and_multiply0_args00,
            update_rnn_concat_and_multiply0_args10, _t3), 1, 'hstack')
        bparams = runtime.add_at(bparams, params, 'change',
            bupdate_rnn_concat_and_multiply0_weights00)
        bhiddens = bupdate_rnn_concat_and_multiply0_args10
    del (_saved1, _seq0, _stack_hiddens,
        _stack_hiddens_to_output_probs_concat_and_multiply1_args01,
        _stack_hiddens_to_output_probs_concat_and_multiply1_cat_state01,
        _stack_hiddens_to_output_probs_concat_and_multiply1_weights01,
        _stack_hiddens_to_output_probs_output1, _stack_saved1, _stack_t3, _stack_t4, _stack_t5,
        _stack_update_rnn_concat_and_multiply0_args00,
        _stack_update_rnn_concat_and_multiply0_args10,
        _stack_update_rnn_concat_and_multiply0_cat_state00,
        _stack_update_rnn_concat_and_multiply0_weights00, _stack_update_rnn_result0, _t3, _t4, _t5,
        hiddens, hiddens_to_output_probs_concat_and_multiply1_args01,
        hiddens_to_output_probs_concat_and_multiply1_cat_state01,
        hiddens_to_output_probs_concat_and_multiply1_weights01, hiddens_to_output_probs_output1,
        update_rnn_concat_and_multiply0_args00, update_rnn_concat_and_multiply0_args10,
        update_rnn_concat_and_multiply0_cat_state00, update_rnn_concat_and_multiply0_weights00,
        update_rnn_result0)
    bhiddens_to_output_probs_result0 = runtime.unpack_adjoint(boutput,
        [hiddens_to_output_probs_result0])[0]
    del hiddens_to_output_probs_result0
    bhiddens_to_output_probs_output0 = runtime.unbroadcast(bhiddens_to_output_probs_result0,
        hiddens_to_output_probs_output0)
    del hiddens_to_output_probs_output0
    b_t2 = runtime.unbroadcast(-bhiddens_to_output_probs_result0, _t2)
    del _t2, bhiddens_to_output_probs_result0
    b_saved0 = bwd_logsumexp_x(b_t2, _saved0)
    del _saved0, b_t2
    bhiddens_to_output_probs_output0 = bhiddens_to_output_probs_output0 + b_saved0[0]
    del b_saved0
    bhiddens_to_output_probs_concat_and_multiply1_cat_state00 = runtime.dot_grad(
        bhiddens_to_output_probs_output0, hiddens_to_output_probs_concat_and_multiply1_cat_state00,
        hiddens_to_output_probs_concat_and_multiply1_weights00, 0)
    bhiddens_to_output_probs_concat_and_multiply1_weights00 = runtime.dot_grad(
        bhiddens_to_output_probs_output0, hiddens_to_output_probs_concat_and_multiply1_cat_state00,
        hiddens_to_output_probs_concat_and_multiply1_weights00, 1)
    del (bhiddens_to_output_probs_output0,
        hiddens_to_output_probs_concat_and_multiply1_cat_state00,
        hiddens_to_output_probs_concat_and_multiply1_weights00)
    bhiddens_to_output_probs_concat_and_multiply1_args00 = runtime.unstacked(
        bhiddens_to_output_probs_concat_and_multiply1_cat_state00,
        (hiddens_to_output_probs_concat_and_multiply1_args00, _t1), 0, 'hstack')
    del (_t1, bhiddens_to_output_probs_concat_and_multiply1_cat_state00,
        hiddens_to_output_probs_concat_and_multiply1_args00)
    bparams = runtime.add_at(bparams, params, 'predict',
        bhiddens_to_output_probs_concat_and_multiply1_weights00)
    del bhiddens_to_output_probs_concat_and_multiply1_weights00
    bhiddens = bhiddens + bhiddens_to_output_probs_concat_and_multiply1_args00
    del bhiddens_to_output_probs_concat_and_multiply1_args00
    b_t0 = runtime.unrepeat(bhiddens, _t0, num_sequences, axis=0)
    del _t0, bhiddens, num_sequences
    bparams = runtime.add_at(bparams, params, 'init hiddens', b_t0)
    del b_t0, params
    return bparams,


def fwd_logsumexp_x(x, axis=None, keepdims=False):
    biggest = np.max(x, axis=axis, keepdims=True)
    _t0 = x - biggest
    _t1 = np.exp(_t0)
    _t2 = np.sum(_t1, axis=axis, keepdims=True)
    _t3 = np.log(_t2)
    result = _t3 + biggest
    if keepdims:
        _t4 = result
    else:
        _t5 = np.squeeze(result, axis=axis)
        _t4 = _t5
    return _t4, [keepdims, _t1, _t2, runtime.shape_of(_t3), axis, biggest,
        runtime.shape_of(result), x]


def bwd_logsumexp_x(b_t4, saved):
    _cond0, _t1, _t2, _t3, axis, biggest, result, x = saved
    saved.clear()
    if _cond0:
        bresult = b_t4
    else:
        bresult = np.reshape(b_t4, np.shape(result))
    del _cond0, result
    b_t3 = runtime.unbroadcast(bresult, _t3)
    del _t3
    bbiggest = runtime.unbroadcast(bresult, biggest)
    b_t2 = b_t3 / _t2
    del _t2, b_t3
    b_t1 = runtime.unreduce(b_t2, _t1, axis=axis, keepdims=True)
    del b_t2
    b_t0 = b_t1 * _t1
    del _t1, b_t1
    bx = runtime.unbroadcast(b_t0, x)
    bbiggest = bbiggest + runtime.unbroadcast(-b_t0, biggest)
    del b_t0
    bx = bx + runtime.extremum_grad(bbiggest, biggest, x, axis=axis, keepdims=True)
    del axis, bbiggest, biggest, x
    return bx,
