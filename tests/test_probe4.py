"""Regressions found by the fourth probe (srcdiff vs central differences and autograd on
small functions written as published numpy code is): each asserts numbers or an error's
message and location."""

import numpy as np
import pytest

import srcdiff as nf
from oracle import finite_differences, gradient_along


def second_order_checks(f, x, v):
    """f's gradient, hvp and reverse-over-reverse against central differences."""
    gradient = nf.grad(f)
    np.testing.assert_allclose(gradient(x), finite_differences(f, (x,), 0), rtol=1e-6, atol=1e-8)
    expected = gradient_along(gradient, (x,), 0, v)
    np.testing.assert_allclose(nf.hvp(f)(x, v), expected, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(nf.vjp(gradient)(x)[1](v), expected, rtol=1e-5, atol=1e-7)


def rows_made_an_array_and_summed_as_lists(x):
    rows = [[x[0], x[1]], [x[2], x[3]]]
    return np.sum(np.array(rows) ** 3) + sum(sum(row) ** 2 for row in rows)


def test_an_array_made_of_a_list_read_as_a_list_too_has_a_second_derivative():
    """The list's adjoint is a Sparse of rows and np.array(rows)'s an array: the second
    order's adjoint of that array reached runtime.cast_grad as a Sparse (a raw TypeError)."""
    x, v = np.array([0.3, -1.2, 0.7, 2.0]), np.array([1.0, -0.5, 2.0, 0.25])
    second_order_checks(rows_made_an_array_and_summed_as_lists, x, v)


def rows_made_an_array_and_one_read_as_a_list(x):
    rows = [[x[0], x[1]], [x[2], x[3]]]
    return np.sum(np.array(rows) ** 3) + sum(rows[0]) * x[3]


def test_an_array_made_of_a_list_with_a_row_read_has_a_second_derivative():
    x, v = np.array([0.3, -1.2, 0.7, 2.0]), np.array([1.0, -0.5, 2.0, 0.25])
    second_order_checks(rows_made_an_array_and_one_read_as_a_list, x, v)


def entries_chosen_by_indices_of_x(x):
    upper = x[np.triu_indices_from(x, 1)]
    return np.sum(upper**2) + np.sum(x[np.diag_indices_from(x)] ** 3) + x.ravel()[np.nanargmax(x)]


def test_indices_read_off_a_differentiated_array_are_constants_in_second_order():
    """np.triu_indices_from(x) and np.nanargmax(x) had no record: the gradient, which reads
    them again, was refused in hvp and grad of grad (no adjoint for a function of x)."""
    x = np.array([[0.3, -1.2, 0.5], [0.7, 2.0, -0.4], [1.1, 0.2, -0.8]])
    v = np.array([[1.0, -0.5, 0.2], [2.0, 0.25, 0.1], [-0.3, 0.6, 1.5]])
    second_order_checks(entries_chosen_by_indices_of_x, x, v)
