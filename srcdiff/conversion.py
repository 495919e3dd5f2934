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
    plans = _GAST_PLANS
    todo = [node]
    for current in todo:
        cls = current.__class__
        target, extra, _, children = plans[cls]
        values = current.__dict__
        if cls is ast.arg:
            values["id"] = values.pop("arg")
            values["ctx"] = _new(gast.Param)
        elif cls is ast.ExceptHandler and current.name:
            values["name"] = gast.Name(current.name, gast.Store(), None, None)
        current.__class__ = target
        for field in extra:
            values[field] = [] if field == "type_params" else None
        for field in children:
            value = values.get(field)
            if value.__class__ is list:
                for index, item in enumerate(value):
                    if isinstance(item, _AST):
                        plan = plans[item.__class__]
                        if plan[2] is _OWN:
                            todo.append(item)
                        else:
                            value[index] = _converted(item, plan)
            elif isinstance(value, _AST):
                plan = plans[value.__class__]
                if plan[2] is _OWN:
                    todo.append(value)
                else:
                    values[field] = _converted(value, plan)
    return node


def _converted(node, plan):
    """The gast node for a shared node (a context, an operator: a new one, as gast makes)
    or one of a class gast converts itself."""
    return _new(plan[0]) if plan[2] is _SHARED else gast.ast_to_gast(node)


def _new(cls):
    """A node of a gast class without fields (gast's constructor, for none, sets nothing)."""
    return cls.__new__(cls)


_OWN, _SHARED, _BY_GAST = "own", "shared", "by gast"


class _GastPlans(dict):
    """ast class -> (its gast class, the fields only that has, how a node of it converts,
    the fields that may hold nodes: those of the gast class but the ones only it has)."""

    def __missing__(self, cls):
        target = gast.Name if cls is ast.arg else getattr(gast, cls.__name__)
        own = ("id", "ctx") + cls._fields if cls is ast.arg else cls._fields
        how = (
            _SHARED
            if not cls._fields and not cls._attributes
            else _BY_GAST
            if cls.__name__ in _GAST_ONLY
            else _OWN
        )
        extra = [f for f in target._fields if f not in own]
        children = tuple(
            f
            for f in target._fields
            if f not in extra and f != "ctx" or f == "ctx" and cls is not ast.arg
        )
        plan = self[cls] = target, extra, how, children
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
                    value = [
                        gast_to_ast(item) if isinstance(item, _AST) else item for item in value
                    ]
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
    if target is None or cls in (gast.arguments, gast.ExceptHandler) or cls.__name__ in _GAST_ONLY:
        return _BY_GAST
    return target, tuple(f for f in cls._fields if f in target._fields)
