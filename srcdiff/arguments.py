"""What a derivative is made with and called with, checked where the user wrote it: `wrt`
(positions or parameter names; `argnums` its other name), tangents and cotangents shaped like
the values they go with, and the location of the user's call for errors."""
import linecache
import os
import sys
from typing import Sequence, Union

import numpy as np

from . import runtime
from .errors import ArgumentError, Location


def check_shaped_like(given, like, what, where, hint):
    """Refuse a tangent or cotangent `given` whose shape is not that of the value `like` it
    goes with (item by item in lists, tuples and dicts): numpy would broadcast it, and the
    numbers would be wrong with no error. None stands for zeros."""
    if given is None:
        return
    if isinstance(like, dict) and isinstance(given, dict):
        for key in like.keys() & given.keys():
            check_shaped_like(given[key], like[key], f"{what}[{key!r}]", where, hint)
        return
    if isinstance(like, (list, tuple)) and isinstance(given, (list, tuple)):
        if len(given) != len(like):
            raise ArgumentError(f"{what} has {len(given)} items, but the value it goes with "
                                f"has {len(like)}", where, hint)
        for k, (g, v) in enumerate(zip(given, like)):
            check_shaped_like(g, v, f"{what}[{k}]", where, hint)
        return
    if runtime.is_record(like) and type(given) is type(like):
        for name in runtime.record_fields(like):
            check_shaped_like(getattr(given, name, None), getattr(like, name), f"{what}.{name}",
                              where, hint)
        return
    numeric = (np.ndarray, np.generic, float, int, complex)
    if not isinstance(like, numeric) or not isinstance(given, numeric + (list, tuple)):
        return
    try:  # (a list or tuple for an array: (v,) given for wrt=0 is an array of shape (1, ...))
        shape = np.shape(given)
    except ValueError:  # a ragged list
        shape = "ragged"
    if shape != np.shape(like):
        raise ArgumentError(f"{what} has shape {shape}, but the value it goes with "
                            f"has shape {np.shape(like)}: numpy would broadcast one into the "
                            "other, and the result would be wrong", where, hint)
    if np.asarray(like).dtype.kind in "biu" and np.any(np.asarray(given) != 0):
        raise ArgumentError(f"{what} is not zero, but the value it goes with is an integer, "
                            "which srcdiff does not differentiate", where,
                            "give it a zero tangent, or make the value a float")


def caller():
    """The location of the user's code that called into srcdiff."""
    package = os.path.dirname(os.path.abspath(__file__))
    frame = sys._getframe(1)
    while frame is not None and os.path.dirname(os.path.abspath(
            frame.f_code.co_filename)) == package:
        frame = frame.f_back
    if frame is None:
        return None
    filename, lineno = frame.f_code.co_filename, frame.f_lineno
    return Location(filename, lineno, linecache.getline(filename, lineno).rstrip())


Wrt = Union[int, str, Sequence[Union[int, str]]]


def choose_wrt(wrt, argnums, default=0):
    """`wrt`, or `argnums` (JAX's name for it), or the default when neither is given."""
    if wrt is not None and argnums is not None:
        raise ArgumentError(f"give wrt or argnums, not both (wrt={wrt!r}, argnums={argnums!r})",
                            caller(), "argnums is another name for wrt: keep one")
    return default if wrt is None and argnums is None else wrt if argnums is None else argnums


def is_position(w):
    return isinstance(w, (int, np.integer)) and not isinstance(w, bool)


def is_wrt(wrt):
    return is_position(wrt) or (isinstance(wrt, (tuple, list)) and len(wrt) > 0 and
                                 all(map(is_position, wrt)))


def normalize_wrt(wrt, names):
    """(positions, whether one was given bare) of `wrt`: positions, or parameter names
    (`wrt="params"`), or a tuple of either."""
    single = is_position(wrt) or isinstance(wrt, str)
    given = [wrt] if single else list(wrt) if isinstance(wrt, (tuple, list)) else []
    valid = given and all(is_position(w) or isinstance(w, str) for w in given)
    unknown = [w for w in given if isinstance(w, str) and w not in names]
    if not valid or unknown:
        raise ArgumentError(
            f"wrt={unknown[0]!r} names no parameter of the function (its parameters: "
            f"{', '.join(names)})" if unknown else "wrt must be an int, a parameter's name, "
            f"or a non-empty tuple of them, not {wrt!r}",
            hint="wrt=0 (or wrt='x') differentiates with respect to the first argument")
    return tuple(names.index(w) if isinstance(w, str) else int(w) for w in given), single
