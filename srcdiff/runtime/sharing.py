"""The checks emitted code runs before a write in place that only the call can tell is safe
(aliasing.py emits them): that no other name still to be read shares the array, list or dict
written into."""

import linecache

import numpy as np

from ..errors import ArgumentError, Location


def check_not_shared(value, name, others, filename, lineno, holders=None):
    """Before `name += ...` (or another augmented assignment) where other names may share its memory (`holders`: their values,
    where only they can tell; `others` empty: name is an argument, the caller's): for an
    array that is a change in place, which they would see and the emitted code (a new value)
    does not."""
    kind = "array" if type(value) is np.ndarray else type(value).__name__
    if kind == "array":
        if holders is not None and not any(_holds(holder, value) for holder in holders):
            return
    elif kind not in ("list", "dict") or not any(_contains(h, value) for h in holders or ()):
        return  # (a list's += of the caller's list, a number's: f's own values still right)
    where = Location(filename, lineno, linecache.getline(filename, lineno).rstrip())
    if kind != "array":
        raise ArgumentError(
            f"this line changes the {kind} {name!r} in place, and {others} (holding the same "
            f"{kind}) is read afterwards: srcdiff cannot follow that change",
            where,
            f"make a new one ({name} = {name} + [v], {{**{name}, k: v}}) and read {name} where "
            "the new value is meant",
        )
    if not others:
        raise ArgumentError(
            f"this line changes the array {name!r} in place, and it is an argument: the "
            "caller's array changes too, which srcdiff cannot follow",
            where,
            f"make a new array ({name} = {name} + v for {name} += v), and return it if the "
            "caller needs the new value",
        )
    raise ArgumentError(
        f"this line changes the {kind} {name!r} in place, and {others} (sharing its "
        "memory) is read afterwards: srcdiff cannot follow that change",
        where,
        f"make a new array ({name} = {name} + v for {name} += v), and read {name} where the "
        "new value is meant",
    )


def check_apart(written, name, is_argument, others, described, filename, lineno):
    """At the start of a derivative whose function writes in place into the array of
    `name` (an argument, or a global: `is_argument`), at filename:lineno, a write srcdiff
    keeps as written: refuse if it shares memory with another argument or a tangent passed
    (`others`, `described` as "the argument 'w'"), which the derivative reads as passed."""
    for other, description in zip(others, described):
        if _overlaps(written, other):
            raise ArgumentError(
                f"this line writes into {'the argument ' * is_argument}{name!r} in place, and "
                f"it shares memory with {description}, which srcdiff's derivative reads as "
                "it was passed, not as the write leaves it",
                Location(filename, lineno, linecache.getline(filename, lineno).rstrip()),
                f"pass a separate array ({name}.copy()) as {name}"
                if is_argument
                else f"pass a copy of {description} instead",
            )


def _overlaps(one, other):
    """Whether an array of `one` (an array, or a list, tuple or dict of them) may share
    memory with one of `other`."""
    if isinstance(one, (list, tuple)):
        return any(_overlaps(item, other) for item in one)
    if isinstance(one, dict):
        return any(_overlaps(item, other) for item in one.values())
    return type(one) is np.ndarray and _holds(other, one)


def _holds(holder, array):
    """Whether `holder` (an array, or a list, tuple or dict of them) shares array's memory."""
    if type(holder) is np.ndarray:
        return np.may_share_memory(holder, array)
    if isinstance(holder, (list, tuple)):
        return any(_holds(item, array) for item in holder)
    if isinstance(holder, dict):
        return any(_holds(item, array) for item in holder.values())
    return False


def check_unviewed(array, index, others, name, names, filename, lineno):
    """Before `name[index] = ...` while `names` (x[i] of it, say: a row, or a number, or a
    copy) are still to be read: refuse if one of them sees the elements written (of a list
    or dict: holds it, r = m[0] of a list of lists)."""
    if type(array) in (list, dict) and any(_contains(other, array) for other in others):
        raise ArgumentError(
            f"writing into {name!r} changes {names} too (holding it), which is read "
            "afterwards: srcdiff cannot follow that change",
            Location(filename, lineno, linecache.getline(filename, lineno).rstrip()),
            f"make a new one ({name} = list({name})) before writing into it",
        )
    if type(array) is not np.ndarray:
        return
    parts = index if type(index) is tuple else (index,)
    # with an Ellipsis even a single element is a view (a 0-d one), not a number
    written = array[parts if any(p is Ellipsis for p in parts) else parts + (Ellipsis,)]
    if not np.may_share_memory(written, array):
        written = array  # an index array: a copy, so any overlap at all counts
    if any(type(other) is np.ndarray and np.may_share_memory(written, other) for other in others):
        raise ArgumentError(
            f"writing into {name!r} changes {names} too (a view of it), which is read "
            "afterwards: srcdiff cannot follow that change",
            Location(filename, lineno, linecache.getline(filename, lineno).rstrip()),
            f"copy before writing ({name} = {name}.copy()), or copy the view",
        )


def _contains(holder, value):
    """Whether `holder` is `value`, or a list, tuple or dict holding it (at any depth)."""
    if holder is value:
        return True
    items = holder.values() if isinstance(holder, dict) else holder
    return isinstance(holder, (list, tuple, dict)) and any(_contains(h, value) for h in items)
