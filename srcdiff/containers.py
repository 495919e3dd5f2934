"""Before ANF, once activity is known: the ways people hold and take apart containers of
differentiated values, rewritten into what srcdiff differentiates (displays, comprehensions,
which become loops that append, indexing, and loops over sequences by index).

    Ws, bs = zip(*params)          Ws = []; bs = []
                              ->   for _W0, _b0 in params: Ws.append(_W0); bs.append(_b0)
    for a, b in zip(*pieces)  ->   _a0, _b0 = pieces; for a, b in zip(_a0, _b0)
    *hidden, last = params    ->   hidden = params[:-1]; last = params[-1]
    list(params)              ->   [_v0 for _v0 in params]
    dict(w=a, b=c)            ->   {'w': a, 'b': c}
    sorted(params)            ->   sorted(params.keys())
    keys = list(params)       ->   keys = list(params.keys())   (indexed as params[keys[0]])
    it = iter(params)         ->   it = params; W, b = it[0]; ...
    W, b = next(it)
    f(*pair), pair + (c,)     ->   f(pair[0], pair[1]), (pair[0], pair[1], c)

Each applies where what it rewrites varies with the differentiated arguments (the rest runs
as written), but for the nested and starred assignment targets, which ANF takes only as plain
names. The lengths these need come from the code (the targets' count, a display, a name bound
once to a display), never from the values: what has no length in the code is an error saying
how to write it.
"""

import gast

from . import ir
from .activity import loop_pairs, target_names
from .container_expressions import ContainerExpressions
from .container_facts import (
    as_store,
    bound_to,
    copies_of_appended_lists,
    dict_view,
    display_lengths,
    tuple_item_lengths,
    evaluation_order,
    is_call,
    label,
    names_taking,
    nested,
    unpacks_zip_star,
    zip_star_error,
)
from .container_joins import Joining, rebind_item_writes
from .errors import UnsupportedError
from .item_updates import augmented_item_writes
from .list_changes import copy_written_rows, rebind_list_changes

_BLOCKS = (gast.If, gast.For, gast.While)


class Lowering(ContainerExpressions, Joining):
    """One pass over a function (a gast FunctionDef, changed in place); `run()` tells whether
    it changed anything (activity analysis then runs again, and this again)."""

    def __init__(self, func, is_varied, resolve, fresh, location, useful=None):
        self.func, self.is_varied, self.resolve = func, is_varied, resolve
        self.fresh, self.location, self.useful = fresh, location, useful
        self.needed = True  # whether the statement lowered binds a value an output reads
        self.lengths = display_lengths(func)
        self.item_lengths = tuple_item_lengths(func, self.lengths)
        self.copies = copies_of_appended_lists(func)
        self.sequences = set()  # (what is_sequence reads while the names are gathered)
        sequences = set()
        for n in ir.walk(func):  # (one walk: the names bound to sequences, and appended to)
            if isinstance(n, gast.Assign):
                if isinstance(n.targets[0], gast.Name) and self.is_sequence(n.value):
                    sequences.add(n.targets[0].id)
            elif (
                isinstance(n, gast.Call)
                and isinstance(n.func, gast.Attribute)
                and n.func.attr == "append"
                and isinstance(n.func.value, gast.Name)
            ):
                sequences.add(n.func.value.id)
        self.sequences = sequences
        self.changed = False
        self.hoisted = []  # statements an expression of the current statement needs first
        # ids of d.items() and d.values() calls lowered whole where they are (a loop's,
        # sorted(d.items()), dict(d.items())), not as a list of their own
        self.whole_views = set()
        # what this pass refuses: it may know more in the next (`keys = sorted(params)`,
        # lowered in this one, varies no more in the next)
        self.refused = []

    def run(self):
        if augmented_item_writes(self.func, self.is_varied, self.resolve, self.location):
            self.changed = True
        for rebind in (copy_written_rows, rebind_list_changes):
            if rebind(self.func, self.is_varied, self.resolve, self.fresh, self.useful):
                self.changed = True
        if rebind_item_writes(self.func, self.is_varied, self.resolve, self.fresh, self.useful):
            self.changed = True
        self.func.body = self.block(self.func.body)
        if self.refused and not self.changed:
            raise self.refused[0]
        return self.changed

    def block(self, stmts):
        out = []
        for index, stmt in enumerate(stmts):
            for field in ("body", "orelse"):
                if isinstance(stmt, _BLOCKS):
                    setattr(stmt, field, self.block(getattr(stmt, field)))
            self.iterators(stmt, stmts[index + 1 :])
            out += self.statement(stmt)
        return out

    def statement(self, stmt):
        """The statements standing for `stmt` (itself, its expressions lowered)."""
        before = []
        self.needed = (
            self.useful is None
            or not isinstance(stmt, gast.Assign)
            or bool({n for t in stmt.targets for n in target_names(t)} & self.useful)
        )
        field = "iter" if isinstance(stmt, gast.For) else "value"
        listed = getattr(stmt, field, None)
        if (
            (is_call(listed, "list", self.resolve) or is_call(listed, "tuple", self.resolve))
            and len(listed.args) == 1
            and unpacks_zip_star(listed.args[0])
            and isinstance(
                getattr(stmt, "target", None) or stmt.targets[0], (gast.Tuple, gast.List)
            )
        ):
            setattr(stmt, field, listed.args[0])  # Ws, bs = list(zip(*pairs)): the same items
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if (
                isinstance(target, (gast.Tuple, gast.List))
                and unpacks_zip_star(stmt.value)
                and self.is_varied(stmt.value)
            ):
                return self.unzip(stmt)
            if nested(target):
                return self.unpack(stmt)
            if (
                isinstance(target, gast.Name)
                and self.joined(stmt.value) is not None
                and target.id not in ir.names_in(stmt.value)
            ):  # ps = [*params, extra]
                return self.built(stmt.value, stmt, into=target.id)
        if isinstance(stmt, gast.For):
            before = self.loop(stmt)
        for field in ("value", "test", "iter", "msg"):
            node = getattr(stmt, field, None)
            if isinstance(node, gast.AST):
                setattr(stmt, field, self.expression(node, stmt))
        hoisted, self.hoisted = self.hoisted, []
        return before + hoisted + [stmt]

    # --- statements -----------------------------------------------------------------------

    def unpack(self, stmt):
        """`a, (b, c) = v` as `a, _items0 = v; b, c = _items0`; `a, *m, b = v` by index."""
        self.changed = True
        target, value = stmt.targets[0], stmt.value
        if any(isinstance(e, gast.Starred) for e in target.elts):
            return self.unpack_starred(stmt)
        elts, out = [], []
        for element in target.elts:
            if isinstance(element, (gast.Tuple, gast.List)):
                held = self.fresh("_items")
                elts.append(ir.name(held, store=True))
                out.append(self._located(ir.assign(as_store(element), ir.name(held)), stmt))
            else:
                elts.append(element)
        first = self._located(ir.assign(type(target)(elts=elts, ctx=gast.Store()), value), stmt)
        return [s for new in [first] + out for s in self.statement(new)]

    def unpack_starred(self, stmt):
        """`a, *rest, b = v`: the items by index (a slice for `rest`), after Python's check
        that there are enough. A value that does not vary is made a list first, as Python's
        starred target is; a varied one is sliced as it is (a tuple gives a tuple)."""
        target, value = stmt.targets[0], stmt.value
        star = next(k for k, e in enumerate(target.elts) if isinstance(e, gast.Starred))
        after = len(target.elts) - star - 1
        out = []
        if self.is_varied(value) and isinstance(value, gast.Name):
            seq = value.id
        else:
            seq = self.fresh("_seq")
            out.append(ir.assign(seq, value if self.is_varied(value) else ir.call("list", value)))
        fixed = len(target.elts) - 1
        if fixed:
            message = f"not enough values to unpack (expected at least {fixed})"
            out.append(
                gast.If(
                    test=gast.Compare(
                        left=ir.call("len", ir.name(seq)),
                        ops=[gast.Lt()],
                        comparators=[ir.const(fixed)],
                    ),
                    body=[gast.Raise(exc=ir.call("ValueError", ir.const(message)), cause=None)],
                    orelse=[],
                )
            )
        for k, element in enumerate(target.elts):
            if k < star:
                index = ir.const(k)
            elif k > star:
                index = ir.const(k - len(target.elts))
            else:
                element = element.value
                index = gast.Slice(
                    lower=ir.const(star) if star else None,
                    upper=ir.const(-after) if after else None,
                    step=None,
                )
            out.append(
                ir.assign(
                    as_store(element),
                    gast.Subscript(value=ir.name(seq), slice=index, ctx=gast.Load()),
                )
            )
        return [s for new in out for s in self.statement(self._located(new, stmt))]

    def unzip(self, stmt):
        """`A, B = zip(*pairs)`: a list per target, built by a loop over the pairs (lists,
        where Python makes tuples: their items are the same)."""
        self.changed = True
        targets, pairs = stmt.targets[0].elts, stmt.value.args[0].value
        if not all(isinstance(t, gast.Name) for t in targets):
            raise UnsupportedError(
                "A, B = zip(*pairs) of differentiated values unpacks into plain names only",
                self.location(stmt),
                "unpack into names, then take those apart",
            )
        items = [self.fresh("_" + t.id.lstrip("_")) for t in targets]
        out = [ir.assign(t.id, gast.List(elts=[], ctx=gast.Load())) for t in targets]
        appends = [
            ir.expr_stmt(ir.call(ir.attr(t.id, "append"), ir.name(item)))
            for t, item in zip(targets, items)
        ]
        out.append(
            gast.For(
                target=gast.Tuple(elts=[ir.name(i, store=True) for i in items], ctx=gast.Store()),
                iter=pairs,
                body=appends,
                orelse=[],
                type_comment=None,
            )
        )
        return [self._located(s, stmt) for s in out]

    def loop(self, stmt):
        """Statements to run before for-loop `stmt`, whose header is rewritten in place:
        `zip(*pieces)` with pieces unpacked first, `d.items()` and `d.values()` as a loop
        over the keys, targets nested deeper than one level unpacked in the body."""
        before = self._hoist_comprehensions(stmt) + self.enumerate_from_zero(stmt)
        self._name_items(stmt)
        zipped = stmt.iter
        target = stmt.target
        if (
            is_call(zipped, "enumerate", self.resolve)
            and zipped.args
            and isinstance(target, gast.Tuple)
            and len(target.elts) == 2
        ):
            zipped, target = zipped.args[0], target.elts[1]
        if (
            unpacks_zip_star(zipped)
            and self.is_varied(zipped)
            and isinstance(target, (gast.Tuple, gast.List))
        ):  # (for column in zip(*pairs): each column)
            if any(isinstance(e, gast.Starred) for e in target.elts):
                raise zip_star_error(self.location(stmt))
            pieces = [self.fresh("_" + label(e)) for e in target.elts]
            before.append(
                self._located(
                    ir.assign(
                        gast.Tuple(elts=[ir.name(p, store=True) for p in pieces], ctx=gast.Store()),
                        zipped.args[0].value,
                    ),
                    stmt,
                )
            )
            zipped.args = [ir.name(p) for p in pieces]
            self.changed = True
        self._keys_of_dicts(stmt)

        method = dict_view(stmt.iter)
        if method is not None and self.is_varied(stmt.iter):
            before += self._over_keys(stmt, method)
        counted = (
            stmt.iter.args[0]
            if is_call(stmt.iter, "enumerate", self.resolve)
            and len(stmt.iter.args) == 1
            and isinstance(stmt.target, gast.Tuple)
            and len(stmt.target.elts) == 2
            else None
        )
        if dict_view(counted) is not None and self.is_varied(counted):
            # for k, (key, value) in enumerate(d.items()): the loop over the keys, counted
            enumerated, count = stmt.iter, stmt.target.elts[0]
            stmt.iter, stmt.target = counted, stmt.target.elts[1]
            before += self._over_keys(stmt, dict_view(counted))
            enumerated.args = [stmt.iter]
            stmt.iter = enumerated
            stmt.target = gast.Tuple(elts=[count, stmt.target], ctx=gast.Store())
        self._unpack_in_body(stmt)
        return before

    def _keys_of_dicts(self, stmt):
        """`for key in p` and `for k, key in enumerate(p)` over a dict whose body reads
        p[key]: over runtime.dict_keys(p)."""
        if self._over_dict_keys(stmt.iter, stmt.target, stmt):
            stmt.iter = ir.call(ir.attr("runtime", "dict_keys"), stmt.iter)
            self.changed = True
        elif (
            is_call(stmt.iter, "enumerate", self.resolve)
            and stmt.iter.args
            and isinstance(stmt.target, gast.Tuple)
            and len(stmt.target.elts) == 2
            and self._over_dict_keys(stmt.iter.args[0], stmt.target.elts[1], stmt)
        ):
            stmt.iter.args[0] = ir.call(ir.attr("runtime", "dict_keys"), stmt.iter.args[0])
            self.changed = True

    def _over_dict_keys(self, it, target, stmt):
        """Whether loop `stmt` goes over the keys of a dict of differentiated values: `it` a
        name not known to be a sequence, which its body indexes by the loop's `target`
        (checked to be a dict as it runs)."""
        if not (
            isinstance(it, gast.Name)
            and isinstance(target, gast.Name)
            and self.is_varied(it)
            and not self.is_sequence(it)
        ):
            return False
        return any(
            isinstance(n, gast.Subscript)
            and isinstance(n.value, gast.Name)
            and n.value.id == it.id
            and isinstance(n.slice, gast.Name)
            and n.slice.id == target.id
            for s in stmt.body
            for n in ir.walk(s)
        )

    def _lists_dict_keys(self, node, stmt):
        """Whether list(d) (or tuple) lists the keys of a dict of differentiated values: d is
        a name not known to be a sequence, and the code indexes d by the items listed (`keys =
        list(d)` then `d[keys[0]]` or `for k in keys: ... d[k]`; `for k in list(d): ... d[k]`,
        in a loop or a comprehension)."""
        held = node.args[0] if len(node.args) == 1 and not node.keywords else None
        if not (
            isinstance(held, gast.Name) and self.is_varied(held) and not self.is_sequence(held)
        ):
            return False
        keys = bound_to(node, stmt)

        def listed(it):
            return it is node or isinstance(it, gast.Name) and it.id == keys

        items = {
            name
            for n in ir.walk(stmt if keys is None else self.func)
            if isinstance(n, (gast.For, gast.comprehension))
            for name in names_taking(n.target, n.iter, listed, self.resolve)
        }

        def a_key(index):
            return (
                isinstance(index, gast.Name)
                and index.id in items
                or isinstance(index, gast.Subscript)
                and isinstance(index.value, gast.Name)
                and index.value.id == keys
            )

        return any(
            isinstance(n, gast.Subscript)
            and isinstance(n.value, gast.Name)
            and n.value.id == held.id
            and a_key(n.slice)
            for n in ir.walk(self.func)
        )

    def _hoist_comprehensions(self, stmt):
        """The varied comprehensions of a loop's header, each assigned to a name before it
        (comprehension lowering then makes it a loop of its own)."""
        found = [
            n
            for n in ir.walk(stmt.iter)
            if isinstance(n, (gast.ListComp, gast.GeneratorExp)) and self.is_varied(n)
        ]
        inner = {id(m) for n in found for m in ir.walk(n) if m is not n}
        before = []
        for comp in (n for n in found if id(n) not in inner):
            held = self.fresh("_items")
            listed = gast.ListComp(elt=comp.elt, generators=comp.generators)
            before.append(self._located(ir.assign(held, listed), stmt))
            if comp is stmt.iter:
                stmt.iter = ir.name(held)
            else:
                ir.replace_node(stmt.iter, comp, ir.name(held))
            self.changed = True
        return before

    def _name_items(self, stmt):
        """`for pair in zip(a, b)` as `for _a, _b in zip(a, b): pair = (_a, _b)` (loops
        over zip and enumerate are followed item by item)."""
        it = stmt.iter
        if not (
            isinstance(stmt.target, gast.Name)
            and self.is_varied(it)
            and (
                is_call(it, "zip", self.resolve)
                and it.args
                and not any(isinstance(a, gast.Starred) for a in it.args)
                and not it.keywords
                or is_call(it, "enumerate", self.resolve)
                and len(it.args) == 1
            )
        ):
            return
        parts = [
            self.fresh("_" + stmt.target.id.lstrip("_"))
            for _ in range(2 if self.resolve(it.func) is enumerate else len(it.args))
        ]
        stmt.body.insert(
            0,
            self._located(
                ir.assign(
                    stmt.target.id, gast.Tuple(elts=[ir.name(p) for p in parts], ctx=gast.Load())
                ),
                stmt,
            ),
        )
        stmt.target = gast.Tuple(elts=[ir.name(p, store=True) for p in parts], ctx=gast.Store())
        self.changed = True

    def _over_keys(self, stmt, method):
        """`for k, v in d.items()` as `for k in d.keys(): v = d[k]` (sorted too)."""
        view = stmt.iter.args[0] if isinstance(stmt.iter.func, gast.Name) else stmt.iter
        before = []
        mapping = view.func.value
        if not isinstance(mapping, gast.Name):
            held = self.fresh("_dict")
            before.append(self._located(ir.assign(held, mapping), stmt))
            mapping = ir.name(held)
        if method == "items":
            if not (isinstance(stmt.target, gast.Tuple) and len(stmt.target.elts) == 2):
                raise UnsupportedError(
                    "a loop over d.items() of differentiated values "
                    "unpacks each item into a key and a value",
                    self.location(stmt),
                    "for key, value in d.items():",
                )
            key, value = stmt.target.elts
        else:
            key, value = ir.name(self.fresh("_key"), store=True), stmt.target
        if not isinstance(key, gast.Name):
            raise UnsupportedError(
                "a loop over a dict's keys names each key",
                self.location(stmt),
                "for key, value in d.items():",
            )
        keys = ir.call(ir.attr(ir.copy_tree(mapping), "keys"))
        stmt.iter = ir.call(ir.name("sorted"), keys) if stmt.iter is not view else keys
        stmt.target = key
        item = gast.Subscript(value=ir.copy_tree(mapping), slice=ir.name(key.id), ctx=gast.Load())
        stmt.body[:0] = [self._located(ir.assign(as_store(value), item), stmt)]
        self.changed = True
        return before

    def _unpack_in_body(self, stmt):
        """`for a, (b, (c, d)) in x`: what the loop would unpack below one level (or into a
        starred name) unpacked at the top of its body instead."""
        for target, source in loop_pairs(stmt) or []:
            if source is not None and nested(target):
                held = self.fresh("_item")
                # (replaced before the target moves into the body, where it must stay)
                ir.replace_node(stmt, target, ir.name(held, store=True))
                stmt.body.insert(0, self._located(ir.assign(target, ir.name(held)), stmt))
                self.changed = True

    def iterators(self, stmt, rest):
        """`it = iter(x)` followed, in the same block, by `next(it)` calls and perhaps a loop
        over what is left: `it = x`, the calls `it[0]`, `it[1]`, ..., the loop over `it[k:]`."""
        if not (
            isinstance(stmt, gast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name)
            and is_call(stmt.value, "iter", self.resolve)
            and len(stmt.value.args) == 1
            and self.is_varied(stmt.value)
        ):
            return
        name = stmt.targets[0].id
        calls, loops = self._nexts_and_loops(name, rest)
        self._refuse_other_uses(stmt, name, calls, loops)
        for k, call in enumerate(calls):
            item = gast.Subscript(value=ir.name(name), slice=ir.const(k), ctx=gast.Load())
            if len(call.args) == 2:  # next(it, default)
                item = gast.IfExp(
                    test=gast.Compare(
                        left=ir.call("len", ir.name(name)),
                        ops=[gast.Gt()],
                        comparators=[ir.const(k)],
                    ),
                    body=item,
                    orelse=call.args[1],
                )
            ir.replace_node(self.func, call, item)
        for loop in loops:
            loop.iter = gast.Subscript(
                value=ir.name(name),
                slice=gast.Slice(lower=ir.const(len(calls)), upper=None, step=None),
                ctx=gast.Load(),
            )
        source = stmt.value.args[0]
        stmt.value = (
            source
            if isinstance(
                source, (gast.Name, gast.Subscript, gast.Attribute, gast.List, gast.Tuple)
            )
            else ir.call("list", source)
        )
        self.changed = True

    def _nexts_and_loops(self, name, rest):
        """The `next(name)` calls in `rest`, in the order they run, and the loops over `name`."""
        calls, loops = [], []
        for later in rest:
            for node in evaluation_order(later):
                if (
                    is_call(node, "next", self.resolve)
                    and len(node.args) in (1, 2)
                    and isinstance(node.args[0], gast.Name)
                    and node.args[0].id == name
                    and not loops
                ):  # (after a loop over the rest, only the loop knows)
                    calls.append(node)
            if (
                isinstance(later, gast.For)
                and isinstance(later.iter, gast.Name)
                and later.iter.id == name
            ):
                loops.append(later)
        return calls, loops

    def _refuse_other_uses(self, stmt, name, calls, loops):
        """The error for an iterator used otherwise: bound again, read elsewhere, or read in
        the body of the loop over what is left."""
        uses = [n for n in ir.walk(self.func) if isinstance(n, gast.Name) and n.id == name]
        stores = [n for n in uses if not isinstance(n.ctx, gast.Load)]
        followed = {id(c.args[0]) for c in calls} | {id(loop.iter) for loop in loops[:1]}
        stray = [n for n in uses if id(n) not in followed and isinstance(n.ctx, gast.Load)]
        if loops:
            stray += [
                n
                for s in loops[0].body
                for n in ir.walk(s)
                if isinstance(n, gast.Name) and n.id == name
            ]
        if len(stores) != 1 or stray:
            where = min(stray, key=lambda n: n.lineno) if stray else stmt
            raise UnsupportedError(
                f"iter/next over differentiated values: srcdiff follows {name} = iter(...) "
                f"only into next({name}) calls in the same block, then at most a loop over "
                "the rest",
                self.location(where),
                "index the sequence instead: x[0], x[1]",
            )

    @staticmethod
    def _located(new, like):
        """`new`, a statement standing for (part of) `like`, at its line."""
        for node in ir.walk(new):
            node.lineno = getattr(node, "lineno", None) or like.lineno
        return new


def lower_containers(func, is_varied, resolve, fresh, location, useful=None):
    """Lower the container idioms of `func` (see the module's doc); whether any was.
    `useful`: the names whose values reach the differentiated output (None: all)."""
    return Lowering(func, is_varied, resolve, fresh, location, useful).run()
