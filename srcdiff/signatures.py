"""What of an argument a specialised variant is made for: its abstract value (describe, in
the terms of shapes.py) and a cheap key telling the same apart (key), which every call of a
derivative makes to find its variant."""

import numpy as np

from .shapes import UNKNOWN, Const, Items, ListOf, Mapping, Typed, typed
from .statics import is_function_value, object_class


def describe(value):
    """The abstract value of an argument. Ints, strings and None are constants (a different
    value is a different specialisation); floats and arrays are described by type and shape."""
    t = type(value)
    if t is np.ndarray:
        return typed(t, value.shape, value.dtype, value.flags.writeable)
    if t is float:
        return typed(float, (), np.dtype(float))
    if t in (int, bool, str, type(None)):
        return Const(value)
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        return typed(t, (), value.dtype)
    if t in (tuple, list):
        if t is list and value and all(type(v) is float for v in value):
            return ListOf(Typed(float, (), np.dtype(float)))
        return Items(t, tuple(describe(v) for v in value))
    if t is dict and all(type(k) is str for k in value):
        return Mapping(tuple(sorted((k, describe(v)) for k, v in value.items())))
    return UNKNOWN


_JUST_FLOAT = {float}


_NDARRAY = np.ndarray


def key(value):
    """A cheap hashable key with the same information as describe(value)."""
    t = type(value)
    if t is float:  # (the two commonest first: each call of a derivative makes its key)
        return float
    if t is _NDARRAY:
        return value.shape, value.dtype, value.flags.writeable
    if t in (int, bool, str, type(None)):
        return t, value
    if t is list:
        if value and set(map(type, value)) == _JUST_FLOAT:
            return list, float
        return list, tuple(map(key, value))
    if t is tuple:
        return tuple, tuple(map(key, value))
    if t is dict:
        return dict, tuple((k, key(v)) for k, v in value.items())
    if isinstance(value, np.generic):
        return t
    if is_function_value(value):  # a static argument (not an object with __call__)
        return value
    if isinstance(value, tuple):  # a namedtuple: its functions and objects decide calls too
        return t, tuple(map(key, value))
    # anything else: UNKNOWN, but its class (and functions of its own) decide which
    # methods calls follow
    return object_class(value)
