"""Emitted code's runtime for scipy.linalg.eigh and eigvalsh with a second matrix b, the
symmetric-definite problem A V = B V diag(w) with V^T B V = I (B the identity without b), and
with eigvals_only=True. Plain numpy that srcdiff differentiates again through its source, as
runtime/linalg.py is.

With P = V^T dA V and Q = V^T dB V (of the symmetric parts of dA and dB), differentiating
A V = B V diag(w) and V^T B V = I gives dw = diag(P) - w diag(Q) and
dV = V (F o (P - Q diag(w)) - diag(diag(Q)) / 2), F[i, j] = 1 / (w[j] - w[i]) off the
diagonal (reciprocal_gaps: tied eigenvalues as np.linalg.eigh's); the adjoints are their
transposes. Without b, Q is zero and these are np.linalg.eigh's rules.

type=2 (A B v = w v, V^T B V = I) is this problem for the pair (B A B, B), whose w and V
are the same; type=3 (B A v = w v, V^T B^-1 V = I) is too, of Y = B^-1 V: both are
differentiated as it, dA standing for B dA B (and dB A B + B A dB), and V = B Y."""

import numpy as np

from .containers import unpack_adjoint
from .core import Sparse
from .linalg import _diagonal, _eye_like, real_matrices, reciprocal_gaps, symmetrize


def _eigenvectors(a, b):
    """V of scipy.linalg.eigh(a, b) up to the signs of its columns, for eigvals_only=True:
    with L L^T = B, the eigenvectors U of L^-1 A L^-T give V = L^-T U."""
    if b is None:
        return np.linalg.eigh(symmetrize(a))[1]
    factor = np.linalg.cholesky(symmetrize(b))
    reduced = np.linalg.solve(factor, np.linalg.solve(factor, symmetrize(a)).mT)
    return np.linalg.solve(factor.mT, np.linalg.eigh(symmetrize(reduced))[1])


def _pairs(out, a, b, eigvals_only):
    """(w, V) of the call's output `out` (w alone for eigvals_only=True, whose V is found
    again)."""
    real_matrices(a, "eigh")
    if eigvals_only:
        return out, _eigenvectors(a, b)
    return out[0], out[1]


def generalized_eigh_vjp(g, out, a, b, eigvals_only, wrt, kind=1):
    """The adjoint of a (wrt=0) or b (wrt=1): V bP V^T for bP = diag(gw) + F o H, and
    V bQ V^T for bQ = -diag(gw w + diag(H) / 2) - (F o H) diag(w), H = V^T gV (symmetrized:
    a function of the symmetric parts); of type=`kind` 2 or 3, through type 1's (above)."""
    if kind != 1 and b is not None:
        return _folded_vjp(g, out, symmetrize(a), symmetrize(b), eigvals_only, wrt, kind)
    return _standard_vjp(g, out, a, b, eigvals_only, wrt)


def _standard_vjp(g, out, a, b, eigvals_only, wrt):
    w, v = _pairs(out, a, b, eigvals_only)
    gw = g if eigvals_only else unpack_adjoint(g, out)[0]
    projected = np.zeros_like(v) if eigvals_only else v.mT @ unpack_adjoint(g, out)[1]
    coupled = reciprocal_gaps(w) * projected
    if wrt == 0:
        inner = _eye_like(v) * gw[..., None, :] + coupled
    else:
        scale = gw * w + _diagonal(projected) / 2
        inner = -(_eye_like(v) * scale[..., None, :]) - coupled * w[..., None, :]
    return symmetrize(v @ inner @ v.mT)


def generalized_eigh_jvp(d, out, a, b, eigvals_only, wrt, kind=1):
    """The part of the tangent from dA (wrt=0) or dB (wrt=1): (dw, dV) as a Sparse, so that
    the parts from a and b add up; dw alone for eigvals_only=True."""
    if kind != 1 and b is not None:
        return _folded_jvp(d, out, symmetrize(a), symmetrize(b), eigvals_only, wrt, kind)
    return _standard_jvp(d, out, a, b, eigvals_only, wrt)


def _standard_jvp(d, out, a, b, eigvals_only, wrt):
    w, v = _pairs(out, a, b, eigvals_only)
    projected = v.mT @ symmetrize(d) @ v
    if wrt == 0:
        dw = _diagonal(projected)
        dv = v @ (reciprocal_gaps(w) * projected)
    else:
        dw = -w * _diagonal(projected)
        turned = reciprocal_gaps(w) * (projected * w[..., None, :])
        dv = -(v @ (turned + _eye_like(v) * projected / 2))
    return dw if eigvals_only else Sparse({0: dw, 1: dv})


def _folded_vjp(g, out, a, b, eigvals_only, wrt, kind):
    """type=2's or 3's adjoint of a or b, through type 1's of (B A B, B): B gA' B, and
    gB' + gA' B A + A B gA' (+ gV Y^T, of V = B Y for type 3)."""
    turned = kind == 3 and not eigvals_only
    adjoints = unpack_adjoint(g, out) if turned else None
    inner = (out[0], np.linalg.solve(b, out[1])) if turned else out
    inner_g = (adjoints[0], b @ adjoints[1]) if turned else g
    folded = b @ a @ b
    ga = _standard_vjp(inner_g, inner, folded, b, eigvals_only, 0)
    if wrt == 0:
        return symmetrize(b @ ga @ b)
    gb = _standard_vjp(inner_g, inner, folded, b, eigvals_only, 1)
    gb = gb + ga @ b @ a + a @ b @ ga
    return symmetrize(gb + adjoints[1] @ inner[1].mT if turned else gb)


def _folded_jvp(d, out, a, b, eigvals_only, wrt, kind):
    """type=2's or 3's tangent part from a or b, through type 1's of (B A B, B)."""
    turned = kind == 3 and not eigvals_only
    inner = (out[0], np.linalg.solve(b, out[1])) if turned else out
    folded, d = b @ a @ b, symmetrize(d)
    if wrt == 0:
        part = _standard_jvp(b @ d @ b, inner, folded, b, eigvals_only, 0)
    else:
        moved = d @ a @ b + b @ a @ d
        part = _standard_jvp(moved, inner, folded, b, eigvals_only, 0)
        part = part + _standard_jvp(d, inner, folded, b, eigvals_only, 1)
    if not turned:
        return part
    dv = b @ part[1] + d @ inner[1] if wrt == 1 else b @ part[1]
    return Sparse({0: part[0], 1: dv})
