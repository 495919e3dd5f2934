# Emitted by srcdiff from generated_examples/resnet_block.py (function resnet_block, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
"""Gradient of generated_examples.resnet_block.resnet_block with respect to p.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime
from srcdiff.nn import conv2d_input_grad
from srcdiff.nn import conv2d_weight_grad
from srcdiff.nn import padded_correlate


def dresnet_block(p, x):
    _t0 = p['w1']
    h, conv2d_saved = fwd_conv2d_w(x, _t0, 1, 1)
    _t1 = p['g1']
    _t2 = p['b1']
    _t3, batch_norm_saved = fwd_batch_norm(h, _t1, _t2)
    h = _t3[0]
    _t4, relu_saved = fwd_relu(h)
    _t5 = p['w2']
    h, conv2d_saved_1 = fwd_conv2d_x_w(_t4, _t5, 1, 1)
    _t6 = p['g2']
    _t7 = p['b2']
    _t8, batch_norm_saved_1 = fwd_batch_norm(h, _t6, _t7)
    h = _t8[0]
    _t9 = h + x
    _t10, relu_saved_1 = fwd_relu(_t9)
    _t11 = _t10 ** 2
    _t12 = np.sum(_t11)
    b_t12 = runtime.grad_seed(_t12)
    b_t11 = runtime.unreduce(b_t12, _t11)
    b_t10 = b_t11 * 2 * _t10
    b_t9, = bwd_relu(b_t10, relu_saved_1)
    bh = runtime.unbroadcast(b_t9, h)
    b_t8 = runtime.getitem_grad(bh, _t8, 0)
    bh, b_t6, b_t7 = bwd_batch_norm(b_t8, batch_norm_saved_1)
    b_t4, b_t5 = bwd_conv2d_x_w(bh, conv2d_saved_1)
    bh, = bwd_relu(b_t4, relu_saved)
    b_t3 = runtime.getitem_grad(bh, _t3, 0)
    bh, b_t1, b_t2 = bwd_batch_norm(b_t3, batch_norm_saved)
    b_t0, = bwd_conv2d_w(bh, conv2d_saved)
    bp = {'w1': b_t0, 'g1': b_t1, 'b1': b_t2, 'w2': b_t5, 'g2': b_t6, 'b2': b_t7}
    return runtime.as_grad(bp, p)


def fwd_conv2d_w(x, w, stride=1, padding=0):
    _t0 = padded_correlate(x, w, stride, padding)
    return _t0, [padding, stride, w, x]


def bwd_conv2d_w(b_t0, saved):
    padding, stride, w, x = saved
    saved.clear()
    bw = conv2d_weight_grad(b_t0, x, w, stride, padding)
    del padding, stride, w, x
    return bw,


def fwd_batch_norm(x, gamma, beta, running_mean=None, running_var=None, training=True,
        momentum=0.9, eps=1e-05):
    _t0 = None
    mean = None
    if training:
        mean = np.mean(x, axis=(0, 2, 3), keepdims=True)
        centred = x - mean
        _t0 = centred ** 2
        var = np.mean(_t0, axis=(0, 2, 3), keepdims=True)
        _cond1 = running_mean is None
        if _cond1:
            new_mean = mean.reshape(-1)
            new_var = var.reshape(-1)
        else:
            new_mean = momentum * running_mean + (1 - momentum) * mean.reshape(-1)
            new_var = momentum * running_var + (1 - momentum) * var.reshape(-1)
    else:
        _t1 = running_mean.reshape(1, -1, 1, 1)
        centred = x - _t1
        var = running_var.reshape(1, -1, 1, 1)
        new_mean = running_mean
        new_var = running_var
    _t2 = gamma.reshape(1, -1, 1, 1)
    _t3 = var + eps
    _t4 = np.sqrt(_t3)
    scale = _t2 / _t4
    _t5 = centred * scale
    _t6 = beta.reshape(1, -1, 1, 1)
    y = _t5 + _t6
    return (y, new_mean, new_var), [training, runtime.shape_of(_t0), runtime.shape_of(_t2), _t4,
        runtime.shape_of(_t5), runtime.shape_of(_t6), runtime.shape_of(beta), centred,
        runtime.shape_of(gamma), runtime.shape_of(mean), scale, runtime.shape_of(var),
        runtime.shape_of(x), runtime.shape_of(y)]


def bwd_batch_norm(b_out, saved):
    training, _t0, _t2, _t4, _t5, _t6, beta, centred, gamma, mean, scale, var, x, y = saved
    saved.clear()
    b_outs = runtime.unpack_adjoint(b_out, (y, None, None))
    del y
    by = b_outs[0]
    del b_outs
    b_t5 = runtime.unbroadcast(by, _t5)
    del _t5
    b_t6 = runtime.unbroadcast(by, _t6)
    del _t6, by
    bbeta = np.reshape(b_t6, np.shape(beta))
    del b_t6, beta
    bcentred = runtime.unbroadcast(b_t5 * scale, centred)
    bscale = runtime.unbroadcast(b_t5 * centred, scale)
    del b_t5
    b_t2 = runtime.unbroadcast(bscale / _t4, _t2)
    del _t2
    b_t4 = runtime.unbroadcast(-bscale * scale / _t4, _t4)
    del bscale, scale
    b_t3 = b_t4 / (2 * _t4)
    del _t4, b_t4
    bvar = runtime.unbroadcast(b_t3, var)
    del b_t3, var
    bgamma = np.reshape(b_t2, np.shape(gamma))
    del b_t2, gamma
    if training:
        b_t0 = runtime.mean_grad(bvar, _t0, axis=(0, 2, 3), keepdims=True)
        bcentred = bcentred + b_t0 * 2 * centred
        bx = bcentred
        bmean = runtime.unbroadcast(-bcentred, mean)
        bx = bx + runtime.mean_grad(bmean, x, axis=(0, 2, 3), keepdims=True)
    else:
        bx = runtime.unbroadcast(bcentred, x)
    del _t0, bcentred, bvar, centred, mean, training, x
    return bx, bgamma, bbeta


def fwd_relu(x):
    _t0 = x > 0
    _t1 = x * _t0
    return _t1, [_t0, runtime.shape_of(x)]


def bwd_relu(b_t1, saved):
    _t0, x = saved
    saved.clear()
    bx = runtime.unbroadcast(b_t1 * _t0, x)
    del _t0, x
    return bx,


def fwd_conv2d_x_w(x, w, stride=1, padding=0):
    _t0 = padded_correlate(x, w, stride, padding)
    return _t0, [padding, stride, w, x]


def bwd_conv2d_x_w(b_t0, saved):
    padding, stride, w, x = saved
    saved.clear()
    bx = conv2d_input_grad(b_t0, x, w, stride, padding)
    bw = conv2d_weight_grad(b_t0, x, w, stride, padding)
    del padding, stride, w, x
    return bx, bw
