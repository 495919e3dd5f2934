"""Neural-network layers as plain numpy functions (NCHW). srcdiff differentiates them like any
user code; the templates of its own here are the convolution's (measured, see there)."""

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from . import runtime
from .primitives.registry import adjoint, shape_safe, tangent


def conv2d(x, w, stride=1, padding=0):
    """Convolve x (N, C, H, W) with w (O, C, K, K) (a cross-correlation, as in deep learning)."""
    return padded_correlate(x, w, stride, padding)


def padded_correlate(x, w, stride, padding):
    """correlate of x with `padding` zeros around each image. (conv2d's body, and a primitive
    of its own with the adjoint below; conv2d stays a function srcdiff differentiates through,
    so that code calling it as `nn.conv2d` follows its shapes when specialised.)"""
    return correlate(_pad(x, padding), w, stride)


def _pad(x, padding):
    width = int(padding)  # (a constant: in a second derivative it may come from a saved list)
    edges = ((0, 0), (0, 0), (width, width), (width, width))
    return np.pad(x, edges) if width > 0 else x


def correlate(x, w, stride=1):
    """The cross-correlation of x (N, C, H, W) with w (O, C, K, K) at every `stride`-th
    window that fits in x: one matrix product of w with x's windows laid out as columns."""
    columns, height, width = _columns(x, w.shape[2], stride)
    out = w.reshape(w.shape[0], -1) @ columns
    return out.reshape(x.shape[0], w.shape[0], height, width)


def _windows(x, size, stride):
    return sliding_window_view(x, (size, size), axis=(2, 3))[:, :, ::stride, ::stride]


def _columns(x, size, stride):
    """x's size x size windows as (N, C*size*size, H'*W'), the window offset before the
    position: the copy that makes them then runs along image rows (an einsum over the
    (N, C, H', W', size, size) view copies across them: 1.4x slower for a stride-1 layer of
    ResNet-20's first stage, tools/bench.py's machine)."""
    windows = _windows(x, size, stride)
    n, c, height, width = windows.shape[:4]
    return windows.transpose(0, 1, 4, 5, 2, 3).reshape(n, -1, height * width), height, width


# conv2d (padded_correlate) and correlate have adjoints of their own (tools/bench.py --layers times them against
# the ones srcdiff derives from the lines above). The derived ones keep the columns (K*K times
# x) from the forward pass for the weights' adjoint, and fold the columns' adjoint (K*K times x
# again) back into the image with K*K strided adds. These make the columns again from x, and
# at stride 1 give x's adjoint as one more convolution, of the output adjoint with the flipped
# kernel; conv2d's keeps x rather than its padded copy, and gets x's adjoint without the
# padding's rows, so no adjoint of the padding is computed and then cut off.
def conv2d_input_grad(bz, x, w, stride, padding):
    k = w.shape[2]
    if stride == 1 and padding < k:
        return padded_correlate(bz, np.flip(w, (2, 3)).swapaxes(0, 1), 1, k - 1 - padding)
    padded = correlate_input_grad(bz, _pad(x, padding), w, stride)
    return padded[:, :, padding : padding + x.shape[2], padding : padding + x.shape[3]]


def conv2d_weight_grad(bz, x, w, stride, padding):
    """One matrix product over the whole batch, of the output adjoint (O, N*H'*W') with x's
    windows as rows (N*H'*W', K*K*C), made from x laid out (N, H, W, C): there a window's
    rows of K*C values are contiguous, so the copy moves whole runs. 1.3x faster over
    ResNet-20's layers than one product per image with the forward's columns, 1.7x past the
    first stage (tools/bench.py --layers)."""
    o, c, k, width = w.shape[0], w.shape[1], w.shape[2], int(padding)
    edges = ((0, 0), (width, width), (width, width), (0, 0))
    images = np.pad(x.transpose(0, 2, 3, 1), edges)
    windows = sliding_window_view(images, (k, k), axis=(1, 2))[:, ::stride, ::stride]
    rows = windows.transpose(0, 1, 2, 4, 5, 3).reshape(-1, k * k * c)
    products = bz.transpose(1, 0, 2, 3).reshape(o, -1) @ rows
    return products.reshape(o, k, k, c).transpose(0, 3, 1, 2)


def correlate_input_grad(bz, x, w, stride):
    k = w.shape[2]
    if stride == 1:
        return padded_correlate(bz, np.flip(w, (2, 3)).swapaxes(0, 1), 1, k - 1)
    n, o, height, width = bz.shape
    columns = w.reshape(o, -1).T @ bz.reshape(n, o, -1)
    windows = columns.reshape(n, -1, k, k, height, width).transpose(0, 1, 4, 5, 2, 3)
    return runtime.unwindow(windows, x, (k, k), axis=(2, 3), step=stride)


def correlate_weight_grad(bz, x, w, stride):
    return conv2d_weight_grad(bz, x, w, stride, 0)


@adjoint(padded_correlate, constant=("stride", "padding"), shape_safe=True)
def padded_correlate_adjoint(bz, z, x, w, stride, padding):
    bx = conv2d_input_grad(bz, x, w, stride, padding)
    bw = conv2d_weight_grad(bz, x, w, stride, padding)


@tangent(padded_correlate, constant=("stride", "padding"))
def padded_correlate_tangent(dz, z, x, w, stride, padding):
    dz = padded_correlate(dx, w, stride, padding)
    dz = padded_correlate(x, dw, stride, padding)


@adjoint(correlate, shape_safe=True)
def correlate_adjoint(bz, z, x, w, stride):
    bx = correlate_input_grad(bz, x, w, stride)
    bw = correlate_weight_grad(bz, x, w, stride)


@tangent(correlate)
def correlate_tangent(dz, z, x, w, stride):
    dz = correlate(dx, w, stride)
    dz = correlate(x, dw, stride)


# their results' shapes follow from their arguments' (shapes.py evaluates them on stand-ins)
shape_safe(conv2d_input_grad, conv2d_weight_grad, correlate_input_grad, correlate_weight_grad)


def batch_norm(
    x, gamma, beta, running_mean=None, running_var=None, training=True, momentum=0.9, eps=1e-5
):
    """Batch norm over axes (0, 2, 3). Returns (y, new_running_mean, new_running_var): in
    training, y uses the batch statistics and the running ones are updated (or started, when
    None); in evaluation, y uses the running statistics, returned unchanged."""
    if training:
        mean = np.mean(x, axis=(0, 2, 3), keepdims=True)
        centred = x - mean
        # the variance from the centred values, so the backward pass keeps those, not x
        var = np.mean(centred**2, axis=(0, 2, 3), keepdims=True)
        if running_mean is None:
            new_mean = mean.reshape(-1)
            new_var = var.reshape(-1)
        else:
            new_mean = momentum * running_mean + (1 - momentum) * mean.reshape(-1)
            new_var = momentum * running_var + (1 - momentum) * var.reshape(-1)
    else:
        centred = x - running_mean.reshape(1, -1, 1, 1)
        var = running_var.reshape(1, -1, 1, 1)
        new_mean = running_mean
        new_var = running_var
    # one scale per channel, then one pass over x: the backward pass then keeps only the
    # centred values (not them and the normalised ones as well)
    scale = gamma.reshape(1, -1, 1, 1) / np.sqrt(var + eps)
    y = centred * scale + beta.reshape(1, -1, 1, 1)
    return y, new_mean, new_var


def relu(x):
    # x * (x > 0) rather than np.maximum(x, 0): the backward pass then keeps only the
    # boolean mask (a quarter of x in float32), not x itself
    return x * (x > 0)


def max_pool2d(x, size=2):
    """Non-overlapping max pooling over size x size windows."""
    n, c, h, w = x.shape
    return np.max(x.reshape(n, c, h // size, size, w // size, size), axis=(3, 5))


def global_avg_pool(x):
    return np.mean(x, axis=(2, 3))


def linear(x, w, b):
    return x @ w + b


def softmax_cross_entropy(logits, labels):
    """Mean cross-entropy of integer `labels` under softmax(`logits`), computed stably."""
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(log_probs[np.arange(logits.shape[0]), labels])
