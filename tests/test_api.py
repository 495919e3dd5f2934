"""The public API of CONVENTIONS.md: grad, value_and_grad, vjp, wrt, dtypes, source."""

import numpy as np
import pytest

import srcdiff as nf
from gradcheck import check_grad, numerical_grad


def loss(w, x):
    return np.sum(np.tanh(x @ w) ** 2)


@nf.grad
def decorated(x):
    return np.sum(x**3)


@nf.grad(wrt=1)
def decorated_wrt(a, b):
    return np.sum(a * np.sin(b))


def test_decorator_forms(rng):
    x = rng.normal(size=4)
    np.testing.assert_allclose(decorated(x), 3 * x**2)
    a, b = rng.normal(size=3), rng.normal(size=3)
    np.testing.assert_allclose(decorated_wrt(a, b), a * np.cos(b))
    assert decorated.fun.__name__ == "decorated"


def test_wrt_tuple_order_and_single(rng):
    w, x = rng.normal(size=3), rng.normal(size=(5, 3))
    gx, gw = nf.grad(loss, wrt=(1, 0))(w, x)
    np.testing.assert_allclose(gw, numerical_grad(loss, (w, x), 0), rtol=1e-6)
    np.testing.assert_allclose(gx, numerical_grad(loss, (w, x), 1), rtol=1e-6)
    (only,) = nf.grad(loss, wrt=(0,))(w, x)
    np.testing.assert_allclose(only, gw)
    assert isinstance(nf.grad(loss)(w, x), np.ndarray)


def test_wrt_by_parameter_name(rng):
    w, x = rng.normal(size=3), rng.normal(size=(5, 3))
    gx, gw = nf.grad(loss, wrt=(1, 0))(w, x)
    np.testing.assert_allclose(nf.grad(loss, wrt="x")(w, x), gx)
    for got, want in zip(nf.grad(loss, wrt=("x", 0))(w, x), (gx, gw)):
        np.testing.assert_allclose(got, want)
    np.testing.assert_allclose(nf.value_and_grad(loss, wrt="w")(w, x)[1], gw)
    np.testing.assert_allclose(nf.hessian(loss, wrt="w")(w, x), nf.hessian(loss)(w, x))
    with pytest.raises(nf.ArgumentError, match="names no parameter.*its parameters: w, x"):
        nf.grad(loss, wrt="params")


def test_preserve_result_and_value_and_grad(rng):
    w, x = rng.normal(size=3), rng.normal(size=(5, 3))
    g, value = nf.grad(loss, preserve_result=True)(w, x)
    assert value == pytest.approx(loss(w, x))
    v, g2 = nf.value_and_grad(loss)(w, x)
    assert v == pytest.approx(loss(w, x))
    np.testing.assert_allclose(g, g2)


def test_vjp_of_a_vector_function(rng):
    def f(x, w):
        return np.tanh(x @ w)

    x, w = rng.normal(size=(4, 3)), rng.normal(size=(3, 2))
    out, pullback = nf.vjp(f, wrt=1)(x, w)
    np.testing.assert_allclose(out, f(x, w))
    u = rng.normal(size=out.shape)
    expected = numerical_grad(lambda w_: np.sum(f(x, w_) * u), (w,), 0)
    np.testing.assert_allclose(pullback(u), expected, rtol=1e-6)


def parts_of(x):
    return {"total": np.sum(x), "squares": x**2}


@pytest.mark.parametrize(
    "cotangent, message",
    [
        (None, "the cotangent is None"),
        ((1.0, np.ones(3)), "the cotangent is a tuple, but the value it goes with is a dict"),
        ({"total": 1.0, "cubes": 2.0}, "has keys the value it goes with does not have: 'cubes'"),
        ({"total": [1.0, 2.0]}, "the cotangent['total'] has shape (2,)"),
    ],
)
def test_a_cotangent_of_the_wrong_structure_is_refused_at_the_call(cotangent, message):
    """It was a raw TypeError or ValueError from the emitted code, or the extra key ignored."""
    _, pullback = nf.vjp(parts_of)(np.array([0.3, -0.7, 1.2]))
    with pytest.raises(nf.ArgumentError) as caught:
        pullback(cotangent)  # the line named
    assert message in str(caught.value)
    assert f"{__file__}:" in str(caught.value) and "pullback(cotangent)  # the line" in str(
        caught.value
    )


def test_float32_gives_float32(rng):
    w = rng.normal(size=3).astype(np.float32)
    x = rng.normal(size=(5, 3)).astype(np.float32)
    g = nf.grad(loss)(w, x)
    assert g.dtype == np.float32 and g.shape == w.shape
    np.testing.assert_allclose(g, nf.grad(loss)(w.astype(float), x.astype(float)), rtol=1e-4)


def test_python_float_argument():
    def f(a, b):
        return a * a * b

    ga, gb = nf.grad(f, wrt=(0, 1))(3.0, 2.0)
    assert ga == pytest.approx(12.0) and gb == pytest.approx(9.0)
    assert isinstance(ga, float)


def test_lambdas_as_autograd_users_pass_them(rng):
    """nf.grad(lambda ...), a lambda calling one it makes, and a lambda a lambda returns:
    each is the lambda expression its code was compiled from, though they share a line."""
    w, x = rng.normal(size=3), rng.normal(size=(4, 3))
    check_grad(lambda w_, x_: np.sum(np.tanh(x_ @ w_) ** 2), w, x, wrt=0)
    check_grad(lambda w_: (lambda y: np.sum(np.sin(y) * w_))(2 * w_), w, wrt=0)
    make = lambda k: lambda v: np.sum(np.cos(k * v))  # noqa: E731
    check_grad(make(1.5), w, wrt=0)
    assert nf.grad(lambda a: a * a * 3.0)(2.0) == pytest.approx(12.0)
    assert "def dlambda_(" in nf.grad(lambda a: a * 2.0).source


def test_integer_array_in_a_constant_position(rng):
    def pick(w, idx):
        return np.sum(w[idx] ** 2)

    w = rng.normal(size=5)
    check_grad(pick, w, np.array([0, 2, 2]), wrt=0)


def test_unused_argument_gets_zeros(rng):
    def f(x, y):
        return np.sum(y * 2.0)

    g = nf.grad(f)(np.ones(3), np.ones(3))
    np.testing.assert_array_equal(g, np.zeros(3))


def test_method(rng):
    class Model:
        def __init__(self, scale):
            self.scale = scale

        def energy(self, x):
            return np.sum(np.sin(x) * 2.0)

    m = Model(2.0)
    x = rng.normal(size=4)
    np.testing.assert_allclose(nf.grad(m.energy)(x), 2.0 * np.cos(x))


def test_source_is_readable():
    def f(x, y):
        z = np.exp(x) * y
        return np.sum(z)

    source = nf.grad(f).source
    assert "def df(x, y):" in source
    assert "bz = " in source and "bx = " in source
    assert "import numpy as np" in source and "from srcdiff import runtime" in source
    assert "srcdiff.transform" not in source and "anf" not in source
    lines = [line for line in source.splitlines() if line.startswith("    ")]
    assert lines[0].strip() == "z = np.exp(x) * y" or lines[0].strip().startswith("_t0 = np.exp(x)")


def test_source_is_deterministic():
    def f(x):
        return np.sum(np.sin(x) * x)

    a = nf.grad(f).source
    b = nf.grad(f, optimized=True).source
    assert a == b


def test_reassigned_variables_get_versions(rng):
    def f(x):
        y = x * 2.0
        y = np.sin(y)
        y = y * x
        return np.sum(y)

    check_grad(f, rng.normal(size=4))
    assert "y_1" in nf.grad(f).source


def test_traceback_points_into_emitted_code():
    import traceback

    def f(x):
        return np.sum(np.log(x) @ np.ones((2, 2)))

    d = nf.grad(f)
    try:
        d(np.ones(3))
    except ValueError:
        frames = traceback.extract_tb(__import__("sys").exc_info()[2])
        emitted = [fr for fr in frames if fr.name == "df"]
        assert emitted and emitted[0].line  # the emitted line is shown, not "<unknown>"
    else:
        pytest.fail("expected a shape error")


def with_aux(w, x):
    h = np.tanh(x @ w)
    return np.sum(h**2), {"mean": np.mean(h), "h": h}


def test_has_aux_passes_values_through(rng):
    w, x = rng.normal(size=3), rng.normal(size=(5, 3))
    g, aux = nf.grad(with_aux, has_aux=True)(w, x)
    np.testing.assert_allclose(g, numerical_grad(lambda w_: with_aux(w_, x)[0], (w,), 0), rtol=1e-6)
    np.testing.assert_allclose(aux["h"], np.tanh(x @ w))
    (value, aux2), g2 = nf.value_and_grad(with_aux, has_aux=True)(w, x)
    assert value == pytest.approx(with_aux(w, x)[0])
    np.testing.assert_allclose(g2, g)


def with_aux_returned_early(w, x, first):
    h = np.tanh(x @ w)
    if first:
        return np.sum(h**2), {"branch": 1, "h": h}
    for k in range(3):
        h = np.sin(h)
        if np.sum(h) > 100.0:  # (never, for these x)
            return np.sum(h), {"branch": 2, "h": h}
    return np.sum(h**3), {"branch": 3, "h": h}


@pytest.mark.parametrize("first", [True, False])
def test_has_aux_with_a_pair_returned_on_each_path(rng, first):
    w, x = rng.normal(size=3), rng.normal(size=(5, 3))
    value, aux = with_aux_returned_early(w, x, first)
    expected = numerical_grad(lambda w_: with_aux_returned_early(w_, x, first)[0], (w,), 0)
    g, got = nf.grad(with_aux_returned_early, has_aux=True)(w, x, first)
    np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-9)
    assert got["branch"] == aux["branch"] and np.allclose(got["h"], aux["h"])
    (v2, aux2), g2 = nf.value_and_grad(with_aux_returned_early, has_aux=True)(w, x, first)
    assert v2 == pytest.approx(value) and aux2["branch"] == aux["branch"]
    np.testing.assert_allclose(g2, g)
    g3, v3, aux3 = nf.grad(with_aux_returned_early, has_aux=True, preserve_result=True)(w, x, first)
    np.testing.assert_allclose(g3, g)
    assert v3 == pytest.approx(value) and aux3["branch"] == aux["branch"]


def test_values_that_never_reach_the_output_get_no_adjoint():
    def f(x):
        log = []
        y = np.sin(x)
        log = log + [np.exp(x)]
        return np.sum(y), log

    source = nf.grad(f, has_aux=True).source
    assert "np.exp(x)" in source and "bx = " in source
    assert source.count("runtime.") < 8 and "exp" not in source.split("grad_seed")[1]


def test_aux_is_computed_in_the_forward_sweep(rng):
    def f(x):
        for i in range(3):
            x = np.sin(x) * 1.5
        return np.sum(x), {"last": x * 1.0, "norm": np.sum(x * x)}

    x = rng.normal(size=4)
    g, aux = nf.grad(f, has_aux=True)(x)
    np.testing.assert_allclose(aux["last"], f(x)[1]["last"])
    assert aux["norm"] == pytest.approx(f(x)[1]["norm"])


# --- keyword arguments get every check positional ones get (issue 13, item 8) ---------------


def test_keyword_arguments_are_checked_like_positional_ones(rng):
    w, x = rng.normal(size=3), rng.normal(size=(5, 3))
    with pytest.raises(nf.ArgumentError) as caught:
        nf.grad(loss)(w=np.arange(3), x=x)  # returned None before
    assert "argument 'w' is ndarray with dtype int64, which cannot be differentiated" in str(
        caught.value
    )
    assert f"{__file__}:{loss.__code__.co_firstlineno}:" in str(caught.value)  # loss's def
    expected = nf.grad(loss)(w, x)
    np.testing.assert_allclose(nf.grad(loss)(w=w, x=x), expected)
    np.testing.assert_allclose(nf.grad(loss)(w, x=x), expected)
    np.testing.assert_allclose(nf.value_and_grad(loss)(x=x, w=w)[1], expected)
    out, pullback = nf.vjp(loss)(x=x, w=w)
    np.testing.assert_allclose(pullback(1.0), expected)
    _, tangent = nf.jvp(loss, wrt=0)(np.ones(3), x=x, w=w)  # the tangents come last
    assert tangent == pytest.approx(np.sum(expected))
    with pytest.raises(
        nf.ArgumentError, match="cannot call loss: missing a required argument: 'x'"
    ):
        nf.grad(loss)(w=w)


def test_keyword_arguments_fill_defaults_and_keep_keyword_only_ones(rng):
    def scaled(x, s=2.0, *, power=2):
        return np.sum((x * s) ** power)

    x = rng.normal(size=3)
    np.testing.assert_allclose(nf.grad(scaled)(x=x), 8.0 * x)
    np.testing.assert_allclose(nf.grad(scaled)(x, power=2, s=3.0), 18.0 * x)
    assert nf.grad(scaled, wrt=1)(x=x, s=2.0) == pytest.approx(4.0 * np.sum(x * x))
    with pytest.raises(nf.ArgumentError, match="argument 's' is int"):
        nf.grad(scaled, wrt=1)(x=x, s=2)


# --- hessian with a tuple wrt, jvp without its tangents (issue 13, item 16) -----------------


def two_arguments(x, w):
    return np.sum(np.tanh(x * w) ** 2) + np.sum(x**3) * w[0]


def test_hessian_with_a_tuple_wrt_gives_blocks_as_jax_does(rng):
    x, w = rng.normal(size=2), rng.normal(size=3)[:2]
    blocks = nf.hessian(two_arguments, wrt=(0, 1))(x, w)  # a raw TypeError before
    assert len(blocks) == 2 and all(len(row) == 2 for row in blocks)
    flat = np.concatenate([x, w])

    def joined(z):
        return two_arguments(z[:2], z[2:])

    def gradient(z):
        return numerical_grad(joined, (z,), 0)

    # the Hessian of the function of one joined vector: by finite differences of gradients,
    # and (closer) by the one-argument hessian
    differences = np.stack(
        [(gradient(flat + e * 1e-4) - gradient(flat - e * 1e-4)) / 2e-4 for e in np.eye(4)], axis=1
    )
    full = nf.hessian(joined)(flat)
    np.testing.assert_allclose(full, differences, rtol=1e-4, atol=1e-4)
    for i, rows in enumerate((slice(0, 2), slice(2, 4))):
        for j, cols in enumerate((slice(0, 2), slice(2, 4))):
            assert blocks[i][j].shape == (2, 2)
            np.testing.assert_allclose(blocks[i][j], full[rows, cols], rtol=1e-10, atol=1e-12)
    ((only,),) = nf.hessian(two_arguments, wrt=(0,))(x, w)
    np.testing.assert_allclose(only, nf.hessian(two_arguments, wrt=0)(x, w))
    (aa, ab), (ba, bb) = nf.hessian(lambda_free_product, wrt=(0, 1))(3.0, 2.0)
    assert (aa, ab, ba, bb) == (
        pytest.approx(4.0),
        pytest.approx(6.0),
        pytest.approx(6.0),
        pytest.approx(0.0),
    )


def lambda_free_product(a, b):
    return a * a * b


def test_jvp_called_without_its_tangents_says_so():
    def f(x):
        return np.sin(x)

    with pytest.raises(nf.ArgumentError) as caught:
        nf.jvp(f, wrt=(0,))(np.ones(3))  # said "needs 1 tangent(s), got 3"
    message = str(caught.value)
    assert (
        "jvp of f needs its 1 argument(s) and then a tuple of 1 tangent(s), one per "
        "position in wrt, but got 1 argument(s) in all: the tangents are missing" in message
    )
    assert "hint: call it as jvp_f(*args, tangents)" in message
    with pytest.raises(
        nf.ArgumentError,
        match=r"wrt=\(0,\) needs a tuple of 1 tangent\(s\), "
        "one per position in wrt, not one ndarray",
    ):
        nf.jvp(f, wrt=(0,))(np.ones(3), np.ones(3))
    with pytest.raises(nf.ArgumentError, match="needs its 1 argument"):
        nf.jvp(f)(np.ones(3))
    out, tangent = nf.jvp(f, wrt=(0,))(np.zeros(3), (np.ones(3),))
    np.testing.assert_allclose(tangent, np.ones(3))


def held_fixed(x):
    return np.sum(x * nf.stop_gradient(x) ** 2)


def test_stop_gradient_is_a_constant_in_every_mode_and_order():
    x = np.array([1.0, 2.0, -3.0])
    np.testing.assert_allclose(nf.grad(held_fixed)(x), x**2)  # d/dx of x * c**2
    assert nf.jvp(held_fixed)(x, np.ones(3))[1] == pytest.approx(np.sum(x**2))
    np.testing.assert_allclose(nf.hvp(held_fixed)(x, np.ones(3)), np.zeros(3))
    assert nf.stop_gradient(x) is x
