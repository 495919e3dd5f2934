"""Emitted code's runtime for numpy's numerical routines (srcdiff/primitives/numerics.py):
convolutions, polynomials, integration, differences and interpolation."""

import numpy as np

from ..errors import ArgumentError
from .core import unbroadcast
from .linalg import norm_vjp
from .rearranging import untake
from .statistics import cov_grad, cov_tangent

__all__ = [
    "corrcoef_jvp",
    "corrcoef_vjp",
    "interp_fp_grad",
    "interp_slope",
    "interp_xp_grad",
    "interp_xp_tangent",
    "spacings",
    "ediff1d_grad",
    "zeros_or_none",
    "gradient_grad",
    "vector_norm_vjp",
    "kept_indices",
    "block",
    "block_labels",
    "unblock",
    "block_back",
    "inserted_places",
    "uninsert",
    "polyder",
    "powers",
    "angle_unit",
    "convolve_margins",
    "trapezoid_unit",
    "trapezoid_weights",
    "trapezoid_x_grad",
    "vander_powers",
]


def convolve_margins(a, v, mode="full", correlate=False):
    """The zeros np.pad puts around np.convolve(a, v, mode) (np.correlate's, with correlate)
    to make the full result again: ((before, after),). numpy swaps the operands when v is the
    longer, which moves np.correlate's 'same' window (measured for all lengths up to 6)."""
    n, m = np.shape(a)[0], np.shape(v)[0]
    full = n + m - 1
    if mode == "full":
        return ((0, 0),)
    if mode == "valid":
        start, size = min(n, m) - 1, abs(n - m) + 1
    elif not correlate:
        start, size = (min(n, m) - 1) // 2, max(n, m)
    else:
        start, size = ((m - 1) // 2 if n >= m else n - 1 - (n - 1) // 2), max(n, m)
    return ((start, full - start - size),)


def vander_powers(x, n=None, increasing=False):
    """The power of x in each column of np.vander(x, n, increasing)."""
    n = np.shape(x)[0] if n is None else n
    return np.arange(n) if increasing else np.arange(n - 1, -1, -1)


def trapezoid_weights(y, x=None, dx=1.0, axis=-1):
    """The weight of each of y's values along axis in np.trapezoid(y, x, dx, axis), laid
    along that axis: half the widths of the intervals on either side."""
    n = np.shape(y)[axis]
    if x is None:
        widths = dx * np.ones(n - 1, dtype=np.result_type(y, 0.0))
    elif np.ndim(x) == 1:
        widths = np.diff(x)
    else:
        widths = np.diff(np.moveaxis(x, axis, -1), axis=-1)
    edge = np.zeros_like(widths[..., :1])
    weights = (np.concatenate([edge, widths], -1) + np.concatenate([widths, edge], -1)) / 2
    if np.ndim(weights) == 1:
        return np.reshape(weights, (n,) + (1,) * (np.ndim(y) - 1 - axis % np.ndim(y)))
    return np.moveaxis(weights, -1, axis)


def trapezoid_x_grad(g, y, x, axis=-1):
    """The adjoint of np.trapezoid(y, x, axis=axis) in x given g, the result's: each
    interval's width weighs the mean of y at its ends."""
    ends = np.moveaxis(y, axis, -1)
    bwidths = np.expand_dims(g, -1) * (ends[..., 1:] + ends[..., :-1]) / 2
    bx = np.concatenate(
        [-bwidths[..., :1], bwidths[..., :-1] - bwidths[..., 1:], bwidths[..., -1:]], -1
    )
    if np.ndim(x) == 1:
        return np.sum(np.reshape(bx, (-1, np.shape(x)[0])), axis=0)
    return unbroadcast(np.moveaxis(bx, -1, axis), x)


def trapezoid_unit(y, x=None, axis=-1):
    """The slope of np.trapezoid(y, x, dx, axis) in dx: the integral with unit spacing
    without x, none with x (dx is then unused)."""
    return np.trapezoid(y, axis=axis) if x is None else np.zeros_like(np.trapezoid(y, axis=axis))


def angle_unit(deg=False):
    """The unit of np.angle(z, deg): degrees to the radian, or 1."""
    return 180 / np.pi if deg else 1.0


def polyder(p):
    """The coefficients of the derivative of the polynomial p (highest power first), in p's
    precision (np.polyder's are float64); p may be a list, as np.polyval takes one."""
    p = np.asarray(p)
    return p[:-1] * np.arange(len(p) - 1, 0, -1, dtype=np.result_type(p, 1.0))


def powers(x, n):
    """x ** (n - 1), ..., x, 1 for each element of x, in rows: np.vander of x flattened, in
    x's precision (np.vander's is float64)."""
    x = np.asarray(x)
    return np.ravel(x)[:, None] ** np.arange(n - 1, -1, -1, dtype=np.result_type(x, 1.0))


def kept_indices(arr, obj, axis=None):
    """The indices along axis (of the flattened arr, for None) that np.delete(arr, obj, axis)
    keeps."""
    n = np.size(arr) if axis is None else np.shape(arr)[axis]
    return np.delete(np.arange(n), obj)


def block(arrays, layout):
    """np.block of `arrays` nested as `layout` says (tuples of their indices): what
    np.block([[a, b], [c, d]]) becomes (blocks.py), its pieces one list."""
    return np.block(_nested(arrays, layout))


def _nested(arrays, layout):
    if isinstance(layout, tuple):
        return [_nested(arrays, part) for part in layout]
    return arrays[layout]


def block_labels(arrays, layout):
    """The index of the piece each element of block(arrays, layout) comes from."""
    return np.block(_nested([np.full(np.shape(a), k) for k, a in enumerate(arrays)], layout))


def unblock(g, arrays, layout, index):
    """The piece of g that came from arrays[index] in block(arrays, layout): a box of g's
    elements, in order."""
    return np.reshape(g[block_labels(arrays, layout) == index], np.shape(arrays[index]))


def block_back(b, g, arrays, layout, index):
    """The adjoint of unblock(g, arrays, layout, index): zeros of g's shape with `b` in
    the box of that piece."""
    out = np.zeros(np.shape(g), dtype=np.result_type(b, g))
    out[block_labels(arrays, layout) == index] = np.ravel(b)
    return out


def inserted_places(arr, obj, values, axis=None, part=0):
    """(the places of np.insert(arr, obj, values, axis), raveled, that hold elements of arr
    (part 0) or of values (part 1), the index of each there in it, raveled): np.insert
    itself says, of arrays numbering them."""
    count = np.arange(np.size(arr)).reshape(np.shape(arr))
    numbers = np.arange(np.size(values)).reshape(np.shape(values))
    if part == 0:  # (values' shape says how many places a scalar obj opens)
        numbered = np.insert(count, obj, np.full_like(numbers, -1), axis=axis)
    else:
        numbered = np.insert(np.full_like(count, -1), obj, numbers, axis=axis)
    flat = numbered.ravel()
    places = np.flatnonzero(flat >= 0)
    return places, flat[places]


def uninsert(g, arr, obj, values, axis=None, part=0):
    """Adjoint of np.insert(arr, obj, values, axis) in arr (part 0) or values (part 1): the
    elements of g where np.insert put theirs, added back (a values broadcast fills several
    places from one)."""
    places, sources = inserted_places(arr, obj, values, axis, part)
    return untake(np.take(g, places), arr if part == 0 else values, sources)


def vector_norm_vjp(g, norm, x, axis=None, keepdims=False, ord=2):
    """Adjoint of np.linalg.vector_norm: np.linalg.norm's of a vector norm along one axis,
    the axes of a tuple (or all of x, for None) first made one, the last."""
    if axis is not None and np.ndim(axis) == 0:
        return norm_vjp(g, norm, x, ord=ord, axis=axis, keepdims=keepdims)
    axes = tuple(range(np.ndim(x)))
    if axis is not None:
        axes = tuple(a % np.ndim(x) for a in axis)
    moved = np.moveaxis(x, axes, tuple(range(-len(axes), 0)))
    lines = np.reshape(moved, np.shape(moved)[: np.ndim(x) - len(axes)] + (-1,))
    kept = np.shape(lines)[:-1] + (1,)
    slope = norm_vjp(
        np.reshape(g, kept), np.reshape(norm, kept), lines, ord=ord, axis=-1, keepdims=True
    )
    return np.moveaxis(np.reshape(slope, np.shape(moved)), tuple(range(-len(axes), 0)), axes)


def spacings(spacing=None):
    """np.gradient's varargs for one spacing or none."""
    return () if spacing is None else (spacing,)


def gradient_grad(g, f, spacing=None, axis=None, edge_order=1):
    """Adjoint of np.gradient(f, spacing, axis=axis, edge_order=edge_order) along one axis
    with one uniform spacing (or none): the transposed differences (central inside,
    one-sided of edge_order at the ends)."""
    if (axis is None and np.ndim(f) != 1) or np.ndim(axis) > 0:
        raise ArgumentError(
            "srcdiff differentiates np.gradient along one axis only (its result one array)",
            hint="pass axis=k, once for each axis wanted",
        )
    if np.ndim(spacing) > 0:
        raise ArgumentError(
            "srcdiff differentiates np.gradient with one number as the spacing, not coordinates",
            hint="pass the spacing as a number, or write the differences with np.diff",
        )
    axis = 0 if axis is None else axis
    lines = np.moveaxis(g, axis, -1) / (1.0 if spacing is None else spacing)
    inner, first, last = lines[..., 1:-1] / 2, lines[..., :1], lines[..., -1:]
    zero = np.zeros_like(first)
    out = np.concatenate([zero, zero, inner], -1) - np.concatenate([inner, zero, zero], -1)
    if edge_order == 1:
        rest = np.zeros_like(lines[..., 2:])
        out = out + np.concatenate([-first, first, rest], -1)
        out = out + np.concatenate([rest, -last, last], -1)
    else:
        rest = np.zeros_like(lines[..., 3:])
        out = out + np.concatenate([-1.5 * first, 2 * first, -0.5 * first, rest], -1)
        out = out + np.concatenate([rest, 0.5 * last, -2 * last, 1.5 * last], -1)
    return np.moveaxis(out, -1, axis)


def ediff1d_grad(g, ary, to_end=None, to_begin=None):
    """Adjoint of np.ediff1d(ary, to_end, to_begin) in ary: the transposed difference of the
    middle of g, shaped as ary."""
    begin = 0 if to_begin is None else np.size(to_begin)
    end = 0 if to_end is None else np.size(to_end)
    middle = g[begin : len(g) - end]
    zero = np.zeros(1, dtype=np.result_type(g))
    return np.reshape(
        np.concatenate([zero, middle]) - np.concatenate([middle, zero]), np.shape(ary)
    )


def zeros_or_none(x):
    """Zeros shaped as x, or None for None: the tangent of an optional constant part."""
    return None if x is None else np.zeros_like(x, dtype=float)


def _refuse_period(period):
    if period is not None:
        raise ArgumentError(
            "srcdiff differentiates np.interp without period",
            hint="map x into one period first (x % period), with xp and fp covering it",
        )


def interp_slope(x, xp, fp, period=None):
    """The slope of np.interp(x, xp, fp) in x: its segment's, and 0 beyond xp's ends (at a
    knot, the segment's to the right)."""
    _refuse_period(period)
    segment = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, len(xp) - 2)
    inside = (x >= xp[0]) & (x <= xp[-1])
    return np.where(inside, np.take(np.diff(fp) / np.diff(xp), segment), 0)


def interp_fp_grad(g, x, xp, fp, left=None, right=None, period=None):
    """The adjoint of np.interp(x, xp, fp, left, right) in fp: each g shared between its
    segment's ends by x's place in it (none beyond an end where left or right is given)."""
    _refuse_period(period)
    i = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, len(xp) - 2)
    t = np.clip((x - np.take(xp, i)) / (np.take(xp, i + 1) - np.take(xp, i)), 0, 1)
    kept = np.ones_like(t)
    if left is not None:
        kept = np.where(x < xp[0], 0, kept)
    if right is not None:
        kept = np.where(x > xp[-1], 0, kept)
    return untake(np.ravel(g * kept * (1 - t)), fp, np.ravel(i)) + untake(
        np.ravel(g * kept * t), fp, np.ravel(i + 1)
    )


def _segments(x, xp, fp):
    """(x's segment i, its place t in it, its slope, whether x is within xp's ends)."""
    i = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, len(xp) - 2)
    lower = np.take(xp, i)
    t = (x - lower) / (np.take(xp, i + 1) - lower)
    slope = np.take(np.diff(fp) / np.diff(xp), i)
    return i, t, slope, (x >= xp[0]) & (x <= xp[-1])


def interp_xp_grad(g, x, xp, fp, period=None):
    """The adjoint of np.interp(x, xp, fp) in the knots xp: moving a segment's ends moves
    the line through them (by -slope (1 - t) and -slope t); nothing beyond xp's ends."""
    _refuse_period(period)
    i, t, slope, inside = _segments(x, xp, fp)
    w = np.where(inside, -g * slope, 0.0)
    return untake(np.ravel(w * (1 - t)), xp, np.ravel(i)) + untake(
        np.ravel(w * t), xp, np.ravel(i + 1)
    )


def interp_xp_tangent(dxp, x, xp, fp, period=None):
    """The tangent of np.interp(x, xp, fp) along a move dxp of the knots."""
    _refuse_period(period)
    i, t, slope, inside = _segments(x, xp, fp)
    moved = (1 - t) * np.take(dxp, i) + t * np.take(dxp, i + 1)
    return np.where(inside, -slope * moved, 0.0)


def corrcoef_vjp(g, r, x, y=None, rowvar=True):
    """Adjoint of r = np.corrcoef(x, rowvar=rowvar) of real x: r = c / (s s^T) for c the
    covariance and s its diagonal's square roots, back through np.cov (cov_grad). (Of one
    variable, r is 1.)"""
    if np.ndim(r) == 0:
        return np.zeros_like(x)
    c = np.cov(x, y, rowvar=rowvar)
    s = np.sqrt(np.diagonal(c))
    bs = -(np.sum(g * r, axis=1) + np.sum(g * r, axis=0)) / s
    bc = g / (s[:, None] * s[None, :]) + np.diag(bs / (2 * s))
    return cov_grad(bc, x, rowvar=rowvar, y=y)


def corrcoef_jvp(dx, r, x, y=None, rowvar=True):
    """Tangent of r = np.corrcoef(x, rowvar=rowvar) along dx (real x)."""
    if np.ndim(r) == 0:
        return np.zeros_like(r)
    c = np.cov(x, y, rowvar=rowvar)
    s = np.sqrt(np.diagonal(c))
    dc = cov_tangent(x, dx, rowvar=rowvar, y=y)
    relative = np.diagonal(dc) / (2 * s * s)  # ds / s
    return dc / (s[:, None] * s[None, :]) - r * (relative[:, None] + relative[None, :])
