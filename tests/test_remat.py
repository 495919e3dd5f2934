"""nf.checkpoint: the backward sweep recomputes a function's values instead of keeping them,
and every derivative is the same number as without it."""

import numpy as np
import pytest

import srcdiff as nf
from gradcheck import check_grad
from srcdiff import nn, resnet
from srcdiff.train import flatten


def layer(w, x):
    h = np.tanh(x @ w)
    return np.sin(h) * h


block = nf.checkpoint(layer)


@nf.checkpoint
def pair(w, x, scale=1.0):
    h = layer(w, x)
    return h * scale, np.sum(h)


def two_layers(w1, w2, x):
    return np.sum(block(w2, block(w1, x)) ** 2)


def two_layers_kept(w1, w2, x):
    return np.sum(layer(w2, layer(w1, x)) ** 2)


def looped(w, x, steps):
    for _ in range(steps):
        x = block(w, x)  # x is overwritten: each step's input is kept on a stack
    return np.sum(x)


def looped_kept(w, x, steps):
    for _ in range(steps):
        x = layer(w, x)
    return np.sum(x)


def with_tuple(w, x):
    h, total = pair(w, x, scale=2.0)
    return np.sum(h**2) + total


def with_tuple_kept(w, x):
    h, total = pair.fun(w, x, scale=2.0)
    return np.sum(h**2) + total


@pytest.fixture
def args(rng):
    return rng.normal(size=(4, 4)) * 0.5, rng.normal(size=(4, 4)) * 0.5, rng.normal(size=(3, 4))


def test_gradients_equal_those_without_checkpoint(args):
    got = nf.grad(two_layers, wrt=(0, 1, 2))(*args)
    kept = nf.grad(two_layers_kept, wrt=(0, 1, 2))(*args)
    for a, b in zip(got, kept):
        np.testing.assert_array_equal(a, b)
    check_grad(two_layers, *args, wrt=(0, 1, 2))


def test_backward_sweep_calls_the_forward_again_and_keeps_only_arguments():
    source = nf.grad(two_layers, wrt=(0, 1, 2)).source
    assert "fwd_layer(w1, x)[0]" in source
    assert "layer_saved = fwd_layer(w1, x)[1]" in source
    kept = nf.grad(two_layers_kept, wrt=(0, 1, 2)).source
    assert "[1]" not in kept.split("def fwd_layer")[0]


def test_in_a_loop_with_its_input_overwritten(args):
    w, _, x = args
    got = nf.grad(looped, wrt=(0, 1))(w, x, 3)
    kept = nf.grad(looped_kept, wrt=(0, 1))(w, x, 3)
    for a, b in zip(got, kept):
        np.testing.assert_array_equal(a, b)
    check_grad(looped, w, x, 3, wrt=(0, 1))


def test_tuple_result_and_keyword_argument(args):
    w, _, x = args
    got = nf.grad(with_tuple, wrt=(0, 1))(w, x)
    kept = nf.grad(with_tuple_kept, wrt=(0, 1))(w, x)
    for a, b in zip(got, kept):
        np.testing.assert_array_equal(a, b)


def test_forward_mode_vjp_and_second_order(args, rng):
    w1, w2, x = args
    v = rng.normal(size=w1.shape)
    _, tangent = nf.jvp(two_layers, wrt=0)(w1, w2, x, v)
    _, tangent_kept = nf.jvp(two_layers_kept, wrt=0)(w1, w2, x, v)
    assert tangent == pytest.approx(tangent_kept, rel=1e-12)
    out, pullback = nf.vjp(two_layers, wrt=0)(w1, w2, x)
    np.testing.assert_allclose(pullback(1.0), nf.grad(two_layers_kept)(w1, w2, x), rtol=1e-12)
    np.testing.assert_allclose(
        nf.hvp(two_layers)(w1, w2, x, v), nf.hvp(two_layers_kept)(w1, w2, x, v), rtol=1e-10
    )


def test_a_checkpointed_function_runs_as_itself(args):
    w, _, x = args
    np.testing.assert_array_equal(block(w, x), layer(w, x))
    assert nf.checkpoint(block) is block and block.fun is layer
    assert "checkpoint of layer" in repr(block)


def test_checkpoint_of_what_is_not_a_function_is_an_error():
    with pytest.raises(nf.SrcdiffError, match="nf.checkpoint takes a Python function") as caught:
        nf.checkpoint(np.sin)
    assert caught.value.location.filename == __file__


def test_resnet_blocks_recomputed_give_the_same_gradient(rng):
    params = resnet.init(rng, depth=8, width=4, in_channels=1, num_classes=3)
    x = rng.normal(size=(4, 1, 8, 8)).astype(np.float32)
    y = np.array([0, 1, 2, 1])
    grad = nf.grad(resnet.loss)
    kept = flatten(grad(params, x, y))
    recomputed = flatten(grad(params, x, y, nf.checkpoint(resnet.basic_block)))
    assert kept.keys() == recomputed.keys()
    for key in kept:
        np.testing.assert_array_equal(kept[key], recomputed[key])
    assert nn  # (the layers the blocks are made of)
