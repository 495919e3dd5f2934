"""Derivatives made inside the differentiated function (`nf.grad(inner)(w, x)` in f, a MAML
step or a gradient penalty), differentiated through their emitted code in reverse mode,
forward mode and forward over reverse; checked against finite differences and autograd."""

import json
import os
import subprocess
import sys
import textwrap

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcdiff as nf
from srcdiff import runtime
from gradcheck import numerical_grad
from helpers import layers
from oracle import gradient_along

HERE = os.path.abspath(__file__)

EPS, RTOL = 1e-5, 1e-5


def inner(w, x):
    return np.sum(np.tanh(x @ w) ** 2)


def maml(w, x):
    g = nf.grad(inner)(w, x)  # the inner step, differentiated through
    w2 = w - 0.1 * g
    return inner(w2, x)


def maml_named(w, x):
    step = nf.grad(inner)
    return inner(w - 0.1 * step(w, x), x)


inner_step = nf.grad(inner)


def maml_global(w, x):
    return inner(w - 0.1 * inner_step(w, x), x)


def critic(p, x):
    return np.sum(np.sin(p * x) * x)


def penalty(p, x):
    return np.sum(nf.grad(critic, wrt=1)(p, x) ** 2)


def a_inner(w, x):
    return anp.sum(anp.tanh(anp.dot(x, w)) ** 2)


def a_maml(w, x):
    return a_inner(w - 0.1 * autograd.grad(a_inner)(w, x), x)


def a_penalty(p, x):
    return anp.sum(autograd.grad(lambda p_, x_: anp.sum(anp.sin(p_ * x_) * x_), 1)(p, x) ** 2)


@pytest.fixture
def arrays(rng):
    return rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=3)


@pytest.mark.parametrize("f", [maml, maml_named, maml_global], ids=lambda f: f.__name__)
def test_a_gradient_inside_f_in_reverse_forward_and_second_order(f, arrays):
    w, x, v = arrays
    gradient = nf.grad(f)(w, x)
    np.testing.assert_allclose(gradient, numerical_grad(f, (w, x), 0, eps=EPS), rtol=RTOL)
    np.testing.assert_allclose(gradient, autograd.grad(a_maml)(w, x), rtol=1e-10)
    value, tangent = nf.jvp(f)(w, x, v)
    assert value == pytest.approx(a_maml(w, x), rel=1e-12)
    assert tangent == pytest.approx(gradient @ v, rel=1e-10)
    product = nf.hvp(f)(w, x, v)
    np.testing.assert_allclose(product, gradient_along(nf.grad(f), (w, x), 0, v), rtol=RTOL)
    expected = autograd.hessian_vector_product(a_maml)(w, x, v)
    np.testing.assert_allclose(product, expected, rtol=1e-10)


def directional(w, x, v):
    value, tangent = nf.jvp(inner)(w, x, v)  # the tangent v differentiated too
    return value * tangent


along_inner = nf.jvp(inner, wrt=1)


def directional_in_x(w, x, u):
    return np.sum(np.cos(along_inner(w, x, u)[1]))


def curvature(w, x):
    product = nf.hvp(inner)
    return np.sum(product(w, x, x[0] * w) ** 2)


def a_directional(w, x, v):
    return a_inner(w, x) * anp.dot(autograd.grad(a_inner)(w, x), v)


def a_curvature(w, x):
    return anp.sum(autograd.hessian_vector_product(a_inner)(w, x, x[0] * w) ** 2)


def test_a_jvp_and_an_hvp_inside_f(arrays):
    w, x, v = arrays
    for wrt in (0, 2):
        gradient = nf.grad(directional, wrt=wrt)(w, x, v)
        expected = numerical_grad(directional, (w, x, v), wrt, eps=EPS)
        np.testing.assert_allclose(gradient, expected, rtol=RTOL)
        expected = autograd.grad(a_directional, wrt)(w, x, v)
        np.testing.assert_allclose(gradient, expected, rtol=1e-10)
    tangent = nf.jvp(directional)(w, x, v, v)[1]
    assert tangent == pytest.approx(nf.grad(directional)(w, x, v) @ v, rel=1e-10)
    product = nf.hvp(directional)(w, x, v, v)
    np.testing.assert_allclose(
        product, gradient_along(nf.grad(directional), (w, x, v), 0, v), rtol=RTOL
    )
    u = np.ones_like(x)
    gradient = nf.grad(directional_in_x, wrt=1)(w, x, u)
    expected = numerical_grad(directional_in_x, (w, x, u), 1, eps=EPS)
    np.testing.assert_allclose(gradient, expected, rtol=RTOL)
    gradient = nf.grad(curvature)(w, x)
    np.testing.assert_allclose(gradient, numerical_grad(curvature, (w, x), 0, eps=EPS), rtol=RTOL)
    np.testing.assert_allclose(gradient, autograd.grad(a_curvature)(w, x), rtol=1e-10)
    np.testing.assert_allclose(nf.jvp(curvature)(w, x, v)[1], gradient @ v, rtol=1e-10)
    product = nf.hvp(curvature)(w, x, v)
    np.testing.assert_allclose(product, gradient_along(nf.grad(curvature), (w, x), 0, v), rtol=RTOL)


def test_a_gradient_penalty_with_respect_to_the_other_argument(arrays):
    p, _, v = arrays
    x = np.linspace(-1.0, 1.0, 3)
    gradient = nf.grad(penalty)(p, x)
    np.testing.assert_allclose(gradient, numerical_grad(penalty, (p, x), 0, eps=EPS), rtol=RTOL)
    np.testing.assert_allclose(gradient, autograd.grad(a_penalty)(p, x), rtol=1e-10)
    np.testing.assert_allclose(nf.grad(penalty, wrt=1)(p, x), autograd.grad(a_penalty, 1)(p, x))
    np.testing.assert_allclose(nf.jvp(penalty)(p, x, v)[1], gradient @ v, rtol=1e-10)
    np.testing.assert_allclose(
        nf.hvp(penalty)(p, x, v), autograd.hessian_vector_product(a_penalty)(p, x, v)
    )


def with_its_value(w, x):
    g, value = nf.grad(inner, preserve_result=True)(w, x)
    return value * np.sum(g * g)


def inner_along(w, x, u):  # (the hvp of inner, as the hint for nf.hvp inside f says)
    return np.sum(nf.grad(inner)(w, x) * u)


def through_a_module_function(t, x):
    return np.sin(nf.grad(layers.scaled_square)(t, 3.0)) * x


def differentiating_a_parameter(w, x, fn):
    return fn(w - 0.1 * nf.grad(fn)(w, x), x)


def scalar(t):
    return np.sin(t) * t**3


def through_a_second_derivative(t):
    return nf.grad(nf.grad(scalar))(t) * t


def with_aux(w, x):
    return np.sum(np.tanh(x @ w) ** 2), np.mean(w)


def through_aux(w, x):
    g, aux = nf.grad(with_aux, has_aux=True)(w, x)
    return np.sum(g * g) * aux


def test_a_second_derivative_and_one_with_aux_inside_f(arrays):
    w, x, _ = arrays
    t = 0.7  # d/dt (t f''(t)) = f''(t) + t f'''(t), f = sin(t) t**3
    second = (6 * t - t**3) * np.sin(t) + 6 * t**2 * np.cos(t)
    third = (6 - 3 * t**2) * np.sin(t) + (6 * t - t**3) * np.cos(t)
    third += 12 * t * np.cos(t) - 6 * t**2 * np.sin(t)
    assert nf.grad(through_a_second_derivative)(t) == pytest.approx(second + t * third, rel=1e-10)
    gradient = nf.grad(through_aux)(w, x)
    np.testing.assert_allclose(gradient, numerical_grad(through_aux, (w, x), 0, eps=EPS), rtol=RTOL)


def elementwise_inner(w, x):
    return np.tanh(x @ w) ** 2


def with_a_pullback(w, x):
    out, pullback = nf.vjp(elementwise_inner)(w, x)
    cotangent = np.cos(out)
    w = w * 2.0  # (the pullback is of the w it was made at)
    return np.sum(pullback(cotangent) ** 2) * np.sum(w)


along_x = nf.vjp(elementwise_inner, wrt=1)


def with_a_pullback_in_x(w, x):
    out, pullback = along_x(w, x)
    return np.sum(pullback(out) * x)


def with_value_and_grad(w, x):
    value, g = nf.value_and_grad(inner)(w, x)
    return value * inner(w - 0.1 * g, x)


def a_with_a_pullback(w, x):
    out = anp.tanh(anp.dot(x, w)) ** 2
    pullback = autograd.make_vjp(lambda w_: anp.tanh(anp.dot(x, w_)) ** 2)(w)[0]
    return anp.sum(pullback(anp.cos(out)) ** 2) * anp.sum(w * 2.0)


def a_with_a_pullback_in_x(w, x):
    out, pullback = autograd.make_vjp(lambda x_: anp.tanh(anp.dot(x_, w)) ** 2)(x)[::-1]
    return anp.sum(pullback(out) * x)


def a_with_value_and_grad(w, x):
    value, g = autograd.value_and_grad(a_inner)(w, x)
    return value * a_inner(w - 0.1 * g, x)


@pytest.mark.parametrize(
    "f, a_f",
    [
        (with_a_pullback, a_with_a_pullback),
        (with_a_pullback_in_x, a_with_a_pullback_in_x),
        (with_value_and_grad, a_with_value_and_grad),
    ],
    ids=lambda f: f.__name__,
)
def test_a_vjp_and_a_value_and_grad_inside_f(f, a_f, arrays):
    """nf.vjp(g)(w, x) and nf.value_and_grad(g)(w, x) in f were refused ('calls a derivative
    that srcdiff made'): the pullback's call is that of g's vjp_ code, the cotangent first,
    and value_and_grad's that of grad(g, preserve_result=True), its pair reversed."""
    w, x, v = arrays
    gradient = nf.grad(f)(w, x)
    np.testing.assert_allclose(gradient, numerical_grad(f, (w, x), 0, eps=EPS), rtol=RTOL)
    np.testing.assert_allclose(gradient, autograd.grad(a_f)(w, x), rtol=1e-10)
    value, tangent = nf.jvp(f)(w, x, v)
    assert value == pytest.approx(a_f(w, x), rel=1e-12)
    assert tangent == pytest.approx(gradient @ v, rel=1e-10)
    product = nf.hvp(f)(w, x, v)
    np.testing.assert_allclose(product, gradient_along(nf.grad(f), (w, x), 0, v), rtol=RTOL)
    expected = autograd.hessian_vector_product(a_f)(w, x, v)
    np.testing.assert_allclose(product, expected, rtol=1e-8)


def test_the_inner_derivative_is_called_as_a_function_of_the_module():
    source = nf.grad(maml).source
    assert "    g, dinner_saved = fwd_dinner(w, x)\n" in source
    assert "    dinner_grads = bwd_dinner(bg, dinner_saved)\n" in source


def test_a_gradient_with_its_value_and_a_hessian_vector_product(arrays):
    w, x, v = arrays
    gradient = nf.grad(with_its_value)(w, x)
    expected = numerical_grad(with_its_value, (w, x), 0, eps=EPS)
    np.testing.assert_allclose(gradient, expected, rtol=RTOL)
    np.testing.assert_allclose(nf.grad(inner_along)(w, x, v), nf.hvp(inner)(w, x, v))
    along = autograd.hessian_vector_product(a_inner)(w, x, v)
    np.testing.assert_allclose(nf.grad(inner_along)(w, x, v), along, rtol=1e-10)


def test_a_gradient_of_a_module_function_a_closure_and_a_parameter(arrays):
    w, x, v = arrays
    t = 0.4  # d/dt sin(6 t) x = 6 cos(6 t) x
    assert nf.grad(through_a_module_function)(t, 0.5) == pytest.approx(3 * np.cos(6 * t))
    assert nf.hvp(through_a_module_function)(t, 0.5, 1.0) == pytest.approx(-18 * np.sin(6 * t))
    scale = 1.5

    def energy(w, x):
        return scale * np.sum(np.cos(x @ w))

    def stepped(w, x):
        return energy(w - 0.2 * nf.grad(energy)(w, x), x)

    gradient = nf.grad(stepped)(w, x)
    np.testing.assert_allclose(gradient, numerical_grad(stepped, (w, x), 0, eps=EPS), rtol=RTOL)
    product = nf.hvp(stepped)(w, x, v)
    np.testing.assert_allclose(product, gradient_along(nf.grad(stepped), (w, x), 0, v), rtol=RTOL)
    # a function passed in: the code is made for it when the derivative is called
    gradient = nf.grad(differentiating_a_parameter)(w, x, inner)
    np.testing.assert_allclose(gradient, autograd.grad(a_maml)(w, x), rtol=1e-10)


def test_a_function_rebound_since_is_differentiated_anew(arrays, monkeypatch):
    p, _, _ = arrays
    x = np.linspace(-1.0, 1.0, 3)
    before = nf.grad(penalty)(p, x)
    monkeypatch.setattr(sys.modules[__name__], "critic", lambda p, x: np.sum(np.cos(p * x) * x))
    after = nf.grad(penalty)(p, x)
    assert not np.allclose(before, after)
    np.testing.assert_allclose(after, numerical_grad(penalty, (p, x), 0, eps=EPS), rtol=RTOL)


def saturation(x):
    return np.sum(np.tanh(x) ** 2)


def weighs_by_a_gradient(w, x):
    g = nf.grad(saturation)(x)  # x is not differentiated: g is a constant of f's derivatives
    return np.sum(np.sin(w) * g + w * g)


def a_weighs_by_a_gradient(w, x):
    g = autograd.grad(lambda x_: anp.sum(anp.tanh(x_) ** 2))(x)
    return anp.sum(anp.sin(w) * g + w * g)


def test_a_derivative_whose_result_is_a_constant_of_f_is_made_once(arrays, monkeypatch):
    w, x, v = arrays[0], arrays[1][0], arrays[2]
    gradient = nf.grad(weighs_by_a_gradient)(w, x)
    expected = numerical_grad(weighs_by_a_gradient, (w, x), 0, eps=EPS)
    np.testing.assert_allclose(gradient, expected, rtol=RTOL)
    np.testing.assert_allclose(gradient, autograd.grad(a_weighs_by_a_gradient)(w, x), rtol=1e-10)
    value, tangent = nf.jvp(weighs_by_a_gradient)(w, x, v)
    assert value == pytest.approx(weighs_by_a_gradient(w, x), rel=1e-12)
    assert tangent == pytest.approx(gradient @ v, rel=1e-10)
    product = nf.hvp(weighs_by_a_gradient)(w, x, v)
    expected = autograd.hessian_vector_product(a_weighs_by_a_gradient)(w, x, v)
    np.testing.assert_allclose(product, expected, rtol=1e-10)
    line = "    g = runtime.made_once(nf.grad, saturation)(x)\n"
    for make in (nf.grad, nf.jvp, nf.hvp):
        assert line in make(weighs_by_a_gradient).source
    made = []
    monkeypatch.setattr(nf.Derivative, "__init__", _counted(nf.Derivative.__init__, made))
    for derivative, args in [
        (nf.grad(weighs_by_a_gradient), (w, x)),
        (nf.jvp(weighs_by_a_gradient), (w, x, v)),
        (nf.hvp(weighs_by_a_gradient), (w, x, v)),
    ]:
        derivative(*args)
        del made[:]
        derivative(*args)
        assert made == []


def _counted(init, made):
    def counted(self, *args, **kwargs):
        made.append(self)
        init(self, *args, **kwargs)

    return counted


def test_a_function_rebound_since_is_made_a_derivative_anew_where_f_keeps_the_call(
    arrays, monkeypatch
):
    w, x = arrays[0], arrays[1][0]
    derivative = nf.grad(weighs_by_a_gradient)
    before = derivative(w, x)
    monkeypatch.setattr(sys.modules[__name__], "saturation", lambda x: np.sum(np.cos(x) * x))
    after = derivative(w, x)
    g = -np.sin(x) * x + np.cos(x)  # the gradient of sum(cos(x) x)
    np.testing.assert_allclose(after, (np.cos(w) + 1) * g, rtol=1e-12)
    assert not np.allclose(before, after)


MODULE = textwrap.dedent("""
    import numpy as np
    import srcdiff as nf

    def inner(w, x):
        return np.sum(np.tanh(x @ w) ** 2)

    def maml(w, x):
        return inner(w - 0.1 * nf.grad(inner)(w, x), x) + nf.jvp(inner)(w, x, w)[1]

    def weighted(w, x):
        return np.sum(nf.grad(inner, wrt=1)(np.ones(3), x) @ w)
""")

SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    sys.path.insert(0, sys.argv[1])
    import srcdiff as nf
    from srcdiff import cache
    import inside_model
    w, x = np.full(3, 0.3), np.arange(6.0).reshape(2, 3) / 6
    g = nf.grad(inside_model.maml)(w, x)
    weighted = nf.grad(inside_model.weighted)
    weighted(w, x)
    print(json.dumps({"stats": cache.stats, "grad": g.tolist(), "weighted": weighted(w, x).tolist(),
                      "source": weighted.source}))
""")


def test_the_derivative_made_inside_is_found_again_from_the_disk_cache(tmp_path):
    (tmp_path / "inside_model.py").write_text(MODULE)
    env = dict(os.environ, SRCDIFF_CACHE_DIR=str(tmp_path / "cache"))
    command = [sys.executable, "-c", SCRIPT, str(tmp_path)]
    first, second = (
        json.loads(subprocess.run(command, env=env, capture_output=True, check=True).stdout)
        for _ in range(2)
    )
    assert first["stats"]["disk_hits"] == 0 and second["stats"]["disk_hits"] >= 1
    assert first["grad"] == second["grad"]
    w, x = np.full(3, 0.3), np.arange(6.0).reshape(2, 3) / 6
    expected = autograd.grad(lambda w: a_maml(w, x) + anp.dot(autograd.grad(a_inner)(w, x), w))
    np.testing.assert_allclose(second["grad"], expected(w), rtol=1e-10)
    # (the derivative weighted makes, of x only, made once: read from the disk the same)
    assert "    _t0 = runtime.made_once(nf.grad, inner, wrt=1)(np.ones(3), x)\n" in second["source"]
    expected = autograd.grad(a_inner, 1)(np.ones(3), x).sum(axis=0)
    np.testing.assert_allclose(second["weighted"], expected, rtol=1e-10)


def calls_a_jvp_by_keyword(w, x):
    return nf.jvp(inner)(w, x=x, tangents=x[0])[1]


def passes_a_pullback_on(w, x):
    value, pullback = nf.vjp(inner)(w, x)
    return np.sum(np.array([pullback][0](1.0)))


def calls_an_hvp_of_a_tuple(w, x):
    return np.sum(nf.hvp(inner, wrt=(0, 1))(w, x, (x[0], x))[0])


def calls_value_and_grad_with_aux(w, x):
    return nf.value_and_grad(with_aux, has_aux=True)(w, x)[0][0]


def calls_a_grad_of_a_tuple(w, x):
    return np.sum(nf.grad(inner, wrt=(0,))(w, x)[0])


def calls_a_grad_of_an_option_passed(w, x, k=0):
    return np.sum(nf.grad(inner, wrt=k)(w, x))


def calls_a_grad_out_of_range(w, x):
    return np.sum(nf.grad(inner, wrt=5)(w, x))


def calls_a_grad_of_a_local_function(w, x):
    def local(w):
        return np.sum(w * w)

    return np.sum(nf.grad(local)(w))


def calls_a_grad_of_a_lambda(w, x):
    return np.sum(nf.grad(lambda v: np.sum(v * v))(w))


REFUSED = [
    (calls_a_jvp_by_keyword, "nf.jvp(inner)(w, x=x", "the tangent last"),
    (passes_a_pullback_on, "nf.vjp(inner)(w, x)", "then pullback(u)"),
    (calls_an_hvp_of_a_tuple, "nf.hvp(inner, wrt=(0, 1))", "once for each position"),
    (calls_value_and_grad_with_aux, "nf.value_and_grad(with_aux", "nf.grad(g, has_aux=True)"),
    (calls_a_grad_of_a_tuple, "nf.grad(inner, wrt=(0,))", "once for each position"),
    (calls_a_grad_of_an_option_passed, "nf.grad(inner, wrt=k)", "each option as a constant"),
    (calls_a_grad_out_of_range, "nf.grad(inner, wrt=5)", "choose wrt between 0 and 1"),
    (calls_a_grad_of_a_local_function, "nf.grad(local)(w)", "define it at module level"),
    (calls_a_grad_of_a_lambda, "nf.grad(lambda v", "a function defined outside f"),
]


@pytest.mark.parametrize("f, snippet, hint", REFUSED, ids=[r[0].__name__ for r in REFUSED])
def test_a_derivative_inside_f_that_cannot_be_followed_is_refused_at_its_line(f, snippet, hint):
    w, x = np.ones(3), np.ones((2, 3))
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(f)(w, x)
    with open(HERE) as source:
        line = next(n for n, text in enumerate(source, 1) if snippet in text)
    text = str(error.value)
    assert f"{HERE}:{line}:" in text and "hint: " in text and hint in text, text


def test_the_derivatives_made_once_are_kept_in_a_table_of_bounded_size():
    """A function passed in anew at each call (a closure made each time) gets a derivative
    of its own each time: the table of those made once stays bounded, not growing for ever."""
    table = sys.modules["srcdiff.runtime.made_once"]._made
    for k in range(300):
        scale = float(k)
        derivative = runtime.made_once(nf.grad, lambda v: np.sum(v * scale))
        assert derivative(np.ones(2)) == pytest.approx([scale, scale])
        assert len(table) <= 256
