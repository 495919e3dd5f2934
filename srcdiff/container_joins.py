"""Containers of differentiated values joined, merged or built up item by item where the code
does not count their items, rewritten (for containers.py) into what srcdiff differentiates: a
list built with append, and runtime.dict_of (a dict counted as it runs).

    ps = [*params, extra]          ps = []
    (*params, extra)         ->    for _item0 in params: ps.append(_item0)
    params + [extra]               ps.append(extra)
    e = {**d, 'c': v}              _keys0 = [*runtime.copied_keys(d), 'c']; _values0 = []
    dict(d, c=v), dict(d)    ->    for _key0 in runtime.copied_keys(d): _values0.append(d[_key0])
    dict(sorted(d.items()))        _values0.append(v); e = runtime.dict_of(_keys0, _values0)
    p = {}; p['w'] = v       ->    p = {}; p = {'w': v}      (each key in the code)
    p[key] = v               ->    p = {**p, key: v}         (then as above)
    ps = list(params)              ps = list(params)
    ps[0] = v                ->    ps = [*ps[:0], v, *ps[0 + 1:]]     (then as above)
    columns = list(zip(*pairs))    _columns0 = []; for _k0 in range(runtime.shortest(pairs)):
                             ->        _column0 = [];  (pair[_k0] appended for each pair)
    dataclasses.replace(o, w=v)    runtime.replaced(o, 'w', v)
    o._replace(w=v)          ->    (the same, for a namedtuple)

A list where Python makes a tuple holds the same items. A dict or list written into item by
item is rebound instead only where no other name can hold it while it changes. What would be
built before its statement is refused where that statement might not run it (a branch of a
conditional expression) or would run it again (a while loop's condition).
"""

import dataclasses

import gast

from . import ir
from .container_facts import as_store, dict_view, is_call
from .container_sharing import unshared, write_into
from .errors import UnsupportedError
from .initialised import initialised_fields


def is_starred_display(node):
    return isinstance(node, (gast.List, gast.Tuple)) and any(
        isinstance(e, gast.Starred) for e in node.elts
    )


def appended(parts, items, display, fresh):
    """The statements building list `items` of `parts` (expressions, or gast.Starred for the
    items of one): a display's items where the code counts them (`display(node)`, else
    None), else a loop appending each."""
    out = [ir.assign(items, gast.List(elts=[], ctx=gast.Load()))]
    for part in parts:
        counted = display(part.value) if isinstance(part, gast.Starred) else None
        for item in counted.elts if counted is not None else [part]:
            if not isinstance(item, gast.Starred):
                out.append(ir.expr_stmt(ir.call(ir.attr(items, "append"), item)))
                continue
            each = fresh("_item")
            out.append(
                gast.For(
                    target=ir.name(each, store=True),
                    iter=item.value,
                    body=[ir.expr_stmt(ir.call(ir.attr(items, "append"), ir.name(each)))],
                    orelse=[],
                    type_comment=None,
                )
            )
    return out


def joined_parts(node, is_sequence):
    """The parts of `a + b` as a starred display would hold them, where one side is a list
    or tuple (a display, or a name the code makes one): None for anything else."""
    if not (isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add)):
        return None
    sides = [node.left, node.right]
    if not any(isinstance(s, (gast.List, gast.Tuple)) or is_sequence(s) for s in sides):
        return None
    parts = []
    for side in sides:
        inner = joined_parts(side, is_sequence)
        if inner is not None:
            parts += inner
        elif isinstance(side, (gast.List, gast.Tuple)):
            parts += side.elts
        elif is_sequence(side):
            parts.append(gast.Starred(value=side, ctx=gast.Load()))
        else:  # (for an array, numpy would add elementwise)
            parts.append(
                gast.Starred(
                    value=ir.call(
                        ir.attr("runtime", "listed"), side, ir.const(gast.unparse(side).strip())
                    ),
                    ctx=gast.Load(),
                )
            )
    return parts


def merging(parts, keys_name, values_name, fresh):
    """The statements making keys_name and values_name hold the keys and values of the dict
    `parts` make: (None, d) for the items of dict d (keys of a sorted(...) call, in its
    order), (key, value) for one item. Returns them and the dict's expression."""
    keys, values = [], [ir.assign(values_name, gast.List(elts=[], ctx=gast.Load()))]
    for key, value in parts:
        if key is not None:
            keys.append(key)
            values.append(ir.expr_stmt(ir.call(ir.attr(values_name, "append"), value)))
            continue
        mapping, order = value
        each = fresh("_key")
        listed = ir.call(ir.attr("runtime", "copied_keys"), mapping)
        if order is not None:
            listed = gast.Call(func=order.func, args=[listed], keywords=order.keywords)
        keys.append(gast.Starred(value=listed, ctx=gast.Load()))
        item = gast.Subscript(value=ir.copy_tree(mapping), slice=ir.name(each), ctx=gast.Load())
        values.append(
            gast.For(
                target=ir.name(each, store=True),
                iter=ir.copy_tree(listed),
                body=[ir.expr_stmt(ir.call(ir.attr(values_name, "append"), item))],
                orelse=[],
                type_comment=None,
            )
        )
    out = [ir.assign(keys_name, gast.List(elts=keys, ctx=gast.Load()))] + values
    return out, ir.call(ir.attr("runtime", "dict_of"), ir.name(keys_name), ir.name(values_name))


class Joining:
    """The methods of containers.Lowering that join and merge containers (the module's doc)
    and count an enumerate from zero; Lowering and ContainerExpressions provide the names
    and facts they use."""

    def joined(self, node):
        """The parts of a varied list or tuple whose items the code does not count
        (`[*params, extra]`, `params + [extra]`), else None (also where no output reads it:
        it runs as written)."""
        if not self.is_varied(node) or not self.needed:
            return None
        if is_starred_display(node):
            return node.elts
        return joined_parts(node, self.is_sequence)

    def built(self, node, stmt, into=None):
        """The statements building the list `node` joins into `into` (a fresh name if
        None: they go before `stmt`, and the name stands in node's place)."""
        if into is None:
            self.check_hoisting(node, stmt)
        self.changed = True
        items = into or self.fresh("_items")
        out = [
            self._located(s, stmt)
            for s in appended(self.joined(node), items, self.display, self.fresh)
        ]
        if into is not None:
            return out
        self.hoisted += out
        return ir.name(items)

    def transposed(self, node, stmt):
        """zip(*pieces), the count of pieces not in the code: a list of its columns built
        with append before `stmt` (lists, where zip makes tuples), counted as it runs."""
        self.check_hoisting(node, stmt)
        self.changed = True
        columns, column = self.fresh("_columns"), self.fresh("_column")
        index, piece, pieces = self.fresh("_k"), self.fresh("_piece"), node.args[0].value
        fill = gast.For(
            target=ir.name(piece, store=True),
            iter=ir.copy_tree(pieces),
            body=[
                ir.expr_stmt(
                    ir.call(
                        ir.attr(column, "append"),
                        gast.Subscript(value=ir.name(piece), slice=ir.name(index), ctx=gast.Load()),
                    )
                )
            ],
            orelse=[],
            type_comment=None,
        )
        each = gast.For(
            target=ir.name(index, store=True),
            iter=ir.call("range", ir.call(ir.attr("runtime", "shortest"), pieces)),
            body=[
                ir.assign(column, gast.List(elts=[], ctx=gast.Load())),
                fill,
                ir.expr_stmt(ir.call(ir.attr(columns, "append"), ir.name(column))),
            ],
            orelse=[],
            type_comment=None,
        )
        self.hoisted += [
            self._located(s, stmt)
            for s in (ir.assign(columns, gast.List(elts=[], ctx=gast.Load())), each)
        ]
        return ir.name(columns)

    def check_hoisting(self, node, stmt):
        """Refuse to build `node` before `stmt` where that would run it other than once
        and always, as stmt runs it."""
        if isinstance(stmt, gast.While):  # (its test runs again at each iteration)
            raise UnsupportedError(
                "a list or dict joined in a while loop's condition cannot be differentiated",
                self.location(stmt),
                "join it on a line of its own before the loop",
            )
        if any(
            isinstance(n, gast.IfExp)
            and any(
                m is node for m in ir.walk(gast.Tuple(elts=[n.body, n.orelse], ctx=gast.Load()))
            )
            for n in ir.walk(stmt)
        ):
            raise UnsupportedError(
                "a list or dict joined in a branch of a conditional "
                "expression cannot be differentiated",
                self.location(stmt),
                "join it on a line of its own, under an if statement",
            )

    def enumerate_from_zero(self, stmt):
        """`for k, x in enumerate(xs, start=s)` as `for _k, x in enumerate(xs): k = _k + s`
        (srcdiff follows enumerate from 0). Returns what to run before the loop."""
        it = stmt.iter
        if not (
            is_call(it, "enumerate", self.resolve)
            and self.is_varied(it)
            and len(it.args) + len(it.keywords) == 2
            and (len(it.args) == 2 or it.keywords[0].arg == "start")
        ):
            return []
        start = it.args[1] if len(it.args) == 2 else it.keywords[0].value
        it.args, it.keywords = it.args[:1], []
        before = []
        if not isinstance(start, (gast.Constant, gast.Name)):
            held = self.fresh("_start")
            before.append(self._located(ir.assign(held, start), stmt))
            start = ir.name(held)
        count = self.fresh("_k")
        target = stmt.target
        if isinstance(target, gast.Tuple) and len(target.elts) == 2:
            counted, target.elts[0] = target.elts[0], ir.name(count, store=True)
        else:  # for pair in enumerate(xs, 1): pair = (_k + 1, _item)
            item = self.fresh("_item")
            counted = target
            stmt.target = gast.Tuple(
                elts=[ir.name(count, store=True), ir.name(item, store=True)], ctx=gast.Store()
            )
        shifted = gast.BinOp(left=ir.name(count), op=gast.Add(), right=start)
        value = (
            shifted
            if counted is not target
            else gast.Tuple(elts=[shifted, ir.name(item)], ctx=gast.Load())
        )
        stmt.body.insert(0, self._located(ir.assign(as_store(counted), value), stmt))
        self.changed = True
        return before

    def copied_dict(self, source):
        """(d, order) where dict(source) copies the items of dict d: source is d itself (not
        a list or tuple as the code says), d.items() or sorted(d.items()) (order: the call
        sorting d's keys); else None."""
        if not self.needed:
            return None
        if dict_view(source) == "items":
            view = source.args[0] if is_call(source, "sorted", self.resolve) else source
            return view.func.value, (source if view is not source else None)
        if isinstance(source, (gast.Name, gast.Attribute, gast.Subscript)) and not self.is_sequence(
            source
        ):
            return source, None
        return None

    def replaced_fields(self, node):
        """`dataclasses.replace(o, w=v, ...)` and `o._replace(w=v, ...)` (a namedtuple's) as
        runtime.replaced(o, 'w', v), one field at a time; None for any other call."""
        if (
            isinstance(node.func, gast.Attribute)
            and node.func.attr == "_replace"
            and not node.args
            and self.is_varied(node.func.value)
        ):
            replaced = node.func.value
        elif self.resolve(node.func) is dataclasses.replace and len(node.args) == 1:
            replaced = node.args[0]
        else:
            return None
        if any(k.arg is None for k in node.keywords):
            return None
        self.changed = True
        for k in node.keywords:
            replaced = ir.call(ir.attr("runtime", "replaced"), replaced, ir.const(k.arg), k.value)
        return replaced

    def made_record(self, node):
        """`Layer(W, b=v)` of a dataclass, a namedtuple class, SimpleNamespace or a class
        whose __init__ stores its parameters as given (initialised.py), from differentiated
        values: the object made with None in their places, then runtime.replaced(o, 'W', W)
        field by field (whose adjoints read each field's back); None for any other call."""
        made = initialised_fields(self.resolve(node.func))
        if (
            made is None
            or made.refused
            or len(node.args) > len(made.parameters)
            or any(isinstance(a, gast.Starred) for a in node.args)
            or any(k.arg is None for k in node.keywords)
        ):
            return None
        given = list(zip(made.parameters, node.args)) + [(k.arg, k.value) for k in node.keywords]
        varied = [(name, value) for name, value in given if self.is_varied(value)]
        if not varied or made.stored is not None and any(n not in made.stored for n, _ in varied):
            return None
        held = {id(value) for _, value in varied}
        node.args = [ir.const(None) if id(a) in held else a for a in node.args]
        for k in node.keywords:
            k.value = ir.const(None) if id(k.value) in held else k.value
        self.changed = True
        for name, value in varied:
            field = name if made.stored is None else made.stored[name]
            node = ir.call(ir.attr("runtime", "replaced"), node, ir.const(field), value)
        return node

    def merged_dict(self, node, parts, stmt):
        """The dict `parts` make (merging), its statements before `stmt`, in place of
        `node`."""
        if any(key is not None and self.is_varied(key) for key, _ in parts):
            raise UnsupportedError(
                "a dict key that depends on differentiated values has no derivative",
                self.location(stmt),
                "key the dict by names or numbers",
            )
        self.check_hoisting(node, stmt)
        self.changed = True
        out, made = merging(parts, self.fresh("_keys"), self.fresh("_values"), self.fresh)
        self.hoisted += [self._located(s, stmt) for s in out]
        return made


# --- a dict or list written into item by item -----------------------------------------------


def rebind_item_writes(func, is_varied, resolve, fresh, useful=None):
    """`p[key] = v` of a differentiated v into a dict or list p the function makes itself
    (and an output reads: `useful` names, None for all), where no other name can hold p
    while it changes: p bound to a new one (see the module's doc). Whether any was."""
    _updates_as_item_writes(func, resolve)
    kinds = {
        n: kind
        for n, kind in written_locals(func, resolve).items()
        if kind is not gast.Tuple  # (t[k] = v raises, as Python's TypeError says)
        and unshared(func, n, resolve)
        and (useful is None or n in useful)
    }
    if not kinds:
        return False
    writes = {
        id(s)
        for s in ir.walk(func)
        if write_into(s) in kinds and (is_varied(s.value) or is_varied(ir.name(write_into(s))))
    }
    if not writes:
        return False
    _rebind(func.body, writes, kinds, {}, fresh)
    return True


def _updates_as_item_writes(func, resolve):
    """`d.update({'a': u, 'b': v})` and `d.update(a=u, b=v)` as `d['a'] = u` then `d['b'] =
    v`, the same writes, which this module rebinds, where d is only ever bound to a dict
    this function makes."""
    bound, updates = [], False  # (no d.update(...) statement at all: nothing to write out)
    for n in ir.walk_statements(func):
        if isinstance(n, gast.Assign):
            if len(n.targets) == 1 and isinstance(n.targets[0], gast.Name):
                bound.append((n.targets[0].id, _made(n.value, resolve)))
        elif n.__class__ is gast.Expr and isinstance(n.value, gast.Call):
            updates = updates or getattr(n.value.func, "attr", None) == "update"
    if not updates:
        return
    other = {n.id for n in ir.walk(func.args) if isinstance(n, gast.Name)}
    other |= {name for name, kind in bound if kind is not gast.Dict}
    dicts = {name for name, _ in bound} - other
    for node in ir.walk(func):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list) and any(_update_of(s, dicts) for s in block):
                block[:] = [w for s in block for w in _update_of(s, dicts) or [s]]


def _update_of(stmt, dicts):
    """The item writes `d.update(...)` of a dict in `dicts` stands for, else None."""
    call = stmt.value if isinstance(stmt, gast.Expr) else None
    if not (
        isinstance(call, gast.Call)
        and isinstance(call.func, gast.Attribute)
        and call.func.attr == "update"
        and isinstance(call.func.value, gast.Name)
        and call.func.value.id in dicts
    ):
        return None
    if len(call.args) == 1 and isinstance(call.args[0], gast.Dict):
        pairs = list(zip(call.args[0].keys, call.args[0].values))
    elif not call.args:
        pairs = [(k.arg and ir.const(k.arg), k.value) for k in call.keywords]
    else:
        return None
    if call.args and call.keywords or any(k is None for k, _ in pairs):
        return None  # (d.update(other), d.update({**other}), d.update(**other))
    name = call.func.value.id
    return [
        gast.copy_location(
            ir.assign(gast.Subscript(value=ir.name(name), slice=k, ctx=gast.Store()), v), stmt
        )
        for k, v in pairs
    ]


def _made(value, resolve):
    """gast.Dict, gast.List or gast.Tuple where `value` makes a new dict, list or tuple (a
    display: its items), else None."""
    if isinstance(value, gast.Dict) or isinstance(value, gast.Call) and resolve(value.func) is dict:
        return gast.Dict
    if (
        isinstance(value, (gast.List, gast.ListComp))
        or isinstance(value, gast.Call)
        and resolve(value.func) is list
    ):
        return gast.List
    return gast.Tuple if isinstance(value, gast.Tuple) else None


# the statements that may write an item or change a list (written_locals' `changes`)
_CHANGING = frozenset((gast.Assign, gast.Expr, gast.Delete, gast.AugAssign))


def written_locals(func, resolve, changes=write_into):
    """name -> gast.Dict, gast.List or gast.Tuple for the local names bound only to new
    dicts (`p = {}`), only to new lists (`ps = list(params)`) or only to tuple displays, and
    written into item by item (or changed as `changes(statement)` tells)."""
    params = {
        a.id
        for a in func.args.args + func.args.kwonlyargs + [func.args.vararg, func.args.kwarg]
        if isinstance(a, gast.Name)
    }
    if not any(changes(s) for s in ir.walk_statements(func) if s.__class__ in _CHANGING):
        return {}  # (most functions write no item: their statements alone tell)
    made, bound, written, changed = [], [], set(), []  # (one walk)
    for n in ir.walk(func):
        if isinstance(n, gast.Name):
            if not isinstance(n.ctx, gast.Load):
                bound.append(n)
        elif isinstance(n, gast.Assign):
            if len(n.targets) == 1 and isinstance(n.targets[0], gast.Name):
                kind = _made(n.value, resolve)
                if kind is not None:
                    made.append((n.targets[0], kind))
            written.add(changes(n))
        elif isinstance(n, (gast.Expr, gast.Delete)):  # (xs.reverse(), del xs[k])
            written.add(changes(n))
        elif isinstance(n, gast.AugAssign) and changes(n) is not None:  # (xs += vs)
            written.add(changes(n))
            changed.append(n.target)
    kinds, other = {}, set(params)
    for target, kind in made:
        if kinds.setdefault(target.id, kind) is not kind:
            other.add(target.id)
    targets = {id(t) for t, _ in made} | {id(t) for t in changed}
    other.update(n.id for n in bound if id(n) not in targets)
    return {name: kind for name, kind in kinds.items() if name in written - other}


def _rebind(stmts, writes, kinds, known, fresh):
    """Rewrite the writes (ids in `writes`) of block `stmts` in place; `known`: dict name ->
    the constant keys its display holds here, where the code says so."""
    index = 0
    while index < len(stmts):
        stmt = stmts[index]
        index += 1
        if isinstance(stmt, (gast.If, gast.For, gast.While)):
            for block in (stmt.body, stmt.orelse):  # (a loop's body runs from any state)
                _rebind(
                    block, writes, kinds, dict(known) if isinstance(stmt, gast.If) else {}, fresh
                )
            for name in ir.names_in(stmt, gast.Store) | {write_into(n) for n in ir.walk(stmt)}:
                known.pop(name, None)
            continue
        if (
            isinstance(stmt, gast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name)
        ):
            known.pop(stmt.targets[0].id, None)
            if isinstance(stmt.value, gast.Dict) and all(
                isinstance(k, gast.Constant) for k in stmt.value.keys
            ):
                known[stmt.targets[0].id] = [k.value for k in stmt.value.keys]
            continue
        if id(stmt) not in writes:
            continue
        name = stmt.targets[0].value.id
        new = (
            _rebound_list(stmt, fresh)
            if kinds[name] is gast.List
            else [ir.assign(name, _rebound_dict(stmt, known))]
        )
        stmts[index - 1 : index] = [gast.copy_location(s, stmt) for s in new]
        index += len(new) - 1


def _rebound_dict(stmt, known):
    """The dict display `p[key] = v` binds p to instead (the keys `known` in the code)."""
    name, key = stmt.targets[0].value.id, stmt.targets[0].slice
    if isinstance(key, gast.Constant) and name in known:
        held = list(dict.fromkeys(known[name] + [key.value]))
        values = [
            stmt.value
            if k == key.value
            else gast.Subscript(value=ir.name(name), slice=ir.const(k), ctx=gast.Load())
            for k in held
        ]
        known[name] = held
        return gast.Dict(keys=[ir.const(k) for k in held], values=values)
    known.pop(name, None)
    return gast.Dict(keys=[None, key], values=[ir.name(name), stmt.value])


def _rebound_list(stmt, fresh):
    """`ps[k] = v` as `ps = [*ps[:k], v, *ps[k + 1:]]`, k counted from the start (and
    checked to name an item, as the write would)."""
    name = stmt.targets[0].value.id
    out, index = position(name, stmt.targets[0].slice, fresh)
    after = gast.BinOp(left=ir.copy_tree(index), op=gast.Add(), right=ir.const(1))

    def part(lower, upper):
        return gast.Starred(
            value=gast.Subscript(
                value=ir.name(name),
                slice=gast.Slice(lower=lower, upper=upper, step=None),
                ctx=gast.Load(),
            ),
            ctx=gast.Load(),
        )

    return out + [
        ir.assign(
            name,
            gast.List(elts=[part(None, index), stmt.value, part(after, None)], ctx=gast.Load()),
        )
    ]


def position(name, index, fresh):
    """(statements, index): `index` of list `name` (or the list an expression gives)
    counted from the start, checked to name an item as reading it would (`_at0 =
    range(len(name))[index]`): a constant too, which may be past the list's end (`del
    xs[5]` of a list of two raises IndexError, where the slices around it would not)."""
    at = fresh("_at")
    check = gast.Subscript(
        value=ir.call("range", ir.call("len", ir.name(name) if isinstance(name, str) else name)),
        slice=index,
        ctx=gast.Load(),
    )
    return [ir.assign(at, check)], ir.name(at)
