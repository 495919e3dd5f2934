# Emitted by srcdiff from generated_examples/ica.py (function ica, mode grad, wrt=(0, 1)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
"""Gradient of generated_examples.ica.ica with respect to weights, latents.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime
import scipy.stats


def dica(weights, latents, observed, noise_std):
    predicted = weights @ latents
    _t0 = scipy.stats.t.logpdf(predicted, 2.4, observed, noise_std)
    log_likelihood = np.sum(_t0)
    _t1 = scipy.stats.t.logpdf(latents, 2.4)
    log_prior = np.sum(_t1)
    _t2 = log_likelihood + log_prior
    _t3 = -_t2
    b_t3 = runtime.grad_seed(_t3)
    b_t2 = -b_t3
    blog_likelihood = runtime.unbroadcast(b_t2, log_likelihood)
    blog_prior = runtime.unbroadcast(b_t2, log_prior)
    b_t1 = runtime.unreduce(blog_prior, _t1)
    blatents = -b_t1 * 3.4 * latents / (2.4 + latents ** 2)
    b_t0 = runtime.unreduce(blog_likelihood, _t0)
    bpredicted = runtime.unbroadcast(-b_t0 * 3.4 * (predicted - observed)
        / (2.4 * noise_std ** 2 + (predicted - observed) ** 2), predicted)
    bweights = runtime.matmul_grad(bpredicted, weights, latents, 0)
    blatents += runtime.matmul_grad(bpredicted, weights, latents, 1)
    return runtime.as_grad(bweights, weights), runtime.as_grad(blatents, latents)
