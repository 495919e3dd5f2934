# Emitted by srcdiff from generated_examples/variational_inference.py (function variational_inference, mode grad, wrt=(0, 1)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
# Specialised for the example's arguments: float64[3], float64[3], float64[8, 3], float64[20, 3], float64[20]
"""Gradient of generated_examples.variational_inference.variational_inference with respect to mean, log_std.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dvariational_inference(mean, log_std, eps, x, y):
    std = np.exp(log_std)
    _t0 = std * eps
    w = mean + _t0
    logits = w @ x.T
    _t3 = np.logaddexp(0.0, logits)
    b_t9 = 1.0
    b_t8 = -b_t9
    b_t7 = np.broadcast_to(b_t8 / 8, (8,))
    blog_q = -b_t7
    b_t5 = np.broadcast_to(np.reshape(blog_q, (8, 1)), (8, 3))
    bmean = (b_t5 * (w - mean) / std ** 2).sum(axis=0)
    bstd = (b_t5 * (((w - mean) / std) ** 2 - 1) / std).sum(axis=0)
    b_t4 = np.broadcast_to(np.reshape(b_t7, (8, 1)), (8, 20))
    b_t3 = -b_t4
    blogits = b_t3 * runtime.logaddexp_share(logits, _t3, 0.0)
    blogits += b_t4 * y
    bw = -b_t5 * (w - mean) / std ** 2 + blogits @ x
    b_t1 = np.reshape(b_t7, (8, 1))
    bw += -b_t1 * w
    bmean = bmean + bw.sum(axis=0)
    bstd = bstd + (bw * eps).sum(axis=0)
    blog_std = bstd * std
    return bmean, blog_std
