"""Before container lowering: an augmented write into an item of a dict or list f makes
(`p[k] += v`). numpy changes the item in place when it is an array, and every name holding
that array sees the change; where nothing else can hold it, that is `p[k] = p[k] + v`, which
srcdiff follows (the item replaced; containers.py then rebinds p). Where an argument's array
may be the item, or another name holding it is read afterwards, srcdiff refuses, saying so;
where p is read afterwards, a check before the write refuses an item another item of p holds
too (p = [y, y]), which only the call can tell.

    grads = {"W": 2.0 * W}              grads = {"W": 2.0 * W}
    grads["W"] += reg * W        ->     grads["W"] = grads["W"] + reg * W
"""

import gast

from . import ir
from .errors import UnsupportedError
from .passes.liveness import LiveAfter, live_before
from .primitives import registry


def augmented_item_writes(func, is_varied, resolve, location):
    """Rewrite each `p[k] op= v` of differentiated values in `func` (a gast FunctionDef,
    changed in place) as `p[k] = p[k] op v`, or refuse it; whether any was."""
    found = [
        s
        for s in ir.walk_statements(func)
        if _augmented_item(s) and (is_varied(s.value) or is_varied(s.target.value))
    ]
    if not found:
        return False
    holders = _Holders(func, resolve)
    for stmt in found:
        holders.refuse_copied(stmt, location(stmt))
    found = [s for s in found if holders.makes(s)]
    if not found:
        return False
    live_after = LiveAfter()
    live_before(func.body, set(), None, after=live_after)
    for stmt in found:
        holders.check(stmt, live_after, location(stmt))
    # (a check first where p is read afterwards: another item of p may hold the array)
    rewritten = {
        id(s): _checked(s, location(s)) if live_after.among({s.target.value.id}, id(s)) else []
        for s in found
    }
    for node in ir.walk(func):
        for block in ("body", "orelse"):
            stmts = getattr(node, block, None)
            if isinstance(stmts, list):
                stmts[:] = [
                    new
                    for s in stmts
                    for new in (
                        [*rewritten[id(s)], _as_assignment(s)] if id(s) in rewritten else [s]
                    )
                ]
    return True


def _augmented_item(stmt):
    return (
        isinstance(stmt, gast.AugAssign)
        and isinstance(stmt.target, gast.Subscript)
        and isinstance(stmt.target.value, gast.Name)
        and not isinstance(stmt.target.slice, gast.Slice)
    )


def _checked(stmt, loc):
    """[the runtime check, before `p[k] op= v` where p is read afterwards, that no other item
    of p holds the array numpy changes in place (p = [y, y])]: only the call can tell."""
    target = stmt.target
    check = ir.call(
        "runtime.check_item_alone",
        ir.name(target.value.id),
        ir.copy_tree(target.slice),
        ir.const(gast.unparse(target).strip()),
        ir.const(ir.op_symbol(stmt.op)),
        ir.const(loc.filename),
        ir.const(loc.lineno),
    )
    return [gast.copy_location(ir.expr_stmt(check), stmt)]


def _as_assignment(stmt):
    """`p[k] op= v` as `p[k] = p[k] op v`."""
    read = ir.copy_tree(stmt.target)
    for node in ir.walk(read):
        if hasattr(node, "ctx"):
            node.ctx = gast.Load()
    value = gast.BinOp(left=read, op=stmt.op, right=stmt.value)
    return gast.copy_location(
        gast.Assign(
            targets=[stmt.target], value=gast.copy_location(value, stmt), type_comment=None
        ),
        stmt,
    )


class _Holders:
    """Which names of a function may hold the same memory as which (flow-insensitively, the
    way aliasing.py finds views): a name and what it is bound to, a container and the values
    put into it, a loop's target and what it loops over. A value made anew (arithmetic, a
    numpy function whose result is always a new array, a constant) holds nothing else."""

    def __init__(self, func, resolve):
        self.func, self.resolve = func, resolve
        self.params = {
            a.id
            for a in func.args.posonlyargs
            + func.args.args
            + func.args.kwonlyargs
            + [func.args.vararg, func.args.kwarg]
            if isinstance(a, gast.Name)
        }
        # made: name -> whether every binding is a new display; copies: names bound to
        # dict(...) or list(...)
        self.group, self.made, self.copies = {}, {}, set()
        for node in ir.walk(func):
            self._note(node)

    def makes(self, stmt):
        """Whether `p[k] op= v` writes into a dict or list that f makes itself, every time
        of new values (displays, comprehensions)."""
        name = stmt.target.value.id
        return name not in self.params and self.made.get(name, False)

    def refuse_copied(self, stmt, loc):
        """Refuse `p[k] op= v` into a dict(...) or list(...) of other values: a copy holds
        the same arrays (the caller's, say), which numpy would change in place."""
        name = stmt.target.value.id
        if self.made.get(name, True) or name not in self.copies:
            return
        item, op = gast.unparse(stmt.target).strip(), ir.op_symbol(stmt.op)
        raise UnsupportedError(
            f"{item} {op}= ... changes in place the array {name!r} holds there, which "
            f"{name!r} shares with what it was copied from (dict(...) and list(...) copy "
            "no array): srcdiff cannot follow that change",
            loc,
            f"replace the item: {item} = {item} {op} ...",
        )

    def check(self, stmt, live_after, loc):
        """Refuse `p[k] op= v` where an argument's array may be the item, or another name
        read afterwards may hold it."""
        name, item = stmt.target.value.id, gast.unparse(stmt.target).strip()
        op = ir.op_symbol(stmt.op)
        holding = self._members(name) - {name}
        if holding & self.params:
            raise UnsupportedError(
                f"{item} {op}= ... changes in place the array {name!r} holds there, which may "
                f"be an array of the argument {sorted(holding & self.params)[0]!r}: srcdiff "
                "cannot follow that change",
                loc,
                f"replace the item: {item} = {item} {op} ... (the argument keeps its value)",
            )
        shared = sorted(live_after.among(holding, id(stmt)))
        if shared:
            raise UnsupportedError(
                f"{item} {op}= ... changes in place the array {name!r} holds there, and "
                f"{' and '.join(map(repr, shared))} may hold it too, which is read afterwards: "
                "srcdiff cannot follow that change",
                loc,
                f"replace the item, {item} = {item} {op} ..., if {shared[0]} should keep its "
                f"value; or copy it ({shared[0]} = {shared[0]}.copy()) to keep the change from it",
            )

    def _members(self, name):
        root = self._find(name)
        return {n for n in self.group if self._find(n) == root} | {name}

    def _find(self, name):
        while self.group.get(name, name) != name:
            name = self.group[name]
        return name

    def _join(self, name, value):
        for other in self._held(value):
            self.group.setdefault(name, name)
            self.group.setdefault(other, other)
            self.group[self._find(name)] = self._find(other)

    def _note(self, node):
        if isinstance(node, gast.Assign):
            for target in node.targets:
                if isinstance(target, gast.Name):
                    fresh = _display(node.value) and not any(map(_starred, ir.walk(node.value)))
                    self.made[target.id] = self.made.get(target.id, True) and fresh
                    if isinstance(node.value, gast.Call) and self.resolve(node.value.func) in (
                        dict,
                        list,
                    ):
                        self.copies.add(target.id)
                    self._join(target.id, node.value)
                elif isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
                    self._join(target.value.id, node.value)  # p[k] = v: p holds v
                else:
                    for name in ir.names_in(target, gast.Store):
                        self.made[name] = False
                        self._join(name, node.value)
        elif isinstance(node, (gast.For, gast.comprehension)):
            for name in ir.names_in(node.target, gast.Store):
                self.made[name] = False
                self._join(name, node.iter)
        elif isinstance(node, (gast.AugAssign, gast.AnnAssign)) and isinstance(
            node.target, gast.Name
        ):
            self._join(node.target.id, node.value)
        elif (
            isinstance(node, gast.Call)
            and isinstance(node.func, gast.Attribute)
            and isinstance(node.func.value, gast.Name)
            and node.func.attr in ("append", "insert", "extend")
        ):
            for arg in node.args:
                self._join(node.func.value.id, arg)

    def _held(self, value):
        """The names whose memory `value` may share or hold (none for a value made anew)."""
        if isinstance(value, gast.Name):
            return {value.id}
        if isinstance(value, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.Constant)):
            return set()
        if isinstance(value, gast.Call) and self._fresh(value):
            return set()
        if isinstance(value, gast.Dict):
            return set().union(*map(self._held, value.values), *map(self._held, value.keys))
        if isinstance(value, (gast.List, gast.Tuple, gast.Set)):
            return set().union(*map(self._held, value.elts))
        if isinstance(value, (gast.ListComp, gast.GeneratorExp)):
            return self._held(value.elt)  # (its targets hold what they loop over)
        return ir.names_in(value)  # (an item, an attribute, a call: anything it reads)

    def _fresh(self, call):
        """Whether a call's result is always a new array (a numpy function's record says;
        not a method, whose receiver may be a dict: d.copy() holds d's items)."""
        called = self.resolve(call.func)
        record = registry.find(called) if callable(called) else None
        return (
            record is not None and record.fresh and not any(k.arg == "copy" for k in call.keywords)
        )


def _display(value):
    """Whether `value` makes a new dict or list: a display, a comprehension, `[x] * n`."""
    if isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mult):
        return _display(value.left) or _display(value.right)
    return isinstance(value, (gast.Dict, gast.List, gast.ListComp, gast.DictComp))


def _starred(node):
    return isinstance(node, gast.Starred) or isinstance(node, gast.Dict) and None in node.keys
