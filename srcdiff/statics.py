"""Static arguments: what of an argument a derivative's code is made for (a function the
code calls, an object's class, a key that picks a function, the functions and objects a
container holds), how it is told apart from another's, and how it is described in the
cache key."""

import functools
import inspect

import numpy as np

from . import remat, runtime
from .provenance import OWN_FUNCTIONS, described

MISSING = object()


class Static:
    """An argument fixed for one transform, by parameter name: a function (`kind="value"`)
    that calls of the parameter are resolved to, the class (`kind="type"`) of an object
    whose methods calls on it follow, a str or int (`kind="key"`) that picks a function
    from a constant container (`ACTIVATIONS[name]`), the skeleton (`kind="tree"`, see
    `skeleton`) of a container holding functions or objects that the code calls
    (`cfg["act"](h)`, `for layer in layers: h = layer(h)`), how many values a `*args`
    parameter takes (`kind="count"`) or which keywords `**kwargs` takes (`kind="keys"`, see
    parse._spread_varargs and _spread_keywords). Part of the cache key (its repr)."""

    def __init__(self, name, kind, value):
        self.name, self.kind, self.value = name, kind, value

    def __repr__(self):
        if self.kind in ("key", "count", "keys"):
            return f"{self.name}:{self.kind}:{self.value!r}"
        if self.kind == "tree":
            return f"{self.name}:tree:{_described_tree(self.value)}"
        return f"{self.name}:{self.kind}:{described(self.value)}"

    def _identity(self):
        """What decides the code: the function (for a partial, its function and the shape of
        what it binds, whose values the code reads from it when it runs), the key, or, of a
        tree, its containers' types and keys, functions and objects' classes."""
        value = self.value
        if self.kind in ("key", "count", "keys"):
            return (self.name, self.kind, type(value), value)
        if self.kind == "tree":
            return (self.name, self.kind, _tree_identity(value))
        return (self.name, self.kind, _function_identity(value))

    def __eq__(self, other):
        return isinstance(other, Static) and self._identity() == other._identity()

    def __hash__(self):
        return hash(self._identity())


def _function_identity(value):
    if isinstance(value, functools.partial):
        return (id(value.func), len(value.args), tuple(sorted(value.keywords)))
    return id(value)


def skeleton(value, depth=4):
    """What of a container argument decides the code that calls into it: the same containers
    (a dict, list, tuple or namedtuple, nested) holding its functions themselves, for each
    object a bare instance of its class (`object_class`: its methods, and the functions it
    holds of its own), and MISSING for data. None when it holds no function or object (nor
    a namedtuple, whose class may have methods)."""

    def of(item, depth):
        if is_function_value(item):
            return item, True
        if is_object(item):
            return _bare_object(item, depth, of)
        if depth == 0 or not isinstance(item, (dict, list, tuple)):
            return MISSING, False
        pairs = item.items() if isinstance(item, dict) else enumerate(item)
        made = {k: of(v, depth - 1) for k, v in pairs}
        if not any(held for _, held in made.values()) and not hasattr(type(item), "_fields"):
            return MISSING, False  # (a namedtuple is kept: its class may have methods)
        if isinstance(item, dict):
            return {k: v for k, (v, _) in made.items()}, True
        values = [v for v, _ in made.values()]
        return (
            type(item)._make(values)
            if hasattr(type(item), "_fields")
            else tuple(values)
            if isinstance(item, tuple)
            else values
        ), True

    made, held = of(value, depth)
    return made if held and (isinstance(made, (dict, list, tuple)) or holds_parts(made)) else None


def _bare_object(item, depth, of):
    """(a bare instance of the object's class, True): its methods, and the functions it holds
    of its own, are the class's (object_class); the objects and containers of them it holds
    (`self.layers`, a model's encoder) are its attributes, as skeletons in turn."""
    try:
        bare = object.__new__(object_class(item))
    except TypeError:  # (a class object.__new__ cannot make: not followed)
        return MISSING, False
    own = getattr(item, "__dict__", None) if depth > 0 else None
    for name, value in (own or {}).items():
        if not is_function_value(value):
            made, held = of(value, depth - 1)
            if held:
                vars(bare)[name] = made
    return bare, True


def holds_parts(value):
    """Whether `value` is an object of a skeleton holding objects or containers of its own
    (calls into them follow their classes, which its class does not decide)."""
    return is_object(value) and bool(getattr(value, "__dict__", None))


def _tree_identity(tree):
    if tree is MISSING:
        return None
    if is_function_value(tree):
        return _function_identity(tree)
    if isinstance(tree, (dict, list, tuple)):
        pairs = tree.items() if isinstance(tree, dict) else enumerate(tree)
        return (type(tree), tuple((k, _tree_identity(v)) for k, v in pairs))
    own = getattr(tree, "__dict__", None) or {}  # (an object: its class, and its parts)
    return (id(type(tree)), tuple((k, _tree_identity(v)) for k, v in own.items()))


def _described_tree(tree):
    if tree is MISSING:
        return "-"
    if isinstance(tree, (dict, list, tuple)):
        pairs = tree.items() if isinstance(tree, dict) else enumerate(tree)
        return (
            f"{type(tree).__qualname__}["
            + ",".join(f"{k!r}={_described_tree(v)}" for k, v in pairs)
            + "]"
        )
    if is_function_value(tree):
        return described(tree)
    own = getattr(tree, "__dict__", None) or {}
    parts = "".join(f".{k}={_described_tree(v)}" for k, v in own.items())
    return described(type(tree)) + (f"({parts})" if parts else "")


def is_function_value(value):
    """Whether an argument is a function srcdiff resolves calls to (a static argument): a
    function, a numpy ufunc, or a functools.partial or nf.checkpoint of one; or a module
    whose functions are called (an array module: `def f(x, xp=np): xp.tanh(x)`)."""
    if isinstance(value, remat.Checkpointed) or inspect.ismodule(value):
        return True
    if isinstance(value, functools.partial):
        return is_function_value(value.func)
    return inspect.isroutine(value) or isinstance(value, np.ufunc)


def is_object(value):
    """Whether an argument is an object of a user class, whose methods may be followed."""
    return runtime.is_record(value)


def object_class(value):
    """The class by which the transform follows `value.attr(...)` calls: value's own class,
    or, where the instance holds functions of its own (`self.act = np.sin` shadowing a class
    attribute, a dataclass field), a subclass with them as static methods, made once per
    class and set of functions (so equal objects give the same key); an attribute holding
    None where a function may go (`self.act = None`) is the subclass's too, so that a test
    of it is decided (static_tests.py)."""
    cls, own = type(value), getattr(value, "__dict__", None)
    functions = (
        tuple((k, v) for k, v in own.items() if v is None or is_function_value(v)) if own else ()
    )
    if not functions:
        return cls
    key = (cls, functions)
    if key not in _WITH_OWN_FUNCTIONS:
        _WITH_OWN_FUNCTIONS[key] = type(
            cls.__name__,
            (cls,),
            {
                "__module__": cls.__module__,
                "__qualname__": cls.__qualname__,
                OWN_FUNCTIONS: functions,
                **{k: v if v is None else staticmethod(v) for k, v in functions},
            },
        )
    return _WITH_OWN_FUNCTIONS[key]


_WITH_OWN_FUNCTIONS = {}
