"""What a derivative is made with and called with, checked where the user wrote it: `wrt`
(positions or parameter names; `argnums` its other name), tangents and cotangents shaped like
the values they go with, and the location of the user's call for errors."""

import inspect
import linecache
import os
import sys
from typing import Sequence, Union

import numpy as np

from . import runtime
from .errors import ArgumentError, Location, UnsupportedError
from .modes import Mode


def check_shaped_like(given, like, what, where, hint):
    """Refuse a tangent or cotangent `given` whose shape is not that of the value `like` it
    goes with (item by item in lists, tuples and dicts): numpy would broadcast it, and the
    numbers would be wrong with no error. None stands for zeros."""
    if given is None:
        return
    _check_structure(given, like, what, where, hint)
    if isinstance(like, dict) and isinstance(given, dict):
        for key in like.keys() & given.keys():
            check_shaped_like(given[key], like[key], f"{what}[{key!r}]", where, hint)
        return
    if isinstance(like, (list, tuple)) and isinstance(given, (list, tuple)):
        if len(given) != len(like):
            raise ArgumentError(
                f"{what} has {len(given)} items, but the value it goes with has {len(like)}",
                where,
                hint,
            )
        for k, (g, v) in enumerate(zip(given, like)):
            check_shaped_like(g, v, f"{what}[{k}]", where, hint)
        return
    if runtime.is_record(like) and type(given) is type(like):
        for name in runtime.record_fields(like):
            if not _kept_count(getattr(given, name, None), getattr(like, name)):
                check_shaped_like(
                    getattr(given, name, None), getattr(like, name), f"{what}.{name}", where, hint
                )
        return
    numeric = (np.ndarray, np.generic, float, int, complex)
    if not isinstance(like, numeric) or not isinstance(given, numeric + (list, tuple)):
        return
    try:  # (a list or tuple for an array: (v,) given for wrt=0 is an array of shape (1, ...))
        shape = np.shape(given)
    except ValueError:  # a ragged list
        shape = "ragged"
    if shape != np.shape(like):
        raise ArgumentError(
            f"{what} has shape {shape}, but the value it goes with "
            f"has shape {np.shape(like)}: numpy would broadcast one into the "
            "other, and the result would be wrong",
            where,
            hint,
        )
    if np.asarray(like).dtype.kind in "biu" and np.any(np.asarray(given) != 0):
        raise ArgumentError(
            f"{what} is not zero, but the value it goes with is an integer, "
            "which srcdiff does not differentiate",
            where,
            "give it a zero tangent, or make the value a float",
        )


def takes_fewer(signature, given, mode):
    """Whether a function of `signature` takes fewer arguments by position than the `given`
    (and a jvp's tangents): binding them then says so at the user's line, where the emitted
    function's own TypeError would name it."""
    parameters = signature.parameters.values()
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return False
    taken = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)
    return given > taken + (mode is Mode.JVP)


def tangents_with_zeros(tangents, args, wrt):
    """A jvp's checked tangents as the emitted code takes them: lists and tuples as numpy's
    arrays, None (in them too) as zeros shaped like the argument's."""
    return [
        runtime.as_tangent(with_zeros_for_none(t, args[p] if p < len(args) else None))
        for p, t in zip(wrt, tangents)
    ]


def with_zeros_for_none(given, like):
    """A tangent or cotangent checked by check_shaped_like with zeros where it holds None
    (item by item in lists, tuples, dicts and objects' fields), as the emitted code needs."""
    if given is None:
        return runtime.zero_tangent(like)
    if isinstance(like, dict) and isinstance(given, dict):
        return {k: with_zeros_for_none(v, like.get(k)) for k, v in given.items()}
    if isinstance(like, (list, tuple)) and isinstance(given, (list, tuple)):
        items = [with_zeros_for_none(g, v) for g, v in zip(given, like)]
        return type(given)(*items) if hasattr(given, "_fields") else type(given)(items)
    if runtime.is_record(like) and type(given) is type(like):
        fields = {
            n: (getattr(given, n, None), getattr(like, n)) for n in runtime.record_fields(like)
        }
        return runtime.rebuilt(
            given,
            {
                n: runtime.zero_tangent(v) if _kept_count(g, v) else with_zeros_for_none(g, v)
                for n, (g, v) in fields.items()
            },
        )
    return given


def _kept_count(given, like):
    """Whether an object's field holds an int (a count, a flag) that its tangent holds
    unchanged, as nf.tree_map, nf.unravel or a copy of the object leave it: no tangent."""
    integral = (bool, int, np.integer)
    return isinstance(like, integral) and isinstance(given, integral) and given == like


def _check_structure(given, like, what, where, hint):
    """Refuse a dict for a list, a number for a tuple, a key the value does not have: the
    emitted code would fail on it with a raw error, or ignore the extra key."""
    kinds = ((dict, "a dict"), ((list, tuple), "a list or tuple"))
    for kind, name in kinds:
        if isinstance(like, kind) and not isinstance(given, kind):
            raise ArgumentError(
                f"{what} is a {type(given).__name__}, but the value it goes with is {name}",
                where,
                hint,
            )
    if runtime.is_record(like) and type(given) is not type(like):
        raise ArgumentError(
            f"{what} is a {type(given).__name__}, but the value it goes with is a "
            f"{type(like).__name__}",
            where,
            f"{hint}: a {type(like).__name__} holding the tangents of its fields",
        )
    if isinstance(like, dict) and given.keys() - like.keys():
        extra = ", ".join(map(repr, sorted(given.keys() - like.keys(), key=repr)))
        raise ArgumentError(
            f"{what} has keys the value it goes with does not have: {extra}", where, hint
        )


def check_differentiable(arguments, where):
    """Refuse an argument in wrt that srcdiff cannot differentiate, given (name, value) pairs
    and `where()`, f's location: a complex one, or a pytree holding a complex number (the
    emitted code takes the values it differentiates with respect to as real: scalars.py),
    or one not of a float dtype (a pytree passes: its float leaves get gradients, the
    others None)."""
    for name, value in arguments:
        if isinstance(value, (dict, list, tuple)) or runtime.is_record(value):
            # (its complex leaf, if any, is refused as an argument would be; else it passes)
            name, value = complex_leaf(value, name) or (name, 0.0)
        kind = np.asarray(value).dtype.kind if not isinstance(value, float) else "f"
        if kind == "c":
            raise ArgumentError(
                f"argument {name!r} is complex ({np.asarray(value).dtype}): srcdiff "
                "differentiates with respect to real arguments only",
                where(),
                "pass the real and imaginary parts as two float arguments and combine "
                "them inside the function (x + 1j * y)",
            )
        if kind != "f":
            raise ArgumentError(
                f"argument {name!r} is {type(value).__name__} with dtype "
                f"{np.asarray(value).dtype}, which cannot be differentiated",
                where(),
                "pass a float or a float array, or leave it out of wrt",
            )


def complex_leaf(value, name, seen=None):
    """(its name: `params['w'][0]`, `model.scale`; it) of a complex number or array that
    `value` (named `name`) is or holds in a list, tuple, dict or record, or None."""
    # (the commonest leaves first: a record's calls are each checked, see Variants)
    if isinstance(value, (np.ndarray, np.generic)):
        return (name, value) if value.dtype.kind == "c" else None
    if isinstance(value, complex):
        return name, value
    if isinstance(value, (float, int, str, type(None))):
        return None
    seen = set() if seen is None else seen
    if id(value) in seen:  # (an object holding itself, through a parent)
        return None
    if isinstance(value, dict):
        items = ((f"{name}[{k!r}]", v) for k, v in value.items())
    elif isinstance(value, (list, tuple)):
        items = ((f"{name}[{k}]", v) for k, v in enumerate(value))
    elif runtime.is_record(value):
        items = ((f"{name}.{f}", getattr(value, f, None)) for f in runtime.record_fields(value))
    else:
        return None
    seen.add(id(value))
    return next((found for n, v in items if (found := complex_leaf(v, n, seen))), None)


def kind_in_key(value):
    """Whether signatures.key(value) says if `value` holds a complex number: it does for numbers,
    numpy's arrays and scalars (their dtype), and lists, tuples and dicts of them; of any other
    object (an array's subclass, a record) it gives only the class."""
    kind = type(value)
    if kind in (float, int, bool, str, type(None), np.ndarray) or isinstance(value, np.generic):
        return True
    if kind in (list, tuple, dict) or isinstance(value, tuple) and hasattr(kind, "_fields"):
        return all(map(kind_in_key, value.values() if kind is dict else value))
    return False


def caller():
    """The location of the user's code that called into srcdiff."""
    package = os.path.dirname(os.path.abspath(__file__))
    frame = sys._getframe(1)
    while (
        frame is not None and os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == package
    ):
        frame = frame.f_back
    if frame is None:
        return None
    filename, lineno = frame.f_code.co_filename, frame.f_lineno
    return Location(filename, lineno, linecache.getline(filename, lineno).rstrip())


Wrt = Union[int, str, Sequence[Union[int, str]]]


def choose_wrt(wrt, argnums, default=0):
    """`wrt`, or `argnums` (JAX's name for it), or the default when neither is given."""
    if wrt is not None and argnums is not None:
        raise ArgumentError(
            f"give wrt or argnums, not both (wrt={wrt!r}, argnums={argnums!r})",
            caller(),
            "argnums is another name for wrt: keep one",
        )
    return default if wrt is None and argnums is None else wrt if argnums is None else argnums


def is_position(w):
    return isinstance(w, (int, np.integer)) and not isinstance(w, bool)


def is_wrt(wrt):
    return is_position(wrt) or (
        isinstance(wrt, (tuple, list)) and len(wrt) > 0 and all(map(is_position, wrt))
    )


def normalize_wrt(wrt, names, keywords=()):
    """(positions, whether one was given bare) of `wrt`: positions, or parameter names
    (`wrt="params"`), or a tuple of either. `keywords`: the names that are keywords f's
    **kwargs takes, which come after f's named parameters (see keywords_of)."""
    single = is_position(wrt) or isinstance(wrt, str)
    given = [wrt] if single else list(wrt) if isinstance(wrt, (tuple, list)) else []
    valid = given and all(is_position(w) or isinstance(w, str) for w in given)
    names = list(names) + list(keywords)
    unknown = [w for w in given if isinstance(w, str) and w not in names]
    if not valid or unknown:
        raise ArgumentError(
            f"wrt={unknown[0]!r} names no parameter of the function (its parameters: "
            f"{', '.join(names)})"
            if unknown
            else "wrt must be an int, a parameter's name, "
            f"or a non-empty tuple of them, not {wrt!r}",
            hint="wrt=0 (or wrt='x') differentiates with respect to the first argument",
        )
    return tuple(names.index(w) if isinstance(w, str) else int(w) for w in given), single


def spread_of(parameters, wrt):
    """(f's *args parameter, the number of parameters before it) when a position in `wrt`
    falls on it or after: positions then count f's arguments as a call passes them (as
    JAX's argnums do), and the code depends on how many *args takes; else None."""
    kinds = [p.kind for p in parameters]
    if inspect.Parameter.VAR_POSITIONAL not in kinds:
        return None
    before = kinds.index(inspect.Parameter.VAR_POSITIONAL)
    given = [wrt] if is_position(wrt) or isinstance(wrt, str) else list(wrt)
    if not any(is_position(w) and w >= before for w in given):
        return None
    for w in given:
        if isinstance(w, str) and any(p.name == w and p.kind is p.KEYWORD_ONLY for p in parameters):
            star = parameters[before].name
            raise ArgumentError(
                f"wrt={w!r} names a keyword-only parameter, whose position depends on how "
                f"many values *{star} takes",
                caller(),
                f"with wrt positions on *{star}, differentiate {w!r} in a call of its own",
            )
    return parameters[before].name, before


def keywords_of(parameters, wrt):
    """(f's **kwargs parameter, the names in `wrt` that are none of f's parameters: keywords
    a call passes it), when there are such names; else None."""
    if not parameters or parameters[-1].kind is not inspect.Parameter.VAR_KEYWORD:
        return None
    named = {p.name for p in parameters}
    given = [wrt] if isinstance(wrt, str) else list(wrt) if isinstance(wrt, (tuple, list)) else []
    keys = tuple(dict.fromkeys(w for w in given if isinstance(w, str) and w not in named))
    return (parameters[-1].name, keys) if keys else None


def split_tangents(args, signature, wrt, single, name, where):
    """A jvp's arguments: f's, then the tangents, checked: one tangent for `wrt=k`, a tuple
    of one per position for a tuple `wrt`."""
    required = sum(
        p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        for p in signature.parameters.values()
    )
    expected = (
        f"one tangent, shaped like argument {wrt[0]}"
        if single
        else f"a tuple of {len(wrt)} tangent(s), one per position in wrt"
    )
    hint = f"call it as jvp_{name}(*args, tangents): {name}'s arguments, then {expected}"
    if len(args) <= required:
        raise ArgumentError(
            f"jvp of {name} needs its {required} argument(s) and then "
            f"{expected}, but got {len(args)} argument(s) in all: the "
            "tangents are missing",
            where,
            hint,
        )
    tangents = args[-1]
    if not single and not isinstance(tangents, (tuple, list)):
        raise ArgumentError(
            f"jvp with wrt={wrt} needs {expected}, not one {type(tangents).__name__}", where, hint
        )
    if not single and len(tangents) != len(wrt):
        raise ArgumentError(
            f"jvp with wrt={wrt} needs {len(wrt)} tangent(s), one per "
            f"position in wrt, but got {len(tangents)}",
            where,
            hint,
        )
    return args


def refuse_container_methods(exc, names, args):
    """The error for a method of a dict, list or tuple argument called in f (d.get(k)), which
    `exc` (the deferred StaticArgumentNeeded) took for an object's, or for an item called of
    a container holding no function: the code depends on no function or class there;
    srcdiff reads such values by index."""
    if exc.kind == "key" or exc.parameter not in names:
        return
    k = names.index(exc.parameter)
    value = args[k] if k < len(args) else None
    kind = type(value).__name__
    if exc.kind == "tree":  # (an item of it called: `cfg["act"](h)`, `layer(h)`)
        raise UnsupportedError(
            f"{exc.message.split(', which')[0]}, but {exc.parameter!r} is a {kind} here, "
            "holding no function, nor object with methods, that srcdiff could call",
            exc.location,
            "pass the functions (or the objects whose __call__ or methods "
            "the code calls) in it, or call them by their names",
        )
    if isinstance(value, np.ndarray):
        method = exc.message.split("(...)")[0]
        raise UnsupportedError(
            f"{exc.parameter!r} is an array here, and the code calls its method {method}, "
            "which srcdiff has no derivative for",
            exc.location,
            f"write it with what srcdiff differentiates: list({exc.parameter}) for "
            f"{exc.parameter}.tolist() of a vector, {exc.parameter}[i] for "
            f"{exc.parameter}.item(i), or the numpy function of the same name",
        )
    if isinstance(value, (dict, list, tuple)):
        raise UnsupportedError(
            f"{exc.parameter!r} is a {kind} here, and the code calls one of its methods "
            f"({exc.message.split('(...)')[0]}): srcdiff follows a {kind}'s items read by "
            "index, not through its methods",
            exc.location,
            f"read the items by index ({exc.parameter}['w']), or by "
            f"{exc.parameter}.get('w', default)",
        )


def wrt_names(fn, node, wrt, where):
    """The names of the parameters at the positions wrt (checked). Positions count the
    keyword-only parameters after the positional ones; *args and **kwargs are passed
    through, never differentiated."""
    params = [a.id for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]
    _check_wrt(fn, wrt, params, node.args.vararg, where)
    return [params[i] for i in wrt]


def _check_wrt(fn, wrt, params, vararg, where):
    for index in wrt:
        if index == len(params) and vararg:
            raise ArgumentError(
                f"wrt={index} falls on *{vararg.id}, which srcdiff cannot "
                "differentiate (a tuple of any length)",
                where,
                "name each parameter, or pass the values in one tuple",
            )
        if not 0 <= index < len(params):
            raise ArgumentError(
                f"wrt={index} is out of range: {fn.__name__} has "
                f"{len(params)} named parameter(s) ({', '.join(params)})",
                where,
                f"choose wrt between 0 and {len(params) - 1}",
            )
