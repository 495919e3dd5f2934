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
    _stack_rk4_step_y = []
    _stack_rk4_step_dt = []
    _stack_dynamics_saved = []
    _stack_rk4_step_k1 = []
    _stack_t1 = []
    _stack_dynamics_saved_1 = []
    _stack_rk4_step_k2 = []
    _stack_t3 = []
    _stack_dynamics_saved_2 = []
    _stack_rk4_step_k3 = []
    _stack_t4 = []
    _stack_dynamics_saved_3 = []
    _stack_rk4_step_k4 = []
    _stack_t5 = []
    _stack_t6 = []
    _stack_t7 = []
    _stack_t8 = []
    _stack_t9 = []
    _stack_t11 = []
    odeint_steps_per_interval = 2
    odeint_ys = [y0]
    odeint_y = y0
    _seq0 = ts[:-1]
    _seq1 = ts[1:]
    for _i0 in range(min(len(_seq0), len(_seq1))):
        odeint_t0 = _seq0[_i0]
        odeint_t1 = _seq1[_i0]
        odeint_dt = (odeint_t1 - odeint_t0) / odeint_steps_per_interval
        odeint_t = odeint_t0
        for odeint__ in range(odeint_steps_per_interval):
            rk4_step_y = odeint_y
            _stack_rk4_step_y.append(rk4_step_y)
            rk4_step_dt = odeint_dt
            _stack_rk4_step_dt.append(rk4_step_dt)
            func_result, dynamics_saved = fwd_dynamics_s1(params, rk4_step_y, odeint_t)
            _stack_dynamics_saved.append(dynamics_saved)
            rk4_step_k1 = func_result
            _stack_rk4_step_k1.append(rk4_step_k1)
            _t0 = rk4_step_dt * rk4_step_k1
            _t1 = _t0 / 2
            _stack_t1.append(_t1)
            func_y_1 = rk4_step_y + _t1
            func_t_1 = odeint_t + rk4_step_dt / 2
            func_result_1, dynamics_saved_1 = fwd_dynamics_s1(params, func_y_1, func_t_1)
            _stack_dynamics_saved_1.append(dynamics_saved_1)
            rk4_step_k2 = func_result_1
            _stack_rk4_step_k2.append(rk4_step_k2)
            _t2 = rk4_step_dt * rk4_step_k2
            _t3 = _t2 / 2
            _stack_t3.append(_t3)
            func_y_2 = rk4_step_y + _t3
            func_t_2 = odeint_t + rk4_step_dt / 2
            func_result_2, dynamics_saved_2 = fwd_dynamics_s1(params, func_y_2, func_t_2)
            _stack_dynamics_saved_2.append(dynamics_saved_2)
            rk4_step_k3 = func_result_2
            _stack_rk4_step_k3.append(rk4_step_k3)
            _t4 = rk4_step_dt * rk4_step_k3
            _stack_t4.append(_t4)
            func_y_3 = rk4_step_y + _t4
            func_t_3 = odeint_t + rk4_step_dt
            func_result_3, dynamics_saved_3 = fwd_dynamics_s1(params, func_y_3, func_t_3)
            _stack_dynamics_saved_3.append(dynamics_saved_3)
            rk4_step_k4 = func_result_3
            _stack_rk4_step_k4.append(rk4_step_k4)
            _t5 = 2 * rk4_step_k2
            _stack_t5.append(_t5)
            _t6 = rk4_step_k1 + _t5
            _stack_t6.append(_t6)
            _t7 = 2 * rk4_step_k3
            _stack_t7.append(_t7)
            _t8 = _t6 + _t7
            _stack_t8.append(_t8)
            _t9 = _t8 + rk4_step_k4
            _stack_t9.append(_t9)
            _t10 = rk4_step_dt * _t9
            _t11 = _t10 / 6
            _stack_t11.append(_t11)
            rk4_step_result = rk4_step_y + _t11
            odeint_y = rk4_step_result
            odeint_t = odeint_t + odeint_dt
        odeint_ys.append(odeint_y)
    odeint_result = np.stack(odeint_ys)
    _t12 = odeint_result - observed
    _t13 = _t12 ** 2
    _t14 = np.mean(_t13)
    b_t14 = runtime.grad_seed(_t14)
    b_t13 = runtime.mean_grad(b_t14, _t13)
    b_t12 = b_t13 * 2 * _t12
    bpredicted = runtime.unbroadcast(b_t12, odeint_result)
    bodeint_ys = runtime.add_items([],
        [runtime.unstack(bpredicted, _k) for _k in range(len(odeint_ys))])
    bodeint_y = np.zeros_like(odeint_y)
    bparams = runtime.zeros_like(params)
    for _i0 in reversed(range(min(len(_seq0), len(_seq1)))):
        bodeint_y = bodeint_y + bodeint_ys.pop()
        for odeint__ in reversed(range(odeint_steps_per_interval)):
            _t11 = _stack_t11.pop()
            _t9 = _stack_t9.pop()
            _t8 = _stack_t8.pop()
            _t7 = _stack_t7.pop()
            _t6 = _stack_t6.pop()
            _t5 = _stack_t5.pop()
            rk4_step_k4 = _stack_rk4_step_k4.pop()
            dynamics_saved_3 = _stack_dynamics_saved_3.pop()
            _t4 = _stack_t4.pop()
            rk4_step_k3 = _stack_rk4_step_k3.pop()
            dynamics_saved_2 = _stack_dynamics_saved_2.pop()
            _t3 = _stack_t3.pop()
            rk4_step_k2 = _stack_rk4_step_k2.pop()
            dynamics_saved_1 = _stack_dynamics_saved_1.pop()
            _t1 = _stack_t1.pop()
            rk4_step_k1 = _stack_rk4_step_k1.pop()
            dynamics_saved = _stack_dynamics_saved.pop()
            rk4_step_dt = _stack_rk4_step_dt.pop()
            rk4_step_y = _stack_rk4_step_y.pop()
            b_t11 = runtime.unbroadcast(bodeint_y, _t11)
            b_t10 = b_t11 / 6
            b_t9 = runtime.unbroadcast(b_t10 * rk4_step_dt, _t9)
            b_t8 = runtime.unbroadcast(b_t9, _t8)
            brk4_step_k4 = runtime.unbroadcast(b_t9, rk4_step_k4)
            b_t6 = runtime.unbroadcast(b_t8, _t6)
            b_t7 = runtime.unbroadcast(b_t8, _t7)
            brk4_step_k3 = b_t7 * 2
            brk4_step_k1 = runtime.unbroadcast(b_t6, rk4_step_k1)
            b_t5 = runtime.unbroadcast(b_t6, _t5)
            brk4_step_k2 = b_t5 * 2
            dynamics_grads_3 = bwd_dynamics_s1(brk4_step_k4, dynamics_saved_3)
            bparams += dynamics_grads_3[0]
            bfunc_y_3 = dynamics_grads_3[1]
            brk4_step_y = (runtime.unbroadcast(bodeint_y, rk4_step_y)
                + runtime.unbroadcast(bfunc_y_3, rk4_step_y))
            b_t4 = runtime.unbroadcast(bfunc_y_3, _t4)
            brk4_step_k3 += runtime.unbroadcast(b_t4 * rk4_step_dt, rk4_step_k3)
            dynamics_grads_2 = bwd_dynamics_s1(brk4_step_k3, dynamics_saved_2)
            bparams += dynamics_grads_2[0]
            bfunc_y_2 = dynamics_grads_2[1]
            brk4_step_y += runtime.unbroadcast(bfunc_y_2, rk4_step_y)
            b_t3 = runtime.unbroadcast(bfunc_y_2, _t3)
            b_t2 = b_t3 / 2
            brk4_step_k2 += runtime.unbroadcast(b_t2 * rk4_step_dt, rk4_step_k2)
            dynamics_grads_1 = bwd_dynamics_s1(brk4_step_k2, dynamics_saved_1)
            bparams += dynamics_grads_1[0]
            bfunc_y_1 = dynamics_grads_1[1]
            brk4_step_y += runtime.unbroadcast(bfunc_y_1, rk4_step_y)
            b_t1 = runtime.unbroadcast(bfunc_y_1, _t1)
            b_t0 = b_t1 / 2
            brk4_step_k1 = brk4_step_k1 + runtime.unbroadcast(b_t0 * rk4_step_dt, rk4_step_k1)
            dynamics_grads = bwd_dynamics_s1(brk4_step_k1, dynamics_saved)
            bparams += dynamics_grads[0]
            bfunc_y = dynamics_grads[1]
            brk4_step_y += bfunc_y
            bodeint_y = brk4_step_y
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
    return _t8, [_t0, _t1, _t2, _t3, _t5, _t6, _t7, hidden, inputs, y]


def bwd_dynamics_s1(b_t8, saved):
    _t0, _t1, _t2, _t3, _t5, _t6, _t7, hidden, inputs, y = saved
    saved.clear()
    b_t6 = runtime.unbroadcast(b_t8, _t6)
    del _t6
    b_t7 = runtime.unbroadcast(b_t8, _t7)
    del _t7
    bhidden = runtime.matmul_grad(b_t6, hidden, _t5, 0)
    b_t5 = runtime.matmul_grad(b_t6, hidden, _t5, 1)
    del _t5, b_t6
    b_t4 = bhidden * (1 - hidden * hidden)
    del bhidden, hidden
    b_t2 = runtime.unbroadcast(b_t4, _t2)
    del _t2
    b_t3 = runtime.unbroadcast(b_t4, _t3)
    del _t3, b_t4
    binputs = runtime.matmul_grad(b_t2, inputs, _t1, 0)
    b_t1 = runtime.matmul_grad(b_t2, inputs, _t1, 1)
    del _t1, b_t2, inputs
    bparams = runtime.Sparse({'W1': b_t1, 'b1': b_t3, 'W2': b_t5, 'b2': b_t7})
    del b_t1, b_t3, b_t5, b_t7
    by = runtime.unconcatenate(binputs, [y, _t0], 0)
    del _t0, binputs, y
    return bparams, by
