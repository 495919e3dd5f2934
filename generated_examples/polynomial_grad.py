# Emitted by srcdiff from generated_examples/polynomial.py (function polynomial, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
"""Gradient of generated_examples.polynomial.polynomial with respect to x.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dpolynomial(x, coefficients):
    _stack_t0 = []
    _stack_total = []
    total = 0.0
    _seq0 = list(coefficients)
    for c in _seq0:
        _t0 = total * x
        _stack_t0.append(runtime.shape_of(_t0))
        _stack_total.append(total)
        total = _t0 + c
    btotal = runtime.grad_seed(total)
    bx = runtime.zeros_like(x)
    for c in reversed(_seq0):
        _t0 = _stack_t0.pop()
        b_t0 = runtime.unbroadcast(btotal, _t0)
        total = _stack_total.pop()
        btotal = runtime.unbroadcast(b_t0 * x, total)
        bx += runtime.unbroadcast(b_t0 * total, x)
    return runtime.as_grad(bx, x)
