"""Stage 2c, loops: `for` and `while` statements in ANF (a mixin of the Normalizer, anf.py):
a loop over items by index, over a range, or over what is listed first; reversed(seq) of
differentiated items looped over as seq[::-1]."""

import gast

from . import ir
from .activity import loop_pairs
from .errors import UnsupportedError


class LoopStatements:
    """Loops, for the Normalizer (anf.py), which provides the names, activity and blocks
    these methods use."""

    def _reversed_as_slice(self, it):
        """reversed(seq) of differentiated items, looped over: seq[::-1], which has an adjoint."""
        if (
            isinstance(it, gast.Call)
            and len(it.args) == 1
            and not it.keywords
            and self.p.resolve(it.func) is reversed
            and self._is_active(it.args[0])
        ):
            return gast.Subscript(
                value=it.args[0],
                slice=gast.Slice(lower=None, upper=None, step=ir.const(-1)),
                ctx=gast.Load(),
            )
        return it

    def for_statement(self, stmt, loc, out):
        if stmt.orelse:
            raise UnsupportedError("for ... else is not supported", loc, "use a flag variable")
        stmt.iter = self._reversed_as_slice(stmt.iter)
        it = stmt.iter
        if isinstance(it, gast.Call) and any(
            self.p.resolve(it.func) is f for f in (enumerate, zip)
        ):
            it.args = [self._reversed_as_slice(a) for a in it.args]  # (enumerate(reversed(xs)))
        pairs = loop_pairs(stmt)
        self.depth += 1
        prologue = []
        if pairs is None:
            raise UnsupportedError(
                "this loop target cannot be differentiated",
                loc,
                "loop over range(...), an array, zip(...) or enumerate(...)",
            )
        is_range = isinstance(stmt.iter, gast.Call) and self.p.resolve(stmt.iter.func) is range
        assigned_in_body = {n for s in stmt.body for n in _stored(s)}
        if not isinstance(stmt.target, gast.Name):  # for W, b in params: items by index
            iterable, target = self._indexed_loop(stmt, pairs, loc, out, prologue)
        elif is_range and len(pairs) == 1:
            iterable = self.rename(stmt.iter)
            if ir.names_in(stmt.iter) & assigned_in_body:
                self.depth -= 1
                held = self.names.fresh("_range")
                out.append(ir.Assign([held], iterable, loc))
                self.depth += 1
                iterable = ir.name(held)
            target = self.store(stmt.target.id)
        elif len(pairs) == 1 and not self._is_active(stmt.iter) and self.forward_mode:
            # forward mode goes through the loop once, as f does: no copy to run it backwards
            iterable, target = self.rename(stmt.iter), self.store(stmt.target.id)
        elif len(pairs) == 1 and not self._is_active(stmt.iter):
            self.depth -= 1
            held = self.names.fresh("_seq")
            # (a loop a break may leave reads no further than f's: its iterable may be endless)
            listing = "runtime.taken_items" if getattr(stmt, "exits", False) else "list"
            out.append(ir.Assign([held], ir.call(listing, self.rename(stmt.iter)), loc))
            self.depth += 1
            iterable, target = ir.name(held), self.store(stmt.target.id)
        else:
            iterable, target = self._indexed_loop(stmt, pairs, loc, out, prologue)
        body = prologue + self.block(stmt.body)
        self.depth -= 1
        counter = self.names.fresh("_n") if getattr(stmt, "exits", False) else None
        out.append(ir.For(target, iterable, body, loc, counter))

    def _indexed_loop(self, stmt, pairs, loc, out, prologue):
        """(iterable, target) of a loop over sequences by index: `for i in range(len(seq))`
        with each item read into its name in `prologue` (zip, enumerate, a differentiated
        sequence)."""
        iterated = [source for _, source in pairs if source is not None]
        self.depth -= 1
        sources = []
        for source in iterated:
            atom = (
                self.atom(source, loc, out) if self._is_active(source) else self._indexable(source)
            )
            if not isinstance(atom, gast.Name):
                held = self.names.fresh("_seq")
                out.append(ir.Assign([held], atom, loc))
                atom = ir.name(held)
            sources.append(atom)
        start = (
            stmt.iter.args[1] if pairs[0][1] is None and len(stmt.iter.args) == 2 else None
        )  # enumerate(seq, start)
        if start is not None:
            start = self.rename(start)
            if not ir.is_simple(start):
                held = self.names.fresh("_start")
                out.append(ir.Assign([held], start, loc))
                start = ir.name(held)
        self.depth += 1
        lengths = [ir.call("len", s) for s in sources]
        length = lengths[0] if len(lengths) == 1 else ir.call("min", *lengths)
        iterable = (
            ir.call("range", length)
            if start is None
            else ir.call("range", start, gast.BinOp(left=start, op=gast.Add(), right=length))
        )
        index_target = next((t for t, s in pairs if s is None), None)
        target = self.store(index_target.id) if index_target is not None else self.names.fresh("_i")
        position = (
            ir.name(target)
            if start is None
            else gast.BinOp(left=ir.name(target), op=gast.Sub(), right=ir.copy_tree(start))
        )
        sources = iter(sources)
        for element, source in pairs:
            if source is None:
                continue
            seq = next(sources)
            element_value = gast.Subscript(value=seq, slice=ir.copy_tree(position), ctx=gast.Load())
            self.assign_statement(
                gast.Assign(targets=[element], value=element_value, type_comment=None),
                loc,
                prologue,
            )
        return iterable, target

    def _indexable(self, source):
        """Constant `source` as something `len` and `[k]` work on, forwards and again
        backwards: itself if it is a container the code holds (an argument, a subscript, an
        attribute, a display, a name bound only to those, a list or numpy call's result),
        else listed (`reversed(params)`, `d.items()`, an iterator partly consumed)."""
        renamed = self.rename(source)
        return renamed if self._holds_container(source) else ir.call("list", renamed)

    def _holds_container(self, node, seen=frozenset()):
        if isinstance(node, gast.Name):
            bindings = [
                n
                for n in ir.walk(self.p.node)
                if isinstance(n, gast.Name) and n.id == node.id and isinstance(n.ctx, gast.Store)
            ]
            if node.id in self.params:
                return not bindings
            values = [
                n.value
                for n in ir.walk(self.p.node)
                if isinstance(n, gast.Assign) and len(n.targets) == 1 and n.targets[0] in bindings
            ]
            return (
                node.id not in seen
                and len(values) == len(bindings)
                and all(self._holds_container(value, seen | {node.id}) for value in values)
            )
        if isinstance(node, gast.Call):
            fn = self.p.resolve(node.func)
            return fn in (list, tuple, sorted, range) or getattr(fn, "__module__", "").startswith(
                "numpy"
            )
        return isinstance(
            node, (gast.Subscript, gast.Attribute, gast.List, gast.Tuple, gast.ListComp)
        )

    def while_statement(self, stmt, loc, out):
        if stmt.orelse:
            raise UnsupportedError("while ... else is not supported", loc, "use a flag variable")
        self.depth += 1
        test = self.rename(stmt.test)
        body = self.block(stmt.body)
        self.depth -= 1
        out.append(ir.While(test, body, loc, self.names.fresh("_n")))


def _stored(stmt):
    return {
        n.id for n in ir.walk(stmt) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)
    }
