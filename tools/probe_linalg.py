"""Probe: np.linalg's functions in reverse, forward and second order (forward over reverse,
and reverse over reverse) against central finite differences in float64 and autograd, each
with only some items of a decomposition used (so the others' adjoints are constants).

    python tools/probe_linalg.py [NAME_SUBSTRING]

Prints one line per function and mode: ok, WRONG (with the largest error) or the error
raised. Specialised code is checked against the generic code on every call."""

import sys
import traceback

import numpy as np

import srcdiff as nf
from srcdiff.check import numerical_grad

nf.config(specialize="check")
rng = np.random.default_rng(7)
C3, C4 = rng.normal(size=(3, 3)), rng.normal(size=(4, 3))
W3 = rng.normal(size=3)


def real(*shape):
    return rng.normal(size=shape)


def spd(n):
    m = rng.normal(size=(n, n))
    return m @ m.T + n * np.eye(n)


def conditioned(n):
    return rng.normal(size=(n, n)) + 3 * np.eye(n)


CASES = []


def case(*args, autograd=True):
    def register(f):
        CASES.append((f, args, autograd))
        return f

    return register


# --- qr: one item, the other, both; tall, square, wide ----------------------------------------
@case(real(4, 3))
def qr_q_only(a):
    return np.sum(np.linalg.qr(a)[0] ** 2 * C4)


@case(real(4, 3))
def qr_r_only(a):
    return np.sum(np.linalg.qr(a)[1] ** 3)


@case(real(3, 3))
def qr_q_square(a):
    q, r = np.linalg.qr(a)
    return np.sum(np.sin(q))


@case(real(2, 4))
def qr_wide_r_only(a):
    return np.sum(np.linalg.qr(a)[1] ** 2)


@case(real(2, 4))
def qr_wide_q_only(a):
    return np.sum(np.linalg.qr(a)[0] ** 3)


@case(real(2, 4, 3))
def qr_stack_q_only(a):
    return np.sum(np.linalg.qr(a)[0] ** 2 * C4)


# --- svd ------------------------------------------------------------------------------------
@case(real(4, 3))
def svd_values_only(a):
    return np.sum(np.linalg.svd(a)[1] ** 2)


@case(real(4, 3))
def svd_compute_uv_false(a):
    return np.sum(np.linalg.svd(a, compute_uv=False) ** 3)


@case(real(4, 3))
def svd_u_only_thin(a):
    return np.sum(np.linalg.svd(a, full_matrices=False)[0] ** 2 * C4)


@case(real(4, 3))
def svd_vh_only(a):
    return np.sum(np.linalg.svd(a)[2] ** 2 * C3)


@case(real(3, 4))
def svd_vh_wide_thin(a):
    return np.sum(np.linalg.svd(a, full_matrices=False)[2] ** 2 * C4.T)


@case(real(3, 3))
def svd_u_s(a):
    u, s, vh = np.linalg.svd(a)
    return np.sum(u**2 @ s)


@case(real(2, 4, 3))
def svd_stack_s_only(a):
    return np.sum(np.linalg.svd(a, full_matrices=False)[1] ** 2)


# --- eigh, eigvalsh ----------------------------------------------------------------------------
@case(real(3, 3))
def eigh_values_only(a):
    return np.linalg.eigh(a + a.T)[0] @ W3


@case(real(3, 3))
def eigh_vector_only(a):
    return np.sum(np.linalg.eigh(a + a.T)[1][:, 0] ** 2 * W3)


@case(real(3, 3))
def eigh_upper_values(a):
    return np.sum(np.linalg.eigh(a + a.T, UPLO="U")[0] ** 3)


@case(real(3, 3))
def eigh_upper_vectors(a):
    w, v = np.linalg.eigh(a + a.T, "U")
    return np.sum(v**2 * C3)


@case(real(2, 3, 3))
def eigh_stack_values(a):
    return np.sum(np.linalg.eigh(a + a.mT)[0] ** 2)


@case(real(3, 3), autograd=False)
def eigvalsh_values(a):
    return np.sum(np.linalg.eigvalsh(a + a.T) ** 3)


# --- cholesky, det, slogdet, inv, solve --------------------------------------------------------
@case(real(3, 3))
def cholesky(a):
    return np.sum(np.linalg.cholesky(a @ a.T + 3 * np.eye(3)) ** 3)


@case(conditioned(3))
def det(a):
    return np.linalg.det(a) ** 2


@case(conditioned(3))
def slogdet_logdet_only(a):
    return np.linalg.slogdet(a)[1] ** 2


@case(conditioned(3))
def slogdet_both(a):
    sign, logdet = np.linalg.slogdet(a)
    return sign * logdet**2


@case(conditioned(3))
def slogdet_sign_only(a):
    return np.linalg.slogdet(a)[0] * np.sum(a**2)


@case(conditioned(3))
def inv(a):
    return np.sum(np.linalg.inv(a) ** 2 * C3)


@case(conditioned(3), real(3))
def solve_vector(a, b):
    return np.sum(np.linalg.solve(a, b) ** 2)


@case(conditioned(3), real(3, 2))
def solve_matrix(a, b):
    return np.sum(np.linalg.solve(a, b) ** 3)


@case(real(3), conditioned(3))
def solve_wrt_b(b, a):
    return np.sum(np.linalg.solve(a, b * b) ** 2)


# --- pinv, norm, matrix_power, lstsq ----------------------------------------------------------
@case(real(4, 3))
def pinv(a):
    return np.sum(np.linalg.pinv(a) ** 2 * C4.T)


@case(real(4, 3), autograd=False)
def lstsq_solution(a):
    return np.sum(np.linalg.lstsq(a, W3 @ C4.T)[0] ** 2)


@case(real(4, 3), autograd=False)
def lstsq_residual(a):
    return np.sum(np.linalg.lstsq(a, C4 @ W3 + 0.3)[1])


@case(real(4, 3), autograd=False)
def lstsq_singular_values(a):
    return np.sum(np.linalg.lstsq(a, C4 @ W3)[3] ** 2)


@case(real(3, 3), autograd=False)
def matrix_power_3(a):
    return np.sum(np.linalg.matrix_power(a, 3) ** 2)


@case(conditioned(3), autograd=False)
def matrix_power_negative(a):
    return np.sum(np.linalg.matrix_power(a, -2))


for _ord in (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):

    def _norm(a, ord=_ord):
        return np.linalg.norm(a, ord) ** 2

    _norm.__name__ = f"norm_matrix_{_ord}".replace("-", "minus_").replace(".", "_")
    CASES.append((_norm, (real(4, 3),), _ord not in (2, -2)))

for _ord in (None, 1, 2, 3, np.inf, -np.inf, 0.5):

    def _vnorm(a, ord=_ord):
        return np.sum(np.linalg.norm(a, ord, axis=1) ** 2)

    _vnorm.__name__ = f"norm_vector_{_ord}".replace("-", "minus_").replace(".", "_")
    CASES.append((_vnorm, (real(4, 3),), True))


# --- the modes --------------------------------------------------------------------------------


def autograd_twin(f):
    import autograd.numpy as anp

    namespace = dict(globals(), np=anp)
    return type(f)(f.__code__, namespace, f.__name__, f.__defaults__, f.__closure__)


def expected_and_theirs(f, args, mode, v):
    """(finite differences, autograd's result or None) for one mode along v."""
    import autograd

    grad = nf.grad(f)
    if mode == "reverse":
        return numerical_grad(f, args, 0), lambda: autograd.grad(autograd_twin(f))(*args)
    if mode == "forward":
        fd = float(np.sum(numerical_grad(f, args, 0) * v))
        return fd, lambda: autograd.make_jvp(autograd_twin(f))(*args)(v)[1]
    eps = 1e-5
    plus, minus = (args[0] + eps * v, *args[1:]), (args[0] - eps * v, *args[1:])
    fd = (grad(*plus) - grad(*minus)) / (2 * eps)
    return fd, lambda: autograd.make_vjp(autograd.grad(autograd_twin(f)))(*args)[0](v)


def run(f, args, mode, v):
    if mode == "reverse":
        return nf.grad(f)(*args)
    if mode == "forward":
        return nf.jvp(f)(*args, v)[1]
    if mode == "hvp":
        return nf.hvp(f)(*args, v)
    return nf.vjp(nf.grad(f))(*args)[1](v)


def compare(got, expected, scale):
    error = np.max(np.abs(np.asarray(got) - expected) / (1e-6 * scale + 1e-5 * np.abs(expected)))
    return error <= 1, error


def check(f, args, mode, use_autograd):
    v = np.random.default_rng(3).normal(size=np.shape(args[0]))
    scale = 1 if mode in ("reverse", "forward") else 30
    try:
        got = run(f, args, mode, v)
    except Exception as e:  # (a probe: every failure is reported, none stops it)
        where = traceback.extract_tb(e.__traceback__)[-1]
        return f"RAISES {type(e).__name__}: {str(e).splitlines()[0][:90]} ({where.name})"
    expected, theirs = expected_and_theirs(f, args, mode, v)
    ok, error = compare(got, expected, scale)
    verdict = "ok" if ok else f"WRONG (error {error:.3g} x tolerance)"
    if use_autograd:
        try:
            agrees, _ = compare(got, theirs(), scale)
            verdict += ", autograd agrees" if agrees else ", autograd DIFFERS"
        except Exception as e:  # (autograd lacks some derivatives)
            verdict += f", autograd cannot ({type(e).__name__})"
    return verdict


def main(pattern=""):
    failures = 0
    for f, args, use_autograd in CASES:
        if pattern not in f.__name__:
            continue
        for mode in ("reverse", "forward", "hvp", "grad_of_grad"):
            verdict = check(f, args, mode, use_autograd)
            failures += not verdict.startswith("ok")
            print(f"{f.__name__:28} {mode:13} {verdict}", flush=True)
    print(f"{failures} failures")


if __name__ == "__main__":
    main(*sys.argv[1:])
