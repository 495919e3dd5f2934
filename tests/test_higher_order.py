"""Second derivatives, custom templates and check_grads (test_primitives.py checks every
primitive's second derivatives from its samples)."""

import inspect
import warnings

import numpy as np
import pytest

import custom_ops
import srcdiff as nf
from gradcheck import check_grad, numerical_grad
from oracle import gradient_along
from srcdiff import nn


def test_grad_of_grad_of_a_scalar_function():
    def f(x):
        return np.sin(x) * x**3 + np.exp(x * 0.5) / (1 + x * x)

    second = nf.grad(nf.grad(f))
    for x in (0.3, -1.2, 2.0):
        expected = numerical_grad(nf.grad(f), (x,), 0)
        assert second(x) == pytest.approx(expected, rel=1e-6)
    third = nf.grad(second)
    assert third(0.7) == pytest.approx(numerical_grad(second, (0.7,), 0), rel=1e-5)


def test_grad_of_grad_through_index_reads_and_writes():
    def f(x):
        y = np.zeros(4)
        y[0] = x
        y[1] = x * y[0]
        y[np.array([2, 2])] = x * np.array([1.0, 3.0])  # y[2] is the last write, 3x
        y[3] += np.sin(y[2])
        return np.sum(y**2) + y[1] * y[3]

    # the gradient's index helpers (getitem_grad, add_at, zero_at, written) had no adjoint
    second = nf.grad(nf.grad(f))
    for x in (0.3, -1.2):
        assert second(x) == pytest.approx(numerical_grad(nf.grad(f), (x,), 0), rel=1e-6)


def test_grad_of_grad_through_a_list_made_an_array():
    def f(x):
        v = np.array([x, x * 2, np.sin(x)])  # its gradient unpacks v's adjoint into rows
        return np.sum(v**2) * x

    second = nf.grad(nf.grad(f))
    for x in (0.3, -1.2):
        assert second(x) == pytest.approx(numerical_grad(nf.grad(f), (x,), 0), rel=1e-6)


PRODUCTS = np.linspace(-1.0, 1.0, 15).reshape(5, 3)


def through_products(w):
    m = PRODUCTS[:3] + w[:, None]
    return (
        np.sum(np.tanh(PRODUCTS @ w) ** 2)
        + np.dot(w, w[::-1]) * np.sum(w**2)
        + np.sum((w[None] @ m) ** 2)
        + np.sum(np.stack([m, m * 2], axis=-1) ** 2)
        + np.sum(np.broadcast_to(m, (2, 3, 3)) @ w)
        + np.sum(np.dot(m, m) * 0.1)
    )


def test_reverse_over_reverse_through_matrix_products(rng):
    # the gradient's matmul_grad, dot_grad and unstack had no adjoints: a vjp of the
    # gradient (H u) was refused
    w, u = rng.normal(size=3), rng.normal(size=3)
    gradient = nf.grad(through_products)
    _, pullback = nf.vjp(gradient)(w)
    expected = sum(u[k] * numerical_grad(lambda v: gradient(v)[k], (w,), 0) for k in range(3))
    np.testing.assert_allclose(pullback(u), expected, rtol=1e-5, atol=1e-7)


def test_hessian_of_a_vector_function(rng):
    def f(x, w):
        return np.sum(np.tanh(x @ w) ** 2) + np.sum(x**3) + np.prod(x[:2]) * 0

    x, w = rng.normal(size=3), rng.normal(size=(3, 2))

    def g(x, w):
        return np.sum(np.tanh(x @ w) ** 2) + np.sum(x**3)

    h = nf.hessian(g)(x, w)
    assert h.shape == (3, 3)
    np.testing.assert_allclose(h, h.T, atol=1e-10)
    expected = np.stack(
        [numerical_grad(lambda x_: nf.grad(g)(x_, w)[k], (x,), 0) for k in range(3)]
    )
    np.testing.assert_allclose(h, expected, rtol=1e-5, atol=1e-7)


def test_custom_adjoint_is_used_instead_of_the_source(rng):
    w, x = rng.normal(size=(3, 2)), rng.normal(size=(4, 3))
    check_grad(custom_ops.model, w, x)
    source = nf.grad(custom_ops.model).source
    assert "_logistic(" in source and "np.logaddexp" not in source
    assert "fwd_softplus" not in source  # a primitive now, not a differentiated callee
    report = nf.check_grads(custom_ops.model, w, x)
    assert report.ok and "forward (jvp)" in str(report)


def test_a_custom_adjoint_of_a_broadcast_shape_is_summed_to_its_value(rng):
    """bshift, of x's shape for a number shift, was added into shift's other adjoint by
    broadcasting (as_grad then summed every copy of it): wrong, or now refused."""
    x, shift = rng.normal(size=5), 0.3
    expected = -2 * np.sum(x - shift) + 3 * shift**2
    assert nf.grad(custom_ops.uses_the_shift_twice, wrt=1)(x, shift) == pytest.approx(expected)
    check_grad(custom_ops.uses_the_shift_twice, x, shift)


def test_check_grads_reports_a_wrong_custom_adjoint(rng):
    def cube(x):
        return x**3

    @nf.adjoint(cube)
    def wrong(bz, z, x):
        bx = bz * 2 * x * x  # should be 3 x^2

    @nf.tangent(cube)
    def right(dz, z, x):
        dz = 3 * x * x * dx

    def f(x):
        return np.sum(cube(x))

    with pytest.raises(AssertionError, match="MISMATCH") as error:
        nf.check_grads(f, rng.normal(size=3))
    assert "finite diff" in str(error.value) and "NO" in str(error.value)


def test_bad_templates_fail_when_registered():
    def two(a, b):
        return a * b

    with pytest.raises(nf.TemplateError, match="has no parameter 'c'") as error:

        @nf.adjoint(two)
        def wrong_arity(bz, z, a, c):
            ba = bz * c

    assert "test_higher_order.py" in str(error.value)
    with pytest.raises(nf.TemplateError, match="unknown name 'undefined_helper'"):

        @nf.adjoint(two)
        def unknown_name(bz, z, a, b):
            ba = undefined_helper(bz)  # noqa: F821

    with pytest.raises(nf.TemplateError, match="names no parameter"):

        @nf.adjoint(two)
        def bad_target(bz, z, a, b):
            bq = bz

    with pytest.raises(nf.TemplateError, match="exactly one of"):

        @nf.tangent(two)
        def two_tangents(dz, z, a, b):
            dz = da * db


def test_numpy_function_without_a_tangent_is_a_clear_error():
    from custom_ops import np as numpy

    def f(x):
        return numpy.sum(numpy.frexp(x)[0])

    with pytest.raises(nf.NoAdjointError, match="numpy.frexp"):
        nf.jvp(f)(np.array([2.0]), np.array([1.0]))


def test_hessian_of_prod_is_exact_with_a_zero():
    def f(x):
        return np.prod(x)

    x = np.array([2.0, 0.0, 3.0, 1.5])
    expected = np.array(
        [[0.0 if i == j else np.prod(np.delete(x, [i, j])) for j in range(4)] for i in range(4)]
    )
    np.testing.assert_allclose(nf.hessian(f)(x), expected, atol=1e-12)


def with_empty_products(x):
    rows = np.prod(x[:, :0], axis=1)  # ones
    return np.sum(x) + np.prod(x[:0]) + np.sum(rows * x[:, 0] ** 2) + np.sum(np.prod(x[:0], 0))


def test_second_derivatives_of_an_empty_product():
    """hvp and grad of grad of a product of no element were an IndexError in
    runtime.prod_grad_tangent (the running products started from the first element)."""
    x, v = np.array([[0.3, 1.2, -0.5], [0.7, -0.2, 0.4]]), np.array([[1.0, 2, 3], [4, 5, 6]])
    expected = np.array([[2.0, 0, 0], [8.0, 0, 0]])  # of sum(x[:, 0] ** 2) alone
    along = gradient_along(nf.grad(with_empty_products), (x,), 0, v)
    np.testing.assert_allclose(along, expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(nf.hvp(with_empty_products)(x, v), expected)
    np.testing.assert_allclose(nf.vjp(nf.grad(with_empty_products))(x)[1](v), expected)


def test_second_derivatives_through_loops(rng):
    """An emitted gradient's stacks (list append/pop) are differentiable code too."""

    def rnn(w, h):
        for _ in range(4):
            h = np.tanh(w @ h)
        return np.sum(h**2)

    w, h, v = rng.normal(size=(3, 3)) * 0.5, rng.normal(size=3), rng.normal(size=(3, 3))
    gradient = nf.grad(rnn)
    eps = 1e-5
    expected = (gradient(w + eps * v, h) - gradient(w - eps * v, h)) / (2 * eps)
    np.testing.assert_allclose(nf.hvp(rnn)(w, h, v), expected, rtol=1e-5, atol=1e-8)

    def horner(x, coefficients):
        total = 0.0
        for c in coefficients:
            total = total * x + c
        return total

    coefficients = [1.0, -2.0, 0.5, 3.0]
    second = nf.grad(nf.grad(horner))(0.7, coefficients)
    assert second == pytest.approx(2 * (3 * 1.0 * 0.7 - 2.0), rel=1e-10)  # p''(x) = 6x - 4


def test_stacks_in_user_code_are_differentiated():
    def reverse_order(x):
        stack = []
        for i in range(3):
            stack.append(x * (i + 1.0))
        total = 0.0
        for i in range(3):
            top = stack.pop()
            total = total * 0.5 + np.sum(np.sin(top))
        return total

    check_grad(reverse_order, np.array([0.3, -0.2]))
    out, tangent = nf.jvp(reverse_order)(np.array([0.3, -0.2]), np.array([1.0, 0.5]))
    g = nf.grad(reverse_order)(np.array([0.3, -0.2]))
    assert tangent == pytest.approx(g[0] + 0.5 * g[1])


def sin_times(x):
    return np.sin(x) * x


def calls_a_helper(x):
    return sin_times(x) ** 2


def sums_a_helper(x):
    return np.sum(sin_times(x) ** 2)


def test_second_derivatives_through_calls_to_own_functions(rng):
    # the emitted gradient calls fwd_sin_times/bwd_sin_times, which hand a list of saved
    # values between them: differentiating it again differentiates that list too
    second = nf.grad(nf.grad(calls_a_helper))(0.7)
    assert second == pytest.approx(numerical_grad(nf.grad(calls_a_helper), (0.7,), 0), rel=1e-6)
    x, v = rng.normal(size=3), rng.normal(size=3)
    gradient, eps = nf.grad(sums_a_helper), 1e-6
    expected = (gradient(x + eps * v) - gradient(x - eps * v)) / (2 * eps)
    np.testing.assert_allclose(nf.hvp(sums_a_helper)(x, v), expected, rtol=1e-6, atol=1e-8)


def huber_like(z):
    return np.where(np.abs(z) < 1.0, z**2, np.abs(z))


def sums_a_choosing_helper(w, x):
    return np.sum(huber_like(w * x) ** 2)


def test_second_derivatives_through_a_helper_choosing_with_np_where():
    # bwd_huber_like reads the condition among its saved values, which vary: the derivative
    # of the derivative takes it as the constant mask it is
    w, x = np.array([0.4, -1.3, 2.2, 0.9]), np.array([1.1, 0.5, -0.7, 0.3])
    v, eps = np.array([0.3, -0.8, 0.5, 1.1]), 1e-6
    gradient = nf.grad(sums_a_choosing_helper)
    expected = (gradient(w + eps * v, x) - gradient(w - eps * v, x)) / (2 * eps)
    product = nf.hvp(sums_a_choosing_helper)(w, x, v)
    np.testing.assert_allclose(product, expected, rtol=1e-6, atol=1e-8)
    second = nf.grad(nf.grad(sums_a_choosing_helper))
    for t in (0.6, -1.7):
        assert second(t, 1.5) == pytest.approx(
            numerical_grad(nf.grad(sums_a_choosing_helper), (t, 1.5), 0), rel=1e-6
        )
    autograd = pytest.importorskip("autograd")
    anp = autograd.numpy

    def twin(w):
        z = w * x
        return anp.sum(anp.where(anp.abs(z) < 1.0, z**2, anp.abs(z)) ** 2)

    np.testing.assert_allclose(
        product, autograd.hessian_vector_product(twin)(w, v), rtol=1e-10, atol=1e-12
    )


def strided_conv(x, w):
    return np.sum(np.sin(nn.conv2d(x, w, 2, 1)))


def test_hessian_vector_product_through_a_padded_strided_conv(rng):
    x, w = rng.normal(size=(2, 2, 7, 8)), rng.normal(size=(3, 2, 3, 3))
    v = rng.normal(size=x.shape)
    gradient, eps = nf.grad(strided_conv), 1e-5
    expected = (gradient(x + eps * v, w) - gradient(x - eps * v, w)) / (2 * eps)
    np.testing.assert_allclose(nf.hvp(strided_conv)(x, w, v), expected, rtol=1e-5, atol=1e-7)


def padded_conv(x, w):
    return np.sum(np.tanh(nn.conv2d(x, w, 1, 1)) ** 2)


@pytest.mark.parametrize("f", [padded_conv, strided_conv])
def test_reverse_over_reverse_through_a_padded_conv(rng, f):
    # a vjp of the gradient (H u, as a gradient penalty needs) once stopped at the gradient's
    # unpad and unwindow, which had no adjoints; H is symmetric, so it must equal the hvp
    x, w = rng.normal(size=(2, 2, 7, 8)), rng.normal(size=(3, 2, 3, 3)) * 0.3
    u = rng.normal(size=x.shape)
    _, pullback = nf.vjp(nf.grad(f))(x, w)
    np.testing.assert_allclose(pullback(u), nf.hvp(f)(x, w, u), rtol=1e-6, atol=1e-9)


# --- writes whose gradient views the array it writes into ---------------------------------------


def written_twice(x):
    y = np.zeros(3)
    y[1:] = x[:2]
    y[:2] += x[4:]  # (the gradient reads y[:2] through a view of y, after y is put back)
    return np.sum(y**2)


def shifted_sum(x):
    y = x * 1.0
    y[1:] = y[1:] + y[:-1]
    return np.sum(y**2)


def shifted_in_place_sum(x):
    y = np.sin(x)
    y[1:] += y[:-1]
    return np.sum(y**3)


def strided_product(x):
    y = x * 1.0
    y[1::2] *= x[:3] ** 2
    return np.sum(y**2)


def running_rows(x):
    y = x * 1.0
    for i in range(1, 6):
        y[i] += y[i - 1] * x[i]
    return np.sum(y**2)


def view_read_after_a_write(x):
    y = x * 1.0
    z = y[1:]
    w = np.sin(z) * z  # z is read again when its adjoint is made, after y changed
    y[2:] = x[:-2] * x[2:]
    return np.sum(w) + np.sum(y**2)


def rows_written_in_a_loop(x):
    y = np.zeros((3, 6))
    for k in range(3):
        y[k] = np.cos(x) * k
        y[k, 1:] *= y[k, :-1]
    y[:, ::2] += y[:, 1::2] ** 2
    return np.sum(y**3)


@pytest.mark.parametrize(
    "f",
    [
        written_twice,
        shifted_sum,
        shifted_in_place_sum,
        strided_product,
        running_rows,
        view_read_after_a_write,
        rows_written_in_a_loop,
    ],
)
def test_second_order_through_writes_into_viewed_arrays(f):
    """The gradient of a write into a slice that overlaps another (or is read in the same
    statement) takes a view of the array and reads it after putting back what the write
    replaced: differentiating that gradient again was refused ('writing into y changes _t0
    too', at a line of the emitted gradient's file). hvp and grad of grad agree with finite
    differences of the gradient."""
    assert_second_order(f, np.linspace(0.3, 1.4, 6), np.array([0.6, -1.0, 0.3, 0.8, -0.2, 1.1]))


def assert_second_order(f, x, v):
    """The gradient against finite differences, and hvp and grad of grad along v against
    finite differences of the gradient."""
    np.testing.assert_allclose(nf.grad(f)(x), numerical_grad(f, (x,), 0), rtol=1e-6, atol=1e-8)
    along = gradient_along(nf.grad(f), (x,), 0, v)
    np.testing.assert_allclose(nf.hvp(f)(x, v), along, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(nf.vjp(nf.grad(f))(x)[1](v), along, rtol=1e-6, atol=1e-7)


# --- lists built with append, read and popped by the gradient -----------------------------------


def appended_with_an_early_return(x):
    hs = []
    for k in range(3):
        if x[k] > 0:
            hs.append(np.tanh(x * k))
        elif x[k] < -1:
            return np.sum(x) + len(hs)  # (nothing reads hs: its adjoint gets no item)
    return np.sum(np.stack(hs + [x]) ** 2)


def returns_early_from_a_helper(s, x, k):
    hs = []
    if x[k] > 0:
        if x[1] > 0.2:
            return s * 2.0  # (hs, and the list the sum below makes, are never made)
        hs.append(x * s)
    return s + sum(np.sum(v) for v in hs)


def through_a_helper_returning_early(x):
    s = x[0]
    for k in range(3):
        s = returns_early_from_a_helper(s, x, k) * 0.5
    return s


def joined_and_indexed(x):
    hs = []
    for k in range(3):
        hs.append(np.tanh(x * k))
    ys = hs + [x]  # (the gradient reads the adjoint of hs as a list, then pops it)
    return np.sum(ys[0] * ys[3]) + np.sum(ys[1] ** 2)


@pytest.mark.parametrize(
    "f", [appended_with_an_early_return, through_a_helper_returning_early, joined_and_indexed]
)
@pytest.mark.parametrize(
    "x",
    [[0.4, 0.5, 0.3, -0.1], [-0.8, 0.5, 0.3, -0.1], [0.1, -0.5, 0.3, -0.1], [0.3, -0.5, -1.3, 0.2]],
)
def test_second_order_through_lists_built_with_append(f, x):
    """The gradient keeps a list's adjoint as a list of its items' adjoints, popped as the
    list was appended to. Differentiated again: hvp on a path that returned before reading
    the list was a TypeError ('pop expected at least 1 argument': the tangent of a list's
    zero adjoint forgot its length); grad of grad through a helper returning before it made
    a list, a TypeError ('NoneType' object is not iterable); and grad of grad where the
    gradient reads the adjoint of a list (hs + [x], a comprehension's list) before popping
    it was silently wrong (the popped adjoints were reset to zeros: 4.0 off)."""
    assert_second_order(f, np.array(x), np.array([0.3, -1.0, 0.7, 0.2]))


def complex_output(x):
    z = np.exp(1j * x) * x
    return np.sum(z)


def vector_output(x):
    y = np.sin(x)
    return y * 2.0


@pytest.mark.parametrize(
    "f, message",
    [(complex_output, "real scalar output"), (vector_output, "needs a scalar output")],
)
@pytest.mark.parametrize("second", ["hvp", "hessian", "jvp of grad"])
def test_second_order_of_a_non_real_scalar_output_is_located_at_its_return(f, message, second):
    """hvp and hessian of f with a complex or non-scalar output said so at the line of the
    emitted gradient that seeds the adjoint (a file in the cache), not at f's return."""
    x = np.array([0.3, -0.7, 1.2])
    run = {
        "hvp": lambda: nf.hvp(f)(x, np.ones(3)),
        "hessian": lambda: nf.hessian(f)(x),
        "jvp of grad": lambda: nf.jvp(nf.grad(f))(x, np.ones(3)),
    }[second]
    with pytest.raises(nf.ArgumentError, match=message) as error:
        run()
    lines, first = inspect.getsourcelines(f)
    assert error.value.location.filename == __file__
    assert error.value.location.lineno == first + len(lines) - 1


def cubed_sum(y, k=3):
    return np.sum(y**k)


def through_an_int_exponent(y):
    return cubed_sum(y)


def test_hvp_through_an_int_exponent_of_a_negative_base_is_quiet():
    """The exponent k of a callee's y ** k is a saved value of its backward function, which
    forward mode then sees as varying: its term (log y, NaN for y < 0) is dropped for an int
    k, and is no longer computed first, warning 'invalid value encountered in log'."""
    y, v = np.array([0.3, -0.7, 1.2]), np.array([1.0, -2.0, 0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hv = nf.hvp(through_an_int_exponent)(y, v)
    np.testing.assert_allclose(hv, 6 * y * v)


def running_products(x):
    out = [x[0]]
    for item in [x[1], x[2]]:
        previous = out[-1]
        out.append(previous * item)
    return out[-1]


def test_second_order_through_a_list_read_then_appended_in_a_loop():
    """The tangent of a list's adjoint popped in the backward sweep was as long as the list
    at its end, not as it was then: its pops took the wrong items (a wrong Hessian)."""
    x, v = np.array([0.3, -1.2, 0.8, 0.5]), np.array([1.0, 0.4, -0.7, 0.2])
    expected = gradient_along(nf.grad(running_products), (x,), 0, v)
    np.testing.assert_allclose(nf.hvp(running_products)(x, v), expected, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(nf.hessian(running_products)(x) @ v, expected, rtol=1e-6)


def axes_swapped(a):
    last = a.ndim - 1
    return np.swapaxes(a * a, last, 0)


def through_axes_swapped(x):
    return np.sum(axes_swapped(x) * np.arange(12.0).reshape(4, 3))


def test_second_order_through_an_axis_computed_in_a_callee():
    """The axis a callee computes from a shape is a saved value its backward function
    unpacks; a higher derivative saw it varied (np.swapaxes has no gradient w.r.t. axis1)."""
    x = np.linspace(-1.0, 2.0, 12).reshape(3, 4)
    v = np.linspace(1.0, -1.0, 12).reshape(3, 4)
    expected = gradient_along(nf.grad(through_axes_swapped), (x,), 0, v)
    np.testing.assert_allclose(nf.hvp(through_axes_swapped)(x, v), expected, rtol=1e-6)


def running(ufunc, rows):
    out = [rows[0]]
    for row in rows[1:]:
        out.append(ufunc(out[-1], row))
    return np.stack(out)


def running_maximum(rows):
    return running(np.maximum, rows)


def running_maximum_weighted(x):
    return np.sum(running_maximum(x) * x) + np.sum(running_maximum(x))


def drawdown_and_running_minimum(x):
    wealth = np.cumsum(x[0])
    return np.max(running_maximum(wealth) - wealth) + np.sum(running(np.minimum, x) * x)


@pytest.mark.parametrize("f", [running_maximum_weighted, drawdown_and_running_minimum])
def test_reverse_over_reverse_through_a_backward_call_kept_as_written(f):
    """The gradient's backward function of running_maximum calls running's, whose result
    carries no second derivative (through a maximum's winner mask): the derivative of the
    gradient kept that call as written, and it popped the stacks that the derivative's own
    backward sweep read again (it had saved the same lists), sizing zero adjoints from
    stacks popped empty: 'pop from empty list' in bwd_fwd_running_rows. (The function
    passed in is beside the point: np.maximum written into running fails alike.)"""
    x = np.array([[0.3, -1.2, 0.7, 2.1], [-0.4, 0.55, 1.3, -0.8], [0.9, 0.1, -1.5, 0.25]])
    v = np.linspace(1.0, -1.0, 12).reshape(3, 4)
    gradient = nf.grad(f)
    np.testing.assert_allclose(gradient(x), numerical_grad(f, (x,), 0), rtol=1e-6, atol=1e-9)
    expected = gradient_along(gradient, (x,), 0, v)
    np.testing.assert_allclose(nf.vjp(gradient)(x)[1](v), expected, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(nf.hvp(f)(x, v), expected, rtol=1e-6, atol=1e-9)
