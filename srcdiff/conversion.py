"""gast <-> Python's ast, node by node: what gast.ast_to_gast and gast.gast_to_ast give, at a
fraction of their cost (their generic visitors cost several times a parse). Specialisation
converts a whole emitted function each way for every new signature of its arguments.

Each class is converted by a plan made the first time it is met: the class it becomes, its
fields under their names there, and the fields only the target has (None, or [] for
type_params). Parameters are `arg` nodes in ast and Names in the Param context in gast, and
an except handler's name is a str in one and a Name in the other; a class either side lacks
(a type parameter) is left to gast's own converters.
"""
import ast

import gast

_AST = ast.AST
# classes converted one by one (below), or by gast itself (type parameters)
_SPECIAL_NAMES = {gast: {"arg", "Name", "ExceptHandler"},
                  ast: {"Name", "ExceptHandler", "arguments"}}
_GAST_ONLY = {"TypeVar", "ParamSpec", "TypeVarTuple"}


def ast_to_gast(node):
    """gast.ast_to_gast(node)."""
    return _convert(node, _TO_GAST, gast, _to_gast_special)


def gast_to_ast(node):
    """gast.gast_to_ast(node)."""
    return _convert(node, _TO_AST, ast, _to_ast_special)


_TO_GAST, _TO_AST = {}, {}


def _convert(node, plans, target_module, special):
    plan = plans.get(node.__class__)
    if plan is None:
        plan = plans[node.__class__] = _plan(node.__class__, target_module)
    if plan is _SPECIAL:
        return special(node)
    target, fields, extra = plan
    new = target.__new__(target)
    out, values = new.__dict__, node.__dict__
    for field, renamed in fields:
        if field not in values:
            continue
        value = values[field]
        if value.__class__ is list:
            value = [_convert(item, plans, target_module, special) if isinstance(item, _AST)
                     else item for item in value]
        elif isinstance(value, _AST):
            value = _convert(value, plans, target_module, special)
        out[renamed] = value
    for field in extra:
        out[field] = [] if field == "type_params" else None
    return new


_SPECIAL = object()


def _plan(cls, target_module):
    """(target class, [(field, its name there)], fields only the target has), or _SPECIAL."""
    name = cls.__name__
    target = getattr(target_module, name, None)
    if target is None or name in _SPECIAL_NAMES[target_module] or name in _GAST_ONLY:
        return _SPECIAL
    own = cls._fields + cls._attributes
    fields = [(f, f) for f in own if f in target._fields or f in target._attributes]
    extra = [f for f in target._fields if f not in own]
    return target, fields, extra


def _to_gast_special(node):
    if isinstance(node, ast.Name):
        return _located(gast.Name(node.id, ast_to_gast(node.ctx), None, None), node)
    if isinstance(node, ast.arg):
        return _located(gast.Name(node.arg, gast.Param(), _maybe(ast_to_gast, node.annotation),
                                  node.type_comment), node)
    if isinstance(node, ast.ExceptHandler) and node.name:
        return _located(gast.ExceptHandler(
            _maybe(ast_to_gast, node.type), gast.Name(node.name, gast.Store(), None, None),
            [ast_to_gast(s) for s in node.body]), node)
    return gast.ast_to_gast(node)


def _to_ast_special(node):
    if isinstance(node, gast.Name):
        return _located(ast.Name(node.id, gast_to_ast(node.ctx)), node)
    if isinstance(node, gast.ExceptHandler) and node.name:
        return _located(ast.ExceptHandler(_maybe(gast_to_ast, node.type), node.name.id,
                                          [gast_to_ast(s) for s in node.body]), node)
    if isinstance(node, gast.arguments):
        new = ast.arguments()
        for field in ("posonlyargs", "args", "kwonlyargs"):
            setattr(new, field, [_argument(n) for n in getattr(node, field)])
        for field in ("vararg", "kwarg"):
            setattr(new, field, _argument(getattr(node, field)))
        for field in ("kw_defaults", "defaults"):
            setattr(new, field, [_maybe(gast_to_ast, d) for d in getattr(node, field)])
        return new
    return gast.gast_to_ast(node)


def _argument(node):
    """A parameter (a gast Name) as an ast arg."""
    if node is None:
        return None
    return _located(ast.arg(node.id, _maybe(gast_to_ast, node.annotation), node.type_comment),
                    node)


def _maybe(convert, node):
    return convert(node) if isinstance(node, _AST) else node


def _located(new, node):
    for attribute in node._attributes:
        if attribute in node.__dict__:
            setattr(new, attribute, node.__dict__[attribute])
    return new
