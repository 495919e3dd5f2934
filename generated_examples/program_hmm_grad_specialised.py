# Emitted by srcdiff from tests/programs/hmm.py (function loss, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
# Specialised for the example's arguments: {initial: float64[3], transition: float64[3, 3], emission: float64[3, 4]}, int64[12]
"""Gradient of generated_examples.hmm.loss with respect to params.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dloss(params, observations):
    _t0, hmm_log_likelihood_saved = fwd_hmm_log_likelihood_s1(params, observations)
    _t2 = len(observations)
    b_t3 = 1.0
    b_t1 = b_t3 / _t2
    b_t0 = -b_t1
    bparams, = bwd_hmm_log_likelihood_s1(b_t0, hmm_log_likelihood_saved)
    return runtime.as_grad(bparams, params)


def fwd_logsumexp_s1(a, axis=None, keepdims=False):
    a_max = np.max(a, axis=axis, keepdims=True)
    _t0 = a - a_max
    _t1 = np.exp(_t0)
    _t2 = np.sum(_t1, axis=axis, keepdims=True)
    _t3 = np.log(_t2)
    out = _t3 + a_max
    _t4 = np.squeeze(out, axis=axis)
    return _t4, [_t1, _t2, a, a_max, axis, out]


def fwd_logsumexp_s2(a, axis=None, keepdims=False):
    a_max = np.max(a, axis=axis, keepdims=True)
    _t0 = a - a_max
    _t1 = np.exp(_t0)
    _t2 = np.sum(_t1, axis=axis, keepdims=True)
    _t3 = np.log(_t2)
    out = _t3 + a_max
    return out, [_t1, _t2, a, a_max, axis]


def fwd_normalized_s1(params):
    _t0 = params['initial']
    _t1, logsumexp_saved = fwd_logsumexp_s1(_t0)
    log_pi = _t0 - _t1
    _t2 = params['transition']
    _t3, logsumexp_saved_1 = fwd_logsumexp_s2(_t2, axis=1, keepdims=True)
    log_A = _t2 - _t3
    _t4 = params['emission']
    _t5, logsumexp_saved_2 = fwd_logsumexp_s2(_t4, axis=1, keepdims=True)
    log_B = _t4 - _t5
    return (log_pi, log_A, log_B), [log_A, log_B, log_pi, logsumexp_saved, logsumexp_saved_1,
        logsumexp_saved_2]


def fwd_hmm_log_likelihood_s1(params, observations):
    _stack_logsumexp_saved = []
    _stack_log_alpha = []
    _t0, normalized_saved = fwd_normalized_s1(params)
    log_pi = _t0[0]
    log_A = _t0[1]
    log_B = _t0[2]
    _idx0 = np.s_[:, observations[0]]
    _t1 = log_B[_idx0]
    log_alpha = log_pi + _t1
    _seq0 = list(observations[1:])
    for obs in _seq0:
        _t2 = log_alpha[:, None]
        _t3 = _t2 + log_A
        _t4, logsumexp_saved = fwd_logsumexp_s1(_t3, axis=0)
        _stack_logsumexp_saved.append(logsumexp_saved)
        _t5 = log_B[:, obs]
        _stack_log_alpha.append(log_alpha)
        log_alpha = _t4 + _t5
    _t6, logsumexp_saved_1 = fwd_logsumexp_s1(log_alpha)
    return _t6, [_idx0, _seq0, _stack_log_alpha, _stack_logsumexp_saved, runtime.shape_of(_t0),
        log_A, log_B, logsumexp_saved_1, normalized_saved]


def bwd_logsumexp_s1(b_t4, saved):
    _t1, _t2, a, a_max, axis, out = saved
    saved.clear()
    bout = np.reshape(b_t4, np.shape(out))
    del out
    ba_max = bout
    b_t2 = bout / _t2
    del _t2, bout
    b_t0 = b_t2 * _t1
    del _t1, b_t2
    ba = b_t0
    ba_max = ba_max + (-b_t0).sum(axis=0, keepdims=True)
    del b_t0
    ba = ba + runtime.extremum_grad(ba_max, a_max, a, axis=axis, keepdims=True)
    del a, a_max, axis, ba_max
    return ba,


def bwd_logsumexp_s2(b_t4, saved):
    _t1, _t2, a, a_max, axis = saved
    saved.clear()
    ba_max = b_t4
    b_t2 = b_t4 / _t2
    del _t2
    b_t0 = b_t2 * _t1
    del _t1, b_t2
    ba = b_t0
    ba_max = ba_max + (-b_t0).sum(axis=1, keepdims=True)
    del b_t0
    ba = ba + runtime.extremum_grad(ba_max, a_max, a, axis=axis, keepdims=True)
    del a, a_max, axis, ba_max
    return ba,


def bwd_normalized_s1(b_out, saved):
    log_A, log_B, log_pi, logsumexp_saved, logsumexp_saved_1, logsumexp_saved_2 = saved
    saved.clear()
    blog_pi, blog_A, blog_B = runtime.unpack_adjoint(b_out, (log_pi, log_A, log_B))
    del log_A, log_B, log_pi
    b_t4 = blog_B
    b_t5 = (-blog_B).sum(axis=1, keepdims=True)
    del blog_B
    logsumexp_grads_2 = bwd_logsumexp_s2(b_t5, logsumexp_saved_2)
    del b_t5, logsumexp_saved_2
    b_t4 = b_t4 + logsumexp_grads_2[0]
    del logsumexp_grads_2
    b_t2 = blog_A
    b_t3 = (-blog_A).sum(axis=1, keepdims=True)
    del blog_A
    logsumexp_grads_1 = bwd_logsumexp_s2(b_t3, logsumexp_saved_1)
    del b_t3, logsumexp_saved_1
    b_t2 = b_t2 + logsumexp_grads_1[0]
    del logsumexp_grads_1
    b_t0 = blog_pi
    b_t1 = (-blog_pi).sum(axis=0)
    del blog_pi
    logsumexp_grads = bwd_logsumexp_s1(b_t1, logsumexp_saved)
    del b_t1, logsumexp_saved
    b_t0 = b_t0 + logsumexp_grads[0]
    del logsumexp_grads
    bparams = runtime.Sparse({'initial': b_t0, 'transition': b_t2, 'emission': b_t4})
    del b_t0, b_t2, b_t4
    return bparams,


def bwd_hmm_log_likelihood_s1(b_t6, saved):
    (_idx0, _seq0, _stack_log_alpha, _stack_logsumexp_saved, _t0, log_A, log_B, logsumexp_saved_1,
        normalized_saved) = saved
    saved.clear()
    blog_alpha, = bwd_logsumexp_s1(b_t6, logsumexp_saved_1)
    del logsumexp_saved_1
    blog_A = np.zeros_like(log_A)
    del log_A
    blog_B = np.zeros_like(log_B)
    for obs in reversed(_seq0):
        logsumexp_saved = _stack_logsumexp_saved.pop()
        log_alpha = _stack_log_alpha.pop()
        blog_B = runtime.add_at(blog_B, log_B, np.s_[:, obs], blog_alpha)
        b_t3, = bwd_logsumexp_s1(blog_alpha, logsumexp_saved)
        b_t2 = b_t3.sum(axis=1, keepdims=True)
        blog_A += b_t3
        blog_alpha = runtime.getitem_grad(b_t2, log_alpha, np.s_[:, None])
    del _seq0, _stack_log_alpha, _stack_logsumexp_saved
    blog_B = runtime.add_at(blog_B, log_B, _idx0, blog_alpha)
    del _idx0, log_B
    b_t0 = runtime.getitem_grad(blog_B, _t0, 2)
    del blog_B
    b_t0 = runtime.add_at(b_t0, _t0, 1, blog_A)
    del blog_A
    b_t0 = runtime.add_at(b_t0, _t0, 0, blog_alpha)
    del _t0, blog_alpha
    bparams, = bwd_normalized_s1(b_t0, normalized_saved)
    del b_t0, normalized_saved
    return bparams,
