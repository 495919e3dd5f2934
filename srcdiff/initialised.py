"""What a call of a class sets, where srcdiff can make the object from differentiated values
field by field (container_joins.made_record): the class called with None in those values'
places, then runtime.replaced(o, 'W', W) for each. That is the object the call would make
only where the class's __init__ stores each such parameter as given, and reads it nowhere
else: a namedtuple, a dataclass whose __init__ dataclasses wrote, a SimpleNamespace, or a
class of the user's whose __init__ says `self.W = W`."""

import ast
import dataclasses
import inspect
import textwrap
import types
from typing import NamedTuple

from .sources import source_lines


class Initialised(NamedTuple):
    parameters: tuple  # what positional arguments bind, in order
    stored: dict  # parameter -> the attribute __init__ stores it in as given, nothing else
    # (None: each keyword under its own name, a SimpleNamespace's)
    unfollowed: dict  # parameter -> the line of __init__ that does more with it (for errors)
    refused: str = ""  # why no parameter is taken as stored (for errors)


def initialised_fields(cls):
    """The Initialised of a call of `cls`, else None."""
    if cls is types.SimpleNamespace:
        return Initialised((), None, {})
    if isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields"):
        made = next(k for k in cls.__mro__ if "_fields" in vars(k))  # (by namedtuple)
        below = cls.__mro__[: cls.__mro__.index(made)]
        if any("__new__" in vars(k) or "__init__" in vars(k) for k in below):
            return None
        return _as_given(cls._fields)
    if isinstance(cls, type) and dataclasses.is_dataclass(cls):
        code = getattr(cls.__init__, "__code__", None)
        if hasattr(cls, "__post_init__") or code is None or code.co_filename != "<string>":
            return None
        return _as_given(tuple(f.name for f in dataclasses.fields(cls) if f.init))
    if not _plain_user_class(cls):
        return None
    if any("__new__" in vars(k) or "__setattr__" in vars(k) for k in cls.__mro__[:-1]):
        return _refused("its class defines __new__ or __setattr__")
    return _own_init(cls)


def _as_given(names):
    return Initialised(names, {name: name for name in names}, {})


def _plain_user_class(cls):
    """Whether `cls` is a class of the user's whose objects its own Python __init__ makes
    (then, but for a __new__ or __setattr__ of its own, copying one and setting an attribute
    on the copy is what its __init__ storing another value would have made)."""
    if not isinstance(cls, type) or cls.__module__.split(".")[0] in ("builtins", "numpy"):
        return False
    return inspect.isfunction(cls.__init__) and all(
        k.__module__ != "builtins" for k in cls.__mro__[:-1]
    )


def _refused(why):
    return Initialised((), {}, {}, why)


def _own_init(cls):
    """The Initialised of a user class, read off its __init__'s source: a parameter is
    stored as given where its only use is a statement of the body `self.a = p`, the only
    one that names self.a (else the object made with None there would differ)."""
    init = cls.__init__
    try:
        lines, first = source_lines(init)
        func = ast.parse(textwrap.dedent("".join(lines))).body[0]
    except (OSError, TypeError, SyntaxError):
        return None
    params = [a.arg for a in func.args.posonlyargs + func.args.args]
    if func.args.vararg or func.args.kwarg or not params:
        return _refused("its __init__ takes *args or **kwargs")
    this, positional = params[0], tuple(params[1:])
    parameters = positional + tuple(a.arg for a in func.args.kwonlyargs)
    stores = {
        id(s.value): s.targets[0].attr
        for s in func.body
        if isinstance(s, ast.Assign)
        and len(s.targets) == 1
        and _attribute_of(s.targets[0], this)
        and isinstance(s.value, ast.Name)
        and s.value.id in parameters
    }
    named = _attributes_named(func, this)
    stored, unfollowed = {}, {}
    for n in ast.walk(func):
        if isinstance(n, ast.Name) and n.id in parameters:
            attr = stores.get(id(n))
            if attr is None or named[attr] > 1 or n.id in unfollowed or n.id in stored:
                line = n.lineno + max(first, 1) - 1
                unfollowed.setdefault(n.id, (init.__code__.co_filename, line))
                stored.pop(n.id, None)
            else:
                stored[n.id] = attr
    if _uses_the_object(func, this):
        return _refused("its __init__ passes self on or calls super()")
    if any(_is_set_by_class(cls, a) for a in stored.values()):
        return _refused("its __init__ sets a property")
    return Initialised(positional, stored, unfollowed)


def _is_set_by_class(cls, attr):
    """Whether `self.attr = v` runs code of the class (a property's setter)."""
    return hasattr(type(inspect.getattr_static(cls, attr, None)), "__set__")


def _attribute_of(node, this):
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == this
    )


def _attributes_named(func, this):
    """attribute -> how many times __init__ names self.attribute."""
    counts = {}
    for n in ast.walk(func):
        if _attribute_of(n, this):
            counts[n.attr] = counts.get(n.attr, 0) + 1
    return counts


def _uses_the_object(func, this):
    """Whether __init__ may read the object's attributes other than by name: self passed
    on or returned, or a super() call (a base's __init__ reads what it likes)."""
    named = {id(n.value) for n in ast.walk(func) if _attribute_of(n, this)}
    nodes = list(ast.walk(func))
    passed = any(isinstance(n, ast.Name) and n.id == this and id(n) not in named for n in nodes)
    return passed or any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "super"
        for n in nodes
    )
