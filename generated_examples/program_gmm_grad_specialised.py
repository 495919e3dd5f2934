# Emitted by srcdiff from tests/programs/gmm.py (function loss, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
# Specialised for the example's arguments: {log proportions: float64[3], means: float64[3, 2], log stds: float64[3, 2]}, float64[20, 2]
"""Gradient of generated_examples.gmm.loss with respect to params.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dloss(params, data):
    _t0, gmm_log_likelihood_saved = fwd_gmm_log_likelihood_s1(params, data)
    _t1 = -_t0
    _t2 = data.shape[0]
    _t3 = _t1 / _t2
    b_t3 = runtime.grad_seed(_t3)
    b_t1 = b_t3 / _t2
    b_t0 = -b_t1
    bparams, = bwd_gmm_log_likelihood_s1(b_t0, gmm_log_likelihood_saved)
    return runtime.as_grad(bparams, params)


def fwd_logsumexp_s1(a, axis=None, keepdims=False):
    _stack_out = []
    a_max = np.max(a, axis=axis, keepdims=True)
    _t0 = a - a_max
    _t1 = np.exp(_t0)
    _t2 = np.sum(_t1, axis=axis, keepdims=True)
    _t3 = np.log(_t2)
    out = _t3 + a_max
    _t4 = np.squeeze(out, axis=axis)
    _stack_out.append(out)
    out = _t4
    return out, [_stack_out, _t1, _t2, _t3, a, a_max, axis]


def fwd_log_normalize_s1(x):
    _t0, logsumexp_saved = fwd_logsumexp_s1(x)
    _t1 = x - _t0
    return _t1, [_t0, logsumexp_saved, x]


def fwd_unpack_params_s1(params):
    _t0 = params['log proportions']
    _t1, log_normalize_saved = fwd_log_normalize_s1(_t0)
    _t2 = params['means']
    _t3 = params['log stds']
    return (_t1, _t2, _t3), [_t1, _t2, _t3, log_normalize_saved]


def fwd_diag_gaussian_logpdf_s1(x, mean, log_std):
    _t0 = x - mean
    _t1 = np.exp(log_std)
    z = _t0 / _t1
    _t2 = z ** 2
    _t3 = -0.5 * _t2
    _t4 = _t3 - log_std
    _t5 = 0.5 * np.log(2 * np.pi)
    _t6 = _t4 - _t5
    _t7 = np.sum(_t6, axis=1)
    return _t7, [_t0, _t1, _t3, _t6, log_std, mean, z]


def fwd_logsumexp_s2(a, axis=None, keepdims=False):
    _stack_out = []
    a_max = np.max(a, axis=axis, keepdims=True)
    _t0 = a - a_max
    _t1 = np.exp(_t0)
    _t2 = np.sum(_t1, axis=axis, keepdims=True)
    _t3 = np.log(_t2)
    out = _t3 + a_max
    _t4 = np.squeeze(out, axis=axis)
    _stack_out.append(runtime.shape_of(out))
    out = _t4
    return out, [_stack_out, _t1, _t2, runtime.shape_of(_t3), a, a_max, axis]


def fwd_gmm_log_likelihood_s1(params, data):
    _stack_log_proportion = []
    _stack_t1 = []
    _stack_diag_gaussian_logpdf_saved = []
    cluster_lls = []
    _t0, unpack_params_saved = fwd_unpack_params_s1(params)
    _log_proportion0 = _t0[0]
    _mean0 = _t0[1]
    _log_std0 = _t0[2]
    for _i0 in range(min(len(_log_proportion0), len(_mean0), len(_log_std0))):
        log_proportion = _log_proportion0[_i0]
        _stack_log_proportion.append(log_proportion)
        mean = _mean0[_i0]
        log_std = _log_std0[_i0]
        _t1, diag_gaussian_logpdf_saved = fwd_diag_gaussian_logpdf_s1(data, mean, log_std)
        _stack_t1.append(_t1)
        _stack_diag_gaussian_logpdf_saved.append(diag_gaussian_logpdf_saved)
        _t2 = log_proportion + _t1
        cluster_lls.append(_t2)
    _t3 = np.vstack(cluster_lls)
    _t4, logsumexp_saved = fwd_logsumexp_s2(_t3, axis=0)
    _t5 = np.sum(_t4)
    return _t5, [_log_proportion0, _log_std0, _mean0, _stack_diag_gaussian_logpdf_saved,
        _stack_log_proportion, _stack_t1, runtime.shape_of(_t0), runtime.shape_of(_t4),
        cluster_lls, logsumexp_saved, unpack_params_saved]


def bwd_logsumexp_s1(bout, saved):
    _stack_out, _t1, _t2, _t3, a, a_max, axis = saved
    saved.clear()
    out = _stack_out.pop()
    del _stack_out
    bout = np.reshape(bout, np.shape(out))
    del out
    b_t3 = runtime.unbroadcast(bout, _t3)
    del _t3
    ba_max = runtime.unbroadcast(bout, a_max)
    b_t2 = b_t3 / _t2
    del _t2, b_t3
    b_t1 = runtime.unreduce(b_t2, _t1, axis=axis, keepdims=True)
    del b_t2
    b_t0 = b_t1 * _t1
    del _t1, b_t1
    ba = runtime.unbroadcast(b_t0, a)
    ba_max = ba_max + runtime.unbroadcast(-b_t0, a_max)
    del b_t0
    ba = ba + runtime.extremum_grad(ba_max, a_max, a, axis=axis, keepdims=True)
    del a, a_max, axis, ba_max
    return ba,


def bwd_diag_gaussian_logpdf_s1(b_t7, saved):
    _t0, _t1, _t3, _t6, log_std, mean, z = saved
    saved.clear()
    b_t6 = runtime.unreduce(b_t7, _t6, axis=1)
    del _t6
    b_t3 = runtime.unbroadcast(b_t6, _t3)
    del _t3
    blog_std = runtime.unbroadcast(-b_t6, log_std)
    del b_t6, log_std
    b_t2 = b_t3 * -0.5
    del b_t3
    bz = b_t2 * 2 * z
    del b_t2
    b_t0 = runtime.unbroadcast(bz / _t1, _t0)
    del _t0
    b_t1 = runtime.unbroadcast(-bz * z / _t1, _t1)
    del bz, z
    blog_std = blog_std + b_t1 * _t1
    del _t1, b_t1
    bmean = runtime.unbroadcast(-b_t0, mean)
    del b_t0, mean
    return bmean, blog_std


def bwd_log_normalize_s1(b_t1, saved):
    _t0, logsumexp_saved, x = saved
    saved.clear()
    bx = runtime.unbroadcast(b_t1, x)
    del x
    b_t0 = runtime.unbroadcast(-b_t1, _t0)
    del _t0
    logsumexp_grads = bwd_logsumexp_s1(b_t0, logsumexp_saved)
    del b_t0, logsumexp_saved
    bx = bx + logsumexp_grads[0]
    del logsumexp_grads
    return bx,


def bwd_unpack_params_s1(b_out, saved):
    _t1, _t2, _t3, log_normalize_saved = saved
    saved.clear()
    b_outs = runtime.unpack_adjoint(b_out, (_t1, _t2, _t3))
    del _t1, _t2, _t3
    b_t1 = b_outs[0]
    b_t2 = b_outs[1]
    b_t3 = b_outs[2]
    del b_outs
    b_t0, = bwd_log_normalize_s1(b_t1, log_normalize_saved)
    del b_t1, log_normalize_saved
    bparams = runtime.Sparse({'log proportions': b_t0, 'means': b_t2, 'log stds': b_t3})
    del b_t0, b_t2, b_t3
    return bparams,


def bwd_gmm_log_likelihood_s1(b_t5, saved):
    (_log_proportion0, _log_std0, _mean0, _stack_diag_gaussian_logpdf_saved, _stack_log_proportion,
        _stack_t1, _t0, _t4, cluster_lls, logsumexp_saved, unpack_params_saved) = saved
    saved.clear()
    b_t4 = runtime.unreduce(b_t5, _t4)
    del _t4
    b_t3, = bwd_logsumexp_s1(b_t4, logsumexp_saved)
    del b_t4, logsumexp_saved
    bcluster_lls = runtime.add_items([],
        [runtime.unstacked(b_t3, cluster_lls, _k, 'vstack') for _k in range(len(cluster_lls))])
    del b_t3, cluster_lls
    b_log_proportion0 = np.zeros_like(_log_proportion0)
    b_log_std0 = np.zeros_like(_log_std0)
    b_mean0 = np.zeros_like(_mean0)
    for _i0 in reversed(range(min(len(_log_proportion0), len(_mean0), len(_log_std0)))):
        diag_gaussian_logpdf_saved = _stack_diag_gaussian_logpdf_saved.pop()
        _t1 = _stack_t1.pop()
        log_proportion = _stack_log_proportion.pop()
        b_t2 = bcluster_lls.pop()
        blog_proportion = runtime.unbroadcast(b_t2, log_proportion)
        b_t1 = runtime.unbroadcast(b_t2, _t1)
        bmean, blog_std = bwd_diag_gaussian_logpdf_s1(b_t1, diag_gaussian_logpdf_saved)
        b_log_std0 = runtime.add_at(b_log_std0, _log_std0, _i0, blog_std)
        b_mean0 = runtime.add_at(b_mean0, _mean0, _i0, bmean)
        b_log_proportion0 = runtime.add_at(b_log_proportion0, _log_proportion0, _i0,
            blog_proportion)
    del (_log_proportion0, _log_std0, _mean0, _stack_diag_gaussian_logpdf_saved,
        _stack_log_proportion, _stack_t1, bcluster_lls)
    b_t0 = runtime.getitem_grad(b_log_std0, _t0, 2)
    del b_log_std0
    b_t0 = runtime.add_at(b_t0, _t0, 1, b_mean0)
    del b_mean0
    b_t0 = runtime.add_at(b_t0, _t0, 0, b_log_proportion0)
    del _t0, b_log_proportion0
    bparams, = bwd_unpack_params_s1(b_t0, unpack_params_saved)
    del b_t0, unpack_params_saved
    return bparams,
