"""`obj.scale`, a property (or functools.cached_property) of an object whose class the
code is made for (an object parameter's or a namedtuple parameter's, or one f makes:
parse.ParsedFunction.local_classes), read as the call of its getter:
`Layer.scale.fget(obj)`, followed as other calls of the user's functions are. Read as a
field, the property's value got a gradient of its own that no field holds, and the fields
it is computed from got none (a silently zero gradient). So is `obj[k]` of such an object
whose class defines __getitem__: `Seq.__getitem__(obj, k)`."""

import functools
import inspect

import gast

from . import ir
from .errors import UnsupportedError
from .provenance import is_library_file


# the attribute holding the function a kind of property calls
_GETTERS = {property: "fget", functools.cached_property: "func"}


def property_reads_as_calls(parsed):
    """Rewrite each such read in `parsed`'s tree in place (a property set or deleted, or of
    a class the module does not name, stays as written)."""
    if not parsed.local_classes and not any(
        static.kind in ("type", "tree") for static in parsed.statics.values()
    ):
        return  # (no name holds an object whose class the code is made for: _class_of)
    for node in list(ir.walk(parsed.node)):
        if isinstance(node, (gast.For, gast.comprehension)):
            _refuse_iterating_an_object(parsed, node)
        for field, value in gast.iter_fields(node):
            if isinstance(value, list):
                value[:] = [_as_call(parsed, item) for item in value]
            elif isinstance(value, (gast.Attribute, gast.Subscript)):
                setattr(node, field, _as_call(parsed, value))


def _as_call(parsed, node):
    if not (
        isinstance(node, (gast.Attribute, gast.Subscript))
        and isinstance(node.ctx, gast.Load)
        and isinstance(node.value, gast.Name)
    ):
        return node
    cls, named = _class_of(parsed, node.value.id)
    if isinstance(node, gast.Subscript):
        return _item_as_call(node, cls, named)
    found = inspect.getattr_static(cls, node.attr, None)
    method = _GETTERS.get(type(found))
    getter = getattr(found, method, None) if method else None
    if (
        named is None
        or not inspect.isfunction(getter)
        or is_library_file(getter.__code__.co_filename)  # (refused with what it reads)
    ):
        return node
    func = ir.name(named[0])
    for part in [*named[1:], node.attr, method]:
        func = gast.Attribute(value=func, attr=part, ctx=gast.Load())
    call = gast.Call(func=func, args=[ir.name(node.value.id)], keywords=[])
    return gast.copy_location(call, node)


def _refuse_iterating_an_object(parsed, loop):
    """A loop over an object whose class defines __iter__ in the user's Python: srcdiff
    would go over it as over a list, by index (a raw TypeError as it ran)."""
    if not isinstance(loop.iter, gast.Name):
        return
    cls, _ = _class_of(parsed, loop.iter.id)
    method = inspect.getattr_static(cls, "__iter__", None)
    if inspect.isfunction(method) and not is_library_file(method.__code__.co_filename):
        raise UnsupportedError(
            f"the loop goes over {loop.iter.id}, a {cls.__name__} whose __iter__ srcdiff "
            "does not follow",
            parsed.location(loop.iter),
            f"go over what it holds (for v in {loop.iter.id}.items), or call a method that "
            "returns a list of the values",
        )


def _item_as_call(node, cls, named):
    """`obj[k]` of an object whose class defines __getitem__ in the user's Python:
    `Seq.__getitem__(obj, k)` (read as an item of the object, its gradient was keyed by k,
    which no field holds)."""
    method = inspect.getattr_static(cls, "__getitem__", None)
    if (
        named is None
        or not inspect.isfunction(method)
        or is_library_file(method.__code__.co_filename)
        or any(isinstance(n, gast.Slice) for n in ir.walk(node.slice))
    ):
        return node  # (a slice as written: obj[1:] stays, refused where it is read)
    func = ir.name(named[0])
    for part in [*named[1:], "__getitem__"]:
        func = gast.Attribute(value=func, attr=part, ctx=gast.Load())
    call = gast.Call(func=func, args=[ir.name(node.value.id), node.slice], keywords=[])
    return gast.copy_location(call, node)


def _class_of(parsed, name):
    """(the class of the object `name` holds, the dotted name the module has for it), as
    far as the code is made for it; (None, None) where unknown."""
    static = parsed.statics.get(name)
    if static is not None and (
        static.kind == "type" or static.kind == "tree" and hasattr(static.value, "_fields")
    ):  # (of a namedtuple parameter the skeleton is one of its class)
        cls = static.value if static.kind == "type" else type(static.value)
        named = next((n for n, v in parsed.namespace.items() if v is cls), None)
        return cls, None if named is None else (named,)
    if name in parsed.local_classes and not _of_the_runtime(parsed.local_classes[name][0]):
        cls, dotted = parsed.local_classes[name]
        return cls, tuple(dotted.split("."))
    return None, None


def _of_the_runtime(cls):
    """Whether cls is one of emitted code's runtime helpers (runtime.taken_items, which a
    loop over itertools.islice(...) becomes): srcdiff's own, followed by its templates."""
    return (cls.__module__ or "").startswith("srcdiff.runtime")
