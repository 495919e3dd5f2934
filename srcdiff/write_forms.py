"""Before activity analysis: writes into arrays spelled other ways, lowered to the item writes
srcdiff follows, and checks as it checks `y[i] = v` (the array must be f's own, and no name
sharing its memory read afterwards; else the error says so at the user's line):

    a[0], a[1] = a[1], a[0]     ->  a_0, a_1 = a[1], a[0]      (the whole right side first)
                                    a[0] = a_0
                                    a[1] = a_1
    np.exp(x, out=y)            ->  y[...] = np.exp(x)
    x.sort()                    ->  x[...] = np.sort(x)        (x surely an array)
    np.add.at(a, idx, v)        ->  a[...] = runtime.add_at(a, a, idx, v)   (unbuffered)
    np.subtract.at(a, idx, v)   ->  a[...] = runtime.add_at(a, a, idx, -v)
    np.fill_diagonal(y, v)      ->  y[np.diag_indices(min(y.shape), y.ndim)] = v
    np.put_along_axis(a, i, v, axis)  ->  a[runtime.along_axis_index(a.shape, i, axis)] = v
    K.flat[i] += v              ->  K[np.unravel_index(np.arange(K.size)[i], K.shape)] += v
    d.setdefault(k, v)          ->  if k not in d: d[k] = v     (its value unread)

What else changes an array in place stays as written: the Normalizer refuses it where it
changes a differentiated value (effects.py)."""

import copy
import inspect

import gast
import numpy as np

from . import ir
from .parse import MISSING

_ARRAY_ONLY_METHODS = frozenset(dir(np.ndarray)) - frozenset(dir(list)) - frozenset(dir(dict))


def lower_write_forms(func, resolve, fresh):
    """Rewrite `func` (a gast FunctionDef) in place; `fresh(prefix)` makes unused names."""
    lowering = _Lowering(func, resolve, fresh)
    func.body = lowering.block(func.body)


class _Lowering:
    def __init__(self, func, resolve, fresh):
        self.func, self.resolve, self.fresh = func, resolve, fresh
        args = func.args
        self.params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
        self._assigned = None  # name -> the values assigned to it (made when first needed)

    def block(self, body, top=True):
        out = []
        for stmt in body:
            for field in ("body", "orelse", "finalbody"):
                if isinstance(getattr(stmt, field, None), list):
                    setattr(stmt, field, self.block(getattr(stmt, field), top=False))
            lowered = self._statement(stmt, out if top else None)
            out += [gast.copy_location(s, stmt) for s in lowered] if lowered else [stmt]
        return out

    def _statement(self, stmt, before):
        """The statements `stmt` is lowered to, or None; `before`: the statements of f's
        body before it (None inside a block)."""
        if isinstance(stmt, (gast.Assign, gast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, gast.Assign) else [stmt.target]
            if len(targets) == 1 and _is_flat_item(targets[0]):
                return [_flat_write_by_index(stmt, targets[0])]
        if (
            isinstance(stmt, gast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], (gast.Tuple, gast.List))
            and _writes_into_items(stmt.targets[0])
        ):
            return self._unpacked(stmt.targets[0], stmt.value)
        call = stmt.value if isinstance(stmt, (gast.Expr, gast.Assign)) else None
        if (
            not isinstance(call, gast.Call)
            or isinstance(stmt, gast.Assign)
            and (len(stmt.targets) != 1 or not isinstance(stmt.targets[0], gast.Name))
        ):
            return None
        out = next((k.value for k in call.keywords if k.arg == "out"), None)
        if isinstance(out, gast.Constant) and out.value is None:
            return None  # (out=None: a new array, as without it)
        if out is not None:
            made = None
            if isinstance(out, gast.Call):  # (out=np.empty(2): that array a name of its own)
                made = ir.assign(self.fresh("_out"), out)
                out = ir.name(made.targets[0].id)
            written = self._out_written(call, out)
            if written is not None and made is not None:
                written.insert(0, made)
        elif isinstance(stmt, gast.Expr):
            written = self._changed_in_place(call, before)
        else:
            return None
        if written is None:
            return None
        if isinstance(stmt, gast.Assign):  # y = np.exp(x, out=b): b, once written
            written.append(ir.assign(stmt.targets[0].id, copy.deepcopy(out)))
        return written

    def _unpacked(self, target, value):
        """`a[0], b = v`: each part of the target a fresh name first, then each written in
        turn, as Python assigns them, left to right."""
        writes = []

        def part(node):
            if isinstance(node, (gast.Tuple, gast.List)):
                return type(node)(elts=[part(e) for e in node.elts], ctx=gast.Store())
            if isinstance(node, gast.Starred):
                return gast.Starred(value=part(node.value), ctx=gast.Store())
            root = node
            while isinstance(root, (gast.Subscript, gast.Attribute)):
                root = root.value
            name = self.fresh(f"{root.id}_" if isinstance(root, gast.Name) else "_item")
            writes.append(ir.assign(node, ir.name(name)))
            return ir.name(name, store=True)

        return [gast.Assign(targets=[part(target)], value=value, type_comment=None)] + writes

    def _out_written(self, call, out):
        """`out[...] = f(...)` for a numpy function or array method given out= (not with
        where=, which leaves the rest of out as it was, nor a tuple of outs)."""
        if any(k.arg == "where" for k in call.keywords) or isinstance(out, gast.Tuple):
            return None
        fn = self.resolve(call.func)
        if fn is MISSING:
            if not (
                isinstance(call.func, gast.Attribute) and call.func.attr in _ARRAY_ONLY_METHODS
            ):
                return None
        elif not (
            isinstance(fn, np.ufunc) or (getattr(fn, "__module__", None) or "").startswith("numpy")
        ):
            return None
        made = gast.Call(
            func=call.func, args=call.args, keywords=[k for k in call.keywords if k.arg != "out"]
        )
        return [_item_write(out, ir.const(Ellipsis), made)]

    def _changed_in_place(self, call, before):
        """The item write of `x.sort()`, `np.add.at(a, i, v)` (np.subtract.at's, of -v),
        `np.fill_diagonal(y, v)` or `d.setdefault(k, v)` on a name, else None."""
        fn = self.resolve(call.func)
        if fn is np.fill_diagonal:
            if len(call.args) != 2 or call.keywords or not isinstance(call.args[0], gast.Name):
                return None  # (wrap=True: more than the diagonal)
            y = call.args[0].id
            index = ir.call(
                "np.diag_indices",
                ir.call("min", gast.Attribute(value=ir.name(y), attr="shape", ctx=gast.Load())),
                gast.Attribute(value=ir.name(y), attr="ndim", ctx=gast.Load()),
            )
            return [_item_write(call.args[0], index, call.args[1])]
        if (
            getattr(fn, "__name__", None) == "at"
            and getattr(fn, "__self__", None) in (np.add, np.subtract)
            and len(call.args) == 3
            and not call.keywords
            and isinstance(call.args[0], gast.Name)
        ):
            a, index, v = call.args
            if fn.__self__ is np.subtract:
                v = gast.UnaryOp(op=gast.USub(), operand=v)
            added = ir.call("runtime.add_at", ir.name(a.id), ir.name(a.id), index, v)
            return [_item_write(a, ir.const(Ellipsis), added)]
        if fn is np.put_along_axis and isinstance(call.args[0], gast.Name):
            return self._put_along_axis(call)
        if _sets_a_default(call, fn):  # (its value unread: the item written if missing)
            d, (key, *default) = call.func.value, call.args
            missing = gast.Compare(left=key, ops=[gast.NotIn()], comparators=[ir.name(d.id)])
            write = _item_write(d, ir.copy_tree(key), default[0] if default else ir.const(None))
            return [gast.If(test=missing, body=[gast.copy_location(write, call)], orelse=[])]
        if (
            fn is MISSING
            and isinstance(call.func, gast.Attribute)
            and call.func.attr == "sort"
            and isinstance(call.func.value, gast.Name)
            and len(call.args) <= 1
            and all(k.arg in ("axis", "kind") for k in call.keywords)
            and self._surely_an_array(call.func.value.id, before)
        ):
            x = call.func.value
            made = gast.Call(
                func=ir.attr("np", "sort"), args=[x] + call.args, keywords=call.keywords
            )
            return [_item_write(x, ir.const(Ellipsis), made)]
        return None

    def _put_along_axis(self, call):
        """`a[runtime.along_axis_index(a.shape, indices, axis)] = values` (not of axis=None,
        which writes into a flattened a), else None."""
        try:
            bound = inspect.signature(np.put_along_axis).bind(
                *call.args, **{k.arg: k.value for k in call.keywords}
            )
        except TypeError:
            return None
        a, indices, values, axis = (
            bound.arguments[n] for n in ("arr", "indices", "values", "axis")
        )
        if isinstance(axis, gast.Constant) and axis.value is None:
            return None
        shape = gast.Attribute(value=ir.name(a.id), attr="shape", ctx=gast.Load())
        index = ir.call("runtime.along_axis_index", shape, indices, axis)
        return [_item_write(a, index, values)]

    def _surely_an_array(self, name, before):
        """Whether `name` holds an array (not a list, whose sort differs) wherever it is
        read: every value assigned to it is one (an argument's name only once bound anew
        by a statement of f's body before)."""
        if name in self.params and not any(
            isinstance(s, gast.Assign)
            and any(ir.names_in(t, gast.Store) == {name} for t in s.targets)
            for s in before or ()
        ):
            return False
        return self._no_list_bound(name, frozenset())

    def _no_list_bound(self, name, seen):
        if self._assigned is None:
            self._assigned, self._looped = {}, set()
            for node in ir.walk(self.func):
                if isinstance(node, gast.Assign):
                    for target in node.targets:
                        for bound in ir.walk(target):
                            if isinstance(bound, gast.Name) and isinstance(bound.ctx, gast.Store):
                                value = node.value if isinstance(target, gast.Name) else None
                                self._assigned.setdefault(bound.id, []).append(value)
                elif isinstance(node, (gast.For, gast.comprehension, gast.withitem)):
                    self._looped |= ir.names_in(
                        node.optional_vars if isinstance(node, gast.withitem) else node.target,
                        gast.Store,
                    )
        values = self._assigned.get(name)
        return (
            bool(values)
            and name not in self._looped
            and all(v is not None and self._no_list(v, seen | {name}) for v in values)
        )

    def _no_list(self, value, seen):
        """Whether `value` is surely no list (nor tuple): numpy's, or arithmetic that would
        raise for a list."""
        if isinstance(value, gast.Constant):
            return isinstance(value.value, float)
        if isinstance(value, gast.UnaryOp):
            return True
        if isinstance(value, gast.BinOp):
            if not isinstance(value.op, (gast.Add, gast.Mult)):
                return True
            return self._no_list(value.left, seen) or self._no_list(value.right, seen)
        if isinstance(value, gast.Name):
            return (
                value.id not in seen
                and value.id not in self.params
                and self._no_list_bound(value.id, seen)
            )
        if isinstance(value, gast.Call):
            fn = self.resolve(value.func)
            if fn is MISSING:
                return (
                    isinstance(value.func, gast.Attribute)
                    and value.func.attr in _ARRAY_ONLY_METHODS
                )
            return isinstance(fn, np.ufunc) or (getattr(fn, "__module__", None) or "").startswith(
                "numpy"
            )
        return False


def _sets_a_default(call, fn):
    """Whether `call` is `d.setdefault(k)` or `d.setdefault(k, v)` of a name d and a key
    that reading twice reads the same (a name or a constant)."""
    return (
        fn is MISSING
        and isinstance(call.func, gast.Attribute)
        and call.func.attr == "setdefault"
        and isinstance(call.func.value, gast.Name)
        and 1 <= len(call.args) <= 2
        and not call.keywords
        and isinstance(call.args[0], (gast.Name, gast.Constant))
    )


def _is_flat_item(target):
    """Whether `target` is `y.flat[index]` of a name."""
    return (
        isinstance(target, gast.Subscript)
        and isinstance(target.value, gast.Attribute)
        and target.value.attr == "flat"
        and isinstance(target.value.value, gast.Name)
    )


def _flat_write_by_index(stmt, target):
    """`K.flat[::n + 1] += noise` (scikit-learn's jitter on a kernel's diagonal) as the
    item write `K[np.unravel_index(np.arange(K.size)[::n + 1], K.shape)] += noise`: the
    same items, in the same order, of K by its name."""
    y = target.value.value.id
    positions = gast.Subscript(
        value=ir.call("np.arange", ir.attr(y, "size")), slice=target.slice, ctx=gast.Load()
    )
    index = ir.call("np.unravel_index", positions, ir.attr(y, "shape"))
    written = gast.Subscript(value=ir.name(y), slice=index, ctx=gast.Store())
    if isinstance(stmt, gast.AugAssign):
        return gast.AugAssign(target=written, op=stmt.op, value=stmt.value)
    return gast.Assign(targets=[written], value=stmt.value, type_comment=None)


def _writes_into_items(target):
    return any(isinstance(n, (gast.Subscript, gast.Attribute)) for n in ir.walk(target))


def _item_write(array, index, value):
    target = gast.Subscript(value=copy.deepcopy(array), slice=index, ctx=gast.Store())
    for node in ir.walk(target.value):
        if hasattr(node, "ctx"):
            node.ctx = gast.Load()
    return gast.Assign(targets=[target], value=value, type_comment=None)
