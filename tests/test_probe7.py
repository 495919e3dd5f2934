"""Regressions found by the seventh probe (srcdiff vs central differences and autograd on
scientific-computing, statistics and optimisation code written as published code writes it,
and on the API's keyword and scalar forms): each asserts numbers or an error's message and
location."""

import functools
import inspect

import numpy as np
import pytest

import srcdiff as nf
from oracle import autograd_grad, finite_differences


def first_half(arr):
    return arr[: arr.shape[0] // 2]


def doubled(arr):
    return arr * 2.0


def zeroed_through_a_helper_view(x):
    a = x * 1.0
    v = first_half(a)
    v[:] = 0.0  # (a's first half too)
    return np.sum(a**2) + np.sum(x * a)


def written_under_a_helper_view(x):
    a = x * 1.0
    v = first_half(a)
    a[0] = x[1] ** 2  # (v[0] too)
    return np.sum(v**2) + np.sum(a)


def written_beside_a_helper_copy(x):
    a = x * 1.0
    v = doubled(a)
    a[0] = x[1] ** 2
    return np.sum(v**2) + np.sum(a)


class Grid:
    def __init__(self, u):
        self.u = u

    def interior(self):
        return self.u[1:-1]


def set_through_a_method_view(x):
    a = x * 1.0
    grid = Grid(a)
    inner = grid.interior()
    inner[:] = 1.0  # (a's interior too)
    return np.sum(a**2)


def line_of(f, text):
    lines, first = inspect.getsourcelines(f)
    return first + next(k for k, line in enumerate(lines) if text in line)


@pytest.mark.parametrize(
    "f, written",
    [
        (zeroed_through_a_helper_view, "v[:] = 0.0"),
        (written_under_a_helper_view, "a[0] = x[1] ** 2"),
        (set_through_a_method_view, "inner[:] = 1.0"),
    ],
)
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_write_into_an_array_a_helper_returned_a_view_of_is_refused(f, written, mode):
    """A function of the user's (or a method of an object it made, keeping the array) may
    return a view of an array it is passed: a write through either name changes the other,
    which srcdiff's values do not follow. The sharing analysis took such a call for a fresh
    array, so the write ran unchecked and the derivative was silently wrong (off by 0.03 for
    written_under_a_helper_view); the call now tells, and the write is refused, located."""
    x = np.random.default_rng(0).normal(size=6)
    derivative = nf.grad(f) if mode == "grad" else lambda x: nf.jvp(f)(x, np.ones(6))
    with pytest.raises(nf.SrcdiffError, match="share|a view of it") as error:
        derivative(x)
    assert f"{__file__}:{line_of(f, written)}" in str(error.value)


def test_a_write_beside_a_helper_copy_is_differentiated():
    """The check costs nothing where the helper returns a new array: the write runs."""
    x = np.random.default_rng(1).normal(size=6)
    f = written_beside_a_helper_copy
    expected = finite_differences(f, (x,), 0)
    np.testing.assert_allclose(nf.grad(f)(x), expected, rtol=1e-6, atol=1e-8)
    v = np.random.default_rng(2).normal(size=6)
    np.testing.assert_allclose(nf.jvp(f)(x, v)[1], expected @ v, rtol=1e-6)


def scaled_loss(w, x, scale):
    return scale * np.sum(np.tanh(x @ w) ** 2)


def test_a_partial_is_refused_with_a_way_out():
    """nf.grad(functools.partial(f, ...)) was told to register an adjoint, as for a builtin;
    the hint now says to differentiate f and pass the bound arguments, which works."""
    rng = np.random.default_rng(3)
    w, x = rng.normal(size=3), rng.normal(size=(4, 3))
    with pytest.raises(nf.SrcdiffError, match="differentiate scaled_loss itself") as error:
        nf.grad(functools.partial(scaled_loss, scale=2.0))(w, x)
    assert f"{__file__}:" in str(error.value)
    expected = finite_differences(lambda w: scaled_loss(w, x, 2.0), (w,), 0)
    np.testing.assert_allclose(nf.grad(scaled_loss)(w, x, scale=2.0), expected, rtol=1e-6)
    np.testing.assert_allclose(
        autograd_grad(scaled_loss, (w, x, 2.0), 0), expected, rtol=1e-6, atol=1e-9
    )


class PenalisedLoss:
    """A loss keeping its settings, called as a function (as scikit-learn-style code does)."""

    def __init__(self, reg):
        self.reg = reg

    def __call__(self, w, x, *, scale=1.0):
        return scale * np.sum(np.tanh(x @ w) ** 2) + self.reg * np.sum(w**2)


def test_an_object_defining_call_is_differentiated_as_that_method():
    """nf.grad(obj) of an object of a class defining __call__ was refused as "not a Python
    function", told to register an adjoint; it is now obj.__call__, bound to obj, in every
    mode."""
    rng = np.random.default_rng(4)
    w, x, v = rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=3)
    loss = PenalisedLoss(0.3)
    expected = finite_differences(lambda w: loss(w, x, scale=2.0), (w,), 0)
    np.testing.assert_allclose(nf.grad(loss)(w, x, scale=2.0), expected, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(nf.jvp(loss)(w, x, v, scale=2.0)[1], expected @ v, rtol=1e-6)
    ours = lambda w, x: PenalisedLoss(0.3)(w, x)  # noqa: E731
    np.testing.assert_allclose(
        nf.grad(loss)(w, x), autograd_grad(ours, (w, x), 0), rtol=1e-6, atol=1e-9
    )
    along = finite_differences(lambda w: nf.grad(loss)(w, x) @ v, (w,), 0)
    np.testing.assert_allclose(nf.hvp(loss)(w, x, v), along, rtol=1e-5, atol=1e-7)
    assert repr(nf.grad(loss)) == "<srcdiff grad of PenalisedLoss.__call__ wrt=0>"
