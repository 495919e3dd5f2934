"""QR in every mode, the symmetric-definite eigenproblem (scipy.linalg.eigh(a, b), and
eigvals_only) and least squares (np.linalg.lstsq, scipy.linalg.lstsq): srcdiff against finite
differences in float64 and against autograd, whose rules for these (none for qr, lstsq or eigh
with b) are written here through the functions it has: R^T R = A^T A by Cholesky, the
pseudo-inverse, the problem reduced by B's Cholesky factor."""

import inspect

import numpy as np
import pytest

import srcdiff as nf
from gradcheck import check_grad

pytest.importorskip("scipy")
import scipy.linalg  # noqa: E402


def _check_every_mode(f, args, rng, rtol=1e-6, atol=1e-8):
    """Reverse mode against finite differences; forward mode and the Hessian-vector product
    against the gradient and its finite differences."""
    grads = check_grad(f, *args, rtol=rtol, atol=atol)
    tangents = [rng.normal(size=a.shape) for a in args]
    _, along = nf.jvp(f, wrt=tuple(range(len(args))))(*args, tangents)
    assert along == pytest.approx(sum(np.sum(g * t) for g, t in zip(grads, tangents)), rel=1e-9)
    v, eps = tangents[0], 1e-5
    gradient = nf.grad(f)
    expected = (gradient(args[0] + eps * v, *args[1:]) - gradient(args[0] - eps * v, *args[1:])) / (
        2 * eps
    )
    np.testing.assert_allclose(nf.hvp(f)(*args, v), expected, rtol=1e-5, atol=1e-7)
    return grads


def _against_autograd(f, twin, args, rng):
    """srcdiff's gradient and Hessian-vector product are autograd's for `twin`, f written
    with what autograd differentiates."""
    autograd = pytest.importorskip("autograd")
    wrt = tuple(range(len(args)))
    for mine, theirs in zip(nf.grad(f, wrt=wrt)(*args), autograd.grad(twin, wrt)(*args)):
        np.testing.assert_allclose(mine, theirs, rtol=1e-8, atol=1e-10)
    v = rng.normal(size=args[0].shape)
    expected = autograd.hessian_vector_product(twin)(*args, v)
    np.testing.assert_allclose(nf.hvp(f)(*args, v), expected, rtol=1e-6, atol=1e-9)


def _anp():
    return pytest.importorskip("autograd.numpy")


# --- QR ---------------------------------------------------------------------------------------


# (squares, weighed: the signs of q's columns and r's rows are LAPACK's)
def qr_reduced_scipy(a):
    q, r = scipy.linalg.qr(a, mode="economic")
    return np.sum(q**2 * np.arange(q.size).reshape(q.shape)) + np.sum(np.sin(r**2))


def qr_r_only(a):
    return np.sum(np.sin(np.linalg.qr(a, mode="r") ** 2)) + np.sum(
        scipy.linalg.qr(a, mode="r")[0] ** 2
    )


def qr_twin(a):
    """The reduced QR of a tall matrix of full rank, up to signs: R^T R = A^T A, Q = A R^-1."""
    anp = _anp()
    r = anp.linalg.cholesky(anp.dot(a.T, a)).T
    q = anp.dot(a, anp.linalg.inv(r))
    return anp.sum(q**2 * anp.arange(q.size).reshape(q.shape)) + anp.sum(anp.sin(r**2))


def qr_r_numpy(a):
    return np.sum(np.sin(np.linalg.qr(a, mode="r") ** 2)) + np.sum(np.linalg.qr(a)[1] ** 2)


def qr_r_twin(a):
    anp = _anp()
    r = anp.linalg.cholesky(anp.dot(a.T, a)).T
    return anp.sum(anp.sin(r**2)) + anp.sum(r**2)


def qr_complete_of_wide(a):
    q, r = np.linalg.qr(a, mode="complete")
    u, v = scipy.linalg.qr(a)  # (mode='full', SciPy's default)
    return np.sum(q**2 @ np.sin(r)) + np.sum(u[:, :1] * v)


def test_qr_in_every_mode_matches_finite_differences_and_autograd(rng):
    tall = rng.normal(size=(5, 3))
    _check_every_mode(qr_reduced_scipy, [tall], rng)
    _check_every_mode(qr_r_only, [tall], rng)
    _check_every_mode(qr_r_only, [rng.normal(size=(3, 5))], rng)
    _check_every_mode(qr_complete_of_wide, [rng.normal(size=(3, 4))], rng)
    _against_autograd(qr_reduced_scipy, qr_twin, [tall], rng)
    _against_autograd(qr_r_numpy, qr_r_twin, [tall], rng)


def complete_q_of_tall(a):
    q, r = np.linalg.qr(a, mode="complete")
    u, v = scipy.linalg.qr(a)
    return np.sum(np.sin(q) * np.arange(5.0)) + np.sum(r**2) + np.sum(np.cos(u[:, 2:]) * v[0, 0])


def householder_complement(q1):
    """The extra columns LAPACK's complete Q has, from its first n (runtime/qr.py)."""
    n = q1.shape[-1]
    upper = np.eye(n) - q1[:n]
    w = np.linalg.solve(upper.T, q1[n:].T)
    return np.concatenate([upper @ w, np.eye(len(q1) - n) - q1[n:] @ w])


def test_complete_q_of_a_tall_matrix_is_differentiated_as_lapack_makes_it(rng):
    """Its last m - n columns are an orthonormal basis of what a's columns leave out, which
    the decomposition does not fix, but LAPACK's Householder reflectors do: numpy's and
    SciPy's are a function of the first n, and the derivative is that function's, as finite
    differences of what they return show, even for a loss depending on the basis."""
    a = rng.normal(size=(5, 2))
    for q in (np.linalg.qr(a, mode="complete")[0], scipy.linalg.qr(a)[0]):
        np.testing.assert_allclose(q[:, 2:], householder_complement(q[:, :2]), atol=1e-14)
    _check_every_mode(complete_q_of_tall, [a], rng)
    _check_every_mode(complete_q_of_tall, [rng.normal(size=(5, 4))], rng)
    signs = np.sign(np.diag(np.linalg.qr(a)[1]))
    _against_autograd(complete_q_of_tall, complete_q_twin(signs), [a], rng)


def complete_q_twin(signs):
    """complete_q_of_tall through the Cholesky factor, with LAPACK's signs of R's diagonal
    (constant near a) and householder_complement."""
    anp = _anp()

    def twin(a):
        r = anp.linalg.cholesky(anp.dot(a.T, a)).T * signs[:, None]
        q1 = anp.dot(a, anp.linalg.inv(r))
        upper = anp.eye(2) - q1[:2]
        w = anp.linalg.solve(upper.T, q1[2:].T)
        q2 = anp.concatenate([anp.dot(upper, w), anp.eye(3) - anp.dot(q1[2:], w)])
        q = anp.concatenate([q1, q2], axis=1)
        extra = anp.sum(anp.cos(q2) * r[0, 0])
        return anp.sum(anp.sin(q) * anp.arange(5.0)) + anp.sum(r**2) + extra

    return twin


def raw_qr(a):
    return np.sum(np.linalg.qr(a, mode="raw")[0])


def test_raw_qr_is_an_error_at_the_users_line(rng):
    with pytest.raises(
        nf.SrcdiffError, match="qr with mode 'reduced', 'complete' or 'r', not 'raw'"
    ) as error:
        nf.grad(raw_qr)(rng.normal(size=(3, 2)))
    assert f"test_qr_eigh_lstsq.py:{inspect.getsourcelines(raw_qr)[1] + 1}" in str(error.value)


def pivoted_qr(a):
    q, r, p = scipy.linalg.qr(a, pivoting=True, mode="economic")
    return np.sum(q**2 * np.arange(q.size).reshape(q.shape)) + np.sum(np.sin(r**2))


def pivoted_qr_full_and_r(a):
    q, r, p = scipy.linalg.qr(a, pivoting=True)
    s, columns = scipy.linalg.qr(a, mode="r", pivoting=True)
    return np.sum(q[:, :2] ** 2 @ np.sin(r[:2])) + np.sum(np.cos(s) * columns) + np.sum(a[:, p])


def pivoted_qr_twin(columns):
    """qr_twin of a[:, P], for the permutation P scipy picks at the point (a constant)."""

    def twin(a):
        return qr_twin(a[:, columns])

    return twin


def test_pivoted_qr_matches_finite_differences_and_autograd(rng):
    """a[:, P] = Q R, the permutation P picked by the values but with no derivative: the
    gradient flows through Q and R as qr(a[:, P])'s does."""
    tall, wide = rng.normal(size=(5, 3)), rng.normal(size=(3, 4))
    for a in (tall, wide):
        _check_every_mode(pivoted_qr, [a], rng)
        _check_every_mode(pivoted_qr_full_and_r, [a], rng)
    columns = scipy.linalg.qr(tall, pivoting=True)[2]
    assert list(columns) != [0, 1, 2]  # (a permutation that matters)
    _against_autograd(pivoted_qr, pivoted_qr_twin(columns), [tall], rng)


# --- the symmetric-definite eigenproblem ------------------------------------------------------


def _spd(m):
    return m @ m.T + 3 * np.eye(len(m))


def generalized_eigh(c, m):
    w, v = scipy.linalg.eigh(c + c.T, _spd(m))
    return np.sum(np.sin(w)) + np.sum(v**2 * np.arange(3.0))


def generalized_eigh_twin(c, m):
    """L^-1 A L^-T's eigenpairs, L L^T = B: the same w, and V = L^-T U (up to signs)."""
    anp = _anp()
    factor = anp.linalg.cholesky(anp.dot(m, m.T) + 3 * anp.eye(3))
    half = anp.linalg.solve(factor, c + c.T)
    w, u = anp.linalg.eigh(anp.linalg.solve(factor, half.T))
    v = anp.linalg.solve(factor.T, u)
    return anp.sum(anp.sin(w)) + anp.sum(v**2 * anp.arange(3.0))


def eigenvalues_only(c, m):
    w = scipy.linalg.eigh(c + c.T, _spd(m), eigvals_only=True)
    return np.sum(np.sin(w)) + np.sum(scipy.linalg.eigvalsh(c + c.T, _spd(m), lower=False) ** 2)


def eigenvalues_only_twin(c, m):
    anp = _anp()
    factor = anp.linalg.cholesky(anp.dot(m, m.T) + 3 * anp.eye(3))
    half = anp.linalg.solve(factor, c + c.T)
    w = anp.linalg.eigh(anp.linalg.solve(factor, half.T))[0]
    return anp.sum(anp.sin(w)) + anp.sum(w**2)


def standard_eigenvalues_only(c):
    return np.sum(np.sin(scipy.linalg.eigh(c + c.T, eigvals_only=True)))


def standard_eigenvalues_twin(c):
    anp = _anp()
    return anp.sum(anp.sin(anp.linalg.eigh(c + c.T)[0]))


@pytest.mark.parametrize(
    "f, twin, count",
    [
        (generalized_eigh, generalized_eigh_twin, 2),
        (eigenvalues_only, eigenvalues_only_twin, 2),
        (standard_eigenvalues_only, standard_eigenvalues_twin, 1),
    ],
    ids=["eigh(a, b)", "eigvals_only", "eigvals_only without b"],
)
def test_eigh_matches_finite_differences_and_autograd(f, twin, count, rng):
    args = [rng.normal(size=(3, 3)) for _ in range(count)]
    _check_every_mode(f, args, rng)
    _against_autograd(f, twin, args, rng)


def eigh_of_type(kind):
    def f(c, m):
        w, v = scipy.linalg.eigh(c + c.T, _spd(m), type=kind)
        only = scipy.linalg.eigh(c + c.T, _spd(m), type=kind, eigvals_only=True)
        return np.sum(np.sin(w)) + np.sum(v**2 * np.arange(3.0)) + np.sum(only**2)

    f.__name__ = f"eigh_of_type_{kind}"
    return f


def eigh_of_type_twin(kind):
    """type=2 (A B v = w v) and type=3 (B A v = w v) by B's Cholesky factor L: both are the
    eigenpairs (w, U) of L^T A L, with V = L^-T U for type 2 and V = L U for type 3."""

    def twin(c, m):
        anp = _anp()
        factor = anp.linalg.cholesky(anp.dot(m, m.T) + 3 * anp.eye(3))
        w, u = anp.linalg.eigh(anp.dot(factor.T, anp.dot(c + c.T, factor)))
        v = anp.linalg.solve(factor.T, u) if kind == 2 else anp.dot(factor, u)
        return anp.sum(anp.sin(w)) + anp.sum(v**2 * anp.arange(3.0)) + anp.sum(w**2)

    return twin


@pytest.mark.parametrize("kind", [2, 3])
def test_eigh_of_type_2_and_3_matches_finite_differences_and_autograd(kind, rng):
    args = [rng.normal(size=(3, 3)) for _ in range(2)]
    _check_every_mode(eigh_of_type(kind), args, rng)
    _against_autograd(eigh_of_type(kind), eigh_of_type_twin(kind), args, rng)


def eigenvectors_cubed(a, b):
    return np.sum(scipy.linalg.eigh(a, b)[1] ** 3)


def test_generalized_eigh_gradients_are_symmetric(rng):
    """eigh reads one triangle of a and of b, which it takes as symmetric: as for
    np.linalg.eigh, the gradients are those of functions of their symmetric parts."""
    a, b = rng.normal(size=(3, 3)), _spd(rng.normal(size=(3, 3)))
    for g in nf.grad(eigenvectors_cubed, wrt=(0, 1))(a + a.T, b):
        np.testing.assert_allclose(g, g.T, rtol=1e-12)


# --- least squares ----------------------------------------------------------------------------


def numpy_lstsq(a, b):
    x, res, rank, s = np.linalg.lstsq(a, b)
    return np.sum(np.sin(x)) + np.sum(res) + np.sum(s**2)


def scipy_lstsq(a, b):
    x, res, rank, s = scipy.linalg.lstsq(a, b)
    return np.sum(np.sin(x)) + np.sum(res) + np.sum(s**2)


def lstsq_twin(a, b):
    """x = pinv(a) b, its residuals (a tall matrix of full rank) and singular values."""
    anp = _anp()
    x = anp.dot(anp.linalg.pinv(a), b)
    residuals = anp.sum((b - anp.dot(a, x)) ** 2, axis=0)
    return (
        anp.sum(anp.sin(x)) + anp.sum(residuals) + anp.sum(anp.linalg.svd(a, compute_uv=False) ** 2)
    )


@pytest.mark.parametrize("f", [numpy_lstsq, scipy_lstsq])
@pytest.mark.parametrize("columns", [(), (2,)], ids=["vector", "matrix"])
def test_lstsq_matches_finite_differences_and_autograd(f, columns, rng):
    args = [rng.normal(size=(5, 3)), rng.normal(size=(5, *columns))]
    _check_every_mode(f, args, rng)
    _against_autograd(f, lstsq_twin, args, rng)


def truncated_lstsq(a, b):
    x, res, rank, s = np.linalg.lstsq(a, b, rcond=1e-4)
    y = scipy.linalg.lstsq(a, b, cond=1e-4)[0]
    return np.sum(np.sin(x)) + np.sum(y**2)


def test_lstsq_is_differentiated_at_the_rank_it_found(rng):
    """A singular value below rcond (or cond) times the largest is dropped, and stays so near
    a: the solution's derivative is the pseudo-inverse's at that rank (np.linalg.pinv's
    default cutoff would keep it, and the gradient was off by a factor of 1e13)."""
    a = rng.normal(size=(5, 3))
    a[:, 2] = a[:, 0] + a[:, 1] + 1e-7 * rng.normal(size=5)
    b = rng.normal(size=5)
    assert np.linalg.lstsq(a, b, rcond=1e-4)[2] == 2
    _check_every_mode(truncated_lstsq, [a, b], rng, rtol=1e-5)


def lstsq_times_rank(a, b):
    x, res, rank, s = scipy.linalg.lstsq(a, b, lapack_driver="gelsy")
    return np.sum(x) * rank


def test_lstsq_rank_is_a_constant_and_gelsy_gives_no_singular_values(rng):
    """The rank is an integer, constant near a: it carries no derivative (the product rule
    gives rank * dx, as finite differences do)."""
    a, b = rng.normal(size=(4, 3)), rng.normal(size=4)
    assert scipy.linalg.lstsq(a, b, lapack_driver="gelsy")[3] is None
    _check_every_mode(lstsq_times_rank, [a, b], rng)
