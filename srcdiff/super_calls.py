"""`super().method(...)` (or `super(Child, self).method(...)`) in a method, read as the call
of the method it finds: emitted code has no `__class__` cell for super() to read (it raised
RuntimeError), so the call becomes `Base.method(self, ...)`, Base the class after the
method's own in the object's MRO that defines it, named as the method's module names it."""

import gast

from . import ir
from .errors import UnsupportedError


def explicit_super_calls(parsed, calls):
    """Rewrite each `super().m(args)` of `calls` (the function's) in place."""
    for call in calls:
        method = call.func
        if not (
            isinstance(method, gast.Attribute)
            and isinstance(method.value, gast.Call)
            and parsed.resolve(method.value.func) is super
        ):
            continue
        owner, self_name = _method_owner(parsed, call, method.value.args)
        found = next((k for k in _after(parsed, owner, self_name) if method.attr in vars(k)), None)
        named = next(
            (n for n, v in parsed.namespace.items() if v is found and n != "__class__"), None
        )
        if named is None:
            raise UnsupportedError(
                f"super().{method.attr}(...) finds {method.attr!r} in a class this module "
                "does not name",
                parsed.location(call),
                f"call the class's method by its name: Base.{method.attr}({self_name}, ...)",
            )
        call.func = gast.Attribute(value=ir.name(named), attr=method.attr, ctx=gast.Load())
        call.args = [ir.name(self_name)] + call.args


def _method_owner(parsed, call, given):
    """(the class whose body defines the method, its first parameter's name), or those
    `super(Child, self)` gives."""
    if len(given) == 2 and isinstance(given[1], gast.Name):
        owner, args = parsed.resolve(given[0]), [given[1]]
    else:
        owner = parsed.namespace.get("__class__") if not given else None
        args = parsed.node.args.posonlyargs + parsed.node.args.args
    if not isinstance(owner, type) or not args:
        raise UnsupportedError(
            "super() outside a method of a class cannot be differentiated",
            parsed.location(call),
            "call the method of the class you mean by its name: Base.method(self, ...)",
        )
    return owner, args[0].id


def _after(parsed, owner, self_name):
    """The classes after `owner` in the MRO of the object's class (as the code is made
    for it, else owner's own)."""
    static = parsed.statics.get(self_name)
    kind = static.value if static is not None and static.kind == "type" else owner
    mro = kind.__mro__ if owner in kind.__mro__ else owner.__mro__
    return mro[mro.index(owner) + 1 :]
