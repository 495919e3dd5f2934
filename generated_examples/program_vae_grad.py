# Emitted by srcdiff from tests/programs/vae.py (function loss, mode grad, wrt=(0,)):
#     python tools/regen_examples.py
# Do not edit: tests/test_generated_examples.py fails when this file is stale.
"""Gradient of generated_examples.vae.loss with respect to combined_params.

Emitted by srcdiff 0.1.0.
"""
import numpy as np
from srcdiff import runtime


def dloss(combined_params, images, noise):
    runtime.check_unpack(combined_params, 2)
    encoder_params = combined_params[0]
    decoder_params = combined_params[1]
    _t0, neural_net_predict_saved = fwd_neural_net_predict_params(encoder_params, images)
    _t1, unpack_gaussian_params_saved = fwd_unpack_gaussian_params(_t0)
    q_means = _t1[0]
    q_log_stds = _t1[1]
    latents, sample_diag_gaussian_saved = fwd_sample_diag_gaussian(q_means, q_log_stds, noise)
    q_latents, diag_gaussian_log_density_saved = fwd_diag_gaussian_log_density_x_mu_log_std(
        latents, q_means, q_log_stds)
    p_latents, diag_gaussian_log_density_saved_1 = fwd_diag_gaussian_log_density_x(latents, 0, 0)
    logits, neural_net_predict_saved_1 = fwd_neural_net_predict_params_inputs(decoder_params,
        latents)
    p_images, bernoulli_log_density_saved = fwd_bernoulli_log_density(images, logits)
    _t2 = p_images + p_latents
    _t3 = _t2 - q_latents
    _t4 = np.mean(_t3)
    _t5 = -_t4
    b_t5 = runtime.grad_seed(_t5)
    b_t4 = -b_t5
    b_t3 = runtime.mean_grad(b_t4, _t3)
    b_t2 = runtime.unbroadcast(b_t3, _t2)
    bq_latents = runtime.unbroadcast(-b_t3, q_latents)
    bp_images = runtime.unbroadcast(b_t2, p_images)
    bp_latents = runtime.unbroadcast(b_t2, p_latents)
    blogits, = bwd_bernoulli_log_density(bp_images, bernoulli_log_density_saved)
    bdecoder_params, blatents = bwd_neural_net_predict_params_inputs(blogits,
        neural_net_predict_saved_1)
    diag_gaussian_log_density_grads_1 = bwd_diag_gaussian_log_density_x(bp_latents,
        diag_gaussian_log_density_saved_1)
    blatents = blatents + diag_gaussian_log_density_grads_1[0]
    diag_gaussian_log_density_grads = bwd_diag_gaussian_log_density_x_mu_log_std(bq_latents,
        diag_gaussian_log_density_saved)
    blatents = blatents + diag_gaussian_log_density_grads[0]
    bq_means = diag_gaussian_log_density_grads[1]
    bq_log_stds = diag_gaussian_log_density_grads[2]
    sample_diag_gaussian_grads = bwd_sample_diag_gaussian(blatents, sample_diag_gaussian_saved)
    bq_means = bq_means + sample_diag_gaussian_grads[0]
    bq_log_stds = bq_log_stds + sample_diag_gaussian_grads[1]
    b_t1 = runtime.getitem_grad(bq_log_stds, _t1, 1)
    b_t1 = runtime.add_at(b_t1, _t1, 0, bq_means)
    b_t0, = bwd_unpack_gaussian_params(b_t1, unpack_gaussian_params_saved)
    bencoder_params, = bwd_neural_net_predict_params(b_t0, neural_net_predict_saved)
    bcombined_params = runtime.getitem_grad(bdecoder_params, combined_params, 1)
    bcombined_params = runtime.add_at(bcombined_params, combined_params, 0, bencoder_params)
    return runtime.as_grad(bcombined_params, combined_params)


def fwd_neural_net_predict_params(params, inputs):
    _stack_t0 = []
    _stack_W = []
    _stack_b = []
    _stack_t1 = []
    _stack_outputs = []
    _stack_inputs = []
    _stack_relu_saved = []
    outputs = None
    for _i0 in range(len(params)):
        _t0 = params[_i0]
        _stack_t0.append(runtime.shape_of(_t0))
        runtime.check_unpack(_t0, 2)
        W = _t0[0]
        _stack_W.append(W)
        b = _t0[1]
        _stack_b.append(runtime.shape_of(b))
        _t1 = np.dot(inputs, W)
        _stack_t1.append(runtime.shape_of(_t1))
        _stack_outputs.append(runtime.shape_of(outputs))
        outputs = _t1 + b
        _stack_inputs.append(inputs)
        inputs, relu_saved = fwd_relu(outputs)
        _stack_relu_saved.append(relu_saved)
    return outputs, [_stack_W, _stack_b, _stack_inputs, _stack_outputs, _stack_relu_saved,
        _stack_t0, _stack_t1, runtime.shape_of(inputs), params]


def bwd_neural_net_predict_params(boutputs, saved):
    (_stack_W, _stack_b, _stack_inputs, _stack_outputs, _stack_relu_saved, _stack_t0, _stack_t1,
        inputs, params) = saved
    saved.clear()
    binputs = runtime.zeros_like(inputs)
    bparams = runtime.zeros_like(params)
    for _i0 in reversed(range(len(params))):
        relu_saved = _stack_relu_saved.pop()
        _t1 = _stack_t1.pop()
        b = _stack_b.pop()
        W = _stack_W.pop()
        _t0 = _stack_t0.pop()
        relu_grads = bwd_relu(binputs, relu_saved)
        boutputs = boutputs + relu_grads[0]
        inputs = _stack_inputs.pop()
        b_t1 = runtime.unbroadcast(boutputs, _t1)
        bb = runtime.unbroadcast(boutputs, b)
        outputs = _stack_outputs.pop()
        binputs = runtime.dot_grad(b_t1, inputs, W, 0)
        bW = runtime.dot_grad(b_t1, inputs, W, 1)
        b_t0 = runtime.getitem_grad(bb, _t0, 1)
        b_t0 = runtime.add_at(b_t0, _t0, 0, bW)
        bparams = runtime.add_at(bparams, params, _i0, b_t0)
        boutputs = runtime.zeros_like(outputs)
    del (_stack_W, _stack_b, _stack_inputs, _stack_outputs, _stack_relu_saved, _stack_t0,
        _stack_t1, binputs, inputs, params)
    return bparams,


def fwd_unpack_gaussian_params(params):
    D = np.shape(params)[-1] // 2
    _t0 = params[:, :D]
    _t1 = params[:, D:]
    return (_t0, _t1), [D, runtime.shape_of(_t1), runtime.shape_of(_t0), runtime.shape_of(params)]


def bwd_unpack_gaussian_params(b_out, saved):
    D, _t1, _t0, params = saved
    saved.clear()
    b_outs = runtime.unpack_adjoint(b_out, (_t0, _t1))
    del _t0, _t1
    bmean = b_outs[0]
    blog_std = b_outs[1]
    del b_outs
    bparams = runtime.getitem_grad(blog_std, params, np.s_[:, D:])
    del blog_std
    bparams = runtime.add_at(bparams, params, np.s_[:, :D], bmean)
    del D, bmean, params
    return bparams,


def fwd_sample_diag_gaussian(mean, log_std, noise):
    _t0 = np.exp(log_std)
    _t1 = noise * _t0
    _t2 = _t1 + mean
    return _t2, [_t0, runtime.shape_of(_t1), runtime.shape_of(mean), noise]


def bwd_sample_diag_gaussian(b_t2, saved):
    _t0, _t1, mean, noise = saved
    saved.clear()
    b_t1 = runtime.unbroadcast(b_t2, _t1)
    del _t1
    bmean = runtime.unbroadcast(b_t2, mean)
    del mean
    b_t0 = runtime.unbroadcast(b_t1 * noise, _t0)
    del b_t1, noise
    blog_std = b_t0 * _t0
    del _t0, b_t0
    return bmean, blog_std


def fwd_diag_gaussian_log_density_x_mu_log_std(x, mu, log_std):
    _t0 = x - mu
    _t1 = np.exp(log_std)
    _t2 = _t0 / _t1
    _t3 = _t2 ** 2
    _t4 = -0.5 * _t3
    _t5 = _t4 - log_std
    _t6 = 0.5 * np.log(2 * np.pi)
    _t7 = _t5 - _t6
    _t8 = np.sum(_t7, axis=-1)
    return _t8, [runtime.shape_of(_t0), _t1, _t2, runtime.shape_of(_t4), runtime.shape_of(_t7),
        runtime.shape_of(log_std), runtime.shape_of(mu), runtime.shape_of(x)]


def bwd_diag_gaussian_log_density_x_mu_log_std(b_t8, saved):
    _t0, _t1, _t2, _t4, _t7, log_std, mu, x = saved
    saved.clear()
    b_t7 = runtime.unreduce(b_t8, _t7, axis=-1)
    del _t7
    b_t4 = runtime.unbroadcast(b_t7, _t4)
    del _t4
    blog_std = runtime.unbroadcast(-b_t7, log_std)
    del b_t7, log_std
    b_t3 = b_t4 * -0.5
    del b_t4
    b_t2 = b_t3 * 2 * _t2
    del b_t3
    b_t0 = runtime.unbroadcast(b_t2 / _t1, _t0)
    del _t0
    b_t1 = runtime.unbroadcast(-b_t2 * _t2 / _t1, _t1)
    del _t2, b_t2
    blog_std = blog_std + b_t1 * _t1
    del _t1, b_t1
    bx = runtime.unbroadcast(b_t0, x)
    del x
    bmu = runtime.unbroadcast(-b_t0, mu)
    del b_t0, mu
    return bx, bmu, blog_std


def fwd_diag_gaussian_log_density_x(x, mu, log_std):
    _t0 = x - mu
    _t1 = np.exp(log_std)
    _t2 = _t0 / _t1
    _t3 = _t2 ** 2
    _t4 = -0.5 * _t3
    _t5 = _t4 - log_std
    _t6 = 0.5 * np.log(2 * np.pi)
    _t7 = _t5 - _t6
    _t8 = np.sum(_t7, axis=-1)
    return _t8, [runtime.shape_of(_t0), _t1, _t2, runtime.shape_of(_t4), runtime.shape_of(_t7),
        runtime.shape_of(x)]


def bwd_diag_gaussian_log_density_x(b_t8, saved):
    _t0, _t1, _t2, _t4, _t7, x = saved
    saved.clear()
    b_t7 = runtime.unreduce(b_t8, _t7, axis=-1)
    del _t7
    b_t4 = runtime.unbroadcast(b_t7, _t4)
    del _t4, b_t7
    b_t3 = b_t4 * -0.5
    del b_t4
    b_t2 = b_t3 * 2 * _t2
    del _t2, b_t3
    b_t0 = runtime.unbroadcast(b_t2 / _t1, _t0)
    del _t0, _t1, b_t2
    bx = runtime.unbroadcast(b_t0, x)
    del b_t0, x
    return bx,


def fwd_neural_net_predict_params_inputs(params, inputs):
    _stack_t0 = []
    _stack_W = []
    _stack_b = []
    _stack_t1 = []
    _stack_outputs = []
    _stack_inputs = []
    _stack_relu_saved = []
    outputs = None
    for _i0 in range(len(params)):
        _t0 = params[_i0]
        _stack_t0.append(runtime.shape_of(_t0))
        runtime.check_unpack(_t0, 2)
        W = _t0[0]
        _stack_W.append(W)
        b = _t0[1]
        _stack_b.append(runtime.shape_of(b))
        _t1 = np.dot(inputs, W)
        _stack_t1.append(runtime.shape_of(_t1))
        _stack_outputs.append(runtime.shape_of(outputs))
        outputs = _t1 + b
        _stack_inputs.append(inputs)
        inputs, relu_saved = fwd_relu(outputs)
        _stack_relu_saved.append(relu_saved)
    return outputs, [_stack_W, _stack_b, _stack_inputs, _stack_outputs, _stack_relu_saved,
        _stack_t0, _stack_t1, runtime.shape_of(inputs), params]


def bwd_neural_net_predict_params_inputs(boutputs, saved):
    (_stack_W, _stack_b, _stack_inputs, _stack_outputs, _stack_relu_saved, _stack_t0, _stack_t1,
        inputs, params) = saved
    saved.clear()
    binputs = runtime.zeros_like(inputs)
    bparams = runtime.zeros_like(params)
    for _i0 in reversed(range(len(params))):
        relu_saved = _stack_relu_saved.pop()
        _t1 = _stack_t1.pop()
        b = _stack_b.pop()
        W = _stack_W.pop()
        _t0 = _stack_t0.pop()
        relu_grads = bwd_relu(binputs, relu_saved)
        boutputs = boutputs + relu_grads[0]
        inputs = _stack_inputs.pop()
        b_t1 = runtime.unbroadcast(boutputs, _t1)
        bb = runtime.unbroadcast(boutputs, b)
        outputs = _stack_outputs.pop()
        binputs = runtime.dot_grad(b_t1, inputs, W, 0)
        bW = runtime.dot_grad(b_t1, inputs, W, 1)
        b_t0 = runtime.getitem_grad(bb, _t0, 1)
        b_t0 = runtime.add_at(b_t0, _t0, 0, bW)
        bparams = runtime.add_at(bparams, params, _i0, b_t0)
        boutputs = runtime.zeros_like(outputs)
    del (_stack_W, _stack_b, _stack_inputs, _stack_outputs, _stack_relu_saved, _stack_t0,
        _stack_t1, inputs, params)
    return bparams, binputs


def fwd_bernoulli_log_density(targets, unnormalized_logprobs):
    _t0 = -unnormalized_logprobs
    _t1 = 2 * targets - 1
    _t2 = _t0 * _t1
    _t3 = np.logaddexp(0, _t2)
    label_probabilities = -_t3
    _t4 = np.sum(label_probabilities, axis=-1)
    return _t4, [runtime.shape_of(_t0), _t1, _t2, _t3, runtime.shape_of(label_probabilities)]


def bwd_bernoulli_log_density(b_t4, saved):
    _t0, _t1, _t2, _t3, label_probabilities = saved
    saved.clear()
    blabel_probabilities = runtime.unreduce(b_t4, label_probabilities, axis=-1)
    del label_probabilities
    b_t3 = -blabel_probabilities
    del blabel_probabilities
    b_t2 = b_t3 * runtime.logaddexp_share(_t2, _t3, 0)
    del _t2, _t3, b_t3
    b_t0 = runtime.unbroadcast(b_t2 * _t1, _t0)
    del _t0, _t1, b_t2
    bunnormalized_logprobs = -b_t0
    del b_t0
    return bunnormalized_logprobs,


def fwd_relu(x):
    _t0 = np.maximum(0.0, x)
    return _t0, [x]


def bwd_relu(b_t0, saved):
    x, = saved
    saved.clear()
    bx = runtime.winner_share(b_t0, x, 0.0)
    del x
    return bx,
