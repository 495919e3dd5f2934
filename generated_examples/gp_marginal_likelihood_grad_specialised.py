# Emitted by srcdiff from generated_examples/gp_marginal_likelihood.py (function gp_marginal_likelihood, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
# Specialised for the example's arguments: float64[3], float64[8, 2], float64[8]
"""Gradient of generated_examples.gp_marginal_likelihood.gp_marginal_likelihood with respect to params.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime
import scipy.linalg


def dgp_marginal_likelihood(params, x, y):
    _t0 = params[0]
    _t1 = np.exp(_t0)
    _t2 = params[1]
    _t3 = np.exp(_t2)
    _t4 = params[2]
    _t5 = np.exp(_t4)
    sqdist = np.sum((x[:, None, :] - x[None, :, :]) ** 2, axis=-1)
    _t6 = _t3 ** 2
    _t7 = -0.5 * sqdist
    _t8 = _t1 ** 2
    _t9 = _t7 / _t8
    _t10 = np.exp(_t9)
    _t11 = _t6 * _t10
    _t12 = _t5 ** 2
    _t13 = np.eye(len(y))
    _t14 = _t12 * _t13
    k = _t11 + _t14
    factor = np.linalg.cholesky(k)
    alpha = scipy.linalg.solve_triangular(factor, y, lower=True)
    _t16 = 0.5 * alpha
    b_t21 = 1.0
    blogdet = b_t21 * 0.5
    b_t16 = b_t21 * alpha
    balpha = b_t21 * _t16
    balpha += b_t16 * 0.5
    bk = blogdet * np.linalg.inv(k).T
    bfactor = -np.tril(np.outer(scipy.linalg.solve_triangular(factor, balpha, trans=1, lower=True),
        alpha))
    bk += runtime.cholesky_vjp(bfactor, factor)
    b_t12 = (bk * _t13).sum(axis=(0, 1))
    bnoise = b_t12 * 2 * _t5
    b_t6 = (bk * _t10).sum(axis=(0, 1))
    b_t10 = bk * _t6
    b_t9 = b_t10 * _t10
    b_t8 = (-b_t9 * _t9 / _t8).sum(axis=(0, 1))
    blengthscale = b_t8 * 2 * _t1
    bsignal = b_t6 * 2 * _t3
    b_t4 = bnoise * _t5
    b_t2 = bsignal * _t3
    b_t0 = blengthscale * _t1
    bparams = np.array([b_t0, b_t2, b_t4])
    return bparams
