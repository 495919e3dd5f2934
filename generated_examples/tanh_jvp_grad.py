# Emitted by srcdiff from generated_examples/tanh_jvp.py (function tanh_jvp, mode jvp, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
"""Jacobian-vector product of generated_examples.tanh_jvp.tanh_jvp with respect to w.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def jvp_tanh_jvp(dw, w, x):
    _t0 = x @ w
    d_t0 = x @ dw
    h = np.tanh(_t0)
    dh = d_t0 * (1 - h * h)
    _t1 = h * h
    d_t1 = dh * h + h * dh
    _t2 = np.sum(_t1)
    d_t2 = np.sum(d_t1)
    _t3 = np.max(h)
    d_t3 = np.sum(runtime.extremum_grad(np.ones_like(_t3), _t3, h) * dh)
    _t4 = _t2 + _t3
    d_t4 = d_t2 + d_t3
    return _t4, d_t4
