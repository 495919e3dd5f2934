"""Library functions srcdiff follows through a version written in Python (python_versions.py):
np.apply_along_axis, itertools.accumulate, np.fromiter and divmod, each checked against
finite differences in reverse mode, forward mode and second order."""

import itertools

import numpy as np
import pytest

import srcdiff as nf
from oracle import finite_differences, gradient_along

try:
    import scipy.linalg as scipy_linalg
except ImportError:  # (an optional extra)
    scipy_linalg = None

X = np.array([[0.3, -1.2, 0.8, 0.5], [1.1, 0.4, -0.7, 0.2], [-0.6, 0.9, 0.1, -1.5]])


def row_norm(row):
    return np.sqrt(np.sum(row * row))


def softmax(row):
    e = np.exp(row - np.max(row))
    return e / np.sum(e)


def norms_of_rows(x):
    return np.sum(np.apply_along_axis(row_norm, 1, x))


def softmax_down_columns(x):
    return np.sum(np.apply_along_axis(softmax, 0, x) * X)


def lambda_along_the_last_axis(x):
    return np.sum(np.apply_along_axis(lambda r: r[0] * r[1] + r[2], -1, x) ** 2)


def softmax_in_three_dimensions(x):
    cube = np.reshape(x, (3, 2, 2))
    return np.sum(np.apply_along_axis(softmax, 1, cube) * np.arange(12.0).reshape(3, 2, 2))


def running_sums(x):
    return sum(itertools.accumulate([x[0, 0], x[0, 1], x[1, 2]]))


def running_products_from_an_initial_value(x):
    made = list(itertools.accumulate(x[0], lambda total, v: total * v, initial=x[1, 0]))
    return made[-1] + 2.0 * made[1]


def squares_from_an_iterator(x):
    return np.sum(np.fromiter((v * v for v in x[0]), dtype=float) * x[1])


def remainders(x):
    whole, rest = divmod(x, 0.37)
    return np.sum(rest * rest) + 0.0 * np.sum(whole)


def fractional_parts(x):
    frac, whole = np.modf(x * 2.3)
    return np.sum(frac**2) + np.sum(whole)


def positives_extracted(x):
    return np.sum(np.extract(x > 0, x) ** 2)


def arrays_broadcast(x):
    a, b = np.broadcast_arrays(x[:, :1], x[:1, :])
    return np.sum(a * b)


def second_derivative_of_a_polynomial(x):
    return np.sum(np.polyder(x[0], 2) ** 2)


def eigenvalues(x):
    a = np.diag(x[0] + np.arange(4.0) * 2.0) + np.triu(np.outer(x[1], x[2]), 1)
    return np.sum(np.real(np.linalg.eigvals(a)) ** 2)


def tensor_inverse_and_solve(x):
    a = np.reshape(np.outer(x[0], x[0]) + 5.0 * np.eye(4), (4, 2, 2))
    b = np.reshape(np.outer(x[1], x[1]) + 5.0 * np.eye(4), (2, 2, 4))
    return np.sum(np.linalg.tensorinv(a, ind=1) ** 2) + np.sum(
        np.linalg.tensorsolve(b, x[2, :2] * np.ones((2, 2))) ** 2
    )


CASES = [
    fractional_parts,
    positives_extracted,
    arrays_broadcast,
    second_derivative_of_a_polynomial,
    eigenvalues,
    tensor_inverse_and_solve,
    norms_of_rows,
    softmax_down_columns,
    lambda_along_the_last_axis,
    softmax_in_three_dimensions,
    running_sums,
    running_products_from_an_initial_value,
    squares_from_an_iterator,
    remainders,
]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_gradient_tangent_and_hessian_product(f):
    v = np.linspace(-1.0, 1.0, X.size).reshape(X.shape)
    np.testing.assert_allclose(f(X), f(X))  # (the function runs as numpy does)
    expected = finite_differences(f, (X,), 0)
    np.testing.assert_allclose(nf.grad(f)(X), expected, rtol=1e-6, atol=1e-8)
    _, tangent = nf.jvp(f)(X, v)
    np.testing.assert_allclose(tangent, np.sum(expected * v), rtol=1e-6, atol=1e-8)
    along = gradient_along(nf.grad(f), (X,), 0, v)
    np.testing.assert_allclose(nf.hvp(f)(X, v), along, rtol=1e-5, atol=1e-7)


def test_apply_along_axis_gives_numpys_result_and_shape():
    def stacked(x):
        return np.apply_along_axis(lambda r: np.stack([r[0], r[1] * r[2]]), 1, x)

    made = nf.vjp(stacked)(X)[0]
    np.testing.assert_allclose(made, np.apply_along_axis(lambda r: [r[0], r[1] * r[2]], 1, X))


@pytest.mark.parametrize(
    "f",
    [running_sums, running_products_from_an_initial_value],
    ids=lambda f: f.__name__,
)
def test_as_autograd_differentiates_them(f):
    pytest.importorskip("autograd")
    from oracle import autograd_grad

    np.testing.assert_allclose(nf.grad(f)(X), autograd_grad(f, (X,), 0), rtol=1e-10)


def scaled_sum(row, s):
    return np.sum(row * s)


def passes_more_arguments(x):
    return np.sum(np.apply_along_axis(scaled_sum, 1, x, 2.0))


def test_more_arguments_for_the_function_applied_are_an_error_with_the_way_out():
    with pytest.raises(nf.SrcdiffError) as caught:
        nf.grad(passes_more_arguments)(X)
    assert caught.value.location.lineno == passes_more_arguments.__code__.co_firstlineno + 1
    assert "cannot call np.apply_along_axis: too many positional arguments" in str(caught.value)
    assert "(lambda row: g(row, s))" in str(caught.value)


def rows_mapped(g, x):
    return np.stack([g(row) for row in x])


def lambda_passed_to_a_function_mapping_it(x):
    return np.sum(rows_mapped(lambda row: row * row[0], x))


def test_a_lambda_passed_to_a_function_that_calls_it_in_a_comprehension():
    """The function taken in for the lambda calls it in a comprehension, lowered to a loop
    only after the function was inlined (it was 'a lambda is used as a value')."""
    f = lambda_passed_to_a_function_mapping_it
    np.testing.assert_allclose(nf.grad(f)(X), finite_differences(f, (X,), 0), rtol=1e-6)


def local_function_along_columns(x):
    def square(v):
        return v * v

    return np.sum(np.apply_along_axis(square, 0, x))


def test_a_local_function_applied_along_an_axis():
    f = local_function_along_columns
    np.testing.assert_allclose(nf.grad(f)(X), 2 * X, rtol=1e-12)


def toeplitz_and_circulant(x):
    t = scipy_linalg.toeplitz(x[0], x[1] * 2.0) @ x[2]
    return np.sum(t * t) + np.sum(scipy_linalg.circulant(x[0]) @ np.sin(x[1]))


@pytest.mark.skipif(scipy_linalg is None, reason="SciPy is an optional extra")
def test_scipys_structured_matrices():
    test_gradient_tangent_and_hessian_product(toeplitz_and_circulant)


@pytest.mark.parametrize(
    "name, args",
    [
        ("modf", (X * 2.3,)),
        ("extract", (X > 0, X)),
        ("polyder", (X[0], 2)),
        ("logaddexp.reduce", (X,)),
        ("logaddexp.reduce", (X * 900, 1)),
        ("logaddexp.reduce", (X, None)),
        pytest.param(  # (rows all -inf: -inf, as numpy's, by log(0), which warns)
            "logaddexp.reduce",
            (np.where(X < 1.0, -np.inf, X), 1),
            marks=pytest.mark.filterwarnings("ignore:divide by zero encountered in log"),
        ),
        ("logaddexp.accumulate", (X * 900,)),
        ("logaddexp.accumulate", (X, 1)),
        ("linalg.tensorinv", (np.reshape(np.outer(X[0], X[0]) + 5.0 * np.eye(4), (4, 2, 2)), 1)),
        (
            "linalg.tensorsolve",
            (np.reshape(np.outer(X[0], X[0]) + np.eye(4), (2, 2, 4)), X[:2, :2]),
        ),
    ],
)
def test_a_version_computes_what_numpy_does(name, args):
    from srcdiff.python_versions import python_version

    function = np
    for part in name.split("."):
        function = getattr(function, part)
    expected, got = function(*args), python_version(function)(*args)
    for e, g in zip(
        expected if isinstance(expected, tuple) else [expected],
        got if isinstance(expected, tuple) else [got],
    ):
        np.testing.assert_allclose(g, e, rtol=1e-12)


def eigenvalues_of_a_rotation(x):
    rotation = np.array([[0.0, -1.0], [1.0, 0.0]]) * x[0, 0]
    return np.sum(np.real(np.linalg.eigvals(rotation)))


def test_an_error_inside_a_version_names_the_users_line():
    with pytest.raises(nf.SrcdiffError) as caught:
        nf.grad(eigenvalues_of_a_rotation)(X)
    where = caught.value.location
    assert where.filename == __file__
    assert where.lineno == eigenvalues_of_a_rotation.__code__.co_firstlineno + 2
    assert "this one's are complex" in str(caught.value)
