"""text_signatures.signature is inspect.signature, with a builtin's text signature read by ast
(inspect's tokenize would compile its large pattern in a first transform)."""

import builtins
import inspect
import math
import operator

import numpy as np
import pytest

from srcdiff import text_signatures


def members(obj):
    found = []
    for name in dir(obj):
        try:
            value = getattr(obj, name)
        except Exception:  # (an attribute some arrays refuse: the transpose of a vector)
            continue
        if callable(value):
            found.append(value)
    return found


def signature_of(read, fn):
    """What `read` (inspect.signature, or ours) says of fn: the text, each parameter's name,
    kind and default; or the class of the error it raises."""
    try:
        sig = read(fn)
    except (TypeError, ValueError) as error:
        return type(error)
    return str(sig), [(p.name, p.kind, repr(p.default)) for p in sig.parameters.values()]


CALLABLES = [
    *members(np),
    *members(np.linalg),
    *members(np.random.default_rng(0)),
    *members(np.zeros((2, 2))),
    *members(np.ndarray),
    *members(math),
    *members(builtins),
    *members(operator),
    *members([]),
    *members(dict),
    *members(np.float64(1.0)),
]


def test_every_signature_is_inspects():
    read_by_ast = 0
    for fn in CALLABLES:
        assert signature_of(text_signatures.signature, fn) == signature_of(inspect.signature, fn), (
            fn
        )
        text = getattr(inspect.unwrap(fn), "__text_signature__", None)
        read_by_ast += isinstance(text, str)
    assert read_by_ast > 500


@pytest.mark.parametrize(
    "fn, expected",
    [
        (np.concatenate, "(arrays, /, axis=0, out=None, *, dtype=None, casting='same_kind')"),
        (math.sqrt, "(x, /)"),
        (np.zeros((2,)).sum, "(axis=None, dtype=None, out=None, **kwargs)"),
        ([].append, "(object, /)"),
        (list.append, "(self, object, /)"),
    ],
)
def test_builtins_are_read_without_tokenize(fn, expected, monkeypatch):
    def refused(*args, **kwargs):
        raise AssertionError("inspect read the text signature")

    monkeypatch.setattr(inspect, "_signature_fromstr", refused)
    assert str(text_signatures.signature(fn)) == expected
