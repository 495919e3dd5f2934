"""Emitted code's runtime: the adjoints of numpy's reductions (mean, var, max and min,
prod, cumsum), which spread an adjoint back over the reduced axes."""

import numpy as np

from .core import _normalize_axes, unreduce


def count(x, axis=None, where=True, keepdims=False):
    """How many elements a reduction over `axis` combines (those `where` takes: then an
    array of the counts, in x's float dtype so that dividing by it keeps float32 float32)."""
    shape = np.shape(x)
    if where is True:
        return int(np.prod([shape[a] for a in _normalize_axes(axis, len(shape))]))
    dtype = np.result_type(x) if np.result_type(x).kind == "f" else float
    taken = np.broadcast_to(where, shape)
    return np.sum(taken, axis=axis, keepdims=keepdims).astype(dtype)


def mean_grad(g, x, axis=None, keepdims=False, where=True):
    return unreduce(np.asarray(g) / count(x, axis, where, keepdims), x, axis, keepdims, where)


def var_grad(g, x, axis=None, ddof=0, keepdims=False, where=True):
    """Adjoint of np.var: 2 (x - mean) / (count - ddof), spread by g (0 where `where` leaves
    an element out). Linear in g, and in x (the centring is a symmetric projection)."""
    centred = np.conj(x - np.mean(x, axis=axis, keepdims=True, where=where))  # of |x - mean|
    divisor = count(x, axis, where, keepdims=True) - ddof
    if where is True:
        scale = 2.0 / divisor if divisor else float("inf")  # (one sample, ddof=1: numpy's nan)
        return unreduce(g, x, axis, keepdims) * centred * scale
    with np.errstate(divide="ignore", invalid="ignore"):
        spread = unreduce(g, x, axis, keepdims) * centred * (2.0 / divisor)
    return np.where(where, spread, np.zeros((), spread.dtype))


def extremum_grad(g, peak, x, axis=None, keepdims=False, initial=None, where=True):
    """Adjoint of max/min (`peak`): the gradient is split evenly between tied elements (of
    those `where` takes, and the constant `initial`, which takes its share)."""
    hits = (x == unreduce(peak, x, axis, keepdims)) & np.asarray(where)
    ties = np.sum(hits, axis=axis, keepdims=True).astype(np.result_type(g))
    if initial is not None:
        ties = ties + np.equal(initial, unreduce(peak, ties, axis, keepdims=keepdims))
    return unreduce(g, x, axis, keepdims) * hits / np.maximum(ties, 1)


def reverse_cumsum(g, like, axis=None):
    """Adjoint of np.cumsum: each element collects the adjoints of every running sum it is
    part of (a cumulative sum from the end), in `like`'s shape."""
    if axis is None:
        flat = np.ravel(g)[::-1]
        return np.reshape(np.cumsum(flat)[::-1], np.shape(like))
    return np.flip(np.cumsum(np.flip(g, axis), axis=axis), axis)


def _reduced_last(x, axis):
    """x with the reduced axes moved last and merged into one, and the function undoing it."""
    x = np.asarray(x)
    axes = _normalize_axes(axis, x.ndim)
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = np.transpose(x, kept + list(axes))
    order = np.argsort(kept + list(axes))
    merged = int(np.prod([x.shape[a] for a in axes]))  # (-1 cannot say it for size 0)
    return (
        moved.reshape(moved.shape[: len(kept)] + (merged,)),
        lambda flat: np.transpose(flat.reshape(moved.shape), order),
    )


def prod_grad(g, x, axis=None, keepdims=False):
    """Adjoint of prod as the product of all other elements (exact with zeros in `x`)."""
    flat, restore = _reduced_last(x, axis)
    ones = np.ones_like(flat[..., :1])
    before = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, flat[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return unreduce(g, x, axis, keepdims) * restore(before * after)


def prod_grad_tangent(g, x, dx, axis=None, keepdims=False):
    """Tangent of prod_grad(g, x) along dx: the derivative of each product of the others,
    by running products and their derivatives (no division, so zeros stay exact)."""
    flat, restore = _reduced_last(x, axis)
    dflat = _reduced_last(dx, axis)[0]
    n = flat.shape[-1]
    if n == 0:  # (an empty product: no element, so no other element's derivative)
        return unreduce(g, x, axis, keepdims) * restore(flat * dflat)
    product, dproduct = np.ones_like(flat[..., 0]), np.zeros_like(flat[..., 0])
    before, dbefore = [], []
    for i in range(n):
        before.append(product)
        dbefore.append(dproduct)
        dproduct = dproduct * flat[..., i] + product * dflat[..., i]
        product = product * flat[..., i]
    product, dproduct = np.ones_like(flat[..., 0]), np.zeros_like(flat[..., 0])
    dothers = [None] * n
    for i in reversed(range(n)):
        dothers[i] = dbefore[i] * product + before[i] * dproduct
        dproduct = dproduct * flat[..., i] + product * dflat[..., i]
        product = product * flat[..., i]
    return unreduce(g, x, axis, keepdims) * restore(np.stack(dothers, axis=-1))
