# Emitted by srcdiff from generated_examples/resnet_block.py (function resnet_block, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
# Specialised for the example's arguments: {w1: float64[3, 3, 3, 3], g1: float64[3], b1: float64[3], w2: float64[3, 3, 3, 3], g2: float64[3], b2: float64[3]}, float64[2, 3, 5, 5]
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
    h, conv2d_saved = fwd_conv2d_w_s1(x, _t0, 1, 1)
    _t1 = p['g1']
    _t2 = p['b1']
    _t3, batch_norm_saved = fwd_batch_norm_s1(h, _t1, _t2)
    h = _t3[0]
    _t4, relu_saved = fwd_relu_s1(h)
    _t5 = p['w2']
    h, conv2d_saved_1 = fwd_conv2d_x_w_s1(_t4, _t5, 1, 1)
    _t6 = p['g2']
    _t7 = p['b2']
    _t8, batch_norm_saved_1 = fwd_batch_norm_s1(h, _t6, _t7)
    h = _t8[0]
    _t9 = h + x
    _t10, relu_saved_1 = fwd_relu_s1(_t9)
    b_t12 = 1.0
    b_t10 = b_t12 * 2 * _t10
    b_t9, = bwd_relu_s1(b_t10, relu_saved_1)
    bh = b_t9
    b_t8 = runtime.getitem_grad(bh, _t8, 0)
    bh, b_t6, b_t7 = bwd_batch_norm_s1(b_t8, batch_norm_saved_1)
    b_t4, b_t5 = bwd_conv2d_x_w_s1(bh, conv2d_saved_1)
    bh, = bwd_relu_s1(b_t4, relu_saved)
    b_t3 = runtime.getitem_grad(bh, _t3, 0)
    bh, b_t1, b_t2 = bwd_batch_norm_s1(b_t3, batch_norm_saved)
    b_t0, = bwd_conv2d_w_s1(bh, conv2d_saved)
    bp = {'w1': b_t0, 'g1': b_t1, 'b1': b_t2, 'w2': b_t5, 'g2': b_t6, 'b2': b_t7}
    return bp


def fwd_conv2d_w_s1(x, w, stride=1, padding=0):
    _t0 = padded_correlate(x, w, stride, padding)
    return _t0, [padding, stride, w, x]


def fwd_batch_norm_s1(x, gamma, beta, running_mean=None, running_var=None, training=True,
        momentum=0.9, eps=1e-05):
    mean = np.mean(x, axis=(0, 2, 3), keepdims=True)
    centred = x - mean
    _t0 = centred ** 2
    var = np.mean(_t0, axis=(0, 2, 3), keepdims=True)
    new_mean = mean.reshape(-1)
    new_var = var.reshape(-1)
    _t2 = gamma.reshape(1, -1, 1, 1)
    _t3 = var + eps
    _t4 = np.sqrt(_t3)
    scale = _t2 / _t4
    _t5 = centred * scale
    _t6 = beta.reshape(1, -1, 1, 1)
    y = _t5 + _t6
    return (y, new_mean, new_var), [_t4, beta, centred, gamma, scale, y]


def fwd_relu_s1(x):
    _t0 = x > 0
    _t1 = x * _t0
    return _t1, [_t0]


def fwd_conv2d_x_w_s1(x, w, stride=1, padding=0):
    _t0 = padded_correlate(x, w, stride, padding)
    return _t0, [padding, stride, w, x]


def bwd_relu_s1(b_t1, saved):
    _t0, = saved
    saved.clear()
    bx = b_t1 * _t0
    del _t0
    return bx,


def bwd_batch_norm_s1(b_out, saved):
    _t4, beta, centred, gamma, scale, y = saved
    saved.clear()
    by = runtime.unpack_adjoint(b_out, (y, None, None))[0]
    del y
    b_t6 = by.sum(axis=(0, 2, 3), keepdims=True)
    bbeta = np.reshape(b_t6, np.shape(beta))
    del b_t6, beta
    bcentred = by * scale
    bscale = (by * centred).sum(axis=(0, 2, 3), keepdims=True)
    del by
    b_t2 = bscale / _t4
    b_t4 = -bscale * scale / _t4
    del bscale, scale
    b_t3 = b_t4 / (2 * _t4)
    del _t4, b_t4
    bgamma = np.reshape(b_t2, np.shape(gamma))
    del b_t2, gamma
    b_t0 = b_t3 / 50
    del b_t3
    bcentred = bcentred + b_t0 * 2 * centred
    del b_t0, centred
    bx = bcentred
    bmean = (-bcentred).sum(axis=(0, 2, 3), keepdims=True)
    del bcentred
    bx = bx + np.broadcast_to(bmean / 50, (2, 3, 5, 5))
    del bmean
    return bx, bgamma, bbeta


def bwd_conv2d_x_w_s1(b_t0, saved):
    padding, stride, w, x = saved
    saved.clear()
    bx = conv2d_input_grad(b_t0, x, w, stride, padding)
    bw = conv2d_weight_grad(b_t0, x, w, stride, padding)
    del padding, stride, w, x
    return bx, bw


def bwd_conv2d_w_s1(b_t0, saved):
    padding, stride, w, x = saved
    saved.clear()
    bw = conv2d_weight_grad(b_t0, x, w, stride, padding)
    del padding, stride, w, x
    return bw,
