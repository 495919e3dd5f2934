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


def csr_matvec_loss(vals, indptr, cols):
    """A sparse matrix in CSR form times a vector, its rows summed by np.add.reduceat."""
    x = np.array([1.0, -2.0, 0.5, 3.0])
    y = np.add.reduceat(vals * x[cols], indptr[:-1])
    y = np.where(np.diff(indptr) > 0, y, 0.0)  # (numpy gives an empty row its next element)
    return np.sum(y**2)


def segments_out_of_order(x):
    return np.sum(np.add.reduceat(x**2, np.array([0, 4, 1, 5, 5])) * np.arange(1, 6))


def segments_along_rows(x):
    return np.sum(np.sin(np.add.reduceat(x, [0, 3], axis=1)))


@pytest.mark.parametrize(
    "f, args",
    [
        (
            csr_matvec_loss,
            (
                np.random.default_rng(5).normal(size=8),
                np.array([0, 2, 2, 5, 8]),
                np.array([1, 0, 3, 2, 1, 0, 3, 2]),
            ),
        ),
        (segments_out_of_order, (np.random.default_rng(6).normal(size=6),)),
        (segments_along_rows, (np.random.default_rng(7).normal(size=(3, 6)),)),
    ],
)
def test_add_reduceat_is_differentiated(f, args):
    """np.add.reduceat (CSR rows, segment sums) had no rule: refused, told to register an
    adjoint. It is differentiated through a version in numpy (autograd has no rule for it)."""
    x = args[0]
    expected = finite_differences(f, args, 0)
    np.testing.assert_allclose(nf.grad(f)(*args), expected, rtol=1e-6, atol=1e-9)
    v = np.random.default_rng(8).normal(size=x.shape)
    value, tangent = nf.jvp(f)(*args, v)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)
    np.testing.assert_allclose(tangent, np.sum(expected * v), rtol=1e-6)
    along = finite_differences(lambda x: np.sum(nf.grad(f)(x, *args[1:]) * v), (x,), 0)
    np.testing.assert_allclose(nf.hvp(f)(*args, v), along, rtol=1e-5, atol=1e-7)


def lognormal_log_likelihood(theta, x):
    import scipy.stats as st

    s, scale = np.exp(theta[0]), np.exp(theta[1])
    return np.sum(st.lognorm.logpdf(x, s, scale=scale)) + np.sum(
        st.lognorm.pdf(x, s, loc=0.1, scale=scale)
    )


def test_lognormal_density_is_differentiated():
    """scipy.stats.lognorm.logpdf and .pdf had no rule (refused, told to register an
    adjoint), beside gamma's and expon's: they have one, in x, s, loc and scale."""
    rng = np.random.default_rng(9)
    theta, x = np.array([0.7, 0.2]), rng.gamma(2.0, size=5) + 0.2
    f = lognormal_log_likelihood
    expected = finite_differences(f, (theta, x), 0)
    np.testing.assert_allclose(nf.grad(f)(theta, x), expected, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(
        nf.grad(f, wrt=1)(theta, x), finite_differences(f, (theta, x), 1), rtol=1e-6, atol=1e-9
    )
    v = np.array([0.3, -0.8])
    np.testing.assert_allclose(nf.jvp(f)(theta, x, v)[1], expected @ v, rtol=1e-6)
    along = finite_differences(lambda t: nf.grad(f)(t, x) @ v, (theta,), 0)
    np.testing.assert_allclose(nf.hvp(f)(theta, x, v), along, rtol=1e-5, atol=1e-7)


def edges_and_blur(image, kernel):
    """Image filters as scikit-image-era code writes them, with each boundary."""
    import scipy.signal

    total = np.sum(scipy.signal.convolve2d(image, kernel, mode="same") ** 2)
    for boundary in ("wrap", "symm"):
        total = total + np.sum(
            scipy.signal.convolve2d(image, kernel, mode="same", boundary=boundary) ** 2
        )
        total = total + np.sum(scipy.signal.correlate2d(image, kernel, "full", boundary) ** 2)
    total = total + np.sum(np.tanh(scipy.signal.correlate2d(image, kernel, mode="same")))
    return total + np.sum(np.sin(scipy.signal.convolve2d(image, kernel, fillvalue=0.5)))


@pytest.mark.parametrize("wrt", [0, 1])
def test_convolve2d_and_correlate2d_are_differentiated(wrt):
    """scipy.signal.convolve2d and correlate2d had no rule (refused): they are
    differentiated through scipy.signal.convolve of the image padded by its boundary, whose
    values match scipy's in every mode and boundary (a correlation's 'same' window is not
    convolve's for an even kernel)."""
    import scipy.signal

    rng = np.random.default_rng(10)
    args = (rng.normal(size=(5, 6)), rng.normal(size=(3, 2)))
    f = edges_and_blur
    expected = finite_differences(f, args, wrt)
    np.testing.assert_allclose(nf.grad(f, wrt=wrt)(*args), expected, rtol=1e-6, atol=1e-8)
    v = rng.normal(size=args[wrt].shape)
    value, tangent = nf.jvp(f, wrt=wrt)(*args, v)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)
    np.testing.assert_allclose(tangent, np.sum(expected * v), rtol=1e-6)
    square = lambda image: scipy.signal.correlate2d(image, args[1], "same", "symm")  # noqa: E731
    out, pullback = nf.vjp(square)(args[0])
    np.testing.assert_allclose(
        out, scipy.signal.correlate2d(args[0], args[1], mode="same", boundary="symm")
    )


def toeplitz_imported_inside(c):
    import scipy.linalg

    return np.sum(scipy.linalg.toeplitz(c, c[::-1]) ** 3)


def circulant_imported_from_inside(c):
    from scipy.linalg import circulant

    return np.sum(np.tanh(circulant(c)))


@pytest.mark.parametrize("f", [toeplitz_imported_inside, circulant_imported_from_inside])
def test_a_library_function_imported_inside_f_and_differentiated_through_python(f):
    """A library function srcdiff differentiates through a version in Python (toeplitz),
    reached through a module imported in f's body: finding the callee again as the emitted
    module loaded looked for `scipy` among f's globals only (an AttributeError from
    builtins, not a SrcdiffError). It now looks among the imports f's body makes too."""
    c = np.random.default_rng(11).normal(size=4)
    expected = finite_differences(f, (c,), 0)
    np.testing.assert_allclose(nf.grad(f)(c), expected, rtol=1e-6, atol=1e-9)
    v = np.random.default_rng(12).normal(size=4)
    np.testing.assert_allclose(nf.jvp(f)(c, v)[1], expected @ v, rtol=1e-6)


def squared(r):
    return r**2


def loss_defaulting_in_the_body(w, x, loss=None):
    if loss is None:
        loss = squared
    return np.sum(loss(x @ w))


def loss_replaced_under_a_flag(w, x, robust, loss=np.tanh):
    if robust:
        loss = squared
    return np.sum(loss(x @ w))


def loss_replaced_first_thing(w, x, loss=np.tanh):
    loss = squared
    return np.sum(loss(x @ w))


@pytest.mark.parametrize(
    "f, args",
    [
        (loss_defaulting_in_the_body, (None,)),
        (loss_defaulting_in_the_body, (np.sin,)),
        (loss_replaced_under_a_flag, (True,)),
        (loss_replaced_under_a_flag, (False,)),
    ],
)
def test_a_function_parameter_bound_again_under_a_test_is_refused(f, args):
    """`if loss is None: loss = squared` made every call of loss squared's (the parameter
    was taken for a name bound once), so nf.grad(f)(w, x, np.sin) was squared's gradient,
    silently; with the flag form the function passed was called even where the body had
    bound squared. Which one is called is known only as the call runs: refused, located."""
    rng = np.random.default_rng(13)
    w, x = rng.normal(size=3), rng.normal(size=(4, 3))
    with pytest.raises(nf.SrcdiffError, match="binds again") as error:
        nf.grad(f)(w, x, *args)
    assert f"{__file__}:{line_of(f, 'return np.sum(loss(x @ w))')}" in str(error.value)


@pytest.mark.parametrize("passed", [(), (np.sin,)])
def test_a_function_parameter_bound_again_first_thing_calls_what_it_is_bound_to(passed):
    rng = np.random.default_rng(14)
    w, x = rng.normal(size=3), rng.normal(size=(4, 3))
    f = loss_replaced_first_thing
    expected = 2 * x.T @ (x @ w)
    np.testing.assert_allclose(nf.grad(f)(w, x, *passed), expected, rtol=1e-10)
    np.testing.assert_allclose(autograd_grad(f, (w, x, *passed), 0), expected, rtol=1e-10)
