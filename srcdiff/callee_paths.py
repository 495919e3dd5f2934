"""Where a callee an emitted module records (meta.CalleeUse: a dotted path in f's source,
`ACTIVATIONS['relu']` or `layer.forward`) is found again as the module is loaded, and what a
guard follows to check it is still what it was."""

import ast
import builtins
import functools
import inspect
import operator

import gast

from . import remat
from .made_derivatives import is_made_path, remade
from .statics import Static, is_object, object_class, skeleton


def function_of(obj):
    obj = remat.unwrap(obj)[0]  # (the caller's emitted code says whether it recomputes)
    return obj.__func__ if inspect.ismethod(obj) else obj


def statics_option(fn, described, statics, callee):
    """The `statics` option of a callee, from its [parameter, kind, path] list (the paths
    name what the caller passes it: a function, or an object whose class is known; None
    for a function the callee has as its default)."""
    out = []
    for param, kind, path in described:
        value = (
            inspect.signature(callee).parameters[param].default
            if path is None
            else resolve_path(fn, path, statics)
        )
        if kind == "type" and not inspect.isclass(value):
            value = object_class(value)
        elif kind == "tree" and is_object(value):  # (a global object holding layers)
            value = skeleton(value)
        out.append(Static(param, kind, value))
    return {"statics": tuple(out)} if out else {}


def dotted_names(path):
    """The names of a path that is names joined by dots (`helpers.sub.g`), else None."""
    names = path.split(".")
    return names if all(name.isidentifier() for name in names) else None


def resolve_path(fn, path, statics=()):
    """The object a dotted name in fn's source refers to (a callee, at load time); a name
    of a static argument is its function, or for an object its class. Items picked by a
    constant key, or by a static key argument, are followed: `ACTIVATIONS['relu']`. A
    derivative made by a call (`nf.grad(inner, wrt=1)`) is made again of what it names."""
    if is_made_path(path):
        return remade(path, functools.partial(resolve_path, fn, statics=statics))
    root, steps = path_steps(path, statics)
    static = next((s for s in statics if s.name == root), None)
    return follow(fn, root, steps) if static is None else follow_steps(static.value, steps)


def path_steps(path, statics):
    """(root name, [(getattr or getitem, key), ...] from the root on) of a dotted name."""
    names = dotted_names(path)
    if names is not None:  # (most paths: `g`, `helpers.g`, told without a parse)
        return names[0], [(getattr, name) for name in names[1:]]
    node = ast.parse(path, mode="eval").body
    steps = []
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Attribute):
            steps.append((getattr, node.attr))
        else:
            steps.append((operator.getitem, _key(node.slice, statics)))
        node = node.value
    return node.id, steps[::-1]


def follow(fn, root, steps):
    """What `root` and then `steps` refer to now, from fn's closure or module."""
    if root in fn.__code__.co_freevars:
        obj = fn.__closure__[fn.__code__.co_freevars.index(root)].cell_contents
    elif root in fn.__globals__:
        obj = fn.__globals__[root]
    elif hasattr(builtins, root):
        obj = getattr(builtins, root)
    else:  # (`import scipy.signal` in f's body: what imports.py hoisted)
        obj = imported_in_body(fn)[root]
    return follow_steps(obj, steps)


def imported_in_body(fn):
    """name -> object, of the names the imports at the top of fn's body bind."""
    from .imports import bound_by_import
    from .sources import read_function

    node = read_function(fn, shared=True)[1]
    found = {}
    for stmt in node.body:
        if isinstance(stmt, (gast.Import, gast.ImportFrom)):
            found.update(bound_by_import(stmt))
    return found


def follow_steps(obj, steps):
    for follow, key in steps:
        obj = follow(obj, key)
    return obj


def _key(node, statics):
    if isinstance(node, ast.Name):
        return next(s.value for s in statics if s.name == node.id and s.kind == "key")
    return ast.literal_eval(node)
