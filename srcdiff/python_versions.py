"""Library functions srcdiff differentiates through a version of them written in Python, as it
does a user's function: those that call a function they are given (np.apply_along_axis), or
that loop over Python values (itertools.accumulate, np.fromiter, divmod). Each version
computes what the library's does, with the operations srcdiff has rules for; a call of the
library function resolves to it (remat.unwrap), and emitted code calls its derivative."""

import itertools

import numpy as np

_VERSIONS = {}


def _version_of(library_function):
    def declare(version):
        _VERSIONS[library_function] = version
        return version

    return declare


def is_python_version(fn):
    return fn in _VERSIONS.values()


def python_version(obj):
    """The Python version of the library function `obj`, or None."""
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
    kept = moved.ndim - 1
    for k in range(out.ndim - kept):  # (func1d's own axes, to where arr's axis was)
        out = np.moveaxis(out, kept + k, axis + k)
    return out


@_version_of(itertools.accumulate)
def accumulate(iterable, func=lambda total, item: total + item, *, initial=None):
    items = list(iterable)
    out = [] if initial is None else [initial]
    for item in items:
        if out:
            item = func(out[-1], item)
        out.append(item)
    return out


@_version_of(np.fromiter)
def fromiter(iterable, dtype, count=-1):
    items = list(iterable)
    return np.array(items if count < 0 else items[:count], dtype=dtype)


@_version_of(divmod)
def divmod_(a, b):
    return a // b, a % b
