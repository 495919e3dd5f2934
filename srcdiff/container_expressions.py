"""Before ANF, the container builtins inside expressions of differentiated values:
`list(x)`, `tuple(x)`, `dict(...)`, `sorted(...)`, `next(iter(x))`, `f(*pieces)` and `a + b` of
displays become displays, comprehensions and indexing (the statements are containers.py's)."""

import inspect

import gast

from . import ir, runtime
from .container_facts import (
    dict_names,
    dict_view,
    is_call,
    spread_keyword_displays,
    zip_star_error,
)
from .container_joins import is_starred_display
from .errors import UnsupportedError
from .parse import MISSING


def _is_get(node, displays=False):
    """Whether call `node` is `d.get(k)` or `d.get(k, default)` of a d and k that reading
    twice reads the same (names, constants, their items and attributes, arithmetic of them;
    and dict displays if `displays`)."""

    def plain(part):
        if displays and isinstance(part, gast.Dict):
            return True
        if isinstance(part, gast.Subscript):
            return plain(part.value) and plain(part.slice)
        if isinstance(part, gast.Attribute):
            return plain(part.value)
        if isinstance(part, gast.BinOp):  # (d.get(i % 2, 0.0): arithmetic of such parts)
            return plain(part.left) and plain(part.right)
        return isinstance(part, (gast.Name, gast.Constant))

    return (
        isinstance(node.func, gast.Attribute)
        and node.func.attr == "get"
        and 1 <= len(node.args) <= 2
        and not node.keywords
        and not any(isinstance(a, gast.Starred) for a in node.args)
        and plain(node.func.value)
        and plain(node.args[0])
    )


def _display_got(node):
    """`{'a': u, 'b': v}.get('a', default)` (a dict display of constant keys, as a
    function's **kwargs becomes when inlined): the item, or the default, known as f is read;
    None where the key is not constant."""
    mapping = node.func.value
    if not (
        isinstance(mapping, gast.Dict)
        and isinstance(node.args[0], gast.Constant)
        and all(isinstance(k, gast.Constant) for k in mapping.keys)
    ):
        return None
    for key, value in zip(mapping.keys, mapping.values):
        if key.value == node.args[0].value:
            return value
    return node.args[1] if len(node.args) == 2 else ir.const(None)


def _read_as_written(node, fn):
    """The call `node` of `fn` as what it reads, where that is known as f is read: the
    attribute getattr names, the item (or default) of a display's get; else None."""
    if fn is getattr:
        return _named_attribute(node)
    if fn is MISSING and _is_get(node, displays=True):
        return _display_got(node)
    return None


def _named_attribute(node):
    """`getattr(p, "w")` as `p.w`; `getattr(p, "w", default)` as `p.w if hasattr(p, "w") else
    default` of a p read twice alike (else None)."""
    if (
        not 2 <= len(node.args) <= 3
        or node.keywords
        or not isinstance(node.args[1], gast.Constant)
        or not isinstance(node.args[1].value, str)
        or not node.args[1].value.isidentifier()
    ):
        return None
    held, name = node.args[0], node.args[1].value
    read = gast.Attribute(value=held, attr=name, ctx=gast.Load())
    if len(node.args) == 2:
        return read
    if not isinstance(held, (gast.Name, gast.Attribute)):
        return None
    has = ir.call("hasattr", ir.copy_tree(held), ir.const(name))
    return gast.IfExp(test=has, body=read, orelse=node.args[2])


_ITERATORS = ("enumerate", "zip", "map", "filter", "reversed")


class ContainerExpressions:
    """The expression half of containers.Lowering, which provides the lengths, copies and
    sequences read off the code, and what varies."""

    def expression(self, node, stmt):
        """`node` with the container builtins of varied values lowered (innermost first)."""
        if isinstance(node, gast.comprehension):
            self.whole_views.update(id(n) for n in ir.walk(node.iter))
        if is_call(node, "sorted", self.resolve) or is_call(node, "dict", self.resolve):
            self.whole_views.update(id(n) for n in node.args)
        for field, value in ir.fields(node):
            if isinstance(value, gast.AST):
                setattr(node, field, self.expression(value, stmt))
            elif isinstance(value, list):
                value[:] = [
                    self.expression(v, stmt) if isinstance(v, gast.AST) else v for v in value
                ]
        if not self._may_lower(node) or not self.is_varied(node):
            return node
        try:
            lowered = self.lowered(node, stmt)
        except UnsupportedError as error:  # (raised if this pass changes nothing else)
            self.refused.append(error)
            return node
        if lowered is not node:
            self.changed = True
            gast.copy_location(lowered, node)
        return lowered

    def _may_lower(self, node):
        """Whether `lowered` may change `node`, by its kind alone: asked first, as whether
        the node varies is a walk of all below it, of every node of every expression."""
        kind = node.__class__
        return (
            kind is gast.Call
            or kind is gast.BinOp
            and node.op.__class__ in (gast.Add, gast.Mult)
            or is_starred_display(node)
            or kind is gast.Dict
            and None in node.keys
            and self.needed
        )

    def lowered(self, node, stmt):
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add):
            left, right = self.display(node.left), self.display(node.right)
            if left is not None and right is not None and type(left) is type(right):
                return type(left)(elts=left.elts + right.elts, ctx=gast.Load())
            return self.built(node, stmt) if self.joined(node) is not None else node
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
            return self.repeated(node, stmt)
        if is_starred_display(node):
            return self.built(node, stmt) if self.joined(node) is not None else node
        if isinstance(node, gast.Dict) and None in node.keys and self.needed:  # {**d, 'c': v}
            return self.merged_dict(
                node,
                [
                    (None, (v, None)) if k is None else (k, v)
                    for k, v in zip(node.keys, node.values)
                ],
                stmt,
            )
        return self.lowered_call(node, stmt) if isinstance(node, gast.Call) else node

    def lowered_call(self, node, stmt):
        made = self.replaced_fields(node) or self.made_record(node)  # replace(o, w=v), Layer(W)
        if made is not None:
            return made
        if any(isinstance(a, gast.Starred) for a in node.args):
            node = self.splat(node, stmt)
            if not isinstance(node, gast.Call):  # zip(*pairs): its columns
                return node
        if any(k.arg is None for k in node.keywords):
            node = self.keywords_by_signature(node, stmt)
        fn = self.resolve(node.func)
        read = _read_as_written(node, fn)  # getattr(o, 'w'), {'a': u}.get('a', default)
        if read is not None:
            return read
        if fn is MISSING and _is_get(node) and self.is_varied(node.func.value):
            return self.got(node)
        if (
            fn is MISSING
            and isinstance(node.func, gast.Attribute)
            and isinstance(node.func.value, gast.Name)
            and dict_view(node)
            and id(node) not in self.whole_views
        ):
            return self.viewed(node)
        if fn is list or fn is tuple:
            if self._lists_dict_keys(node, stmt):  # (checked to be a dict as it runs)
                return gast.Call(
                    func=node.func,
                    args=[ir.call(ir.attr("runtime", "dict_keys"), node.args[0])],
                    keywords=[],
                )
            return self.sequence(node, fn)
        if fn is dict:
            return self.mapping(node, stmt)
        if (
            fn is sum
            and len(node.args) == 1
            and isinstance(node.args[0], gast.Name)
            and node.args[0].id in self.copies
        ):  # (of a list built with append: the same list)
            return gast.Call(
                func=node.func, args=[ir.name(self.copies[node.args[0].id])], keywords=node.keywords
            )
        if fn is sorted and len(node.args) == 1:
            return self.sorted_items(node, stmt)
        if (fn is max or fn is min) and len(node.args) == 1:
            if all(k.arg == "key" for k in node.keywords):
                return self.extremum_item(node, stmt)
        if fn is next and len(node.args) in (1, 2) and is_call(node.args[0], "iter", self.resolve):
            item = gast.Subscript(value=node.args[0].args[0], slice=ir.const(0), ctx=gast.Load())
            return (
                item
                if len(node.args) == 1
                else gast.IfExp(  # next(iter(xs), default)
                    test=ir.call("len", ir.copy_tree(node.args[0].args[0])),
                    body=item,
                    orelse=node.args[1],
                )
            )
        return node

    @staticmethod
    def got(node):
        """`d.get(k, default)` as `d[k] if runtime.has_key(d, k, 'd') else default` (the
        item read by index, as srcdiff follows it; d checked to be a dict as it runs)."""
        mapping, key = node.func.value, node.args[0]
        return gast.IfExp(
            test=ir.call(
                ir.attr("runtime", "has_key"),
                ir.copy_tree(mapping),
                ir.copy_tree(key),
                ir.const(gast.unparse(mapping).strip()),
            ),
            body=gast.Subscript(value=mapping, slice=key, ctx=gast.Load()),
            orelse=node.args[1] if len(node.args) == 2 else ir.const(None),
        )

    def viewed(self, node):
        """`d.values()` as `[d[_k] for _k in runtime.dict_keys(d)]`, `d.items()` as pairs of
        those (read by key, as srcdiff follows a dict's items; d checked to be a dict as it
        runs). A loop over one is lowered before (`for k, v in d.items()`)."""
        self.changed = True
        mapping, key = node.func.value, self.fresh("_key")
        value = gast.Subscript(value=ir.copy_tree(mapping), slice=ir.name(key), ctx=gast.Load())
        if dict_view(node) == "items":
            value = gast.Tuple(elts=[ir.name(key), value], ctx=gast.Load())
        keys = ir.call(ir.attr("runtime", "dict_keys"), mapping)
        return gast.ListComp(
            elt=value,
            generators=[
                gast.comprehension(target=ir.name(key, store=True), iter=keys, ifs=[], is_async=0)
            ],
        )

    def sorted_items(self, node, stmt):
        """sorted(x): of a dict's keys where the code shows x to be a dict (checked as it
        runs); else of x's items, by key or not."""
        held = node.args[0]
        if dict_view(held) is not None:
            return node
        if not node.keywords and (
            self._lists_dict_keys(node, stmt)
            or isinstance(held, gast.Name)
            and held.id in dict_names(self.func)
        ):
            return gast.Call(
                func=node.func,
                args=[ir.call(ir.attr("runtime", "dict_keys"), held)],
                keywords=node.keywords,
            )
        if not isinstance(held, gast.Name):  # (its items are read by position: once)
            self.check_hoisting(held, stmt)
            items = self.fresh("_items")
            self.hoisted.append(self._located(ir.assign(items, self._as_list(held)), stmt))
            node.args[0] = ir.name(items)
        return self.sorted_by_key(node)

    def _as_list(self, items):
        """`items` to read by position: an iterator (enumerate(w), zip(...)) as list(...)."""
        if any(is_call(items, f, self.resolve) for f in _ITERATORS):
            return ir.call("list", items)
        return items

    def extremum_item(self, node, stmt):
        """max(xs) (or min, by key or not) as `xs[runtime.extremum_position(xs, max)]`: the
        first greatest item itself, as Python's max returns it, with its own adjoint."""
        items = node.args[0]
        if not isinstance(items, gast.Name):  # (its items are read by position: once)
            self.check_hoisting(items, stmt)
            name = self.fresh("_items")
            self.hoisted.append(self._located(ir.assign(name, self._as_list(items)), stmt))
            items = ir.name(name)
        position = gast.Call(
            func=ir.attr("runtime", "extremum_position"),
            args=[ir.copy_tree(items), node.func],
            keywords=node.keywords,
        )
        return gast.Subscript(value=items, slice=position, ctx=gast.Load())

    def sorted_by_key(self, node):
        """sorted(params, key=f) as [params[_k] for _k in runtime.sorted_positions(params,
        key=f)]: the items (each with its adjoint) in an order that carries no derivative
        (np.sort's, for an array). (A comprehension's target gets a fresh name when it
        becomes a loop.)"""
        self.changed = True
        items, position = node.args[0], "_k"
        order = gast.Call(
            func=ir.attr("runtime", "sorted_positions"),
            args=[ir.copy_tree(items)],
            keywords=node.keywords,
        )
        return gast.ListComp(
            elt=gast.Subscript(value=items, slice=ir.name(position), ctx=gast.Load()),
            generators=[
                gast.comprehension(
                    target=ir.name(position, store=True), iter=order, ifs=[], is_async=0
                )
            ],
        )

    def is_sequence(self, node):
        """Whether `node` is a list or tuple as the code says (a display, a comprehension, a
        name bound to one or built with append): sorted() of it sorts values, not keys."""
        if isinstance(node, gast.Name):
            return (
                node.id in self.lengths
                or node.id in self.copies.values()
                or node.id in self.sequences
            )
        return (
            isinstance(node, (gast.List, gast.Tuple, gast.ListComp, gast.GeneratorExp))
            or is_call(node, "list", self.resolve)
            or is_call(node, "tuple", self.resolve)
        )

    def display(self, node):
        """A list or tuple display with the items of `node`: itself, or the items of a name
        bound once to a display, by index; None if its length is not in the code."""
        if isinstance(node, (gast.List, gast.Tuple)) and not any(
            isinstance(e, gast.Starred) for e in node.elts
        ):
            return node
        if isinstance(node, gast.Name) and node.id in self.lengths:
            kind, length = self.lengths[node.id]
            return kind(
                elts=[
                    gast.Subscript(value=ir.name(node.id), slice=ir.const(k), ctx=gast.Load())
                    for k in range(length)
                ],
                ctx=gast.Load(),
            )
        return self._item_display(node)

    def _item_display(self, node):
        """`params[0]` of params = [(W, b), ...]: (params[0][0], params[0][1])."""
        at = ir.constant_int(node.slice) if isinstance(node, gast.Subscript) else None
        if at is None or not isinstance(node.value, gast.Name) or node.value.id not in self.lengths:
            return None
        count = self.lengths[node.value.id][1]
        length = (
            self.item_lengths.get((node.value.id, at % count)) if -count <= at < count else None
        )
        if length is None:
            return None
        whole = gast.Subscript(
            value=ir.name(node.value.id), slice=ir.const(at % count), ctx=gast.Load()
        )
        elts = [
            gast.Subscript(value=ir.copy_tree(whole), slice=ir.const(k), ctx=gast.Load())
            for k in range(length)
        ]
        return gast.Tuple(elts=elts, ctx=gast.Load())

    def repeated(self, node, stmt):
        """`[a, b] * 2` (or `2 * (a, b)`, a name bound to a display) as the display it makes:
        a repetition, which the templates would take for a product."""
        for items, count in ((node.left, node.right), (node.right, node.left)):
            shown = self.display(items)
            if shown is None or self.is_varied(count):
                continue  # (x * [1.0, 2.0]: an array's product, as no int is differentiated)
            if not (isinstance(count, gast.Constant) and type(count.value) is int):
                raise UnsupportedError(
                    "repeating a list or tuple of differentiated values (xs * n) cannot be "
                    "differentiated unless n is a number written in the code",
                    self.location(stmt),
                    "write the repetition out ([a, b, a, b]), or build the list in a loop",
                )
            elts = [ir.copy_tree(e) for _ in range(count.value) for e in shown.elts]
            return type(shown)(elts=elts, ctx=gast.Load())
        return node

    def splat(self, node, stmt):
        """f(*pieces) with the pieces' count in the code: f(pieces[0], pieces[1])."""
        args = []
        for arg in node.args:
            items = self.display(arg.value) if isinstance(arg, gast.Starred) else None
            if (
                isinstance(arg, gast.Starred)
                and items is None
                and is_call(node, "zip", self.resolve)
            ):
                if len(node.args) > 1 or node.keywords:
                    raise zip_star_error(self.location(stmt))
                return self.transposed(node, stmt)  # columns = list(zip(*pairs))
            if isinstance(arg, gast.Starred) and items is None:
                items = self.counted_by_signature(node, arg, stmt)
                if items is None:
                    return node  # (ANF refuses it, naming the call)
            args += items.elts if isinstance(arg, gast.Starred) else [arg]
        return gast.Call(func=node.func, args=args, keywords=node.keywords)

    def counted_by_signature(self, node, starred, stmt):
        """The items of `*pieces` in a call of a function of the user's whose parameters
        count them (`dense(*p, h)` of `def dense(W, b, x)`: p[0], p[1]), checked to be
        that many as the call runs; else None."""
        fn = self.resolve(node.func)
        if not inspect.isfunction(fn) or node.keywords or runtime.is_helper(fn):
            return None
        if sum(isinstance(a, gast.Starred) for a in node.args) != 1:
            return None
        params = list(inspect.signature(fn).parameters.values())
        if any(p.kind in (p.VAR_POSITIONAL, p.KEYWORD_ONLY, p.VAR_KEYWORD) for p in params):
            return None
        if any(p.default is not p.empty for p in params):  # (then the count is not told)
            return None
        count = len(params) - (len(node.args) - 1)
        if count < 1 or not isinstance(starred.value, gast.Name):
            return None
        pieces = starred.value.id
        check = ir.call(ir.attr("runtime", "check_unpack"), ir.name(pieces), ir.const(count))
        self.hoisted.append(self._located(ir.expr_stmt(check), stmt))
        return gast.Tuple(
            elts=[
                gast.Subscript(value=ir.name(pieces), slice=ir.const(k), ctx=gast.Load())
                for k in range(count)
            ],
            ctx=gast.Load(),
        )

    def keywords_by_signature(self, node, stmt):
        """`f(x, **d)` of a function of the user's: d's items passed as the parameters the
        call leaves (`rbf(x, x, **hyper)` of `def rbf(a, b, scale, variance)`: scale=
        hyper['scale'], variance=hyper['variance']), d checked to hold those keys as the call
        runs; else the call as it is (ANF refuses it, naming the call). A display of
        constant keys (an inlined **kwargs passed on) is spread as it is first."""
        node.keywords = spread_keyword_displays(node.keywords)  # (h(x, **kw), kw inlined)
        spread = [k for k in node.keywords if k.arg is None]
        if not spread:
            return node
        fn = self.resolve(node.func)
        if (
            len(spread) != 1
            or not _read_only(spread[0].value)
            or not inspect.isfunction(fn)
            or runtime.is_helper(fn)
            or any(isinstance(a, gast.Starred) for a in node.args)
        ):
            return node
        params = list(inspect.signature(fn).parameters.values())
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
            return node
        given = {k.arg for k in node.keywords}
        names = [
            p.name
            for p in params[len(node.args) :]
            if p.name not in given and p.kind is not p.POSITIONAL_ONLY
        ]
        if not names:
            return node
        items = spread[0].value
        listed = gast.Tuple(elts=[ir.const(n) for n in names], ctx=gast.Load())
        check = ir.call(ir.attr("runtime", "check_keys"), ir.copy_tree(items), listed)
        self.hoisted.append(self._located(ir.expr_stmt(check), stmt))
        keywords = [k for k in node.keywords if k.arg is not None] + [
            gast.keyword(
                arg=n,
                value=gast.Subscript(value=ir.copy_tree(items), slice=ir.const(n), ctx=gast.Load()),
            )
            for n in names
        ]
        return gast.Call(func=node.func, args=node.args, keywords=keywords)

    def sequence(self, node, kind):
        """list(x) and tuple(x): a display of x's items when their count is in the code,
        else a list comprehension (a list where tuple() makes a tuple: the same items)."""
        if len(node.args) != 1 or node.keywords:
            return node
        source = node.args[0]
        display = self.display(source)
        if display is not None:
            return (gast.List if kind is list else gast.Tuple)(elts=display.elts, ctx=gast.Load())
        if isinstance(source, (gast.GeneratorExp, gast.ListComp)):
            return gast.ListComp(elt=source.elt, generators=source.generators)
        item = self.fresh("_item")
        return gast.ListComp(
            elt=ir.name(item),
            generators=[
                gast.comprehension(
                    target=ir.name(item, store=True), iter=source, ifs=[], is_async=0
                )
            ],
        )

    def mapping(self, node, stmt):
        """dict(w=a, b=c), dict(zip(keys, values)) and dict([(k, v), ...]) as displays."""
        keys = [ir.const(k.arg) for k in node.keywords if k.arg is not None]
        values = [k.value for k in node.keywords if k.arg is not None]
        hint = "write the dict out: {'w': w, 'b': b}"
        if len(node.args) > 1 or len(keys) < len(node.keywords):
            raise UnsupportedError(
                "this dict(...) call of differentiated values cannot be differentiated",
                self.location(stmt),
                hint,
            )
        source = node.args[0] if node.args else None
        if (
            not keys
            and is_call(source, "zip", self.resolve)
            and len(source.args) == 2
            and not source.keywords
            and not self.is_varied(source.args[0])
            and all(self.display(a) is None for a in source.args)
            and self.resolve(ir.attr("runtime", "dict_of")) is runtime.dict_of
        ):
            return ir.call(ir.attr("runtime", "dict_of"), *source.args)  # (counted as it runs)
        copied = self.copied_dict(source)
        if copied is not None:  # dict(d, c=v), dict(sorted(d.items()))
            return self.merged_dict(node, [(None, copied)] + list(zip(keys, values)), stmt)
        if node.args:
            pairs = self.pairs(node.args[0], stmt)
            keys, values = [k for k, _ in pairs] + keys, [v for _, v in pairs] + values
        return gast.Dict(keys=keys, values=values)

    def pairs(self, source, stmt):
        """The (key, value) expressions of dict(source), from the code."""
        if is_call(source, "zip", self.resolve) and len(source.args) == 2 and not source.keywords:
            known = [self.display(a) for a in source.args]
            lengths = [len(d.elts) for d in known if d is not None]
            if lengths:
                columns = [
                    d.elts
                    if d is not None
                    else [
                        gast.Subscript(value=ir.copy_tree(a), slice=ir.const(k), ctx=gast.Load())
                        for k in range(min(lengths))
                    ]
                    for a, d in zip(source.args, known)
                ]
                return list(zip(*columns))[: min(lengths)]
        display = self.display(source)
        if display is not None and all(
            isinstance(e, (gast.Tuple, gast.List)) and len(e.elts) == 2 for e in display.elts
        ):
            return [tuple(e.elts) for e in display.elts]
        raise UnsupportedError(
            "dict(...) of differentiated values needs its keys or its values in the code: "
            "a list or tuple display, or a name bound once to one",
            self.location(stmt),
            "write the dict out: {'w': w, 'b': b}, or keys = ['w', 'b'] before "
            "dict(zip(keys, values))",
        )


def _read_only(node):
    """Whether `node` only reads a value, so that it may be read again: a name, or its items
    or attributes by constant keys (`params["kernel"]`)."""
    while isinstance(node, (gast.Attribute, gast.Subscript)):
        if isinstance(node, gast.Subscript) and not isinstance(node.slice, gast.Constant):
            return False
        node = node.value
    return isinstance(node, gast.Name)
