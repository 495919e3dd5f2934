"""Stage 3, reverse mode: the adjoint of each kind of statement of the normalised program.

`Reverse` (reverse.py) walks the program backwards and hands each statement here with the set of
adjoints live after it; each rule returns the statements of its adjoint and updates that set.
An assignment instantiates its primitive's adjoint template for each differentiated operand;
a push or pop of a loop's stack moves adjoints through the adjoint stack; a user call calls the
callee's backward function with the values its forward saved.
"""

import gast

from . import ir, runtime
from .annotations import Mark, mark
from .passes.fold import fold, folded
from .primitives import registry
from .saving import BEFORE, Later
from .scalars import without_unbroadcast

_SAME_KIND = (gast.Add, gast.Sub, gast.Mult, gast.Div)


def _real_scalar(node, names):
    """Whether operand `node` is a number or a name in `names` (real scalars)."""
    if isinstance(node, gast.Constant):
        return type(node.value) in (int, float)
    return isinstance(node, gast.Name) and node.id in names


class StatementAdjoints:
    """The adjoint rules of `Reverse`, one per statement kind (a mixin: it uses the names,
    stacks and saving decisions of the sweep that holds it)."""

    def reverse_assign(self, stmt, live):
        if stmt.callee is not None:
            return self.reverse_call(stmt, live)
        if (
            stmt.primitive is not None
            and len(stmt.targets) == 1
            and stmt.targets[0] in self.stacks & self.fn.active
        ):
            # a stack taken from a container (the saved values of a backward function
            # differentiated again): its adjoint, the list its pops passed back, goes there
            live.add(stmt.targets[0])
        if stmt.primitive is None or not any(t in live for t in stmt.targets):
            live.difference_update(stmt.targets)  # an overwritten value's adjoint is gone
            return []
        template = stmt.primitive.adjoint
        output, adjoint = self._output_and_adjoint(stmt, live)
        live.difference_update(stmt.targets)
        out = []
        plain = self._between_real_scalars(stmt)
        for param, rule in template.rules.items():
            value = stmt.bound.get(param)
            if value is None:
                continue
            if rule.index is not None and isinstance(value, gast.Name):
                # a list built with append: its adjoint, a list too, one item per item,
                # which the reverse of each append then pops; another list, tuple or array:
                # the adjoint of each of its items (or rows)
                if value.id in self.fn.active:
                    each = self._accumulate_items if value.id in self.stacks else self._gather_items
                    out.append(each(template, rule, stmt, output, adjoint, value.id, live))
                continue
            if rule.index is None and isinstance(value, (gast.List, gast.Tuple)):
                out += self._distribute(template, rule, stmt, output, adjoint, value, live)
                continue
            if rule.index is None:
                elements = [(None, value)]
            else:  # last operand first: an einsum's weights come last, their adjoint is
                # small, and while it is computed (copying the other operand's windows once
                # more) the large adjoint of those windows is not yet held. ResNet-20's
                # backward then reuses its memory instead of faulting in 40 MB per layer.
                elements = list(enumerate(value.elts))[::-1]
            for element, atom in elements:
                if not (isinstance(atom, gast.Name) and atom.id in self.fn.active):
                    continue
                expr = self._instantiated(
                    stmt,
                    param,
                    element,
                    adjoint,
                    lambda: template.instantiate(
                        rule, stmt.bound, output, adjoint, element, fold=folded
                    ),
                    plain or rule.index is None and self._beside_real_scalars(stmt, param),
                )
                out.append(self.accumulate(atom.id, expr, live))
        return out

    def _output_and_adjoint(self, stmt, live):
        """The expressions a template names `z` and `bz`: lists of them for a primitive
        returning several values (None for an output whose adjoint is not live)."""
        if not stmt.unpack:
            return ir.name(stmt.targets[0]), ir.name(self.bname(stmt.targets[0]))
        output = gast.List(elts=[ir.name(t) for t in stmt.targets], ctx=gast.Load())
        adjoint = gast.List(
            elts=[ir.name(self.bname(t)) if t in live else ir.const(None) for t in stmt.targets],
            ctx=gast.Load(),
        )
        return output, adjoint

    def _between_real_scalars(self, stmt):
        """Whether `stmt` computes a real scalar from real scalars only (then its adjoint
        needs no runtime.unbroadcast: scalars.py)."""
        return all(t in self.real_scalars for t in stmt.targets) and all(
            isinstance(v, gast.Constant) or isinstance(v, gast.Name) and v.id in self.real_scalars
            for v in stmt.bound.values()
            if v is not None
        )

    def _beside_real_scalars(self, stmt, param):
        """Whether every operand of `stmt` but `param` is a real scalar (template.py drops
        runtime.unbroadcast beside numbers; this beside names too), or, for `+ - * /`, a
        value computed from param's without widening it (scalars.Narrower): then the result
        has param's shape, unless the record says it widens, and is real where param is
        (but for `**`: a negative float to a fractional power is complex)."""
        others = [v for p, v in stmt.bound.items() if p != param and v is not None]
        if not others or stmt.primitive.widens or gast.Pow in stmt.primitive.operators:
            return False
        if all(_real_scalar(v, self.real_scalars) for v in others):
            return True
        x = stmt.bound.get(param)
        return (
            isinstance(x, gast.Name)
            and x.id in self.narrower.fixed
            and any(op in _SAME_KIND for op in stmt.primitive.operators)
            and all(self.narrower.within(v, x.id) for v in others)
        )

    def _instantiated(self, stmt, param, element, adjoint, make, plain=False):
        """The folded template expression for this operand: made once per build, though a
        loop's reversed body is made again until its live adjoints settle. Only the last
        one made is kept, so the first request may have the expression itself; a later one
        gets a copy (the passes after build change code in place)."""
        key = (id(stmt), param, element, gast.dump(adjoint) if stmt.unpack else None)
        made = self._templates_made.get(key)
        if made is None:
            made = self._templates_made[key] = without_unbroadcast(make()) if plain else make()
        if key in self._templates_handed:
            return ir.copy_tree(made)
        self._templates_handed.add(key)
        return made

    def _distribute(self, template, rule, stmt, output, adjoint, display, live):
        """A rule giving the adjoint of a whole list, for a list display: each item gets its
        item of that adjoint."""
        active = [
            (k, e.id)
            for k, e in enumerate(display.elts)
            if isinstance(e, gast.Name) and e.id in self.fn.active
        ]
        if not active:
            return []
        whole = self._fresh((("<items>", id(display)), "b_items"), self.adjoint_names)
        out = [ir.assign(whole, fold(template.instantiate(rule, stmt.bound, output, adjoint)))]
        for k, name in active:
            item = gast.Subscript(value=ir.name(whole), slice=ir.const(k), ctx=gast.Load())
            out.append(self.accumulate(name, item, live))
        return out

    def _each_item(self, template, rule, stmt, output, adjoint, items):
        """[`rule` for item _k for _k in range(len(items))]: each item's adjoint."""
        index = self._fresh(((items, "<index>"), "_k"), self.adjoint_names)
        expr = fold(template.instantiate(rule, stmt.bound, output, adjoint, ir.name(index)))
        return gast.ListComp(
            elt=expr,
            generators=[
                gast.comprehension(
                    target=ir.name(index, store=True),
                    iter=ir.call("range", ir.call("len", ir.name(items))),
                    ifs=[],
                    is_async=0,
                )
            ],
        )

    def _accumulate_items(self, template, rule, stmt, output, adjoint, items, live):
        """b<items> with each item's adjoint added: `rule` for every index of the list."""
        each = self._each_item(template, rule, stmt, output, adjoint, items)
        b = self._items_adjoint(items, live)
        return ir.assign(self.bname(items), ir.call("runtime.add_items", b, each))

    def _gather_items(self, template, rule, stmt, output, adjoint, items, live):
        """b<items> += the adjoint of each item of `items` (a list or tuple variable, or an
        array's rows): `rule` for every index, gathered by runtime.gathered_items."""
        each = self._each_item(template, rule, stmt, output, adjoint, items)
        return self.accumulate(items, ir.call("runtime.gathered_items", each, ir.name(items)), live)

    def reverse_push(self, stmt, live):
        """stack.append(v) hands v the adjoint its pop gave the adjoint stack: none where
        nothing gave the list an adjoint yet (len(xs) reads no item), nor pops from it. An
        item read before the append gives it one later in the sweep: it starts as zeros of
        the list's whole length here, popped as each append is, so that it is as long as the
        list was where that read is."""
        made = []
        if stmt.stack not in live:
            if stmt.stack not in self.adjoint_reads | self.popped_stacks:
                return []
            made.append(self._zero_items(stmt.stack, live))
        popped = ir.call(ir.attr(self.bname(stmt.stack), "pop"))
        value = stmt.value
        if isinstance(value, gast.Name) and value.id in self.fn.active:
            return made + [self.accumulate(value.id, popped, live)]
        return made + [ir.expr_stmt(popped)]

    def reverse_pop(self, stmt, live):
        """v = stack.pop() passes v's adjoint (or zeros) to the adjoint stack."""
        target = stmt.target
        adjoint = (
            ir.name(self.bname(target))
            if target in live
            else ir.call("runtime.zeros_like", ir.name(target))
        )
        live.discard(target)
        # (the adjoint of the list it pops from holds its items' adjoints from here on: a
        # list both popped and added to, as a gradient's list adjoint is, keeps them; made
        # here, as long as the list is after the pop: none of it is changed later)
        made = [] if stmt.stack in live else [self._zero_items(stmt.stack, live)]
        return made + [ir.expr_stmt(ir.call(ir.attr(self.bname(stmt.stack), "append"), adjoint))]

    def _zero_items(self, stack, live):
        """The adjoint of list `stack` made zeros, one per item it holds (at its end: the
        first change of it the reverse sweep undoes). Of a list f pops from, a list of them:
        its length then is not the list's as the sweep finds it, which a Sparse is read by."""
        live.add(stack)
        if stack in self.popped_stacks:
            zeros = gast.BinOp(
                left=gast.List(elts=[ir.const(0.0)], ctx=gast.Load()),
                op=gast.Mult(),
                right=ir.call("len", ir.name(stack)),
            )
        else:
            zeros = ir.call("runtime.zeros_like", ir.name(stack))
        return ir.assign(self.bname(stack), zeros)

    def reverse_set_item(self, stmt, live):
        out = []
        target = stmt.target
        if target in live:
            b = self.bname(target)
            value = stmt.value
            if isinstance(value, gast.Name) and value.id in self.fn.active:
                read = (
                    ir.subscript(b, stmt.index)
                    if _basic(stmt.index)
                    else ir.call("runtime.written", ir.name(b), ir.index_value(stmt.index))
                )
                read = ir.call("runtime.through_write", read, ir.name(target))
                # (a name of its own: the forward sweep's, shared, would follow a rename that
                # copy propagation makes in the forward function of a split pair alone)
                part = ir.call("runtime.unbroadcast", read, ir.name(value.id))
                out.append(self.accumulate(value.id, part, live))
            out.append(
                ir.assign(b, ir.call("runtime.zero_at", ir.name(b), ir.index_value(stmt.index)))
            )
        out.append(
            Later(
                lambda: (
                    [
                        ir.assign(
                            ir.subscript(target, stmt.index, store=True),
                            ir.call(ir.attr(self.stack(target), "pop")),
                        )
                    ]
                    if self._saved(target, stmt, BEFORE)
                    else []
                )
            )
        )
        return out

    def reverse_call(self, stmt, live):
        result, callee = stmt.targets[0], stmt.callee
        if result not in live:
            return []
        live.discard(result)
        grads = ir.call(callee.backward, ir.name(self.bname(result)), ir.name(callee.saved))
        out = (
            []
            if callee.recompute is None
            else [
                ir.assign(
                    callee.saved,
                    gast.Subscript(
                        value=ir.copy_tree(callee.recompute), slice=ir.const(1), ctx=gast.Load()
                    ),
                )
            ]
        )
        names = [a.id for a in callee.atoms]
        if len(set(names)) == len(names) and not (live | self.stacks) & set(names):
            live.update(names)
            return out + [
                ir.assign(
                    ir.tuple_of([ir.name(self.bname(n), store=True) for n in names], store=True),
                    grads,
                )
            ]
        held = self._fresh((callee.saved, callee.grads), self.adjoint_names)
        out.append(ir.assign(held, grads))
        for k, n in enumerate(names):
            part = gast.Subscript(value=ir.name(held), slice=ir.const(k), ctx=gast.Load())
            out.append(self.accumulate(n, part, live))
        return out

    def _items_adjoint(self, items, live):
        """The adjoint list of list `items` to add to: none yet where the list was bound
        anew after this point (ps = new_list in a loop: the adjoint it had went to
        new_list's)."""
        held = items in live
        live.add(items)
        return ir.name(self.bname(items)) if held else gast.List(elts=[], ctx=gast.Load())

    def accumulate(self, var, expr, live):
        b = self.bname(var)
        if var in self.stacks:  # a list built with append: its adjoint is a list, item by item
            return ir.assign(
                b, ir.call("runtime.add_items", self._items_adjoint(var, live), expr, ir.name(var))
            )
        if var in live and _calls(expr, runtime.getitem_grad):
            g, x, index = expr.args  # scatter into the existing adjoint, not into fresh zeros
            expr = ir.call("runtime.add_at", ir.name(b), x, index, g)
        elif var in live:
            expr = gast.BinOp(left=ir.name(b), op=gast.Add(), right=expr)
            live.add(var)
            return mark(ir.assign(b, expr), Mark.ACCUMULATION)
        live.add(var)
        return ir.assign(b, expr)


def _basic(index):
    """Whether an index is surely basic (ints, slices, ...: no element twice)."""
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    return all(
        isinstance(p, gast.Slice)
        or isinstance(p, gast.Constant)
        and (p.value is None or p.value is Ellipsis or type(p.value) is int)
        for p in parts
    )


def _calls(expr, function):
    return (
        isinstance(expr, gast.Call) and registry.resolve(ir.dotted(expr.func) or ("",)) is function
    )
