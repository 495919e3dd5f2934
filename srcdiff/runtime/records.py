"""Attributes of objects that carry arrays (a dataclass of parameters, a model object): an
attribute's adjoint is a Sparse keyed by its name, as an item's is keyed by its index."""

import dataclasses
import functools
import inspect
import types

from ..errors import ArgumentError
from .core import Sparse, attribute_names, is_record, rebuilt, record_fields, zero_tangent

__all__ = ["field", "field_grad", "field_of", "replaced", "without_field"]


def field(obj, name):
    """obj.name. Emitted code writes a value's attribute itself, so this reads a tangent's
    (dobj, of an object f reads obj.name of): what the object does not hold itself but its
    class does (`scale = 2.0` in the class body), and what is read off a class or a module
    (zero_tangent's stand-in for one's tangent), is a constant of the code, with zeros."""
    _refuse_property(obj, name)
    value = getattr(obj, name)
    return zero_tangent(value) if _held_by_the_class(obj, name) else value


def _refuse_property(obj, name):
    """A property read where the transform did not know the object's class (made by a
    function of the user's, or held in a list or dict): neither a field nor a constant, its
    derivative is that of the getter's code, which srcdiff did not read."""
    found = inspect.getattr_static(type(obj), name, None)
    if isinstance(found, (property, functools.cached_property)):
        raise ArgumentError(
            f"srcdiff cannot differentiate .{name} of the {type(obj).__name__}: it is a "
            "property, computed from the object's fields by code srcdiff did not follow "
            "(it follows a property's getter only where the object's class is known where "
            "it is read: an object parameter, or a name bound to a call of the class)",
            hint=f"call the getter's code as a method (def {name}(self): ... and "
            f"obj.{name}()), or bind the object to a name by calling its class",
        )


def _held_by_the_class(obj, name):
    """Whether obj.name is a class's or module's, not an object's own: a constant."""
    if _is_namedtuple(obj):
        return name not in obj._fields
    return isinstance(obj, (type, types.ModuleType)) or (
        is_record(obj)
        and name not in attribute_names(obj)
        and inspect.getattr_static(type(obj), name, _ABSENT) is not _ABSENT
    )


_ABSENT = object()


def field_grad(g, obj, name):
    """The adjoint of obj.name: `g` under the name (under its position in a namedtuple)."""
    _refuse_property(obj, name)
    if _held_by_the_class(obj, name):
        return Sparse()
    if _is_namedtuple(obj):
        return Sparse({obj._fields.index(name): g})
    if not is_record(obj):
        raise ArgumentError(
            f"srcdiff cannot differentiate the attribute .{name} of a {type(obj).__name__}",
            hint="read arrays from a dataclass, a namedtuple or an object's "
            "attributes; for an array use the numpy function instead",
        )
    if name not in attribute_names(obj):  # (its gradient would be dropped: zeros)
        raise ArgumentError(
            f"srcdiff cannot differentiate .{name} of the {type(obj).__name__}: the object "
            f"does not hold it (a __getattr__ gives it), and gradients follow the "
            f"attributes it holds ({', '.join(attribute_names(obj)) or 'none'})",
            hint=f"read it from where the object holds it, or store it as self.{name}",
        )
    return Sparse({name: g})


def field_of(b, obj, name):
    """The part of adjoint `b` of obj that belongs to obj.name."""
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        name = obj._fields.index(name)
    return _by_field(b).get(name, 0.0)


def _by_field(b):
    """Adjoint `b` of an object as a dict by field name (by position for a namedtuple):
    a Sparse is one already; a cotangent the caller gives has the object's own type."""
    if isinstance(b, dict):
        return b
    if isinstance(b, tuple) and hasattr(b, "_fields"):
        return Sparse(enumerate(b))
    if b is not None and is_record(b):
        return Sparse({name: getattr(b, name) for name in record_fields(b)})
    return {}


def _is_namedtuple(obj):
    return isinstance(obj, tuple) and hasattr(obj, "_fields")


def replaced(obj, name, value):
    """dataclasses.replace(obj, name=value), or obj._replace(name=value) of a namedtuple,
    where obj carries differentiated values (and so does its tangent); of another object,
    a copy with .name set (what its __init__ storing value there would have made)."""
    if _is_namedtuple(obj):
        return obj._replace(**{name: value})
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.replace(obj, **{name: value})
    if is_record(obj):  # (a SimpleNamespace, or an object of a class of the user's)
        return rebuilt(obj, {name: value})
    raise TypeError(
        f"srcdiff took a call replacing .{name} for dataclasses.replace or a "
        f"namedtuple's _replace, but it was given a {type(obj).__name__}"
    )


def without_field(b, obj, name):
    """Adjoint `b` of obj (a Sparse) but for the part of obj.name: the adjoint of the obj
    that replaced(obj, name, value) copies the other fields of."""
    key = obj._fields.index(name) if _is_namedtuple(obj) else name
    return Sparse({k: g for k, g in _by_field(b).items() if k != key})
