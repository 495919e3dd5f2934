"""A call into a library's function (numpy's, SciPy's, the standard library's: one installed
in site-packages or the stdlib) that srcdiff has no rule for is an error at the user's line that
names the function as the user wrote it and gives the ways out; srcdiff never differentiates
a library's own source (SciPy's logsumexp once failed inside _array_api_override.py)."""

import os
import statistics

import numpy as np
import pytest

import srcdiff as nf

try:
    import scipy.special
    import scipy.stats
except ImportError:
    scipy = None

HERE = os.path.abspath(__file__)


def line_of(snippet):
    with open(HERE) as f:
        for number, line in enumerate(f, 1):
            if snippet in line and "line_of(" not in line:
                return number
    raise AssertionError(snippet)


def mean_of_the_stdlib(x):
    return statistics.fmean(x)


def test_a_library_function_without_a_rule_is_an_error_at_the_users_line():
    with pytest.raises(nf.NoAdjointError) as error:
        nf.grad(mean_of_the_stdlib)(np.ones(3))
    text = str(error.value)
    assert text.startswith(f"{HERE}:{line_of('return statistics.fmean(x)')}: "), text
    assert "no adjoint is registered for statistics.fmean" in text
    assert "@srcdiff.adjoint(statistics.fmean)" in text and "write the computation" in text


def test_with_a_rule_it_is_differentiated():
    @nf.adjoint(statistics.fmean)
    def fmean_adjoint(bz, z, data, weights=None):
        bdata = bz * np.ones_like(data) / len(data)

    np.testing.assert_allclose(nf.grad(mean_of_the_stdlib)(np.ones(4)), np.full(4, 0.25))


def dawsn_of(x):
    return np.sum(scipy.special.dawsn(x))


def skewnorm_of(x):
    return np.sum(scipy.stats.skewnorm.logpdf(x, 2.0))


@pytest.mark.skipif(scipy is None, reason="SciPy is not installed")
@pytest.mark.parametrize(
    "fn, spelling",
    [(dawsn_of, "scipy.special.dawsn"), (skewnorm_of, "scipy.stats.skewnorm.logpdf")],
)
def test_a_scipy_function_without_a_rule_is_named_as_the_user_wrote_it(fn, spelling):
    """(a ufunc of SciPy's is no numpy function; a distribution's method is a bound method,
    named by the distribution it belongs to, not by rv_continuous.logpdf)"""
    with pytest.raises(nf.NoAdjointError) as error:
        nf.grad(fn)(np.ones(3))
    text = str(error.value)
    assert text.startswith(f"{HERE}:{line_of(f'return np.sum({spelling}(')}: "), text
    assert f"no adjoint is registered for {spelling}\n" in text
    assert f"@srcdiff.adjoint({spelling})" in text
