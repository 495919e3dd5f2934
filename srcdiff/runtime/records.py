"""Attributes of objects that carry arrays (a dataclass of parameters, a model object): an
attribute's adjoint is a Sparse keyed by its name, as an item's is keyed by its index."""
from ..errors import ArgumentError
from .core import Sparse, is_record

__all__ = ["field", "field_grad", "field_of"]


def field(obj, name):
    """obj.name (emitted code writes the attribute itself; this names the primitive)."""
    return getattr(obj, name)


def field_grad(g, obj, name):
    """The adjoint of obj.name: `g` under the name (under its position in a namedtuple)."""
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return Sparse({obj._fields.index(name): g})
    if not is_record(obj):
        raise ArgumentError(f"srcdiff cannot differentiate the attribute .{name} of a "
                            f"{type(obj).__name__}",
                            hint="read arrays from a dataclass, a namedtuple or an object's "
                                 "attributes; for an array use the numpy function instead")
    return Sparse({name: g})


def field_of(b, obj, name):
    """The part of adjoint `b` (of obj, a Sparse) that belongs to obj.name."""
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        name = obj._fields.index(name)
    return b.get(name, 0.0) if isinstance(b, dict) else 0.0
