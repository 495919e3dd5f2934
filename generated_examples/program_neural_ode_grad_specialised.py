# Emitted by srcdiff from tests/programs/neural_ode.py (function loss, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
# Specialised for the example's arguments: {W1: float64[3, 6], b1: float64[6], W2: float64[6, 2], b2: float64[2]}, float64[2], float64[5], float64[5, 2]
"""Gradient of generated_examples.neural_ode.loss with respect to params.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dloss(params, y0, ts, observed):
    _stack_rk4_step_y0 = []
    _stack_rk4_step_dt0 = []
    _stack_dynamics_saved = []
    _stack_rk4_step_k1_0 = []
    _stack_t1 = []
    _stack_dynamics_saved_1 = []
    _stack_rk4_step_k2_0 = []
    _stack_t3 = []
    _stack_dynamics_saved_2 = []
    _stack_rk4_step_k3_0 = []
    _stack_t4 = []
    _stack_dynamics_saved_3 = []
    _stack_rk4_step_k4_0 = []
    _stack_t5 = []
    _stack_t6 = []
    _stack_t7 = []
    _stack_t8 = []
    _stack_t9 = []
    _stack_t11 = []
    odeint_steps_per_interval0 = 2
    odeint_ys0 = [y0]
    odeint_y0 = y0
    _seq0 = ts[:-1]
    _seq1 = ts[1:]
    for _i0 in range(min(len(_seq0), len(_seq1))):
        odeint_t0_0 = _seq0[_i0]
        odeint_t1_0 = _seq1[_i0]
        odeint_dt0 = (odeint_t1_0 - odeint_t0_0) / odeint_steps_per_interval0
        odeint_t0 = odeint_t0_0
        for odeint__0 in range(odeint_steps_per_interval0):
            rk4_step_y0 = odeint_y0
            _stack_rk4_step_y0.append(rk4_step_y0)
            rk4_step_dt0 = odeint_dt0
            _stack_rk4_step_dt0.append(rk4_step_dt0)
            func_result0, dynamics_saved = fwd_dynamics_s1(params, rk4_step_y0, odeint_t0)
            _stack_dynamics_saved.append(dynamics_saved)
            rk4_step_k1_0 = func_result0
            _stack_rk4_step_k1_0.append(rk4_step_k1_0)
            _t0 = rk4_step_dt0 * rk4_step_k1_0
            _t1 = _t0 / 2
            _stack_t1.append(_t1)
            func_y1 = rk4_step_y0 + _t1
            func_t1 = odeint_t0 + rk4_step_dt0 / 2
            func_result1, dynamics_saved_1 = fwd_dynamics_s1(params, func_y1, func_t1)
            _stack_dynamics_saved_1.append(dynamics_saved_1)
            rk4_step_k2_0 = func_result1
            _stack_rk4_step_k2_0.append(rk4_step_k2_0)
            _t2 = rk4_step_dt0 * rk4_step_k2_0
            _t3 = _t2 / 2
            _stack_t3.append(_t3)
            func_y2 = rk4_step_y0 + _t3
            func_t2 = odeint_t0 + rk4_step_dt0 / 2
            func_result2, dynamics_saved_2 = fwd_dynamics_s1(params, func_y2, func_t2)
            _stack_dynamics_saved_2.append(dynamics_saved_2)
            rk4_step_k3_0 = func_result2
            _stack_rk4_step_k3_0.append(rk4_step_k3_0)
            _t4 = rk4_step_dt0 * rk4_step_k3_0
            _stack_t4.append(_t4)
            func_y3 = rk4_step_y0 + _t4
            func_t3 = odeint_t0 + rk4_step_dt0
            func_result3, dynamics_saved_3 = fwd_dynamics_s1(params, func_y3, func_t3)
            _stack_dynamics_saved_3.append(dynamics_saved_3)
            rk4_step_k4_0 = func_result3
            _stack_rk4_step_k4_0.append(rk4_step_k4_0)
            _t5 = 2 * rk4_step_k2_0
            _stack_t5.append(_t5)
            _t6 = rk4_step_k1_0 + _t5
            _stack_t6.append(_t6)
            _t7 = 2 * rk4_step_k3_0
            _stack_t7.append(_t7)
            _t8 = _t6 + _t7
            _stack_t8.append(_t8)
            _t9 = _t8 + rk4_step_k4_0
            _stack_t9.append(_t9)
            _t10 = rk4_step_dt0 * _t9
            _t11 = _t10 / 6
            _stack_t11.append(_t11)
            rk4_step_result0 = rk4_step_y0 + _t11
            odeint_y0 = rk4_step_result0
            odeint_t0 = odeint_t0 + odeint_dt0
        odeint_ys0.append(odeint_y0)
    odeint_result0 = np.stack(odeint_ys0)
    _t12 = odeint_result0 - observed
    _t13 = _t12 ** 2
    _t14 = np.mean(_t13)
    b_t14 = runtime.grad_seed(_t14)
    b_t13 = runtime.mean_grad(b_t14, _t13)
    b_t12 = b_t13 * 2 * _t12
    bpredicted = runtime.unbroadcast(b_t12, odeint_result0)
    bodeint_ys0 = runtime.add_items([], [runtime.unstack(bpredicted,
        _k) for _k in range(len(odeint_ys0))])
    bodeint_y0 = np.zeros_like(odeint_y0)
    bparams = runtime.zeros_like(params)
    for _i0 in reversed(range(min(len(_seq0), len(_seq1)))):
        bodeint_y0 = bodeint_y0 + bodeint_ys0.pop()
        for odeint__0 in reversed(range(odeint_steps_per_interval0)):
            _t11 = _stack_t11.pop()
            _t9 = _stack_t9.pop()
            _t8 = _stack_t8.pop()
            _t7 = _stack_t7.pop()
            _t6 = _stack_t6.pop()
            _t5 = _stack_t5.pop()
            rk4_step_k4_0 = _stack_rk4_step_k4_0.pop()
            dynamics_saved_3 = _stack_dynamics_saved_3.pop()
            _t4 = _stack_t4.pop()
            rk4_step_k3_0 = _stack_rk4_step_k3_0.pop()
            dynamics_saved_2 = _stack_dynamics_saved_2.pop()
            _t3 = _stack_t3.pop()
            rk4_step_k2_0 = _stack_rk4_step_k2_0.pop()
            dynamics_saved_1 = _stack_dynamics_saved_1.pop()
            _t1 = _stack_t1.pop()
            rk4_step_k1_0 = _stack_rk4_step_k1_0.pop()
            dynamics_saved = _stack_dynamics_saved.pop()
            rk4_step_dt0 = _stack_rk4_step_dt0.pop()
            rk4_step_y0 = _stack_rk4_step_y0.pop()
            brk4_step_y0 = runtime.unbroadcast(bodeint_y0, rk4_step_y0)
            b_t11 = runtime.unbroadcast(bodeint_y0, _t11)
            b_t10 = b_t11 / 6
            b_t9 = runtime.unbroadcast(b_t10 * rk4_step_dt0, _t9)
            b_t8 = runtime.unbroadcast(b_t9, _t8)
            brk4_step_k4_0 = runtime.unbroadcast(b_t9, rk4_step_k4_0)
            b_t6 = runtime.unbroadcast(b_t8, _t6)
            b_t7 = runtime.unbroadcast(b_t8, _t7)
            brk4_step_k3_0 = b_t7 * 2
            brk4_step_k1_0 = runtime.unbroadcast(b_t6, rk4_step_k1_0)
            b_t5 = runtime.unbroadcast(b_t6, _t5)
            brk4_step_k2_0 = b_t5 * 2
            dynamics_grads_3 = bwd_dynamics_s1(brk4_step_k4_0, dynamics_saved_3)
            bparams += dynamics_grads_3[0]
            bfunc_y3 = dynamics_grads_3[1]
            brk4_step_y0 = brk4_step_y0 + runtime.unbroadcast(bfunc_y3, rk4_step_y0)
            b_t4 = runtime.unbroadcast(bfunc_y3, _t4)
            brk4_step_k3_0 = brk4_step_k3_0 + runtime.unbroadcast(b_t4 * rk4_step_dt0,
                rk4_step_k3_0)
            dynamics_grads_2 = bwd_dynamics_s1(brk4_step_k3_0, dynamics_saved_2)
            bparams += dynamics_grads_2[0]
            bfunc_y2 = dynamics_grads_2[1]
            brk4_step_y0 += runtime.unbroadcast(bfunc_y2, rk4_step_y0)
            b_t3 = runtime.unbroadcast(bfunc_y2, _t3)
            b_t2 = b_t3 / 2
            brk4_step_k2_0 = brk4_step_k2_0 + runtime.unbroadcast(b_t2 * rk4_step_dt0,
                rk4_step_k2_0)
            dynamics_grads_1 = bwd_dynamics_s1(brk4_step_k2_0, dynamics_saved_1)
            bparams += dynamics_grads_1[0]
            bfunc_y1 = dynamics_grads_1[1]
            brk4_step_y0 += runtime.unbroadcast(bfunc_y1, rk4_step_y0)
            b_t1 = runtime.unbroadcast(bfunc_y1, _t1)
            b_t0 = b_t1 / 2
            brk4_step_k1_0 = brk4_step_k1_0 + runtime.unbroadcast(b_t0 * rk4_step_dt0,
                rk4_step_k1_0)
            dynamics_grads = bwd_dynamics_s1(brk4_step_k1_0, dynamics_saved)
            bparams += dynamics_grads[0]
            bfunc_y0 = dynamics_grads[1]
            brk4_step_y0 += bfunc_y0
            bodeint_y0 = brk4_step_y0
    return runtime.as_grad(bparams, params)


def fwd_dynamics_s1(params, y, t):
    _t0 = np.array([t])
    inputs = np.concatenate([y, _t0])
    _t1 = params['W1']
    _t2 = inputs @ _t1
    _t3 = params['b1']
    _t4 = _t2 + _t3
    hidden = np.tanh(_t4)
    _t5 = params['W2']
    _t6 = hidden @ _t5
    _t7 = params['b2']
    _t8 = _t6 + _t7
    return _t8, [_t0, _t1, _t2, _t3, _t5, _t6, _t7, hidden, inputs, runtime.shape_of(params), y]


def bwd_dynamics_s1(b_t8, saved):
    _t0, _t1, _t2, _t3, _t5, _t6, _t7, hidden, inputs, params, y = saved
    saved.clear()
    b_t6 = runtime.unbroadcast(b_t8, _t6)
    del _t6
    b_t7 = runtime.unbroadcast(b_t8, _t7)
    del _t7
    bparams = runtime.getitem_grad(b_t7, params, 'b2')
    del b_t7
    bhidden = runtime.matmul_grad(b_t6, hidden, _t5, 0)
    b_t5 = runtime.matmul_grad(b_t6, hidden, _t5, 1)
    del _t5, b_t6
    bparams = runtime.add_at(bparams, params, 'W2', b_t5)
    del b_t5
    b_t4 = bhidden * (1 - hidden * hidden)
    del bhidden, hidden
    b_t2 = runtime.unbroadcast(b_t4, _t2)
    del _t2
    b_t3 = runtime.unbroadcast(b_t4, _t3)
    del _t3, b_t4
    bparams = runtime.add_at(bparams, params, 'b1', b_t3)
    del b_t3
    binputs = runtime.matmul_grad(b_t2, inputs, _t1, 0)
    b_t1 = runtime.matmul_grad(b_t2, inputs, _t1, 1)
    del _t1, b_t2, inputs
    bparams = runtime.add_at(bparams, params, 'W1', b_t1)
    del b_t1, params
    by = runtime.unconcatenate(binputs, [y, _t0], 0)
    del _t0, binputs, y
    return bparams, by
