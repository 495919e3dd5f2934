# Emitted by srcdiff from generated_examples/tanh_jvp.py (function tanh_jvp, mode jvp, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
# Specialised for the example's arguments: float64[3, 2], float64[4, 3]
"""Jacobian-vector product of generated_examples.tanh_jvp.tanh_jvp with respect to w.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def jvp_tanh_jvp(dw, w, x):
    h = np.tanh(x @ w)
    dh = (x @ dw) * (1 - h * h)
    _t3 = np.max(h)
    d_t3 = np.sum(runtime.extremum_grad(np.ones_like(_t3), _t3, h) * dh)
    return np.sum(h * h) + _t3, np.sum(dh * h + h * dh) + d_t3
