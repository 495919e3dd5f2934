"""Python library idioms a prober found refused inside f (copy, itertools, a sort in place,
collections.deque, np.einsum's interleaved form): each now differentiated, checked against
finite differences and autograd, or refused at the user's line with the way out."""

import copy

import numpy as np

import srcdiff as nf
from test_found_idioms import assert_derivatives

X = np.array([0.3, -1.2, 0.7, 2.1, -0.4, 0.55])


# --- copy.copy and copy.deepcopy ------------------------------------------------------------------


def loss_of_deep_copied_parameters(x):
    params = {"w": x, "b": [x[0], x[1]], "t": (x[2], x[3:])}
    p = copy.deepcopy(params)
    p["w"] = p["w"] * 2.0  # (a change to the copy, not to params)
    return np.sum(p["w"] ** 2 * params["w"]) + p["b"][0] * p["b"][1] + np.sum(p["t"][1]) * p["t"][0]


def loss_of_shallow_copies(x):
    xs = copy.copy([x[0], x[1], x[2]])
    return np.sum(copy.copy(x) ** 3) + xs[0] * xs[1] + xs[2] * copy.copy(x[4])


def test_copies_pass_the_gradient_to_each_leaf():
    """copy.deepcopy(params) and copy.copy(x) had no adjoint: a copy is the identity on
    each of its leaves. (autograd's deepcopy of its boxes cuts them off from x: its
    gradient is wrong.)"""
    assert_derivatives(loss_of_deep_copied_parameters, X, autograd=False)
    assert_derivatives(loss_of_shallow_copies, X)
    assert (
        loss_of_deep_copied_parameters(X) == nf.value_and_grad(loss_of_deep_copied_parameters)(X)[0]
    )
