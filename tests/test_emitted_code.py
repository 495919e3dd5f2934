"""Emitted code a careful person would write (issue 21): no saved value the backward half
binds itself, no `= None` for a loop target where the loop surely runs, no seed, as_grad or
unbroadcast call whose outcome is known where the code is emitted."""

import re

import numpy as np
import pytest
import scipy.stats

import srcdiff as nf
from srcdiff import cache
from gradcheck import check_grad, numerical_grad
from pytree_oracle import assert_leaves_close, autograd_grad, finite_differences, leaves


def thrice_then_times_index(x):
    for i in range(3):
        x = np.sin(x)
    return x * i


def n_times_then_times_index(x, n):
    i = 0
    for i in range(n):
        x = np.sin(x)
    return x * i


def sum_of_squared_sines(x, n):
    s = 0.0
    for i in range(n):
        t = np.sin(x * i)
        s = s + t * t
    return s


def through_helpers(x, n):
    return (
        np.sum(thrice_then_times_index(x))
        + np.sum(n_times_then_times_index(x, n))
        + np.sum(sum_of_squared_sines(x, n))
    )


def function_text(source, name):
    """The text of the function `name` in emitted `source`."""
    start = source.index(f"def {name}(")
    end = source.find("\ndef ", start + 1)
    return source[start : end if end >= 0 else None]


def saved_list(source, name):
    """The names in the list of saved values the forward half of `name` returns."""
    returned = function_text(source, f"fwd_{name}").rsplit("return", 1)[1]
    return re.findall(r"\w+", returned.split("[", 1)[1])


def test_a_loop_that_surely_runs_binds_its_target(rng):
    source = nf.grad(through_helpers).source
    assert "i = None" not in function_text(source, "fwd_thrice_then_times_index")
    assert "i" in saved_list(source, "thrice_then_times_index")
    check_grad(through_helpers, rng.normal(size=3), 2, wrt=0)
    check_grad(through_helpers, rng.normal(size=3), 0, wrt=0)


def test_a_backward_half_is_not_handed_what_it_pops(rng):
    """A value each iteration's adjoint pops is on its stack only, not saved again as the
    last value it had."""
    saved = saved_list(nf.grad(through_helpers).source, "sum_of_squared_sines")
    assert "_stack_t" in saved and "t" not in saved
    check_grad(through_helpers, rng.normal(size=3), 3, wrt=0)


def test_a_sum_with_a_real_scalar_needs_no_unbroadcast(rng):
    """x * i (i counting a loop), y / x.shape[0], z + np.pi: the result has the shape of the
    other operand, whose adjoint is then the product's or quotient's own."""
    source = nf.grad(through_helpers).source
    assert "unbroadcast" not in function_text(source, "bwd_thrice_then_times_index")
    check_grad(through_helpers, rng.normal(size=3), 3, wrt=0)


def sine_of_the_first(x):
    s = float(x[0])
    return np.sin(s) * s + np.pi


def test_the_seed_of_a_real_scalar_is_one(rng):
    source = nf.grad(sine_of_the_first).source
    assert "grad_seed" not in source and "= 1.0\n" in source
    check_grad(sine_of_the_first, rng.normal(size=2), wrt=0)


def sum_of_sines_until_large(x):
    total = 0.0
    for i in range(8):
        total = total + np.sum(np.sin(x * i))
        if total > 2.0:
            break
    return total * 2


def twice_a_sum_of_sines(x):
    return sum_of_sines_until_large(x) + np.sum(x)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_sum_of_a_differentiated_argument_is_a_real_scalar(dtype, rng):
    """Each call of a derivative checks that what it differentiates with respect to is real,
    so a whole sum of it is a real scalar: a sum of such sums keeps no shapes for its adjoint,
    which needs no unbroadcast. A callee's parameters are whatever its caller passes: its
    sum keeps them. The gradient keeps the argument's dtype."""
    source = nf.grad(sum_of_sines_until_large).source
    assert "unbroadcast" not in source and "_stack_total" not in source
    backward = function_text(nf.grad(twice_a_sum_of_sines).source, "bwd_sum_of_sines_until_large")
    assert "unbroadcast" in backward
    x = rng.normal(size=3).astype(dtype)
    for f in (sum_of_sines_until_large, twice_a_sum_of_sines):
        gradient = nf.grad(f)(x)
        assert gradient.dtype == dtype
        expected = numerical_grad(f, [x.astype(np.float64)])
        np.testing.assert_allclose(gradient, expected, rtol=1e-3 if dtype == np.float32 else 1e-6)


def squared_norms(params):
    return np.sum(params["w"] ** 2) + np.sum(params["b"][1:] ** 2) * 0.5


def test_an_item_of_a_differentiated_dict_is_real(rng):
    """What a differentiated dict holds is real too (each call checks it): the sum of two
    sums of its items needs no unbroadcast."""
    source = nf.grad(squared_norms).source
    assert "unbroadcast" not in source
    params = {"w": rng.normal(size=(2, 3)), "b": rng.normal(size=3)}
    assert_leaves_close(
        nf.grad(squared_norms)(params),
        finite_differences(squared_norms, (params,), 0),
        1e-6,
        1e-8,
        "bparams",
    )


def dense(w, b, x):
    return np.tanh(x @ w + b)


def two_layers(params, x):
    h = dense(params["w1"], params["b1"], x)
    return np.sum((h @ params["w2"]) ** 2)


def test_a_dict_gradient_built_whole_is_returned_as_it_is(rng):
    """Specialised, the gradient of a dict of arrays is the dict literal of their adjoints;
    a matrix transposed twice is the matrix."""
    params = {"w1": rng.normal(size=(3, 4)), "b1": rng.normal(size=4), "w2": rng.normal(size=4)}
    x = rng.normal(size=(5, 3))
    source = nf.grad(two_layers).source_for(params, x)
    assert "as_grad" not in source and ".T.T" not in source
    gradient = nf.grad(two_layers)(params, x)
    assert type(gradient) is dict and list(gradient) == list(params)
    for got, expected in zip(leaves(gradient), finite_differences(two_layers, (params, x))):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-7)


def through_cholesky(w, y):
    factor = np.linalg.cholesky(w @ w.T + np.eye(3))
    alpha = np.linalg.solve(factor, y)
    return alpha @ alpha


def test_shapes_are_followed_through_a_factorisation(rng):
    """A Cholesky factor of the stand-in for a matrix of known shape (its arrays of ones are
    not positive definite: identity matrices are) has a known shape, and so has what follows."""
    w, y = rng.normal(size=(3, 3)), rng.normal(size=3)
    source = nf.grad(through_cholesky).source_for(w, y)
    assert "grad_seed" not in source and "b_t4 * alpha" in source
    check_grad(through_cholesky, w, y, wrt=0)


def filled(a, x):
    return np.sum(np.full(len(x), a) * x) + np.sum(np.full(3, a) * 2.0)


def test_an_operand_beside_scalars_keeps_its_helper_unless_elementwise(rng):
    """np.full(len(x), a): `a` is a scalar beside a real scalar, yet the result has len(x)
    items: its adjoint sums them (reverse mode: a 0-d array; forward mode: a float)."""
    x = rng.normal(size=4)
    expected = np.sum(x) + 6.0
    assert nf.grad(filled)(0.5, x) == pytest.approx(expected)
    assert nf.grad(filled)(np.array(0.5), x) == pytest.approx(expected)
    check_grad(filled, np.array(0.5), x, wrt=0)


def scalar_sum(w, x):
    return np.sum(np.tanh(x @ w)) + np.max(x @ w)


def test_a_scalar_tangent_is_not_spread(rng):
    source = nf.jvp(scalar_sum, wrt=0).source
    assert "broadcast_like" not in source
    w, x, dw = rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=3)
    _, tangent = nf.jvp(scalar_sum, wrt=0)(w, x, dw)
    eps = 1e-6
    fd = (scalar_sum(w + eps * dw, x) - scalar_sum(w - eps * dw, x)) / (2 * eps)
    assert tangent == pytest.approx(fd, rel=1e-6)


def student_t_prior(latents):
    return -np.sum(scipy.stats.t.logpdf(latents, 2.4))


def test_a_scipy_density_is_followed_and_dropped_where_unread(rng):
    """Specialised, the density's value (read only for its shape, which is now known) is
    not computed, nor unreduce or as_grad called: the gradient is its formula."""
    latents = rng.normal(size=(2, 5))
    source = nf.grad(student_t_prior).source_for(latents)
    assert "logpdf" not in source and "runtime." not in source
    check_grad(student_t_prior, latents, wrt=0)


def sine_cube_and_exp(x):
    return np.sin(x) * x**3 + np.exp(x * 0.5) / (1 + x * x)


def test_second_order_names_each_adjoint_apart_and_accumulates_it_one_way():
    """grad of grad: no name of the first-order code means another value in the second
    sweep: the adjoint of _t0 there is b_t0_ beside the first-order b_t0 (PEP 8's trailing
    underscore, as bx_ beside bx), even where b_t0 is no longer needed; no `_bx`, no
    number on a name that is no version; each adjoint accumulates one way (`bx_ += e` after
    a first new value, or `b = b + e` throughout); the emitted text, run as it is, matches
    finite differences and autograd, and is made the same each time."""
    from oracle import autograd_hvp

    second = nf.grad(nf.grad(sine_cube_and_exp))
    source = second.source
    first, sweep = source.split("runtime.grad_seed(", 2)[1:]
    assigned = [set(re.findall(r"^\s*(\w+) \+?= ", part, re.M)) for part in (first, sweep)]
    assert not assigned[0] & assigned[1], source
    assert not re.search(r"\b_b\w*", source), source
    for name in re.findall(r"\b(\w+)_\b", source):
        assert name in assigned[0] and f"{name}_" in assigned[1], (name, source)
    assert {"bx_", "b_t0_", "b_t4_"} <= assigned[1], source
    for name in set(re.findall(r"^\s*(\w+) \+= ", source, re.M)):
        assert not re.search(rf"\b{name} = {name} \+ ", source), (name, source)
    assert source.count("bx_ += ") >= 3
    namespace = {}
    exec(compile(source, "<emitted>", "exec"), namespace)
    emitted = namespace["ddsine_cube_and_exp"]
    for x in (0.3, -1.2, 2.0):
        expected = numerical_grad(nf.grad(sine_cube_and_exp), (x,), 0)
        assert emitted(x) == pytest.approx(expected, rel=1e-6, abs=1e-8)
        assert second(x) == pytest.approx(autograd_hvp(sine_cube_and_exp, (x,), 0, 1.0), rel=1e-10)
    cache.clear_memory()
    nf.config(cache=False)
    try:  # (made anew, not read back: the same text)
        assert nf.grad(nf.grad(sine_cube_and_exp)).source == source
    finally:
        nf.config(cache=True)


def tanh_layer(h, w):
    return np.tanh(h @ w)


def three_layers(x, w):
    h = tanh_layer(x, w)
    h = tanh_layer(h, w)
    h = tanh_layer(h, w)
    return np.sum(h)


def test_a_variable_given_new_values_keeps_its_name_where_no_old_one_is_needed(rng):
    """h = layer(h, w) three times reads so in the gradient, and its adjoint bh likewise
    (not h_1, h_2, bh_2, bh_1: each layer's saved values hold what its backward reads)."""
    x, w = rng.normal(size=(2, 3)), rng.normal(size=(3, 3)) * 0.5
    source = nf.grad(three_layers, wrt=1).source
    body = function_text(source, "dthree_layers")
    assert len(re.findall(r"^    h, tanh_layer_saved\w* = ", body, re.M)) == 3, source
    assert len(re.findall(r"^    bh\b.* = ", body, re.M)) == 3, source
    assert not re.search(r"\bb?h_\d", body), source
    check_grad(three_layers, x, w, wrt=1)


def appended_then_run(w, xs):
    inputs = []
    for i in range(xs.shape[0]):
        inputs.append(np.tanh(xs[i] * w))
    h = 0.0
    for i in range(len(inputs)):
        h = np.sin(h + inputs[i])
    return np.sum(h**2)


def appended_then_popped(w, xs):
    inputs = []
    for i in range(xs.shape[0]):
        inputs.append(np.tanh(xs[i] * w))
    last = inputs.pop()
    return np.sum(np.stack(inputs) ** 3) + np.sum(last)


def test_a_value_kept_in_a_list_is_read_back_from_it(rng):
    """The i-th iteration's value, appended to a list that nothing changes afterwards but
    appends, is the list's i-th item in the adjoint sweep: it is not on a stack too. A list
    popped from keeps the stack."""
    source = nf.grad(appended_then_run, wrt=(0, 1)).source
    assert "inputs.append(_t2)" in source and "_stack_t2" not in source
    assert "_t2 = inputs[i]" in source and "_t3 = inputs[i]" in source
    popped = nf.grad(appended_then_popped, wrt=(0, 1)).source
    assert "_stack_t2.append(_t2)" in popped and "= inputs[i]" not in popped
    for f in (appended_then_run, appended_then_popped):
        for w in (rng.normal(size=3), rng.normal(size=(2, 1))):
            args = (w, rng.normal(size=(4, 3)))
            check_grad(f, *args, wrt=(0, 1))
            got = nf.grad(f, wrt=(0, 1))(*args)
            for k in range(2):
                np.testing.assert_allclose(got[k], autograd_grad(f, args, k)[0], rtol=1e-10)
    w, xs, v = rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=3)
    gradient, eps = nf.grad(appended_then_run), 1e-5
    expected = (gradient(w + eps * v, xs) - gradient(w - eps * v, xs)) / (2 * eps)
    np.testing.assert_allclose(nf.hvp(appended_then_run)(w, xs, v), expected, rtol=1e-5, atol=1e-8)


def centred_squares(x, w):
    return np.sum((x - np.max(x, axis=1, keepdims=True)) ** 2 * w)


def sine_of_a_shift_by_its_own(x, c):
    z = x + np.tanh(x) * 2.0
    return np.sum(np.abs(np.sin(z) * c) ** 2)


@pytest.mark.parametrize(
    "f, x, other",
    [
        (centred_squares, (3, 4), (3, 4)),
        (centred_squares, (3, 1), (4,)),
        (centred_squares, (1, 4), (2, 1, 4)),
        (sine_of_a_shift_by_its_own, (), (3,)),
        (sine_of_a_shift_by_its_own, (1,), (3,)),
        (sine_of_a_shift_by_its_own, (3, 1), (3,)),
        (sine_of_a_shift_by_its_own, "float", (3,)),
    ],
)
def test_a_value_shifted_by_one_computed_from_it_takes_its_adjoint_whole(f, x, other, rng):
    """x - np.max(x, axis=1, keepdims=True), x + np.tanh(x) * 2.0: the other operand is
    computed from x without widening it and is real where x is, so the result has x's shape
    and is real where x is; x's adjoint is the result's, with no unbroadcast (whatever x is:
    a float, 0-d, (1,), (3, 1), float32; the loss through a complex constant)."""
    source = nf.grad(f).source
    assert re.search(r"\n    bx = b(_t1|z)\n", source)
    x = float(rng.normal()) if x == "float" else rng.normal(size=x)
    others = [rng.normal(size=other)]
    if f is sine_of_a_shift_by_its_own:
        others.append(others[0] + 1j * rng.normal(size=other))
    for c in others:
        check_grad(f, x, c, wrt=0)
        expected = autograd_grad(f, (x, c), 0)[0]
        np.testing.assert_allclose(nf.grad(f)(x, c), expected, rtol=1e-9, atol=1e-12)
    if not isinstance(x, float):
        single = nf.grad(f)(x.astype(np.float32), others[0].astype(np.float32))
        assert single.dtype == np.float32 and single.shape == x.shape
        np.testing.assert_allclose(single, nf.grad(f)(x, others[0]), rtol=1e-3, atol=1e-4)
