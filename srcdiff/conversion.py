"""Python's ast -> gast: what gast.ast_to_gast gives, at a fraction of its cost (its generic
visitor costs several times the parse). Specialisation parses a whole emitted function for
every new signature of its arguments.

Parameters are `arg` nodes in ast and Names in the Param context in gast, and an except
handler's name is a str in one and a Name in the other; a class only gast has (a type
parameter) is left to gast's own converter.
"""
import ast

import gast

_AST = ast.AST
_GAST_ONLY = {"TypeVar", "ParamSpec", "TypeVarTuple"}


def ast_to_gast(node):
    """gast.ast_to_gast(node), made of `node`'s own nodes: a tree fresh from ast.parse, which
    nothing else holds, becomes the gast tree in place (each node changes class), but for the
    context and operator nodes the parser shares between trees, which are replaced."""
    todo = [node]
    for current in todo:
        _retag(current)
        values = current.__dict__
        for field in current._fields:
            value = values.get(field)
            if value.__class__ is list:
                for index, item in enumerate(value):
                    if isinstance(item, _AST):
                        value[index] = _child(item, todo)
            elif isinstance(value, _AST):
                values[field] = _child(value, todo)
    return node


def _child(node, todo):
    """The gast node for a child `node` of a node being converted: a new one for a shared
    node (an operator, a context) or a class gast converts itself, else `node` (later)."""
    cls = node.__class__
    if not cls._fields and not cls._attributes:
        return _GAST_CLASS[cls]()
    if cls.__name__ in _GAST_ONLY:
        return gast.ast_to_gast(node)
    todo.append(node)
    return node


def _retag(node):
    cls = node.__class__
    values = node.__dict__
    if cls is ast.arg:
        values["id"] = values.pop("arg")
        values["ctx"] = gast.Param()
    elif cls is ast.ExceptHandler and node.name:
        values["name"] = gast.Name(node.name, gast.Store(), None, None)
    target = node.__class__ = _GAST_CLASS[cls]
    for field in target._fields:
        if field not in values:
            values[field] = [] if field == "type_params" else None


class _GastClasses(dict):
    def __missing__(self, cls):
        target = self[cls] = gast.Name if cls is ast.arg else getattr(gast, cls.__name__)
        return target


_GAST_CLASS = _GastClasses()
