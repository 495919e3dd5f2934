"""math's functions numpy has no ufunc for (erf, erfc, gamma, lgamma, remainder, dist) and
those its ufuncs' records cover, the NaN-ignoring quantiles (nanmedian, nanpercentile,
nanquantile), np.average with returned=True, and the dtype of the tangents of numpy's
statistics that compute float32 values in float64 (cov, a quantile at a list of q): each row
checked against central finite differences and autograd (its twins read
autograd.scipy.special for math, a sort for the quantiles, average written out:
helpers/autograd_twins.py) in reverse, forward and second order (tests/oracle.py)."""

import math

import numpy as np
import pytest

import srcdiff as nf
from gradcheck import numerical_grad
from oracle import Table, check_forward, check_grad_of_grad, check_hvp, check_reverse
from srcdiff import runtime

pytest.importorskip("autograd")
from helpers import autograd_twins  # noqa: E402  (it imports autograd)

AUTOGRAD_NAMES = {"math": autograd_twins.math, "np": autograd_twins.numpy}
TABLE = Table()
case = TABLE.case
rng = np.random.default_rng(20261204)
NO_JVP = {"forward": "autograd.scipy.special's erf, erfc and gammaln have no forward rule"}


def with_nans(*shape):
    """Values 0.3 apart (no ties) with a NaN at every fifth place."""
    values = rng.permutation(int(np.prod(shape))) * 0.3 + rng.uniform(0, 0.1, int(np.prod(shape)))
    values[2::5] = np.nan
    return values.reshape(shape)


# --- math's functions -------------------------------------------------------------------------


@case(0.7, autograd=NO_JVP)
def math_erf_erfc(x):
    return math.erf(x) * math.erfc(0.5 * x) + math.erf(x * x)


@case(-1.3, autograd=NO_JVP)
def math_erf_negative(x):
    return math.erfc(x) ** 2 - math.erf(2 * x)


@case(1.7, autograd=NO_JVP)
def math_gamma_lgamma(x):
    return math.lgamma(x) + math.gamma(x) * math.sin(x)


@case(-2.4, autograd=NO_JVP)
def math_gamma_lgamma_negative(x):
    return math.lgamma(x) * math.gamma(x)


@case(0.4)
def math_inverse_trigonometric(x):
    return math.asin(x) + math.acos(x / 2) * math.atanh(x) + math.acosh(2 + x * x)


@case(1.3)
def math_copysign_fmod_ldexp(x):
    return math.copysign(x, -1.0) * x + math.fmod(3 * x, 1.1) ** 2 + math.ldexp(x * x, 2)


@case(1.3)
def math_remainder(x):
    return math.remainder(3 * x, 1.1) * math.remainder(2.0, x)


@case(rng.normal(size=3))
def math_dist(x):
    return math.dist(x, 2 * x + 1) * math.dist([x[0], 1.0], [0.5, x[1]])


if hasattr(math, "cbrt"):  # (Python 3.11 and later)

    @case(1.3)
    def math_cbrt_exp2(x):
        return math.cbrt(x) * math.exp2(x)


@case(rng.normal(size=4), autograd=NO_JVP)
def math_over_array_elements(x):
    total = 0.0
    for i in range(len(x)):
        total = total + math.erf(x[i]) * math.lgamma(1.5 + x[i] ** 2)
    return total


# --- the NaN-ignoring quantiles ---------------------------------------------------------------


@case(with_nans(4, 3))
def nanmedian_axis(x):
    return np.sum(np.sin(np.nanmedian(x, axis=0)))


@case(with_nans(7))
def nanmedian_of_all(x):
    return np.sin(np.nanmedian(x)) * np.nanmedian(2 * x + 1) ** 2


@case(with_nans(3, 5))
def nanpercentile_list_of_q(x):
    return np.sum(np.sin(np.nanpercentile(x, [10, 60, 100], axis=1)))


@case(with_nans(2, 3, 4))
def nanquantile_axes_keepdims(x):
    return np.sum(np.cos(np.nanquantile(x, 0.3, axis=(0, 2), keepdims=True)) * x[:1, :, :1])


@case(with_nans(3, 4))
def nanquantile_methods(x):
    return (
        np.sum(np.nanquantile(x, [0.3, 0.5], axis=1, method="nearest") ** 2)
        + np.nanquantile(x, 0.7, method="lower") ** 2
        + np.sum(np.nanquantile(x, 0.3, axis=0, method="higher") ** 3)
        + np.nanquantile(x, 0.4, method="midpoint") ** 2
    )


@case(with_nans(3, 4).astype(np.float32))
def nanquantile_float32(x):
    return np.sum(np.tanh(np.nanquantile(x, [0.25, 0.75], axis=0)))


# --- np.average's pair (average, sum of weights) -----------------------------------------------


@case(rng.normal(size=(3, 4)), rng.uniform(0.5, 2.0, size=4))
def average_returned_in_the_values(x, w):
    mean, total = np.average(x, axis=1, weights=w, returned=True)
    return np.sum(np.sin(mean) * total)


@case(rng.normal(size=(3, 4)), rng.uniform(0.5, 2.0, size=4), wrt=1)
def average_returned_in_the_weights(x, w):
    mean, total = np.average(x, axis=1, weights=w, returned=True)
    return np.sum(np.sin(mean) * total**2)


@case(rng.normal(size=(2, 3)))
def average_returned_unweighted(x):
    pair = np.average(x, axis=0, returned=True)
    return np.sum(pair[0] ** 2 * pair[1])


@pytest.mark.parametrize("row", TABLE.params("reverse"))
def test_reverse(row):
    check_reverse(row)


@pytest.mark.parametrize("row", TABLE.params("forward"))
def test_forward(row):
    check_forward(row)


@pytest.mark.parametrize("row", TABLE.params("hvp"))
def test_hvp(row):
    check_hvp(row)


@pytest.mark.parametrize("row", TABLE.params("grad_of_grad"))
def test_grad_of_grad(row):
    check_grad_of_grad(row)


# --- what the table cannot show ---------------------------------------------------------------


def test_math_polygamma_is_scipys():
    special = pytest.importorskip("scipy.special")
    for n in range(4):
        for x in (0.01, 0.3, 1.7, 9.5, 40.0, -0.5, -2.5, -3.7):
            assert runtime.math_polygamma(n, x) == pytest.approx(
                float(special.polygamma(n, x)), rel=1e-11
            )


def nan_lines(x):  # (np.nansum: the line of NaNs' quantiles are NaN)
    return np.nansum(np.nanquantile(x, [0.2, 0.9], axis=0) ** 2) + np.nanmedian(x) ** 2


@pytest.mark.filterwarnings("ignore:All-NaN slice encountered:RuntimeWarning")
def test_nans_and_lines_of_nans_get_no_gradient():
    """Exactly 0 at each NaN, and all through a line that is NaN alone (numpy's value there
    is NaN), where the tangent is 0 too."""
    x = np.array([[1.0, np.nan, 3.0, 0.2], [2.0, np.nan, np.nan, 1.1], [0.5, np.nan, 1.0, 4.0]])
    g = nf.grad(nan_lines)(x)
    _, t = nf.jvp(lambda x: np.nanquantile(x, [0.2, 0.9], axis=0))(x, np.ones_like(x))
    assert np.all(g[np.isnan(x)] == 0) and np.all(np.isfinite(g))
    np.testing.assert_allclose(g[~np.isnan(x)], numerical_grad(nan_lines, [x], 0)[~np.isnan(x)])
    np.testing.assert_array_equal(t[:, 1], 0)


# numpy computes these in float64 from float32 values (cov always; a quantile at a list or an
# array of float64 q): the tangent is then float64 too, not float32
FLOAT32_CALLS = [
    "np.cov(x)",
    "np.cov(x, rowvar=False)",
    "np.corrcoef(x)",
    "np.quantile(x, [0.2, 0.5], axis=1)",
    "np.quantile(x, np.array([0.3, 0.6]), axis=0)",
    "np.quantile(x, 0.3)",
    "np.percentile(x, [20, 50])",
    "np.percentile(x, 20, axis=0)",
    "np.median(x, axis=0)",
    "np.average(x, axis=0)",
    "np.average(x, axis=1, weights=np.arange(1.0, 6.0))",
    "np.nanquantile(x * y, [0.2, 0.9], axis=0)",
    "np.nanpercentile(x * y, [20, 90])",
    "np.nanmedian(x * y, axis=1)",
]


@pytest.mark.parametrize("call", FLOAT32_CALLS)
def test_tangents_of_float32_statistics_follow_the_values_dtype(call, tmp_path):
    path = tmp_path / "float32_statistics.py"
    path.write_text(f"import numpy as np\n\n\ndef f(x, y):\n    return {call}\n")
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    f = namespace["f"]
    x = rng.normal(size=(3, 5)).astype(np.float32)
    y = np.where(rng.uniform(size=(3, 5)) < 0.2, np.nan, 1.0).astype(np.float32)
    value, tangent = nf.jvp(f)(x, y, np.ones_like(x))
    assert np.result_type(tangent) == np.result_type(value) == np.result_type(f(x, y))
    out, pullback = nf.vjp(f)(x, y)
    assert pullback(np.ones_like(out)).dtype == np.float32
    wide = x.astype(np.float64)
    expected = (f(wide + 1e-6, y) - f(wide - 1e-6, y)) / 2e-6
    np.testing.assert_allclose(tangent, expected, rtol=1e-4, atol=1e-4)
