"""Stage 3: reverse mode. Emit a forward sweep, then the adjoint sweep in reverse order.

The adjoint sweep walks the program backwards and, at each point, every value it reads holds
what it held at the same point of the forward sweep. Straight-line code gets that for free from
versioned names (see anf.py); a variable overwritten inside a loop or a branch is saved on its
own stack, only if the adjoint sweep reads it:

* a value computed once per iteration and read only later in the same block is pushed right
  after it is computed and popped at the start of that block's reversed run;
* any other overwritten value is pushed just before it is overwritten and popped right after
  the adjoint of the overwriting statement, restoring it.

The adjoint `bx` of a variable is *live* once something has contributed to it: its first
contribution assigns it (`bx = ...`), later ones accumulate (`bx = bx + ...`). The statement
that defines `x` consumes `bx`. Where control flow merges, adjoints live on one path only are
zero-initialised on the other.
"""

import gast

from . import ir
from .adjoints import StatementAdjoints
from .annotations import Mark, mark
from .modes import Mode
from .naming import AdjointNames
from .passes.liveness import live_before
from .scalars import Narrower, assignments, real_scalars
from .saving import (
    AFTER,
    BEFORE,
    NONE,
    Later,
    SavingAnalysis,
    finished,
    holds_code,
    read_for_shape_only,
    reading,
)


class Reverse(StatementAdjoints, SavingAnalysis, AdjointNames):
    """Builds the gast FunctionDef of the gradient of an `ir.Function`."""

    def __init__(
        self,
        fn,
        wrt,
        *,
        mode=Mode.GRAD,
        preserve_result=False,
        has_aux=False,
        outputs=None,
        func_name=None,
        wrt_checked=False,
    ):
        """`wrt_checked`: whether the arguments in `wrt` are known real at run time (each
        call of a derivative checks its own: arguments.check_differentiable; a callee's
        arguments are whatever its caller passes)."""
        self.fn, self.wrt, self.mode, self.preserve_result = fn, wrt, mode, preserve_result
        self.has_aux, self.outputs = has_aux, outputs
        self.func_name = func_name or f"d{fn.name}"
        self.ret = fn.body[-1] if fn.body and isinstance(fn.body[-1], ir.Return) else None
        self.sites, self.reads, self.order = {}, {}, 0
        self.site_of = {}  # id of a statement -> its _Site
        self.stacks = set()  # lists the function uses as stacks (differentiating emitted code)
        self.popped_stacks = set()  # ... and those it pops from
        self.adjoint_reads = set()  # what a statement giving its target an adjoint reads
        self._scan(fn.body, [], [])
        self.primal = set(self.sites) | set(fn.params)  # locals; globals are never saved
        self.taken = set(self.primal)
        self.adjoint_names, self.stack_names = {}, {}
        self.strategy = {}
        self.needs_init = {}
        self.reset_in = {}  # var -> ids of the loops whose reversed body zeroes its adjoint
        self.shape_only = set()  # names whose last value the adjoint reads for its shape only
        self.popped_shape_only = set()  # ... and whose earlier values (on their stack) too
        self._merge_reads, self._templates_made = {}, {}
        self.assigned = assignments(fn)  # (what each name is assigned: for both below)
        self.real_scalars = real_scalars(fn, wrt if wrt_checked else (), self.assigned)
        self.narrower = Narrower(fn, self.real_scalars, self.assigned)

    # --- building -------------------------------------------------------------------------

    def build(self):
        """The emitted function(s): one fused function for grad/vjp; for `split`, a forward
        function returning (result, saved values) and a backward one taking them."""
        # the adjoint sweep is made once, before the forward sweep decides what to save: the
        # pops restoring saved values (and the ifs and loops holding them) are written into it
        # once that is known, and the pushes of the forward sweep keep just a shape where the
        # adjoint sweep, pops in place, turns out to read no more than that
        sweep, grads = self._adjoint_sweep()
        needed = self._reads_unsaved(sweep, grads)
        self._plan(needed)
        forward, result = self._forward_sweep()
        adjoint = finished(sweep)
        shape_only = read_for_shape_only(reading(adjoint, grads), needed, self.stack_names)
        self.shape_only, self.popped_shape_only = shape_only
        for call, var in self._pushes:
            call.args[0] = self._kept(var, self.popped_shape_only)
        inits = [ir.assign(v, ir.const(None)) for v in self.unbound] + [
            ir.assign(s, gast.List(elts=[], ctx=gast.Load())) for s in self._stack_inits.values()
        ]
        if self.mode is not Mode.SPLIT:
            return [self._fused(inits + forward + adjoint, grads, result)]
        return self._split(inits, forward, adjoint, grads, result)

    def _fused(self, body, grads, result):
        """grad's or vjp's one function: the gradients (then f's value, its aux)."""
        parts = [grads[0] if len(grads) == 1 else ir.tuple_of(grads)]
        if self.has_aux:
            result, aux = result.elts
        if self.preserve_result:
            parts.append(result)
        if self.has_aux:
            parts.append(aux)
        value = parts[0] if len(parts) == 1 else ir.tuple_of(parts)
        params = [self._seed_name()] if self.mode is Mode.VJP else []
        return self._def(self.func_name, params, body + [gast.Return(value=value)])

    def _split(self, inits, forward, adjoint, grads, result):
        """The forward function, returning f's value and the values the backward one reads,
        and the backward function taking them."""
        # what the backward half reads before binding it (a loop variable it pops, or a
        # loop's target, comes from its stack or its loop: not from the forward's last value)
        saved = sorted(
            live_before(reading(adjoint, grads), set(), None)
            & (self.primal | set(self._stack_inits.values()))
        )
        maybe_unset = sorted(
            v
            for v in saved
            if v in self.primal
            and v not in self.fn.params
            and v not in self.unbound
            and not any(
                len(s.path) == 1 and not _loop_target(s.stmt, v) for s in self.sites.get(v, [])
            )
        )
        forward = [ir.assign(v, ir.const(None)) for v in maybe_unset] + inits + forward
        forward.append(
            gast.Return(
                value=ir.tuple_of(
                    [result, gast.List(elts=[self._kept(v) for v in saved], ctx=gast.Load())]
                )
            )
        )
        # the backward function empties the list it is given, so that each saved value can be
        # freed right after its last use rather than when the caller's reference goes
        # (a backward function differentiated again has values named saved and b_out)
        held = self._fresh(("<saved>", "saved"), self.adjoint_names)
        unpack = (
            [
                ir.assign(
                    ir.tuple_of([ir.name(v, store=True) for v in saved], store=True), ir.name(held)
                ),
                ir.expr_stmt(ir.call(ir.attr(held, "clear"))),
            ]
            if saved
            else []
        )
        backward = unpack + adjoint + [gast.Return(value=ir.tuple_of(grads))]
        fwd_name, bwd_name = self.func_name
        bwd = self._def(bwd_name, [self._seed_name(), held], backward, with_params=False)
        return [self._def(fwd_name, [], forward), bwd]

    def _reads_unsaved(self, sweep, grads):
        """The values the backward half reads when the forward sweep saves nothing (so
        before `_plan` decides what it saves); sets self.unbound."""
        adjoint = finished(sweep)
        # what the backward half reads: the adjoint sweep, and the zeros it returns for an
        # argument that got no adjoint (runtime.zeros_like(x))
        needed = (
            ir.names_in(gast.Module(body=reading(adjoint, grads), type_ignores=[])) & self.primal
        )
        for var, site in self._merge_reads.values():  # zeros_like(v) reads v's value
            self._read({var}, site)
        # a value the adjoint zeroes an adjoint like (a branch or loop the forward sweep
        # skipped) may never have been bound there: bind it to None first
        self.unbound = sorted(
            {var for var, site in self._merge_reads.values() if not self._bound_at(var, site)}
        )
        return needed

    def _bound_at(self, var, site):
        """Whether `var` is surely bound when the statement at `site` runs: a parameter, or
        assigned at the top level of the function before it."""
        return var in self.fn.params or any(
            len(s.path) == 1 and s.order < site.order for s in self.sites.get(var, [])
        )

    def _seed_name(self):
        ret = self.ret
        if ret is not None and ret.active and isinstance(ret.value, gast.Name):
            return self.bname(ret.value.id)
        return self._fresh(("<seed>", "b_out"), self.adjoint_names)

    def _def(self, name, extra, body, with_params=True):
        args = _copy_args(self.fn.args) if with_params else ir.no_arguments()
        args.args[:0] = [
            gast.Name(id=e, ctx=gast.Param(), annotation=None, type_comment=None) for e in extra
        ]
        return ir.function_def(name, args, body)

    def _forward_sweep(self):
        """(forward statements, result expression)."""
        ret = self.ret
        self._stack_inits, self._pushes = {}, []  # (the call saving each, and what it saves)
        forward = self.forward_block(self.fn.body[:-1] if ret else self.fn.body)
        result = ret.value if ret is not None else ir.const(None)
        if self.mode is not Mode.SPLIT and (self.preserve_result or self.has_aux):
            result = self._hold(result, forward)
        return forward, result

    def _adjoint_sweep(self):
        """(adjoint statements, gradient expressions)."""
        fn, ret = self.fn, self.ret
        self._templates_handed = set()
        body = fn.body[:-1] if ret else fn.body
        live = set()
        adjoint = self._seeds(ret, live)
        # a list used as a stack has a list of adjoints, one per item; one that is returned
        # gets the caller's adjoint of it (item by item), the others start empty
        adjoint += [
            ir.assign(
                self.bname(s),
                ir.call(
                    "runtime.add_items",
                    gast.List(elts=[], ctx=gast.Load()),
                    ir.name(self.bname(s)),
                    ir.name(s),
                )
                if s in live
                else gast.List(elts=[], ctx=gast.Load()),
            )
            for s in sorted(self.stacks & self.fn.active)
        ]
        adjoint += self.reverse_block(body, live)
        if self.mode is Mode.SPLIT:  # the caller accumulates these: keep Sparse adjoints sparse
            grads = [
                ir.name(self.bname(w)) if w in live else ir.call("runtime.zeros_like", ir.name(w))
                for w in self.wrt
            ]
        else:
            grads = [
                ir.call(
                    "runtime.as_grad",
                    ir.name(self.bname(w)) if w in live else ir.const(0.0),
                    ir.name(w),
                )
                for w in self.wrt
            ]
        return adjoint, grads

    def _seeds(self, ret, live):
        """The statements that seed the adjoints of what f returns (the output's for grad,
        the cotangent's items for a returned tuple), each seeded adjoint added to `live`."""
        fn, adjoint = self.fn, []
        if self.has_aux:
            out = ret.value.elts[0]
            if isinstance(out, gast.Name) and out.id in fn.active:
                adjoint.append(ir.assign(self.bname(out.id), self._seed(out.id)))
                live.add(out.id)
        elif ret is not None and ret.active and isinstance(ret.value, gast.Tuple):
            seeds = self._fresh(("<seeds>", "b_outs"), self.adjoint_names)
            outputs = self.outputs or [True] * len(ret.value.elts)
            # copies: the passes rename names in place, in the forward sweep's return too
            shapes = ir.tuple_of(
                [
                    ir.copy_tree(e) if keep else ir.const(None)
                    for e, keep in zip(ret.value.elts, outputs)
                ]
            )
            adjoint.append(
                ir.assign(
                    seeds, ir.call("runtime.unpack_adjoint", ir.name(self._seed_name()), shapes)
                )
            )
            for k, element in enumerate(ret.value.elts):
                if self.outputs is not None and not self.outputs[k]:
                    continue  # the caller never differentiates this item
                if isinstance(element, gast.Name) and element.id in fn.active:
                    part = gast.Subscript(value=ir.name(seeds), slice=ir.const(k), ctx=gast.Load())
                    adjoint.append(self.accumulate(element.id, part, live))
        elif ret is not None and ret.active:
            out = ret.value.id
            if self.mode is Mode.GRAD:
                adjoint.append(ir.assign(self.bname(out), self._seed(out)))
            live.add(out)
        return adjoint

    def _seed(self, out):
        """d out / d out: 1.0 for a real scalar computed from numbers alone (a float: what
        runtime.grad_seed gives it), else runtime.grad_seed, which checks that `out` is a
        real scalar and gives 1 in its dtype (of a sum of float32 arguments, float32)."""
        if out in self.real_scalars and out in real_scalars(self.fn, (), self.assigned):
            return ir.const(1.0)
        return ir.call("runtime.grad_seed", ir.name(out))

    def _hold(self, value, forward):
        """`value` as it is at the end of the forward sweep, for returning after the adjoint
        sweep (which restores what it pops)."""
        if isinstance(value, gast.Tuple):
            return ir.tuple_of([self._hold(e, forward) for e in value.elts])
        if isinstance(value, gast.Name) and any(
            self.strategy.get((value.id, s.order), NONE) != NONE
            for s in self.sites.get(value.id, [])
        ):
            held = self._fresh(
                (("<result>", value.id), "result_" + value.id.lstrip("_")), self.adjoint_names
            )
            forward.append(ir.assign(held, value))
            return ir.name(held)
        return value

    # --- forward sweep --------------------------------------------------------------------

    def _kept(self, var, shape_only=None):
        """What to save of `var`: the value, or only its shape when that is all the adjoint
        sweep reads (so large intermediates are not kept alive for their shape)."""
        shape_only = self.shape_only if shape_only is None else shape_only
        return ir.call("runtime.shape_of", ir.name(var)) if var in shape_only else ir.name(var)

    def _push(self, var):
        push = self._push_expr(var, self._kept(var, self.popped_shape_only))
        self._pushes.append((push.value, var))
        return push

    def _push_expr(self, var, value):
        stack = self.stack(var)
        self._stack_inits[var] = stack
        return ir.expr_stmt(ir.call(ir.attr(stack, "append"), value))

    def _pop(self, var):
        return ir.assign(var, ir.call(ir.attr(self.stack(var), "pop")))

    def _put_back(self, stmt):
        """What a statement kept as written held in the arrays it changes, where saved."""
        return [
            ir.assign(
                ir.subscript(r, ir.const(Ellipsis), store=True),
                ir.call(ir.attr(self.stack(r), "pop")),
            )
            for r in reversed(stmt.changes)
            if self._saved(r, stmt, BEFORE)
        ]

    def forward_block(self, block):
        return [s for stmt in block for s in ir.located(self._forward(stmt), stmt.loc)]

    def _forward(self, stmt):
        out = []
        if isinstance(stmt, ir.Assign):
            out += [self._push(t) for t in stmt.targets if self._saved(t, stmt, BEFORE)]
            target = (
                stmt.targets[0]
                if not stmt.unpack
                else gast.Tuple(
                    elts=[ir.name(t, store=True) for t in stmt.targets], ctx=gast.Store()
                )
            )
            out.append(ir.assign(target, stmt.value))
            out += [self._push(t) for t in stmt.targets if self._saved(t, stmt, AFTER)]
        elif isinstance(stmt, ir.Push):
            out.append(ir.expr_stmt(ir.call(ir.attr(stmt.stack, "append"), stmt.value)))
        elif isinstance(stmt, ir.Pop):
            out += [self._push(stmt.target)] if self._saved(stmt.target, stmt, BEFORE) else []
            out.append(ir.assign(stmt.target, ir.call(ir.attr(stmt.stack, "pop"))))
            out += [self._push(stmt.target)] if self._saved(stmt.target, stmt, AFTER) else []
        elif isinstance(stmt, ir.SetItem):
            if self._saved(stmt.target, stmt, BEFORE):
                out.append(
                    self._push_expr(
                        stmt.target, ir.call("np.copy", ir.subscript(stmt.target, stmt.index))
                    )
                )
            out.append(ir.assign(ir.subscript(stmt.target, stmt.index, store=True), stmt.value))
        elif isinstance(stmt, ir.If):
            out += ir.if_statement(
                stmt.test, self.forward_block(stmt.body), self.forward_block(stmt.orelse)
            )
        elif isinstance(stmt, ir.Break):
            out.append(gast.Break())
        elif isinstance(stmt, (ir.For, ir.While)):
            out += [ir.assign(v, ir.const(None)) for v in sorted(self.needs_init.get(id(stmt), ()))]
            out += self._forward_loop(stmt)
        elif isinstance(stmt, ir.Statement):
            saved = [r for r in stmt.changes if self._saved(r, stmt, BEFORE)]
            out += [self._push_expr(r, ir.call("np.copy", ir.name(r))) for r in saved]
            out.append(stmt.node)
        return out

    def _forward_loop(self, stmt):
        """The loop of the forward sweep: counting its iterations where the reversed loop
        needs that count (a while loop, or a for loop a break may leave)."""
        body = self.forward_block(stmt.body)
        counter, out = stmt.counter, []
        if counter is not None:
            out.append(ir.assign(counter, ir.const(0)))
            body.insert(
                0,
                ir.assign(
                    counter, gast.BinOp(left=ir.name(counter), op=gast.Add(), right=ir.const(1))
                ),
            )
        if isinstance(stmt, ir.For):
            out.append(
                gast.For(
                    target=ir.name(stmt.target, store=True),
                    iter=stmt.iter,
                    body=body or [gast.Pass()],
                    orelse=[],
                    type_comment=None,
                )
            )
        else:
            out.append(gast.While(test=stmt.test, body=body, orelse=[]))
        if counter is not None and self._saved(counter, stmt, AFTER):
            out.append(self._push(counter))
        return out

    # --- adjoint sweep --------------------------------------------------------------------

    def reverse_block(self, block, live):
        """The reversed code of `block`; `live` is updated in place."""

        def pops():
            out = []
            for stmt in reversed(block):
                targets = (
                    [stmt.counter]
                    if isinstance(stmt, (ir.For, ir.While))
                    else [stmt.target]
                    if isinstance(stmt, ir.Pop)
                    else getattr(stmt, "targets", [])
                )
                out += [self._restored(t, stmt) for t in reversed(targets) if self._after(t, stmt)]
            return out

        out = [Later(pops)] if any(map(self.may_save, block)) else []
        for stmt in reversed(block):
            out += ir.located(self._reverse(stmt, live), stmt.loc)
        return out

    def _reverse(self, stmt, live):
        out = []
        if isinstance(stmt, ir.Assign):
            out += self.reverse_assign(stmt, live)
            if self.may_save(stmt):
                out.append(
                    Later(
                        lambda: [
                            self._pop(t)
                            for t in reversed(stmt.targets)
                            if self._saved(t, stmt, BEFORE)
                        ]
                    )
                )
        elif isinstance(stmt, ir.Push):
            out += self.reverse_push(stmt, live)
        elif isinstance(stmt, ir.Pop):
            out += self.reverse_pop(stmt, live)
            out.append(
                Later(
                    lambda: (
                        [self._pop(stmt.target)] if self._saved(stmt.target, stmt, BEFORE) else []
                    )
                )
            )
        elif isinstance(stmt, ir.SetItem):
            out += self.reverse_set_item(stmt, live)
        elif isinstance(stmt, ir.Statement) and stmt.changes:
            out.append(Later(lambda: self._put_back(stmt)))
        elif isinstance(stmt, ir.If):
            out += self.reverse_if(stmt, live)
        elif isinstance(stmt, ir.For):
            # (a copy: the forward loop's own, shared, would follow a rename that copy
            # propagation makes in the forward function of a split pair alone)
            iterable = ir.copy_tree(stmt.iter)
            ran = (
                iterable
                if stmt.counter is None
                else gast.Subscript(
                    value=iterable,
                    slice=gast.Slice(lower=None, upper=ir.name(stmt.counter), step=None),
                    ctx=gast.Load(),
                )
            )
            out += self.reverse_loop(stmt, stmt.body, live, stmt.target, ir.call("reversed", ran))
        elif isinstance(stmt, ir.While):
            out += self.reverse_loop(
                stmt, stmt.body, live, "_", ir.call("range", ir.name(stmt.counter))
            )
        return out

    def _zeros_like(self, var, from_adjoint):
        source = self.bname(var) if from_adjoint else var
        return mark(
            ir.assign(self.bname(var), ir.call("runtime.zeros_like", ir.name(source))), Mark.FRESH
        )

    def reverse_if(self, stmt, live):
        live_in = set(live)
        branches = []
        for block in (stmt.body, stmt.orelse):
            branch_live = set(live_in)
            branches.append((self.reverse_block(block, branch_live), branch_live))
        merged = set().union(*(b for _, b in branches))
        code = []
        for branch, branch_live in branches:
            missing = sorted(merged - branch_live)
            self._merge_reads.update({(v, id(stmt)): (v, self.site_of[id(stmt)]) for v in missing})
            code.append(branch + [self._zeros_like(v, False) for v in missing])
        live.clear()
        live.update(merged)
        return [
            Later(
                lambda: ir.if_statement(stmt.test, finished(code[0]), finished(code[1])),
                real=any(map(holds_code, code)),
            )
        ]

    def reverse_loop(self, stmt, body, live, target, iterable):
        entry = set(live)
        while True:
            exit_ = set(entry)
            code = self.reverse_block(body, exit_)
            if exit_ <= entry:
                break
            entry |= exit_
        if not code:
            return []
        before = [self._zeros_like(v, False) for v in sorted(entry - live)]
        # an adjoint the body consumed starts the previous iteration at zero, shaped like
        # that iteration's value (the loop may change its shape: layers of other widths)
        reset = [self._zeros_like(v, False) for v in sorted(entry - exit_)]
        if holds_code(code):  # (a body of pops alone changes no adjoint)
            self._merge_reads.update(
                {(v, id(stmt)): (v, self.site_of[id(stmt)]) for v in entry - live}
            )
            for v in entry - exit_:
                self.reset_in.setdefault(v, set()).add(id(stmt))
            live.update(entry)

        def loop():
            body = finished(code)
            return (
                before
                + [
                    gast.For(
                        target=ir.name(target, store=True),
                        iter=iterable,
                        body=body + reset,
                        orelse=[],
                        type_comment=None,
                    )
                ]
                if body
                else []
            )

        return [Later(loop, real=holds_code(code))]


def _copy_args(args):
    return ir.copy_tree(args)


def _loop_target(stmt, var):
    """Whether `stmt` binds `var` as its loop's target and may run no time (leaving it
    unbound): not a loop over range() of a positive constant or over a non-empty display."""
    return isinstance(stmt, ir.For) and stmt.target == var and not _runs(stmt.iter)


def _runs(iterable):
    """Whether a loop over `iterable` surely runs at least once."""
    if isinstance(iterable, (gast.List, gast.Tuple)):
        return bool(iterable.elts) and not any(isinstance(e, gast.Starred) for e in iterable.elts)
    if not (isinstance(iterable, gast.Call) and ir.dotted(iterable.func) == ("range",)):
        return False
    bounds = [a.value if isinstance(a, gast.Constant) else None for a in iterable.args]
    if iterable.keywords or not all(type(b) is int for b in bounds):
        return False
    try:
        return len(range(*bounds)) > 0
    except (TypeError, ValueError):  # no bounds, too many, or a step of 0
        return False
