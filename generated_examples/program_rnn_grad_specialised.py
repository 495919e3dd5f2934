# Emitted by srcdiff from tests/programs/rnn.py (function loss, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
# Specialised for the example's arguments: {init hiddens: float64[1, 4], change: float64[10, 4], predict: float64[5, 5]}, float64[6, 3, 5], float64[6, 3, 5]
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
    logprobs, rnn_predict_saved = fwd_rnn_predict_s1(params, inputs)
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
    bparams, = bwd_rnn_predict_s1(blogprobs, rnn_predict_saved)
    return runtime.as_grad(bparams, params)


def fwd_logsumexp_s1(x, axis=None, keepdims=False):
    biggest = np.max(x, axis=axis, keepdims=True)
    _t0 = x - biggest
    _t1 = np.exp(_t0)
    _t2 = np.sum(_t1, axis=axis, keepdims=True)
    _t3 = np.log(_t2)
    result = _t3 + biggest
    return result, [_t1, _t2, _t3, axis, biggest, x]


def fwd_rnn_predict_s1(params, inputs):
    _stack_concat_and_multiply_weights = []
    _stack_concat_and_multiply_args0 = []
    _stack_concat_and_multiply_args1 = []
    _stack_t3 = []
    _stack_concat_and_multiply_cat_state = []
    _stack_update_rnn_result = []
    _stack_concat_and_multiply_args0_2 = []
    _stack_t4 = []
    _stack_concat_and_multiply_cat_state_2 = []
    _stack_hiddens_to_output_probs_output_1 = []
    _stack_t5 = []
    _stack_logsumexp_saved_1 = []
    num_sequences = inputs.shape[1]
    _t0 = params['init hiddens']
    hiddens = np.repeat(_t0, num_sequences, axis=0)
    concat_and_multiply_weights_1 = params['predict']
    concat_and_multiply_args0_1 = hiddens
    _t1 = np.ones(((concat_and_multiply_args0_1,)[0].shape[0], 1))
    concat_and_multiply_cat_state_1 = np.hstack((concat_and_multiply_args0_1, _t1))
    concat_and_multiply_result_1 = np.dot(concat_and_multiply_cat_state_1,
        concat_and_multiply_weights_1)
    _t2, logsumexp_saved = fwd_logsumexp_s1(concat_and_multiply_result_1, axis=1, keepdims=True)
    hiddens_to_output_probs_result = concat_and_multiply_result_1 - _t2
    output = [hiddens_to_output_probs_result]
    _seq0 = list(inputs)
    for input in _seq0:
        concat_and_multiply_weights = params['change']
        _stack_concat_and_multiply_weights.append(concat_and_multiply_weights)
        _stack_concat_and_multiply_args0.append(input)
        _stack_concat_and_multiply_args1.append(hiddens)
        _t3 = np.ones(((input, hiddens)[0].shape[0], 1))
        _stack_t3.append(_t3)
        concat_and_multiply_cat_state = np.hstack((input, hiddens, _t3))
        _stack_concat_and_multiply_cat_state.append(concat_and_multiply_cat_state)
        concat_and_multiply_result = np.dot(concat_and_multiply_cat_state,
            concat_and_multiply_weights)
        update_rnn_result = np.tanh(concat_and_multiply_result)
        _stack_update_rnn_result.append(update_rnn_result)
        hiddens = update_rnn_result
        _stack_concat_and_multiply_args0_2.append(hiddens)
        _t4 = np.ones(((hiddens,)[0].shape[0], 1))
        _stack_t4.append(_t4)
        concat_and_multiply_cat_state_2 = np.hstack((hiddens, _t4))
        _stack_concat_and_multiply_cat_state_2.append(concat_and_multiply_cat_state_2)
        concat_and_multiply_result_2 = np.dot(concat_and_multiply_cat_state_2,
            concat_and_multiply_weights_1)
        _stack_hiddens_to_output_probs_output_1.append(concat_and_multiply_result_2)
        _t5, logsumexp_saved_1 = fwd_logsumexp_s1(concat_and_multiply_result_2, axis=1,
            keepdims=True)
        _stack_t5.append(_t5)
        _stack_logsumexp_saved_1.append(logsumexp_saved_1)
        hiddens_to_output_probs_result_1 = concat_and_multiply_result_2 - _t5
        output.append(hiddens_to_output_probs_result_1)
    return output, [_seq0, _stack_concat_and_multiply_args0, _stack_concat_and_multiply_args0_2,
        _stack_concat_and_multiply_args1, _stack_concat_and_multiply_cat_state,
        _stack_concat_and_multiply_cat_state_2, _stack_concat_and_multiply_weights,
        _stack_hiddens_to_output_probs_output_1, _stack_logsumexp_saved_1, _stack_t3, _stack_t4,
        _stack_t5, _stack_update_rnn_result, _t0, _t1, _t2, concat_and_multiply_args0_1,
        concat_and_multiply_cat_state_1, concat_and_multiply_weights_1, hiddens,
        concat_and_multiply_result_1, hiddens_to_output_probs_result, logsumexp_saved,
        num_sequences, output]


def bwd_logsumexp_s1(b_t4, saved):
    _t1, _t2, _t3, axis, biggest, x = saved
    saved.clear()
    b_t3 = runtime.unbroadcast(b_t4, _t3)
    del _t3
    bbiggest = runtime.unbroadcast(b_t4, biggest)
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


def bwd_rnn_predict_s1(boutput, saved):
    (_seq0, _stack_concat_and_multiply_args0, _stack_concat_and_multiply_args0_2,
        _stack_concat_and_multiply_args1, _stack_concat_and_multiply_cat_state,
        _stack_concat_and_multiply_cat_state_2, _stack_concat_and_multiply_weights,
        _stack_hiddens_to_output_probs_output_1, _stack_logsumexp_saved_1, _stack_t3, _stack_t4,
        _stack_t5, _stack_update_rnn_result, _t0, _t1, _t2, concat_and_multiply_args0_1,
        concat_and_multiply_cat_state_1, concat_and_multiply_weights_1, hiddens,
        concat_and_multiply_result_1, hiddens_to_output_probs_result, logsumexp_saved,
        num_sequences, output) = saved
    saved.clear()
    boutput = runtime.add_items([], boutput, output)
    del output
    bconcat_and_multiply_weights_1 = np.zeros_like(concat_and_multiply_weights_1)
    bhiddens = np.zeros_like(hiddens)
    del hiddens
    bchange = 0.0
    for input in reversed(_seq0):
        logsumexp_saved_1 = _stack_logsumexp_saved_1.pop()
        _t5 = _stack_t5.pop()
        hiddens_to_output_probs_output_1 = _stack_hiddens_to_output_probs_output_1.pop()
        concat_and_multiply_cat_state_2 = _stack_concat_and_multiply_cat_state_2.pop()
        _t4 = _stack_t4.pop()
        concat_and_multiply_args0_2 = _stack_concat_and_multiply_args0_2.pop()
        update_rnn_result = _stack_update_rnn_result.pop()
        concat_and_multiply_cat_state = _stack_concat_and_multiply_cat_state.pop()
        _t3 = _stack_t3.pop()
        concat_and_multiply_args1 = _stack_concat_and_multiply_args1.pop()
        concat_and_multiply_args0 = _stack_concat_and_multiply_args0.pop()
        concat_and_multiply_weights = _stack_concat_and_multiply_weights.pop()
        bhiddens_to_output_probs_result_1 = boutput.pop()
        bhiddens_to_output_probs_output_1 = runtime.unbroadcast(bhiddens_to_output_probs_result_1,
            hiddens_to_output_probs_output_1)
        b_t5 = runtime.unbroadcast(-bhiddens_to_output_probs_result_1, _t5)
        logsumexp_grads_1 = bwd_logsumexp_s1(b_t5, logsumexp_saved_1)
        bhiddens_to_output_probs_output_1 = (bhiddens_to_output_probs_output_1
            + logsumexp_grads_1[0])
        bconcat_and_multiply_cat_state_2 = runtime.dot_grad(bhiddens_to_output_probs_output_1,
            concat_and_multiply_cat_state_2, concat_and_multiply_weights_1, 0)
        bconcat_and_multiply_weights_1 += runtime.dot_grad(bhiddens_to_output_probs_output_1,
            concat_and_multiply_cat_state_2, concat_and_multiply_weights_1, 1)
        bconcat_and_multiply_args0_2 = runtime.unstacked(bconcat_and_multiply_cat_state_2,
            (concat_and_multiply_args0_2, _t4), 0, 'hstack')
        bhiddens = bhiddens + bconcat_and_multiply_args0_2
        bconcat_and_multiply_result = bhiddens * (1 - update_rnn_result * update_rnn_result)
        bconcat_and_multiply_cat_state = runtime.dot_grad(bconcat_and_multiply_result,
            concat_and_multiply_cat_state, concat_and_multiply_weights, 0)
        bconcat_and_multiply_weights = runtime.dot_grad(bconcat_and_multiply_result,
            concat_and_multiply_cat_state, concat_and_multiply_weights, 1)
        bconcat_and_multiply_args1 = runtime.unstacked(bconcat_and_multiply_cat_state,
            (concat_and_multiply_args0, concat_and_multiply_args1, _t3), 1, 'hstack')
        bchange += bconcat_and_multiply_weights
        bhiddens = bconcat_and_multiply_args1
    del (_seq0, _stack_concat_and_multiply_args0, _stack_concat_and_multiply_args0_2,
        _stack_concat_and_multiply_args1, _stack_concat_and_multiply_cat_state,
        _stack_concat_and_multiply_cat_state_2, _stack_concat_and_multiply_weights,
        _stack_hiddens_to_output_probs_output_1, _stack_logsumexp_saved_1, _stack_t3, _stack_t4,
        _stack_t5, _stack_update_rnn_result)
    bhiddens_to_output_probs_result = runtime.unpack_adjoint(boutput,
        [hiddens_to_output_probs_result])[0]
    del hiddens_to_output_probs_result
    bhiddens_to_output_probs_output = runtime.unbroadcast(bhiddens_to_output_probs_result,
        concat_and_multiply_result_1)
    del concat_and_multiply_result_1
    b_t2 = runtime.unbroadcast(-bhiddens_to_output_probs_result, _t2)
    del _t2, bhiddens_to_output_probs_result
    logsumexp_grads = bwd_logsumexp_s1(b_t2, logsumexp_saved)
    del b_t2, logsumexp_saved
    bhiddens_to_output_probs_output = bhiddens_to_output_probs_output + logsumexp_grads[0]
    del logsumexp_grads
    bconcat_and_multiply_cat_state_1 = runtime.dot_grad(bhiddens_to_output_probs_output,
        concat_and_multiply_cat_state_1, concat_and_multiply_weights_1, 0)
    bconcat_and_multiply_weights_1 += runtime.dot_grad(bhiddens_to_output_probs_output,
        concat_and_multiply_cat_state_1, concat_and_multiply_weights_1, 1)
    del (bhiddens_to_output_probs_output, concat_and_multiply_cat_state_1,
        concat_and_multiply_weights_1)
    bconcat_and_multiply_args0_1 = runtime.unstacked(bconcat_and_multiply_cat_state_1,
        (concat_and_multiply_args0_1, _t1), 0, 'hstack')
    del _t1, bconcat_and_multiply_cat_state_1, concat_and_multiply_args0_1
    bhiddens = bhiddens + bconcat_and_multiply_args0_1
    del bconcat_and_multiply_args0_1
    b_t0 = runtime.unrepeat(bhiddens, _t0, num_sequences, axis=0)
    del _t0, bhiddens, num_sequences
    bparams = runtime.Sparse({'init hiddens': b_t0, 'predict': bconcat_and_multiply_weights_1,
        'change': bchange})
    del b_t0, bchange, bconcat_and_multiply_weights_1
    return bparams,
