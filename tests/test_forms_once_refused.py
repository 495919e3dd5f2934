"""Ordinary forms srcdiff once refused with a located error, now followed: each a row
checked as tests/test_oracle.py checks its rows, in reverse mode, forward mode, hvp and
reverse over reverse (the vjp of the gradient) against central finite differences in
float64, and against autograd where autograd can run it."""

import itertools
import math

import numpy as np
import pytest

import srcdiff as nf
from oracle import (
    Table,
    assert_close,
    check_forward,
    check_grad_of_grad,
    check_hvp,
    check_reverse,
)

pytest.importorskip("autograd")

TABLE = Table()
case = TABLE.case
rng = np.random.default_rng(20261204)
NO_DIFF_ENDS = "autograd's np.diff does not take prepend= and append="


# --- np.diff with differentiated prepend and append ----------------------------------------------


def diff_with_ends(x, first, last):
    return np.sum(np.sin(np.diff(x, prepend=first, append=last)) ** 2)


case(rng.normal(size=4), 0.3, rng.normal(size=1), autograd=NO_DIFF_ENDS)(diff_with_ends)
case(rng.normal(size=4), 0.3, rng.normal(size=1), wrt=1, autograd=NO_DIFF_ENDS)(diff_with_ends)
case(rng.normal(size=4), 0.3, rng.normal(size=1), wrt=2, autograd=NO_DIFF_ENDS)(diff_with_ends)


def second_diff_along_rows(ends, x):
    """n=2 along axis 0, prepend two rows, append a scalar laid along the whole end."""
    steps = np.diff(x, 2, axis=0, prepend=np.tanh(ends[:2]), append=ends[2, 0] * ends[2, 1])
    return np.sum(np.cos(steps) * np.arange(steps.size).reshape(steps.shape))


case(rng.normal(size=(3, 3)), rng.normal(size=(4, 3)), autograd=NO_DIFF_ENDS)(
    second_diff_along_rows
)


def test_diff_with_ends_agrees_with_autograd_on_the_ends_concatenated():
    """autograd runs np.diff(np.concatenate([first, x, last])), the same function."""
    import autograd
    import autograd.numpy as anp

    def concatenated(x, first, last):
        return anp.sum(anp.sin(anp.diff(anp.concatenate([anp.reshape(first, 1), x, last]))) ** 2)

    args = (rng.normal(size=4), 0.3, rng.normal(size=1))
    for wrt in range(3):
        ours = nf.grad(diff_with_ends, wrt=wrt)(*args)
        assert_close(ours, autograd.grad(concatenated, wrt)(*args), 1e-12, 1e-14, "vs autograd")


# --- np.mean, np.var and np.std over a mask (where=) --------------------------------------------

NO_WHERE = "autograd's mean, var and std take no where="
MASK = np.array([[True, False, True, True], [True, True, False, True], [False, True, True, True]])


@case(rng.normal(size=(3, 4)), autograd=NO_WHERE)
def statistics_over_a_mask(x):
    return (
        np.mean(np.sin(x), where=MASK) * np.var(x, where=MASK)
        + np.sum(np.std(x * x, axis=1, where=MASK, keepdims=True) ** 2)
        + np.sum(np.var(np.tanh(x), axis=0, ddof=1, where=MASK[:, :1]) * [1.0, 2.0, 3.0, 4.0])
    )


@case(rng.normal(size=(3, 4)), autograd=NO_WHERE)
def mean_over_a_mask_of_its_own_values(x):
    """The mask is made of x (all but each column's least, all but its greatest): constant
    where it is taken."""
    return np.mean(x**3, axis=0, where=x > np.min(x, axis=0)).sum() + np.mean(
        x * x, where=x < np.max(x)
    )


def test_statistics_over_a_mask_agree_with_autograd_on_the_mask_written_out():
    """autograd runs the sums over the mask the statistics stand for."""
    import autograd
    import autograd.numpy as anp

    def written_out(x):
        def mean(v, axis=None, keepdims=False):
            m = np.broadcast_to(MASK, v.shape)
            return anp.sum(v * m, axis=axis, keepdims=keepdims) / np.sum(m, axis, keepdims=keepdims)

        def var(v, axis=None, keepdims=False, ddof=0):
            m = np.broadcast_to(MASK if axis != 0 or ddof == 0 else MASK[:, :1], v.shape)
            centred = (v - anp.sum(v * m, axis, keepdims=True) / np.sum(m, axis, keepdims=True)) * m
            return anp.sum(centred**2, axis, keepdims=keepdims) / (
                np.sum(m, axis, keepdims=keepdims) - ddof
            )

        return (
            mean(anp.sin(x)) * var(x)
            + anp.sum(var(x * x, axis=1, keepdims=True))
            + anp.sum(var(anp.tanh(x), axis=0, ddof=1) * anp.array([1.0, 2.0, 3.0, 4.0]))
        )

    x = rng.normal(size=(3, 4))
    assert_close(written_out(x), statistics_over_a_mask(x), 1e-12, 1e-14, "the same function")
    ours = nf.grad(statistics_over_a_mask)(x)
    assert_close(ours, autograd.grad(written_out)(x), 1e-10, 1e-12, "vs autograd")


# --- math.fsum of differentiated floats, as sum ------------------------------------------------

NO_FSUM = "math.fsum takes autograd's boxes as plain floats"


@case(rng.normal(size=3), autograd=NO_FSUM)
def fsum_of_a_list_and_of_an_array(x):
    return math.fsum([np.sin(x[0]), x[1] * x[2], x[0]]) * math.fsum(x**2)


@case(0.4, rng.normal(size=(2, 3)), wrt=0, autograd=NO_FSUM)
def fsum_of_rows_read_in_a_loop(scale, x):
    total = 0.0
    for row in x:
        total += math.fsum(np.tanh(scale * row))
    return total * scale


# --- np.logaddexp.reduce and .accumulate, as logsumexp and a running logsumexp -------------------

NO_UFUNC_METHODS = "autograd's np.logaddexp has no reduce or accumulate"


@case(rng.normal(size=(3, 4)), autograd=NO_UFUNC_METHODS)
def logaddexp_reduced(x):
    return (
        np.sum(np.sin(np.logaddexp.reduce(x, axis=1)))
        + np.logaddexp.reduce(2 * x, axis=None)
        + np.sum(np.logaddexp.reduce(x, keepdims=True) ** 2 * [1.0, 2.0, 3.0, 4.0])
    )


@case(rng.normal(size=(3, 4)), autograd=NO_UFUNC_METHODS)
def logaddexp_accumulated(x):
    return np.sum(np.cos(np.logaddexp.accumulate(x, axis=1))) + np.sum(
        np.logaddexp.accumulate(x) ** 2 * np.arange(12.0).reshape(3, 4)
    )


@case(800 * rng.normal(size=5), autograd=NO_UFUNC_METHODS)
def logaddexp_of_terms_whose_exp_overflows(x):
    return np.logaddexp.reduce(x) + np.sum(np.tanh(np.logaddexp.accumulate(x) / 800))


def test_logaddexp_methods_agree_with_autograd_on_logsumexp_written_out():
    """autograd runs the same functions as logsumexp of the whole rows and of each prefix."""
    import autograd
    import autograd.numpy as anp
    from autograd.scipy.special import logsumexp

    def written_out(x):
        prefixes = anp.stack([logsumexp(x[:, : k + 1], axis=1) for k in range(4)], axis=1)
        return anp.sum(anp.sin(logsumexp(x, axis=1))) + anp.sum(anp.cos(prefixes))

    def ours(x):
        return np.sum(np.sin(np.logaddexp.reduce(x, axis=1))) + np.sum(
            np.cos(np.logaddexp.accumulate(x, axis=1))
        )

    x = rng.normal(size=(3, 4))
    assert_close(ours(x), written_out(x), 1e-12, 1e-14, "the same function")
    assert_close(nf.grad(ours)(x), autograd.grad(written_out)(x), 1e-10, 1e-12, "vs autograd")


def test_logaddexp_reduce_stays_finite_where_exp_overflows():
    x = np.array([1000.0, 999.0, -1000.0])
    weights = np.exp(x - np.logaddexp.reduce(x))  # the softmax of x
    assert_close(nf.grad(lambda x: np.logaddexp.reduce(x))(x), weights, 1e-12, 1e-14, "softmax")


# --- itertools.product over differentiated values, as nested loops ------------------------------


def products_of_pairs(x, y):
    total = 0.0
    for a, b in itertools.product(x, y):
        total = total + np.sin(a * b)
    return total


case(rng.normal(size=3), rng.normal(size=2))(products_of_pairs)
case(rng.normal(size=3), rng.normal(size=2), wrt=1)(products_of_pairs)


@case(rng.normal(size=2))
def product_of_a_list_with_itself_repeated(x):
    terms = [np.tanh(x[0]), x[0] * x[1], 0.5]
    return sum([a * b - c for a, b, c in itertools.product(terms, repeat=3)])


def product_of_rows_and_a_range(x, scale):
    total = 0.0
    for row, k in itertools.product(x, range(2)):
        total = total + np.sum(np.cos(scale * row) * (k + 1.0)) * row[k]
    return total


@case(rng.normal(size=3), rng.normal(size=2))
def product_of_a_generator_and_an_array(x, y):
    return sum([a / (1.0 + b**2) for a, b in itertools.product((np.exp(v) for v in x), y)])


case(rng.normal(size=(2, 3)), 0.7)(product_of_rows_and_a_range)
case(rng.normal(size=(2, 3)), 0.7, wrt=1)(product_of_rows_and_a_range)


# --- the checks ----------------------------------------------------------------------------------


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
    """The vjp of the gradient (reverse over reverse: H u)."""
    check_grad_of_grad(row)
