"""Parameters a transform is made for the count or the keywords of, as a function is read:
`*params` given n values, or `**params` given some keywords, become parameters of their own,
packed into the tuple or dict the code reads first."""

import gast

from . import ir
from .errors import UnsupportedError


def spread_varargs(node, static):
    """`def f(x, *params)`, made for calls passing `params` n values (a Static of kind
    "count"), as `def f(x, params_0, ..., params_n-1)` that first packs them into the tuple
    `params`: a position in wrt then counts f's arguments as a call passes them (as JAX's
    argnums does), and each is a parameter of its own."""
    if static is None or static.kind != "count":
        return
    used = {n.id for n in ir.walk(node) if isinstance(n, gast.Name)}
    names = []
    for k in range(static.value):
        name = f"{static.name}_{k}"
        while name in used:
            name = "_" + name
        names.append(name)
    args = node.args
    args.args = args.args + [
        gast.Name(id=n, ctx=gast.Param(), annotation=None, type_comment=None) for n in names
    ]
    args.defaults = args.defaults + [ir.const(None)] * len(names) if args.defaults else []
    args.vararg = None
    pack = ir.assign(static.name, gast.Tuple(elts=[ir.name(n) for n in names], ctx=gast.Load()))
    for part in ir.walk(pack):
        gast.copy_location(part, node)
    node.body.insert(0, pack)


def spread_keywords(parsed, static):
    """`def f(x, **params)`, made for calls passing `params` the keywords of a Static of kind
    "keys", as `def f(x, *, W, b)` that first packs them into the dict `params`: each is a
    parameter of its own, which wrt may name (`wrt="W"`)."""
    if static is None or static.kind != "keys":
        return
    node = parsed.node
    used = {n.id for n in ir.walk(node) if isinstance(n, gast.Name)}
    clash = next((k for k in static.value if k in used or not k.isidentifier()), None)
    if clash is not None:
        raise UnsupportedError(
            f"{node.name} reads a name {clash!r}, which a keyword its **{static.name} takes "
            "would hide if it became a parameter of its own",
            parsed.location(node),
            f"pass the values in one dict (f(x, {static.name}) with wrt={static.name!r}), or "
            "rename the keyword",
        )
    args = node.args
    args.kwonlyargs = args.kwonlyargs + [
        gast.Name(id=k, ctx=gast.Param(), annotation=None, type_comment=None) for k in static.value
    ]
    args.kw_defaults = args.kw_defaults + [None] * len(static.value)
    args.kwarg = None
    pack = ir.assign(
        static.name,
        gast.Dict(
            keys=[ir.const(k) for k in static.value], values=[ir.name(k) for k in static.value]
        ),
    )
    for part in ir.walk(pack):
        gast.copy_location(part, node)
    node.body.insert(0, pack)
