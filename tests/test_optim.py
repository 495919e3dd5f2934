"""srcdiff.optim: each update against its formula written out, and each optimiser trains."""

import numpy as np
import pytest

import srcdiff as nf
from srcdiff import optim


def params_and_grads():
    params = {
        "w": np.array([[1.0, -2.0], [0.5, 3.0]], np.float32),
        "b": [np.array([0.1, -0.1], np.float32)],
    }
    grads = {
        "w": np.array([[0.5, -1.0], [2.0, 0.0]], np.float32),
        "b": [np.array([-0.2, 0.4], np.float32)],
    }
    return params, grads


def test_sgd_is_p_minus_lr_g():
    params, grads = params_and_grads()
    new = optim.sgd(params, grads, lr=0.1)
    np.testing.assert_allclose(new["w"], params["w"] - 0.1 * grads["w"], rtol=1e-6)
    assert new["w"].dtype == np.float32 and isinstance(new["b"], list)


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_matches_pytorch_formula_over_steps(nesterov):
    params, grads = params_and_grads()
    p, v = params["w"].astype(np.float64), np.zeros((2, 2))
    velocity = optim.momentum_init(params)
    for step in range(3):
        lr = 0.1 / (step + 1)  # a schedule: the new rate applies to the whole velocity
        params, velocity = optim.momentum(params, grads, velocity, lr, mass=0.9, nesterov=nesterov)
        v = 0.9 * v + grads["w"]
        p = p - lr * (grads["w"] + 0.9 * v if nesterov else v)
    np.testing.assert_allclose(params["w"], p, rtol=1e-6)
    np.testing.assert_allclose(velocity["w"], v, rtol=1e-6)


def test_adam_first_step_moves_each_parameter_by_lr_against_its_gradient_sign():
    params, grads = params_and_grads()
    state = optim.adam_init(params)
    new, state = optim.adam(params, grads, state, lr=0.01)
    expected = params["w"] - 0.01 * np.sign(grads["w"])  # bias correction: m/sqrt(v) = sign(g)
    np.testing.assert_allclose(new["w"], expected, atol=1e-6)
    assert state["step"] == 1 and new["w"].dtype == np.float32


def test_adam_second_step_against_its_formula():
    params, grads = params_and_grads()
    g1, g2 = grads["w"].astype(np.float64), 0.5 * grads["w"].astype(np.float64)
    state = optim.adam_init(params)
    params, state = optim.adam(params, grads, state, lr=0.01)
    start = params["w"].astype(np.float64)
    params, state = optim.adam(params, nf.tree_map(lambda g: 0.5 * g, grads), state, lr=0.01)
    m = (0.1 * 0.9 * g1 + 0.1 * g2) / (1 - 0.9**2)
    v = (0.001 * 0.999 * g1**2 + 0.001 * g2**2) / (1 - 0.999**2)
    np.testing.assert_allclose(params["w"], start - 0.01 * m / (np.sqrt(v) + 1e-8), atol=1e-6)


def test_rmsprop_against_its_formula():
    params, grads = params_and_grads()
    square = optim.rmsprop_init(params)
    new, square = optim.rmsprop(params, grads, square, lr=0.01, decay=0.9)
    s = 0.1 * grads["w"].astype(np.float64) ** 2
    np.testing.assert_allclose(square["w"], s, rtol=1e-6)
    np.testing.assert_allclose(
        new["w"], params["w"] - 0.01 * grads["w"] / (np.sqrt(s) + 1e-8), rtol=1e-5
    )


def test_updates_are_pure():
    params, grads = params_and_grads()
    kept = nf.tree_map(np.copy, (params, grads))
    velocity = optim.momentum_init(params)
    optim.momentum(params, grads, velocity, 0.1)
    optim.adam(params, grads, optim.adam_init(params))
    np.testing.assert_array_equal(nf.ravel((params, grads)), nf.ravel(kept))
    assert not np.any(nf.ravel(velocity))


def test_weight_decay_only_on_matrices():
    params, grads = params_and_grads()
    decayed = optim.weight_decay(grads, params, 0.5)
    np.testing.assert_allclose(decayed["w"], grads["w"] + 0.5 * params["w"])
    np.testing.assert_array_equal(decayed["b"][0], grads["b"][0])


@pytest.mark.parametrize(
    "name, lr", [("sgd", 0.1), ("momentum", 0.05), ("adam", 0.1), ("rmsprop", 0.01)]
)
def test_each_optimiser_fits_a_least_squares_problem(name, lr, rng):
    x = rng.normal(size=(64, 3))
    target = x @ np.array([1.0, -2.0, 0.5]) + 0.3

    def loss(p, x, y):
        return np.mean((x @ p["w"] + p["b"] - y) ** 2)

    dloss = nf.grad(loss)
    params = {"w": np.zeros(3), "b": np.zeros(())}
    state = getattr(optim, name + "_init")(params) if name != "sgd" else None
    for _ in range(500):
        grads = dloss(params, x, target)
        if name == "sgd":
            params = optim.sgd(params, grads, lr)
        else:
            params, state = getattr(optim, name)(params, grads, state, lr)
    assert loss(params, x, target) < 1e-3
