"""Containers of parameters as people hold them (issue 16), one small function each, for
tests/test_containers.py (which also runs this module with `np` bound to autograd.numpy)."""
import numpy as np


def layer_list(seed=0):
    """[(W, b), (W, b)]: two dense layers, 3 -> 4 -> 2, and an input batch of 5."""
    draw = np.random.default_rng(seed)
    shapes = [(3, 4), (4,), (4, 2), (2,), (5, 3)]
    W1, b1, W2, b2, x = [0.5 * draw.normal(size=shape) for shape in shapes]
    return [(W1, b1), (W2, b2)], x


def appended_pairs_read_by_index(params, x):
    pairs = []
    for W, b in params:
        pairs.append((W, 2.0 * b))
    W, b = pairs[0]  # the second pair is never read: its adjoint is a zero of its own kind
    return np.sum(np.tanh(x @ W + b))


def dict_display_of_layers(params, x):
    model = {"hidden": params[0], "output": {"W": params[1][0], "b": params[1][1]}}
    W, b = model["hidden"]
    h = np.tanh(x @ W + b)
    return np.sum(h @ model["output"]["W"] + model["output"]["b"])


CASES = {
    "list of pairs built with append, one read": (appended_pairs_read_by_index, layer_list),
    "dict display of differentiated values, nested": (dict_display_of_layers, layer_list),
}
