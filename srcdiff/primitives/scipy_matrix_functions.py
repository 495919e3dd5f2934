"""SciPy's matrix exponential and logarithm (scipy.linalg.expm, logm) and Lyapunov's equation
(solve_continuous_lyapunov), declared once the program imports scipy.linalg (optional.py).
Real matrices.

The derivative of expm (of logm) at A in the direction E is its Frechet derivative L(A, E),
and the adjoint, applied to G, is L(A^T, G). runtime.expm_frechet and logm_frechet compute
them from the function of a block matrix (runtime/matrix_functions.py), plain numpy that
srcdiff differentiates through its source: their own derivatives call expm (logm) again, on
matrices twice as large, so every order works. The records of expm and logm cover the
runtime's expm and logm too, which that source calls (runtime never imports SciPy)."""

import scipy.linalg

from .. import runtime
from .registry import EVALUATE, Sample, primitive
from .samples import real, spd


def _matrix_function(*functions, **facts):
    return primitive(*functions, shape=EVALUATE, fresh=True, **facts)


@_matrix_function(
    scipy.linalg.expm,
    runtime.expm,
    samples=[
        Sample("scipy.linalg.expm(A)", A=real(3, 3)),
        Sample("scipy.linalg.expm(A * 0.5)", A=real(2, 3, 3)),
        Sample("runtime.expm(A)", A=real(2, 2)),
    ],
)
class expm:
    def adjoint(bz, z, A):
        bA = runtime.expm_frechet(A.mT, bz)

    def tangent(dz, z, A):
        dz = runtime.expm_frechet(A, dA)


# of matrices whose eigenvalues are positive (their logarithm is real), and of 2 x 2 ones:
# SciPy's logm estimates norms of larger ones with random vectors, so that its last bits vary
# (srcdiff's tests compare the generic code and the specialised one bit for bit)
@_matrix_function(
    scipy.linalg.logm,
    runtime.logm,
    samples=[
        Sample("scipy.linalg.logm(A)", A=spd(2)),
        Sample("scipy.linalg.logm(A + 3 * np.eye(2))", A=real(2, 2)),
        Sample("runtime.logm(A)", A=spd(2)),
    ],
)
class logm:
    def adjoint(bz, z, A):
        bA = runtime.logm_frechet(A.T, bz)

    def tangent(dz, z, A):
        dz = runtime.logm_frechet(A, dA)


def _through_source(function, call, **args):
    """A Frechet derivative: its record tells its result's shape; its sample checks its
    gradient through its source."""
    record = primitive(function, shape=EVALUATE, fresh=True, samples=[Sample(call, **args)])
    record(type(function.__name__, (), {}))


_through_source(runtime.expm_frechet, "runtime.expm_frechet(a, e)", a=real(3, 3), e=real(3, 3))
_through_source(
    runtime.logm_frechet, "runtime.logm_frechet(a + 4 * np.eye(2), e)", a=real(2, 2), e=real(2, 2)
)


# a x + x a^T = q: a dx + dx a^T = dq - da x - x da^T, and the adjoint solves with a^T
@_matrix_function(
    scipy.linalg.solve_continuous_lyapunov,
    samples=[
        Sample(
            "scipy.linalg.solve_continuous_lyapunov(a - 3 * np.eye(3), q)",
            a=real(3, 3),
            q=real(3, 3),
        )
    ],
)
class solve_continuous_lyapunov:
    def adjoint(bz, z, a, q):
        ba = -(
            scipy.linalg.solve_continuous_lyapunov(a.T, bz) @ z.T
            + scipy.linalg.solve_continuous_lyapunov(a.T, bz).T @ z
        )
        bq = scipy.linalg.solve_continuous_lyapunov(a.T, bz)

    def tangent(dz, z, a, q):
        dz = -scipy.linalg.solve_continuous_lyapunov(a, da @ z + z @ da.T)
        dz = scipy.linalg.solve_continuous_lyapunov(a, dq)
