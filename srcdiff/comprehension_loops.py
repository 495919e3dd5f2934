"""Comprehensions over differentiated values, lowered to the loops that build them (the
transforms follow a loop's appends, not a comprehension's items): run between rounds of
activity analysis, since what a lowered loop differentiates decides which comprehensions
nested in it are lowered next."""

import gast

from . import ir

_COMPREHENSIONS = frozenset((gast.ListComp, gast.GeneratorExp, gast.DictComp))


def lower_comprehensions(body, is_varied, fresh, renamed=None):
    """A list comprehension or generator over differentiated values (`is_varied(node)`)
    becomes a loop that appends, ahead of its statement (`[f(r) for r in x]` -> `_items0 =
    []`, `for _r0 in x: _items0.append(f(_r0))`): a list built with append, which np.stack,
    np.array, sum and the like take; a dict comprehension, a loop that sets its items
    (`_items0[k] = v`). So is one a for loop goes over (`for W, b in [p for p in params if
    ...]`), which it evaluates once, first. Whether any was (then activity analysis runs again, and this again
    for the comprehensions nested in those). `renamed` (if given) collects, for each loop
    name made fresh, the comprehension's own name it stands for."""
    changed = False
    out = []
    for stmt in body:
        for block in ("body", "orelse"):
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                changed |= lower_comprehensions(getattr(stmt, block), is_varied, fresh, renamed)
        if isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Return, gast.Expr, gast.For)):
            evaluated = stmt.iter if isinstance(stmt, gast.For) else stmt  # (once, first)
            found = [n for n in ir.nodes_of(evaluated, _COMPREHENSIONS) if is_varied(n)]
            inner = {id(m) for n in found for m in ir.walk(n) if m is not n}
            for comp in (n for n in found if id(n) not in inner):
                whole = (
                    isinstance(comp, (gast.ListComp, gast.DictComp))
                    and isinstance(stmt, gast.Assign)
                    and stmt.value is comp
                    and len(stmt.targets) == 1
                    and isinstance(stmt.targets[0], gast.Name)
                    and stmt.targets[0].id not in ir.names_in(comp)
                )
                # hs = [f(r) for r in x] builds hs itself (xs = [f(r) for r in xs] cannot)
                items = stmt.targets[0].id if whole else fresh("_items")
                loop = _comprehension_loop(comp, items, fresh, renamed)
                for new in loop:
                    for n in ir.walk(new):
                        n.lineno = getattr(n, "lineno", None) or stmt.lineno
                out.extend(loop)
                Replace(comp, ir.name(items)).visit(stmt)
                changed = True
                if whole:
                    break
            else:
                out.append(stmt)
            continue
        out.append(stmt)
    body[:] = out
    return changed


def _comprehension_loop(comp, items, fresh, renamed):
    """The statements building list `items` as comprehension `comp` would (its loop
    names made fresh: they are the comprehension's own)."""
    names = {
        n.id: fresh("_" + n.id.lstrip("_"))
        for g in comp.generators
        for n in ir.walk(g.target)
        if isinstance(n, gast.Name)
    }
    if renamed is not None:
        renamed.update({new: old for old, new in names.items()})
    rename = _Rename(names)
    if isinstance(comp, gast.DictComp):
        key = rename.visit(ir.copy_tree(comp.key))
        item = gast.Subscript(value=ir.name(items), slice=key, ctx=gast.Store())
        statements = [ir.assign(item, rename.visit(ir.copy_tree(comp.value)))]
        start = gast.Dict(keys=[], values=[])
    else:
        statements = [
            ir.expr_stmt(ir.call(ir.attr(items, "append"), rename.visit(ir.copy_tree(comp.elt))))
        ]
        start = gast.List(elts=[], ctx=gast.Load())
    for k, generator in reversed(list(enumerate(comp.generators))):
        for condition in reversed(generator.ifs):
            statements = [
                gast.If(test=rename.visit(ir.copy_tree(condition)), body=statements, orelse=[])
            ]
        source = ir.copy_tree(generator.iter)  # the first reads the enclosing scope
        statements = [
            gast.For(
                target=rename.visit(ir.copy_tree(generator.target)),
                iter=rename.visit(source) if k else source,
                body=statements,
                orelse=[],
                type_comment=None,
            )
        ]
    return [ir.assign(items, start)] + statements


class Replace(gast.NodeTransformer):
    """Puts `new` where node `old` (that very node) is."""

    def __init__(self, old, new):
        self.old, self.new = old, new

    def generic_visit(self, node):
        return self.new if node is self.old else super().generic_visit(node)


class _Rename(gast.NodeTransformer):
    def __init__(self, names):
        self.names = names

    def visit_Name(self, node):
        if node.id in self.names:
            node.id = self.names[node.id]
        return node
