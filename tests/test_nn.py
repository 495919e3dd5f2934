"""Layers and the ResNet: srcdiff gradients against finite differences, in float64."""

import numpy as np
import pytest

import srcdiff as nf
from gradcheck import check_grad
from srcdiff import nn, resnet
from srcdiff.train import flatten, tree_map


def as64(tree):
    return tree_map(lambda a: np.asarray(a, dtype=np.float64), tree)


def leaves(tree):
    return list(flatten(tree).values())


def combine(tree, other, scale):
    return tree_map(lambda a, b: a + scale * b, tree, other)


def check_directional(f, params, args, grads, rng, directions=3, eps=1e-6):
    """<grad, v> against central differences of f along random directions v."""
    for _ in range(directions):
        v = tree_map(lambda a: rng.normal(size=np.shape(a)), params)
        expected = (f(combine(params, v, eps), *args) - f(combine(params, v, -eps), *args)) / (
            2 * eps
        )
        got = sum(float(np.sum(g * d)) for g, d in zip(leaves(grads), leaves(v)))
        assert got == pytest.approx(expected, rel=1e-5, abs=1e-8)


def conv_loss(x, w, stride, padding):
    return np.sum(np.sin(nn.conv2d(x, w, stride, padding)))


@pytest.mark.parametrize("stride, padding", [(1, 1), (2, 1), (1, 0), (2, 0)])
def test_conv2d(rng, stride, padding):
    x, w = rng.normal(size=(2, 3, 6, 6)), rng.normal(size=(4, 3, 3, 3))
    np.testing.assert_allclose(nn.conv2d(x, w, 1, 1)[0, 0, 1, 1], np.sum(x[0, :, :3, :3] * w[0]))
    check_grad(conv_loss, x, w, stride, padding, wrt=(0, 1))


@pytest.mark.parametrize("size, stride", [(3, 2), (2, 3), (3, 1), (1, 2)])
def test_correlate_template_in_both_modes(rng, size, stride):
    def f(x, w):
        return np.sum(np.sin(nn.correlate(x, w, stride)))

    x = rng.normal(size=(2, 3, 7, 8))  # 7 rows: stride 2 or 3 leaves the last ones unread
    w = rng.normal(size=(4, 3, size, size))
    gx, gw = check_grad(f, x, w, wrt=(0, 1))
    vx, vw = rng.normal(size=x.shape), rng.normal(size=w.shape)
    _, tangent = nf.jvp(f, wrt=(0, 1))(x, w, (vx, vw))
    assert tangent == pytest.approx(np.sum(gx * vx) + np.sum(gw * vw), rel=1e-10)
    source = nf.grad(f, wrt=(0, 1)).source
    assert "bx = correlate_input_grad(b_t0, x, w, stride)" in source
    assert "bw = correlate_weight_grad(b_t0, x, w, stride)" in source


def bn_loss(x, gamma, beta, mean, var, training):
    y, new_mean, new_var = nn.batch_norm(x, gamma, beta, mean, var, training)
    return np.sum(np.sin(y) * np.arange(y.shape[1]).reshape(1, -1, 1, 1))


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm(rng, training):
    x = rng.normal(size=(4, 3, 2, 2))
    gamma, beta = rng.normal(size=3), rng.normal(size=3)
    mean, var = rng.normal(size=3), rng.uniform(0.5, 2, size=3)
    check_grad(bn_loss, x, gamma, beta, mean, var, training, wrt=(0, 1, 2))


def test_batch_norm_returns_new_running_statistics(rng):
    x = rng.normal(size=(4, 3, 2, 2))
    mean, var = np.zeros(3), np.ones(3)
    _, new_mean, new_var = nn.batch_norm(x, np.ones(3), np.zeros(3), mean, var, True, 0.9)
    np.testing.assert_allclose(new_mean, 0.1 * x.mean(axis=(0, 2, 3)))
    np.testing.assert_allclose(new_var, 0.9 + 0.1 * x.var(axis=(0, 2, 3)))
    assert mean.sum() == 0 and var.sum() == 3  # not mutated


def pool_loss(x):
    return np.sum(np.sin(nn.max_pool2d(x)) + nn.global_avg_pool(x) @ np.arange(3.0))


def test_pooling(rng):
    check_grad(pool_loss, rng.normal(size=(2, 3, 4, 4)))


def head_loss(x, w, b, labels):
    return nn.softmax_cross_entropy(nn.relu(nn.linear(x, w, b)), labels)


def test_linear_relu_softmax_cross_entropy(rng):
    check_grad(
        head_loss,
        rng.normal(size=(5, 4)),
        rng.normal(size=(4, 3)),
        rng.normal(size=3),
        np.array([0, 2, 1, 1, 0]),
        wrt=(0, 1, 2),
    )


def test_tiny_resnet_gradient(rng):
    params = as64(resnet.init(rng, depth=8, width=4, in_channels=1, num_classes=3))
    x = rng.normal(size=(4, 1, 8, 8))
    y = np.array([0, 1, 2, 1])
    grads = nf.grad(resnet.loss)(params, x, y)
    assert set(grads) == set(params) and len(grads["blocks"]) == len(params["blocks"])
    for g, p in zip(leaves(grads), leaves(params)):
        assert g.shape == p.shape and g.dtype == np.float64
    check_directional(resnet.loss, params, (x, y), grads, rng)


def test_train_loss_threads_running_statistics(rng):
    params = resnet.init(rng, depth=8, width=4, in_channels=1, num_classes=3)
    x = rng.normal(size=(4, 1, 8, 8)).astype(np.float32)
    y = np.array([0, 1, 2, 1])
    grads, (state, logits) = nf.grad(resnet.train_loss, has_aux=True)(params, None, x, y)
    assert logits.shape == (4, 3)
    plain = nf.grad(resnet.loss)(params, x, y)
    for a, b in zip(leaves(grads), leaves(plain)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        assert a.dtype == np.float32
    assert len(state["blocks"]) == len(params["blocks"]) and state["stem"]["m"].shape == (4,)
    x2 = rng.normal(size=(4, 1, 8, 8)).astype(np.float32)
    _, (batch, _) = nf.grad(resnet.train_loss, has_aux=True)(params, None, x2, y)
    _, (state2, _) = nf.grad(resnet.train_loss, has_aux=True)(params, state, x2, y)
    np.testing.assert_allclose(
        state2["stem"]["m"], 0.9 * state["stem"]["m"] + 0.1 * batch["stem"]["m"], rtol=1e-5
    )
    assert resnet.predict(params, state2, x).shape == (4,)


def test_sgd_steps_reduce_the_loss(rng):
    params = resnet.init(rng, depth=8, width=4, in_channels=1, num_classes=3)
    x = rng.normal(size=(8, 1, 8, 8)).astype(np.float32)
    y = rng.integers(0, 3, size=8)
    grad = nf.grad(resnet.loss)
    first = resnet.loss(params, x, y)
    for _ in range(30):
        g = grad(params, x, y)
        params = combine(params, g, -0.1)
    assert resnet.loss(params, x, y) < 0.3 * first
