"""Which functions of the module the inliner (inline.py) takes in as local functions for a
call: those that return a local function, pack the call's arguments into *args or
**kwargs, or are generators; what it reads off a shared definition, worked out once."""

import gast

from . import ir
from .generators import is_generator


def as_definition(stmt):
    """The FunctionDef a statement defines a local function with (`def g` or `g = lambda`)."""
    if isinstance(stmt, gast.FunctionDef) and not stmt.decorator_list:
        return stmt
    if (
        isinstance(stmt, gast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], gast.Name)
        and isinstance(stmt.value, gast.Lambda)
    ):
        return ir.lambda_definition(stmt.targets[0].id, stmt.value, stmt)
    return None


def taken_in(definition, call):
    """Whether the function of this module `definition` defines is taken in as a local
    function for `call` whatever the call passes (see Inliner._adopt)."""
    returns_local, generator = sibling_facts(definition)
    return (
        returns_local
        or _packs_arguments(definition, call)
        or _packs_keywords(definition, call)
        or generator
    )


def sibling_facts(definition):
    """(whether it returns a local function, whether it is a generator) of the shared
    definition of a function of the module (ParsedFunction.sibling: never changed), worked
    out once, where each call of it in each function of the module asked again."""
    known = _SIBLING_FACTS.get(id(definition))
    if known is None or known[0] is not definition:
        if len(_SIBLING_FACTS) >= 256:
            _SIBLING_FACTS.clear()
        below = ir.walk(definition)
        next(below)  # (the definition itself)
        kinds = {node.__class__ for node in below}  # (most have no local function, no yield)
        returns_local = not kinds.isdisjoint(_DEFINING) and _returns_a_local_function(definition)
        generator = not kinds.isdisjoint(_YIELDING) and is_generator(definition)
        known = (definition, returns_local, generator)
        _SIBLING_FACTS[id(definition)] = known  # (it holds the definition: its id stays its)
    return known[1:]


_SIBLING_FACTS = {}
_DEFINING = frozenset((gast.FunctionDef, gast.Lambda))
_YIELDING = frozenset((gast.Yield, gast.YieldFrom))


def _returns_a_local_function(definition):
    defined = {
        as_definition(d).name
        for stmt in definition.body
        for d in ir.walk(stmt)
        if as_definition(d) is not None
    }
    return any(
        isinstance(n, gast.Name) and n.id in defined or isinstance(n, gast.Lambda)
        for node in ir.walk(definition)
        if isinstance(node, gast.Return) and node.value is not None
        for n in ir.walk(node.value)
    )


def _packs_arguments(definition, call):
    """Whether `definition` packs some of this call's arguments into its *args (a tuple
    whose length the call gives: inlined, it is a display of them)."""
    args = definition.args
    return (
        args.vararg is not None
        and not any(isinstance(a, gast.Starred) for a in call.args)
        and len(call.args) > len(args.posonlyargs + args.args)
    )


def _packs_keywords(definition, call):
    """Whether `definition` packs some of this call's keyword arguments into its
    **kwargs (inlined, a dict display of them)."""
    named = {
        a.id
        for a in definition.args.posonlyargs + definition.args.args + definition.args.kwonlyargs
    }
    return (
        definition.args.kwarg is not None
        and any(k.arg is not None and k.arg not in named for k in call.keywords)
        and all(k.arg is not None for k in call.keywords)
    )
