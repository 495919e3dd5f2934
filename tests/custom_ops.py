"""A module with user functions that get custom adjoint and tangent templates."""

import numpy as np

import srcdiff as nf


def _logistic(x):
    return 1 / (1 + np.exp(-x))


def softplus(x):
    """log(1 + e^x), computed stably; its adjoint is registered below, not derived."""
    return np.logaddexp(0.0, x)


@nf.adjoint(softplus)
def softplus_adjoint(bz, z, x):
    bx = bz * _logistic(x)


@nf.tangent(softplus)
def softplus_tangent(dz, z, x):
    dz = dx * _logistic(x)


@nf.adjoint(np.arcsinh)
def arcsinh_adjoint(bz, z, x):
    bx = bz / np.sqrt(x * x + 1)


@nf.tangent(np.arcsinh)
def arcsinh_tangent(dz, z, x):
    dz = dx / np.sqrt(x * x + 1)


def shifted_square(x, shift):
    return (x - shift) ** 2


@nf.adjoint(shifted_square)  # (bshift has x's shape when shift is a number: srcdiff sums it)
def shifted_square_adjoint(bz, z, x, shift):
    bx = bz * 2 * (x - shift)
    bshift = -bz * 2 * (x - shift)


def uses_the_shift_twice(x, shift):
    return np.sum(shifted_square(x, shift)) + shift**3


def model(w, x):
    return np.sum(softplus(x @ w) + np.arcsinh(w).sum())
