# Emitted by srcdiff from generated_examples/second_derivative.py (function second_derivative, mode grad2, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
# Specialised for the example's arguments: float
"""Gradient of generated_examples.second_derivative.dsecond_derivative with respect to x.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def ddsecond_derivative(x):
    dx = 1.0
    _t0 = np.sin(x)
    d_t0 = np.cos(x)
    _t1 = x ** 3
    d_t1 = dx * 3 * x ** 2
    _t3 = x * 0.5
    d_t3 = 0.5
    _t4 = np.exp(_t3)
    d_t4 = d_t3 * _t4
    b_t5 = 1.0
    b_t3 = b_t5 * _t4
    db_t3 = b_t5 * d_t4
    bx = b_t3 * 0.5
    dbx = db_t3 * 0.5
    _t6 = b_t5 * _t1
    d_t6 = b_t5 * d_t1
    _t7 = b_t5 * _t0
    d_t7 = b_t5 * d_t0
    _t8 = _t7 * 3
    d_t8 = d_t7 * 3
    _t9 = x ** 2
    d_t9 = dx * 2 * x
    _t10 = _t8 * _t9
    d_t10 = d_t8 * _t9 + _t8 * d_t9
    bx = bx + _t10
    dbx = dbx + d_t10
    _t11 = np.cos(x)
    d_t11 = -dx * np.sin(x)
    _t12 = _t6 * _t11
    d_t12 = d_t6 * _t11 + _t6 * d_t11
    bx = bx + _t12
    dbx = dbx + d_t12
    _t13 = float(bx)
    d_t13 = float(dbx)
    return d_t13
