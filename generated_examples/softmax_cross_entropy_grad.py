# Emitted by srcdiff from generated_examples/softmax_cross_entropy.py (function softmax_cross_entropy, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
"""Gradient of generated_examples.softmax_cross_entropy.softmax_cross_entropy with respect to logits.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dsoftmax_cross_entropy(logits, labels):
    _t0 = np.max(logits, axis=1, keepdims=True)
    shifted = logits - _t0
    _t1 = np.exp(shifted)
    _t2 = np.sum(_t1, axis=1, keepdims=True)
    _t3 = np.log(_t2)
    log_probs = shifted - _t3
    _idx0 = np.arange(logits.shape[0]), labels
    _t4 = log_probs[_idx0]
    _t5 = np.mean(_t4)
    _t6 = -_t5
    b_t6 = runtime.grad_seed(_t6)
    b_t5 = -b_t6
    b_t4 = runtime.mean_grad(b_t5, _t4)
    blog_probs = runtime.getitem_grad(b_t4, log_probs, _idx0)
    bshifted = blog_probs
    b_t3 = runtime.unbroadcast(-blog_probs, _t3)
    b_t2 = b_t3 / _t2
    b_t1 = runtime.unreduce(b_t2, _t1, axis=1, keepdims=True)
    bshifted = bshifted + b_t1 * _t1
    blogits = bshifted
    b_t0 = runtime.unbroadcast(-bshifted, _t0)
    blogits = blogits + runtime.extremum_grad(b_t0, _t0, logits, axis=1, keepdims=True)
    return runtime.as_grad(blogits, logits)
