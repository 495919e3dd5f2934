# Emitted by srcdiff from tests/programs/svi.py (function loss, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
"""Gradient of generated_examples.svi.black_box_variational_inference.<locals>.variational_objective with respect to params.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime
num_dims = 3  # (held by a closure cell)


def dvariational_objective(params, noise, inputs, targets):
    _t0, unpack_params_saved = fwd_unpack_params(params)
    mean = _t0[0]
    log_std = _t0[1]
    _t1 = np.exp(log_std)
    _t2 = noise * _t1
    samples = _t2 + mean
    _t3, gaussian_entropy_saved = fwd_gaussian_entropy(log_std)
    _t4, log_joint_saved = fwd_log_joint(samples, inputs, targets)
    _t5 = np.mean(_t4)
    lower_bound = _t3 + _t5
    _t6 = -lower_bound
    b_t6 = runtime.grad_seed(_t6)
    blower_bound = -b_t6
    b_t3 = runtime.unbroadcast(blower_bound, _t3)
    b_t5 = runtime.unbroadcast(blower_bound, _t5)
    b_t4 = runtime.mean_grad(b_t5, _t4)
    bsamples, = bwd_log_joint(b_t4, log_joint_saved)
    blog_std, = bwd_gaussian_entropy(b_t3, gaussian_entropy_saved)
    b_t2 = runtime.unbroadcast(bsamples, _t2)
    bmean = runtime.unbroadcast(bsamples, mean)
    b_t1 = runtime.unbroadcast(b_t2 * noise, _t1)
    blog_std = blog_std + b_t1 * _t1
    b_t0 = runtime.getitem_grad(blog_std, _t0, 1)
    b_t0 = runtime.add_at(b_t0, _t0, 0, bmean)
    bparams, = bwd_unpack_params(b_t0, unpack_params_saved)
    return runtime.as_grad(bparams, params)


def fwd_unpack_params(params):
    _t0 = params[:num_dims]
    _t1 = params[num_dims:]
    return (_t0, _t1), [runtime.shape_of(_t1), runtime.shape_of(_t0), runtime.shape_of(params)]


def bwd_unpack_params(b_out, saved):
    _t1, _t0, params = saved
    saved.clear()
    b_outs = runtime.unpack_adjoint(b_out, (_t0, _t1))
    del _t0, _t1
    bmean = b_outs[0]
    blog_std = b_outs[1]
    del b_outs
    bparams = runtime.getitem_grad(blog_std, params, np.s_[num_dims:])
    del blog_std
    bparams = runtime.add_at(bparams, params, np.s_[:num_dims], bmean)
    del bmean, params
    return bparams,


def fwd_gaussian_entropy(log_std):
    _t0 = 0.5 * num_dims * (1.0 + np.log(2 * np.pi))
    _t1 = np.sum(log_std)
    _t2 = _t0 + _t1
    return _t2, [runtime.shape_of(_t1), runtime.shape_of(log_std)]


def bwd_gaussian_entropy(b_t2, saved):
    _t1, log_std = saved
    saved.clear()
    b_t1 = runtime.unbroadcast(b_t2, _t1)
    del _t1
    blog_std = runtime.unreduce(b_t1, log_std)
    del b_t1, log_std
    return blog_std,


def fwd_log_joint(weights, inputs, targets):
    _t0, gaussian_log_density_saved = fwd_gaussian_log_density(weights, 0.0, 1.0)
    log_prior = np.sum(_t0, axis=1)
    logits = weights @ inputs.T
    _t1 = targets * logits
    _t2 = np.logaddexp(0.0, logits)
    _t3 = _t1 - _t2
    log_likelihood = np.sum(_t3, axis=1)
    _t4 = log_prior + log_likelihood
    return _t4, [runtime.shape_of(_t0), runtime.shape_of(_t1), _t2, runtime.shape_of(_t3),
        gaussian_log_density_saved, inputs, runtime.shape_of(log_likelihood),
        runtime.shape_of(log_prior), logits, targets, weights]


def bwd_log_joint(b_t4, saved):
    (_t0, _t1, _t2, _t3, gaussian_log_density_saved, inputs, log_likelihood, log_prior, logits,
        targets, weights) = saved
    saved.clear()
    blog_prior = runtime.unbroadcast(b_t4, log_prior)
    del log_prior
    blog_likelihood = runtime.unbroadcast(b_t4, log_likelihood)
    del log_likelihood
    b_t3 = runtime.unreduce(blog_likelihood, _t3, axis=1)
    del _t3, blog_likelihood
    b_t1 = runtime.unbroadcast(b_t3, _t1)
    del _t1
    b_t2 = runtime.unbroadcast(-b_t3, _t2)
    del b_t3
    blogits = b_t2 * runtime.logaddexp_share(logits, _t2, 0.0)
    del _t2, b_t2
    blogits += runtime.unbroadcast(b_t1 * targets, logits)
    del b_t1, logits, targets
    bweights = runtime.matmul_grad(blogits, weights, inputs.T, 0)
    del blogits, inputs, weights
    b_t0 = runtime.unreduce(blog_prior, _t0, axis=1)
    del _t0, blog_prior
    gaussian_log_density_grads = bwd_gaussian_log_density(b_t0, gaussian_log_density_saved)
    del b_t0, gaussian_log_density_saved
    bweights += gaussian_log_density_grads[0]
    del gaussian_log_density_grads
    return bweights,


def fwd_gaussian_log_density(x, mean, std):
    _t0 = x - mean
    _t1 = _t0 / std
    _t2 = _t1 ** 2
    _t3 = -0.5 * _t2
    _t4 = np.log(std)
    _t5 = _t3 - _t4
    _t6 = 0.5 * np.log(2 * np.pi)
    _t7 = _t5 - _t6
    return _t7, [runtime.shape_of(_t0), _t1, runtime.shape_of(_t3), std, runtime.shape_of(x)]


def bwd_gaussian_log_density(b_t7, saved):
    _t0, _t1, _t3, std, x = saved
    saved.clear()
    b_t3 = runtime.unbroadcast(b_t7, _t3)
    del _t3
    b_t2 = b_t3 * -0.5
    del b_t3
    b_t1 = b_t2 * 2 * _t1
    del _t1, b_t2
    b_t0 = runtime.unbroadcast(b_t1 / std, _t0)
    del _t0, b_t1, std
    bx = runtime.unbroadcast(b_t0, x)
    del b_t0, x
    return bx,
