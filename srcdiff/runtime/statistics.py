"""Emitted code's runtime, part four: the adjoints of numpy's statistics — cumulative
products, order statistics (median, percentile, quantile), the NaN-ignoring reductions,
weighted averages and covariances."""

import numpy as np

from ..errors import ArgumentError
from .core import _keepdims_shape, conj, unbroadcast, unreduce
from .reductions import _reduced_last, count, prod_grad, prod_grad_tangent


# --- cumprod ------------------------------------------------------------------------------------
# z_j = a_0 ... a_j along the axis. Without zeros in a, the derivatives are ratios of z and a;
# with zeros, the products of the other factors are formed row by row (W below), so that every
# derivative stays exact there (as np.prod's do).


def _lined_up(x, axis):
    """x with the running axis last (flattened for axis None)."""
    x = np.asarray(x)
    return x.reshape(-1) if axis is None else np.moveaxis(x, axis, -1)


def _put_back(y, shape, axis):
    """y, laid out as _lined_up gives, in `shape` (a's, or the flat output's for axis None)."""
    return np.reshape(y, shape) if axis is None else np.moveaxis(y, -1, axis)


def _reverse_cumsum(x):
    return np.cumsum(x[..., ::-1], axis=-1)[..., ::-1]


def _factors(a):
    """W[..., j, k]: a_k for k <= j, else 1 (row j multiplies to z_j), and the mask k <= j."""
    n = a.shape[-1]
    below = np.tril(np.ones((n, n), dtype=bool))
    return np.where(below, a[..., None, :], 1), below


def _others(a):
    """dz_j / da_k: the product of the factors of z_j but a_k (0 for k > j)."""
    factors, below = _factors(a)
    return prod_grad(np.ones(factors.shape[:-1], factors.dtype), factors, axis=-1) * below


def _bent(a, d):
    """sum_l d_l d^2 z_j / da_k da_l, as [..., j, k] (0 for k > j)."""
    factors, below = _factors(a)
    ones = np.ones(factors.shape[:-1], factors.dtype)
    rows = np.where(below, d[..., None, :], 0)
    return prod_grad_tangent(ones, factors, rows, axis=-1) * below


def cumprod_grad(g, a, axis=None):
    """Adjoint of np.cumprod(a, axis): J^T g, with J_jk = dz_j / da_k."""
    x, gs = _lined_up(a, axis), _lined_up(g, axis)
    if np.all(x != 0):
        return _put_back(_reverse_cumsum(gs * np.cumprod(x, axis=-1)) / x, np.shape(a), axis)
    return _put_back(np.einsum("...j,...jk->...k", gs, _others(x)), np.shape(a), axis)


def cumprod_tangent(d, a, axis=None):
    """Tangent of np.cumprod(a, axis) along d: J d."""
    x, ds = _lined_up(a, axis), _lined_up(d, axis)
    shape = (x.size,) if axis is None else None
    if np.all(x != 0):
        return _put_back(np.cumprod(x, axis=-1) * np.cumsum(ds / x, axis=-1), shape, axis)
    return _put_back(np.einsum("...jk,...k->...j", _others(x), ds), shape, axis)


def cumprod_second(d, a, e, axis=None):
    """The second derivative of np.cumprod(a, axis) along d and e: sum_kl d_k e_l H_j,kl."""
    x, ds, es = _lined_up(a, axis), _lined_up(d, axis), _lined_up(e, axis)
    shape = (x.size,) if axis is None else None
    if np.all(x != 0):
        z, rd, re = np.cumprod(x, axis=-1), ds / x, es / x
        both = np.cumsum(rd, axis=-1) * np.cumsum(re, axis=-1) - np.cumsum(rd * re, axis=-1)
        return _put_back(z * both, shape, axis)
    return _put_back(np.einsum("...jk,...k->...j", _bent(x, ds), es), shape, axis)


def cumprod_curvature(g, a, u, axis=None):
    """The derivative of cumprod_grad(g, a, axis) along u: sum_j g_j H_j u."""
    x, gs, us = _lined_up(a, axis), _lined_up(g, axis), _lined_up(u, axis)
    if np.all(x != 0):
        weighted = gs * np.cumprod(x, axis=-1)
        running = np.cumsum(us / x, axis=-1)
        out = (_reverse_cumsum(weighted * running) - us / x * _reverse_cumsum(weighted)) / x
        return _put_back(out, np.shape(a), axis)
    return _put_back(np.einsum("...j,...jk->...k", gs, _bent(x, us)), np.shape(a), axis)


# --- median, percentile, quantile ---------------------------------------------------------------
# numpy's linear interpolation: quantile q of n sorted values s is (1 - t) s[lo] + t s[hi] at
# lo + t = q (n - 1). Tied values share the weight of their sorted positions evenly (as ties
# of np.max share its gradient), so the gradient does not depend on how the sort broke them.
# The NaN-ignoring ones (nanquantile) take n as each row's count of numbers: argsort puts the
# NaNs last, past every position read, so they get no gradient.


def _order(a, axis):
    """a's reduced axes merged last, as rows; the sort order of each row; the runs of tied
    values each sorted position belongs to ([start, end) positions); and the restoring map."""
    merged, restore = _reduced_last(a, axis)
    rows = merged.reshape(-1, merged.shape[-1])
    order = np.argsort(rows, axis=-1, kind="stable")
    ranked = np.take_along_axis(rows, order, axis=-1)
    n = rows.shape[-1]
    steps = np.arange(n)
    first = np.ones(rows.shape, dtype=bool)
    first[:, 1:] = ranked[:, 1:] != ranked[:, :-1]
    last = np.ones(rows.shape, dtype=bool)
    last[:, :-1] = first[:, 1:]
    start = np.maximum.accumulate(np.where(first, steps, 0), axis=-1)
    end = np.minimum.accumulate(np.where(last, steps + 1, n)[:, ::-1], axis=-1)[:, ::-1]
    return order, start, end, restore, merged.shape


def _counts(a, axis, order, skip_nans):
    """How many values the quantiles of each of _order's rows read: the row's count of
    numbers (as a column) for the NaN-ignoring quantiles, else its length."""
    if not skip_nans:
        return order.shape[-1]
    numbers = np.logical_not(np.isnan(_reduced_last(a, axis)[0]))
    return np.sum(numbers, axis=-1).reshape(-1, 1)


def _interpolation(q, n, method, dtype):
    """For each q: the sorted positions it reads in each row of n values (rows by q, or q
    alone for one n) and their weights (numpy's methods that read the order statistics
    themselves: 'linear' between two, 'midpoint' halfway, 'lower', 'higher' and 'nearest'
    one). A row of no numbers (n = 0) reads its first with weight 0."""
    position = np.ravel(q).astype(float) * np.maximum(n - 1, 0)
    low = np.floor(position).astype(int)
    whole = np.ones(position.shape, dtype) * np.greater(n, 0)
    if method == "lower":
        return ((low, whole),)
    if method == "higher":
        return ((np.ceil(position).astype(int), whole),)
    if method == "nearest":  # (numpy rounds halves to even, as np.around does)
        return ((np.around(position).astype(int), whole),)
    if method == "midpoint":
        return ((low, whole / 2), (np.ceil(position).astype(int), whole / 2))
    if method != "linear":
        raise ArgumentError(
            f"srcdiff differentiates quantiles with the methods 'linear' (numpy's default), "
            f"'lower', 'higher', 'nearest' and 'midpoint', not {method!r}",
            hint="use one of those",
        )
    high = np.minimum(low + 1, np.maximum(n - 1, 0))
    upper = (position - low).astype(dtype)
    return ((low, whole - upper), (high, upper * whole))


def _runs(start, end, position):
    """The [first, past) run of tied values holding each position read (rows by q)."""
    position = np.broadcast_to(position, (start.shape[0], np.shape(position)[-1]))
    return np.take_along_axis(start, position, -1), np.take_along_axis(end, position, -1)


def quantile_tangent(d, a, q, axis=None, keepdims=False, method="linear", skip_nans=False):
    """Tangent of np.quantile(a, q, axis, keepdims=keepdims) along d (a's shape); with
    skip_nans, of np.nanquantile."""
    order, start, end, _, merged = _order(a, axis)
    ds = np.take_along_axis(_reduced_last(d, axis)[0].reshape(order.shape), order, axis=-1)
    running = np.concatenate([np.zeros_like(ds[:, :1]), np.cumsum(ds, axis=-1)], axis=-1)
    out, n = 0, _counts(a, axis, order, skip_nans)
    for position, weight in _interpolation(q, n, method, ds.dtype):
        first, past = _runs(start, end, position)
        tied = np.take_along_axis(running, past, -1) - np.take_along_axis(running, first, -1)
        out = out + weight * tied / (past - first).astype(ds.dtype)
    return np.reshape(out.T, np.shape(q) + _reduced(a, axis, keepdims))


def quantile_grad(g, a, q, axis=None, keepdims=False, method="linear", skip_nans=False):
    """Adjoint of np.quantile(a, q, axis, keepdims=keepdims) (of np.nanquantile with
    skip_nans): g (q's shape + the reduced shape) handed to the values each quantile
    interpolates, shared by ties."""
    order, start, end, restore, merged = _order(a, axis)
    rows, n = order.shape
    gs = np.reshape(g, (-1, rows)).T  # (rows, number of q)
    ramps = np.zeros((rows, n + 1), dtype=np.result_type(gs, float))
    every, counts = np.arange(rows)[:, None], _counts(a, axis, order, skip_nans)
    for position, weight in _interpolation(q, counts, method, ramps.dtype):
        first, past = _runs(start, end, position)
        share = gs * weight / (past - first)
        np.add.at(ramps, (every, first), share)
        np.add.at(ramps, (every, past), -share)
    spread = np.cumsum(ramps, axis=-1)[:, :n]
    if skip_nans:  # (the NaNs, sorted last: exactly 0, not what rounding leaves of the ramps)
        spread = np.where(np.arange(n) < counts, spread, 0)
    out = np.empty((rows, n), dtype=ramps.dtype)
    np.put_along_axis(out, order, spread, axis=-1)
    return restore(out.reshape(merged)).astype(np.result_type(g, a), copy=False)


def _reduced(a, axis, keepdims):
    """The shape a reduction of a over axis leaves (kept as 1s with keepdims)."""
    kept = _keepdims_shape(a, axis)
    if keepdims:
        return kept
    axes = range(np.ndim(a)) if axis is None else np.atleast_1d(axis) % max(np.ndim(a), 1)
    return tuple(n for k, n in enumerate(kept) if k not in set(np.ravel(axes).tolist()))


# --- NaN-ignoring reductions --------------------------------------------------------------------


def count_numbers(a, axis=None, keepdims=False):
    """How many values that are not NaN a reduction over `axis` combines (in a's float
    dtype, so that dividing by it keeps float32 float32)."""
    dtype = np.result_type(a) if np.result_type(a).kind == "f" else float
    return np.sum(np.logical_not(np.isnan(a)), axis=axis, keepdims=keepdims).astype(dtype)


def nanvar_grad(g, x, axis=None, ddof=0, keepdims=False):
    """Adjoint of np.nanvar: like var_grad over the values that are not NaN, 0 at NaNs.
    Linear in g and in x's numbers (the NaNs' places fixed), as var_grad is."""
    x = np.asarray(x)
    numbers = np.logical_not(np.isnan(x))
    count = count_numbers(x, axis=axis, keepdims=True)
    centred = np.where(numbers, x - np.nansum(x, axis=axis, keepdims=True) / count, 0)
    return unreduce(g, x, axis, keepdims) * centred * (2 / (count - ddof))


# --- average ------------------------------------------------------------------------------------


def _weight_axes(weights, a, axis):
    """How np.average lays weights over a: the axes order and the shape they take."""
    axes = tuple(np.atleast_1d(axis) % np.ndim(a))
    shape = tuple(n if k in axes else 1 for k, n in enumerate(np.shape(a)))
    return np.argsort(axes), shape


def weights_for(weights, a, axis=None):
    """np.average's weights laid over a (broadcastable to it); 1.0 for none."""
    if weights is None:
        return 1.0
    if np.shape(weights) == np.shape(a) or axis is None:
        return np.asarray(weights)  # (a list given: its tangent is an array of zeros)
    order, shape = _weight_axes(weights, a, axis)
    return np.reshape(np.transpose(weights, order), shape)


def unweights(b, weights, a, axis=None):
    """The adjoint of weights_for(weights, a, axis), for b of a's shape or of the laid out
    weights': b summed to the laid out weights, in the weights' own layout."""
    if np.shape(weights) == np.shape(a) or axis is None:
        return np.reshape(unbroadcast(b, weights), np.shape(weights))
    order, shape = _weight_axes(weights, a, axis)
    laid = np.reshape(
        unbroadcast(b, np.empty(shape, bool)),
        np.shape(np.transpose(np.empty(np.shape(weights), bool), order)),
    )
    return np.transpose(laid, np.argsort(order))


def weight_total(weights, a, axis=None, keepdims=False):
    """The sum of the weights np.average(a, axis, weights) divides by (the count of the
    values averaged for no weights)."""
    if weights is None:  # (a Python number: it keeps float32 float32)
        return float(count(a, axis))
    laid = np.broadcast_to(weights_for(weights, a, axis), np.shape(a))
    return np.sum(laid, axis=axis, keepdims=keepdims)


# --- cov ----------------------------------------------------------------------------------------


def _variables(m, rowvar, bias, ddof, others):
    """np.cov's matrix of variables as rows, the divisor, and the map back to m's layout."""
    if any(o is not None for o in others):
        raise ArgumentError(
            "srcdiff differentiates np.cov(m) without y, fweights or aweights",
            hint="stack y into m (np.cov(np.vstack([m, y]))) and weigh the observations by hand",
        )
    rows = np.atleast_2d(m)
    flipped = not rowvar and rows.shape[0] != 1
    rows = rows.T if flipped else rows
    ddof = (0 if bias else 1) if ddof is None else ddof
    centred = rows - np.mean(rows, axis=1, keepdims=True)
    back = lambda x: np.reshape(x.T if flipped else x, np.shape(m))  # noqa: E731
    return centred, rows.shape[1] - ddof, back


def cov_grad(g, m, rowvar=True, bias=False, ddof=None, y=None, fweights=None, aweights=None):
    """Adjoint of np.cov(m, rowvar=..., bias=..., ddof=...): (G + G^H) conj(X_c) / (N - ddof)
    for the centred variables X_c (np.cov of complex data is X_c X_c^H / (N - ddof))."""
    centred, divisor, back = _variables(m, rowvar, bias, ddof, (y, fweights, aweights))
    k = centred.shape[0]
    square = np.reshape(g, (k, k))
    return back((square + conj(square).T) @ conj(centred) / divisor)


def cov_tangent(m, t, rowvar=True, bias=False, ddof=None, y=None, fweights=None, aweights=None):
    """Tangent of np.cov(m, ...) along t: (X_c T_c^H + T_c X_c^H) / (N - ddof), symmetric in
    m and t, and real-linear in each."""
    centred, divisor, _ = _variables(m, rowvar, bias, ddof, (y, fweights, aweights))
    moved, _, _ = _variables(t, rowvar, bias, ddof, ())
    return np.squeeze((centred @ conj(moved).T + moved @ conj(centred).T) / divisor)
