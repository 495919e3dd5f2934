"""The API beside grad (issue 20, "API"): Jacobians, elementwise_grad, argnums, JAX's jvp,
a vjp that keeps its forward values, and objects that show their source."""

import typing
from pathlib import Path

import numpy as np
import pytest

import srcdiff as nf
from gradcheck import numerical_grad


def numerical_jacobian(f, args, wrt, eps=1e-6):
    """d f(*args) / d args[wrt] by central differences: shape out.shape + x.shape."""
    x = np.asarray(args[wrt], dtype=float)
    columns = []
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = eps
        moved = [list(args), list(args)]
        moved[0][wrt], moved[1][wrt] = x + step, x - step
        columns.append((np.asarray(f(*moved[0])) - np.asarray(f(*moved[1]))) / (2 * eps))
    out_shape = np.shape(f(*args))
    return np.reshape(np.stack(columns, axis=-1), out_shape + x.shape)


def narrow(x, w):  # R^6 x R^2 -> R^2: fewer outputs than inputs
    return np.tanh(x @ w) * w[0]


def wide(x, w):  # R^2 -> R^(3x2): more outputs than inputs
    return np.sin(np.outer(w, x)) + x[None, :] * 2.0


def test_jacrev_jacfwd_and_jacobian_agree_with_finite_differences(rng):
    for f, args in (
        (narrow, (rng.normal(size=(2, 3)), rng.normal(size=3))),
        (wide, (rng.normal(size=2), rng.normal(size=3))),
    ):
        for wrt in (0, 1):
            expected = numerical_jacobian(f, args, wrt)
            for jacobian in (nf.jacrev, nf.jacfwd, nf.jacobian):
                got = jacobian(f, wrt=wrt)(*args)
                assert got.shape == expected.shape, (jacobian, f, wrt)
                np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)
        both = nf.jacobian(f, wrt=(0, 1))(*args)
        assert isinstance(both, tuple) and len(both) == 2
        for wrt, got in enumerate(both):
            np.testing.assert_allclose(got, numerical_jacobian(f, args, wrt), rtol=1e-6, atol=1e-8)


def rotated(x, y):  # R^3 x R^2 -> C^3
    return np.exp(1j * x) * y[0] + 1j * np.sum(y * y)


def test_jacobians_of_a_complex_output(rng):
    """Each pullback gives d Re(c* f): jacrev gave the real part of the Jacobian alone
    (a float64 array) where jacfwd and finite differences give a complex one."""
    args = (rng.normal(size=3), rng.normal(size=2))
    for wrt in (0, 1):
        expected = numerical_jacobian(rotated, args, wrt)
        assert np.iscomplexobj(expected)
        for jacobian in (nf.jacrev, nf.jacfwd, nf.jacobian):
            got = jacobian(rotated, wrt=wrt)(*args)
            np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)
    both = nf.jacrev(rotated, wrt=(0, 1))(*args)
    for wrt, got in enumerate(both):
        np.testing.assert_allclose(got, numerical_jacobian(rotated, args, wrt), rtol=1e-6)


def test_jacobian_chooses_the_mode_with_fewer_sweeps(rng):
    def count_forward_sweeps(jacobian):
        calls = []
        forward = jacobian._forward
        jacobian._forward = lambda *args: calls.append(1) or forward(*args)
        return calls

    narrow_jacobian = nf.jacobian(narrow, wrt=0)
    calls = count_forward_sweeps(narrow_jacobian)
    narrow_jacobian(rng.normal(size=(2, 3)), rng.normal(size=3))  # 2 outputs, 6 inputs
    assert calls == []  # reverse mode: one pullback per output
    wide_jacobian = nf.jacobian(wide, wrt=0)
    calls = count_forward_sweeps(wide_jacobian)
    wide_jacobian(rng.normal(size=2), rng.normal(size=3))  # 6 outputs, 2 inputs
    assert len(calls) == 2  # forward mode: one JVP per input element


def test_jacobian_of_scalars_and_of_a_scalar_function():
    def polar(r, theta):
        return r * np.cos(theta)

    d_r, d_theta = nf.jacobian(polar, wrt=(0, 1))(2.0, 0.5)
    assert float(d_r) == pytest.approx(np.cos(0.5)) and float(d_theta) == pytest.approx(
        -2.0 * np.sin(0.5)
    )
    x = np.array([0.3, -0.7])
    np.testing.assert_allclose(nf.jacobian(lambda_free_norm)(x), x / np.linalg.norm(x))


def lambda_free_norm(x):
    return np.sqrt(np.sum(x * x))


def test_a_jacobian_of_a_tuple_output_is_refused_with_the_return_line():
    def pair(x):
        return np.sin(x), np.cos(x)

    with pytest.raises(nf.ArgumentError) as caught:
        nf.jacobian(pair)(np.ones(2))
    assert "jacobian needs pair to return one array or number, not a tuple" in str(caught.value)
    assert "return np.sin(x), np.cos(x)" in str(caught.value)


def test_elementwise_grad(rng):
    def softplus(x):
        return np.log1p(np.exp(x))

    x = rng.normal(size=(3, 2))
    np.testing.assert_allclose(nf.elementwise_grad(softplus)(x), 1 / (1 + np.exp(-x)))
    assert nf.elementwise_grad(softplus)(0.0) == pytest.approx(0.5)
    assert "def bwd_softplus" in nf.elementwise_grad(softplus).source


def test_argnums_is_an_alias_of_wrt_everywhere(rng):
    x, w = rng.normal(size=(2, 3)), rng.normal(size=3)

    def loss(x, w):
        return np.sum(np.tanh(x @ w) ** 2)

    expected = nf.grad(loss, wrt=1)(x, w)
    np.testing.assert_allclose(nf.grad(loss, argnums=1)(x, w), expected)
    np.testing.assert_allclose(nf.grad(argnums=1)(loss)(x, w), expected)
    np.testing.assert_allclose(nf.value_and_grad(loss, argnums=1)(x, w)[1], expected)
    np.testing.assert_allclose(nf.vjp(loss, argnums=1)(x, w)[1](1.0), expected)
    v = rng.normal(size=3)
    assert nf.jvp(loss, argnums=1)(x, w, v)[1] == pytest.approx(expected @ v)
    np.testing.assert_allclose(
        nf.hvp(loss, argnums=1)(x, w, v), nf.hessian(loss, argnums=1)(x, w) @ v
    )
    np.testing.assert_allclose(nf.jacobian(loss, argnums=1)(x, w), expected)
    for transform in (
        nf.grad,
        nf.value_and_grad,
        nf.vjp,
        nf.jvp,
        nf.hvp,
        nf.hessian,
        nf.jacobian,
        nf.jacrev,
        nf.jacfwd,
        nf.elementwise_grad,
    ):
        with pytest.raises(nf.ArgumentError, match="give wrt or argnums, not both"):
            transform(loss, wrt=0, argnums=1)


def test_jvp_in_jax_form(rng):
    x, w = rng.normal(size=(2, 3)), rng.normal(size=3)
    dx, dw = rng.normal(size=(2, 3)), rng.normal(size=3)
    out, tangent = nf.jvp(narrow, (x, w), (dx, dw))
    np.testing.assert_allclose(out, narrow(x, w))
    expected = (
        numerical_jacobian(narrow, (x, w), 0).reshape(2, -1) @ dx.ravel()
        + numerical_jacobian(narrow, (x, w), 1) @ dw
    )
    np.testing.assert_allclose(tangent, expected, rtol=1e-6)
    _, only_x = nf.jvp(narrow, (x, w), (dx, None))  # None: w held constant
    np.testing.assert_allclose(only_x, nf.jvp(narrow, wrt=0)(x, w, dx)[1])
    with pytest.raises(
        nf.ArgumentError, match="a tuple of f's arguments and a tuple of as many tangents"
    ):
        nf.jvp(narrow, (x, w), (dx,))
    with pytest.raises(nf.ArgumentError, match="needs the tangents too"):
        nf.jvp(narrow, (x, w))
    with pytest.raises(nf.ArgumentError, match="every tangent is None"):
        nf.jvp(narrow, (x, w), (None, None))


def squashed(x):
    return np.tanh(np.exp(x)) * 2.0


def test_vjp_keeps_the_forward_values_instead_of_running_the_forward_sweep_again(rng):
    x = rng.normal(size=4)
    kept = x.copy()
    vjp = nf.vjp(squashed)
    out, pullback = vjp(x)
    np.testing.assert_allclose(out, squashed(kept))
    backward = vjp.source.split("def bwd_squashed")[1]
    assert "np.tanh" not in backward and "np.exp" not in backward and " x" not in backward
    x[:] = 0.0  # the backward sweep reads only what the forward one saved: not x
    u = rng.normal(size=4)
    expected = numerical_grad(lambda x_: squashed(x_) @ u, (kept,), 0)
    np.testing.assert_allclose(pullback(u), expected, rtol=1e-6)  # rerunning gave x = 0's
    assert repr(pullback) == "<srcdiff pullback of squashed>"


def test_a_pullback_can_be_called_more_than_once(rng):
    def f(x, w):
        for _ in range(3):
            x = np.tanh(x * w)
        return x

    x, w = rng.normal(size=4), rng.normal(size=4)
    out, pullback = nf.vjp(f, wrt=(0, 1))(x, w)
    u = rng.normal(size=4)
    for _ in range(2):  # the backward sweep pops its stacks: each call gets its own copies
        gx, gw = pullback(u)
        np.testing.assert_allclose(gx, numerical_grad(lambda x_: f(x_, w) @ u, (x,), 0), rtol=1e-6)
        np.testing.assert_allclose(gw, numerical_grad(lambda w_: f(x, w_) @ u, (w,), 0), rtol=1e-6)


def test_vjp_of_a_method_and_of_python_floats(rng):
    class Model:
        def energy(self, x, scale):
            return np.sin(x) * scale

    x = rng.normal(size=3)
    out, pullback = nf.vjp(Model().energy, wrt=(0, 1))(x, 2.0)
    gx, gscale = pullback(np.ones(3))
    np.testing.assert_allclose(gx, 2.0 * np.cos(x))
    assert isinstance(gscale, float) and gscale == pytest.approx(np.sum(np.sin(x)))


def loss(w, x):
    return np.sum(np.tanh(x @ w) ** 2)


def test_every_transform_shows_its_source_and_a_repr(rng):
    w, x = rng.normal(size=3), rng.normal(size=(5, 3))
    v = rng.normal(size=3)
    shown = {
        nf.value_and_grad(loss): (
            "<srcdiff value_and_grad of loss wrt=0>",
            "def dloss(w, x)",
            (w, x),
        ),
        nf.vjp(loss): ("<srcdiff vjp of loss wrt=0>", "def fwd_loss(w, x)", (w, x)),
        nf.hvp(loss): ("<srcdiff hvp of loss wrt=0>", "def jvp_dloss(dw, w, x)", (w, x, v)),
        nf.hessian(loss): ("<srcdiff hessian of loss wrt=0>", "def jvp_dloss(dw, w, x)", (w, x)),
        nf.jacrev(loss, wrt=(0, 1)): (
            "<srcdiff jacrev of loss wrt=(0, 1)>",
            "def bwd_loss(b_t3, saved)",
            (w, x),
        ),
        nf.jacfwd(loss): ("<srcdiff jacfwd of loss wrt=0>", "def jvp_loss(dw, w, x)", (w, x)),
        nf.jacobian(loss): (
            "<srcdiff jacobian of loss wrt=0>",
            "def fwd_loss(w, x)",
            (w, x),
        ),  # one output: reverse mode
        nf.elementwise_grad(loss): (
            "<srcdiff elementwise_grad of loss wrt=0>",
            "def bwd_loss(b_t3, saved)",
            (w, x),
        ),
        nf.grad(loss): ("<srcdiff grad of loss wrt=0>", "def dloss(w, x)", (w, x)),
        nf.jvp(loss): ("<srcdiff jvp of loss wrt=0>", "def jvp_loss(dw, w, x)", (w, x, v)),
    }
    for transformed, (text, definition, args) in shown.items():
        assert repr(transformed) == text
        assert definition in transformed.source, text
        specialised = transformed.source_for(*args)  # (or .source, where not specialised)
        assert isinstance(specialised, str) and definition.split("(")[0] in specialised, text
        assert transformed.fun is loss
    hvp = nf.hvp(loss)
    assert hvp.source_for(w, x, v) != hvp.source  # specialised to the shapes
    assert "runtime.unbroadcast" not in hvp.source_for(w, x, v)
    assert "def fwd_loss" in nf.jacobian(loss).source and "def jvp_loss" in nf.jacobian(loss).source


def test_the_public_api_has_type_hints_and_ships_py_typed():
    for function in (
        nf.grad,
        nf.jvp,
        nf.value_and_grad,
        nf.vjp,
        nf.hvp,
        nf.hessian,
        nf.jacobian,
        nf.jacrev,
        nf.jacfwd,
        nf.elementwise_grad,
        nf.config,
    ):
        hints = typing.get_type_hints(function)
        assert "return" in hints and len(hints) > 1, function
    assert (Path(nf.__file__).parent / "py.typed").is_file()
