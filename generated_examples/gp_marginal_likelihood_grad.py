# Emitted by srcdiff from generated_examples/gp_marginal_likelihood.py (function gp_marginal_likelihood, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
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
    _t15 = np.linalg.slogdet(k)
    runtime.check_unpack(_t15, 2)
    logdet = _t15[1]
    _t16 = 0.5 * alpha
    _t17 = _t16 @ alpha
    _t18 = 0.5 * logdet
    _t19 = _t17 + _t18
    _t20 = 0.5 * len(y) * np.log(2 * np.pi)
    _t21 = _t19 + _t20
    b_t21 = runtime.grad_seed(_t21)
    b_t17 = runtime.unbroadcast(b_t21, _t17)
    b_t18 = runtime.unbroadcast(b_t21, _t18)
    blogdet = b_t18 * 0.5
    b_t16 = runtime.matmul_grad(b_t17, _t16, alpha, 0)
    balpha = runtime.matmul_grad(b_t17, _t16, alpha, 1)
    balpha += b_t16 * 0.5
    b_t15 = runtime.getitem_grad(blogdet, _t15, 1)
    bk = runtime.slogdet_vjp(b_t15, _t15, k)
    bfactor = -runtime.triangle(runtime.solve_outer(scipy.linalg.solve_triangular(factor, balpha,
        trans=1, lower=True), alpha), lower=True)
    bk += runtime.cholesky_vjp(bfactor, factor)
    b_t11 = runtime.unbroadcast(bk, _t11)
    b_t14 = runtime.unbroadcast(bk, _t14)
    b_t12 = runtime.unbroadcast(b_t14 * _t13, _t12)
    bnoise = b_t12 * 2 * _t5
    b_t6 = runtime.unbroadcast(b_t11 * _t10, _t6)
    b_t10 = runtime.unbroadcast(b_t11 * _t6, _t10)
    b_t9 = b_t10 * _t10
    b_t8 = runtime.unbroadcast(-b_t9 * _t9 / _t8, _t8)
    blengthscale = b_t8 * 2 * _t1
    bsignal = b_t6 * 2 * _t3
    b_t4 = bnoise * _t5
    bparams = runtime.getitem_grad(b_t4, params, 2)
    b_t2 = bsignal * _t3
    bparams = runtime.add_at(bparams, params, 1, b_t2)
    b_t0 = blengthscale * _t1
    bparams = runtime.add_at(bparams, params, 0, b_t0)
    return runtime.as_grad(bparams, params)
