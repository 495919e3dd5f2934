# Emitted by srcdiff from generated_examples/variational_inference.py (function variational_inference, mode grad, wrt=(0, 1)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
"""Gradient of generated_examples.variational_inference.variational_inference with respect to mean, log_std.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime
import scipy.stats


def dvariational_inference(mean, log_std, eps, x, y):
    std = np.exp(log_std)
    _t0 = std * eps
    w = mean + _t0
    _t1 = scipy.stats.norm.logpdf(w, 0.0, 1.0)
    log_prior = np.sum(_t1, axis=1)
    logits = w @ x.T
    _t2 = y * logits
    _t3 = np.logaddexp(0.0, logits)
    _t4 = _t2 - _t3
    log_likelihood = np.sum(_t4, axis=1)
    _t5 = scipy.stats.norm.logpdf(w, mean, std)
    log_q = np.sum(_t5, axis=1)
    _t6 = log_prior + log_likelihood
    _t7 = _t6 - log_q
    _t8 = np.mean(_t7)
    _t9 = -_t8
    b_t9 = runtime.grad_seed(_t9)
    b_t8 = -b_t9
    b_t7 = runtime.mean_grad(b_t8, _t7)
    b_t6 = runtime.unbroadcast(b_t7, _t6)
    blog_q = runtime.unbroadcast(-b_t7, log_q)
    blog_prior = runtime.unbroadcast(b_t6, log_prior)
    blog_likelihood = runtime.unbroadcast(b_t6, log_likelihood)
    b_t5 = runtime.unreduce(blog_q, _t5, axis=1)
    bmean = runtime.unbroadcast(b_t5 * (w - mean) / std ** 2, mean)
    bstd = runtime.unbroadcast(b_t5 * (((w - mean) / std) ** 2 - 1) / std, std)
    b_t4 = runtime.unreduce(blog_likelihood, _t4, axis=1)
    b_t2 = runtime.unbroadcast(b_t4, _t2)
    b_t3 = runtime.unbroadcast(-b_t4, _t3)
    blogits = b_t3 * runtime.logaddexp_share(logits, _t3, 0.0)
    blogits += runtime.unbroadcast(b_t2 * y, logits)
    bw = (runtime.unbroadcast(-b_t5 * (w - mean) / std ** 2, w)
        + runtime.matmul_grad(blogits, w, x.T, 0))
    b_t1 = runtime.unreduce(blog_prior, _t1, axis=1)
    bw += -b_t1 * w
    bmean = bmean + runtime.unbroadcast(bw, mean)
    b_t0 = runtime.unbroadcast(bw, _t0)
    bstd = bstd + runtime.unbroadcast(b_t0 * eps, std)
    blog_std = bstd * std
    return runtime.as_grad(bmean, mean), runtime.as_grad(blog_std, log_std)
