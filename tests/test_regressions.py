"""Wrong numbers and crashes found by running srcdiff on programs nobody here wrote (issue 13).
Each test failed before its fix; the right values come from finite differences or autograd."""

import dataclasses
import re

import numpy as np
import pytest

import srcdiff as nf
from gradcheck import check_grad, numerical_grad

rng = np.random.default_rng(7)


def layers(*widths):
    return [(rng.normal(size=(m, n)), rng.normal(size=n)) for m, n in zip(widths, widths[1:])]


def assert_tree_close(got, want):
    if isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_tree_close(g, w)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def numerical_tree(f, args, position):
    """Central differences for every float array leaf of the list/tuple argument."""

    def leaves(tree, path=()):
        if isinstance(tree, (list, tuple)):
            for k, item in enumerate(tree):
                yield from leaves(item, path + (k,))
        else:
            yield path

    def rebuild(tree, path, value):
        if not path:
            return value
        items = list(tree)
        items[path[0]] = rebuild(tree[path[0]], path[1:], value)
        return type(tree)(items)

    tree = args[position]
    result = tree
    for path in leaves(tree):
        leaf = tree
        for k in path:
            leaf = leaf[k]

        def of_leaf(value, path=path):
            new = list(args)
            new[position] = rebuild(tree, path, value)
            return f(*new)

        result = rebuild(result, path, numerical_grad(of_leaf, (leaf,), 0))
    return result


# --- 1. negative indexes into list and tuple arguments ---------------------------------------


def last_layer(params, x):
    W, b = params[-1]
    return np.sum(np.tanh(x @ W + b))


def all_but_last(params, x):
    W, b = params[-2]
    s = np.sum(np.sin(x @ W + b))
    hidden = params[:-1]
    return s + np.sum(hidden[0][0] ** 2) + np.sum(params[-2:][1][1] * 3.0)


@pytest.mark.parametrize("f", [last_layer, all_but_last])
def test_negative_indexes_and_slices_of_a_list_argument(f):
    params, x = layers(3, 3, 2), rng.normal(size=(4, 3))
    assert_tree_close(nf.grad(f)(params, x), numerical_tree(f, (params, x), 0))


def test_negative_index_of_a_tuple_argument():
    def f(pair):
        return np.sum(pair[-1] * 2.0) + np.sum(pair[-2] ** 2)

    pair = (rng.normal(size=2), rng.normal(size=3))
    grads = nf.grad(f)(pair)
    np.testing.assert_allclose(grads[0], 2 * pair[0])
    np.testing.assert_allclose(grads[1], [2.0, 2.0, 2.0])


# --- 3. autograd's values where the derivative's formula divides by zero ----------------------


def test_derivative_of_zero_to_a_power_is_zero():
    def f(x, y):
        return x**y

    def g(x, y):
        return np.sum(x**y)

    assert nf.grad(f, wrt=(0, 1))(0.0, 2.0) == (0.0, 0.0)
    assert nf.grad(g, wrt=1)(np.zeros(3), np.array([1.0, 2.0, 0.5])).tolist() == [0.0] * 3
    assert nf.grad(f)(0.0, 0.0) == 0.0  # x ** 0 is flat, at 0 too
    assert nf.grad(g)(np.zeros(2), np.zeros(2)).tolist() == [0.0, 0.0]


def test_std_of_constant_data_has_zero_gradient():
    def f(x):
        return np.std(x) + np.sum(np.std(x, axis=0))

    assert nf.grad(f)(np.ones((3, 2))).tolist() == [[0.0, 0.0]] * 3
    _, tangent = nf.jvp(f)(np.ones((3, 2)), np.ones((3, 2)))
    assert tangent == 0.0


# --- 4. complex numbers -------------------------------------------------------------------------


def test_complex_arguments_and_outputs_of_grad_are_errors():
    def f(z):
        return np.sum(z * z)

    with pytest.raises(nf.ArgumentError, match="argument 'z' is complex") as info:
        nf.grad(f)(np.array([1 + 2j, 3j]))
    assert info.value.location.lineno == f.__code__.co_firstlineno

    def g(x):
        return np.sum(x * (1 + 1j))

    with pytest.raises(nf.ArgumentError, match="real scalar output"):
        nf.grad(g)(np.ones(2))


def sums_a_container(xs):
    s = np.sum(xs)
    a = np.abs(s)
    return np.abs(a * s)


@dataclasses.dataclass
class Scaled:
    scale: object
    offset: object


def scaled_sum(p):
    return np.sum(p.scale * 2.0)


def test_complex_numbers_in_differentiated_containers_are_errors():
    """The emitted code takes what it differentiates with respect to to be real (so that a
    sum of it is a real scalar, whose adjoint needs no unbroadcast): a complex number inside
    a differentiated list, dict or record is refused as a complex argument is. (It was
    differentiated; sums_a_container of [0.7, 0.4 + 0.3j, 1.1] would then get 86.768 for
    xs[0], where finite differences give 85.976.)"""
    for xs, where in (
        ([0.7, 0.4 + 0.3j, 1.1], "xs[1]"),
        ({"a": 0.7, "b": [np.ones(2), np.array([1j])]}, "xs['b'][1]"),
    ):
        with pytest.raises(nf.ArgumentError, match=re.escape(where) + ".* is complex"):
            nf.grad(sums_a_container)(xs)
    df = nf.grad(scaled_sum)
    assert df(Scaled(np.ones(2), 1.0)).scale.tolist() == [2.0, 2.0]
    # (a record's key is its class: calls with one are each checked, not only the first)
    with pytest.raises(nf.ArgumentError, match="'p.offset' is complex"):
        df(Scaled(np.ones(2), 1j))


def sines_by_default_weights(x, w=np.array([1.0, 2j])):
    return np.real(np.sum(np.sin(x * w)))


def test_a_differentiated_parameter_left_to_a_complex_default_is_an_error():
    with pytest.raises(nf.ArgumentError, match="argument 'w' is complex"):
        nf.grad(sines_by_default_weights, wrt=1)(np.ones(2))


def test_the_arguments_an_inner_derivative_differentiates_are_checked_too():
    def f(x, y):
        return np.real(np.sum(x * y) * np.sum(x))

    mixed = nf.grad(nf.grad(f, wrt=0), wrt=1)
    assert mixed(1.5, 2.0) == 3.0
    with pytest.raises(nf.ArgumentError, match="argument 'x' is complex"):
        mixed(1.5 + 1j, 2.0)


def through_complex(x):
    z = x * (1 + 1j)
    return np.sum(np.abs(z) ** 2) + np.sum(np.real(np.exp(1j * x) * (2 - 1j)))


def test_real_function_through_complex_values_agrees_with_autograd():
    autograd = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")

    def reference(x):
        z = x * (1 + 1j)
        return anp.sum(anp.abs(z) ** 2) + anp.sum(anp.real(anp.exp(1j * x) * (2 - 1j)))

    x = rng.normal(size=4)
    grad = nf.grad(through_complex)(x)  # was 0 for the first term: abs's adjoint unconjugated
    assert grad.dtype == np.float64
    np.testing.assert_allclose(grad, autograd.grad(reference)(x), rtol=1e-12)
    check_grad(through_complex, x)


# --- 7. random draws --------------------------------------------------------------------------


def test_unused_random_draws_still_advance_the_generator():
    def f(x):
        np.random.normal(size=3)  # unused, but the next draw depends on it
        noise = np.random.normal(size=3)
        unused = np.random.uniform(size=2)  # noqa: F841
        return np.sum(x * noise) + np.sum(np.random.normal(size=3) * x)

    x = rng.normal(size=3)
    nf.config(specialize=True)  # (check mode would run the emitted code twice)
    try:
        np.random.seed(0)
        grad = nf.grad(f)(x)
    finally:
        nf.config(specialize="check")
    np.random.seed(0)
    np.random.normal(size=3)
    expected = np.random.normal(size=3)
    np.random.uniform(size=2)
    expected = expected + np.random.normal(size=3)
    np.testing.assert_allclose(grad, expected)


# --- 9-15. crashes --------------------------------------------------------------------------


def number_list(a):
    b = [1, a * a, 2]
    return np.sum(b)


def test_list_of_numbers_and_a_differentiated_float():
    assert nf.grad(number_list)(1.5) == pytest.approx(3.0)
    assert nf.jvp(number_list)(1.5, 1.0)[1] == pytest.approx(3.0)
    assert nf.hvp(number_list)(1.5, 1.0) == pytest.approx(2.0)


def branch_power(a, b):
    if a >= 0:
        a = a**b
    else:
        a = (-a) ** b
    return a


@pytest.mark.parametrize("a", [1.5, -1.5])
def test_grad_of_grad_through_branches_that_bind_different_names(a):
    # _t1 exists on the else branch only: zeroing its adjoint on the other one was a crash
    assert nf.grad(nf.grad(branch_power))(a, 3.0) == pytest.approx(6 * abs(a))
    assert nf.hvp(branch_power)(a, 3.0, 1.0) == pytest.approx(6 * abs(a))


def test_gradient_of_an_integer_valued_output_is_zero_whatever_the_shapes():
    def f(x, y):
        return np.sum(x < y) + np.sum(np.ceil(x)) + np.sum(np.floor(x) + np.sign(x))

    value, grad = nf.value_and_grad(f)(np.ones((1, 4)), np.ones(4))
    assert value == 12.0 and grad.shape == (1, 4) and not grad.any()


def with_points(num):
    def f(start, stop):
        return np.sum(np.linspace(start, stop, num) ** 2)

    return f


def test_linspace_with_a_count_from_the_enclosing_scope():
    f = with_points(5)
    check_grad(f, 0.5, 2.0)


def test_loop_over_layers_of_different_widths_reading_the_last_output():
    def f(params, inputs):
        for i in range(len(params)):
            W, b = params[i]
            outputs = inputs @ W + b
            inputs = np.tanh(outputs)
        return np.sum(outputs**2)

    params, x = layers(5, 30, 10), rng.normal(size=(16, 5))
    assert_tree_close(nf.grad(f)(params, x), numerical_tree(f, (params, x), 0))


D = 2


def mean_and_log_std(params):
    mean, log_std = params[:D], params[D:]
    return mean, log_std


def test_callee_returning_copies_of_a_tuple_items():
    def f(params):
        m, s = mean_and_log_std(params)
        return np.sum(m**2) + np.sum(np.exp(s))

    check_grad(f, rng.normal(size=4))


def test_namedtuple_argument():
    from typing import NamedTuple

    class Params(NamedTuple):
        w: np.ndarray
        b: np.ndarray

    def f(p, x):
        return np.sum(np.tanh(p[0] * x + p[1]))

    p, x = Params(rng.normal(size=3), rng.normal(size=3)), rng.normal(size=3)
    grad = nf.grad(f)(p, x)
    assert type(grad) is Params
    np.testing.assert_allclose(grad.w, x * (1 - np.tanh(p.w * x + p.b) ** 2))
    np.testing.assert_allclose(grad.b, 1 - np.tanh(p.w * x + p.b) ** 2)


# --- 17. break leaves the loop ----------------------------------------------------------------


def power_until(s, x):
    for i in range(10**12):  # the forward sweep must leave at i = 2: never run this range
        s = s * x
        if i >= 2:
            break
    return s


def summed_power_until(s, x):
    return np.sum(power_until(s, x))


def test_break_leaves_the_loop_and_the_adjoint_runs_the_iterations_that_ran():
    assert nf.grad(power_until, wrt=(0, 1))(1.5, 2.0) == pytest.approx((8.0, 3 * 4.0 * 1.5))
    check_grad(summed_power_until, 1.5, np.array([0.5, 2.0]))
    source = nf.grad(power_until).source
    assert "break" in source and "_brk" not in source


def skip_and_stop(x, n):
    total = 0.0
    for i in range(n):
        if i % 2 == 1:
            continue
        total = total + np.sum(np.sin(x * i))
        if total > 1.0:
            return total * 2
    return total


@pytest.mark.parametrize("n", [3, 40])
def test_continue_and_return_from_a_loop(n):
    check_grad(skip_and_stop, np.linspace(0.1, 1.0, 4), n)
    source = nf.grad(skip_and_stop).source
    assert "_cont" not in source and "_brk" not in source


# --- degenerate shapes (found by a fuzzer drawing (), (1,) and size-1 axes) --------------------


def take_from_a_0d_array(x):
    return np.sum(np.sin(np.take(x, [0, -1, 0], axis=-1)))


def spread_of_one_sample(x):
    return np.sum(np.var(x, axis=0, ddof=1)) + np.sum(np.std(x, axis=0, ddof=1))


def test_take_from_a_0d_array_along_an_axis():
    """numpy takes from a 0-d array along any axis: a ZeroDivisionError (axis % 0)."""
    x = np.array(0.6)
    assert nf.grad(take_from_a_0d_array)(x) == pytest.approx(3 * np.cos(0.6))
    assert nf.jvp(take_from_a_0d_array)(x, np.array(1.0))[1] == pytest.approx(3 * np.cos(0.6))


@pytest.mark.filterwarnings("ignore:Degrees of freedom")
def test_var_and_std_of_one_sample_with_ddof_one():
    """numpy gives nan (with a warning); the adjoint raised ZeroDivisionError."""
    x = np.array([[0.3, -0.2, 0.5]])
    with np.errstate(divide="ignore", invalid="ignore"):
        assert np.all(np.isnan(nf.grad(spread_of_one_sample)(x)))
        assert np.isnan(nf.jvp(spread_of_one_sample)(x, np.ones_like(x))[1])
