"""Stage 2: activity analysis and normalisation to ANF (`ir` statements).

Nested differentiable expressions are flattened into one operation per statement
(`np.sum(np.exp(x) * y)` becomes `_t0 = np.exp(x); _t1 = _t0 * y; ...`). Expressions that
carry no gradient (shapes, comparisons, constants) stay inline. In straight-line code at the
top of the function a reassigned variable gets a versioned name (`x`, `x_1`), so the reverse
sweep can read every value it needs without saving it.
"""
import copy
import inspect
import operator

import gast
import numpy as np

from . import ir, runtime
from .desugar import desugar
from .errors import NoAdjointError, SrcdiffError, UnsupportedError
from .parse import MISSING, ParsedFunction, spelling
from .passes.liveness import live_before
from .primitives import registry
from .primitives.shape import as_list, as_tuple, c_, copy_value, r_

# expressions with a scope of their own
_SCOPES = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)

_UNSUPPORTED = {
    gast.Try: ("try/except", "handle errors outside the differentiated function"),
    gast.With: ("with blocks", "move the context manager outside the differentiated function"),
    gast.Global: ("global statements", "pass the value in as an argument"),
    gast.Nonlocal: ("nonlocal statements", "pass the value in as an argument"),
    gast.FunctionDef: ("nested function definitions", "define helpers at module level"),
    gast.AsyncFunctionDef: ("nested function definitions", "define helpers at module level"),
    gast.ClassDef: ("class definitions", "define classes at module level"),
    gast.Import: ("imports inside the function", "import at module level"),
    gast.ImportFrom: ("imports inside the function", "import at module level"),
}


def _push(stmt):
    """Whether `stmt` is `name.append(value)`."""
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Attribute) and stmt.value.func.attr == "append"
            and isinstance(stmt.value.func.value, gast.Name) and len(stmt.value.args) == 1
            and not stmt.value.keywords)


def _pop(value):
    """Whether `value` is `name.pop()`."""
    return (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute)
            and value.func.attr == "pop" and isinstance(value.func.value, gast.Name)
            and not value.args and not value.keywords)


def _nondifferentiable(obj):
    record = registry.find(obj)
    return record is not None and not record.differentiable


def _is(record, fact):
    """Whether a primitive's record (None for no primitive) has a fact, say "view"."""
    return record is not None and getattr(record, fact)


def _nondifferentiable_member(table, name):
    """Whether ndarray method or attribute `name` gives a constant (x.argmax(), x.shape)."""
    record = table(name)
    return record is not None and not record.differentiable


_analysing = set()  # functions whose returned items are being worked out (for recursion)


def _returned_items_varied(fn, wrt, varied_items):
    """Which items of the tuple that `fn` returns on its last line vary with its positional
    arguments at `wrt`, or None if it returns no tuple display there (or only there)."""
    try:
        parsed = ParsedFunction(fn)
    except SrcdiffError:
        return None
    node = parsed.node
    params = [a.id for a in node.args.posonlyargs + node.args.args]
    last = node.body[-1] if node.body else None
    if not (isinstance(last, gast.Return) and isinstance(last.value, gast.Tuple)) or \
            any(isinstance(n, gast.Return) for n in gast.walk(node) if n is not last):
        return None
    _analysing.add(fn)
    try:
        analysis = Normalizer(parsed, [params[i] for i in wrt if i < len(params)],
                              varied_items=varied_items)
    finally:
        _analysing.discard(fn)
    return tuple(map(analysis._is_active, last.value.elts))


class Normalizer:
    """Normalises one function. `derive_callee(fn, wrt, names, outputs, loc)` differentiates a
    user function it calls, under the names it chooses; `callees` records each for the cache.
    `outputs` marks the items of a returned tuple that are differentiated (None: all)."""

    def __init__(self, parsed, wrt_names, derive_callee=None, outputs=None, forward_mode=False,
                 varied_items=None):
        self.p = parsed
        self.forward_mode = forward_mode
        # a callee becomes jvp_g (forward mode) or the pair fwd_g / bwd_g (reverse mode)
        self.callee_prefixes = ("jvp",) if forward_mode else ("fwd", "bwd")
        self.derive_callee = derive_callee
        self.callees = []
        node = parsed.node
        self.params = [a.id for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]
        self.used = {n.id for n in gast.walk(node) if isinstance(n, gast.Name)} | set(self.params)
        self.counters = {}
        desugar(node, self.fresh)
        self.outputs = outputs
        # (user function, active positions) -> _varied_items, shared by one transform's
        # Normalizers (and dropped after it: a rebound global may change the answer)
        self.varied_items = {} if varied_items is None else varied_items
        self.varied = self._activity(set(wrt_names))
        while self._unroll_comprehensions(node.body):  # (then one nested in those)
            self.varied = self._activity(set(wrt_names))
        self.active = self.varied & self._usefulness(outputs)
        self._live_after = self._sharing = None  # for _check_in_place, made when first needed
        # the lists this function uses with append or pop, and those it pops from
        self.stacks = {n.func.value.id for n in gast.walk(node)
                       if isinstance(n, gast.Call) and (_pop(n) or _push(gast.Expr(value=n)))}
        self.popped = {n.func.value.id for n in gast.walk(node) if _pop(n)}
        self.changed_in_place = {n.func.value.id for n in gast.walk(node) if isinstance(
            n, gast.Call) and isinstance(n.func, gast.Attribute) and isinstance(
                n.func.value, gast.Name) and n.func.attr in _LIST_CHANGES}
        # name -> (its list or tuple display, the block it was made in), while it holds
        self.displays = {}
        self.versions = {p: p for p in self.params}
        self.depth = 0

    # --- activity -------------------------------------------------------------------------

    def _activity(self, active):
        """Names that may carry a gradient (flow-insensitive, to a fixed point)."""
        while True:
            before = len(active)
            for stmt in gast.walk(self.p.node):
                if isinstance(stmt, gast.Assign) and self._is_active(stmt.value, active):
                    varied = self._varied_items(stmt.value, active)
                    for target in stmt.targets:
                        if isinstance(target, gast.Tuple) and varied is not None and \
                                len(target.elts) == len(varied):
                            for item, item_varied in zip(target.elts, varied):
                                if item_varied:
                                    active |= _target_names(item)
                        else:
                            active |= _target_names(target)
                elif isinstance(stmt, gast.AugAssign) and self._is_active(stmt.value, active):
                    active |= _target_names(stmt.target)
                elif isinstance(stmt, gast.For):
                    for target, source in _loop_pairs(stmt) or []:  # None: for_statement says
                        if source is not None and self._is_active(source, active):
                            active |= _target_names(target)
                elif _push(stmt) and self._is_active(stmt.value.args[0], active):
                    active.add(stmt.value.func.value.id)
            if len(active) == before:
                return active

    def _unroll_comprehensions(self, body):
        """A list comprehension or generator over differentiated values becomes a loop that
        appends, ahead of its statement (`[f(r) for r in x]` -> `_items0 = []`,
        `for _r0 in x: _items0.append(f(_r0))`): a list built with append, which np.stack,
        np.array, sum and the like take. Whether any was."""
        changed = False
        out = []
        for stmt in body:
            for block in ("body", "orelse"):
                if isinstance(stmt, (gast.If, gast.For, gast.While)):
                    changed |= self._unroll_comprehensions(getattr(stmt, block))
            if isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Return, gast.Expr)):
                found = [n for n in gast.walk(stmt) if isinstance(n, (
                    gast.ListComp, gast.GeneratorExp)) and self._is_active(n, self.varied)]
                inner = {id(m) for n in found for m in gast.walk(n) if m is not n}
                for comp in (n for n in found if id(n) not in inner):
                    whole = isinstance(comp, gast.ListComp) and isinstance(stmt, gast.Assign) \
                        and stmt.value is comp and len(stmt.targets) == 1 and \
                        isinstance(stmt.targets[0], gast.Name)
                    # hs = [f(r) for r in x] builds hs itself
                    items = stmt.targets[0].id if whole else self.fresh("_items")
                    loop = self._comprehension_loop(comp, items)
                    for new in loop:
                        for n in gast.walk(new):
                            n.lineno = getattr(n, "lineno", None) or stmt.lineno
                    out.extend(loop)
                    _Replace(comp, ir.name(items)).visit(stmt)
                    changed = True
                    if whole:
                        break
                else:
                    out.append(stmt)
                continue
            out.append(stmt)
        body[:] = out
        return changed

    def _comprehension_loop(self, comp, items):
        """The statements building list `items` as comprehension `comp` would (its loop
        names made fresh: they are the comprehension's own)."""
        names = {n.id: self.fresh("_" + n.id.lstrip("_")) for g in comp.generators
                 for n in gast.walk(g.target) if isinstance(n, gast.Name)}
        rename = _Rename(names)
        statements = [ir.expr_stmt(ir.call(ir.attr(items, "append"),
                                           rename.visit(copy.deepcopy(comp.elt))))]
        for k, generator in reversed(list(enumerate(comp.generators))):
            for condition in reversed(generator.ifs):
                statements = [gast.If(test=rename.visit(copy.deepcopy(condition)),
                                      body=statements, orelse=[])]
            source = copy.deepcopy(generator.iter)  # the first reads the enclosing scope
            statements = [gast.For(target=rename.visit(copy.deepcopy(generator.target)),
                                   iter=rename.visit(source) if k else source,
                                   body=statements, orelse=[], type_comment=None)]
        return [ir.assign(items, gast.List(elts=[], ctx=gast.Load()))] + statements

    def _varied_items(self, value, active):
        """For a call of a user function that returns a tuple display, which of its items
        may vary with the arguments that are active (say, not `x.shape[0]`); else None."""
        if not isinstance(value, gast.Call) or value.keywords or any(
                isinstance(a, gast.Starred) for a in value.args):
            return None
        fn = self.p.resolve(value.func)
        if not self._is_user_function(fn):
            return None
        wrt = tuple(i for i, a in enumerate(value.args) if self._is_active(a, active))
        if (fn, wrt) not in self.varied_items:
            self.varied_items[fn, wrt] = None if fn in _analysing else \
                _returned_items_varied(fn, wrt, self.varied_items)
        return self.varied_items[fn, wrt]

    def _usefulness(self, outputs):
        """Names whose value can reach the differentiated output: of a returned tuple, only
        the items `outputs` marks (flow-insensitive, backwards to a fixed point)."""
        ret = self.p.node.body[-1] if self.p.node.body else None
        if not isinstance(ret, gast.Return) or ret.value is None:
            return set()
        value = ret.value
        if isinstance(value, gast.Tuple) and outputs is not None:
            useful = set().union(*(ir.names_in(e) for e, keep in zip(value.elts, outputs)
                                   if keep))
        else:
            useful = ir.names_in(value)
        while True:
            before = len(useful)
            for stmt in gast.walk(self.p.node):
                if isinstance(stmt, gast.Assign):
                    pairs = [(t, stmt.value) for t in stmt.targets]
                    if len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Tuple) and \
                            isinstance(stmt.value, gast.Tuple) and \
                            len(stmt.targets[0].elts) == len(stmt.value.elts):
                        pairs = list(zip(stmt.targets[0].elts, stmt.value.elts))
                    for target, source in pairs:
                        if _target_names(target) & useful:
                            useful |= ir.names_in(source)
                elif isinstance(stmt, gast.AugAssign) and _target_names(stmt.target) & useful:
                    useful |= ir.names_in(stmt.value)
                elif isinstance(stmt, gast.For):
                    for target, source in _loop_pairs(stmt) or []:
                        if source is not None and _target_names(target) & useful:
                            useful |= ir.names_in(source)
                elif _push(stmt) and stmt.value.func.value.id in useful:
                    useful |= ir.names_in(stmt.value.args[0])
            if len(useful) == before:
                return useful

    def _is_active(self, node, active=None):
        active = self.active if active is None else active
        act = lambda n: self._is_active(n, active)  # noqa: E731
        if isinstance(node, gast.Name):
            return node.id in active
        if isinstance(node, (gast.Constant, gast.Compare, gast.JoinedStr)):
            return False
        if isinstance(node, _SCOPES):  # what it reads from outside makes it varied too
            return any(isinstance(n, gast.Name) and n.id in active for n in gast.walk(node))
        if isinstance(node, gast.UnaryOp):
            return not isinstance(node.op, (gast.Not, gast.Invert)) and act(node.operand)
        if isinstance(node, gast.Attribute):
            return not _nondifferentiable_member(registry.attribute, node.attr) and \
                act(node.value)
        if isinstance(node, gast.Subscript):  # (np.r_[x, y] or an index of a varied value)
            return act(node.value) or act(node.slice)
        if isinstance(node, gast.Call):
            obj = self.p.resolve(node.func)
            operands = list(node.args) + [k.value for k in node.keywords]
            if obj is MISSING and isinstance(node.func, gast.Attribute):
                if _nondifferentiable_member(registry.method, node.func.attr):
                    return False
                operands.append(node.func.value)
            elif obj is MISSING:  # a local function: varied if it closes over varied values
                operands.append(node.func)
            elif _nondifferentiable(obj):
                return False
            return any(act(a) for a in operands)
        return any(act(child) for child in gast.iter_child_nodes(node))

    def _rules(self, record):
        """The record's template for this mode (tangent or adjoint), or None."""
        return record.template(self.forward_mode) if record is not None else None

    def _is_user_function(self, obj):
        """A Python function srcdiff differentiates through its source (not a runtime
        helper of emitted code: those need a template)."""
        return inspect.isfunction(obj) and self._rules(registry.find(obj)) is None and \
            not _nondifferentiable(obj) and not runtime.is_helper(obj)

    # --- names ----------------------------------------------------------------------------

    def fresh(self, prefix):
        while True:
            n = self.counters.get(prefix, 0)
            self.counters[prefix] = n + 1
            candidate = f"{prefix}{n}"
            if candidate not in self.used:
                self.used.add(candidate)
                return candidate

    def store(self, original):
        """The name an assignment to `original` writes (a new version in straight-line code)."""
        current = self.versions.get(original)
        if current is not None and self.depth == 0:
            n = 1
            while f"{original}_{n}" in self.used:
                n += 1
            current = f"{original}_{n}"
            self.used.add(current)
        current = current or original
        self.versions[original] = current
        if original in self.active:
            self.active.add(current)
        self.displays = {name: held for name, held in self.displays.items()
                         if current != name and current not in ir.names_in(held[0])}
        return current

    def rename(self, node):
        """A copy of an expression with every read name mapped to its current version, and
        numpy functions spelled through `np` (so emitted code needs no other import)."""
        node = copy.deepcopy(node)
        for n in gast.walk(node):
            if isinstance(n, gast.Call):
                spelled = spelling(self.p.resolve(n.func))
                if spelled and spelled.startswith("np."):
                    n.func = ir.attr(*spelled.split("."))
        for n in gast.walk(node):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                n.id = self.versions.get(n.id, n.id)
        return node

    # --- statements -----------------------------------------------------------------------

    def run(self):
        body = self.block(self.p.node.body, top=True)
        return ir.Function(self.p.node.name, self.p.node.args, body, self.params, self.active)

    def block(self, stmts, top=False):
        out = []
        for i, stmt in enumerate(stmts):
            if top and i == 0 and isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant):
                continue  # docstring
            self.statement(stmt, out)
        return out

    def statement(self, stmt, out):
        loc = self.p.location(stmt)
        kind = type(stmt)
        if kind in _UNSUPPORTED:
            what, hint = _UNSUPPORTED[kind]
            raise UnsupportedError(f"{what} cannot be differentiated", loc, hint)
        header = {gast.If: "test", gast.While: "test", gast.For: "iter"}.get(kind)
        for node in gast.walk(getattr(stmt, header) if header else stmt):  # not nested lines
            if isinstance(node, gast.NamedExpr) and self._is_active(node.value, self.varied):
                raise UnsupportedError("an assignment expression (:=) of a differentiated value "
                                       "cannot be differentiated", loc,
                                       f"assign {gast.unparse(node.target)} on a line of its "
                                       "own first")
        if isinstance(stmt, (gast.Assign, gast.AugAssign)):
            self._check_in_place(stmt, loc, out)
        if isinstance(stmt, gast.Assign):
            self.assign_statement(stmt, loc, out)
        elif isinstance(stmt, gast.AugAssign):
            value = gast.BinOp(left=_as_load(stmt.target), op=stmt.op, right=stmt.value)
            self.assign_statement(gast.Assign(targets=[stmt.target], value=value,
                                              type_comment=None), loc, out)
        elif isinstance(stmt, gast.AnnAssign) and stmt.value is not None:
            self.assign_statement(gast.Assign(targets=[stmt.target], value=stmt.value,
                                              type_comment=None), loc, out)
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
        elif isinstance(stmt, (gast.Pass, gast.Delete)):
            pass  # del only frees memory (emitted backward functions use it)
        elif isinstance(stmt, (gast.Assert, gast.Raise)):
            out.append(ir.Statement(self.rename(stmt), loc))
        elif isinstance(stmt, gast.Expr):
            if isinstance(stmt.value, (gast.Yield, gast.YieldFrom, gast.Await)):
                raise UnsupportedError("generators and coroutines cannot be differentiated", loc,
                                       "return an array instead of yielding values")
            if isinstance(stmt.value, gast.Constant):
                return
            if _push(stmt) and stmt.value.func.value.id in self.active:
                stack = self.versions.get(stmt.value.func.value.id, stmt.value.func.value.id)
                out.append(ir.Push(stack, self.atom(stmt.value.args[0], loc, out), loc))
                return
            if self._releases(stmt):
                return  # like del: only frees memory (emitted backward functions do it)
            value = stmt.value
            if isinstance(value, gast.Call) and any(k.arg == "out" for k in value.keywords) \
                    and self._is_active(value, self.varied):
                raise UnsupportedError(
                    f"{gast.unparse(value.func)}(..., out=...) writes its result into an array "
                    "in place, which srcdiff cannot follow", loc,
                    "assign the result instead: y = np.multiply(x, 2.0)")
            if self._is_active(stmt.value, self.varied):  # (np.copyto(y, x): y may be useful)
                raise UnsupportedError(
                    "a bare expression on a differentiated value has no effect on the result "
                    "or mutates it in place, which srcdiff cannot differentiate", loc,
                    "assign the result to a variable")
            out.append(ir.Statement(self.rename(stmt), loc))
        else:
            raise UnsupportedError(f"{kind.__name__} statements cannot be differentiated", loc)

    def _releases(self, stmt):
        """Whether `stmt` is `saved.clear()` of a list that the function reads only once
        elsewhere, to unpack it: what an emitted backward function does with its saved
        values, freeing them early."""
        call = stmt.value
        if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and
                call.func.attr == "clear" and isinstance(call.func.value, gast.Name) and
                not call.args and not call.keywords):
            return False
        name = call.func.value.id
        loads = [n for n in gast.walk(self.p.node) if isinstance(n, gast.Name) and
                 n.id == name and isinstance(n.ctx, gast.Load)]
        unpacks = [n for n in gast.walk(self.p.node) if isinstance(n, gast.Assign) and
                   isinstance(n.value, gast.Name) and n.value.id == name and
                   isinstance(n.targets[0], (gast.Tuple, gast.List))]
        return len(loads) == 2 and len(unpacks) == 1

    def assign_statement(self, stmt, loc, out):
        if len(stmt.targets) > 1:  # a = b = value
            first = stmt.targets[0]
            self.assign_statement(gast.Assign(targets=[first], value=stmt.value,
                                              type_comment=None), loc, out)
            for other in stmt.targets[1:]:
                self.assign_statement(gast.Assign(targets=[other], value=_as_load(first),
                                                  type_comment=None), loc, out)
            return
        target, value = stmt.targets[0], stmt.value
        active = self._is_active(value) and bool(_target_names(target) & self.active)
        if isinstance(target, gast.Name):
            if not active:
                value = self.rename(value)
                out.append(ir.Assign([self.store(target.id)], value, loc))
                return
            if _pop(value):
                stack = self.versions.get(value.func.value.id, value.func.value.id)
                out.append(ir.Pop(self.store(target.id), stack, loc))
                return
            self.active_value(value, loc, out, target=target.id)
        elif isinstance(target, (gast.Tuple, gast.List)) and all(
                isinstance(e, gast.Name) for e in target.elts):
            self.unpack(target, value, active, loc, out)
        elif isinstance(target, gast.Subscript):
            if _pop(value) and active:  # y[i] = stack.pop(), as emitted gradients restore y
                held = self.fresh("_t")
                self.active.add(held)
                stack = self.versions.get(value.func.value.id, value.func.value.id)
                out.append(ir.Pop(held, stack, loc))
                value = ir.name(held)
            if self._is_active(target.value) or active:
                self.set_item(target, value, active, loc, out)
                return
            out.append(ir.Statement(self.rename(gast.Assign(targets=[target], value=value,
                                                            type_comment=None)), loc))
        else:
            raise UnsupportedError(f"assignment to {gast.unparse(target)!r} is not supported",
                                   loc, "assign to plain names")

    def set_item(self, target, value, active, loc, out):
        base = target.value
        if not isinstance(base, gast.Name):
            raise UnsupportedError("only writes into a named array (y[i] = v) can be "
                                   "differentiated", loc, "give the array a name first")
        if base.id not in self.params and any(
                isinstance(n, gast.Assign) and isinstance(n.value, (gast.Dict, gast.List))
                and base.id in _target_names(n.targets[0]) for n in gast.walk(self.p.node)):
            raise UnsupportedError(
                f"writing into the dict or list {base.id!r} cannot be differentiated yet", loc,
                "keep the values in names of their own, or build the container once, "
                "with every value in its display")
        if not self._owns(base.id):
            raise UnsupportedError(
                f"writing into {base.id!r} would change an array the caller may still use "
                f"({base.id!r} is an argument, or a view or alias of one)", loc,
                f"write into a fresh array instead: {base.id} = {base.id}.copy() first, or "
                "np.zeros(...)")
        atom = self.atom(value, loc, out) if active else self.rename(value)
        if not _is_simple(atom):
            held = self.fresh("_t")
            out.append(ir.Assign([held], atom, loc))
            atom = ir.name(held)
        index = self.rename(target.slice)
        if not _is_simple(index):
            held = self.fresh("_idx")
            out.append(ir.Assign([held], ir.index_value(index), loc))
            index = ir.name(held)
        out.append(ir.SetItem(self.versions.get(base.id, base.id), index, atom, loc))

    def _check_in_place(self, stmt, loc, out):
        """A write into an array (`z[i] = v`, `z[i] += v`, `z += v`) changes every name that
        shares its memory, and srcdiff's values do not follow it: refuse one while a name
        sharing z's memory (w = z, w = z[1:], w = z.T, ...) is still to be read."""
        target = stmt.target if isinstance(stmt, gast.AugAssign) else stmt.targets[0]
        if isinstance(stmt, gast.Assign) and (
                len(stmt.targets) > 1 or not isinstance(target, gast.Subscript)):
            return  # a name bound anew: nothing is written
        into = target.value if isinstance(target, gast.Subscript) else target
        if not isinstance(into, gast.Name):
            return
        if isinstance(target, gast.Subscript) and not (
                self._is_active(stmt.value, self.varied) or into.id in self.active):
            return  # nothing differentiated is written: the emitted code writes it as it is
        if self._sharing is None:
            self._sharing = self._memory_sharing(rows=False), self._memory_sharing(rows=True)
            self._live_after = {}
            live_before(self.p.node.body, set(), None, after=self._live_after)
        live = self._live_after.get(id(stmt), set())
        shared = sorted((self._sharing[0].get(into.id, set()) - {into.id}) & live)
        others = " and ".join(map(repr, shared))
        version = ir.name(self.versions.get(into.id, into.id))
        where = [ir.const(loc.filename), ir.const(loc.lineno)]
        if isinstance(target, gast.Subscript) and shared:
            raise UnsupportedError(
                f"writing into {into.id!r} changes {others} too (they share memory), which "
                f"is read afterwards: srcdiff cannot follow that change", loc,
                f"copy before writing ({into.id} = {into.id}.copy()), or give the view "
                "a fresh array of its own")
        if isinstance(target, gast.Subscript):
            # w = z[i] is a row of z, or a number: only the call can tell (for a w bound here)
            rows = sorted((self._sharing[1].get(into.id, set()) - {into.id}) & live
                          & self._bound_before(stmt))
            if rows:
                views = gast.Tuple(elts=[ir.name(self.versions.get(n, n)) for n in rows],
                                   ctx=gast.Load())
                out.append(ir.Statement(ir.expr_stmt(ir.call(
                    "runtime.check_unviewed", version, ir.index_value(self.rename(
                        target.slice)), views, ir.const(into.id),
                    ir.const(" and ".join(map(repr, rows))), *where)), loc))
        elif shared:  # `z += v` rebinds a float, but changes an array in place: the call tells
            out.append(ir.Statement(ir.expr_stmt(ir.call(
                "runtime.check_not_shared", version, ir.const(into.id), ir.const(others),
                *where)), loc))

    def _bound_before(self, target):
        """The names surely bound when statement `target` runs: the parameters, what the
        assignments before it in its block and in the blocks around it bind, and the
        targets of the loops around it."""
        def search(body, bound):
            for stmt in body:
                if stmt is target:
                    return bound
                if isinstance(stmt, (gast.If, gast.For, gast.While)):
                    inner = bound | (ir.names_in(stmt.target, gast.Store)
                                     if isinstance(stmt, gast.For) else set())
                    for block in (stmt.body, stmt.orelse):
                        found = search(block, inner)
                        if found is not None:
                            return found
                elif isinstance(stmt, gast.Assign):
                    bound = bound | {n for t in stmt.targets
                                     for n in ir.names_in(t, gast.Store)}
            return None

        return search(self.p.node.body, set(self.params)) or set()

    def _memory_sharing(self, rows):
        """name -> the names that may share its memory: one bound to the other, to a view of
        it, or to a row of it in a for loop, and so on transitively (whatever the version);
        with `rows`, also to x[i] or x[idx] (a row of a matrix, or a number, or a copy)."""
        group = {}

        def find(name):
            while group.get(name, name) != name:
                name = group[name]
            return name

        def pair(target, value):
            if isinstance(target, gast.Name):
                for source in self._viewed(value, rows):
                    group[find(target.id)] = find(source)
            elif isinstance(target, (gast.Tuple, gast.List)):
                if isinstance(value, (gast.Tuple, gast.List)) and \
                        len(target.elts) == len(value.elts):
                    for t, v in zip(target.elts, value.elts):
                        pair(t, v)
                else:  # a, b = held: each may be any item of it
                    for t in target.elts:
                        pair(t, value)

        for node in gast.walk(self.p.node):
            if isinstance(node, gast.Assign):
                for target in node.targets:
                    pair(target, node.value)
            elif isinstance(node, gast.For):
                pair(node.target, node.iter)
        members = {}
        for name in list(group):
            members.setdefault(find(name), set()).add(name)
        return {name: members[root] | {root} for root in members
                for name in members[root] | {root}}

    def _viewed(self, value, rows=False):
        """The names whose memory `value` shares (x, x[1:], x.T, np.transpose(x), ...).
        x[i] or x[idx] only with `rows`: a number, or a copy, unless x has more dimensions
        than the index (a row of a matrix), which only the call can tell."""
        viewed = lambda v: self._viewed(v, rows)  # noqa: E731
        if isinstance(value, gast.Name):
            return {value.id}
        if isinstance(value, gast.Subscript):
            parts = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
            sliced = any(isinstance(p, gast.Slice) or isinstance(p, gast.Constant) and
                         p.value in (None, Ellipsis) for p in parts)
            return viewed(value.value) if sliced or rows else set()
        if isinstance(value, gast.Attribute) and _is(registry.attribute(value.attr), "view"):
            return viewed(value.value)
        if isinstance(value, gast.IfExp):
            return viewed(value.body) | viewed(value.orelse)
        if isinstance(value, (gast.List, gast.Tuple)):  # holds its items, not copies
            return set().union(*map(viewed, value.elts))
        if isinstance(value, gast.Call):
            func = value.func
            if isinstance(func, gast.Attribute) and self.p.resolve(func) is MISSING and \
                    _is(registry.method(func.attr), "view"):
                return viewed(func.value)
            if value.args and _is(registry.find(self.p.resolve(func)), "view"):
                return viewed(value.args[0])
        return set()

    def _owns(self, name):
        """Whether every value `name` is assigned is a fresh array, safe to write into."""
        if name in self.params:
            return False
        for stmt in gast.walk(self.p.node):
            if not isinstance(stmt, gast.Assign) or name not in {
                    t.id for t in stmt.targets if isinstance(t, gast.Name)}:
                continue
            value = stmt.value
            if isinstance(value, (gast.BinOp, gast.UnaryOp)):
                continue
            if isinstance(value, gast.Call):
                called = self.p.resolve(value.func)
                record = registry.method(value.func.attr) if called is MISSING and isinstance(
                    value.func, gast.Attribute) else registry.find(called)
                if _is(record, "fresh"):
                    continue
            return False
        return True

    def unpack(self, target, value, active, loc, out):
        names = [e.id for e in target.elts]
        if isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(names):
            atoms, overwritten = [], {self.versions.get(n, n) for n in names}
            for element in value.elts:  # read everything before writing anything (a, b = b, a)
                atom = self.atom(element, loc, out) if self._is_active(element) \
                    else self.rename(element)
                if isinstance(atom, gast.Name) and atom.id in overwritten:
                    held = self.fresh("_t")
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
            value = self.rename(value)
            out.append(ir.Assign([self.store(n) for n in names], value, loc, unpack=True))
            return
        if isinstance(value, gast.Call) and self.p.resolve(value.func) is np.split:
            record, forward, bound = self.call_parts(value, loc, out)
            out.append(ir.Assign([self.store(n) for n in names], forward, loc, record,
                                 bound, unpack=True))
            return
        if isinstance(value, gast.Call) and self._is_user_function(self.p.resolve(value.func)):
            held = ir.name(self.user_call(value, loc, out, None,
                                          outputs=tuple(n in self.active for n in names)))
        else:  # an array or tuple-valued expression: keep Python's length check
            held = self.atom(value, loc, out)
            out.append(ir.Statement(ir.expr_stmt(ir.call("runtime.check_unpack", held,
                                                         ir.const(len(names)))), loc))
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
            atom = gast.Tuple(elts=[self.atom(e, loc, out, active=k)
                                    for e, k in zip(stmt.value.elts, keep)], ctx=gast.Load())
        else:
            atom = self.atom(stmt.value, loc, out)
        out.append(ir.Return(atom, loc))

    def if_statement(self, stmt, loc, out):
        test = self.fresh("_cond")
        out.append(ir.Assign([test], self.rename(stmt.test), loc))
        self.depth += 1
        body, orelse = self.block(stmt.body), self.block(stmt.orelse)
        self.depth -= 1
        out.append(ir.If(test, body, orelse, loc))

    def for_statement(self, stmt, loc, out):
        if stmt.orelse:
            raise UnsupportedError("for ... else is not supported", loc, "use a flag variable")
        it = stmt.iter
        if isinstance(it, gast.Call) and len(it.args) == 1 and not it.keywords and \
                self.p.resolve(it.func) is reversed and self._is_active(it.args[0]):
            # reversed(seq) of differentiated items: seq[::-1], which has an adjoint
            stmt.iter = gast.Subscript(value=it.args[0], slice=gast.Slice(
                lower=None, upper=None, step=ir.const(-1)), ctx=gast.Load())
        pairs = _loop_pairs(stmt)
        self.depth += 1
        prologue = []
        if pairs is None:
            raise UnsupportedError("this loop target cannot be differentiated", loc,
                                   "loop over range(...), an array, zip(...) or enumerate(...)")
        iterated = [source for _, source in pairs if source is not None]
        is_range = (isinstance(stmt.iter, gast.Call) and self.p.resolve(stmt.iter.func) is range)
        assigned_in_body = {n for s in stmt.body for n in _stored(s)}
        if is_range and len(pairs) == 1 and isinstance(stmt.target, gast.Name):
            iterable = self.rename(stmt.iter)
            if ir.names_in(stmt.iter) & assigned_in_body:
                self.depth -= 1
                held = self.fresh("_range")
                out.append(ir.Assign([held], iterable, loc))
                self.depth += 1
                iterable = ir.name(held)
            target = self.store(stmt.target.id)
        elif len(pairs) == 1 and not self._is_active(stmt.iter) and self.forward_mode:
            # forward mode goes through the loop once, as f does: no copy to run it backwards
            iterable, target = self.rename(stmt.iter), self.store(stmt.target.id)
        elif len(pairs) == 1 and not self._is_active(stmt.iter):
            self.depth -= 1
            held = self.fresh("_seq")
            out.append(ir.Assign([held], ir.call("list", self.rename(stmt.iter)), loc))
            self.depth += 1
            iterable, target = ir.name(held), self.store(stmt.target.id)
        else:
            self.depth -= 1
            sources = []
            for source in iterated:
                atom = self.atom(source, loc, out) if self._is_active(source) \
                    else self.rename(source)
                if not isinstance(atom, gast.Name):
                    held = self.fresh("_seq")
                    out.append(ir.Assign([held], atom, loc))
                    atom = ir.name(held)
                sources.append(atom)
            start = stmt.iter.args[1] if pairs[0][1] is None and len(stmt.iter.args) == 2 \
                else None  # enumerate(seq, start)
            if start is not None:
                start = self.rename(start)
                if not _is_simple(start):
                    held = self.fresh("_start")
                    out.append(ir.Assign([held], start, loc))
                    start = ir.name(held)
            self.depth += 1
            lengths = [ir.call("len", s) for s in sources]
            length = lengths[0] if len(lengths) == 1 else ir.call("min", *lengths)
            iterable = ir.call("range", length) if start is None else ir.call(
                "range", start, gast.BinOp(left=start, op=gast.Add(), right=length))
            index_target = next((t for t, s in pairs if s is None), None)
            target = self.store(index_target.id) if index_target is not None else self.fresh("_i")
            position = ir.name(target) if start is None else gast.BinOp(
                left=ir.name(target), op=gast.Sub(), right=copy.deepcopy(start))
            sources = iter(sources)
            for element, source in pairs:
                if source is None:
                    continue
                seq = next(sources)
                element_value = gast.Subscript(value=seq, slice=copy.deepcopy(position),
                                               ctx=gast.Load())
                self.assign_statement(gast.Assign(targets=[element], value=element_value,
                                                  type_comment=None), loc, prologue)
        body = prologue + self.block(stmt.body)
        self.depth -= 1
        counter = self.fresh("_n") if getattr(stmt, "exits", False) else None
        out.append(ir.For(target, iterable, body, loc, counter))

    def while_statement(self, stmt, loc, out):
        if stmt.orelse:
            raise UnsupportedError("while ... else is not supported", loc, "use a flag variable")
        self.depth += 1
        test = self.rename(stmt.test)
        body = self.block(stmt.body)
        self.depth -= 1
        out.append(ir.While(test, body, loc, self.fresh("_n")))

    # --- expressions ----------------------------------------------------------------------

    def emit_copy(self, target, source, loc, out):
        record = registry.find(copy_value)
        out.append(ir.Assign([target], source, loc, record,
                             self._rules(record).bind([source], {})))

    def atom(self, node, loc, out, active=True):
        """A name or inactive expression with the value of `node`, emitting statements for it;
        `active=False` treats `node` as carrying no gradient whatever it reads."""
        if not active or not self._is_active(node):
            node = self.rename(node)
            if _is_simple(node):
                return node
            held = self.fresh("_t")
            out.append(ir.Assign([held], node, loc))
            return ir.name(held)
        if isinstance(node, gast.Name):
            return ir.name(self.versions.get(node.id, node.id))
        return ir.name(self.active_value(node, loc, out))

    def active_value(self, node, loc, out, target=None):
        """Emit the operation computing active `node` into `target` (or a temporary)."""
        if isinstance(node, gast.Name):
            source = self.atom(node, loc, out)
            name = self.store(target) if target else self.fresh("_t")
            self.active.add(name)
            self.emit_copy(name, source, loc, out)
            return name
        if isinstance(node, gast.BinOp):
            record = registry.operator(type(node.op))
            if self._rules(record) is None:
                raise NoAdjointError(f"the operator {_op_symbol(node.op)} has no gradient", loc,
                                     "rewrite it with differentiable operations")
            left, right = self.atom(node.left, loc, out), self.atom(node.right, loc, out)
            forward = gast.BinOp(left=left, op=node.op, right=right)
            bound = self._rules(record).bind([left, right], {})
        elif isinstance(node, gast.UnaryOp):
            operand = self.atom(node.operand, loc, out)
            if isinstance(node.op, gast.UAdd):
                forward, record = operand, registry.find(copy_value)
            else:
                forward, record = gast.UnaryOp(op=node.op, operand=operand), \
                    registry.find(np.negative)
            bound = self._rules(record).bind([operand], {})
        elif isinstance(node, gast.Call) and self._is_user_function(self.p.resolve(node.func)):
            return self.user_call(node, loc, out, target)
        elif isinstance(node, gast.Call):
            record, forward, bound = self.call_parts(node, loc, out)
        elif isinstance(node, gast.Attribute) and self._rules(registry.attribute(node.attr)):
            operand = self.atom(node.value, loc, out)  # x.T is np.transpose(x)
            forward = gast.Attribute(value=operand, attr=node.attr, ctx=gast.Load())
            record = registry.attribute(node.attr)
            bound = self._rules(record).bind([operand], {})
        elif isinstance(node, gast.Subscript) and not self._is_active(node.value):
            forward, record, bound = self.joined(node, loc, out)
        elif isinstance(node, gast.Subscript):
            if isinstance(node.value, gast.Name) and not self.forward_mode and \
                    node.value.id in self.popped:
                raise UnsupportedError(
                    f"{node.value.id!r} is popped from and read by index too: srcdiff cannot "
                    "differentiate both at once yet", loc,
                    "read the items by index only, or take them with pop only")
            value = self.atom(node.value, loc, out)
            index = self.rename(node.slice)
            if not _is_simple(index):
                held = self.fresh("_idx")
                out.append(ir.Assign([held], ir.index_value(index), loc))
                index = ir.name(held)
            forward = gast.Subscript(value=value, slice=index, ctx=gast.Load())
            record = registry.find(operator.getitem)
            bound = self._rules(record).bind([value, ir.index_value(index)], {})
        elif isinstance(node, gast.IfExp):  # a if c else b: an if statement into one name
            name = self.store(target) if target else self.fresh("_t")
            self.active.add(name)
            test = self.fresh("_cond")
            out.append(ir.Assign([test], self.rename(node.test), loc))
            self.depth += 1
            branches = []
            for branch in (node.body, node.orelse):
                block = []
                if self._is_active(branch):
                    self.emit_copy(name, self.atom(branch, loc, block), loc, block)
                else:
                    block.append(ir.Assign([name], self.rename(branch), loc))
                branches.append(block)
            self.depth -= 1
            out.append(ir.If(test, branches[0], branches[1], loc))
            return name
        elif isinstance(node, (gast.List, gast.Tuple)):
            forward = self.argument(node, loc, out)
            record = registry.find(as_list if isinstance(node, gast.List) else as_tuple)
            bound = self._rules(record).bind([forward], {})
        elif isinstance(node, gast.Dict):
            raise UnsupportedError("dicts of differentiated values are only supported as "
                                   "arguments", loc, "pass the values in a list or a tuple")
        elif isinstance(node, gast.BoolOp):  # `x or 1.0` is x or 1.0, by value
            raise UnsupportedError("`and`/`or` on differentiated values cannot be "
                                   "differentiated", loc, "write a conditional expression: "
                                   "`x if x else 1.0` for `x or 1.0`")
        elif isinstance(node, gast.Lambda):
            raise UnsupportedError("a lambda that reads a differentiated value cannot be "
                                   "differentiated", loc, "define the function at module level "
                                   "and pass the value to it as an argument")
        elif isinstance(node, _SCOPES):
            raise UnsupportedError("this comprehension over differentiated values cannot be "
                                   "differentiated (list comprehensions and generators can, in "
                                   "an assignment, a return or an expression statement)", loc,
                                   "build a list on a line of its own: items = [f(r) for r "
                                   "in x]")
        else:
            raise UnsupportedError(f"{type(node).__name__} expressions on differentiated values "
                                   "are not supported", loc)
        operands = ir.names_in(forward)
        name = self.store(target) if target else self.fresh("_t")
        self.active.add(name)
        if name in operands:  # x = x * y: write a temporary first, so both values stay readable
            held = self.fresh("_t")
            self.active.add(held)
            out.append(ir.Assign([held], forward, loc, record, bound))
            self.emit_copy(name, ir.name(held), loc, out)
        else:
            out.append(ir.Assign([name], forward, loc, record, bound))
            if isinstance(node, (gast.List, gast.Tuple)) and target not in self.changed_in_place:
                self.displays[name] = (forward, out)
        return name

    def joined(self, node, loc, out):
        """(forward, record, bound) of `np.r_[a, b]` or `np.c_[a, b]` (the only indexing
        of a constant by differentiated values that means something)."""
        joiner = self.p.resolve(node.value)
        items = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        if joiner is not np.r_ and joiner is not np.c_:
            raise UnsupportedError(f"{gast.unparse(node.value)} is indexed by a differentiated "
                                   "value, which has no derivative", loc,
                                   "index with an int (int(...), np.argmax(...)) or write the "
                                   "selection with np.where")
        if any(isinstance(i, gast.Slice) or isinstance(i, gast.Constant) and
               isinstance(i.value, str) for i in items):
            raise UnsupportedError(f"{gast.unparse(node.value)}[...] with ranges or directive "
                                   "strings cannot be differentiated", loc,
                                   "use np.concatenate, np.stack or np.arange explicitly")
        atoms = [self.atom(i, loc, out) for i in items]
        forward = gast.Subscript(value=ir.attr("np", "r_" if joiner is np.r_ else "c_"),
                                 slice=gast.Tuple(elts=atoms, ctx=gast.Load()), ctx=gast.Load())
        record = registry.find(r_ if joiner is np.r_ else c_)
        return forward, record, self._rules(record).bind(atoms, {})

    def user_call(self, node, loc, out, target, outputs=None):
        """`y = g(a, b)` for a Python function g: `y, _saved0 = fwd_g(a, b)`. `outputs` marks
        the items of a returned tuple the caller differentiates (None: all)."""
        fn = self.p.resolve(node.func)
        if any(isinstance(a, gast.Starred) for a in node.args) or any(
                k.arg is None for k in node.keywords):
            raise UnsupportedError("*args/**kwargs in a differentiated call are not supported",
                                   loc, "pass arguments one by one")
        args = [self.argument(a, loc, out) for a in node.args]
        keywords = {k.arg: self.argument(k.value, loc, out) for k in node.keywords}
        signature = inspect.signature(fn)
        try:
            bound = signature.bind(*args, **keywords).arguments
        except TypeError as exc:
            raise SrcdiffError(f"cannot call {gast.unparse(node.func)}: {exc}", loc) from None
        positional = [n for n, p in signature.parameters.items()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        def active(value):
            return isinstance(value, gast.Name) and value.id in self.active
        for n, value in bound.items():
            if n not in positional and active(value):
                raise UnsupportedError(f"{gast.unparse(node.func)} takes {n!r} as a keyword-only "
                                       "or variadic parameter, which srcdiff cannot "
                                       "differentiate", loc, "make it a positional parameter")
            if isinstance(value, (gast.List, gast.Tuple)) and any(active(e) for e in value.elts):
                raise UnsupportedError("lists of differentiated arrays cannot be passed to a "
                                       "user function yet", loc, "pass the arrays one by one")
        wrt = tuple(i for i, n in enumerate(positional) if n in bound and active(bound[n]))
        key = (fn, wrt, outputs)
        names = next((c["names"] for c in self.callees if c["key"] == key), None)
        if names is None:
            # named by what is differentiated, so one name means one variant everywhere
            base = "_".join([fn.__name__] + [positional[i] for i in wrt])
            if outputs is not None:
                base += "_out" + "".join(str(k) for k, keep in enumerate(outputs) if keep)
            taken = {n for c in self.callees for n in c["names"]}
            suffix, k = "", 2
            while f"{self.callee_prefixes[0]}_{base}{suffix}" in taken | self.used:
                suffix, k = f"_{k}", k + 1
            names = [f"{prefix}_{base}{suffix}" for prefix in self.callee_prefixes]
            self.derive_callee(fn, wrt, names, outputs, loc)
            self.callees.append({"key": key, "path": gast.unparse(node.func), "wrt": list(wrt),
                                 "names": names, "outputs": outputs})
        forward = gast.Call(func=ir.name(names[0]), args=args,
                            keywords=[gast.keyword(arg=k, value=v) for k, v in keywords.items()])
        name = self.store(target) if target else self.fresh("_t")
        self.active.add(name)
        saved = self.fresh("_saved")
        atoms = [bound[positional[i]] for i in wrt]
        out.append(ir.Assign([name, saved], forward, loc, unpack=True,
                             callee=ir.Callee(names[-1], atoms, saved)))
        return name

    def call_parts(self, node, loc, out):
        """(record, forward expression, bound arguments) for an active call."""
        func = node.func
        obj = self.p.resolve(func)
        if obj is MISSING and isinstance(func, gast.Attribute) and \
                self._rules(registry.method(func.attr)):
            return self.method_call(node, loc, out)
        if obj is MISSING:
            what = gast.unparse(func)
            raise NoAdjointError(f"cannot differentiate through {what}(...)", loc,
                                 f"srcdiff does not know what {what!r} is; call a numpy function "
                                 "or one with a registered adjoint")
        record = registry.find(obj)
        if obj in (max, min) and len(node.args) == 2 and not node.keywords:
            record = registry.find(np.maximum if obj is max else np.minimum)  # of two values
        if self._rules(record) is None:
            self._no_rule(obj, func, loc)
        if any(isinstance(a, gast.Starred) for a in node.args) or any(k.arg is None
                                                                    for k in node.keywords):
            raise UnsupportedError("*args/**kwargs in a differentiated call are not supported",
                                   loc, "pass arguments one by one")
        call_args = [self.argument(a, loc, out) for a in node.args]
        keywords = {k.arg: self.argument(k.value, loc, out) for k in node.keywords}
        spelled = spelling(obj)
        forward = gast.Call(func=ir.attr(*spelled.split(".")) if spelled else self.rename(func),
                            args=call_args,
                            keywords=[gast.keyword(arg=k, value=v) for k, v in keywords.items()])
        return record, forward, self.bind(record, call_args, keywords, node, loc, out, forward)

    def method_call(self, node, loc, out):
        """`x.sum(axis=1)`: the record of the method's numpy function, bound to x and the
        arguments (x.reshape(2, 3) to x and the shape (2, 3))."""
        func = node.func
        record = registry.method(func.attr)
        receiver = self.atom(func.value, loc, out)
        call_args = [self.argument(a, loc, out) for a in node.args]
        keywords = {k.arg: self.argument(k.value, loc, out) for k in node.keywords}
        forward = gast.Call(func=gast.Attribute(value=receiver, attr=func.attr, ctx=gast.Load()),
                            args=call_args,
                            keywords=[gast.keyword(arg=k, value=v) for k, v in keywords.items()])
        if record.vararg_method and len(call_args) > 1:
            call_args = [gast.Tuple(elts=call_args, ctx=gast.Load())]
        return record, forward, self.bind(record, [receiver] + call_args, keywords, node, loc,
                                          out, forward)

    def _no_rule(self, obj, func, loc):
        what = _qualified(obj)
        if runtime.is_helper(obj):
            raise NoAdjointError(f"{what} has no {'tangent' if self.forward_mode else 'adjoint'}"
                                 " template, so this higher-order derivative is not supported",
                                 loc, "differentiate once, or avoid the primitive whose "
                                 "gradient calls it")
        if obj is max or obj is min:
            raise NoAdjointError(f"srcdiff differentiates {what}(...) only as {what}(a, b)", loc,
                                 f"use np.{what}(x), or np.{what}imum(a, b)")
        raise NoAdjointError(f"no adjoint is registered for {what}", loc,
                             f"register one with @srcdiff.adjoint({_short(obj, func)}) (see the "
                             "README's custom adjoints section)")

    def argument(self, node, loc, out):
        if isinstance(node, (gast.List, gast.Tuple)) and self._is_active(node):
            return type(node)(elts=[self.atom(e, loc, out) for e in node.elts], ctx=gast.Load())
        return self.atom(node, loc, out)

    def bind(self, record, args, keywords, node, loc, out, forward):
        template = self._rules(record)
        try:
            bound = template.bind(args, keywords)
        except TypeError as exc:
            raise SrcdiffError(f"cannot match the arguments of {gast.unparse(node.func)}(...) to "
                               f"its adjoint: {exc}", loc) from None
        # (the adjoint's rules tell in both modes whether a parameter takes a sequence)
        adjoint = record.adjoint if _takes_array_likes(record.function) else None
        for param, rule in template.rules.items():
            value = bound.get(param)
            if adjoint is not None and param in adjoint.rules and \
                    adjoint.rules[param].index is None and \
                    isinstance(value, (gast.List, gast.Tuple)) and self._is_active(value):
                bound[param] = self._as_array(value, loc, out, forward)
            if rule.index is not None and value is not None and \
                    not isinstance(value, (gast.List, gast.Tuple)) and not (
                        isinstance(value, gast.Name) and value.id in self.stacks):
                display = self.displays.get(getattr(value, "id", None), (None, None))
                if display[1] is out:  # a list or tuple display made just before, unchanged
                    bound[param] = copy.deepcopy(display[0])
                elif record.function is sum and self._is_active(value):
                    raise UnsupportedError("sum(...) needs a list literal of arrays, a list or "
                                           "tuple display assigned in the same block, or a "
                                           "list built with append, to be differentiated",
                                           loc, "for an array's sum use np.sum(x)")
        for param, value in bound.items():
            if param not in template.rules and param not in template.constant and \
                    self._is_active(value):
                raise NoAdjointError(f"{gast.unparse(node.func)} has no gradient with respect "
                                     f"to its argument {param!r}", loc,
                                     f"make {param!r} a constant")
        return bound

    def _as_array(self, display, loc, out, forward):
        """A display where the adjoint takes one value (np.sum([a, b])): the array numpy
        would make of it, whose adjoint hands each item its row. Returns its name."""
        items, held = self.fresh("_t"), self.fresh("_t")
        self.active |= {items, held}
        listing = registry.find(as_list if isinstance(display, gast.List) else as_tuple)
        out.append(ir.Assign([items], display, loc, listing,
                             self._rules(listing).bind([display], {})))
        making = registry.find(np.array)
        out.append(ir.Assign([held], ir.call("np.array", ir.name(items)), loc, making,
                             self._rules(making).bind([ir.name(items)], {})))
        forward.args = [ir.name(held) if a is display else a for a in forward.args]
        for k in forward.keywords:
            k.value = ir.name(held) if k.value is display else k.value
        return ir.name(held)


class _Replace(gast.NodeTransformer):
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


_LIST_CHANGES = {"append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse"}


def _takes_array_likes(fn):
    """Whether fn is numpy's, which makes an array of a list it is given."""
    return isinstance(fn, np.ufunc) or (getattr(fn, "__module__", None) or "").startswith(
        "numpy")


def _qualified(obj):
    module = getattr(obj, "__module__", None) or ""
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or repr(obj)
    if isinstance(obj, np.ufunc):
        module = "numpy"
    return f"{module}.{name}" if module and module != "builtins" else name


def _short(obj, func):
    return spelling(obj) or gast.unparse(func)


def _op_symbol(op):
    return {gast.FloorDiv: "//", gast.Mod: "%", gast.LShift: "<<", gast.RShift: ">>",
            gast.BitAnd: "&", gast.BitOr: "|", gast.BitXor: "^"}.get(type(op), type(op).__name__)


def _as_load(target):
    node = copy.deepcopy(target)
    for n in gast.walk(node):
        if hasattr(n, "ctx"):
            n.ctx = gast.Load()
    return node


def _target_names(target):
    if isinstance(target, gast.Subscript):
        return _target_names(target.value)
    return {n.id for n in gast.walk(target) if isinstance(n, gast.Name)}


def _stored(stmt):
    return {n.id for n in gast.walk(stmt) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Store)}


def _loop_pairs(stmt):
    """(target, iterated sequence) pairs of a for loop; the sequence is None for an index."""
    it, target = stmt.iter, stmt.target
    if isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and not it.keywords:
        if it.func.id == "enumerate" and len(it.args) in (1, 2) and \
                isinstance(target, gast.Tuple) and len(target.elts) == 2:
            return [(target.elts[0], None), (target.elts[1], it.args[0])]
        if it.func.id == "zip" and isinstance(target, gast.Tuple) \
                and len(target.elts) == len(it.args):
            return list(zip(target.elts, it.args))
    if isinstance(target, gast.Name):
        return [(target, it)]
    return None


def _is_simple(node):
    """Cheap, side-effect-free expressions that may be repeated in the adjoint."""
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    if isinstance(node, (gast.Tuple, gast.List)):
        return all(_is_simple(e) for e in node.elts)
    if isinstance(node, gast.Slice):  # slice bounds are integers: arithmetic on them is cheap
        return all(p is None or _is_simple(p) or isinstance(p, gast.BinOp) and _is_simple(
            p.left) and _is_simple(p.right) for p in (node.lower, node.upper, node.step))
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        return _is_simple(node.operand)
    if isinstance(node, gast.Attribute):
        return _is_simple(node.value)
    return False
