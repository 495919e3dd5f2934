"""np.linalg and np.fft: srcdiff against autograd (gradients and Hessian-vector products)
where autograd has the function, and the behaviour the registry's samples cannot show: the
symmetric gradients of cholesky and eigh, ties, unsupported options, real gradients through
complex spectra."""

import inspect
import types

import numpy as np
import pytest

import srcdiff as nf
from gradcheck import check_grad

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")


def det(a):
    return np.linalg.det(a) + np.sum(np.linalg.slogdet(a)[1])


def solve_inv(a, b):
    return np.sum(np.sin(np.linalg.solve(a, b))) + np.sum(np.linalg.inv(a) ** 2)


def pinv(c):
    return np.sum(np.sin(np.linalg.pinv(c)))


def cholesky(a):
    return np.sum(np.sin(np.linalg.cholesky(a @ a.T + 3 * np.eye(3))))


def eigh(a):
    w, v = np.linalg.eigh(a + a.T)
    return np.sum(w**3) + np.sum(v**2 * np.arange(3.0))


def svd(c):
    u, s, vh = np.linalg.svd(c, full_matrices=False)
    return np.sum(u**2 * np.arange(3.0)) + np.sum(s**3) + np.sum(np.sin(vh) ** 2)


def singular_values_alone(c):
    s = np.linalg.svd(c, compute_uv=False)
    return np.sum(s**3) + np.sum(np.sqrt(s))


def ffts(x):
    spectrum = np.fft.fft(x) * np.fft.ifft(x[::-1], norm="ortho")
    planes = np.fft.fft2(x.reshape(2, 3)) + np.fft.ifftn(x.reshape(2, 3), axes=(0,))
    return np.sum(np.abs(spectrum) ** 2) + np.sum(np.real(planes) * np.imag(planes))


def real_ffts(x):
    half = np.fft.rfft(x) * (1 + 2j)
    back = np.fft.irfft(half, norm="ortho") + np.fft.fftshift(x)
    grid = np.fft.irfft2(np.fft.rfft2(x.reshape(2, 3), s=(2, 4)) ** 2)
    return np.sum(back**2) + np.sum(np.sin(grid)) + np.sum(np.abs(np.fft.rfftn(x)))


def eig(e):
    # (eigenvectors to the fourth power and weighed: their signs are arbitrary)
    w, v = np.linalg.eig(e)
    return np.sum(np.sin(w)) + np.sum(v**4 * np.arange(1.0, 4.0))


def _in_autograd(f):
    return types.FunctionType(f.__code__, {"np": anp}, f.__name__)


CASES = [
    (det, "a"),
    (solve_inv, "ab"),
    (pinv, "c"),
    (cholesky, "a"),
    (eigh, "a"),
    (eig, "e"),
    (svd, "c"),
    (singular_values_alone, "c"),
    (ffts, "x"),
    (real_ffts, "x"),
]


def _arguments(names, rng):
    makers = {
        "a": lambda: rng.normal(size=(3, 3)) + 3 * np.eye(3),
        "b": lambda: rng.normal(size=(3, 2)),
        "c": lambda: rng.normal(size=(4, 3)),
        "x": lambda: rng.normal(size=6),
        "e": lambda: _real_eigenvalues(rng),
    }
    return [makers[name]() for name in names]


def _real_eigenvalues(rng):
    """A matrix with real, distinct eigenvalues, not symmetric: a product of two symmetric
    positive definite ones."""
    m, n = rng.normal(size=(2, 3, 3))
    return (m @ m.T + np.eye(3)) @ (n @ n.T + np.eye(3))


@pytest.mark.parametrize("f, names", CASES, ids=[f.__name__ for f, _ in CASES])
def test_agrees_with_autograd(f, names, rng):
    args = _arguments(names, rng)
    wrt = tuple(range(len(args)))
    theirs = autograd.grad(_in_autograd(f), wrt)(*args)
    for mine, expected in zip(nf.grad(f, wrt=wrt)(*args), theirs):
        np.testing.assert_allclose(mine, expected, rtol=1e-9, atol=1e-10)
    v = rng.normal(size=args[0].shape)
    hvp = autograd.hessian_vector_product(_in_autograd(f))(*args, v)
    np.testing.assert_allclose(nf.hvp(f, wrt=0)(*args, v), hvp, rtol=1e-7, atol=1e-9)


# autograd's gradients of these are wrong (finite differences decide): it scales real
# transforms with norm="forward" as "backward" ones, and mishandles rfft's padding n > length
def padded_real_ffts(x):
    half = np.fft.rfft(x, n=8) * (1 + 2j)
    return np.sum(np.fft.irfft(half, n=6, norm="forward") ** 2) + np.sum(
        np.abs(np.fft.rfft(x, norm="forward")) ** 2
    )


def test_ffts_match_finite_differences(rng):
    x = rng.normal(size=6)
    check_grad(ffts, x)
    check_grad(real_ffts, x)
    check_grad(padded_real_ffts, x)


# --- symmetric matrices -----------------------------------------------------------------------


def cholesky_only(a):
    return np.sum(np.linalg.cholesky(a) ** 3)


def test_cholesky_gradient_is_symmetric_and_right_along_symmetric_directions(rng):
    m = rng.normal(size=(3, 3))
    a = m @ m.T + 3 * np.eye(3)
    g = nf.grad(cholesky_only)(a)
    np.testing.assert_allclose(g, g.T, rtol=1e-12)
    s = rng.normal(size=(3, 3))
    s = s + s.T
    eps = 1e-6
    expected = (cholesky_only(a + eps * s) - cholesky_only(a - eps * s)) / (2 * eps)
    assert np.sum(g * s) == pytest.approx(expected, rel=1e-7)


def eigenvalues_cubed(a):
    w, v = np.linalg.eigh(a)
    return np.sum(w**3)


def projector(a):
    w, v = np.linalg.eigh(a)
    return np.sum((v[:, 1:] @ v[:, 1:].T) * np.arange(9.0).reshape(3, 3))


def test_tied_eigenvalues_give_the_limit_for_basis_free_losses():
    a = np.diag([1.0, 2.0, 2.0])  # the last two tie
    np.testing.assert_allclose(nf.grad(eigenvalues_cubed)(a), np.diag([3.0, 12.0, 12.0]))
    # the projector onto the tied pair's space is smooth there: its derivative exists
    s = np.array([[0.0, 1.0, 0.5], [1.0, 0.0, 0.0], [0.5, 0.0, 0.0]])
    eps = 1e-6
    expected = (projector(a + eps * s) - projector(a - eps * s)) / (2 * eps)
    assert np.sum(nf.grad(projector)(a) * s) == pytest.approx(expected, rel=1e-6)


# --- options srcdiff does not differentiate ---------------------------------------------------


def singular_values_by_svd(a):
    return np.sum(np.linalg.svd(a, compute_uv=False) ** 3)


def singular_values(a):
    return np.sum(np.linalg.svdvals(a) ** 3)


def singular_values_of_a_hermitian_matrix(a):
    return np.sum(np.linalg.svd(a @ a.T, hermitian=True, compute_uv=False))


def test_svd_without_vectors_is_svdvals(rng):
    a = rng.normal(size=(3, 2))
    check_grad(singular_values_by_svd, a)
    np.testing.assert_allclose(
        nf.grad(singular_values_by_svd)(a), nf.grad(singular_values)(a), rtol=1e-12
    )


def test_svd_of_a_hermitian_matrix_is_an_error_saying_to_leave_the_option_out(rng):
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(singular_values_of_a_hermitian_matrix)(rng.normal(size=(3, 2)))
    assert "only with hermitian at its default (False)" in error.value.message
    assert "call it without hermitian=" in error.value.hint
    lines, first = inspect.getsourcelines(singular_values_of_a_hermitian_matrix)
    assert error.value.location.lineno == first + 1
    assert error.value.location.filename == __file__


def count_norm(x):
    return np.linalg.norm(x, ord=0) * 2.0


def test_ord_zero_norm_is_flat(rng):
    np.testing.assert_array_equal(nf.grad(count_norm)(rng.normal(size=4)), np.zeros(4))


# --- complex spectra of real signals ----------------------------------------------------------


def power_of_odd_rfft(x):
    return np.sum(np.abs(np.fft.rfft(x, n=7)) ** 2) + np.sum(np.fft.irfft(np.fft.rfft(x), n=5))


def test_real_gradient_through_odd_length_real_transforms(rng):
    x = rng.normal(size=6)
    g = check_grad(power_of_odd_rfft, x)[0]
    assert g.dtype == np.float64


def complex_eigh(x):
    a = np.eye(2) * x[0] + 1j * np.ones((2, 2)) * x[1] + 3 * np.eye(2)
    w, v = np.linalg.eigh(a)
    return np.sum(w**2)


def complex_cholesky(x):
    a = np.eye(2) * (x[0] + 3) + 0.5j * x[1] * np.array([[0, 1], [-1, 0]])
    return np.sum(np.abs(np.linalg.cholesky(a)) ** 2)


@pytest.mark.parametrize("f, name", [(complex_eigh, "eigh"), (complex_cholesky, "cholesky")])
def test_decompositions_of_complex_matrices_are_refused(f, name):
    # (their formulas hold for real matrices: the gradient would have been silently wrong)
    with pytest.raises(nf.SrcdiffError, match=f"np.linalg.{name} of real matrices only"):
        nf.grad(f)(np.array([1.0, 0.5]))


# --- eig: real matrices with real, distinct eigenvalues ----------------------------------------


def test_eig_matches_finite_differences_in_every_mode(rng):
    e = _real_eigenvalues(rng)
    g = check_grad(eig, e)[0]
    v = rng.normal(size=(3, 3))
    assert nf.jvp(eig)(e, v)[1] == pytest.approx(np.sum(g * v), rel=1e-9)
    eps = 1e-5
    expected = (nf.grad(eig)(e + eps * v) - nf.grad(eig)(e - eps * v)) / (2 * eps)
    np.testing.assert_allclose(nf.hvp(eig)(e, v), expected, rtol=1e-6, atol=1e-8)


def eig_values(a):
    return np.sum(np.linalg.eig(a)[0] ** 2)


@pytest.mark.parametrize(
    "a, message",
    [
        (np.array([[0.0, -1.0], [1.0, 0.1]]), "whose eigenvalues are real; this one's are complex"),
        (np.eye(2), "np.linalg.eig of a matrix with tied eigenvalues"),
    ],
)
def test_eig_where_its_rule_does_not_hold_is_an_error_at_the_users_line(a, message):
    line = inspect.getsourcelines(eig_values)[1] + 1
    for run in (lambda: nf.grad(eig_values)(a), lambda: nf.jvp(eig_values)(a, np.ones((2, 2)))):
        with pytest.raises(nf.SrcdiffError, match=message) as error:
            run()
        assert f"test_linalg_fft.py:{line}" in str(error.value)
