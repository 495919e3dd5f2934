"""What the generated tests of tests/test_primitives.py cannot show of issue 14's numpy
coverage: constants passing through both modes, the gradient at ties and zeros, the errors
for what is not differentiated, helpers given only a shape, and agreement with autograd."""

import numpy as np
import pytest

import srcdiff as nf
from gradcheck import check_grad, numerical_grad
from oracle import autograd_twin, gradient_along
from srcdiff import runtime
from srcdiff.primitives import (
    arrays,
    helpers_arrays,
    helpers_statistics,
    products,
    registry,
    statistics,
)

# --- constants: no gradient, and no error, in either mode -------------------------------------


def through_argmax(x):
    return np.sum(np.sin(x * np.argmax(x) + x * np.argmin(x)))


def through_argsort(x):
    return np.sum(np.sin(x[np.argsort(x)]) * x)


def through_comparison(x):
    return np.sum(np.sin(x * (x > 0) + x * (x <= 0.5)))


def through_roundings(x):
    return np.sum(
        x * np.floor(x)
        + x * np.ceil(x)
        + x * np.round(x, 1)
        + x * np.rint(x)
        + x * np.trunc(x)
        + x * np.sign(x)
        + x * x.round()
    )


def through_tests_and_indices(x):
    kept = x[np.nonzero(x > 0)]
    return (
        np.sum(kept**2)
        + np.sum(x * np.isnan(x) + x * np.isinf(x) + x * np.isfinite(x))
        + np.sum(x * np.searchsorted(np.sort(x), x))
    )


def through_floor_division(x):  # (np.floor_divide's record declares the operator //)
    return np.sum(x * (x // 0.5) + x * np.floor_divide(x, 2.0) + (3.0 // x) * x**2)


def through_sizes(x):
    return np.sum(x * np.shape(x)[0] + x * np.size(x) + x * np.ndim(x))


CONSTANTS = [
    through_argmax,
    through_argsort,
    through_comparison,
    through_roundings,
    through_tests_and_indices,
    through_floor_division,
    through_sizes,
]


@pytest.mark.parametrize("f", CONSTANTS, ids=[f.__name__ for f in CONSTANTS])
def test_constants_pass_through_both_modes(f, rng):
    x = rng.normal(size=5)
    gradient = check_grad(f, x)[0]
    v = rng.normal(size=5)
    _, tangent = nf.jvp(f)(x, v)
    assert tangent == pytest.approx(np.sum(gradient * v), rel=1e-9)


def remainders(x):
    return np.sum((x % 0.7) * x + 2.5 % x + np.mod(x, 0.3) * x + np.floor_divide(x, 2.0) * x**2)


def test_floor_division_and_remainder_second_order(rng):
    """`x // y` was refused ('the operator // has no gradient') though np.floor_divide is
    declared a constant: activity now asks the registry about an operator's result. x % c
    has slope 1 in x, c % x slope -floor(c / x): gradient, tangent and H v against finite
    differences and autograd (which has no `//` of its own values)."""
    import autograd

    x, v = rng.uniform(0.2, 2.0, size=4), rng.normal(size=4)
    gradient = check_grad(remainders, x)[0]
    np.testing.assert_allclose(gradient, autograd.grad(autograd_twin(remainders))(x), rtol=1e-12)
    assert nf.jvp(remainders)(x, v)[1] == pytest.approx(np.sum(gradient * v), rel=1e-12)
    along = gradient_along(nf.grad(remainders), (x,), 0, v)
    np.testing.assert_allclose(nf.hvp(remainders)(x, v), along, rtol=1e-6, atol=1e-8)
    their_hvp = autograd.grad(
        lambda x: autograd.numpy.sum(autograd.grad(autograd_twin(remainders))(x) * v)
    )
    np.testing.assert_allclose(nf.hvp(remainders)(x, v), their_hvp(x), rtol=1e-12, atol=1e-12)


def draws(x):
    np.random.seed(0)
    return np.sum(
        x * np.random.normal(x, 0.1)
        + x * np.random.standard_cauchy(5)
        + x[np.random.permutation(5)] * np.random.default_rng(1).uniform(size=5)
    )


def test_random_draws_are_constants(rng):
    """A draw carries no gradient, even of its location (as in autograd)."""
    x = rng.normal(size=5)
    np.random.seed(0)
    first, second = np.random.normal(x, 0.1), np.random.standard_cauchy(5)
    order, weights = np.random.permutation(5), np.random.default_rng(1).uniform(size=5)
    expected = first + second
    np.add.at(expected, order, weights)
    np.testing.assert_allclose(nf.grad(draws)(x), expected)
    _, tangent = nf.jvp(draws)(x, np.ones(5))
    assert tangent == pytest.approx(np.sum(expected))


# --- ties, zeros and what each follows --------------------------------------------------------


def test_median_and_percentile_ties_share_evenly():
    def median(x):
        return np.median(x)

    np.testing.assert_allclose(nf.grad(median)(np.array([1.0, 2.0, 2.0])), [0, 0.5, 0.5])
    # (sorted 1 2 2 2: the mean of positions 1 and 2, all three 2s tied)
    np.testing.assert_allclose(
        nf.grad(median)(np.array([2.0, 1.0, 2.0, 2.0])), [1 / 3, 0, 1 / 3, 1 / 3]
    )

    def percentile(x):
        return np.percentile(x, 25)  # sorted position 1 of 5, a 1 tied with position 0

    np.testing.assert_allclose(
        nf.grad(percentile)(np.array([3.0, 1.0, 1.0, 5.0, 4.0])), [0, 0.5, 0.5, 0, 0]
    )


def test_sort_ties_follow_argsort():
    def f(x):
        return np.sum(np.sort(x) * np.array([1.0, 2.0, 3.0]))

    # np.argsort([2, 1, 2], kind="stable") is [1, 0, 2], as autograd's gradient takes it
    np.testing.assert_allclose(nf.grad(f)(np.array([2.0, 1.0, 2.0])), [2.0, 1.0, 3.0])


def test_cumprod_with_zeros_is_exact():
    def f(x):
        return np.sum(np.cumprod(x))

    x = np.array([2.0, 0.0, 3.0, 0.0])
    # f = x0 + x0 x1 + x0 x1 x2 + x0 x1 x2 x3, at x1 = x3 = 0
    np.testing.assert_allclose(nf.grad(f)(x), [1.0, 2 + 2 * 3.0, 0.0, 0.0])
    np.testing.assert_allclose(nf.hessian(f)(x)[1], [1 + 3.0, 0.0, 2.0, 2 * 3.0])


def test_nan_reductions_give_nans_no_gradient():
    def f(x):
        return np.nanmean(x) + np.nanstd(x) + np.nanmax(x)

    x = np.array([1.0, np.nan, 3.0, 2.0])
    g = nf.grad(f)(x)
    assert g[1] == 0 and np.all(np.isfinite(g))
    np.testing.assert_allclose(g, numerical_grad(f, [x], 0), atol=1e-6)


# --- what is not differentiated says so -------------------------------------------------------


def test_quantile_of_another_method_is_an_error():
    def f(x):
        return np.quantile(x, 0.5, method="weibull")

    with pytest.raises(nf.SrcdiffError, match="'nearest' and 'midpoint', not 'weibull'") as info:
        nf.grad(f)(np.arange(3.0))
    assert "hint: use one of those" in str(info.value)


def test_cov_with_y_is_an_error():
    def f(x):
        return np.sum(np.cov(x, np.ones(3)))  # (a differentiated y: "no gradient", at once)

    with pytest.raises(nf.SrcdiffError, match="without y") as info:
        nf.grad(f)(np.arange(3.0))
    assert "np.vstack([m, y])" in str(info.value)


def test_average_returning_the_weights_sum():
    """The pair's helpers (runtime.first_of and the like) fold away without returned=True:
    the code of a plain np.average is as it was."""

    def f(x, w):
        mean, total = np.average(x, weights=w, returned=True)
        return mean * total**2

    def plain(x, w):
        return np.average(x, weights=w)

    check_grad(f, np.arange(3.0), np.array([0.5, 1.0, 2.0]))
    assert "runtime.second_of" in nf.grad(f, wrt=(0, 1)).source
    assert "runtime.first_of" not in nf.grad(plain, wrt=(0, 1)).source
    assert "as_pair" not in nf.jvp(plain, wrt=(0, 1)).source


# --- helpers read some arguments only for their shape: a large array's is a ShapeOf -----------

MODULES = (arrays, helpers_arrays, helpers_statistics, products, statistics)
SHAPE_ONLY = [
    (record, sample)
    for record in registry.records()
    for sample in record.samples
    if record.shape_args
    and record.adjoint is not None
    and any(record.adjoint.module_globals is vars(m) for m in MODULES)
]


@pytest.mark.parametrize(
    "record, sample", SHAPE_ONLY, ids=[f"{r.name}-{k}" for k, (r, _) in enumerate(SHAPE_ONLY)]
)
def test_helpers_take_a_shape_for_what_they_read_only_for_its_shape(record, sample):
    """The reverse sweep keeps only runtime.shape_of of such an argument, which is a
    runtime.ShapeOf for arrays of more than 4096 elements (too many for a test sample)."""
    rng = np.random.default_rng(0)
    values = {name: make(rng) for name, make in sample.args.items()}
    call = sample.call.split("(", 1)[1]
    names = [a.strip() for a in call.split(",")]
    positions = {names[p]: p for p in record.shape_args if p < len(names)}
    shaped = {
        n: runtime.ShapeOf(v) if n in positions and isinstance(v, np.ndarray) else v
        for n, v in values.items()
    }
    scope = {"np": np, "runtime": runtime}
    np.testing.assert_array_equal(
        eval(sample.call, scope, shaped),  # noqa: S307
        eval(sample.call, scope, values),
    )  # noqa: S307


# --- autograd, where it differentiates the function too ---------------------------------------

# (autograd's gradient of np.diag of a matrix that is not square has the wrong shape)
AUTOGRAD = {
    "atleast_2d": "np.atleast_2d(x[0])",
    "vstack": "np.vstack([x, 2 * x])",
    "hstack": "np.hstack([x, x])",
    "column_stack": "np.column_stack([x[0], x[1]])",
    "array_split": "np.array_split(x, 2)[1]",
    "hsplit": "np.hsplit(x, 2)[0]",
    "repeat": "np.repeat(x, 2, 0)",
    "roll": "np.roll(x, 1, 1)",
    "rot90": "np.rot90(x)",
    "fliplr": "np.fliplr(x)",
    "moveaxis": "np.moveaxis(x, 0, 1)",
    "rollaxis": "np.rollaxis(x, 1)",
    "diag": "np.diag(x[:, :3])",
    "tril": "np.tril(x, 1)",
    "kron": "np.kron(x, x[:2, :2])",
    "select": "np.select([x > 0], [x])",
    "append": "np.append(x, x[0])",
    "diff": "np.diff(x, 2)",
    "inner": "np.inner(x, x)",
    "cross": "np.cross(x[:, :3], x[:, 1:])",
    "trace": "np.trace(x)",
    "einsum": "np.einsum('...j,j', x, x[0])",
}


@pytest.mark.parametrize("name", sorted(AUTOGRAD))
def test_agrees_with_autograd(name, tmp_path, rng):
    autograd = pytest.importorskip("autograd")
    source = (
        f"import numpy as np\n\n\ndef f(x):\n    return np.sum(np.sin({AUTOGRAD[name]}) ** 2)\n"
    )
    path = tmp_path / f"autograd_{name}.py"
    path.write_text(source)
    ours, theirs = {}, {"np": autograd.numpy}
    exec(compile(source, str(path), "exec"), ours)  # noqa: S102  (srcdiff reads the file)
    exec(compile(source.split("\n", 1)[1], "<autograd>", "exec"), theirs)  # noqa: S102
    f, g = ours["f"], theirs["f"]

    x, v = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    np.testing.assert_allclose(nf.grad(f)(x), autograd.grad(g)(x), rtol=1e-10)
    np.testing.assert_allclose(nf.jvp(f)(x, v)[1], np.sum(autograd.grad(g)(x) * v), rtol=1e-10)
    their_hvp = autograd.grad(lambda x: autograd.numpy.sum(autograd.grad(g)(x) * v))(x)
    np.testing.assert_allclose(nf.hvp(f)(x, v), their_hvp, rtol=1e-8, atol=1e-12)
