"""Emitted code's runtime for np.linalg.qr and scipy.linalg.qr, in every mode but 'raw': plain
numpy that srcdiff differentiates again through its source, as runtime/linalg.py is. The
reduced factors by Roberts and Roberts (2020), a wide matrix [X Y] = Q [U V] through its
square part; R's triangle is solved with through np.linalg.solve (runtime/linalg.py says why).

The complete Q of a tall matrix (m > n) has m - n columns more, an orthonormal basis of what
a's columns leave out, which the decomposition alone does not fix. LAPACK fixes it: Q is a
product of n Householder reflectors, Q = I - V T V^T with V unit lower trapezoidal (geqrf's
output, which orgqr multiplies out), whatever the library. With V1 and V2 its first n and
last m - n rows, M = I - Q1[:n] = V1 T V1^T and Q1[n:] = -V2 T V1^T, so V2 V1^-1 =
-Q1[n:] M^-1 and Q2 = [M W; I - Q1[n:] W], W = M^-T Q1[n:]^T: the extra columns numpy and
SciPy return are a function of the first n, and their derivative is that function's. (M is
singular where a reflector is the identity, a column with zeros below its diagonal after
those before it: there the columns jump, and the solve says so.)"""

import numpy as np

from ..errors import ArgumentError
from .containers import unpack_adjoint
from .core import Sparse
from .linalg import real_matrices


def _copy_lower_to_upper(x):
    return np.tril(x) + np.tril(x, -1).mT


def _solve_right(x, r):
    """x r^-1."""
    return np.linalg.solve(r.mT, x.mT).mT


def qr_vjp(g, out, a, mode="reduced", pivoting=False):
    """The adjoint of a. `mode` is np.linalg.qr's or scipy.linalg.qr's (qr_factors); with
    pivoting (SciPy's), a[:, P] = Q R for the permutation P it returns, a constant: the
    adjoint of qr(a[:, P]) put back in P's columns."""
    if pivoting:
        factors, columns = _pivoted(out, mode)
        adjoints = unpack_adjoint(g, out)
        adjoints = (adjoints[0],) if mode == "r" else (adjoints[0], adjoints[1])
        return _factored_vjp(adjoints, factors, a[..., columns], mode)[..., np.argsort(columns)]
    return _factored_vjp(g, out, a, mode)


def _pivoted(out, mode):
    """(the factors, as qr returns them unpivoted; P) of a pivoted qr's output."""
    if mode == "r":
        return (out[0],), out[1]
    return (out[0], out[1]), out[2]


def _factored_vjp(g, out, a, mode):
    q, r = qr_factors(out, a, mode)
    gq, gr = _factor_adjoints(g, out, q, r, mode)
    m, n = a.shape[-2:]
    if m >= n:
        return _qr_tall_vjp(q, r, gq, gr)
    y, gv = a[..., m:], gr[..., m:]
    gx = _qr_tall_vjp(q, r[..., :m], gq + y @ gv.mT, gr[..., :m])
    return np.concatenate([gx, q @ gv], axis=-1)


def qr_factors(out, a, mode):
    """(Q, R) of a reduced QR of the matrices a, from the output of np.linalg.qr or
    scipy.linalg.qr in `mode`: the first min(m, n) columns of a complete Q and rows of its R;
    R alone for 'r' (SciPy's as a 1-tuple, with m rows), whose Q is found again."""
    real_matrices(a, "qr")
    if mode not in ("reduced", "economic", "complete", "full", "r"):
        raise ArgumentError(
            f"srcdiff differentiates qr with mode 'reduced', 'complete' or 'r', not {mode!r}",
            hint="ask for q and r (mode='reduced') and use them",
        )
    if mode == "r":
        r = out[0] if isinstance(out, tuple) else out
        return np.linalg.qr(a)[0], _reduced_rows(r, r)
    k = min(a.shape[-2:])
    return out[0][..., :k], _reduced_rows(out[1], out[1])


def _reduced_rows(x, r):
    """The first min(m, n) rows of x, an R with m rows (complete, or SciPy's mode='r') or its
    adjoint: the rows past them are zeros, whatever a is."""
    return x[..., : min(r.shape[-2:]), :]


def _factor_adjoints(g, out, q, r, mode):
    """The adjoints of the reduced Q and R, from g, that of the output: of a complete Q's
    extra columns, through their function of the first (qr_complement_vjp)."""
    if mode == "r":
        gr = unpack_adjoint(g, out)[0] if isinstance(out, tuple) else g
        return np.zeros_like(q), _reduced_rows(gr, r)
    gq, gr = unpack_adjoint(g, out)
    k = q.shape[-1]
    if gq.shape[-1] == k:
        return gq, _reduced_rows(gr, gr)
    return gq[..., :k] + qr_complement_vjp(gq[..., k:], q), _reduced_rows(gr, gr)


def _complement(q1):
    """(M, Q1[n:], W) of the module's doc, for the reduced Q1 of a tall matrix."""
    n = q1.shape[-1]
    upper = np.eye(n, dtype=q1.dtype) - q1[..., :n, :]
    lower = q1[..., n:, :]
    return upper, lower, np.linalg.solve(upper.mT, lower.mT)


def qr_complement_vjp(g2, q1):
    """The adjoint of Q1 given g2, that of the extra columns Q2 = [M W; I - Q1[n:] W]."""
    n = q1.shape[-1]
    upper, lower, w = _complement(q1)
    g_top, g_bottom = g2[..., :n, :], g2[..., n:, :]
    gw = upper.mT @ g_top - lower.mT @ g_bottom
    z = np.linalg.solve(upper, gw)  # (W = M^-T Q1[n:]^T: dW = M^-T (dQ1[n:]^T - dM^T W))
    g_upper = g_top @ w.mT - w @ z.mT
    return np.concatenate([-g_upper, z.mT - g_bottom @ w.mT], axis=-2)


def qr_complement_jvp(dq1, q1):
    """The tangent of the extra columns Q2 given dq1, that of Q1."""
    n = q1.shape[-1]
    upper, lower, w = _complement(q1)
    d_top, d_bottom = dq1[..., :n, :], dq1[..., n:, :]
    dw = np.linalg.solve(upper.mT, d_bottom.mT + d_top.mT @ w)
    return np.concatenate([upper @ dw - d_top @ w, -(d_bottom @ w) - lower @ dw], axis=-2)


def _qr_tall_vjp(q, r, gq, gr):
    m = r @ gr.mT - gq.mT @ q
    return _solve_right(gq + q @ _copy_lower_to_upper(m), r.mT)


def qr_jvp(da, out, a, mode="reduced", pivoting=False):
    if pivoting:  # (of Q and R, or R alone, as a tuple; none of P)
        factors, columns = _pivoted(out, mode)
        tangent = _factored_jvp(da[..., columns], factors, a[..., columns], mode)
        still = np.zeros(np.shape(columns))
        if mode == "r":
            return Sparse({0: tangent[0], 1: still})
        return Sparse({0: tangent[0], 1: tangent[1], 2: still})
    return _factored_jvp(da, out, a, mode)


def _factored_jvp(da, out, a, mode):
    q, r = qr_factors(out, a, mode)
    m, n = a.shape[-2:]
    if m >= n:
        dq, dr = _qr_tall_jvp(q, r, da)
    else:
        dq, du = _qr_tall_jvp(q, r[..., :m], da[..., :m])
        dr = np.concatenate([du, q.mT @ (da[..., m:] - dq @ r[..., m:])], axis=-1)
    if mode == "r" and not isinstance(out, tuple):
        return dr
    full = out[0] if mode == "r" else out[1]  # (an R with m rows: zero past the first n)
    dr = np.concatenate([dr, np.zeros_like(full[..., dr.shape[-2] :, :])], axis=-2)
    if mode == "r":
        return (dr,)
    if out[0].shape[-1] > dq.shape[-1]:
        dq = np.concatenate([dq, qr_complement_jvp(dq, q)], axis=-1)
    return dq, dr


def _qr_tall_jvp(q, r, da):
    da_rinv = _solve_right(da, r)
    c = q.mT @ da_rinv
    upper = c - np.tril(c, -1) + np.tril(c, -1).mT  # dR R^-1 (Q^T dQ takes the rest, skew)
    return da_rinv - q @ upper, upper @ r
