"""Regressions found by the fifth probe (srcdiff vs central differences and autograd on
numpy-ml's layers and losses, d2l-style code written from scratch, and numerically delicate
forms): each asserts numbers or an error's message and location."""

import functools
import inspect
import warnings

import numpy as np
import pytest

import srcdiff as nf
from oracle import finite_differences, gradient_along


def pool_forward(A_prev, hparameters, mode="max"):
    """Max or average pooling as the deep-learning course writes it: the number of channels
    is named twice (n_C = n_C_prev) and looped over in a helper's nested loop."""
    (m, n_H_prev, n_W_prev, n_C_prev) = A_prev.shape
    f = hparameters["f"]
    stride = hparameters["stride"]
    n_H = int(1 + (n_H_prev - f) / stride)
    n_W = int(1 + (n_W_prev - f) / stride)
    n_C = n_C_prev
    A = np.zeros((m, n_H, n_W, n_C))
    for i in range(m):
        a_prev_slice = A_prev[i]
        for h in range(n_H):
            vert_start = stride * h
            vert_end = vert_start + f
            for w in range(n_W):
                horiz_start = stride * w
                horiz_end = horiz_start + f
                for c in range(n_C):
                    a_slice_prev = a_prev_slice[vert_start:vert_end, horiz_start:horiz_end, c]
                    if mode == "max":
                        A[i, h, w, c] = np.max(a_slice_prev)
                    elif mode == "average":
                        A[i, h, w, c] = np.mean(a_slice_prev)
    return A, (A_prev, hparameters)


def max_pooled_squares(a):
    out, _ = pool_forward(a, {"stride": 2, "f": 2})
    return np.sum(out**2)


def average_pooled_squares(a):
    out, _ = pool_forward(a, {"stride": 1, "f": 3}, mode="average")
    return np.sum(out**2)


def sines_written_through_a_copy(x):
    out = np.zeros(3)
    s = np.sin(x)
    for i in range(3):
        v = s[i] * x[i]
        w = v
        out[i] = w
    return out


def sum_of_squared_sines_written(x):
    return np.sum(sines_written_through_a_copy(x) ** 2)


def test_a_loop_bound_named_twice_in_a_helper_is_saved_for_its_backward_loop():
    """The forward and backward functions of the helper shared the loop's `range(n_C)` node:
    copy propagation in the forward one (n_C read as n_C_prev) renamed it in both, so the
    backward loop read n_C_prev, which nothing saved (a NameError)."""
    a = np.random.default_rng(0).normal(size=(2, 4, 4, 3))
    for f in (max_pooled_squares, average_pooled_squares):
        expected = finite_differences(f, (a,), 0)
        np.testing.assert_allclose(nf.grad(f)(a), expected, rtol=1e-6, atol=1e-8)
        v = np.random.default_rng(1).normal(size=a.shape)
        np.testing.assert_allclose(nf.jvp(f)(a, v)[1], np.sum(expected * v), rtol=1e-6)


def test_a_value_written_through_a_copy_in_a_helper_is_read_under_its_own_name():
    """The adjoint of `out[i] = w` in the backward function shared the forward one's `w`:
    propagating `w = v` in the forward function alone made the backward one read v, which
    it never had (a NameError; a v of another shape there would have been read silently)."""
    f, x = sum_of_squared_sines_written, np.array([0.3, -0.5, 1.2])
    expected = finite_differences(f, (x,), 0)
    np.testing.assert_allclose(nf.grad(f)(x), expected, rtol=1e-6, atol=1e-8)
    v = np.array([1.0, -0.5, 2.0])
    hv = gradient_along(nf.grad(f), (x,), 0, v)
    np.testing.assert_allclose(nf.hvp(f)(x, v), hv, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(nf.vjp(nf.grad(f))(x)[1](v), hv, rtol=1e-5, atol=1e-7)


class BatchNorm1D:
    """numpy-ml's layer: its forward pass keeps running statistics in its parameters dict."""

    def __init__(self, scaler, intercept, momentum=0.9, epsilon=1e-5):
        self.epsilon, self.momentum = epsilon, momentum
        self.parameters = {
            "scaler": scaler,
            "intercept": intercept,
            "running_mean": np.zeros(len(scaler)),
            "running_var": np.ones(len(scaler)),
        }

    def forward(self, X):
        mm, rm = self.momentum, self.parameters["running_mean"]
        X_mean, X_var = X.mean(axis=0), X.var(axis=0)
        self.parameters["running_mean"] = mm * rm + (1.0 - mm) * X_mean
        N = (X - X_mean) / np.sqrt(X_var + self.epsilon)
        return self.parameters["scaler"] * N + self.parameters["intercept"]


def batch_normalised_cubes(x, layer):
    return np.sum(layer.forward(x) ** 3)


def test_a_write_into_a_dict_an_object_holds_is_refused_as_a_change_of_the_object():
    """The hint said to index the dict once, as the line already does."""
    layer = BatchNorm1D(np.array([0.5, 1.0, 2.0]), np.zeros(3))
    with pytest.raises(nf.SrcdiffError) as refused:
        nf.grad(batch_normalised_cubes)(np.ones((4, 3)), layer)
    message = str(refused.value)
    line = inspect.getsourcelines(BatchNorm1D.forward)[1] + 3
    assert f"{__file__}:{line}: writing into self.parameters changes what an object holds" in (
        message
    )
    assert 'self.parameters["running_mean"] = mm * rm' in message
    assert "keep the value in a local name and return it (with has_aux=True" in message


def contiguous_copies_multiplied(x):
    y = np.ascontiguousarray(x.T)[::-1]
    z = np.asfortranarray(x)[:, ::-1]
    return np.sum(y @ z) + np.sum(np.cumsum(z, axis=-1)[:, ::-1] * y.T)


def contiguous_scalar_scaled(x):
    return np.sum(np.ascontiguousarray(np.sum(x**2)) * x)


def test_contiguous_copies_pass_their_gradient_through():
    """np.ascontiguousarray and np.asfortranarray (what code handing arrays to C writes)
    had no record: the gradient was refused. Of a 0-d value they make a 1-d array."""
    x = np.random.default_rng(2).normal(size=(3, 4))
    v = np.random.default_rng(3).normal(size=(3, 4))
    for f in (contiguous_copies_multiplied, contiguous_scalar_scaled):
        expected = finite_differences(f, (x,), 0)
        np.testing.assert_allclose(nf.grad(f)(x), expected, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(nf.jvp(f)(x, v)[1], np.sum(expected * v), rtol=1e-6)
        hv = gradient_along(nf.grad(f), (x,), 0, v)
        np.testing.assert_allclose(nf.hvp(f)(x, v), hv, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(nf.vjp(nf.grad(f))(x)[1](v), hv, rtol=1e-5, atol=1e-7)
    x32 = x.astype(np.float32)
    assert nf.grad(contiguous_copies_multiplied)(x32).dtype == np.float32


def folded_rows(x):
    return (
        functools.reduce(lambda a, b: a * 0.5 + b, list(x)).sum()
        + functools.reduce(np.add, x).prod()
    )


def test_a_loop_left_empty_by_copy_propagation_keeps_a_body():
    """The gradient of the gradient's backward loop over the rows was `b_t7 = bbx;
    bbx = b_t7`: propagating the copy left the loop with no statement, and the emitted
    module did not compile (an IndentationError)."""
    x = np.random.default_rng(4).normal(size=(3, 4))
    u = np.random.default_rng(5).normal(size=(3, 4))
    gradient = nf.grad(folded_rows)
    np.testing.assert_allclose(
        gradient(x), finite_differences(folded_rows, (x,), 0), rtol=1e-6, atol=1e-8
    )
    hu = gradient_along(gradient, (x,), 0, u)
    np.testing.assert_allclose(nf.vjp(gradient)(x)[1](u), hu, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(nf.hvp(folded_rows)(x, u), hu, rtol=1e-5, atol=1e-7)


def ctc_negative_log_likelihood(logits, labels=(1, 2), blank=0):
    """CTC's forward (alpha) recursion in log space, as written from the paper: the cells
    no path reaches stay -inf, and two of them meet in np.logaddexp."""
    log_probs = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    steps = log_probs.shape[0]
    extended = [blank]
    for label in labels:
        extended += [label, blank]
    states = len(extended)
    alpha = np.full((steps, states), -np.inf)
    alpha[0, 0] = log_probs[0, blank]
    alpha[0, 1] = log_probs[0, extended[1]]
    for t in range(1, steps):
        for s in range(states):
            a = alpha[t - 1, s]
            if s > 0:
                a = np.logaddexp(a, alpha[t - 1, s - 1])
            if s > 1 and extended[s] != blank and extended[s] != extended[s - 2]:
                a = np.logaddexp(a, alpha[t - 1, s - 2])
            alpha[t, s] = a + log_probs[t, extended[s]]
    return -np.logaddexp(alpha[-1, -1], alpha[-1, -2])


def log2_sums_meeting_minus_infinity(x):
    unreached = np.full(3, -np.inf)
    cells = np.logaddexp2(unreached, unreached) + x  # (-inf where nothing is reached)
    return np.sum(np.logaddexp2(cells, x**2) + np.logaddexp(cells, 0.5 * x))


def test_logaddexp_of_two_minus_infinities_passes_a_zero_derivative():
    """Its derivative weighed each input by exp(x - z), NaN where both are -inf: a tangent of
    zero times NaN made CTC's forward-mode, hvp and reverse-over-reverse derivatives NaN (its
    gradient was right only because the NaN adjoints reached no input). Now such a tie
    shares evenly, as a finite one does, and no warning is raised."""
    logits = np.random.default_rng(6).normal(size=(5, 3))
    x, v = np.array([0.3, -1.2, 0.8]), np.array([1.0, 0.5, -2.0])
    for f, at, along in (
        (ctc_negative_log_likelihood, logits, np.random.default_rng(7).normal(size=(5, 3))),
        (log2_sums_meeting_minus_infinity, x, v),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            gradient = nf.grad(f)(at)
            tangent = nf.jvp(f)(at, along)[1]
            hv = nf.hvp(f)(at, along)
            hu = nf.vjp(nf.grad(f))(at)[1](along)
        expected = finite_differences(f, (at,), 0)
        np.testing.assert_allclose(gradient, expected, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(tangent, np.sum(expected * along), rtol=1e-6)
        expected_hv = gradient_along(nf.grad(f), (at,), 0, along)
        np.testing.assert_allclose(hv, expected_hv, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(hu, expected_hv, rtol=1e-5, atol=1e-7)


def spreads(x):
    return (
        np.var(x, axis=1),
        np.std(x),
        np.nanvar(x, axis=0, ddof=1),
        np.nanstd(x),
        np.prod(x, axis=0),
    )


def test_forward_mode_of_a_float32_spread_or_product_stays_float32():
    """The tangents of var, std, their nan forms and prod spread the Python number 1.0 over
    x, which runtime.unreduce made a float64 array: a float32 x's tangents came out float64
    (the gradients were float32 only because as_grad casts them back)."""
    x = np.array([[0.3, -1.2, 0.7], [1.1, 0.4, -0.6]], np.float32)
    v = np.array([[1.0, 0.5, -2.0], [0.25, -1.0, 3.0]], np.float32)
    values, tangents = nf.jvp(spreads)(x, v)
    for value, tangent, k in zip(values, tangents, range(5)):
        assert np.asarray(value).dtype == np.asarray(tangent).dtype == np.float32, k

        def part(y, k=k):
            return np.asarray(spreads(y)[k], np.float64)

        along = (part(x + 1e-3 * v) - part(x - 1e-3 * v)) / 2e-3
        np.testing.assert_allclose(tangent, along, rtol=2e-3, atol=1e-3)


def greatest_of_two(x):
    return max(x[0], x[1]) * 3.0


def greatest_of_a_list(x):
    return max([x[0], x[1], x[2]])


def clipped_at_its_bounds(x):
    return np.sum(np.clip(x, -1.0, 1.0))


def test_ties_follow_the_rules_the_readme_states():
    """max of two numbers splits a tie (finite differences agree), max of a list gives it
    to the first greatest item, as Python's max returns it and autograd differentiates it,
    and np.clip passes all of it to an element at a bound (autograd: none)."""
    tied = np.array([2.0, 2.0, 1.0])
    np.testing.assert_allclose(nf.grad(greatest_of_two)(tied), [1.5, 1.5, 0.0])
    np.testing.assert_allclose(
        nf.grad(greatest_of_two)(tied), finite_differences(greatest_of_two, (tied,), 0)
    )
    np.testing.assert_allclose(nf.grad(greatest_of_a_list)(tied), [1.0, 0.0, 0.0])
    at_bounds = np.array([-1.0, 1.0, 0.5, 2.0])
    np.testing.assert_allclose(nf.grad(clipped_at_its_bounds)(at_bounds), [1.0, 1.0, 1.0, 0.0])


def cast_to_single_precision(x):
    return float(np.float32(np.sum(x**2))) + np.sum(np.float32(x) * x)


def test_np_float32_of_a_differentiated_value_is_a_cast():
    """np.float32(s) was refused as the making of an object of numpy's class float32 (with
    a hint about np.matrix); it is a cast, as np.float64(s) is. Checked against central
    differences of the same function without the cast (its rounding would swamp them)."""
    x = np.array([0.3, -1.2, 0.7])
    v = np.array([1.0, 0.5, -2.0])
    expected = 2 * x + 2 * x  # d/dx (sum(x**2) + sum(x * x))
    gradient = nf.grad(cast_to_single_precision)(x)
    assert gradient.dtype == np.float64
    np.testing.assert_allclose(gradient, expected, rtol=1e-6)
    np.testing.assert_allclose(nf.jvp(cast_to_single_precision)(x, v)[1], expected @ v, rtol=1e-6)
    np.testing.assert_allclose(nf.hvp(cast_to_single_precision)(x, v), 4 * v, rtol=1e-6)


def phase_of_a_built_complex(x):
    z = complex(x[0], x[1])
    return abs(z) + (z * z).imag


def phase_of_complex_arithmetic(x):
    z = x[0] + 1j * x[1]
    return abs(z) + (z * z).imag


def test_complex_of_differentiated_values_is_refused_with_the_arithmetic_that_works():
    """The hint was about containers and itertools."""
    x = np.array([0.3, -1.2])
    with pytest.raises(nf.SrcdiffError) as refused:
        nf.grad(phase_of_a_built_complex)(x)
    line = inspect.getsourcelines(phase_of_a_built_complex)[1] + 1
    assert f"{__file__}:{line}: complex(...) of differentiated values" in str(refused.value)
    assert "re + 1j * im" in str(refused.value)
    expected = finite_differences(phase_of_complex_arithmetic, (x,), 0)
    np.testing.assert_allclose(nf.grad(phase_of_complex_arithmetic)(x), expected, rtol=1e-6)


SEGMENTS = np.array([0, 2, 2, 1, 0, 2])


def segment_softmax(x, shift_of=lambda v: v):
    top = np.full(3, -np.inf)
    np.maximum.at(top, SEGMENTS, shift_of(x))
    e = np.exp(x - top[SEGMENTS])
    totals = np.zeros(3)
    np.add.at(totals, SEGMENTS, e)
    return np.sum(e / totals[SEGMENTS] * np.arange(6.0))


def segment_softmax_as_the_hint_says(x):
    return segment_softmax(x, nf.stop_gradient)


def segment_maxima_in_a_loop(x):
    top = np.full(3, -np.inf)
    for k, j in enumerate(SEGMENTS):
        top[j] = np.maximum(top[j], x[k])
    return np.sum(top**2)


def test_np_maximum_at_is_refused_with_the_two_forms_that_work():
    """The hint was the generic one for a change in place (d = {**d, 'b': v}, ...)."""
    x = np.random.default_rng(8).normal(size=6)
    with pytest.raises(nf.SrcdiffError) as refused:
        nf.grad(segment_softmax)(x)
    line = inspect.getsourcelines(segment_softmax)[1] + 2
    message = str(refused.value)
    assert f"{__file__}:{line}: np.maximum.at changes top in place" in message
    assert "pass nf.stop_gradient(shift_of(x))" in message
    assert "top[j] = np.maximum(top[j], shift_of(x)[k])" in message
    for f in (segment_softmax_as_the_hint_says, segment_maxima_in_a_loop):
        expected = finite_differences(f, (x,), 0)
        np.testing.assert_allclose(nf.grad(f)(x), expected, rtol=1e-6, atol=1e-8)
