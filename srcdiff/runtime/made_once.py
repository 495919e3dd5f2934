"""The derivatives f makes inside itself (`nf.grad(inner)(x)`), made once per process: emitted
code calls `runtime.made_once(nf.grad, inner)(x)`, where a new derivative at each call would be
made, and its code specialised for its first call, anew each time f's derivative runs."""

__all__ = ["made_once"]

_made = {}  # (maker, function, constant arguments) -> the derivative made for them


def made_once(maker, fun, /, *constants, **keywords):
    """The one derivative maker(fun, *constants, **keywords) makes in this process (the
    transform's, made as it read f, is this one too: made_derivatives.made). The constants
    are literals of f's source (wrt=(0, 1)), told apart by their repr, as a list is not
    hashable; `fun` by what it is now, so that a function rebound since has its own."""
    key = (maker, fun, repr(constants), repr(tuple(keywords.items())))
    derivative = _made.get(key)
    if derivative is None:
        if len(_made) >= _KEPT:  # (functions passed in anew, closures made at each call)
            _made.clear()
        derivative = _made.setdefault(key, maker(fun, *constants, **keywords))
    return derivative


_KEPT = 256  # derivatives kept at most: a program names far fewer
