"""Optimisers over pytrees of numpy arrays, as small pure functions.

Each takes the parameters, their gradients and the optimiser's state, and returns new
parameters and a new state; nothing is changed in place, so a state can be saved, compared or
thrown away freely. float32 parameters stay float32.

    from srcdiff import optim
    velocity = optim.momentum_init(params)
    for x, y in batches:
        grads = dloss(params, x, y)
        params, velocity = optim.momentum(params, grads, velocity, lr=0.1, mass=0.9)
"""

import numpy as np

from .tree import tree_map


def sgd(params, grads, lr):
    """Plain gradient descent: p - lr * g."""
    return tree_map(lambda p, g: p - lr * g, params, grads)


def momentum_init(params):
    return tree_map(np.zeros_like, params)


def momentum(params, grads, velocity, lr, mass=0.9, nesterov=False):
    """SGD with momentum as PyTorch writes it (v = mass * v + g; p -= lr * v), so a change of
    lr takes effect at once. Returns (params, velocity)."""
    velocity = tree_map(lambda v, g: mass * v + g, velocity, grads)
    direction = tree_map(lambda v, g: g + mass * v, velocity, grads) if nesterov else velocity
    return tree_map(lambda p, d: p - lr * d, params, direction), velocity


def adam_init(params):
    return {"m": tree_map(np.zeros_like, params), "v": tree_map(np.zeros_like, params), "step": 0}


def adam(params, grads, state, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    """Adam (Kingma & Ba 2015) with bias correction. Returns (params, state)."""
    step = int(state["step"]) + 1
    m = tree_map(lambda m, g: b1 * m + (1 - b1) * g, state["m"], grads)
    v = tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, state["v"], grads)
    m_scale, v_scale = 1 / (1 - b1**step), 1 / (1 - b2**step)
    params = tree_map(
        lambda p, m, v: p - lr * (m * m_scale) / (np.sqrt(v * v_scale) + eps), params, m, v
    )
    return params, {"m": m, "v": v, "step": step}


def rmsprop_init(params):
    return tree_map(np.zeros_like, params)


def rmsprop(params, grads, mean_square, lr=1e-3, decay=0.9, eps=1e-8):
    """RMSProp (Tieleman & Hinton 2012): each gradient divided by a running root mean square
    of its past values. Returns (params, mean_square)."""
    mean_square = tree_map(lambda s, g: decay * s + (1 - decay) * g * g, mean_square, grads)
    params = tree_map(lambda p, g, s: p - lr * g / (np.sqrt(s) + eps), params, grads, mean_square)
    return params, mean_square


def weight_decay(grads, params, rate):
    """grads + rate * params for weight matrices and kernels (arrays of 2 or more dimensions);
    biases and batch-norm scales (vectors) are not decayed, as is usual."""
    return tree_map(lambda g, p: g + rate * p if np.ndim(p) > 1 else g, grads, params)
