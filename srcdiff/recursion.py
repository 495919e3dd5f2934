"""Recursion: a call back into a function whose derivative is being made.

A callee's derivative is made inside its caller's transform (transform.py), so a function
that calls itself would be made again inside its own transform without end. Instead each
callee derivative in the making (and f's own JVP, which a call can call too) is kept here
with its names, innermost last, and a call differentiated the same way (the same function
and static arguments, mode, parameters and outputs differentiated) as one of them calls it
by those names:

- a call back into the innermost, the function whose module is being made, calls that
  module's own functions (`fwd_power` calls `fwd_power`);
- a call back into one further out (`is_odd` calling back `is_even`, which called it) calls
  that one's, and each call between them is marked as in the recursion: those modules call
  each other's functions, so none is made or loaded inside another; they are linked as
  they run (module_run.py, Emitted.link).

The same function called another way (other parameters differentiated) is a derivative of
its own, made as any callee is (named apart from those in the making: names_in_making):
the ways are finitely many, so the transforms end.
"""

import contextlib
import threading


class _Making(threading.local):
    def __init__(self):
        # [(made_for, mode, wrt, outputs), its names, whether its call of the next one
        # is in a recursion through both, whether it is a callee's], for each derivative
        # being made that a call can call
        self.derivatives = []


_making = _Making()


@contextlib.contextmanager
def making(variant, names, callee=True):
    """Keep the derivative `variant` (made_for, mode, wrt, outputs) and its `names` as in
    the making while its calls are differentiated (None: one no call can call). f's own
    (not a `callee`'s) is called only by f itself: its module is the one not linked."""
    if variant is None:
        yield
        return
    _making.derivatives.append([variant, tuple(names), False, callee])
    try:
        yield
    finally:
        _making.derivatives.pop()


def called_back(variant):
    """(the names of the derivative in the making that a call differentiated as `variant`
    calls, whether it is one further out than the innermost) or None."""
    derivatives = _making.derivatives
    innermost = len(derivatives) - 1
    found = next(
        (
            k
            for k, (v, _, _, callee) in enumerate(derivatives)
            if v == variant and (callee or k == innermost)
        ),
        None,
    )
    if found is None:
        return None
    for on_the_way in derivatives[found:-1]:
        on_the_way[2] = True
    return list(derivatives[found][1]), found < innermost


def through_callee():
    """Whether the callee just made (or one below it) called back the function whose
    derivative is being made, or one further out: then the call of the callee is in that
    recursion."""
    derivatives = _making.derivatives
    if not derivatives or not derivatives[-1][2]:
        return False
    derivatives[-1][2] = False  # (its next callee's is another call)
    return True


def names_in_making(fn):
    """The names of fn's derivatives in the making: a call back into one calls it by them,
    so no other derivative of fn in a module made inside it may take them."""
    return {
        name
        for (made_for, *_), names, *_ in _making.derivatives
        if made_for[0] is fn.__code__
        for name in names
    }
