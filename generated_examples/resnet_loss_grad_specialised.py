# Emitted by srcdiff from generated_examples/resnet_loss.py (function resnet_loss, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
# Specialised for the example's arguments: {stem: {w: float64[2, 1, 3, 3], gamma: float64[2], beta: float64[2]}, blocks: [{w1: float64[2, 2, 3, 3], g1: float64[2], b1: float64[2], w2: float64[2, 2, 3, 3], g2: float64[2], b2: float64[2]}, {w1: float64[4, 2, 3, 3], g1: float64[4], b1: float64[4], w2: float64[4, 4, 3, 3], g2: float64[4], b2: float64[4]}, {w1: float64[8, 4, 3, 3], g1: float64[8], b1: float64[8], w2: float64[8, 8, 3, 3], g2: float64[8], b2: float64[8]}], head: {w: float64[8, 3], b: float64[3]}}, float64[2, 1, 8, 8], int64[2]
"""Gradient of srcdiff.resnet.loss with respect to params.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime
from srcdiff.nn import conv2d_input_grad
from srcdiff.nn import conv2d_weight_grad
from srcdiff.nn import padded_correlate
from srcdiff.resnet import basic_block


def dloss(params, x, y, block=basic_block):
    _t0, forward_saved = fwd_forward_s1(params, None, x, True, block)
    logits = _t0[0]
    _t1, softmax_cross_entropy_saved = fwd_softmax_cross_entropy_s1(logits, y)
    b_t1 = runtime.grad_seed(_t1)
    blogits, = bwd_softmax_cross_entropy_s1(b_t1, softmax_cross_entropy_saved)
    b_t0 = runtime.getitem_grad(blogits, _t0, 0)
    bparams, = bwd_forward_s1(b_t0, forward_saved)
    return runtime.as_grad(bparams, params)


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
    return (y, new_mean, new_var), [_t0, _t2, _t4, _t5, _t6, beta, centred, gamma, mean, scale,
        var, x, y]


def fwd_relu_s1(x):
    _t0 = x > 0
    _t1 = x * _t0
    return _t1, [_t0, x]


def fwd_conv2d_x_w_s1(x, w, stride=1, padding=0):
    _t0 = padded_correlate(x, w, stride, padding)
    return _t0, [padding, stride, w, x]


def fwd_batch_norm_s2(x, gamma, beta, running_mean=None, running_var=None, training=True,
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
    return (y, new_mean, new_var), [runtime.shape_of(_t0), runtime.shape_of(_t2), _t4,
        runtime.shape_of(_t5), runtime.shape_of(_t6), runtime.shape_of(beta), centred,
        runtime.shape_of(gamma), runtime.shape_of(mean), scale, runtime.shape_of(var),
        runtime.shape_of(x), runtime.shape_of(y)]


def fwd_basic_block_s1(p, s, x, training):
    _t12 = None
    _stack_shortcut = []
    stride = 1 if x.shape[1] == p['w1'].shape[0] else 2
    _t0 = p['w1']
    h, conv2d_saved = fwd_conv2d_x_w_s1(x, _t0, stride, 1)
    _t1 = p['g1']
    _t2 = p['b1']
    _t3 = None
    _t4 = None
    _t5, batch_norm_saved = fwd_batch_norm_s2(h, _t1, _t2, _t3, _t4, training)
    h = _t5[0]
    m1 = _t5[1]
    v1 = _t5[2]
    h, relu_saved = fwd_relu(h)
    _t6 = p['w2']
    h, conv2d_saved_1 = fwd_conv2d_x_w_s1(h, _t6, 1, 1)
    _t7 = p['g2']
    _t8 = p['b2']
    _t9 = None
    _t10 = None
    _t11, batch_norm_saved_1 = fwd_batch_norm_s2(h, _t7, _t8, _t9, _t10, training)
    h = _t11[0]
    m2 = _t11[1]
    v2 = _t11[2]
    shortcut = x
    _cond0 = stride == 2
    if _cond0:
        _stack_shortcut.append(runtime.shape_of(shortcut))
        shortcut = x[:, :, ::2, ::2]
        _t12 = np.zeros_like(shortcut)
        _t13 = np.concatenate([shortcut, _t12], axis=1)
        _stack_shortcut.append(runtime.shape_of(shortcut))
        shortcut = _t13
    _t14 = h + shortcut
    _t15, relu_saved_1 = fwd_relu(_t14)
    _t16 = {'m1': m1, 'v1': v1, 'm2': m2, 'v2': v2}
    return (_t15, _t16), [_cond0, _stack_shortcut, runtime.shape_of(_t11), runtime.shape_of(_t12),
        runtime.shape_of(_t15), runtime.shape_of(_t5), batch_norm_saved, batch_norm_saved_1,
        conv2d_saved, conv2d_saved_1, runtime.shape_of(h), relu_saved, relu_saved_1,
        runtime.shape_of(shortcut), runtime.shape_of(x)]


def fwd_linear_s1(x, w, b):
    _t0 = x @ w
    _t1 = _t0 + b
    return _t1, [runtime.shape_of(_t0), b, w, x]


def fwd_forward_s1(params, state, x, training, block=basic_block):
    _stack_t10 = []
    _stack_basic_block_saved = []
    stem = params['stem']
    _t0 = stem['w']
    _t1, conv2d_saved = fwd_conv2d_w_s1(x, _t0, 1, 1)
    _t2 = stem['gamma']
    _t3 = stem['beta']
    _t4 = None
    _t5 = None
    _t6, batch_norm_saved = fwd_batch_norm_s1(_t1, _t2, _t3, _t4, _t5, training)
    h = _t6[0]
    m = _t6[1]
    v = _t6[2]
    h, relu_saved = fwd_relu_s1(h)
    blocks = []
    params_blocks = params['blocks']
    for i in range(len(params_blocks)):
        _t8 = params_blocks[i]
        _t9 = None
        _t10, basic_block_saved = fwd_basic_block_s1(_t8, _t9, h, training)
        _stack_t10.append(runtime.shape_of(_t10))
        _stack_basic_block_saved.append(basic_block_saved)
        h = _t10[0]
        block_state = _t10[1]
        blocks = blocks + [block_state]
    _t11, global_avg_pool_saved = fwd_global_avg_pool(h)
    _t12 = params['head']
    _t13 = _t12['w']
    _t14 = _t12['b']
    logits, linear_saved = fwd_linear_s1(_t11, _t13, _t14)
    _t15 = {'stem': {'m': m, 'v': v}, 'blocks': blocks}
    return (logits, _t15), [_stack_basic_block_saved, _stack_t10, runtime.shape_of(_t6),
        batch_norm_saved, conv2d_saved, global_avg_pool_saved, linear_saved,
        runtime.shape_of(logits), params_blocks, relu_saved]


def fwd_softmax_cross_entropy_s1(logits, labels):
    _t0 = np.max(logits, axis=1, keepdims=True)
    shifted = logits - _t0
    _t1 = np.exp(shifted)
    _t2 = np.sum(_t1, axis=1, keepdims=True)
    _t3 = np.log(_t2)
    log_probs = shifted - _t3
    _idx0 = np.arange(logits.shape[0]), labels
    _t4 = log_probs[_idx0]
    _t5 = np.mean(_t4)
    _t6 = -_t5
    return _t6, [_idx0, _t0, _t1, _t2, runtime.shape_of(_t3), runtime.shape_of(_t4),
        runtime.shape_of(log_probs), logits]


def bwd_softmax_cross_entropy_s1(b_t6, saved):
    _idx0, _t0, _t1, _t2, _t3, _t4, log_probs, logits = saved
    saved.clear()
    b_t5 = -b_t6
    b_t4 = runtime.mean_grad(b_t5, _t4)
    del _t4, b_t5
    blog_probs = runtime.getitem_grad(b_t4, log_probs, _idx0)
    del _idx0, b_t4, log_probs
    bshifted = blog_probs
    b_t3 = runtime.unbroadcast(-blog_probs, _t3)
    del _t3, blog_probs
    b_t2 = b_t3 / _t2
    del _t2, b_t3
    b_t1 = runtime.unreduce(b_t2, _t1, axis=1, keepdims=True)
    del b_t2
    bshifted = bshifted + b_t1 * _t1
    del _t1, b_t1
    blogits = bshifted
    b_t0 = runtime.unbroadcast(-bshifted, _t0)
    del bshifted
    blogits = blogits + runtime.extremum_grad(b_t0, _t0, logits, axis=1, keepdims=True)
    del _t0, b_t0, logits
    return blogits,


def bwd_linear_s1(b_t1, saved):
    _t0, b, w, x = saved
    saved.clear()
    b_t0 = runtime.unbroadcast(b_t1, _t0)
    del _t0
    bb = runtime.unbroadcast(b_t1, b)
    del b
    bx = runtime.matmul_grad(b_t0, x, w, 0)
    bw = runtime.matmul_grad(b_t0, x, w, 1)
    del b_t0, w, x
    return bx, bw, bb


def bwd_global_avg_pool_s1(b_t0, saved):
    x, = saved
    saved.clear()
    bx = runtime.mean_grad(b_t0, x, axis=(2, 3))
    del x
    return bx,


def bwd_relu_s1(b_t1, saved):
    _t0, x = saved
    saved.clear()
    bx = runtime.unbroadcast(b_t1 * _t0, x)
    del _t0, x
    return bx,


def bwd_batch_norm_s1(b_out, saved):
    _t0, _t2, _t4, _t5, _t6, beta, centred, gamma, mean, scale, var, x, y = saved
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
    b_t0 = runtime.mean_grad(bvar, _t0, axis=(0, 2, 3), keepdims=True)
    del _t0, bvar
    bcentred = bcentred + b_t0 * 2 * centred
    del b_t0, centred
    bx = bcentred
    bmean = runtime.unbroadcast(-bcentred, mean)
    del bcentred, mean
    bx = bx + runtime.mean_grad(bmean, x, axis=(0, 2, 3), keepdims=True)
    del bmean, x
    return bx, bgamma, bbeta


def bwd_conv2d_x_w_s1(b_t0, saved):
    padding, stride, w, x = saved
    saved.clear()
    bx = conv2d_input_grad(b_t0, x, w, stride, padding)
    bw = conv2d_weight_grad(b_t0, x, w, stride, padding)
    del padding, stride, w, x
    return bx, bw


def bwd_basic_block_s1(b_out, saved):
    (_cond0, _stack_shortcut, _t11, _t12, _t15, _t5, batch_norm_saved, batch_norm_saved_1,
        conv2d_saved, conv2d_saved_1, h, relu_saved, relu_saved_1, shortcut, x) = saved
    saved.clear()
    b_outs = runtime.unpack_adjoint(b_out, (_t15, None))
    del _t15
    b_t15 = b_outs[0]
    del b_outs
    b_t14, = bwd_relu_s1(b_t15, relu_saved_1)
    del b_t15, relu_saved_1
    bh = runtime.unbroadcast(b_t14, h)
    del h
    bshortcut = runtime.unbroadcast(b_t14, shortcut)
    del b_t14
    if _cond0:
        shortcut = _stack_shortcut.pop()
        bshortcut = runtime.unconcatenate(bshortcut, [shortcut, _t12], 0, axis=1)
        bx = runtime.getitem_grad(bshortcut, x, np.s_[:, :, ::2, ::2])
        shortcut = _stack_shortcut.pop()
        bshortcut = runtime.zeros_like(shortcut)
    else:
        bx = runtime.zeros_like(x)
    del _cond0, _stack_shortcut, _t12, shortcut, x
    bx += bshortcut
    del bshortcut
    b_t11 = runtime.getitem_grad(bh, _t11, 0)
    del _t11
    bh, b_t7, b_t8 = bwd_batch_norm_s1(b_t11, batch_norm_saved_1)
    del b_t11, batch_norm_saved_1
    bh, b_t6 = bwd_conv2d_x_w_s1(bh, conv2d_saved_1)
    del conv2d_saved_1
    bh, = bwd_relu_s1(bh, relu_saved)
    del relu_saved
    b_t5 = runtime.getitem_grad(bh, _t5, 0)
    del _t5
    bh, b_t1, b_t2 = bwd_batch_norm_s1(b_t5, batch_norm_saved)
    del b_t5, batch_norm_saved
    conv2d_grads = bwd_conv2d_x_w_s1(bh, conv2d_saved)
    del bh, conv2d_saved
    bx += conv2d_grads[0]
    b_t0 = conv2d_grads[1]
    del conv2d_grads
    bp = runtime.Sparse({'w1': b_t0, 'g1': b_t1, 'b1': b_t2, 'w2': b_t6, 'g2': b_t7, 'b2': b_t8})
    del b_t0, b_t1, b_t2, b_t6, b_t7, b_t8
    return bp, bx


def bwd_conv2d_w_s1(b_t0, saved):
    padding, stride, w, x = saved
    saved.clear()
    bw = conv2d_weight_grad(b_t0, x, w, stride, padding)
    del padding, stride, w, x
    return bw,


def bwd_forward_s1(b_out, saved):
    (_stack_basic_block_saved, _stack_t10, _t6, batch_norm_saved, conv2d_saved,
        global_avg_pool_saved, linear_saved, logits, params_blocks, relu_saved) = saved
    saved.clear()
    b_outs = runtime.unpack_adjoint(b_out, (logits, None))
    del logits
    blogits = b_outs[0]
    del b_outs
    b_t11, b_t13, b_t14 = bwd_linear_s1(blogits, linear_saved)
    del blogits, linear_saved
    bh, = bwd_global_avg_pool_s1(b_t11, global_avg_pool_saved)
    del b_t11, global_avg_pool_saved
    bparams_blocks = runtime.zeros_like(params_blocks)
    for i in reversed(range(len(params_blocks))):
        basic_block_saved = _stack_basic_block_saved.pop()
        _t10 = _stack_t10.pop()
        b_t10 = runtime.getitem_grad(bh, _t10, 0)
        b_t8, bh = bwd_basic_block_s1(b_t10, basic_block_saved)
        bparams_blocks = runtime.add_at(bparams_blocks, params_blocks, i, b_t8)
    del _stack_basic_block_saved, _stack_t10, params_blocks
    bh, = bwd_relu_s1(bh, relu_saved)
    del relu_saved
    b_t6 = runtime.getitem_grad(bh, _t6, 0)
    del _t6, bh
    b_t1, b_t2, b_t3 = bwd_batch_norm_s1(b_t6, batch_norm_saved)
    del b_t6, batch_norm_saved
    b_t0, = bwd_conv2d_w_s1(b_t1, conv2d_saved)
    del b_t1, conv2d_saved
    bstem = runtime.Sparse({'w': b_t0, 'gamma': b_t2, 'beta': b_t3})
    del b_t0, b_t2, b_t3
    bparams = runtime.Sparse({'stem': bstem, 'blocks': bparams_blocks,
        'head': {'w': b_t13, 'b': b_t14}})
    del b_t13, b_t14, bparams_blocks, bstem
    return bparams,


def fwd_global_avg_pool(x):
    _t0 = np.mean(x, axis=(2, 3))
    return _t0, [runtime.shape_of(x)]


def fwd_relu(x):
    _t0 = x > 0
    _t1 = x * _t0
    return _t1, [_t0, runtime.shape_of(x)]
