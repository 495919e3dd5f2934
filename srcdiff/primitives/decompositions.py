"""np.linalg's decompositions: cholesky, eigh, eig, eigvalsh, svd, svdvals, qr (stacks too). Their
templates call the adjoints and tangents of srcdiff/runtime/linalg.py (qr's: runtime/qr.py).

cholesky and eigh read one triangle of a matrix that they take to be symmetric: srcdiff
differentiates them as functions of its symmetric part (as autograd's cholesky, JAX and
PyTorch do), so the gradient is symmetric and the samples symmetrize their argument. Where
eigenvalues or singular values tie, the gradient is the limit that a loss not depending on
the choice of basis of the repeated space has (runtime.reciprocal_gaps)."""

import numpy as np

from .. import runtime
from .registry import EVALUATE, Sample, primitive
from .samples import real, spd


def _decomposition(*functions, **facts):
    return primitive(*functions, shape=EVALUATE, fresh=True, **facts)


# upper=True is not supported: the template has no such parameter, so a call with it is an
# error at the user's line
@_decomposition(
    np.linalg.cholesky,
    samples=[
        Sample("np.linalg.cholesky((a + a.mT) / 2)", a=spd(3)),
        Sample("np.linalg.cholesky((a + a.mT) / 2)", a=spd(2, batch=(2,))),
    ],
)
class cholesky:
    def adjoint(bz, z, a):
        ba = runtime.cholesky_vjp(bz, z)

    def tangent(dz, z, a):
        dz = runtime.cholesky_jvp(da, z)


# eigenvectors squared: their signs are arbitrary
@_decomposition(
    np.linalg.eigh,
    samples=[
        Sample("w + v ** 2", setup="w, v = np.linalg.eigh(a + a.mT)", a=real(3, 3)),
        Sample("np.linalg.eigh(a + a.mT)[1] ** 2", a=real(2, 3, 3)),
        Sample("np.linalg.eigh(a + a.mT, UPLO='U')[0]", a=real(3, 3)),
    ],
)
class eigh:
    def adjoint(bz, z, a, UPLO="L"):
        ba = runtime.eigh_vjp(bz, z)

    def tangent(dz, z, a, UPLO="L"):
        dz = runtime.eigh_jvp(da, z)


# of a real matrix with real, distinct eigenvalues (a product of two symmetric positive
# definite matrices has them); eigenvectors squared, for their signs are arbitrary
@_decomposition(
    np.linalg.eig,
    samples=[
        Sample("w + v ** 2", setup="w, v = np.linalg.eig(a @ b)", a=spd(3), b=spd(3)),
        Sample("np.linalg.eig(a @ b)[1] ** 2", a=spd(3, batch=(2,)), b=spd(3)),
        Sample("np.linalg.eig(a @ b)[0]", a=spd(2), b=spd(2)),
    ],
)
class eig:
    def adjoint(bz, z, a):
        ba = runtime.eig_vjp(bz, z)

    def tangent(dz, z, a):
        dz = runtime.eig_jvp(da, z)


@_decomposition(
    np.linalg.eigvalsh, samples=[Sample("np.linalg.eigvalsh(a + a.mT)", a=real(2, 3, 3))]
)
class eigvalsh:
    def adjoint(bz, z, a, UPLO="L"):
        ba = runtime.eigvalsh_vjp(bz, a)

    def tangent(dz, z, a, UPLO="L"):
        dz = runtime.eigvalsh_jvp(da, a)


# hermitian=True is not supported; with compute_uv=False, the singular values alone (as
# np.linalg.svdvals gives them), whose adjoint is U diag(g) V^H and tangent diag(U^H dA V).
# The last full sample reads the extra columns of a full U through their projector, which does
# not depend on their basis
@_decomposition(
    np.linalg.svd,
    samples=[
        Sample("u ** 2 + s + vh ** 2", setup="u, s, vh = np.linalg.svd(a)", a=real(3, 3)),
        Sample("np.linalg.svd(a, full_matrices=False)[0] ** 2", a=real(2, 4, 3)),
        Sample("np.linalg.svd(a, full_matrices=False)[2] ** 2", a=real(2, 4)),
        Sample("u[:, 2:] @ u[:, 2:].T + s[0]", setup="u, s, vh = np.linalg.svd(a)", a=real(4, 2)),
        # complex: what does not depend on the phases of the singular vectors
        Sample(
            "np.abs(u[:, :2] @ vh[:2]) ** 2 + s[1]",
            setup="u, s, vh = np.linalg.svd(a + 1j * a[::-1], full_matrices=False)",
            a=real(3, 4),
        ),
        Sample(
            "np.abs(u) @ np.abs(vh[3:].conj().T @ vh[3:])[:3]",
            setup="u, s, vh = np.linalg.svd(a - 2j * a[:, ::-1])",
            a=real(3, 4),
        ),
        Sample("np.linalg.svd(a, compute_uv=False) ** 2", a=real(2, 4, 3)),
        Sample("np.sqrt(np.linalg.svd(a, False, False))", a=real(3, 4)),
        Sample("np.linalg.svd(a + 1j * a[::-1], compute_uv=False)", a=real(3, 3)),
    ],
)
class svd:
    def adjoint(bz, z, a, full_matrices=True, compute_uv=True):
        ba = runtime.svd_vjp(bz, z, a, compute_uv)

    def tangent(dz, z, a, full_matrices=True, compute_uv=True):
        dz = runtime.svd_jvp(da, z, a, compute_uv)


@_decomposition(
    np.linalg.svdvals,
    samples=[
        Sample("np.linalg.svdvals(x)", x=real(2, 3, 4)),
        Sample("np.linalg.svdvals(x + 1j * x[:, ::-1])", x=real(2, 3, 4)),
    ],
)
class svdvals:
    def adjoint(bz, z, x):
        bx = runtime.svdvals_vjp(bz, x)

    def tangent(dz, z, x):
        dz = runtime.svdvals_jvp(dx, x)


# every mode but 'raw': 'reduced', 'r' (R alone) and 'complete', whose extra columns of Q (a
# tall matrix's) are a function of the others, by LAPACK's Householder reflectors
# (runtime/qr.py); signs squared away as for eigh
@_decomposition(
    np.linalg.qr,
    samples=[
        Sample("q ** 2 + r[0]", setup="q, r = np.linalg.qr(a)", a=real(4, 3)),
        Sample("np.linalg.qr(a)[1] ** 2", a=real(2, 3, 3)),
        Sample("q ** 2 @ r", setup="q, r = np.linalg.qr(a)", a=real(2, 4)),
        Sample("q ** 2 @ r", setup="q, r = np.linalg.qr(a, mode='complete')", a=real(3, 4)),
        Sample("q * r[0, 0] + r[:, 1]", setup="q, r = np.linalg.qr(a, 'complete')", a=real(5, 2)),
        Sample("np.linalg.qr(a, 'complete')[0]", a=real(2, 4, 3)),
        Sample("np.linalg.qr(a, mode='r') ** 2", a=real(4, 3)),
        Sample("np.linalg.qr(a, mode='r')", a=real(2, 4)),
    ],
)
class qr:
    def adjoint(bz, z, a, mode="reduced"):
        ba = runtime.qr_vjp(bz, z, a, mode)

    def tangent(dz, z, a, mode="reduced"):
        dz = runtime.qr_jvp(da, z, a, mode)
