"""Python's ast <-> gast: what gast.ast_to_gast and gast.gast_to_ast give, at a fraction of
their cost (their generic visitors cost several times a parse). Specialisation parses a whole
emitted function and prints it again for every new signature of its arguments.

Parameters are `arg` nodes in ast and Names in the Param context in gast, and an except
handler's name is a str in one and a Name in the other; those, and a class only gast has (a
type parameter), are left to gast's own converters where they are rare.
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
    target, _, how = _GAST_PLANS[node.__class__]
    if how is _OWN:
        todo.append(node)
        return node
    return target() if how is _SHARED else gast.ast_to_gast(node)


def _retag(node):
    cls = node.__class__
    values = node.__dict__
    if cls is ast.arg:
        values["id"] = values.pop("arg")
        values["ctx"] = gast.Param()
    elif cls is ast.ExceptHandler and node.name:
        values["name"] = gast.Name(node.name, gast.Store(), None, None)
    node.__class__, extra, _ = _GAST_PLANS[cls]
    for field in extra:
        values[field] = [] if field == "type_params" else None


_OWN, _SHARED, _BY_GAST = "own", "shared", "by gast"


class _GastPlans(dict):
    """ast class -> (its gast class, the fields only that has, how a node of it converts)."""

    def __missing__(self, cls):
        target = gast.Name if cls is ast.arg else getattr(gast, cls.__name__)
        own = ("id", "ctx") + cls._fields if cls is ast.arg else cls._fields
        how = _SHARED if not cls._fields and not cls._attributes else \
            _BY_GAST if cls.__name__ in _GAST_ONLY else _OWN
        plan = self[cls] = target, [f for f in target._fields if f not in own], how
        return plan


_GAST_PLANS = _GastPlans()


def gast_to_ast(node):
    """gast.gast_to_ast(node), in new nodes (a gast tree may share its nodes with others)."""
    cls = node.__class__
    values = node.__dict__
    if cls is gast.Name:
        new = _AST_NAME.__new__(_AST_NAME)
        out = new.__dict__
        out["id"], out["ctx"] = values["id"], _AST_CONTEXT[values["ctx"].__class__]
    else:
        plan = _AST_PLANS.get(cls)
        if plan is None:
            plan = _AST_PLANS[cls] = _ast_plan(cls)
        if plan is _BY_GAST:
            return gast.gast_to_ast(node)
        target, fields = plan
        new = target.__new__(target)
        out = new.__dict__
        for field in fields:
            if field in values:
                value = values[field]
                if value.__class__ is list:
                    value = [gast_to_ast(item) if isinstance(item, _AST) else item
                             for item in value]
                elif isinstance(value, _AST):
                    value = gast_to_ast(value)
                out[field] = value
    for attribute in _LOCATION:
        if attribute in values:
            out[attribute] = values[attribute]
    return new


_AST_NAME = ast.Name
# (the parser too shares one node for each context between all the names of a tree)
_AST_CONTEXT = {gast.Load: ast.Load(), gast.Store: ast.Store(), gast.Del: ast.Del()}
_LOCATION = ("lineno", "col_offset", "end_lineno", "end_col_offset")
_AST_PLANS = {}
_BY_GAST = object()


def _ast_plan(cls):
    """(ast class, the fields it shares with gast class `cls`), or _BY_GAST for a class
    whose fields differ in more than that (parameters, except handlers, type parameters)."""
    target = getattr(ast, cls.__name__, None)
    if target is None or cls in (gast.arguments, gast.ExceptHandler) or \
            cls.__name__ in _GAST_ONLY:
        return _BY_GAST
    return target, tuple(f for f in cls._fields if f in target._fields)
