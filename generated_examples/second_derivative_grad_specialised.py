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
    _t1 = x ** 3
    _t4 = np.exp(x * 0.5)
    b_t5 = 1.0
    b_t3 = b_t5 * _t4
    db_t3 = b_t5 * (0.5 * _t4)
    bx = b_t3 * 0.5
    dbx = db_t3 * 0.5
    b_t0 = b_t5 * _t1
    db_t0 = b_t5 * (dx * 3 * x ** 2)
    b_t1 = b_t5 * _t0
    db_t1 = b_t5 * np.cos(x)
    _t8 = b_t1 * 3
    _t9 = x ** 2
    d_t10 = db_t1 * 3 * _t9 + _t8 * (dx * 2 * x)
    bx = bx + _t8 * _t9
    dbx = dbx + d_t10
    _t11 = np.cos(x)
    d_t12 = db_t0 * _t11 + b_t0 * (-dx * np.sin(x))
    bx = bx + b_t0 * _t11
    dbx = dbx + d_t12
    return float(dbx)
