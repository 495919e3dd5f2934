"""Stage 2b: aliasing. Which names may share memory (views, aliases, rows), so that a write
into an array that a name still to be read shares is refused, or checked when called: srcdiff's
values do not follow a change made through another name."""

import gast
import numpy as np

from . import codegen, ir
from .container_facts import keeps_no_argument, may_return_what_it_is_passed
from .errors import UnsupportedError
from .memory_sharing import MemorySharing
from .parse import MISSING
from .passes.liveness import LiveAfter, live_before
from .primitives import registry


class Aliasing:
    """The memory sharing of one function's names (`params`: its parameters, the caller's)."""

    def __init__(self, parsed, params):
        self.p, self.params = parsed, set(params)
        # srcdiff's own emitted code (a derivative differentiated again) reads a name viewing
        # an array it writes into only before the write, or after putting back what the
        # write replaced (the reverse sweep): the name holds the values it was bound to
        self._restores_its_writes = codegen.is_emitted(parsed.filename)
        self._live_after = self._sharing = self._assigned = None  # made when first needed
        # a name bound outside f (an argument, a global) -> where the first statement kept as
        # written writes into its array in place
        self._written_outside = {}

    def check_write(self, stmt, loc, differentiated, version_of, rename):
        """A write into an array (`z[i] = v`, `z[i] += v`, `z += v`) changes every name that
        shares its memory, and srcdiff's values do not follow it: refuse one while a name
        sharing z's memory (w = z, w = z[1:], w = z.T, ...) is still to be read. Returns the
        checks to run first where only the call can tell (ir statements). `differentiated`:
        whether the write involves differentiated values; `version_of(name)` and
        `rename(node)` give the current versions of names."""
        target = stmt.target if isinstance(stmt, gast.AugAssign) else stmt.targets[0]
        into = self._written(stmt, target, differentiated, loc)
        if into is None or isinstance(target, gast.Subscript) and self._restores_its_writes:
            return []
        if isinstance(target, gast.Subscript) and self.is_new_list(into):
            if isinstance(stmt, gast.Assign):
                self._refuse_held_list(stmt, into, loc)
                return []  # an item replaced: the values the list held are not changed
            if any(isinstance(v, gast.List) for v in self._values(into)):
                item = gast.unparse(target)
                raise UnsupportedError(
                    f"{item} {ir.op_symbol(stmt.op)}= ... changes in place the array {into!r} holds "
                    "there, and every name holding it: srcdiff cannot follow that",
                    loc,
                    f"replace the item: {item} = {item} {ir.op_symbol(stmt.op)} ...",
                )
        self._analyse()
        live = self._live_after.among
        shared = sorted(live(self._sharing[0].sharing(stmt, into) - {into}, id(stmt)))
        if isinstance(target, gast.Subscript) and shared:
            raise UnsupportedError(
                f"writing into {into!r} changes {' and '.join(map(repr, shared))} too (they "
                "share memory), which is read afterwards: srcdiff cannot follow that change",
                loc,
                f"copy before writing ({into} = {into}.copy()), or give the view a fresh "
                "array of its own",
            )
        # w = z[i] is a row of z, or a number, or the array a list holds: only the call can
        # tell (for a w bound here)
        rows = sorted(
            live(self._sharing[1].sharing(stmt, into) - {into}, id(stmt)) & self._bound_before(stmt)
        )
        checks = self._run_time_checks(
            target, into, shared, rows, loc, version_of, rename, self.holds_argument(stmt, into)
        )
        checks = [ir.Statement(ir.expr_stmt(check), loc) for check in checks]
        if isinstance(stmt, gast.AugAssign):  # (a list's or dict's: changed in place too)
            checks += self.shared_change_checks(stmt, into, loc, version_of)
        return checks

    def kept_write(self, stmt, node, roots, loc, versions):
        """`stmt` (emitted as `node`), kept as written, changes in place the arrays of the
        names `roots` (None: of no name): the ir statement saying so, for the derivative to
        save what they held where it reads that later (saving.py; `versions`: the names'
        current versions); the names bound outside f whose arrays they may hold are noted,
        for outside_checks."""
        if self._replaces_item(stmt):
            return ir.Statement(node, loc)
        self._analyse()
        arguments = set(_all_parameters(self.p.node))
        roots = [root for root in roots if root is not None]
        left, seen_by = [], set()  # (left as written: the caller's, or not surely an array)
        for root in roots:
            outside = {
                name
                for name in self._sharing[1].arguments_held(stmt, root)
                if name in arguments or name not in self.p.local_names
            }
            if outside or not self._surely_array(root):
                left.append(root)
            if not (self._restores_its_writes and isinstance(stmt, gast.Assign)):
                for name in sorted(outside):  # (an emitted gradient's: checked at its start)
                    self._written_outside.setdefault(name, loc)
            seen_by |= self._sharing[1].sharing(stmt, root) - {root}
        version = lambda names: tuple(versions.get(n, n) for n in names)  # noqa: E731
        left = tuple(zip(version(left), left))
        return ir.Statement(node, loc, version(roots), version(sorted(seen_by)), left)

    def _replaces_item(self, stmt):
        """Whether `stmt` replaces an item of a dict (`d['key'] = v`) or of a list f makes
        (`xs[i] = v`, `r[j] = v` of r = m[i], a row of a list of lists): no array changes."""
        target = stmt.targets[0] if isinstance(stmt, gast.Assign) else None
        if not (isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name)):
            return False
        name, key = target.value.id, target.slice
        rows = self._values(name)
        return (
            isinstance(key, gast.Constant)
            and isinstance(key.value, str)
            or self.is_new_list(name)
            or bool(rows)
            and all(isinstance(v, gast.Subscript) and self._is_list_of_lists(v.value) for v in rows)
        )

    def outside_checks(self):
        """The checks, first thing in the derivative, that no array bound outside f that it
        writes into in place (an argument's, a global's) shares memory with an argument
        (which may be differentiated, or be read by the derivative as it was passed): ir
        statements."""
        written = self._written_outside
        others = [a for a in _all_parameters(self.p.node) if a not in written]
        checks = []
        for name, loc in written.items() if others else ():
            check = ir.call(
                "runtime.check_apart",
                ir.name(name),
                ir.const(name),
                ir.const(name in self.params),
                gast.Tuple(elts=[ir.name(o) for o in others], ctx=gast.Load()),
                gast.Tuple(elts=[ir.const(f"the argument {o!r}") for o in others], ctx=gast.Load()),
                ir.const(loc.filename),
                ir.const(loc.lineno),
            )
            checks.append(ir.Statement(ir.expr_stmt(check), loc))
        return checks

    def _surely_array(self, name, seen=frozenset()):
        """Whether `name` is bound only to arrays f makes (np.zeros(n), x * 1.0), or rows,
        views or aliases of them: what the derivative can copy and put back."""
        values = self._values(name)
        if not values or self.is_new_list(name):  # (an argument's own array: none)
            return False
        for value in values:
            while isinstance(value, (gast.Subscript, gast.Attribute)):
                value = value.value
            if isinstance(value, gast.Name):
                if value.id in seen | {name} or not self._surely_array(value.id, seen | {name}):
                    return False
            elif not self._fresh(value):
                return False
        return True

    def shared_change_checks(self, stmt, name, loc, version_of):
        """`name.append(v)`, `name += [v]` (a method or operator changing a list or dict in
        place) change every name holding the same one, and srcdiff's values of those do not
        follow: the runtime check, before it, that no name still to be read (ys of
        `zs = ys`) is or holds that list (ir statements)."""
        if self._restores_its_writes:
            return []
        aliases = self._holders(name, aliased=True)
        names = sorted(
            (self._live_after.among(aliases, id(stmt)) - {name}) & self._bound_before(stmt)
        )
        if not names:
            return []
        check = ir.call(
            "runtime.check_not_shared",
            ir.name(version_of(name)),
            ir.const(name),
            ir.const(" and ".join(map(repr, names))),
            ir.const(loc.filename),
            ir.const(loc.lineno),
            gast.Tuple(elts=[ir.name(version_of(n)) for n in names], ctx=gast.Load()),
        )
        return [ir.Statement(ir.expr_stmt(check), loc)]

    def _holders(self, into, aliased=False):
        """The names that may hold the list or dict `into` (itself among them): r = into,
        t = (into, 1), r = g(into) of a g that may return it; `aliased`: and those it may
        be (ys of into = ys), and what holds them."""
        self._analyse()
        holders, more = {into}, True
        assigned = [n for n in ir.walk(self.p.node) if isinstance(n, gast.Assign)]
        assigned += _loop_bindings(self.p.node)
        while more:
            found = {
                t
                for n in assigned
                if self._may_hold(n.value, holders)
                for target in n.targets
                for t in ir.names_in(target, gast.Store)
            }
            if aliased:
                found |= {
                    n.value.id
                    for n in assigned
                    if isinstance(n.value, gast.Name)
                    and any(ir.names_in(t, gast.Store) & holders for t in n.targets)
                }
            more, holders = not found <= holders, holders | found
        return holders

    def _refuse_held_list(self, stmt, into, loc):
        """Refuse replacing an item of list `into` while another name read afterwards may
        hold the list itself (r = into, r = g(into) of a g that may return it): srcdiff's
        values of that name do not follow the write."""
        holders = self._holders(into)
        shared = sorted(self._live_after.among(holders - {into}, id(stmt)))
        if shared:
            raise UnsupportedError(
                f"writing into {into!r} changes {' and '.join(map(repr, shared))} too (it "
                "may hold the same list), which is read afterwards: srcdiff cannot follow "
                "that change",
                loc,
                f"make a new list before writing ({into} = list({into})), or read "
                f"{shared[0]} before the write",
            )

    def _may_hold(self, value, names):
        """Whether `value` may be, or hold, a value of `names` (not an item or arithmetic of
        one; a call may return what it is passed, unless the function keeps nothing)."""
        if isinstance(value, gast.Name):
            return value.id in names
        if isinstance(value, (gast.Subscript, gast.Attribute, gast.BinOp, gast.UnaryOp)):
            return False
        if isinstance(value, gast.Call):
            if keeps_no_argument(self.p.resolve(value.func)):  # (MISSING for a method)
                return False
            return any(self._may_hold(a, names) for a in value.args) or any(
                self._may_hold(k.value, names) for k in value.keywords
            )
        return any(self._may_hold(child, names) for child in ir.children(value))

    def _written(self, stmt, target, differentiated, loc):
        """The name of the array a statement writes into, if it is one to check."""
        if isinstance(stmt, gast.Assign) and (
            len(stmt.targets) > 1 or not isinstance(target, gast.Subscript)
        ):
            return None  # a name bound anew: nothing is written
        into = target.value if isinstance(target, gast.Subscript) else target
        if isinstance(target, gast.Subscript) and not differentiated:
            return None  # nothing differentiated is written: the emitted code writes it as is
        if not isinstance(into, gast.Name):
            if isinstance(target, gast.Subscript):
                self._refuse_nested_write(stmt, target, loc)
            return None
        return into.id

    def _run_time_checks(self, target, into, shared, rows, loc, version_of, rename, argument):
        """The runtime calls that check, before a write into `into`, that what the code
        cannot tell holds: the rows written are not viewed by `rows`, and the array written
        in place (`z += v`) shares no memory (`argument`: z may be the caller's)."""
        version = ir.name(version_of(into))
        where = [ir.const(loc.filename), ir.const(loc.lineno)]
        held = gast.Tuple(elts=[ir.name(version_of(n)) for n in rows], ctx=gast.Load())
        row_names = ir.const(" and ".join(map(repr, rows)))
        if isinstance(target, gast.Subscript):
            return (
                [
                    ir.call(
                        "runtime.check_unviewed",
                        version,
                        ir.index_value(rename(target.slice)),
                        held,
                        ir.const(into),
                        row_names,
                        *where,
                    )
                ]
                if rows
                else []
            )
        # `z += v` rebinds a float, but changes an array in place: the call tells
        if shared or argument:
            return [
                ir.call(
                    "runtime.check_not_shared",
                    version,
                    ir.const(into),
                    ir.const(" and ".join(map(repr, shared))),
                    *where,
                )
            ]
        if rows:
            return [
                ir.call(
                    "runtime.check_not_shared", version, ir.const(into), row_names, *where, held
                )
            ]
        return []

    def holds_argument(self, stmt, name):
        """Whether `name`, a parameter, may hold the caller's array where `stmt` writes."""
        if name not in self.params:
            return False
        self._analyse()
        return self._sharing[1].holds_its_own(stmt, name)

    def _analyse(self):
        if self._sharing is None:
            self._sharing = tuple(
                MemorySharing(self.p.node.body, lambda value, rows=rows: self._viewed(value, rows))
                for rows in (False, True)
            )
            self._live_after = LiveAfter()
            live_before(self.p.node.body, set(), None, after=self._live_after)

    def _refuse_nested_write(self, stmt, target, loc):
        """A write into an item of a container or a row (t[0][i] = v) where differentiated
        values are involved: srcdiff follows writes only into an array by its name."""
        self._analyse()
        indices, root = [], target
        while isinstance(root, gast.Subscript):
            indices.insert(0, gast.unparse(root.slice))
            root = root.value
        holds = (
            sorted(self._sharing[0].sharing(stmt, root.id) - {root.id})
            if isinstance(root, gast.Name)
            else []
        )
        if len(indices) == 2 and self._is_list_of_lists(root):
            m = root.id
            raise UnsupportedError(
                f"writing into {gast.unparse(target.value)} changes a row of the list {m!r} in "
                "place, which another name may hold: srcdiff follows that only in a list f "
                f"makes of row displays ([[a, b], [c, d]]) whose rows are read only by item "
                f"({m}[i][j]) until the last write",
                loc,
                f"build {m} of row displays and read its rows by item until then, or replace "
                f"the row ({m}[{indices[0]}] = [...])",
            )
        view = gast.unparse(target.value)
        if not isinstance(root, gast.Name) and not _object_field(root):  # (A.ravel(), A.T)
            raise UnsupportedError(
                f"writing into {view} cannot be differentiated: srcdiff follows writes only "
                "into an array by its own name (y[i] = v), and this one has none",
                loc,
                f"write into a copy with a name of its own (part = {view}.copy(); "
                f"part[{', '.join(indices)}] = ...), then make the new array of it "
                "(A = part.reshape(A.shape) of A.ravel(), A = part.T of A.T)",
            )
        if isinstance(root, gast.Attribute):  # (a layer's running mean kept on it)
            raise UnsupportedError(
                f"writing into {gast.unparse(target.value)} changes what an object holds: "
                "srcdiff reads objects' fields in the function it differentiates, but does not "
                "follow a change to them",
                loc,
                "keep the value in a local name and return it (with has_aux=True beside the "
                "loss), and store it on the object after the call",
            )
        first = f"{root.id}[{indices[0]}]"
        hint = (
            f"write into the array by its own name ({holds[0]}[...] = ...)"
            if holds
            else f"index it once where it is an array ({root.id}[{', '.join(indices)}] = ...); "
            f"of a list's item, write into a copy and put it back (item = {first}.copy(); "
            f"item[{', '.join(indices[1:])}] = ...; {first} = item)"
        )
        raise UnsupportedError(
            f"writing into {gast.unparse(target.value)} cannot be differentiated: srcdiff "
            "follows writes only into a named array (y[i] = v)",
            loc,
            hint,
        )

    def _bound_before(self, target):
        """The names surely bound when statement `target` runs: the parameters, what the
        assignments before it in its block and in the blocks around it bind, and the
        targets of the loops around it."""

        def search(body, bound):
            for stmt in body:
                if stmt is target:
                    return bound
                if isinstance(stmt, (gast.If, gast.For, gast.While)):
                    inner = bound | (
                        ir.names_in(stmt.target, gast.Store)
                        if isinstance(stmt, gast.For)
                        else set()
                    )
                    for block in (stmt.body, stmt.orelse):
                        found = search(block, inner)
                        if found is not None:
                            return found
                elif isinstance(stmt, gast.Assign):
                    bound = bound | {n for t in stmt.targets for n in ir.names_in(t, gast.Store)}
            return None

        return search(self.p.node.body, set(self.params)) or set()

    def _viewed(self, value, rows=False):
        """The names whose memory `value` shares (x, x[1:], x.T, np.transpose(x), ...).
        x[i] or x[idx] only with `rows`: a number, or a copy, unless x has more dimensions
        than the index (a row of a matrix), which only the call can tell."""
        viewed = lambda v: self._viewed(v, rows)  # noqa: E731
        if isinstance(value, gast.Name):
            return {value.id}
        if isinstance(value, gast.Subscript):
            parts = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
            sliced = any(
                isinstance(p, gast.Slice)
                or isinstance(p, gast.Constant)
                and p.value in (None, Ellipsis)
                for p in parts
            )
            return viewed(value.value) if sliced or rows else set()
        if isinstance(value, gast.Attribute) and _is(registry.attribute(value.attr), "view"):
            return viewed(value.value)
        if isinstance(value, gast.IfExp):
            return viewed(value.body) | viewed(value.orelse)
        if isinstance(value, (gast.List, gast.Tuple)):  # holds its items, not copies
            return set().union(*map(viewed, value.elts))
        if isinstance(value, gast.Dict):
            return set().union(*map(viewed, value.values))
        if isinstance(value, gast.Call):
            func = value.func
            if self.p.resolve(func) in _YIELDING_ITEMS:  # (for i, row in enumerate(y))
                return set().union(*map(viewed, value.args))
            if (
                isinstance(func, gast.Attribute)
                and self.p.resolve(func) is MISSING
                and (_is(registry.method(func.attr), "view") or _copy_declined(value))
            ):
                return viewed(func.value)
            if value.args and (
                _is(registry.find(self.p.resolve(func)), "view") or _copy_declined(value)
            ):
                return viewed(value.args[0])
            if rows and may_return_what_it_is_passed(func, self.p.resolve(func)):  # (x[:k])
                passed = value.args + [k.value for k in value.keywords]
                if isinstance(func, gast.Attribute):
                    passed.append(func.value)
                return set().union(*map(viewed, passed))
        return set()

    def _is_list_of_lists(self, node):
        """Whether `node` names a list made here of lists made here (m = [[a, b], [c, d]])."""
        return (
            isinstance(node, gast.Name)
            and self.is_new_list(node.id)
            and all(
                isinstance(v, gast.List)
                and all(
                    isinstance(e, gast.List) or isinstance(e, gast.Name) and self.is_new_list(e.id)
                    for e in v.elts
                )
                for v in self._values(node.id)
            )
        )

    def is_new_list(self, name):
        """Whether every value `name` is assigned is a list made there (`[x, x]`, `[None] *
        n`), whose items a write replaces (a write into it changes no array)."""
        values = self._values(name)
        return name not in self.params and bool(values) and all(map(_is_list_made, values))

    def values_of(self, name):
        """The values assigned to `name` (by a plain assignment)."""
        return self._values(name)

    def _values(self, name):
        """The values assigned to `name` (by a plain assignment)."""
        if self._assigned is None:  # (one walk, for all the writes asking)
            self._assigned = {}
            for node in ir.walk(self.p.node):
                if isinstance(node, gast.Assign):
                    for target in node.targets:
                        if isinstance(target, gast.Name):
                            self._assigned.setdefault(target.id, []).append(node.value)
        return self._assigned.get(name, [])

    def owns(self, name, stmt, seen=frozenset()):
        """Whether every value `name` is assigned is a fresh array, or a name's that owns
        its, or a new list, safe for `stmt` to write into (an argument's name only once
        bound anew on every path)."""
        if self._restores_its_writes:
            return True  # (srcdiff's own writes: where f wrote, checked then, or put back)
        if self.holds_argument(stmt, name):
            return False
        if self.is_new_list(name):
            return True
        for value in self._values(name):
            if isinstance(value, (gast.BinOp, gast.UnaryOp)) or _is_list_made(value):
                continue  # (xs = []; ...; xs = ys, a list extended: ys's values are checked)
            if isinstance(value, gast.Name) and value.id not in seen | {name}:
                if self.owns(value.id, stmt, seen | {name}):
                    continue  # (y = z: writing into y changes z, which check_write sees)
                return False
            if not self._fresh(value):
                return False
        return True

    def _fresh(self, value):
        """Whether `value` is a new array: arithmetic, a call that makes one, or a view of
        one no name holds (`(x * 1.0).reshape(2, 2)`)."""
        if isinstance(value, (gast.BinOp, gast.UnaryOp)):
            return True
        if not isinstance(value, gast.Call):
            return False
        called = self.p.resolve(value.func)
        method = called is MISSING and isinstance(value.func, gast.Attribute)
        record = registry.method(value.func.attr) if method else registry.find(called)
        if _is(record, "fresh") and not _copy_declined(value):
            return True
        viewed = value.func.value if method else value.args[0] if value.args else None
        return (
            _is(record, "view")
            and not _copy_declined(value)
            and not isinstance(viewed, gast.Name)
            and viewed is not None
            and self._fresh(viewed)
        )


# builtins whose items are their arguments' own items (rows of an array: views of it)
_YIELDING_ITEMS = (enumerate, zip, reversed, iter)


def _all_parameters(node):
    """Every parameter name of a function node, *args and **kwargs among them."""
    args = node.args
    named = args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
    return [a.id for a in named if a is not None]


def _copy_declined(call):
    """Whether a call passes copy= other than True (np.array(x, copy=False), x.astype(t,
    copy=None)): then it may return its argument itself, not a copy."""
    return any(
        k.arg == "copy" and not (isinstance(k.value, gast.Constant) and k.value.value is True)
        for k in call.keywords
    )


def _is(record, fact):
    """Whether a primitive's record (None for no primitive) has a fact, say "view"."""
    return record is not None and getattr(record, fact)


def _is_list_made(value):
    """Whether `value` makes a new list (`[x, x]`, `[None] * n`)."""
    return isinstance(value, gast.List) or (
        isinstance(value, gast.BinOp)
        and isinstance(value.op, gast.Mult)
        and isinstance(value.left, gast.List)
    )


def _loop_bindings(func):
    """`out = a`, `out = b` for each item a loop over a display gives its target (`for out in
    (a, b)`, `for fn, out in ((np.sin, a), (np.cos, b))`): the target is each in turn."""
    bindings = []
    for loop in ir.walk(func):
        if isinstance(loop, gast.For) and isinstance(loop.iter, (gast.Tuple, gast.List)):
            for item in loop.iter.elts:
                bindings += _paired(loop.target, item)
    return bindings


def _paired(target, value):
    if isinstance(target, gast.Name):
        return [gast.Assign(targets=[target], value=value, type_comment=None)]
    if (
        isinstance(target, (gast.Tuple, gast.List))
        and isinstance(value, (gast.Tuple, gast.List))
        and len(target.elts) == len(value.elts)
    ):
        return [b for t, v in zip(target.elts, value.elts) for b in _paired(t, v)]
    return []


def _object_field(root):
    """Whether `root`, the part of a write target before its indices, may be a field of an
    object (self.running_mean): an attribute not named as one of an array's (A.T, A.real)."""
    return isinstance(root, gast.Attribute) and root.attr not in _ARRAY_ATTRIBUTES


_ARRAY_ATTRIBUTES = frozenset(a for a in dir(np.ndarray) if not a.startswith("_"))
