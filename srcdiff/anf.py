"""Stage 2c: normalisation to ANF (`ir` statements).

Nested differentiable expressions are flattened into one operation per statement
(`np.sum(np.exp(x) * y)` becomes `_t0 = np.exp(x); _t1 = _t0 * y; ...`; expressions.py).
Expressions that carry no gradient (shapes, comparisons, constants) stay inline. In
straight-line code at the top of the function a reassigned variable gets a versioned name
(`x`, `x_1`), so the reverse sweep can read every value it needs without saving it.
"""

import gast

from . import ir
from .activity import is_pop, is_push, target_names
from .aliasing import Aliasing
from .effects import EffectStatements
from .errors import UnsupportedError
from .expressions import Expressions
from .loop_statements import LoopStatements
from .parse import spelling
from .passes.liveness import LiveAfter, live_before
from .changed_later import changed_in_place_names
from .truths import changeable_names
from .primitives import registry

_UNSUPPORTED = {
    gast.Try: (
        "try/except other than around one assignment of numpy calls (and a try/finally "
        "left by return, break or continue)",
        "try only the call that may raise, assigned to a name (try: L = np.linalg.cholesky(K)"
        " / except np.linalg.LinAlgError: L = ...), and compute the rest after it",
    ),
    gast.With: (
        "with blocks other than np.errstate(...), warnings.catch_warnings() and "
        "contextlib.nullcontext() (srcdiff runs their body as it is; with `as` a "
        "name that f reads)",
        "move the context manager outside the differentiated function, or drop its `as` name",
    ),
    gast.Global: (
        "global statements",
        "pass the value in as an argument; a count kept across calls, in a global list or "
        "dict changed in place (CALLS[0] += 1)",
    ),
    gast.Nonlocal: ("nonlocal statements", "pass the value in as an argument"),
    gast.Match: (
        "match statements of patterns other than values, None, True, False, their "
        "alternatives (|) and a last name or _",
        "write the match as if/elif of the tests it makes",
    ),
    gast.FunctionDef: ("nested function definitions", "define helpers at module level"),
    gast.AsyncFunctionDef: ("nested function definitions", "define helpers at module level"),
    gast.ClassDef: ("class definitions", "define classes at module level"),
    gast.Import: (
        "imports under a statement of the function",
        "import at module level, or first thing in the function's body",
    ),
    gast.ImportFrom: (
        "imports under a statement of the function",
        "import at module level, or first thing in the function's body",
    ),
}


class Normalizer(EffectStatements, LoopStatements, Expressions):
    """Normalises one function, given its activity analysis and the names in use.
    `derive_callee(fn, wrt, names, outputs, loc, statics)` differentiates a user function it
    calls, under the names it chooses (for the functions of `suffixed`, names that say what
    is differentiated: naming.py), and returns the `suffixed` it handed on, the callee's
    naming.variant, the names of the derivative in the making that a call back into it
    (recursion) calls instead, or None, and whether the call is in a recursion through its
    caller; `callees` records each but a call of the function itself for the cache (and
    for naming.renamed). `outputs` marks the items of a returned tuple that are
    differentiated (None: all)."""

    def __init__(self, parsed, activity, names, derive_callee=None, outputs=None, suffixed=()):
        self.p, self.activity, self.names = parsed, activity, names
        self.suffixed = suffixed
        self.forward_mode = activity.forward_mode
        # a callee becomes jvp_g (forward mode) or the pair fwd_g / bwd_g (reverse mode)
        self.callee_prefixes = ("jvp",) if self.forward_mode else ("fwd", "bwd")
        self.derive_callee = derive_callee
        self.callees = []
        self.recursive_calls = {}  # (of the function this derivative is made of) -> its names
        node = parsed.node
        self.params = [a.id for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]
        self.outputs = outputs
        self.varied = activity.varied
        self.useful = activity.useful(outputs)
        self.active = activity.varied & self.useful
        self.aliasing = Aliasing(parsed, self.params)
        # the lists this function uses with append or pop, and those it pops from
        nodes = ir.nodes_of(node, _LOOKED_AT)
        calls = [n for n in nodes if isinstance(n, gast.Call)]
        self.named_exprs = any(isinstance(n, gast.NamedExpr) for n in nodes)
        self.stacks = {n.func.value.id for n in calls if is_pop(n) or is_push(gast.Expr(value=n))}
        self.popped = {n.func.value.id for n in calls if is_pop(n)}
        self.changed_in_place = {
            n.func.value.id
            for n in calls
            if isinstance(n.func, gast.Attribute)
            and isinstance(n.func.value, gast.Name)
            and n.func.attr in _LIST_CHANGES
        } | {
            n.value.id
            for n in nodes
            if isinstance(n, gast.Subscript)
            and isinstance(n.ctx, gast.Store)
            and isinstance(n.value, gast.Name)
        }
        self.changeable = changeable_names(node, parsed.resolve, nodes=nodes)  # (truths.py)
        # names an index read copies (f may change them in place after it: truths.py)
        self.copied_at_read = changed_in_place_names(node, parsed.resolve, nodes=nodes)
        # name -> (its list or tuple display, the block it was made in), while it holds
        self.displays = {}
        # (name, key) -> (the temporary holding name[key], its block, the last position there
        # known to have changed nothing it reads: expressions.py)
        self.items_read = {}
        self.versions = {p: p for p in self.params}
        self.depth = 0
        self.live_after = None  # (LiveAfter over the function, once a write asks: _read_no_more)
        self.now = None  # (the statement being normalised)

    def _is_active(self, node, names=None):
        """Whether `node` carries a gradient (of `names`: the active ones by default)."""
        return self.activity.is_active(node, self.active if names is None else names)

    # --- names ----------------------------------------------------------------------------

    def store(self, original):
        """The name an assignment to `original` writes (a new version in straight-line code)."""
        current = self.versions.get(original)
        if current is not None and self.depth == 0:
            current = self.names.version(original)
        current = current or original
        self.versions[original] = current
        if original in self.active:
            self.active.add(current)
        self.displays = {
            name: held
            for name, held in self.displays.items()
            if current != name and current not in ir.names_in(held[0])
        }
        return current

    def rename(self, node):
        """A copy of an expression with every read name mapped to its current version, and
        numpy functions spelled through `np` (so emitted code needs no other import)."""
        node = ir.copy_tree(node)
        for n in ir.walk(node):
            if isinstance(n, gast.Call):
                spelled = spelling(self.p.resolve(n.func))
                if spelled and spelled.startswith("np."):
                    n.func = ir.attr(*spelled.split("."))
        for n in ir.name_nodes(node):
            if isinstance(n.ctx, gast.Load):
                n.id = self.versions.get(n.id, n.id)
        return node

    # --- statements -----------------------------------------------------------------------

    def run(self):
        body = self.block(self.p.node.body, top=True)
        body = self.aliasing.outside_checks() + body
        return ir.Function(self.p.node.name, self.p.node.args, body, self.params, self.active)

    def block(self, stmts, top=False):
        out = []
        for i, stmt in enumerate(stmts):
            if (
                top
                and i == 0
                and isinstance(stmt, gast.Expr)
                and isinstance(stmt.value, gast.Constant)
            ):
                continue  # docstring
            self.statement(stmt, out)
        return out

    def statement(self, stmt, out):
        loc = self.p.location(stmt)
        self.now = stmt  # (what read_later asks liveness after)
        kind = type(stmt)
        if kind in _UNSUPPORTED:
            what, hint = _UNSUPPORTED[kind]
            raise UnsupportedError(f"{what} cannot be differentiated", loc, hint)
        header = {gast.If: "test", gast.While: "test", gast.For: "iter"}.get(kind)
        for node in (
            ir.walk(getattr(stmt, header) if header else stmt) if self.named_exprs else ()
        ):  # (its own expressions, not its nested lines)
            if isinstance(node, gast.NamedExpr) and self._is_active(node.value, self.varied):
                raise UnsupportedError(
                    "an assignment expression (:=) of a differentiated value "
                    "cannot be differentiated",
                    loc,
                    f"assign {gast.unparse(node.target)} on a line of its own first",
                )
        if isinstance(stmt, (gast.Assign, gast.AugAssign)):
            self.writing = stmt  # (what set_item asks aliasing about)
            out += self._check_write(stmt, loc)
        if isinstance(stmt, gast.Assign):
            self.assign_statement(stmt, loc, out)
        elif isinstance(stmt, gast.AugAssign):
            value = gast.BinOp(left=_as_load(stmt.target), op=stmt.op, right=stmt.value)
            self.assign_statement(
                gast.Assign(targets=[stmt.target], value=value, type_comment=None), loc, out
            )
        elif isinstance(stmt, gast.AnnAssign) and stmt.value is not None:
            self.assign_statement(
                gast.Assign(targets=[stmt.target], value=stmt.value, type_comment=None), loc, out
            )
        elif isinstance(stmt, gast.Return):
            self.return_statement(stmt, loc, out)
        elif isinstance(stmt, gast.If):
            self.if_statement(stmt, loc, out)
        elif isinstance(stmt, gast.For):
            self.for_statement(stmt, loc, out)
        elif isinstance(stmt, gast.While):
            self.while_statement(stmt, loc, out)
        elif isinstance(stmt, gast.Break):
            out.append(ir.Break(loc))
        elif isinstance(stmt, gast.Delete):
            self.delete_statement(stmt, loc, out)
        elif isinstance(stmt, gast.Pass):
            pass
        elif isinstance(stmt, (gast.Assert, gast.Raise)):
            out.append(ir.Statement(self.rename(stmt), loc))
        elif isinstance(stmt, gast.Expr):
            self.expression_statement(stmt, loc, out)
        else:
            raise UnsupportedError(f"{kind.__name__} statements cannot be differentiated", loc)

    def _check_write(self, stmt, loc):
        """The aliasing checks of a write into an array (aliasing.py)."""
        target = stmt.target if isinstance(stmt, gast.AugAssign) else stmt.targets[0]
        into = target.value if isinstance(target, gast.Subscript) else target
        while isinstance(into, (gast.Subscript, gast.Attribute)):  # t[0][i]: into t
            into = into.value
        # (the array written may be constant here, but share memory with a varied name;
        # only a write into an item asks, and most statements assign a name)
        differentiated = isinstance(target, gast.Subscript) and (
            self._is_active(stmt.value, self.varied)
            or isinstance(into, gast.Name)
            and into.id in self.varied
        )
        return self.aliasing.check_write(
            stmt, loc, differentiated, lambda n: self.versions.get(n, n), self.rename
        )

    def assign_statement(self, stmt, loc, out):
        if len(stmt.targets) > 1:  # a = b = value
            first = stmt.targets[0]
            self.assign_statement(
                gast.Assign(targets=[first], value=stmt.value, type_comment=None), loc, out
            )
            for other in stmt.targets[1:]:
                self.assign_statement(
                    gast.Assign(targets=[other], value=_as_load(first), type_comment=None), loc, out
                )
            return
        target, value = stmt.targets[0], stmt.value
        active = self._is_active(value) and bool(target_names(target) & self.active)
        if isinstance(target, gast.Name):
            # (a pop of a differentiated list, though the item carries no gradient: the
            # list's adjoint gets one back for it)
            if is_pop(value) and value.func.value.id in self.active:
                stack = self.versions.get(value.func.value.id, value.func.value.id)
                out.append(ir.Pop(self.store(target.id), stack, loc))
                return
            if not active:
                value = self.kept_as_written(value, loc)
                out.append(ir.Assign([self.store(target.id)], value, loc))
                return
            self.active_value(value, loc, out, target=target.id)
        elif isinstance(target, (gast.Tuple, gast.List)) and all(
            isinstance(e, gast.Name) for e in target.elts
        ):
            self.unpack(target, value, active, loc, out)
        elif isinstance(target, gast.Subscript):
            if is_pop(value) and active:  # y[i] = stack.pop(), as emitted gradients restore y
                held = self.names.fresh("_t")
                self.active.add(held)
                stack = self.versions.get(value.func.value.id, value.func.value.id)
                out.append(ir.Pop(held, stack, loc))
                value = ir.name(held)
            if self._read_no_more(target):  # (the caller's dict, changed for them)
                out.append(ir.Statement(self.rename(self.writing), loc))
                return
            if self._is_active(target.value) or active:
                self.set_item(target, value, active, loc, out)
                return
            written = self.rename(gast.Assign(targets=[target], value=value, type_comment=None))
            root = [ir.root_name(target)]
            out.append(self.aliasing.kept_write(self.writing, written, root, loc, self.versions))
        else:
            _refuse_target(target, loc)

    def _read_no_more(self, target):
        """Whether `target` is an item by a str key (of a dict: no array changes) of a
        parameter not differentiated that nothing reads after the statement writing it
        (`bn_param['running_mean'] = m` at the end of a batch norm): the write is the
        caller's to see, kept as written, its value's gradient 0."""
        base, key = target.value, target.slice
        if not (isinstance(key, gast.Constant) and isinstance(key.value, str)):
            return False
        if not isinstance(base, gast.Name) or base.id not in self.params:
            return False
        if base.id in self.activity.wrt_names:  # (the backward sweep may read it again)
            return False
        writing = id(self.writing)
        return self._live_after().knows(writing) and not self.live_after.live(base.id, writing)

    def read_later(self, name):
        """Whether `name` may be read after the statement being normalised."""
        now = id(self.now)
        return not self._live_after().knows(now) or self.live_after.live(name, now)

    def _live_after(self):
        if self.live_after is None:
            self.live_after = LiveAfter()
            live_before(self.p.node.body, set(), None, after=self.live_after)
        return self.live_after

    def set_item(self, target, value, active, loc, out):
        base = target.value
        if not isinstance(base, gast.Name):
            raise UnsupportedError(
                "only writes into a named array (y[i] = v) can be differentiated",
                loc,
                "give the array a name first",
            )
        if base.id not in self.params and any(
            isinstance(n, gast.Assign)
            and isinstance(n.value, gast.Dict)
            and base.id in target_names(n.targets[0])
            for n in ir.walk(self.p.node)
        ):
            raise UnsupportedError(
                f"writing into the dict or list {base.id!r} here cannot be differentiated: "
                "srcdiff follows the item writes into a dict or list f makes itself while "
                f"the code reads it only by item ({base.id}[k], len({base.id}), k in "
                f"{base.id}) until its last write, outside loops over it",
                loc,
                f"write all the items first, then loop over {base.id} or pass it on; or make "
                f"a new one: {base.id} = [g(v) for v in {base.id}], {{**{base.id}, 'k': v}}",
            )
        if not self.aliasing.owns(base.id, self.writing):
            raise UnsupportedError(  # (d = d.copy() would not do: d's every value counts)
                f"writing into {base.id!r} would change an array the caller may still use "
                f"({base.id!r} may hold an argument, what a call returned, or a view or alias "
                "of one)",
                loc,
                f"write into a copy of it with a name of its own: new = {base.id}.copy() "
                f"(for a dict: dict({base.id}), for a list: list({base.id}))",
            )
        if (
            isinstance(target.slice, gast.Slice)
            and not self.forward_mode
            and self.aliasing.is_new_list(base.id)
        ):  # (list_changes.py rebinds xs[a:b] = vs as a new list where it can)
            raise UnsupportedError(
                f"replacing a slice of the list {base.id!r} here cannot be differentiated in "
                "reverse mode: srcdiff follows xs[a:b] = vs, of step one, by a new list",
                loc,
                f"make a new list of the items you want: {base.id} = [*{base.id}[:a], *vs, "
                f"*{base.id}[b:]], or [...] of each item",
            )
        atom = self.atom(value, loc, out) if active else self.rename(value)
        if not ir.is_simple(atom):
            held = self.names.fresh("_t")
            out.append(ir.Assign([held], atom, loc))
            atom = ir.name(held)
        index = self.held_index(target.slice, loc, out)
        out.append(ir.SetItem(self.versions.get(base.id, base.id), index, atom, loc))

    def unpack(self, target, value, active, loc, out):
        names = [e.id for e in target.elts]
        if isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(names):
            atoms, overwritten = [], {self.versions.get(n, n) for n in names}
            for element in value.elts:  # read everything before writing anything (a, b = b, a)
                atom = (
                    self.atom(element, loc, out)
                    if self._is_active(element)
                    else self.rename(element)
                )
                if isinstance(atom, gast.Name) and atom.id in overwritten:
                    held = self.names.fresh("_t")
                    if atom.id in self.active:
                        self.active.add(held)
                        self.emit_copy(held, atom, loc, out)
                    else:
                        out.append(ir.Assign([held], atom, loc))
                    atom = ir.name(held)
                atoms.append(atom)
            for n, atom in zip(names, atoms):
                if isinstance(atom, gast.Name) and atom.id in self.active:
                    self.emit_copy(self.store(n), atom, loc, out)
                else:
                    out.append(ir.Assign([self.store(n)], atom, loc))
            return
        if not active:
            value = self.kept_as_written(value, loc)
            out.append(ir.Assign([self.store(n) for n in names], value, loc, unpack=True))
            return
        if isinstance(value, gast.Call) and getattr(
            registry.find(self.p.resolve(value.func)), "multiple_outputs", False
        ):  # a, b = np.split(x, 2)
            record, forward, bound = self.call_parts(value, loc, out)
            out.append(
                ir.Assign([self.store(n) for n in names], forward, loc, record, bound, unpack=True)
            )
            return
        if isinstance(value, gast.Call) and self.activity.is_user_function(
            self.p.resolve(value.func)
        ):
            held = ir.name(
                self.user_call(
                    value, loc, out, None, outputs=tuple(n in self.active for n in names)
                )
            )
        else:  # an array or tuple-valued expression: keep Python's length check
            held = self.atom(value, loc, out)
            out.append(
                ir.Statement(
                    ir.expr_stmt(ir.call("runtime.check_unpack", held, ir.const(len(names)))), loc
                )
            )
        for k, n in enumerate(names):
            item = gast.Subscript(value=held, slice=ir.const(k), ctx=gast.Load())
            if n in self.active:
                self.active_value(item, loc, out, target=n)
            else:
                out.append(ir.Assign([self.store(n)], item, loc))

    def return_statement(self, stmt, loc, out):
        if stmt.value is None or not self._is_active(stmt.value):
            value = self.rename(stmt.value) if stmt.value is not None else ir.const(None)
            out.append(ir.Return(value, loc, active=False))
            return
        if isinstance(stmt.value, gast.Tuple):
            keep = self.outputs or [True] * len(stmt.value.elts)
            atom = gast.Tuple(
                elts=[self.atom(e, loc, out, active=k) for e, k in zip(stmt.value.elts, keep)],
                ctx=gast.Load(),
            )
        else:
            atom = self.atom(stmt.value, loc, out)
        out.append(ir.Return(atom, loc))

    def if_statement(self, stmt, loc, out):
        test = self.names.fresh("_cond")
        out.append(ir.Assign([test], self.truth(stmt.test), loc))
        self.depth += 1
        body, orelse = self.block(stmt.body), self.block(stmt.orelse)
        self.depth -= 1
        out.append(ir.If(test, body, orelse, loc))

    def truth(self, test):
        """What a branch's test names: the truth of a list the function changes in place
        (`if out:` reads bool(out)), not the list, whose truth a backward sweep reading the
        saved test would find changed."""
        renamed = self.rename(test)
        if isinstance(test, (gast.Compare, gast.UnaryOp)) or not (
            ir.names_in(test) & (self.stacks | self.changed_in_place | self.changeable)
        ):
            return renamed
        return ir.call("bool", renamed)


_LIST_CHANGES = {"append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse"}
# the nodes the normaliser and the in-place analyses it asks (truths.changeable_names,
# changed_later.changed_in_place_names) look at: calls, item and field reads and writes,
# what binds a name
_LOOKED_AT = frozenset(
    (gast.Call, gast.Subscript, gast.Attribute, gast.NamedExpr)
    + (gast.Assign, gast.AnnAssign, gast.AugAssign, gast.For, gast.comprehension)
)


def _as_load(target):
    node = ir.copy_tree(target)
    for n in ir.walk(node):
        if hasattr(n, "ctx"):
            n.ctx = gast.Load()
    return node


def _refuse_target(target, loc):
    """The error for an assignment to what srcdiff does not write: an object's attribute
    (as a layer keeping its input for a hand-written backward pass does), or another form."""
    if isinstance(target, gast.Attribute):
        raise UnsupportedError(
            f"assignment to {gast.unparse(target)!r} sets an attribute of an object: srcdiff "
            "reads objects' fields in the function it differentiates, but does not follow a "
            "change to them",
            loc,
            "if the line keeps a value for a hand-written backward pass (self.cache = x), "
            "delete it: srcdiff's gradient needs none; else keep the value in a local name and "
            "return it, or pass it to the object's class when making one",
        )
    raise UnsupportedError(
        f"assignment to {gast.unparse(target)!r} is not supported", loc, "assign to plain names"
    )
