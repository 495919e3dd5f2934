"""np.stack, np.concatenate, np.vstack, sum, ... of a list or tuple held in a variable, not
only of a list display written in the call: in both modes and to second order."""

import numpy as np
import pytest

import srcdiff as nf
from gradcheck import check_grad


def stack_of_a_list(a, b):
    arrays = [a, b * 2]
    return np.sum(np.sin(np.stack(arrays)))


def concatenate_of_a_tuple(a, b):
    arrays = (a, b * 2)
    return np.sum(np.sin(np.concatenate(arrays, axis=0)) * np.sum(np.vstack(arrays)))


def sum_of_a_list(a, b):
    pair = [a, np.sin(b)]
    return np.sum(sum(pair) ** 2)


def in_a_loop(a, b):
    h = a
    for t in range(3):
        pair = (h, b * t)
        h = np.tanh(np.concatenate(pair)[:3] + np.stack(pair)[1])
    return np.sum(h**2)


def list_from_split(a, b):
    parts = np.split(a, 3)
    return np.sum(np.sin(np.concatenate(parts)) * b)


def list_from_another_block(a, b):
    arrays = [a, b]
    out = 0.0
    for i in range(2):
        out = out + np.sum(np.sin(np.stack(arrays)) * (i + 1))
    return out


def rows_of_an_array(a, b):
    return np.sum(np.sin(np.stack(a, axis=1)) * b[:3, None])


def sum_of_rows(a, b):
    return np.sum(np.sin(sum(a)) * b)


def sum_of_numbers(a, b):
    return np.sin(sum(a)) * np.sum(b)


CASES = [
    stack_of_a_list,
    concatenate_of_a_tuple,
    sum_of_a_list,
    in_a_loop,
    list_from_split,
    list_from_another_block,
    rows_of_an_array,
    sum_of_rows,
    sum_of_numbers,
]


def _args(f, rng):
    return (
        rng.normal(size=(2, 3)) if f in (rows_of_an_array, sum_of_rows) else rng.normal(size=3),
        rng.normal(size=3),
    )


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_reverse_forward_and_second_order(f, rng):
    args = _args(f, rng)
    gradient = check_grad(f, *args)
    v = rng.normal(size=np.shape(args[0]))
    _, tangent = nf.jvp(f, wrt=(0, 1))(*args, [v, np.zeros(3)])
    assert tangent == pytest.approx(np.sum(gradient[0] * v), rel=1e-9, abs=1e-12)
    eps = 1e-5
    grad = nf.grad(f)
    expected = (grad(args[0] + eps * v, args[1]) - grad(args[0] - eps * v, args[1])) / (2 * eps)
    np.testing.assert_allclose(nf.hvp(f)(*args, v), expected, rtol=1e-5, atol=1e-7)
    _, pullback = nf.vjp(grad)(*args)
    np.testing.assert_allclose(pullback(v), expected, rtol=1e-5, atol=1e-7)


def test_a_display_of_the_same_block_is_read_as_written():
    """Its items get their adjoints straight from the template, as for a display in the call;
    a list from elsewhere gets one adjoint per item (runtime.gathered_items)."""
    source = nf.grad(stack_of_a_list).source
    assert "ba = runtime.unstack(b_t1, 0)" in source and "gathered_items" not in source
    assert "runtime.gathered_items([runtime.unconcatenate(" in nf.grad(list_from_split).source


def test_a_list_argument_gets_a_list_gradient(rng):
    def f(xs, b):
        return np.sum(np.sin(np.vstack(xs)) * b)

    xs = [rng.normal(size=3), rng.normal(size=3)]
    gradient = nf.grad(f)(xs, np.ones((2, 3)))
    assert type(gradient) is list
    np.testing.assert_allclose(gradient, np.cos(np.vstack(xs)))


def relu_of_a_list(xs):
    return np.sum(np.maximum(xs, 0.0) ** 2) + np.sum(np.minimum(xs, 1.0))


def test_maximum_and_minimum_of_a_list_argument():
    """np.maximum(xs, 0.0) with xs a list of arrays: its adjoint compared the list with a
    float (a raw TypeError)."""
    xs = [np.array([1.5, -2.0]), np.array([0.5, 4.0])]
    got = nf.grad(relu_of_a_list)(xs)
    expected = [2 * np.maximum(x, 0.0) + (x < 1.0) for x in xs]
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e)


def sorted_rows_of_a_list(xs):
    return np.sum(np.sort(xs)[..., 0] * np.array([1.0, 3.0]))


def test_sort_of_a_list_argument():
    """np.sort(xs) with xs a list of arrays: its adjoint made zeros in the 'dtype' of the
    list itself (a raw TypeError)."""
    xs = [np.array([1.0, -2.0]), np.array([3.0, 4.0])]
    got = nf.grad(sorted_rows_of_a_list)(xs)
    np.testing.assert_allclose(got[0], [0.0, 1.0])
    np.testing.assert_allclose(got[1], [3.0, 0.0])
    tangent = [np.array([0.3, 0.1]), np.array([-0.2, 0.5])]
    _, along = nf.jvp(sorted_rows_of_a_list)(xs, tangent)
    assert along == pytest.approx(0.1 * 1.0 - 0.2 * 3.0)
