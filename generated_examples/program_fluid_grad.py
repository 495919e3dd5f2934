# Emitted by srcdiff from tests/programs/fluid.py (function loss, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
"""Gradient of generated_examples.fluid.loss with respect to init_velocity.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dloss(init_velocity, smoke, target, num_time_steps=3):
    _t0 = init_velocity[0]
    _t1 = init_velocity[1]
    final_smoke, simulate_saved = fwd_simulate(_t0, _t1, smoke, num_time_steps)
    _t2 = final_smoke - target
    _t3 = _t2 ** 2
    _t4 = np.mean(_t3)
    b_t4 = runtime.grad_seed(_t4)
    b_t3 = runtime.mean_grad(b_t4, _t3)
    b_t2 = b_t3 * 2 * _t2
    bfinal_smoke = runtime.unbroadcast(b_t2, final_smoke)
    bvx, bvy = bwd_simulate(bfinal_smoke, simulate_saved)
    binit_velocity = runtime.getitem_grad(bvy, init_velocity, 1)
    binit_velocity = runtime.add_at(binit_velocity, init_velocity, 0, bvx)
    return runtime.as_grad(binit_velocity, init_velocity)


def fwd_simulate(vx, vy, smoke, num_time_steps):
    _stack_advect_saved = []
    _stack_advect_saved_1 = []
    _stack_t0 = []
    _stack_project_saved = []
    _stack_vx = []
    _stack_vy = []
    _stack_advect_saved_2 = []
    for t in range(num_time_steps):
        vx_updated, advect_saved = fwd_advect(vx, vx, vy)
        _stack_advect_saved.append(advect_saved)
        vy_updated, advect_saved_1 = fwd_advect(vy, vx, vy)
        _stack_advect_saved_1.append(advect_saved_1)
        _t0, project_saved = fwd_project(vx_updated, vy_updated)
        _stack_t0.append(runtime.shape_of(_t0))
        _stack_project_saved.append(project_saved)
        _stack_vx.append(runtime.shape_of(vx))
        vx = _t0[0]
        _stack_vy.append(runtime.shape_of(vy))
        vy = _t0[1]
        smoke, advect_saved_2 = fwd_advect(smoke, vx, vy)
        _stack_advect_saved_2.append(advect_saved_2)
    return smoke, [_stack_advect_saved, _stack_advect_saved_1, _stack_advect_saved_2,
        _stack_project_saved, _stack_t0, _stack_vx, _stack_vy, num_time_steps,
        runtime.shape_of(vx), runtime.shape_of(vy)]


def bwd_simulate(bsmoke, saved):
    (_stack_advect_saved, _stack_advect_saved_1, _stack_advect_saved_2, _stack_project_saved,
        _stack_t0, _stack_vx, _stack_vy, num_time_steps, vx, vy) = saved
    saved.clear()
    bvx = runtime.zeros_like(vx)
    bvy = runtime.zeros_like(vy)
    for t in reversed(range(num_time_steps)):
        advect_saved_2 = _stack_advect_saved_2.pop()
        project_saved = _stack_project_saved.pop()
        _t0 = _stack_t0.pop()
        advect_saved_1 = _stack_advect_saved_1.pop()
        advect_saved = _stack_advect_saved.pop()
        advect_grads_2 = bwd_advect(bsmoke, advect_saved_2)
        bsmoke = advect_grads_2[0]
        bvx += advect_grads_2[1]
        bvy += advect_grads_2[2]
        b_t0 = runtime.getitem_grad(bvy, _t0, 1)
        vy = _stack_vy.pop()
        b_t0 = runtime.add_at(b_t0, _t0, 0, bvx)
        vx = _stack_vx.pop()
        bvx_updated, bvy_updated = bwd_project(b_t0, project_saved)
        advect_grads_1 = bwd_advect(bvy_updated, advect_saved_1)
        bvy = advect_grads_1[0] + advect_grads_1[2]
        advect_grads = bwd_advect(bvx_updated, advect_saved)
        bvx = advect_grads_1[1] + advect_grads[0]
        bvx += advect_grads[1]
        bvy += advect_grads[2]
    del (_stack_advect_saved, _stack_advect_saved_1, _stack_advect_saved_2, _stack_project_saved,
        _stack_t0, _stack_vx, _stack_vy, num_time_steps, vx, vy)
    return bvx, bvy


def fwd_advect(f, vx, vy):
    rows, cols = f.shape
    cell_ys, cell_xs = np.meshgrid(np.arange(rows), np.arange(cols), indexing='ij')
    _t0 = cell_xs - vx
    center_xs = _t0.ravel()
    _t1 = cell_ys - vy
    center_ys = _t1.ravel()
    left_ix = np.floor(center_xs).astype(int)
    top_ix = np.floor(center_ys).astype(int)
    rw = center_xs - left_ix
    bw = center_ys - top_ix
    left_ix = np.remainder(left_ix, cols)
    right_ix = np.remainder(left_ix + 1, cols)
    top_ix = np.remainder(top_ix, rows)
    bot_ix = np.remainder(top_ix + 1, rows)
    _t2 = 1 - rw
    _t3 = 1 - bw
    _t4 = f[top_ix, left_ix]
    _t5 = _t3 * _t4
    _t6 = f[bot_ix, left_ix]
    _t7 = bw * _t6
    _t8 = _t5 + _t7
    _t9 = _t2 * _t8
    _t10 = 1 - bw
    _t11 = f[top_ix, right_ix]
    _t12 = _t10 * _t11
    _t13 = f[bot_ix, right_ix]
    _t14 = bw * _t13
    _t15 = _t12 + _t14
    _t16 = rw * _t15
    flat_f = _t9 + _t16
    _t17 = np.reshape(flat_f, (rows, cols))
    return _t17, [runtime.shape_of(_t0), runtime.shape_of(_t1), _t10, _t11, runtime.shape_of(_t12),
        _t13, runtime.shape_of(_t14), _t15, runtime.shape_of(_t16), _t2, _t3, _t4,
        runtime.shape_of(_t5), _t6, runtime.shape_of(_t7), _t8, runtime.shape_of(_t9), bot_ix, bw,
        runtime.shape_of(center_xs), runtime.shape_of(center_ys), runtime.shape_of(f),
        runtime.shape_of(flat_f), left_ix, right_ix, rw, top_ix, runtime.shape_of(vx),
        runtime.shape_of(vy)]


def bwd_advect(b_t17, saved):
    (_t0, _t1, _t10, _t11, _t12, _t13, _t14, _t15, _t16, _t2, _t3, _t4, _t5, _t6, _t7, _t8, _t9,
        bot_ix, bw, center_xs, center_ys, f, flat_f, left_ix, right_ix, rw, top_ix, vx, vy) = saved
    saved.clear()
    bflat_f = np.reshape(b_t17, np.shape(flat_f))
    del flat_f
    b_t9 = runtime.unbroadcast(bflat_f, _t9)
    del _t9
    b_t16 = runtime.unbroadcast(bflat_f, _t16)
    del _t16, bflat_f
    brw = runtime.unbroadcast(b_t16 * _t15, rw)
    b_t15 = runtime.unbroadcast(b_t16 * rw, _t15)
    del _t15, b_t16, rw
    b_t12 = runtime.unbroadcast(b_t15, _t12)
    del _t12
    b_t14 = runtime.unbroadcast(b_t15, _t14)
    del _t14, b_t15
    b_t13 = runtime.unbroadcast(b_t14 * bw, _t13)
    bf = runtime.getitem_grad(b_t13, f, (bot_ix, right_ix))
    del b_t13
    b_t10 = runtime.unbroadcast(b_t12 * _t11, _t10)
    b_t11 = runtime.unbroadcast(b_t12 * _t10, _t11)
    del _t10, _t11, b_t12
    bf = runtime.add_at(bf, f, (top_ix, right_ix), b_t11)
    del b_t11, right_ix
    bbw = runtime.unbroadcast(b_t14 * _t13, bw) + -b_t10
    del _t13, b_t10, b_t14
    b_t2 = runtime.unbroadcast(b_t9 * _t8, _t2)
    b_t8 = runtime.unbroadcast(b_t9 * _t2, _t8)
    del _t2, _t8, b_t9
    b_t5 = runtime.unbroadcast(b_t8, _t5)
    del _t5
    b_t7 = runtime.unbroadcast(b_t8, _t7)
    del _t7, b_t8
    bbw += runtime.unbroadcast(b_t7 * _t6, bw)
    b_t6 = runtime.unbroadcast(b_t7 * bw, _t6)
    del _t6, b_t7, bw
    bf = runtime.add_at(bf, f, (bot_ix, left_ix), b_t6)
    del b_t6, bot_ix
    b_t3 = runtime.unbroadcast(b_t5 * _t4, _t3)
    b_t4 = runtime.unbroadcast(b_t5 * _t3, _t4)
    del _t3, _t4, b_t5
    bf = runtime.add_at(bf, f, (top_ix, left_ix), b_t4)
    del b_t4, f, left_ix, top_ix
    bbw += -b_t3
    del b_t3
    brw = brw + -b_t2
    del b_t2
    bcenter_ys = runtime.unbroadcast(bbw, center_ys)
    del bbw, center_ys
    bcenter_xs = runtime.unbroadcast(brw, center_xs)
    del brw, center_xs
    b_t1 = np.reshape(bcenter_ys, np.shape(_t1))
    del _t1, bcenter_ys
    bvy = runtime.unbroadcast(-b_t1, vy)
    del b_t1, vy
    b_t0 = np.reshape(bcenter_xs, np.shape(_t0))
    del _t0, bcenter_xs
    bvx = runtime.unbroadcast(-b_t0, vx)
    del b_t0, vx
    return bf, bvx, bvy


def fwd_project(vx, vy, num_iterations=8):
    _stack_t8 = []
    _stack_t9 = []
    _stack_t10 = []
    _stack_t11 = []
    _stack_t12 = []
    _stack_t13 = []
    _stack_t14 = []
    h = 1.0 / vx.shape[0]
    _t0 = -0.5 * h
    _t1 = np.roll(vx, -1, axis=0)
    _t2 = np.roll(vx, 1, axis=0)
    _t3 = _t1 - _t2
    _t4 = np.roll(vy, -1, axis=1)
    _t5 = _t3 + _t4
    _t6 = np.roll(vy, 1, axis=1)
    _t7 = _t5 - _t6
    div = _t0 * _t7
    p = np.zeros(vx.shape)
    for k in range(num_iterations):
        _t8 = np.roll(p, 1, axis=0)
        _stack_t8.append(runtime.shape_of(_t8))
        _t9 = div + _t8
        _stack_t9.append(runtime.shape_of(_t9))
        _t10 = np.roll(p, -1, axis=0)
        _stack_t10.append(runtime.shape_of(_t10))
        _t11 = _t9 + _t10
        _stack_t11.append(runtime.shape_of(_t11))
        _t12 = np.roll(p, 1, axis=1)
        _stack_t12.append(runtime.shape_of(_t12))
        _t13 = _t11 + _t12
        _stack_t13.append(runtime.shape_of(_t13))
        _t14 = np.roll(p, -1, axis=1)
        _stack_t14.append(runtime.shape_of(_t14))
        _t15 = _t13 + _t14
        p = _t15 / 4.0
    _t16 = np.roll(p, -1, axis=0)
    _t17 = np.roll(p, 1, axis=0)
    _t18 = _t16 - _t17
    _t19 = 0.5 * _t18
    _t20 = _t19 / h
    vx_1 = vx - _t20
    _t21 = np.roll(p, -1, axis=1)
    _t22 = np.roll(p, 1, axis=1)
    _t23 = _t21 - _t22
    _t24 = 0.5 * _t23
    _t25 = _t24 / h
    vy_1 = vy - _t25
    return (vx_1, vy_1), [_stack_t10, _stack_t11, _stack_t12, _stack_t13, _stack_t14, _stack_t8,
        _stack_t9, _t0, runtime.shape_of(_t1), runtime.shape_of(_t16), runtime.shape_of(_t17),
        runtime.shape_of(_t2), runtime.shape_of(_t20), runtime.shape_of(_t21),
        runtime.shape_of(_t22), runtime.shape_of(_t25), runtime.shape_of(_t3),
        runtime.shape_of(_t4), runtime.shape_of(_t5), runtime.shape_of(_t6), runtime.shape_of(div),
        h, num_iterations, runtime.shape_of(vx), runtime.shape_of(vx_1), runtime.shape_of(vy),
        runtime.shape_of(vy_1)]


def bwd_project(b_out, saved):
    (_stack_t10, _stack_t11, _stack_t12, _stack_t13, _stack_t14, _stack_t8, _stack_t9, _t0, _t1,
        _t16, _t17, _t2, _t20, _t21, _t22, _t25, _t3, _t4, _t5, _t6, div, h, num_iterations, vx,
        vx_1, vy, vy_1) = saved
    saved.clear()
    b_outs = runtime.unpack_adjoint(b_out, (vx_1, vy_1))
    del vx_1, vy_1
    bvx_1 = b_outs[0]
    bvy_1 = b_outs[1]
    del b_outs
    b_t25 = runtime.unbroadcast(-bvy_1, _t25)
    del _t25
    b_t24 = b_t25 / h
    del b_t25
    b_t23 = b_t24 * 0.5
    del b_t24
    b_t21 = runtime.unbroadcast(b_t23, _t21)
    del _t21
    b_t22 = runtime.unbroadcast(-b_t23, _t22)
    del _t22, b_t23
    bp = np.roll(b_t22, np.negative(1), axis=1)
    del b_t22
    bp += np.roll(b_t21, np.negative(-1), axis=1)
    del b_t21
    b_t20 = runtime.unbroadcast(-bvx_1, _t20)
    del _t20
    b_t19 = b_t20 / h
    del b_t20, h
    b_t18 = b_t19 * 0.5
    del b_t19
    b_t16 = runtime.unbroadcast(b_t18, _t16)
    del _t16
    b_t17 = runtime.unbroadcast(-b_t18, _t17)
    del _t17, b_t18
    bp += np.roll(b_t17, np.negative(1), axis=0)
    del b_t17
    bp += np.roll(b_t16, np.negative(-1), axis=0)
    del b_t16
    bdiv = runtime.zeros_like(div)
    for k in reversed(range(num_iterations)):
        _t14 = _stack_t14.pop()
        _t13 = _stack_t13.pop()
        _t12 = _stack_t12.pop()
        _t11 = _stack_t11.pop()
        _t10 = _stack_t10.pop()
        _t9 = _stack_t9.pop()
        _t8 = _stack_t8.pop()
        b_t15 = bp / 4.0
        b_t13 = runtime.unbroadcast(b_t15, _t13)
        b_t14 = runtime.unbroadcast(b_t15, _t14)
        bp = np.roll(b_t14, np.negative(-1), axis=1)
        b_t11 = runtime.unbroadcast(b_t13, _t11)
        b_t12 = runtime.unbroadcast(b_t13, _t12)
        bp += np.roll(b_t12, np.negative(1), axis=1)
        b_t9 = runtime.unbroadcast(b_t11, _t9)
        b_t10 = runtime.unbroadcast(b_t11, _t10)
        bp += np.roll(b_t10, np.negative(-1), axis=0)
        bdiv += runtime.unbroadcast(b_t9, div)
        b_t8 = runtime.unbroadcast(b_t9, _t8)
        bp += np.roll(b_t8, np.negative(1), axis=0)
    del (_stack_t10, _stack_t11, _stack_t12, _stack_t13, _stack_t14, _stack_t8, _stack_t9, bp, div,
        num_iterations)
    b_t7 = bdiv * _t0
    del _t0, bdiv
    b_t5 = runtime.unbroadcast(b_t7, _t5)
    del _t5
    b_t6 = runtime.unbroadcast(-b_t7, _t6)
    del _t6, b_t7
    bvy = runtime.unbroadcast(bvy_1, vy) + np.roll(b_t6, np.negative(1), axis=1)
    del b_t6, bvy_1, vy
    b_t3 = runtime.unbroadcast(b_t5, _t3)
    del _t3
    b_t4 = runtime.unbroadcast(b_t5, _t4)
    del _t4, b_t5
    bvy += np.roll(b_t4, np.negative(-1), axis=1)
    del b_t4
    b_t1 = runtime.unbroadcast(b_t3, _t1)
    del _t1
    b_t2 = runtime.unbroadcast(-b_t3, _t2)
    del _t2, b_t3
    bvx = runtime.unbroadcast(bvx_1, vx) + np.roll(b_t2, np.negative(1), axis=0)
    del b_t2, bvx_1, vx
    bvx += np.roll(b_t1, np.negative(-1), axis=0)
    del b_t1
    return bvx, bvy
