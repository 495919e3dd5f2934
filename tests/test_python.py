"""Python as people write it (issue 16): loops over parameter tuples, local functions and
lambdas, calling conventions, statements kept for their effect. Each function is checked
against central differences in reverse mode, and reverse against forward mode."""

import logging
import warnings

import numpy as np
import pytest

import srcdiff as nf
from gradcheck import check_grad, numerical_grad

rng = np.random.default_rng(16)
LOG = logging.getLogger("srcdiff-tests")


def layers(*widths):
    return [(rng.normal(size=(m, n)) * 0.5, rng.normal(size=n)) for m, n in zip(widths, widths[1:])]


def leaf_grads(f, params, *rest):
    """The gradient of f with respect to every array of the list of (W, b) pairs, by
    differences, leaf by leaf."""
    out = []
    for i, pair in enumerate(params):
        grads = []
        for j, leaf in enumerate(pair):

            def of_leaf(value, i=i, j=j):
                copy = [list(p) for p in params]
                copy[i][j] = value
                return f([tuple(p) for p in copy], *rest)

            grads.append(numerical_grad(of_leaf, (leaf,), 0))
        out.append(tuple(grads))
    return out


def assert_pairs_close(got, want):
    for g_pair, w_pair in zip(got, want):
        for g, w in zip(g_pair, w_pair):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-7)


# --- loops over containers of parameters ------------------------------------------------------


def mlp(params, x):
    for W, b in params[:-1]:
        x = np.tanh(x @ W + b)
    W, b = params[-1]
    return np.sum((x @ W + b) ** 2)


def mlp_reversed(params, x):
    for W, b in reversed(params[::-1]):
        x = np.tanh(x @ W + b)
    return np.sum(x**2)


def mlp_enumerated(params, x, scales):
    for i, ((W, b), s) in enumerate(zip(params, scales)):
        x = np.tanh(x @ W + b) * (s + i)
    return np.sum(x**2)


@pytest.mark.parametrize(
    "f, extra", [(mlp, ()), (mlp_reversed, ()), (mlp_enumerated, ([1.0, 0.5, 2.0],))]
)
def test_for_tuple_targets_over_a_list_of_parameters(f, extra):
    params, x = layers(3, 4, 4, 2), rng.normal(size=(5, 3))
    assert_pairs_close(nf.grad(f)(params, x, *extra), leaf_grads(f, params, x, *extra))
    tangents = [tuple(rng.normal(size=a.shape) for a in pair) for pair in params]
    _, tangent = nf.jvp(f)(params, x, *extra, tangents)
    grads = nf.grad(f)(params, x, *extra)
    expected = sum(np.sum(g * t) for gp, tp in zip(grads, tangents) for g, t in zip(gp, tp))
    assert tangent == pytest.approx(expected, rel=1e-8)


# --- local functions ------------------------------------------------------------------------


def with_local_functions(params, x, y):
    W1, b1, W2, b2 = params

    def predict(inputs):
        hidden = np.tanh(inputs @ W1 + b1)  # W1, b1: closed over, differentiated
        return hidden @ W2 + b2

    relu = lambda z: np.maximum(z, 0.0)  # noqa: E731

    def squared(z, scale=2.0):
        if np.sum(z) > 1e9:
            return z  # an early return of a local function
        return scale * z**2

    out = predict(x)
    return np.mean(squared(out - y)) + np.sum(squared(relu(predict(x * 0.5)), scale=0.5))


def test_local_functions_and_lambdas_closing_over_parameters():
    params = [
        rng.normal(size=(3, 4)),
        rng.normal(size=4),
        rng.normal(size=(4, 2)),
        rng.normal(size=2),
    ]
    x, y = rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    grads = nf.grad(with_local_functions)(params, x, y)
    for k in range(4):

        def of_leaf(value, k=k):
            return with_local_functions(params[:k] + [value] + params[k + 1 :], x, y)

        np.testing.assert_allclose(
            grads[k], numerical_grad(of_leaf, (params[k],), 0), rtol=1e-5, atol=1e-7
        )


def rnn_with_a_step(W, xs, h0):
    def step(h, x):
        return np.tanh(W @ h + x)

    h, hs = h0, []
    for x in xs:
        h = step(h, x)
        hs.append(h)
    return np.sum(np.stack(hs) ** 2)


def mapped(W, xs):
    return np.sum(np.stack(list(map(lambda v: np.tanh(W @ v), xs))))


def counts_with_nonlocal(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + np.sum(v**2)

    add(x)
    add(np.sin(x))
    return total


@pytest.mark.parametrize(
    "f, args",
    [
        (
            rnn_with_a_step,
            lambda: (rng.normal(size=(3, 3)) * 0.5, rng.normal(size=(4, 3)), rng.normal(size=3)),
        ),
        (mapped, lambda: (rng.normal(size=(3, 3)), rng.normal(size=(4, 3)))),
        (counts_with_nonlocal, lambda: (rng.normal(size=4),)),
    ],
)
def test_local_functions_in_loops_map_and_nonlocal(f, args):
    args = args()
    grad = check_grad(f, *args, wrt=0)[0]
    v = rng.normal(size=args[0].shape)
    assert nf.jvp(f)(*args, v)[1] == pytest.approx(np.sum(grad * v), rel=1e-8)


def calls_itself(x):
    def again(v):
        if np.sum(v) > 1:
            return again(v * 0.5)
        return v

    return np.sum(again(x))


def passes_a_local_function(x):
    def square(v):
        return v * v

    return np.sum(np.apply_over_axes(square, x, [0]))


@pytest.mark.parametrize(
    "f, words", [(calls_itself, "calls itself"), (passes_a_local_function, "used as a value")]
)
def test_local_functions_srcdiff_cannot_inline_are_located_errors(f, words):
    with pytest.raises(nf.UnsupportedError, match=words) as error:
        nf.grad(f)(np.ones(3))
    assert error.value.location.filename == __file__


# --- calling conventions ------------------------------------------------------------------------


def scaled_layer(x, W, *, scale=1.0):
    return np.tanh(x @ W) * scale


def with_conventions(W, x, *extra, scale=2.0, **options):
    hidden = scaled_layer(x, W, scale=scale)
    return np.sum(scaled_layer(hidden, W.T, scale=W[0, 0]) ** 2) + len(extra) + len(options)


def test_varargs_kwargs_and_keyword_only_parameters():
    W, x = rng.normal(size=(3, 3)), rng.normal(size=(2, 3))
    grad = nf.grad(with_conventions)(W, x, 1, 2, scale=3.0, verbose=True)

    def of_w(value):
        return with_conventions(value, x, 1, 2, scale=3.0, verbose=True)

    np.testing.assert_allclose(grad, numerical_grad(of_w, (W,), 0), rtol=1e-6)
    # a keyword-only parameter, by its position after the positional ones
    by_scale = nf.grad(with_conventions, wrt=2)(W, x, scale=3.0)
    assert by_scale == pytest.approx(
        numerical_grad(lambda s: with_conventions(W, x, scale=s), (3.0,), 0), rel=1e-6
    )


# --- statements kept for their effect ---------------------------------------------------------


def show(v):
    print("mean", np.mean(v))


def with_effects(x, verbose):
    y = np.tanh(x)
    print("y has shape", y.shape)
    if verbose:
        print(y)
    LOG.debug("norm %s", np.linalg.norm(y))
    show(y)
    assert np.all(np.isfinite(y)), "not finite"
    with np.errstate(divide="ignore"):
        z = np.log(np.abs(y) + 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        z = z * 2
    try:
        w = z + 1
    finally:
        scale = 3.0
    if np.sum(z) < -1e9:
        raise ValueError("too small")
    return np.sum(w * scale)


def test_print_logging_assert_with_and_finally_leave_the_gradient_alone(capsys):
    x = np.linspace(-1, 1, 5)
    check_grad(with_effects, x, True, wrt=0)
    assert "y has shape (5,)" in capsys.readouterr().out  # the forward sweep printed it
    assert nf.jvp(with_effects)(x, False, np.ones(5))[1] == pytest.approx(
        np.sum(nf.grad(with_effects)(x, False)), rel=1e-10
    )


def sorts_in_place(x):
    y = x * 2
    y.sort()
    return np.sum(y)


def test_a_sort_in_place_of_a_new_array_is_np_sort():
    """y.sort() of an array f made was refused ('sorts y in place'): it is y = np.sort(y)."""
    x = np.array([0.3, -1.0, 0.2])
    assert nf.grad(sorts_in_place)(x) == pytest.approx(np.full(3, 2.0))
