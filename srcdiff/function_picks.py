"""A function picked from a list or tuple display by an index known only as f runs
(`layers[i](h)` in `for i in range(n)`, `fs[k](h)` of an int argument k): the statement
calling it becomes one branch per item, each calling that function by its place in the
display, which function_aliases.py then reads through (so inlining finds each):

    h = layers[i](h)    ->   _pick0 = range(2)[i]
                             if _pick0 == 0:
                                 h = layers[0](h)
                             else:
                                 h = layers[1](h)

`range(2)[i]` raises as `layers[i]` would (IndexError, or TypeError for a float), counts a
negative index from the end, and reads the index once."""

import math

import gast

from . import ir

_MOST_BRANCHES = 64
_MAYBE_RUN = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
_MAYBE_RUN += (gast.IfExp, gast.BoolOp)
_SIMPLE = (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.Return)


def branch_on_picks(func, displays):
    """Rewrite each simple statement of `func` that calls `name[index]`, `name` one of the
    list or tuple `displays` (name -> display) and `index` no constant, in place; and
    `len(name)` as the number of items."""
    sequences = {n: d for n, d in displays.items() if isinstance(d, (gast.List, gast.Tuple))}
    if not sequences:
        return
    used = {n.id for n in ir.walk(func) if isinstance(n, gast.Name)}
    _count_items(func, sequences, "len" in ir.names_in(func, gast.Store))

    def fresh():
        k = 0
        while f"_pick{k}" in used:
            k += 1
        used.add(f"_pick{k}")
        return f"_pick{k}"

    for node in list(ir.walk(func)):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list) and any(isinstance(s, _SIMPLE) for s in block):
                block[:] = [new for s in block for new in _branched(s, sequences, fresh)]


def _count_items(func, sequences, len_rebound):
    """`len(layers)` of such a display as the number it is (`for i in range(len(layers))`
    then reads no local function as a value)."""
    if len_rebound:
        return
    for node in list(ir.walk(func)):
        for field, value in ir.fields(node):
            items = value if isinstance(value, list) else [value]
            counted = [
                ir.const(len(sequences[v.args[0].id].elts))
                if isinstance(v, gast.Call)
                and isinstance(v.func, gast.Name)
                and v.func.id == "len"
                and len(v.args) == 1
                and not v.keywords
                and isinstance(v.args[0], gast.Name)
                and v.args[0].id in sequences
                else v
                for v in items
            ]
            if any(c is not v for c, v in zip(counted, items)):
                setattr(node, field, counted if isinstance(value, list) else counted[0])


def _branched(stmt, sequences, fresh):
    """`stmt`, or the statements picking each item its call of a display's item reads."""
    pick = next((p for p in _picks(stmt, sequences)), None) if isinstance(stmt, _SIMPLE) else None
    if pick is None:
        return [stmt]
    count = len(sequences[pick.value.id].elts)
    distinct = {gast.dump(p): len(sequences[p.value.id].elts) for p in _picks(stmt, sequences)}
    if math.prod(distinct.values()) > _MOST_BRANCHES:
        return [stmt]  # (then an error where it is called)
    at = fresh()
    chosen = gast.Subscript(value=ir.call("range", ir.const(count)), slice=pick.slice)
    chosen.ctx = gast.Load()
    out = [gast.copy_location(ir.assign(at, chosen), stmt)]
    branches = []
    picked = gast.dump(pick)
    for k in range(count):
        copy = ir.copy_tree(stmt)
        for call in ir.walk(copy):
            if isinstance(call, gast.Call) and gast.dump(call.func) == picked:
                call.func = _item(pick, k)
        branches.append(_branched(copy, sequences, fresh))
    chain = branches[-1]
    for k in range(count - 2, -1, -1):
        test = gast.Compare(left=ir.name(at), ops=[gast.Eq()], comparators=[ir.const(k)])
        chain = [gast.copy_location(gast.If(test=test, body=branches[k], orelse=chain), stmt)]
    return out + chain


def _picks(stmt, sequences):
    """The calls' functions in `stmt` that are `name[index]` of a display by an index with
    no call in it (read once, before the statement), but no constant."""
    nodes = list(ir.walk(stmt))
    if any(isinstance(n, _MAYBE_RUN) for n in nodes):
        return  # (a call there may run any number of times, or never)
    for node in nodes:
        if not isinstance(node, gast.Call):
            continue
        func = node.func
        if (
            isinstance(func, gast.Subscript)
            and isinstance(func.value, gast.Name)
            and func.value.id in sequences
            and not isinstance(func.slice, (gast.Constant, gast.Slice))
            and ir.constant_int(func.slice) is None
            and not any(isinstance(n, (gast.Call, gast.NamedExpr)) for n in ir.walk(func.slice))
        ):
            yield func


def _item(pick, k):
    return gast.Subscript(value=ir.copy_tree(pick.value), slice=ir.const(k), ctx=gast.Load())
