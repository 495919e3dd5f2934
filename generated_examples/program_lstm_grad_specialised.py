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
    b_items0 = runtime.add_items([], [runtime.unbroadcast(bloglik,
        _items0[_k]) for _k in range(len(_items0))])
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


def fwd_sigmoid_s1(x):
    _t0 = x / 2.0
    _t1 = np.tanh(_t0)
    _t2 = _t1 + 1.0
    _t3 = 0.5 * _t2
    return _t3, [_t1]


def fwd_lstm_predict_s1(params, inputs):
    _t10 = None
    _t11 = None
    _t12 = None
    _t4 = None
    _t5 = None
    _t6 = None
    _t7 = None
    _t8 = None
    _t9 = None
    concat_and_multiply_args1 = None
    concat_and_multiply_args2 = None
    concat_and_multiply_args3 = None
    concat_and_multiply_args4 = None
    concat_and_multiply_args5 = None
    concat_and_multiply_args6 = None
    concat_and_multiply_args7 = None
    concat_and_multiply_args8 = None
    concat_and_multiply_args9 = None
    concat_and_multiply_cat_state1 = None
    concat_and_multiply_cat_state2 = None
    concat_and_multiply_cat_state3 = None
    concat_and_multiply_cat_state4 = None
    concat_and_multiply_cat_state5 = None
    concat_and_multiply_weights1 = None
    concat_and_multiply_weights2 = None
    concat_and_multiply_weights3 = None
    concat_and_multiply_weights4 = None
    concat_and_multiply_weights5 = None
    hiddens_to_output_probs_output1 = None
    logsumexp_saved_1 = None
    sigmoid_saved = None
    sigmoid_saved_1 = None
    sigmoid_saved_2 = None
    update_lstm_change0 = None
    update_lstm_forget0 = None
    update_lstm_ingate0 = None
    update_lstm_outgate0 = None
    update_lstm_result0 = None
    _stack_update_lstm_hiddens0 = []
    _stack_update_lstm_cells0 = []
    _stack_concat_and_multiply_weights1 = []
    _stack_concat_and_multiply_args1 = []
    _stack_concat_and_multiply_args2 = []
    _stack_t4 = []
    _stack_concat_and_multiply_cat_state1 = []
    _stack_update_lstm_change0 = []
    _stack_concat_and_multiply_weights2 = []
    _stack_concat_and_multiply_args3 = []
    _stack_concat_and_multiply_args4 = []
    _stack_t5 = []
    _stack_concat_and_multiply_cat_state2 = []
    _stack_update_lstm_forget0 = []
    _stack_sigmoid_saved = []
    _stack_concat_and_multiply_weights3 = []
    _stack_concat_and_multiply_args5 = []
    _stack_concat_and_multiply_args6 = []
    _stack_t6 = []
    _stack_concat_and_multiply_cat_state3 = []
    _stack_update_lstm_ingate0 = []
    _stack_sigmoid_saved_1 = []
    _stack_concat_and_multiply_weights4 = []
    _stack_concat_and_multiply_args7 = []
    _stack_concat_and_multiply_args8 = []
    _stack_t7 = []
    _stack_concat_and_multiply_cat_state4 = []
    _stack_update_lstm_outgate0 = []
    _stack_sigmoid_saved_2 = []
    _stack_t8 = []
    _stack_t9 = []
    _stack_t10 = []
    _stack_update_lstm_result0 = []
    _stack_hiddens = []
    _stack_cells = []
    _stack_concat_and_multiply_weights5 = []
    _stack_concat_and_multiply_args9 = []
    _stack_t11 = []
    _stack_concat_and_multiply_cat_state5 = []
    _stack_hiddens_to_output_probs_output1 = []
    _stack_t12 = []
    _stack_logsumexp_saved_1 = []
    num_sequences = inputs.shape[1]
    _t0 = params['init hiddens']
    hiddens = np.repeat(_t0, num_sequences, axis=0)
    _t1 = params['init cells']
    cells = np.repeat(_t1, num_sequences, axis=0)
    concat_and_multiply_weights0 = params['predict']
    concat_and_multiply_args0 = hiddens
    _t2 = np.ones(((concat_and_multiply_args0,)[0].shape[0], 1))
    concat_and_multiply_cat_state0 = np.hstack((concat_and_multiply_args0, _t2))
    concat_and_multiply_result0 = np.dot(concat_and_multiply_cat_state0,
        concat_and_multiply_weights0)
    _t3, logsumexp_saved = fwd_logsumexp(concat_and_multiply_result0, axis=1, keepdims=True)
    hiddens_to_output_probs_result0 = concat_and_multiply_result0 - _t3
    output = [hiddens_to_output_probs_result0]
    _seq0 = list(inputs)
    update_lstm_cells0 = None
    update_lstm_hiddens0 = None
    for input in _seq0:
        _stack_update_lstm_hiddens0.append(runtime.shape_of(update_lstm_hiddens0))
        update_lstm_hiddens0 = hiddens
        _stack_update_lstm_cells0.append(update_lstm_cells0)
        update_lstm_cells0 = cells
        concat_and_multiply_weights1 = params['change']
        _stack_concat_and_multiply_weights1.append(concat_and_multiply_weights1)
        concat_and_multiply_args1 = input
        _stack_concat_and_multiply_args1.append(concat_and_multiply_args1)
        concat_and_multiply_args2 = update_lstm_hiddens0
        _stack_concat_and_multiply_args2.append(concat_and_multiply_args2)
        _t4 = np.ones(((concat_and_multiply_args1, concat_and_multiply_args2)[0].shape[0], 1))
        _stack_t4.append(_t4)
        concat_and_multiply_cat_state1 = np.hstack((concat_and_multiply_args1,
            concat_and_multiply_args2, _t4))
        _stack_concat_and_multiply_cat_state1.append(concat_and_multiply_cat_state1)
        concat_and_multiply_result1 = np.dot(concat_and_multiply_cat_state1,
            concat_and_multiply_weights1)
        update_lstm_change0 = np.tanh(concat_and_multiply_result1)
        _stack_update_lstm_change0.append(update_lstm_change0)
        concat_and_multiply_weights2 = params['forget']
        _stack_concat_and_multiply_weights2.append(concat_and_multiply_weights2)
        concat_and_multiply_args3 = input
        _stack_concat_and_multiply_args3.append(concat_and_multiply_args3)
        concat_and_multiply_args4 = update_lstm_hiddens0
        _stack_concat_and_multiply_args4.append(concat_and_multiply_args4)
        _t5 = np.ones(((concat_and_multiply_args3, concat_and_multiply_args4)[0].shape[0], 1))
        _stack_t5.append(_t5)
        concat_and_multiply_cat_state2 = np.hstack((concat_and_multiply_args3,
            concat_and_multiply_args4, _t5))
        _stack_concat_and_multiply_cat_state2.append(concat_and_multiply_cat_state2)
        concat_and_multiply_result2 = np.dot(concat_and_multiply_cat_state2,
            concat_and_multiply_weights2)
        update_lstm_forget0, sigmoid_saved = fwd_sigmoid_s1(concat_and_multiply_result2)
        _stack_update_lstm_forget0.append(update_lstm_forget0)
        _stack_sigmoid_saved.append(sigmoid_saved)
        concat_and_multiply_weights3 = params['ingate']
        _stack_concat_and_multiply_weights3.append(concat_and_multiply_weights3)
        concat_and_multiply_args5 = input
        _stack_concat_and_multiply_args5.append(concat_and_multiply_args5)
        concat_and_multiply_args6 = update_lstm_hiddens0
        _stack_concat_and_multiply_args6.append(concat_and_multiply_args6)
        _t6 = np.ones(((concat_and_multiply_args5, concat_and_multiply_args6)[0].shape[0], 1))
        _stack_t6.append(_t6)
        concat_and_multiply_cat_state3 = np.hstack((concat_and_multiply_args5,
            concat_and_multiply_args6, _t6))
        _stack_concat_and_multiply_cat_state3.append(concat_and_multiply_cat_state3)
        concat_and_multiply_result3 = np.dot(concat_and_multiply_cat_state3,
            concat_and_multiply_weights3)
        update_lstm_ingate0, sigmoid_saved_1 = fwd_sigmoid_s1(concat_and_multiply_result3)
        _stack_update_lstm_ingate0.append(update_lstm_ingate0)
        _stack_sigmoid_saved_1.append(sigmoid_saved_1)
        concat_and_multiply_weights4 = params['outgate']
        _stack_concat_and_multiply_weights4.append(concat_and_multiply_weights4)
        concat_and_multiply_args7 = input
        _stack_concat_and_multiply_args7.append(concat_and_multiply_args7)
        concat_and_multiply_args8 = update_lstm_hiddens0
        _stack_concat_and_multiply_args8.append(concat_and_multiply_args8)
        _t7 = np.ones(((concat_and_multiply_args7, concat_and_multiply_args8)[0].shape[0], 1))
        _stack_t7.append(_t7)
        concat_and_multiply_cat_state4 = np.hstack((concat_and_multiply_args7,
            concat_and_multiply_args8, _t7))
        _stack_concat_and_multiply_cat_state4.append(concat_and_multiply_cat_state4)
        concat_and_multiply_result4 = np.dot(concat_and_multiply_cat_state4,
            concat_and_multiply_weights4)
        update_lstm_outgate0, sigmoid_saved_2 = fwd_sigmoid_s1(concat_and_multiply_result4)
        _stack_update_lstm_outgate0.append(update_lstm_outgate0)
        _stack_sigmoid_saved_2.append(sigmoid_saved_2)
        _t8 = update_lstm_cells0 * update_lstm_forget0
        _stack_t8.append(_t8)
        _t9 = update_lstm_ingate0 * update_lstm_change0
        _stack_t9.append(_t9)
        _stack_update_lstm_cells0.append(update_lstm_cells0)
        update_lstm_cells0 = _t8 + _t9
        _t10 = np.tanh(update_lstm_cells0)
        _stack_t10.append(_t10)
        _stack_update_lstm_hiddens0.append(update_lstm_hiddens0)
        update_lstm_hiddens0 = update_lstm_outgate0 * _t10
        update_lstm_result0 = update_lstm_hiddens0, update_lstm_cells0
        _stack_update_lstm_result0.append(runtime.shape_of(update_lstm_result0))
        runtime.check_unpack(update_lstm_result0, 2)
        _stack_hiddens.append(hiddens)
        hiddens = update_lstm_result0[0]
        _stack_cells.append(cells)
        cells = update_lstm_result0[1]
        concat_and_multiply_weights5 = params['predict']
        _stack_concat_and_multiply_weights5.append(concat_and_multiply_weights5)
        concat_and_multiply_args9 = hiddens
        _stack_concat_and_multiply_args9.append(concat_and_multiply_args9)
        _t11 = np.ones(((concat_and_multiply_args9,)[0].shape[0], 1))
        _stack_t11.append(_t11)
        concat_and_multiply_cat_state5 = np.hstack((concat_and_multiply_args9, _t11))
        _stack_concat_and_multiply_cat_state5.append(concat_and_multiply_cat_state5)
        concat_and_multiply_result5 = np.dot(concat_and_multiply_cat_state5,
            concat_and_multiply_weights5)
        hiddens_to_output_probs_output1 = concat_and_multiply_result5
        _stack_hiddens_to_output_probs_output1.append(hiddens_to_output_probs_output1)
        _t12, logsumexp_saved_1 = fwd_logsumexp(hiddens_to_output_probs_output1, axis=1,
            keepdims=True)
        _stack_t12.append(runtime.shape_of(_t12))
        _stack_logsumexp_saved_1.append(logsumexp_saved_1)
        hiddens_to_output_probs_result1 = hiddens_to_output_probs_output1 - _t12
        output.append(hiddens_to_output_probs_result1)
    return output, [_seq0, _stack_cells, _stack_concat_and_multiply_args1,
        _stack_concat_and_multiply_args2, _stack_concat_and_multiply_args3,
        _stack_concat_and_multiply_args4, _stack_concat_and_multiply_args5,
        _stack_concat_and_multiply_args6, _stack_concat_and_multiply_args7,
        _stack_concat_and_multiply_args8, _stack_concat_and_multiply_args9,
        _stack_concat_and_multiply_cat_state1, _stack_concat_and_multiply_cat_state2,
        _stack_concat_and_multiply_cat_state3, _stack_concat_and_multiply_cat_state4,
        _stack_concat_and_multiply_cat_state5, _stack_concat_and_multiply_weights1,
        _stack_concat_and_multiply_weights2, _stack_concat_and_multiply_weights3,
        _stack_concat_and_multiply_weights4, _stack_concat_and_multiply_weights5, _stack_hiddens,
        _stack_hiddens_to_output_probs_output1, _stack_logsumexp_saved_1, _stack_sigmoid_saved,
        _stack_sigmoid_saved_1, _stack_sigmoid_saved_2, _stack_t10, _stack_t11, _stack_t12,
        _stack_t4, _stack_t5, _stack_t6, _stack_t7, _stack_t8, _stack_t9,
        _stack_update_lstm_cells0, _stack_update_lstm_change0, _stack_update_lstm_forget0,
        _stack_update_lstm_hiddens0, _stack_update_lstm_ingate0, _stack_update_lstm_outgate0,
        _stack_update_lstm_result0, _t0, _t1, _t10, _t11, _t12, _t2, runtime.shape_of(_t3), _t4,
        _t5, _t6, _t7, _t8, _t9, cells, concat_and_multiply_args0, concat_and_multiply_args1,
        concat_and_multiply_args2, concat_and_multiply_args3, concat_and_multiply_args4,
        concat_and_multiply_args5, concat_and_multiply_args6, concat_and_multiply_args7,
        concat_and_multiply_args8, concat_and_multiply_args9, concat_and_multiply_cat_state0,
        concat_and_multiply_cat_state1, concat_and_multiply_cat_state2,
        concat_and_multiply_cat_state3, concat_and_multiply_cat_state4,
        concat_and_multiply_cat_state5, concat_and_multiply_weights0, concat_and_multiply_weights1,
        concat_and_multiply_weights2, concat_and_multiply_weights3, concat_and_multiply_weights4,
        concat_and_multiply_weights5, hiddens, concat_and_multiply_result0,
        hiddens_to_output_probs_output1, runtime.shape_of(hiddens_to_output_probs_result0),
        logsumexp_saved, logsumexp_saved_1, num_sequences, output, runtime.shape_of(params),
        sigmoid_saved, sigmoid_saved_1, sigmoid_saved_2, runtime.shape_of(update_lstm_cells0),
        update_lstm_change0, update_lstm_forget0, runtime.shape_of(update_lstm_hiddens0),
        update_lstm_ingate0, update_lstm_outgate0, update_lstm_result0]


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
    (_seq0, _stack_cells, _stack_concat_and_multiply_args1, _stack_concat_and_multiply_args2,
        _stack_concat_and_multiply_args3, _stack_concat_and_multiply_args4,
        _stack_concat_and_multiply_args5, _stack_concat_and_multiply_args6,
        _stack_concat_and_multiply_args7, _stack_concat_and_multiply_args8,
        _stack_concat_and_multiply_args9, _stack_concat_and_multiply_cat_state1,
        _stack_concat_and_multiply_cat_state2, _stack_concat_and_multiply_cat_state3,
        _stack_concat_and_multiply_cat_state4, _stack_concat_and_multiply_cat_state5,
        _stack_concat_and_multiply_weights1, _stack_concat_and_multiply_weights2,
        _stack_concat_and_multiply_weights3, _stack_concat_and_multiply_weights4,
        _stack_concat_and_multiply_weights5, _stack_hiddens,
        _stack_hiddens_to_output_probs_output1, _stack_logsumexp_saved_1, _stack_sigmoid_saved,
        _stack_sigmoid_saved_1, _stack_sigmoid_saved_2, _stack_t10, _stack_t11, _stack_t12,
        _stack_t4, _stack_t5, _stack_t6, _stack_t7, _stack_t8, _stack_t9,
        _stack_update_lstm_cells0, _stack_update_lstm_change0, _stack_update_lstm_forget0,
        _stack_update_lstm_hiddens0, _stack_update_lstm_ingate0, _stack_update_lstm_outgate0,
        _stack_update_lstm_result0, _t0, _t1, _t10, _t11, _t12, _t2, _t3, _t4, _t5, _t6, _t7, _t8,
        _t9, cells, concat_and_multiply_args0, concat_and_multiply_args1,
        concat_and_multiply_args2, concat_and_multiply_args3, concat_and_multiply_args4,
        concat_and_multiply_args5, concat_and_multiply_args6, concat_and_multiply_args7,
        concat_and_multiply_args8, concat_and_multiply_args9, concat_and_multiply_cat_state0,
        concat_and_multiply_cat_state1, concat_and_multiply_cat_state2,
        concat_and_multiply_cat_state3, concat_and_multiply_cat_state4,
        concat_and_multiply_cat_state5, concat_and_multiply_weights0, concat_and_multiply_weights1,
        concat_and_multiply_weights2, concat_and_multiply_weights3, concat_and_multiply_weights4,
        concat_and_multiply_weights5, hiddens, concat_and_multiply_result0,
        hiddens_to_output_probs_output1, hiddens_to_output_probs_result0, logsumexp_saved,
        logsumexp_saved_1, num_sequences, output, params, sigmoid_saved, sigmoid_saved_1,
        sigmoid_saved_2, update_lstm_cells0, update_lstm_change0, update_lstm_forget0,
        update_lstm_hiddens0, update_lstm_ingate0, update_lstm_outgate0,
        update_lstm_result0) = saved
    saved.clear()
    boutput = runtime.add_items([], boutput, output)
    del output
    bcells = np.zeros_like(cells)
    bhiddens = np.zeros_like(hiddens)
    bparams = runtime.zeros_like(params)
    for input in reversed(_seq0):
        logsumexp_saved_1 = _stack_logsumexp_saved_1.pop()
        _t12 = _stack_t12.pop()
        hiddens_to_output_probs_output1 = _stack_hiddens_to_output_probs_output1.pop()
        concat_and_multiply_cat_state5 = _stack_concat_and_multiply_cat_state5.pop()
        _t11 = _stack_t11.pop()
        concat_and_multiply_args9 = _stack_concat_and_multiply_args9.pop()
        concat_and_multiply_weights5 = _stack_concat_and_multiply_weights5.pop()
        update_lstm_result0 = _stack_update_lstm_result0.pop()
        _t10 = _stack_t10.pop()
        _t9 = _stack_t9.pop()
        _t8 = _stack_t8.pop()
        sigmoid_saved_2 = _stack_sigmoid_saved_2.pop()
        update_lstm_outgate0 = _stack_update_lstm_outgate0.pop()
        concat_and_multiply_cat_state4 = _stack_concat_and_multiply_cat_state4.pop()
        _t7 = _stack_t7.pop()
        concat_and_multiply_args8 = _stack_concat_and_multiply_args8.pop()
        concat_and_multiply_args7 = _stack_concat_and_multiply_args7.pop()
        concat_and_multiply_weights4 = _stack_concat_and_multiply_weights4.pop()
        sigmoid_saved_1 = _stack_sigmoid_saved_1.pop()
        update_lstm_ingate0 = _stack_update_lstm_ingate0.pop()
        concat_and_multiply_cat_state3 = _stack_concat_and_multiply_cat_state3.pop()
        _t6 = _stack_t6.pop()
        concat_and_multiply_args6 = _stack_concat_and_multiply_args6.pop()
        concat_and_multiply_args5 = _stack_concat_and_multiply_args5.pop()
        concat_and_multiply_weights3 = _stack_concat_and_multiply_weights3.pop()
        sigmoid_saved = _stack_sigmoid_saved.pop()
        update_lstm_forget0 = _stack_update_lstm_forget0.pop()
        concat_and_multiply_cat_state2 = _stack_concat_and_multiply_cat_state2.pop()
        _t5 = _stack_t5.pop()
        concat_and_multiply_args4 = _stack_concat_and_multiply_args4.pop()
        concat_and_multiply_args3 = _stack_concat_and_multiply_args3.pop()
        concat_and_multiply_weights2 = _stack_concat_and_multiply_weights2.pop()
        update_lstm_change0 = _stack_update_lstm_change0.pop()
        concat_and_multiply_cat_state1 = _stack_concat_and_multiply_cat_state1.pop()
        _t4 = _stack_t4.pop()
        concat_and_multiply_args2 = _stack_concat_and_multiply_args2.pop()
        concat_and_multiply_args1 = _stack_concat_and_multiply_args1.pop()
        concat_and_multiply_weights1 = _stack_concat_and_multiply_weights1.pop()
        bhiddens_to_output_probs_result1 = boutput.pop()
        bhiddens_to_output_probs_output1 = runtime.unbroadcast(bhiddens_to_output_probs_result1,
            hiddens_to_output_probs_output1)
        b_t12 = runtime.unbroadcast(-bhiddens_to_output_probs_result1, _t12)
        logsumexp_grads_1 = bwd_logsumexp(b_t12, logsumexp_saved_1)
        bhiddens_to_output_probs_output1 = bhiddens_to_output_probs_output1 + logsumexp_grads_1[0]
        bconcat_and_multiply_cat_state5 = runtime.dot_grad(bhiddens_to_output_probs_output1,
            concat_and_multiply_cat_state5, concat_and_multiply_weights5, 0)
        bconcat_and_multiply_weights5 = runtime.dot_grad(bhiddens_to_output_probs_output1,
            concat_and_multiply_cat_state5, concat_and_multiply_weights5, 1)
        bconcat_and_multiply_args9 = runtime.unstacked(bconcat_and_multiply_cat_state5,
            (concat_and_multiply_args9, _t11), 0, 'hstack')
        bparams = runtime.add_at(bparams, params, 'predict', bconcat_and_multiply_weights5)
        bhiddens = bhiddens + bconcat_and_multiply_args9
        bupdate_lstm_result0 = runtime.getitem_grad(bcells, update_lstm_result0, 1)
        cells = _stack_cells.pop()
        bupdate_lstm_result0 = runtime.add_at(bupdate_lstm_result0, update_lstm_result0, 0,
            bhiddens)
        hiddens = _stack_hiddens.pop()
        bupdate_lstm_cells0 = runtime.unpack_adjoint(bupdate_lstm_result0, (update_lstm_hiddens0,
            update_lstm_cells0))[1]
        bupdate_lstm_hiddens0 = runtime.unpack_adjoint(bupdate_lstm_result0, (update_lstm_hiddens0,
            update_lstm_cells0))[0]
        bupdate_lstm_outgate0 = runtime.unbroadcast(bupdate_lstm_hiddens0 * _t10,
            update_lstm_outgate0)
        b_t10 = runtime.unbroadcast(bupdate_lstm_hiddens0 * update_lstm_outgate0, _t10)
        update_lstm_hiddens0 = _stack_update_lstm_hiddens0.pop()
        bupdate_lstm_cells0 = bupdate_lstm_cells0 + b_t10 * (1 - _t10 * _t10)
        b_t8 = runtime.unbroadcast(bupdate_lstm_cells0, _t8)
        b_t9 = runtime.unbroadcast(bupdate_lstm_cells0, _t9)
        update_lstm_cells0 = _stack_update_lstm_cells0.pop()
        bupdate_lstm_ingate0 = runtime.unbroadcast(b_t9 * update_lstm_change0, update_lstm_ingate0)
        bupdate_lstm_change0 = runtime.unbroadcast(b_t9 * update_lstm_ingate0, update_lstm_change0)
        bupdate_lstm_cells0 = runtime.unbroadcast(b_t8 * update_lstm_forget0, update_lstm_cells0)
        bupdate_lstm_forget0 = runtime.unbroadcast(b_t8 * update_lstm_cells0, update_lstm_forget0)
        bconcat_and_multiply_result4, = bwd_sigmoid_s1(bupdate_lstm_outgate0, sigmoid_saved_2)
        bconcat_and_multiply_cat_state4 = runtime.dot_grad(bconcat_and_multiply_result4,
            concat_and_multiply_cat_state4, concat_and_multiply_weights4, 0)
        bconcat_and_multiply_weights4 = runtime.dot_grad(bconcat_and_multiply_result4,
            concat_and_multiply_cat_state4, concat_and_multiply_weights4, 1)
        bconcat_and_multiply_args8 = runtime.unstacked(bconcat_and_multiply_cat_state4,
            (concat_and_multiply_args7, concat_and_multiply_args8, _t7), 1, 'hstack')
        bupdate_lstm_hiddens0 = bconcat_and_multiply_args8
        bparams = runtime.add_at(bparams, params, 'outgate', bconcat_and_multiply_weights4)
        bconcat_and_multiply_result3, = bwd_sigmoid_s1(bupdate_lstm_ingate0, sigmoid_saved_1)
        bconcat_and_multiply_cat_state3 = runtime.dot_grad(bconcat_and_multiply_result3,
            concat_and_multiply_cat_state3, concat_and_multiply_weights3, 0)
        bconcat_and_multiply_weights3 = runtime.dot_grad(bconcat_and_multiply_result3,
            concat_and_multiply_cat_state3, concat_and_multiply_weights3, 1)
        bconcat_and_multiply_args6 = runtime.unstacked(bconcat_and_multiply_cat_state3,
            (concat_and_multiply_args5, concat_and_multiply_args6, _t6), 1, 'hstack')
        bupdate_lstm_hiddens0 = bupdate_lstm_hiddens0 + bconcat_and_multiply_args6
        bparams = runtime.add_at(bparams, params, 'ingate', bconcat_and_multiply_weights3)
        bconcat_and_multiply_result2, = bwd_sigmoid_s1(bupdate_lstm_forget0, sigmoid_saved)
        bconcat_and_multiply_cat_state2 = runtime.dot_grad(bconcat_and_multiply_result2,
            concat_and_multiply_cat_state2, concat_and_multiply_weights2, 0)
        bconcat_and_multiply_weights2 = runtime.dot_grad(bconcat_and_multiply_result2,
            concat_and_multiply_cat_state2, concat_and_multiply_weights2, 1)
        bconcat_and_multiply_args4 = runtime.unstacked(bconcat_and_multiply_cat_state2,
            (concat_and_multiply_args3, concat_and_multiply_args4, _t5), 1, 'hstack')
        bupdate_lstm_hiddens0 += bconcat_and_multiply_args4
        bparams = runtime.add_at(bparams, params, 'forget', bconcat_and_multiply_weights2)
        bconcat_and_multiply_result1 = bupdate_lstm_change0 * (1 - update_lstm_change0
            * update_lstm_change0)
        bconcat_and_multiply_cat_state1 = runtime.dot_grad(bconcat_and_multiply_result1,
            concat_and_multiply_cat_state1, concat_and_multiply_weights1, 0)
        bconcat_and_multiply_weights1 = runtime.dot_grad(bconcat_and_multiply_result1,
            concat_and_multiply_cat_state1, concat_and_multiply_weights1, 1)
        bconcat_and_multiply_args2 = runtime.unstacked(bconcat_and_multiply_cat_state1,
            (concat_and_multiply_args1, concat_and_multiply_args2, _t4), 1, 'hstack')
        bupdate_lstm_hiddens0 += bconcat_and_multiply_args2
        bparams = runtime.add_at(bparams, params, 'change', bconcat_and_multiply_weights1)
        bcells = bupdate_lstm_cells0
        update_lstm_cells0 = _stack_update_lstm_cells0.pop()
        bhiddens = bupdate_lstm_hiddens0
        update_lstm_hiddens0 = _stack_update_lstm_hiddens0.pop()
    del (_seq0, _stack_cells, _stack_concat_and_multiply_args1, _stack_concat_and_multiply_args2,
        _stack_concat_and_multiply_args3, _stack_concat_and_multiply_args4,
        _stack_concat_and_multiply_args5, _stack_concat_and_multiply_args6,
        _stack_concat_and_multiply_args7, _stack_concat_and_multiply_args8,
        _stack_concat_and_multiply_args9, _stack_concat_and_multiply_cat_state1,
        _stack_concat_and_multiply_cat_state2, _stack_concat_and_multiply_cat_state3,
        _stack_concat_and_multiply_cat_state4, _stack_concat_and_multiply_cat_state5,
        _stack_concat_and_multiply_weights1, _stack_concat_and_multiply_weights2,
        _stack_concat_and_multiply_weights3, _stack_concat_and_multiply_weights4,
        _stack_concat_and_multiply_weights5, _stack_hiddens,
        _stack_hiddens_to_output_probs_output1, _stack_logsumexp_saved_1, _stack_sigmoid_saved,
        _stack_sigmoid_saved_1, _stack_sigmoid_saved_2, _stack_t10, _stack_t11, _stack_t12,
        _stack_t4, _stack_t5, _stack_t6, _stack_t7, _stack_t8, _stack_t9,
        _stack_update_lstm_cells0, _stack_update_lstm_change0, _stack_update_lstm_forget0,
        _stack_update_lstm_hiddens0, _stack_update_lstm_ingate0, _stack_update_lstm_outgate0,
        _stack_update_lstm_result0, _t10, _t11, _t12, _t4, _t5, _t6, _t7, _t8, _t9, cells,
        concat_and_multiply_args1, concat_and_multiply_args2, concat_and_multiply_args3,
        concat_and_multiply_args4, concat_and_multiply_args5, concat_and_multiply_args6,
        concat_and_multiply_args7, concat_and_multiply_args8, concat_and_multiply_args9,
        concat_and_multiply_cat_state1, concat_and_multiply_cat_state2,
        concat_and_multiply_cat_state3, concat_and_multiply_cat_state4,
        concat_and_multiply_cat_state5, concat_and_multiply_weights1, concat_and_multiply_weights2,
        concat_and_multiply_weights3, concat_and_multiply_weights4, concat_and_multiply_weights5,
        hiddens, hiddens_to_output_probs_output1, logsumexp_saved_1, sigmoid_saved,
        sigmoid_saved_1, sigmoid_saved_2, update_lstm_cells0, update_lstm_change0,
        update_lstm_forget0, update_lstm_hiddens0, update_lstm_ingate0, update_lstm_outgate0,
        update_lstm_result0)
    bhiddens_to_output_probs_result0 = runtime.unpack_adjoint(boutput,
        [hiddens_to_output_probs_result0])[0]
    del hiddens_to_output_probs_result0
    bhiddens_to_output_probs_output0 = runtime.unbroadcast(bhiddens_to_output_probs_result0,
        concat_and_multiply_result0)
    del concat_and_multiply_result0
    b_t3 = runtime.unbroadcast(-bhiddens_to_output_probs_result0, _t3)
    del _t3, bhiddens_to_output_probs_result0
    logsumexp_grads = bwd_logsumexp(b_t3, logsumexp_saved)
    del b_t3, logsumexp_saved
    bhiddens_to_output_probs_output0 = bhiddens_to_output_probs_output0 + logsumexp_grads[0]
    del logsumexp_grads
    bconcat_and_multiply_cat_state0 = runtime.dot_grad(bhiddens_to_output_probs_output0,
        concat_and_multiply_cat_state0, concat_and_multiply_weights0, 0)
    bconcat_and_multiply_weights0 = runtime.dot_grad(bhiddens_to_output_probs_output0,
        concat_and_multiply_cat_state0, concat_and_multiply_weights0, 1)
    del (bhiddens_to_output_probs_output0, concat_and_multiply_cat_state0,
        concat_and_multiply_weights0)
    bconcat_and_multiply_args0 = runtime.unstacked(bconcat_and_multiply_cat_state0,
        (concat_and_multiply_args0, _t2), 0, 'hstack')
    del _t2, bconcat_and_multiply_cat_state0, concat_and_multiply_args0
    bparams = runtime.add_at(bparams, params, 'predict', bconcat_and_multiply_weights0)
    del bconcat_and_multiply_weights0
    bhiddens = bhiddens + bconcat_and_multiply_args0
    del bconcat_and_multiply_args0
    b_t1 = runtime.unrepeat(bcells, _t1, num_sequences, axis=0)
    del _t1, bcells
    bparams = runtime.add_at(bparams, params, 'init cells', b_t1)
    del b_t1
    b_t0 = runtime.unrepeat(bhiddens, _t0, num_sequences, axis=0)
    del _t0, bhiddens, num_sequences
    bparams = runtime.add_at(bparams, params, 'init hiddens', b_t0)
    del b_t0, params
    return bparams,


def bwd_logsumexp(b_t4, saved):
    keepdims, _t1, _t2, _t3, axis, biggest, result, x = saved
    saved.clear()
    if keepdims:
        bresult = b_t4
    else:
        bresult = np.reshape(b_t4, np.shape(result))
    del keepdims, result
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


def fwd_logsumexp(x, axis=None, keepdims=False):
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
