"""Frechet derivatives of SciPy's matrix functions (scipy.linalg.expm and logm), plain numpy
that srcdiff differentiates through its source, so that their own derivatives (second order)
follow: for a primary matrix function f, f([[A, E], [0, A]]) = [[f(A), L(A, E)], [0, f(A)]],
L(A, E) being f's Frechet derivative at A in the direction E (Higham, Functions of Matrices,
2008, theorem 3.6). For a real A the adjoint of E -> L(A, E) is G -> L(A^T, G)."""

import numpy as np

from .scipy_support import expm, logm

__all__ = ["expm_frechet", "logm_frechet"]


def _upper_triangular_blocks(a, e):
    """[[a, e], [0, a]], of matrices (or stacks of them)."""
    top = np.concatenate([a, e], axis=-1)
    bottom = np.concatenate([np.zeros_like(a), a], axis=-1)
    return np.concatenate([top, bottom], axis=-2)


def expm_frechet(a, e):
    """The derivative of expm at a in the direction e."""
    n = a.shape[-1]
    return expm(_upper_triangular_blocks(a, e))[..., :n, n:]


def logm_frechet(a, e):
    """The derivative of logm at a in the direction e."""
    n = a.shape[-1]
    return logm(_upper_triangular_blocks(a, e))[..., :n, n:]
