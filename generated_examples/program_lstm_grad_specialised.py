# Emitted by srcdiff from tests/programs/lstm.py (function loss, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
# Specialised for the example's arguments: {init cells: float64[1, 3], init hiddens: float64[1, 3], change: float64[8, 3], forget: float64[8, 3], ingate: float64[8, 3], outgate: float64[8, 3], predict: float64[4, 4]}, float64[5, 2, 4], float64[5, 2, 4]
"""Gradient of generated_examples.lstm.loss with respect to params.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dloss(params, inputs, targets):
    _stack_logprob0 = []
    _stack_target0 = []
    _stack_t0 = []
    logprobs, lstm_predict_saved = fwd_lstm_predict_s1(params, inputs)
    _items0 = []
    for _i0 in range(min(len(logprobs), len(targets))):
        _logprob0 = logprobs[_i0]
        _stack_logprob0.append(runtime.shape_of(_logprob0))
        _target0 = targets[_i0]
        _stack_target0.append(_target0)
        _t0 = _logprob0 * _target0
        _stack_t0.append(runtime.shape_of(_t0))
        _t1 = np.sum(_t0)
        _items0.append(_t1)
    loglik = sum(_items0)
    num_time_steps, num_examples, _ = inputs.shape
    _t2 = -loglik
    _t3 = num_time_steps * num_examples
    _t4 = _t2 / _t3
    b_t4 = runtime.grad_seed(_t4)
    b_t2 = runtime.unbroadcast(b_t4 / _t3, _t2)
    bloglik = -b_t2
    b_items0 = runtime.add_items([],
        [runtime.unbroadcast(bloglik, _items0[_k]) for _k in range(len(_items0))])
    blogprobs = runtime.zeros_like(logprobs)
    for _i0 in reversed(range(min(len(logprobs), len(targets)))):
        _t0 = _stack_t0.pop()
        _target0 = _stack_target0.pop()
        _logprob0 = _stack_logprob0.pop()
        b_t1 = b_items0.pop()
        b_t0 = runtime.unreduce(b_t1, _t0)
        b_logprob0 = runtime.unbroadcast(b_t0 * _target0, _logprob0)
        blogprobs = runtime.add_at(blogprobs, logprobs, _i0, b_logprob0)
    bparams, = bwd_lstm_predict_s1(blogprobs, lstm_predict_saved)
    return runtime.as_grad(bparams, params)


def fwd_logsumexp_s1(x, axis=None, keepdims=False):
    biggest = np.max(x, axis=axis, keepdims=True)
    _t0 = x - biggest
    _t1 = np.exp(_t0)
    _t2 = np.sum(_t1, axis=axis, keepdims=True)
    _t3 = np.log(_t2)
    result = _t3 + biggest
    return result, [_t1, _t2, _t3, axis, biggest, x]


def fwd_sigmoid_s1(x):
    _t0 = x / 2.0
    _t1 = np.tanh(_t0)
    _t2 = _t1 + 1.0
    _t3 = 0.5 * _t2
    return _t3, [_t1]


def fwd_lstm_predict_s1(params, inputs):
    _stack_update_lstm_hiddens = []
    _stack_update_lstm_cells = []
    _stack_concat_and_multiply_weights_1 = []
    _stack_concat_and_multiply_args0_1 = []
    _stack_concat_and_multiply_args1 = []
    _stack_t4 = []
    _stack_concat_and_multiply_cat_state_1 = []
    _stack_update_lstm_change = []
    _stack_concat_and_multiply_weights_2 = []
    _stack_concat_and_multiply_args0_2 = []
    _stack_concat_and_multiply_args1_1 = []
    _stack_t5 = []
    _stack_concat_and_multiply_cat_state_2 = []
    _stack_update_lstm_forget = []
    _stack_sigmoid_saved = []
    _stack_concat_and_multiply_weights_3 = []
    _stack_concat_and_multiply_args0_3 = []
    _stack_concat_and_multiply_args1_2 = []
    _stack_t6 = []
    _stack_concat_and_multiply_cat_state_3 = []
    _stack_update_lstm_ingate = []
    _stack_sigmoid_saved_1 = []
    _stack_concat_and_multiply_weights_4 = []
    _stack_concat_and_multiply_args0_4 = []
    _stack_concat_and_multiply_args1_3 = []
    _stack_t7 = []
    _stack_concat_and_multiply_cat_state_4 = []
    _stack_update_lstm_outgate = []
    _stack_sigmoid_saved_2 = []
    _stack_t8 = []
    _stack_t9 = []
    _stack_t10 = []
    _stack_update_lstm_result = []
    _stack_concat_and_multiply_args0_5 = []
    _stack_t11 = []
    _stack_concat_and_multiply_cat_state_5 = []
    _stack_hiddens_to_output_probs_output_1 = []
    _stack_t12 = []
    _stack_logsumexp_saved_1 = []
    num_sequences = inputs.shape[1]
    _t0 = params['init hiddens']
    hiddens = np.repeat(_t0, num_sequences, axis=0)
    _t1 = params['init cells']
    cells = np.repeat(_t1, num_sequences, axis=0)
    concat_and_multiply_weights = params['predict']
    concat_and_multiply_args0 = hiddens
    _t2 = np.ones(((concat_and_multiply_args0,)[0].shape[0], 1))
    concat_and_multiply_cat_state = np.hstack((concat_and_multiply_args0, _t2))
    concat_and_multiply_result = np.dot(concat_and_multiply_cat_state, concat_and_multiply_weights)
    _t3, logsumexp_saved = fwd_logsumexp_s1(concat_and_multiply_result, axis=1, keepdims=True)
    hiddens_to_output_probs_result = concat_and_multiply_result - _t3
    output = [hiddens_to_output_probs_result]
    _seq0 = list(inputs)
    update_lstm_cells = None
    update_lstm_hiddens = None
    for input in _seq0:
        _stack_update_lstm_hiddens.append(runtime.shape_of(update_lstm_hiddens))
        update_lstm_hiddens = hiddens
        _stack_update_lstm_cells.append(update_lstm_cells)
        update_lstm_cells = cells
        concat_and_multiply_weights_1 = params['change']
        _stack_concat_and_multiply_weights_1.append(concat_and_multiply_weights_1)
        _stack_concat_and_multiply_args0_1.append(input)
        _stack_concat_and_multiply_args1.append(update_lstm_hiddens)
        _t4 = np.ones(((input, update_lstm_hiddens)[0].shape[0], 1))
        _stack_t4.append(_t4)
        concat_and_multiply_cat_state_1 = np.hstack((input, update_lstm_hiddens, _t4))
        _stack_concat_and_multiply_cat_state_1.append(concat_and_multiply_cat_state_1)
        concat_and_multiply_result_1 = np.dot(concat_and_multiply_cat_state_1,
            concat_and_multiply_weights_1)
        update_lstm_change = np.tanh(concat_and_multiply_result_1)
        _stack_update_lstm_change.append(update_lstm_change)
        concat_and_multiply_weights_2 = params['forget']
        _stack_concat_and_multiply_weights_2.append(concat_and_multiply_weights_2)
        _stack_concat_and_multiply_args0_2.append(input)
        _stack_concat_and_multiply_args1_1.append(update_lstm_hiddens)
        _t5 = np.ones(((input, update_lstm_hiddens)[0].shape[0], 1))
        _stack_t5.append(_t5)
        concat_and_multiply_cat_state_2 = np.hstack((input, update_lstm_hiddens, _t5))
        _stack_concat_and_multiply_cat_state_2.append(concat_and_multiply_cat_state_2)
        concat_and_multiply_result_2 = np.dot(concat_and_multiply_cat_state_2,
            concat_and_multiply_weights_2)
        update_lstm_forget, sigmoid_saved = fwd_sigmoid_s1(concat_and_multiply_result_2)
        _stack_update_lstm_forget.append(update_lstm_forget)
        _stack_sigmoid_saved.append(sigmoid_saved)
        concat_and_multiply_weights_3 = params['ingate']
        _stack_concat_and_multiply_weights_3.append(concat_and_multiply_weights_3)
        _stack_concat_and_multiply_args0_3.append(input)
        _stack_concat_and_multiply_args1_2.append(update_lstm_hiddens)
        _t6 = np.ones(((input, update_lstm_hiddens)[0].shape[0], 1))
        _stack_t6.append(_t6)
        concat_and_multiply_cat_state_3 = np.hstack((input, update_lstm_hiddens, _t6))
        _stack_concat_and_multiply_cat_state_3.append(concat_and_multiply_cat_state_3)
        concat_and_multiply_result_3 = np.dot(concat_and_multiply_cat_state_3,
            concat_and_multiply_weights_3)
        update_lstm_ingate, sigmoid_saved_1 = fwd_sigmoid_s1(concat_and_multiply_result_3)
        _stack_update_lstm_ingate.append(update_lstm_ingate)
        _stack_sigmoid_saved_1.append(sigmoid_saved_1)
        concat_and_multiply_weights_4 = params['outgate']
        _stack_concat_and_multiply_weights_4.append(concat_and_multiply_weights_4)
        _stack_concat_and_multiply_args0_4.append(input)
        _stack_concat_and_multiply_args1_3.append(update_lstm_hiddens)
        _t7 = np.ones(((input, update_lstm_hiddens)[0].shape[0], 1))
        _stack_t7.append(_t7)
        concat_and_multiply_cat_state_4 = np.hstack((input, update_lstm_hiddens, _t7))
        _stack_concat_and_multiply_cat_state_4.append(concat_and_multiply_cat_state_4)
        concat_and_multiply_result_4 = np.dot(concat_and_multiply_cat_state_4,
            concat_and_multiply_weights_4)
        update_lstm_outgate, sigmoid_saved_2 = fwd_sigmoid_s1(concat_and_multiply_result_4)
        _stack_update_lstm_outgate.append(update_lstm_outgate)
        _stack_sigmoid_saved_2.append(sigmoid_saved_2)
        _t8 = update_lstm_cells * update_lstm_forget
        _stack_t8.append(_t8)
        _t9 = update_lstm_ingate * update_lstm_change
        _stack_t9.append(_t9)
        _stack_update_lstm_cells.append(update_lstm_cells)
        update_lstm_cells = _t8 + _t9
        _t10 = np.tanh(update_lstm_cells)
        _stack_t10.append(_t10)
        _stack_update_lstm_hiddens.append(update_lstm_hiddens)
        update_lstm_hiddens = update_lstm_outgate * _t10
        update_lstm_result = update_lstm_hiddens, update_lstm_cells
        _stack_update_lstm_result.append(runtime.shape_of(update_lstm_result))
        hiddens = update_lstm_result[0]
        cells = update_lstm_result[1]
        _stack_concat_and_multiply_args0_5.append(hiddens)
        _t11 = np.ones(((hiddens,)[0].shape[0], 1))
        _stack_t11.append(_t11)
        concat_and_multiply_cat_state_5 = np.hstack((hiddens, _t11))
        _stack_concat_and_multiply_cat_state_5.append(concat_and_multiply_cat_state_5)
        concat_and_multiply_result_5 = np.dot(concat_and_multiply_cat_state_5,
            concat_and_multiply_weights)
        _stack_hiddens_to_output_probs_output_1.append(concat_and_multiply_result_5)
        _t12, logsumexp_saved_1 = fwd_logsumexp_s1(concat_and_multiply_result_5, axis=1,
            keepdims=True)
        _stack_t12.append(_t12)
        _stack_logsumexp_saved_1.append(logsumexp_saved_1)
        hiddens_to_output_probs_result_1 = concat_and_multiply_result_5 - _t12
        output.append(hiddens_to_output_probs_result_1)
    return output, [_seq0, _stack_concat_and_multiply_args0_1, _stack_concat_and_multiply_args0_2,
        _stack_concat_and_multiply_args0_3, _stack_concat_and_multiply_args0_4,
        _stack_concat_and_multiply_args0_5, _stack_concat_and_multiply_args1,
        _stack_concat_and_multiply_args1_1, _stack_concat_and_multiply_args1_2,
        _stack_concat_and_multiply_args1_3, _stack_concat_and_multiply_cat_state_1,
        _stack_concat_and_multiply_cat_state_2, _stack_concat_and_multiply_cat_state_3,
        _stack_concat_and_multiply_cat_state_4, _stack_concat_and_multiply_cat_state_5,
        _stack_concat_and_multiply_weights_1, _stack_concat_and_multiply_weights_2,
        _stack_concat_and_multiply_weights_3, _stack_concat_and_multiply_weights_4,
        _stack_hiddens_to_output_probs_output_1, _stack_logsumexp_saved_1, _stack_sigmoid_saved,
        _stack_sigmoid_saved_1, _stack_sigmoid_saved_2, _stack_t10, _stack_t11, _stack_t12,
        _stack_t4, _stack_t5, _stack_t6, _stack_t7, _stack_t8, _stack_t9, _stack_update_lstm_cells,
        _stack_update_lstm_change, _stack_update_lstm_forget, _stack_update_lstm_hiddens,
        _stack_update_lstm_ingate, _stack_update_lstm_outgate, _stack_update_lstm_result, _t0, _t1,
        _t2, _t3, cells, concat_and_multiply_args0, concat_and_multiply_cat_state,
        concat_and_multiply_weights, hiddens, concat_and_multiply_result,
        hiddens_to_output_probs_result, logsumexp_saved, num_sequences, output,
        runtime.shape_of(update_lstm_cells), runtime.shape_of(update_lstm_hiddens)]


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


def bwd_sigmoid_s1(b_t3, saved):
    _t1, = saved
    saved.clear()
    b_t2 = b_t3 * 0.5
    b_t0 = b_t2 * (1 - _t1 * _t1)
    del _t1, b_t2
    bx = b_t0 / 2.0
    del b_t0
    return bx,


def bwd_lstm_predict_s1(boutput, saved):
    (_seq0, _stack_concat_and_multiply_args0_1, _stack_concat_and_multiply_args0_2,
        _stack_concat_and_multiply_args0_3, _stack_concat_and_multiply_args0_4,
        _stack_concat_and_multiply_args0_5, _stack_concat_and_multiply_args1,
        _stack_concat_and_multiply_args1_1, _stack_concat_and_multiply_args1_2,
        _stack_concat_and_multiply_args1_3, _stack_concat_and_multiply_cat_state_1,
        _stack_concat_and_multiply_cat_state_2, _stack_concat_and_multiply_cat_state_3,
        _stack_concat_and_multiply_cat_state_4, _stack_concat_and_multiply_cat_state_5,
        _stack_concat_and_multiply_weights_1, _stack_concat_and_multiply_weights_2,
        _stack_concat_and_multiply_weights_3, _stack_concat_and_multiply_weights_4,
        _stack_hiddens_to_output_probs_output_1, _stack_logsumexp_saved_1, _stack_sigmoid_saved,
        _stack_sigmoid_saved_1, _stack_sigmoid_saved_2, _stack_t10, _stack_t11, _stack_t12,
        _stack_t4, _stack_t5, _stack_t6, _stack_t7, _stack_t8, _stack_t9, _stack_update_lstm_cells,
        _stack_update_lstm_change, _stack_update_lstm_forget, _stack_update_lstm_hiddens,
        _stack_update_lstm_ingate, _stack_update_lstm_outgate, _stack_update_lstm_result, _t0, _t1,
        _t2, _t3, cells, concat_and_multiply_args0, concat_and_multiply_cat_state,
        concat_and_multiply_weights, hiddens, concat_and_multiply_result,
        hiddens_to_output_probs_result, logsumexp_saved, num_sequences, output, update_lstm_cells,
        update_lstm_hiddens) = saved
    saved.clear()
    boutput = runtime.add_items([], boutput, output)
    del output
    bcells = np.zeros_like(cells)
    del cells
    bconcat_and_multiply_weights = np.zeros_like(concat_and_multiply_weights)
    bhiddens = np.zeros_like(hiddens)
    del hiddens
    boutgate = 0.0
    bingate = 0.0
    bforget = 0.0
    bchange = 0.0
    for input in reversed(_seq0):
        logsumexp_saved_1 = _stack_logsumexp_saved_1.pop()
        _t12 = _stack_t12.pop()
        hiddens_to_output_probs_output_1 = _stack_hiddens_to_output_probs_output_1.pop()
        concat_and_multiply_cat_state_5 = _stack_concat_and_multiply_cat_state_5.pop()
        _t11 = _stack_t11.pop()
        concat_and_multiply_args0_5 = _stack_concat_and_multiply_args0_5.pop()
        update_lstm_result = _stack_update_lstm_result.pop()
        _t10 = _stack_t10.pop()
        _t9 = _stack_t9.pop()
        _t8 = _stack_t8.pop()
        sigmoid_saved_2 = _stack_sigmoid_saved_2.pop()
        update_lstm_outgate = _stack_update_lstm_outgate.pop()
        concat_and_multiply_cat_state_4 = _stack_concat_and_multiply_cat_state_4.pop()
        _t7 = _stack_t7.pop()
        concat_and_multiply_args1_3 = _stack_concat_and_multiply_args1_3.pop()
        concat_and_multiply_args0_4 = _stack_concat_and_multiply_args0_4.pop()
        concat_and_multiply_weights_4 = _stack_concat_and_multiply_weights_4.pop()
        sigmoid_saved_1 = _stack_sigmoid_saved_1.pop()
        update_lstm_ingate = _stack_update_lstm_ingate.pop()
        concat_and_multiply_cat_state_3 = _stack_concat_and_multiply_cat_state_3.pop()
        _t6 = _stack_t6.pop()
        concat_and_multiply_args1_2 = _stack_concat_and_multiply_args1_2.pop()
        concat_and_multiply_args0_3 = _stack_concat_and_multiply_args0_3.pop()
        concat_and_multiply_weights_3 = _stack_concat_and_multiply_weights_3.pop()
        sigmoid_saved = _stack_sigmoid_saved.pop()
        update_lstm_forget = _stack_update_lstm_forget.pop()
        concat_and_multiply_cat_state_2 = _stack_concat_and_multiply_cat_state_2.pop()
        _t5 = _stack_t5.pop()
        concat_and_multiply_args1_1 = _stack_concat_and_multiply_args1_1.pop()
        concat_and_multiply_args0_2 = _stack_concat_and_multiply_args0_2.pop()
        concat_and_multiply_weights_2 = _stack_concat_and_multiply_weights_2.pop()
        update_lstm_change = _stack_update_lstm_change.pop()
        concat_and_multiply_cat_state_1 = _stack_concat_and_multiply_cat_state_1.pop()
        _t4 = _stack_t4.pop()
        concat_and_multiply_args1 = _stack_concat_and_multiply_args1.pop()
        concat_and_multiply_args0_1 = _stack_concat_and_multiply_args0_1.pop()
        concat_and_multiply_weights_1 = _stack_concat_and_multiply_weights_1.pop()
        bhiddens_to_output_probs_result_1 = boutput.pop()
        bhiddens_to_output_probs_output_1 = runtime.unbroadcast(bhiddens_to_output_probs_result_1,
            hiddens_to_output_probs_output_1)
        b_t12 = runtime.unbroadcast(-bhiddens_to_output_probs_result_1, _t12)
        logsumexp_grads_1 = bwd_logsumexp_s1(b_t12, logsumexp_saved_1)
        bhiddens_to_output_probs_output_1 = (bhiddens_to_output_probs_output_1
            + logsumexp_grads_1[0])
        bconcat_and_multiply_cat_state_5 = runtime.dot_grad(bhiddens_to_output_probs_output_1,
            concat_and_multiply_cat_state_5, concat_and_multiply_weights, 0)
        bconcat_and_multiply_weights += runtime.dot_grad(bhiddens_to_output_probs_output_1,
            concat_and_multiply_cat_state_5, concat_and_multiply_weights, 1)
        bconcat_and_multiply_args0_5 = runtime.unstacked(bconcat_and_multiply_cat_state_5,
            (concat_and_multiply_args0_5, _t11), 0, 'hstack')
        bhiddens = bhiddens + bconcat_and_multiply_args0_5
        bupdate_lstm_result = runtime.getitem_grad(bcells, update_lstm_result, 1)
        bupdate_lstm_result = runtime.add_at(bupdate_lstm_result, update_lstm_result, 0, bhiddens)
        bupdate_lstm_cells = runtime.unpack_adjoint(bupdate_lstm_result,
            (update_lstm_hiddens, update_lstm_cells))[1]
        bupdate_lstm_hiddens = runtime.unpack_adjoint(bupdate_lstm_result,
            (update_lstm_hiddens, update_lstm_cells))[0]
        bupdate_lstm_outgate = runtime.unbroadcast(bupdate_lstm_hiddens * _t10,
            update_lstm_outgate)
        b_t10 = runtime.unbroadcast(bupdate_lstm_hiddens * update_lstm_outgate, _t10)
        update_lstm_hiddens = _stack_update_lstm_hiddens.pop()
        bupdate_lstm_cells = bupdate_lstm_cells + b_t10 * (1 - _t10 * _t10)
        b_t8 = runtime.unbroadcast(bupdate_lstm_cells, _t8)
        b_t9 = runtime.unbroadcast(bupdate_lstm_cells, _t9)
        update_lstm_cells = _stack_update_lstm_cells.pop()
        bupdate_lstm_ingate = runtime.unbroadcast(b_t9 * update_lstm_change, update_lstm_ingate)
        bupdate_lstm_change = runtime.unbroadcast(b_t9 * update_lstm_ingate, update_lstm_change)
        bupdate_lstm_cells = runtime.unbroadcast(b_t8 * update_lstm_forget, update_lstm_cells)
        bupdate_lstm_forget = runtime.unbroadcast(b_t8 * update_lstm_cells, update_lstm_forget)
        bconcat_and_multiply_result_4, = bwd_sigmoid_s1(bupdate_lstm_outgate, sigmoid_saved_2)
        bconcat_and_multiply_cat_state_4 = runtime.dot_grad(bconcat_and_multiply_result_4,
            concat_and_multiply_cat_state_4, concat_and_multiply_weights_4, 0)
        bconcat_and_multiply_weights_4 = runtime.dot_grad(bconcat_and_multiply_result_4,
            concat_and_multiply_cat_state_4, concat_and_multiply_weights_4, 1)
        bconcat_and_multiply_args1_3 = runtime.unstacked(bconcat_and_multiply_cat_state_4,
            (concat_and_multiply_args0_4, concat_and_multiply_args1_3, _t7), 1, 'hstack')
        boutgate += bconcat_and_multiply_weights_4
        bconcat_and_multiply_result_3, = bwd_sigmoid_s1(bupdate_lstm_ingate, sigmoid_saved_1)
        bconcat_and_multiply_cat_state_3 = runtime.dot_grad(bconcat_and_multiply_result_3,
            concat_and_multiply_cat_state_3, concat_and_multiply_weights_3, 0)
        bconcat_and_multiply_weights_3 = runtime.dot_grad(bconcat_and_multiply_result_3,
            concat_and_multiply_cat_state_3, concat_and_multiply_weights_3, 1)
        bconcat_and_multiply_args1_2 = runtime.unstacked(bconcat_and_multiply_cat_state_3,
            (concat_and_multiply_args0_3, concat_and_multiply_args1_2, _t6), 1, 'hstack')
        bupdate_lstm_hiddens = bconcat_and_multiply_args1_3 + bconcat_and_multiply_args1_2
        bingate += bconcat_and_multiply_weights_3
        bconcat_and_multiply_result_2, = bwd_sigmoid_s1(bupdate_lstm_forget, sigmoid_saved)
        bconcat_and_multiply_cat_state_2 = runtime.dot_grad(bconcat_and_multiply_result_2,
            concat_and_multiply_cat_state_2, concat_and_multiply_weights_2, 0)
        bconcat_and_multiply_weights_2 = runtime.dot_grad(bconcat_and_multiply_result_2,
            concat_and_multiply_cat_state_2, concat_and_multiply_weights_2, 1)
        bconcat_and_multiply_args1_1 = runtime.unstacked(bconcat_and_multiply_cat_state_2,
            (concat_and_multiply_args0_2, concat_and_multiply_args1_1, _t5), 1, 'hstack')
        bupdate_lstm_hiddens += bconcat_and_multiply_args1_1
        bforget += bconcat_and_multiply_weights_2
        bconcat_and_multiply_result_1 = (bupdate_lstm_change
            * (1 - update_lstm_change * update_lstm_change))
        bconcat_and_multiply_cat_state_1 = runtime.dot_grad(bconcat_and_multiply_result_1,
            concat_and_multiply_cat_state_1, concat_and_multiply_weights_1, 0)
        bconcat_and_multiply_weights_1 = runtime.dot_grad(bconcat_and_multiply_result_1,
            concat_and_multiply_cat_state_1, concat_and_multiply_weights_1, 1)
        bconcat_and_multiply_args1 = runtime.unstacked(bconcat_and_multiply_cat_state_1,
            (concat_and_multiply_args0_1, concat_and_multiply_args1, _t4), 1, 'hstack')
        bupdate_lstm_hiddens += bconcat_and_multiply_args1
        bchange += bconcat_and_multiply_weights_1
        bcells = bupdate_lstm_cells
        update_lstm_cells = _stack_update_lstm_cells.pop()
        bhiddens = bupdate_lstm_hiddens
        update_lstm_hiddens = _stack_update_lstm_hiddens.pop()
    del (_seq0, _stack_concat_and_multiply_args0_1, _stack_concat_and_multiply_args0_2,
        _stack_concat_and_multiply_args0_3, _stack_concat_and_multiply_args0_4,
        _stack_concat_and_multiply_args0_5, _stack_concat_and_multiply_args1,
        _stack_concat_and_multiply_args1_1, _stack_concat_and_multiply_args1_2,
        _stack_concat_and_multiply_args1_3, _stack_concat_and_multiply_cat_state_1,
        _stack_concat_and_multiply_cat_state_2, _stack_concat_and_multiply_cat_state_3,
        _stack_concat_and_multiply_cat_state_4, _stack_concat_and_multiply_cat_state_5,
        _stack_concat_and_multiply_weights_1, _stack_concat_and_multiply_weights_2,
        _stack_concat_and_multiply_weights_3, _stack_concat_and_multiply_weights_4,
        _stack_hiddens_to_output_probs_output_1, _stack_logsumexp_saved_1, _stack_sigmoid_saved,
        _stack_sigmoid_saved_1, _stack_sigmoid_saved_2, _stack_t10, _stack_t11, _stack_t12,
        _stack_t4, _stack_t5, _stack_t6, _stack_t7, _stack_t8, _stack_t9, _stack_update_lstm_cells,
        _stack_update_lstm_change, _stack_update_lstm_forget, _stack_update_lstm_hiddens,
        _stack_update_lstm_ingate, _stack_update_lstm_outgate, _stack_update_lstm_result,
        update_lstm_cells, update_lstm_hiddens)
    bhiddens_to_output_probs_result = runtime.unpack_adjoint(boutput,
        [hiddens_to_output_probs_result])[0]
    del hiddens_to_output_probs_result
    bhiddens_to_output_probs_output = runtime.unbroadcast(bhiddens_to_output_probs_result,
        concat_and_multiply_result)
    del concat_and_multiply_result
    b_t3 = runtime.unbroadcast(-bhiddens_to_output_probs_result, _t3)
    del _t3, bhiddens_to_output_probs_result
    logsumexp_grads = bwd_logsumexp_s1(b_t3, logsumexp_saved)
    del b_t3, logsumexp_saved
    bhiddens_to_output_probs_output = bhiddens_to_output_probs_output + logsumexp_grads[0]
    del logsumexp_grads
    bconcat_and_multiply_cat_state = runtime.dot_grad(bhiddens_to_output_probs_output,
        concat_and_multiply_cat_state, concat_and_multiply_weights, 0)
    bconcat_and_multiply_weights += runtime.dot_grad(bhiddens_to_output_probs_output,
        concat_and_multiply_cat_state, concat_and_multiply_weights, 1)
    del bhiddens_to_output_probs_output, concat_and_multiply_cat_state, concat_and_multiply_weights
    bconcat_and_multiply_args0 = runtime.unstacked(bconcat_and_multiply_cat_state,
        (concat_and_multiply_args0, _t2), 0, 'hstack')
    del _t2, bconcat_and_multiply_cat_state, concat_and_multiply_args0
    bhiddens = bhiddens + bconcat_and_multiply_args0
    del bconcat_and_multiply_args0
    b_t1 = runtime.unrepeat(bcells, _t1, num_sequences, axis=0)
    del _t1, bcells
    b_t0 = runtime.unrepeat(bhiddens, _t0, num_sequences, axis=0)
    del _t0, bhiddens, num_sequences
    bparams = runtime.Sparse({'init hiddens': b_t0, 'init cells': b_t1,
        'predict': bconcat_and_multiply_weights, 'change': bchange, 'forget': bforget,
        'ingate': bingate, 'outgate': boutgate})
    del b_t0, b_t1, bchange, bconcat_and_multiply_weights, bforget, bingate, boutgate
    return bparams,
