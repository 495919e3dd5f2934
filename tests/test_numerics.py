"""What the generated tests of tests/test_primitives.py cannot show of numpy's numerical
routines and the newer primitives: numpy's windows of np.convolve and np.correlate for every
pair of lengths, and the errors for what is not differentiated."""

import numpy as np
import pytest
import scipy.special

import srcdiff as nf
from gradcheck import check_grad


def convolutions(a, v):
    total = 0.0
    for mode in ("full", "same", "valid"):
        total = total + np.sum(
            np.sin(np.convolve(a, v, mode))
            * np.arange(1.0, 1 + max(len(a), len(v)) * 2)[: len(np.convolve(a, v, mode))]
        )
    return total


def correlations(a, v):
    same = np.correlate(a, v, "same")
    valid = np.correlate(a, v, "valid")
    full = np.correlate(a, v, "full")
    return (
        np.sum(np.sin(same) * np.cos(np.arange(len(same))))
        + np.sum(valid**3)
        + np.sum(full * np.arange(len(full)))
    )


@pytest.mark.parametrize("n, m", [(1, 4), (2, 5), (3, 3), (4, 2), (5, 1), (6, 4)])
def test_convolve_and_correlate_windows_of_every_length(n, m):
    rng = np.random.default_rng(n * 10 + m)
    a, v = rng.normal(size=n), rng.normal(size=m)
    check_grad(convolutions, a, v, wrt=(0, 1), rtol=1e-5, atol=1e-6)
    check_grad(correlations, a, v, wrt=(0, 1), rtol=1e-5, atol=1e-6)


def test_gammainc_in_a_is_an_error():
    def f(a, x):
        return np.sum(scipy.special.gammainc(a, x))

    with pytest.raises(
        nf.SrcdiffError, match="no gradient with respect to its argument 'a'"
    ) as info:
        nf.grad(f, wrt=(0, 1))(np.array([1.5]), np.array([0.5]))
    assert "scipy.special.gammainc(a, x)" in str(info.value)


def zeta_of_both(x, q):
    return np.sum(scipy.special.zeta(x, q))  # the refused line


def test_zeta_in_x_is_an_error_at_the_users_line():
    with pytest.raises(nf.SrcdiffError) as info:
        nf.grad(zeta_of_both, wrt=(0, 1))(np.array([2.5]), np.array([0.5]))
    error = info.value
    assert "no gradient with respect to its argument 'x'" in error.message
    assert "make 'x' a constant" in error.hint
    assert error.location.filename == __file__
    assert "the refused line" in error.location.line
    check_grad(zeta_of_both, np.array([2.5, 4.0]), np.array([0.5, 1.5]), wrt=1)


def test_interp_in_xp_follows_the_line_through_the_knots():
    """(it was an error: xp was read as a constant)"""

    def f(x, xp):
        return np.sum(np.interp(x, xp, np.array([0.0, 1.0, 4.0])) ** 2)

    check_grad(f, np.array([0.5, 1.3, 2.5, -0.5]), np.array([0.0, 1.1, 2.0]), wrt=(0, 1))


def test_interp_with_a_period_is_an_error():
    def f(x):
        return np.sum(np.interp(x, [0.0, 1.0, 2.0], [0.0, 1.0, 4.0], period=2.0))

    with pytest.raises(nf.SrcdiffError, match="without period") as info:
        nf.grad(f)(np.array([0.5, 2.5]))
    assert "x % period" in str(info.value)


def test_gradient_over_several_axes_is_an_error():
    def f(x):
        return np.sum(np.gradient(x, axis=1) * np.gradient(x, 2.0, axis=(0, 1))[0])

    with pytest.raises(nf.SrcdiffError, match="along one axis only") as info:
        nf.grad(f)(np.ones((3, 3)))
    assert "axis=k" in str(info.value)


def test_gradient_of_coordinates_is_an_error():
    def f(x):
        return np.sum(np.gradient(x, np.array([0.0, 1.0, 3.0])))

    with pytest.raises(nf.SrcdiffError, match="not coordinates"):
        nf.grad(f)(np.ones(3))


def test_put_along_axis_of_no_axis_is_an_error():
    def f(x):
        y = np.zeros(3)
        np.put_along_axis(y, np.array([0, 2]), x, axis=None)  # (into y flattened)
        return np.sum(y)

    with pytest.raises(nf.SrcdiffError, match="put_along_axis"):
        nf.grad(f)(np.ones(2))


def test_corrcoef_with_y_is_an_error():
    def f(x):
        return np.sum(np.corrcoef(x, np.ones(3) + np.arange(3.0) ** 2))

    with pytest.raises(nf.SrcdiffError, match="without y"):
        nf.grad(f)(np.arange(3.0))
