"""Specialised code of np.linalg's and scipy.linalg's derivatives (issue 21): the adjoints of
slogdet, det, solve, triangular solves and transposes become the numpy a person writes, a
tuple's adjoint is read where it was placed, and a check of an unpacking of known length
goes. The suite runs in check mode (conftest.py), so each call below also compares the
variant with the generic code, element for element; here the numbers are checked against
finite differences and autograd, in float64, float32 and complex, in reverse and second
order."""

import importlib.util
import pathlib
import re

import numpy as np
import pytest
import scipy.linalg

import srcdiff as nf
from gradcheck import check_grad

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")
autograd_scipy_linalg = pytest.importorskip("autograd.scipy.linalg")


def gp(a, y):
    k = a @ a.T + 3 * np.eye(3)
    factor = np.linalg.cholesky(k)
    alpha = scipy.linalg.solve_triangular(factor, y, lower=True)
    sign, logdet = np.linalg.slogdet(k)
    return 0.5 * alpha @ alpha + 0.5 * logdet


def det_inv(a, y):
    m = a + 3 * np.eye(3, dtype=a.dtype)
    return np.linalg.det(m) ** 2 + np.sum(np.linalg.inv(m) ** 2) + np.trace(m) * np.sum(y)


def solves(a, y):
    m = a + 3 * np.eye(3, dtype=a.dtype)
    return np.sum(np.sin(np.linalg.solve(m, y))) + np.sum(np.linalg.solve(m.T, np.outer(y, y)))


def logdet_of_stack(a, y):
    sign, logdet = np.linalg.slogdet(a[None] * y[:2, None, None] + 3 * np.eye(3))
    return np.sum(logdet**2)


def complex_det_inv_solve(a, y):
    m = (a + 3 * np.eye(3)) * (1 + 0.5j)
    return (
        np.abs(np.linalg.det(m)) ** 2
        + np.sum(np.abs(np.linalg.inv(m)) ** 2)
        + np.sum(np.abs(np.linalg.solve(m, y)) ** 2)
    )


def cholesky_solves(a, y):
    c, low = scipy.linalg.cho_factor(a @ a.T + 3 * np.eye(3), lower=True)
    factor = scipy.linalg.cho_factor(a.T @ a + 2 * np.eye(3))
    return np.sum(scipy.linalg.cho_solve((c, low), y) ** 2) + np.sum(
        np.sin(scipy.linalg.cho_solve(factor, y))
    )


FUNCTIONS = [gp, det_inv, solves, logdet_of_stack, complex_det_inv_solve]


def _in_autograd(f):
    scope = dict(f.__globals__, np=anp, scipy=_AutogradScipy)
    return type(f)(f.__code__, scope, f.__name__)


class _AutogradScipy:
    linalg = autograd_scipy_linalg


def _args(rng, dtype=np.float64):
    return rng.normal(size=(3, 3)).astype(dtype), rng.uniform(0.5, 1.5, size=3).astype(dtype)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_specialised_gradients_agree_with_finite_differences_and_autograd(f, rng):
    a, y = _args(rng)
    check_grad(f, a, y, wrt=(0, 1), rtol=1e-6, atol=1e-8)
    if f is complex_det_inv_solve:
        return  # (autograd cannot add the complex adjoint of y to a real one)
    ours = nf.grad(f, wrt=(0, 1))(a, y)
    theirs = autograd.grad(_in_autograd(f), (0, 1))(a, y)
    for g, expected in zip(ours, theirs):
        np.testing.assert_allclose(g, expected, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_second_order_through_specialised_code_agrees_with_autograd(f, rng):
    a, y = _args(rng)
    v = rng.normal(size=a.shape)
    hvp = nf.hvp(f, wrt=0)(a, y, v)
    expected = autograd.hessian_vector_product(_in_autograd(f))(a, y, v)
    np.testing.assert_allclose(hvp, expected, rtol=1e-7, atol=1e-9)
    _, pullback = nf.vjp(nf.grad(f), wrt=0)(a, y)  # reverse over reverse: H v too
    np.testing.assert_allclose(pullback(v), expected, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("f", [gp, det_inv, solves, logdet_of_stack], ids=lambda f: f.__name__)
def test_float32_arguments_get_float32_gradients_close_to_float64(f, rng):
    a, y = _args(rng)
    wide = nf.grad(f, wrt=(0, 1))(a, y)
    narrow = nf.grad(f, wrt=(0, 1))(a.astype(np.float32), y.astype(np.float32))
    for g, expected in zip(narrow, wide):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, expected, rtol=2e-3, atol=2e-3)


def test_slogdet_of_a_complex_matrix_is_still_refused_in_specialised_code(rng):
    def f(a):
        return np.linalg.slogdet(a * (1 + 1j))[1]

    with pytest.raises(nf.SrcdiffError, match="real matrices only"):
        nf.grad(f)(rng.normal(size=(3, 3)) + 3 * np.eye(3))


def _specialised(f, *args):
    return nf.grad(f, wrt=(0, 1)).source_for(*args)


def test_slogdets_adjoint_is_the_inverse_transposed_and_the_pair_is_not_kept(rng):
    a, y = _args(rng)
    source = _specialised(gp, a, y)
    assert "blogdet * np.linalg.inv(k).T" in source
    for gone in ("check_unpack", "slogdet_vjp", "getitem_grad", "unbroadcast", "slogdet("):
        assert gone not in source  # (the gradient needs no log-determinant itself)
    assert "bfactor = -np.tril(np.outer(scipy.linalg.solve_triangular(factor, balpha," in source
    assert re.findall(r"runtime\.\w+", source) == ["runtime.cholesky_vjp"]  # (its own lines)


def test_det_inv_and_solve_adjoints_read_as_numpy(rng):
    a, y = _args(rng)
    source = _specialised(det_inv, a, y)
    assert "runtime." not in source
    assert "np.linalg.inv(m).T" in source
    source = _specialised(solves, a, y)
    assert "solve_vjp" not in source and "unbroadcast" not in source
    assert "-np.outer(np.linalg.solve(m.T, " in source and "@ _t" in source


def test_cho_factors_flag_is_known_and_its_triangle_read_with_tril_or_triu(rng):
    """cho_factor returns the flag `lower` it was passed: a constant of the specialised code,
    so the factor's triangle is read as numpy (np.tril(c), np.triu(c).T), not by a helper
    deciding at run time; so are the transposes and products after it."""
    a, y = _args(rng)
    check_grad(cholesky_solves, a, y, wrt=(0, 1), rtol=1e-6, atol=1e-8)
    v, eps = rng.normal(size=a.shape), 1e-5  # (autograd has no cho_factor: differences)
    gradient = nf.grad(cholesky_solves)
    expected = (gradient(a + eps * v, y) - gradient(a - eps * v, y)) / (2 * eps)
    np.testing.assert_allclose(nf.hvp(cholesky_solves)(a, y, v), expected, rtol=1e-5, atol=1e-7)
    _, pullback = nf.vjp(gradient, wrt=0)(a, y)
    np.testing.assert_allclose(pullback(v), expected, rtol=1e-5, atol=1e-7)
    source = _specialised(cholesky_solves, a, y)
    for gone in ("lower_factor", "factor_part", "unbroadcast", "matmul_grad", "as_grad"):
        assert gone not in source
    assert "@ np.tril(c)" in source and "np.triu(factor[0]).T" in source


def diagonal_and_transpose(a, y):
    return np.sum(np.diagonal(a) * y) + np.sum(np.sin(a.T) * y)


def test_the_adjoints_of_a_diagonal_and_a_transpose_read_as_numpy(rng):
    a, y = _args(rng)
    check_grad(diagonal_and_transpose, a, y, wrt=(0, 1))
    source = _specialised(diagonal_and_transpose, a, y)
    assert "runtime." not in source
    assert "np.diag(" in source and ".T\n" in source


def test_the_gp_examples_specialised_gradient_keeps_no_pair_machinery():
    path = pathlib.Path(__file__).parent.parent / "generated_examples"
    source = (path / "gp_marginal_likelihood_grad_specialised.py").read_text()
    for gone in ("runtime.check_unpack", "runtime.slogdet_vjp", "np.linalg.slogdet"):
        assert gone not in source
    assert "bk = blogdet * np.linalg.inv(k).T" in source
    spec = importlib.util.spec_from_file_location("gp", path / "gp_marginal_likelihood.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    args = module.example(np.random.default_rng(0))
    check_grad(module.gp_marginal_likelihood, *args, wrt=(0,), rtol=1e-6, atol=1e-8)


def test_a_returned_tuple_is_unpacked_into_the_names_its_items_go_to(rng):
    a, y = _args(rng)
    source = nf.value_and_grad(gp, wrt=0).source_for(a, y)
    assert "logdet = np.linalg.slogdet(k)[1]\n" in source  # (its sign: read by none)

    def eigh(a):
        w, v = np.linalg.eigh(a + a.T)
        return np.sum(w**2) + np.sum(v**2 * w)

    check_grad(eigh, a)
    source = nf.grad(eigh).source_for(a)
    assert "w, v = np.linalg.eigh(" in source and "runtime.eigh_vjp((bw, bv), (w, v))" in source
    assert "check_unpack" not in source and "getitem_grad" not in source and "add_at" not in source

    def qr_once(a):  # (r's adjoint only: none for q)
        q, r = np.linalg.qr(a)
        return np.sum(r**2)

    check_grad(qr_once, a)
    assert "runtime.qr_vjp((None, br), " in nf.grad(qr_once).source_for(a)


def test_a_complex_solves_adjoint_rounds_as_the_generic_code_does():
    """Of a complex matrix and one right-hand side, the adjoint stays the generic product
    of a column and a row (np.outer rounded some elements apart: check mode compares bits)."""

    def f(a, y):
        return np.sum(np.abs(np.linalg.solve(a * (1 + 1j), y)) ** 2)

    for seed in range(12):
        a, y = _args(np.random.default_rng(seed))
        nf.grad(f, wrt=(0, 1))(a, y)  # (raises where the variant's bits differ)
    assert "runtime.solve_vjp_a" in nf.grad(f, wrt=(0, 1)).source_for(a, y)
