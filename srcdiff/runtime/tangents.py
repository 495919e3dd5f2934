"""Tangents of lists and tuples: arithmetic on them is that of the arrays numpy makes of
them (np.multiply(ys, 2) scales each item, where `ys * 2` would repeat the list)."""

import numpy as np


class _ArrayArithmetic:
    """Arithmetic as that of the array numpy makes of the sequence (see TangentList)."""

    __slots__ = ()


def _as_array(method):
    def operator(self, *other):
        return getattr(np.asarray(self), method)(*other)

    operator.__name__ = method
    return operator


for _method in (
    "__mul__",
    "__rmul__",
    "__add__",
    "__radd__",
    "__sub__",
    "__rsub__",
    "__truediv__",
    "__rtruediv__",
    "__pow__",
    "__rpow__",
    "__matmul__",
    "__rmatmul__",
    "__neg__",
    "__pos__",
    "__abs__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__iadd__",
    "__imul__",
):
    setattr(_ArrayArithmetic, _method, _as_array(_method.replace("__i", "__", 1)))


class TangentList(_ArrayArithmetic, list):
    """The tangent of a list of differentiated values. numpy reads a list as the array it
    makes of it, while Python's operators join or repeat lists: a tangent template such as
    `da * 2` (of np.multiply(a, 2)) must scale each item, not repeat the list, so arithmetic
    on a TangentList is that of its array. Indexing and unpacking are a list's."""


class TangentTuple(_ArrayArithmetic, tuple):
    """The tangent of a tuple of differentiated values (see TangentList)."""


def tangent_list(items):
    """The tangent of a list display: a TangentList of its items' tangents."""
    return TangentList(items)


def tangent_tuple(items):
    """The tangent of a tuple display: a TangentTuple of its items' tangents."""
    return TangentTuple(items)


def as_tangent(t):
    """A tangent given by the caller: a list or tuple (not a namedtuple) becomes a
    TangentList or TangentTuple, item by item."""
    if type(t) is list:
        return TangentList(map(as_tangent, t))
    if type(t) is tuple:
        return TangentTuple(map(as_tangent, t))
    return t
