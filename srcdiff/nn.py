"""Neural-network layers as plain numpy functions (NCHW). srcdiff differentiates them like any
user code; the one template of its own here is strided_windows's (measured, see there)."""
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from . import runtime  # noqa: F401  (strided_windows's templates name it)
from .shapes import SHAPE_SAFE
from .template import adjoint, tangent


def strided_windows(x, size, stride):
    """The size x size windows of x (N, C, H, W) that start every `stride` pixels:
    a view of shape (N, C, H', W', size, size)."""
    windows = sliding_window_view(x, (size, size), axis=(2, 3))
    return windows[:, :, ::stride, ::stride]


# The adjoint srcdiff derives from the two lines above first spreads the windows' adjoint over
# every window (stride * stride times the elements, mostly zeros) and then adds all of them
# back; adding each window offset's slice straight into place is 8x faster for a stride-2
# layer of ResNet-20 (16 ms against 2 ms, tools/bench.py's machine).
@adjoint(strided_windows)
def strided_windows_adjoint(bz, z, x, size, stride):
    bx = runtime.unwindow(bz, x, (size, size), axis=(2, 3), step=stride)


@tangent(strided_windows)
def strided_windows_tangent(dz, z, x, size, stride):
    dz = strided_windows(dx, size, stride)


SHAPE_SAFE.add(strided_windows)  # a view: its shape follows from x's, size and stride


def conv2d(x, w, stride=1, padding=0):
    """Convolve x (N, C, H, W) with w (O, C, K, K): one einsum over a window view."""
    k = w.shape[2]
    if padding > 0:
        x = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    windows = strided_windows(x, k, stride)
    return np.einsum("nchwkl,ockl->nohw", windows, w, optimize=True)


def batch_norm(x, gamma, beta, running_mean=None, running_var=None, training=True,
               momentum=0.9, eps=1e-5):
    """Batch norm over axes (0, 2, 3). Returns (y, new_running_mean, new_running_var): in
    training, y uses the batch statistics and the running ones are updated (or started, when
    None); in evaluation, y uses the running statistics, returned unchanged."""
    if training:
        mean = np.mean(x, axis=(0, 2, 3), keepdims=True)
        centred = x - mean
        # the variance from the centred values, so the backward pass keeps those, not x
        var = np.mean(centred ** 2, axis=(0, 2, 3), keepdims=True)
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
