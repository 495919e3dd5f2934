"""Library functions srcdiff differentiates through a version of them written in Python, as it
does a user's function: those that call a function they are given (np.apply_along_axis), or
that loop over Python values (itertools.accumulate, np.fromiter, divmod, math.fsum). Each version
computes what the library's does, with the operations srcdiff has rules for; a call of the
library function resolves to it (remat.unwrap), and emitted code calls its derivative."""

import itertools
import math
import sys

import numpy as np

_VERSIONS = {}
# an optional library's: module -> {its function's name: the version}, declared when imported
_WHEN_IMPORTED = {}
_modules_seen = [0]  # how many modules were imported when _WHEN_IMPORTED was last looked at


def _version_of(library_function):
    def declare(version):
        _VERSIONS[library_function] = version
        return version

    return declare


def _version_of_imported(module, name):
    def declare(version):
        _WHEN_IMPORTED.setdefault(module, {})[name] = version
        return version

    return declare


def is_python_version(fn):
    return fn in _VERSIONS.values() or any(fn in v.values() for v in _WHEN_IMPORTED.values())


def python_version(obj):
    """The Python version of the library function `obj`, or None."""
    if _WHEN_IMPORTED and len(sys.modules) != _modules_seen[0]:  # (a module imported since)
        _modules_seen[0] = len(sys.modules)
        for module in [m for m in _WHEN_IMPORTED if m in sys.modules]:
            for name, version in _WHEN_IMPORTED.pop(module).items():
                _VERSIONS[getattr(sys.modules[module], name)] = version
    try:
        return _VERSIONS.get(obj)
    except TypeError:  # (an unhashable value)
        return None


@_version_of(np.apply_along_axis)
def apply_along_axis(func1d, axis, arr):
    arr = np.asarray(arr)
    axis = axis % arr.ndim
    moved = np.moveaxis(arr, axis, -1)
    outs = np.stack([func1d(row) for row in moved.reshape(-1, moved.shape[-1])])
    out = outs.reshape(moved.shape[:-1] + outs.shape[1:])
    kept = moved.ndim - 1  # (func1d's own axes follow, moved to where arr's axis was)
    return np.moveaxis(out, range(kept, out.ndim), range(axis, axis + out.ndim - kept))


@_version_of(itertools.accumulate)
def accumulate(iterable, func=lambda total, item: total + item, *, initial=None):
    items = list(iterable)
    out = [] if initial is None else [initial]
    for item in items:
        if out:
            item = func(out[-1], item)
        out.append(item)
    return out


# (fsum's exact rounding changes its value in the last bits, never its derivative: that of sum)
@_version_of(math.fsum)
def fsum(iterable):
    return sum(list(iterable))


@_version_of(np.fromiter)
def fromiter(iterable, dtype, count=-1):
    items = list(iterable)
    return np.array(items if count < 0 else items[:count], dtype=dtype)


@_version_of(divmod)
def divmod_(a, b):
    return a // b, a % b


@_version_of(np.modf)
def modf(x):
    whole = np.trunc(x)
    return x - whole, whole


@_version_of(np.extract)
def extract(condition, arr):
    return np.take(np.ravel(arr), np.nonzero(np.ravel(condition))[0])


@_version_of(np.broadcast_arrays)
def broadcast_arrays(*args):
    shape = np.broadcast_shapes(*[np.shape(a) for a in args])
    return tuple([np.broadcast_to(a, shape) for a in args])


@_version_of(np.polyder)
def polyder(p, m=1):
    p = np.asarray(p)
    for _ in range(m):
        p = p[:-1] * np.arange(len(p) - 1, 0, -1)
    return p


@_version_of(np.linalg.eigvals)
def eigvals(a):
    return np.linalg.eig(a)[0]


@_version_of(np.linalg.tensorinv)
def tensorinv(a, ind=2):
    kept = a.shape[ind:] + a.shape[:ind]
    square = np.reshape(a, (int(np.prod(a.shape[ind:])), -1))
    return np.reshape(np.linalg.inv(square), kept)


@_version_of(np.linalg.tensorsolve)
def tensorsolve(a, b, axes=None):
    if axes is not None:
        a = np.moveaxis(a, axes, list(range(a.ndim - len(axes), a.ndim)))
    solved = a.shape[-(a.ndim - np.ndim(b)) :]
    square = np.reshape(a, (-1, int(np.prod(solved))))
    return np.reshape(np.linalg.solve(square, np.ravel(b)), solved)


@_version_of_imported("scipy.linalg", "toeplitz")
def toeplitz(c, r=None):
    c = np.ravel(c)
    r = np.conjugate(c) if r is None else np.ravel(r)
    values = np.concatenate([c[::-1], r[1:]])
    return values[len(c) - 1 - np.arange(len(c))[:, None] + np.arange(len(r))[None, :]]


@_version_of_imported("scipy.linalg", "circulant")
def circulant(c):
    c = np.ravel(c)
    return c[(np.arange(len(c))[:, None] - np.arange(len(c))[None, :]) % len(c)]


# scipy.signal's 2-d forms: the n-d convolution of the image extended by its boundary (zeros,
# fillvalue, wrapped or mirrored: np.pad's constant, wrap and symmetric), whose 'valid' part
# is the full result; its 'same' window starts (k - 1) // 2 in (a correlation's k // 2)
@_version_of_imported("scipy.signal", "convolve2d")
def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    return _filtered_2d(in1, in2, mode, boundary, fillvalue, flipped=False)


@_version_of_imported("scipy.signal", "correlate2d")
def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    return _filtered_2d(in1, in2, mode, boundary, fillvalue, flipped=True)


def _filtered_2d(image, kernel, mode, boundary, fillvalue, flipped):
    import scipy.signal

    if flipped:
        kernel = kernel[::-1, ::-1]
    zeros_outside = boundary == "fill" and fillvalue == 0
    if mode == "valid" or zeros_outside and not (flipped and mode == "same"):
        return scipy.signal.convolve(image, kernel, mode=mode)
    rows, columns = np.shape(kernel)[0] - 1, np.shape(kernel)[1] - 1
    widths = ((rows, rows), (columns, columns))
    if boundary == "fill":
        image = np.pad(image, widths, mode="constant", constant_values=fillvalue)
    else:
        image = np.pad(
            image, widths, mode="wrap" if boundary in ("wrap", "circular") else "symmetric"
        )
    full = scipy.signal.convolve(image, kernel, mode="valid")
    if mode == "full":
        return full
    shift = 1 if flipped else 0
    top, left = (rows + shift) // 2, (columns + shift) // 2
    height, width = np.shape(image)[0] - 2 * rows, np.shape(image)[1] - 2 * columns
    return full[top : top + height, left : left + width]


# ufunc methods: reduce and accumulate along an axis (0 unless given), as the reductions
# and cumulative functions srcdiff has rules for, and outer as the ufunc of a with an axis
# for each of b's
@_version_of(np.add.reduce)
def add_reduce(array, axis=0, keepdims=False):
    return np.sum(array, axis=axis, keepdims=keepdims)


@_version_of(np.multiply.reduce)
def multiply_reduce(array, axis=0, keepdims=False):
    return np.prod(array, axis=axis, keepdims=keepdims)


@_version_of(np.maximum.reduce)
def maximum_reduce(array, axis=0, keepdims=False):
    return np.max(array, axis=axis, keepdims=keepdims)


@_version_of(np.minimum.reduce)
def minimum_reduce(array, axis=0, keepdims=False):
    return np.min(array, axis=axis, keepdims=keepdims)


# (shifted by the maximum, so that exp neither overflows nor flushes all to 0: the shift's
# derivative cancels, and the adjoint is bz times the softmax weights; an infinite maximum is
# not shifted by, so that terms all -inf sum to -inf as numpy's do, not to nan)
@_version_of(np.logaddexp.reduce)
def logaddexp_reduce(array, axis=0, keepdims=False):
    largest = np.max(array, axis=axis, keepdims=True)
    shift = np.where(np.isfinite(largest), largest, 0.0)
    summed = np.sum(np.exp(array - shift), axis=axis, keepdims=keepdims)
    return np.max(array, axis=axis, keepdims=keepdims) + np.log(summed)


@_version_of(np.add.accumulate)
def add_accumulate(array, axis=0):
    return np.cumsum(array, axis=axis)


@_version_of(np.multiply.accumulate)
def multiply_accumulate(array, axis=0):
    return np.cumprod(array, axis=axis)


# (each prefix's running value from the last by the ufunc; for logaddexp the adjoint weighs each
# term by exp(term - sum): the softmax weights of the prefix, without overflow)
def _running(ufunc, array, axis):
    rows = np.moveaxis(np.asarray(array), axis, 0)
    out = [rows[0]]
    for row in rows[1:]:
        out.append(ufunc(out[-1], row))
    return np.moveaxis(np.stack(out), 0, axis)


@_version_of(np.maximum.accumulate)
def maximum_accumulate(array, axis=0):
    return _running(np.maximum, array, axis)


@_version_of(np.minimum.accumulate)
def minimum_accumulate(array, axis=0):
    return _running(np.minimum, array, axis)


@_version_of(np.logaddexp.accumulate)
def logaddexp_accumulate(array, axis=0):
    return _running(np.logaddexp, array, axis)


# (numpy's rule: the sum from each index to the next, or the one row at an index not below the
# next; the last index's to the end)
@_version_of(np.add.reduceat)
def add_reduceat(array, indices, axis=0):
    rows = np.moveaxis(np.asarray(array), axis, 0)
    sums = []
    for k in range(len(indices)):
        start = indices[k]
        end = indices[k + 1] if k + 1 < len(indices) else rows.shape[0]
        sums.append(np.sum(rows[start : max(end, start + 1)], axis=0))
    return np.moveaxis(np.stack(sums), 0, axis)


@_version_of(np.add.outer)
def add_outer(a, b):
    return np.add(np.reshape(a, np.shape(a) + (1,) * np.ndim(b)), b)


@_version_of(np.subtract.outer)
def subtract_outer(a, b):
    return np.subtract(np.reshape(a, np.shape(a) + (1,) * np.ndim(b)), b)


@_version_of(np.multiply.outer)
def multiply_outer(a, b):
    return np.multiply(np.reshape(a, np.shape(a) + (1,) * np.ndim(b)), b)


@_version_of(np.divide.outer)
def divide_outer(a, b):
    return np.divide(np.reshape(a, np.shape(a) + (1,) * np.ndim(b)), b)


# itertools over lists of differentiated values: lists of the items they yield
@_version_of(itertools.chain)
def chain(*iterables):
    return [item for items in iterables for item in items]


@_version_of(itertools.islice)
def islice(iterable, *bounds):
    window = slice(*bounds)
    if window.stop is None and not hasattr(iterable, "__getitem__"):
        # (an iterator, perhaps endless: its items taken only as far as the caller takes them)
        start, step = window.start or 0, window.step or 1
        return (item for k, item in enumerate(iterable) if k >= start and (k - start) % step == 0)
    if window.stop is None:
        return list(iterable)[window]
    # (no more items taken than islice takes: the iterable may be endless, or read on later)
    return [item for _, item in zip(range(window.stop), iterable)][window]


@_version_of(itertools.pairwise)
def pairwise(iterable):
    items = list(iterable)
    return list(zip(items[:-1], items[1:]))


@_version_of(itertools.combinations)
def combinations(iterable, r):
    items = list(iterable)
    chosen = itertools.combinations(range(len(items)), r)
    return [tuple([items[k] for k in indices]) for indices in chosen]


@_version_of(itertools.product)
def product(*iterables, repeat=1):
    pools = [list(items) for _ in range(repeat) for items in iterables]
    chosen = itertools.product(*[range(len(pool)) for pool in pools])
    return [tuple([pool[k] for pool, k in zip(pools, indices)]) for indices in chosen]
