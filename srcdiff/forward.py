"""Stage 3 (forward mode): carry a tangent `dx` alongside every active value `x`.

Statements keep their order and control flow; after each differentiable operation comes the
sum of its tangent template's parts for the arguments that carry tangents. A call to a user
function becomes a call to that function's own emitted `jvp_...`, returning both values.
"""

import gast

from . import codegen, ir
from .errors import NoAdjointError
from .passes.fold import fold
from .scalars import scalars, unspread


class Forward:
    """Builds `def jvp_f(dx, ..., x, ...)` returning `(value, tangent)`."""

    def __init__(self, fn, wrt, func_name, outputs=None):
        self.fn, self.wrt, self.func_name, self.outputs = fn, wrt, func_name, outputs
        self.taken = set(fn.params) | _assigned(fn.body)
        self.scalars = scalars(fn)
        self.names = {}
        # the lists appended to, and the containers written into by item: a tangent each
        # of the same structure (list items' tangents, where a zero adjoint is a Sparse)
        self.stacks = {stmt.stack for stmt in _walk(fn.body) if isinstance(stmt, ir.Push)} | {
            stmt.target for stmt in _walk(fn.body) if isinstance(stmt, ir.SetItem)
        }

    PREFIX = "d"  # (the tangent of x is dx)

    def derivative_names(self):
        """Each variable's tangent's name."""
        return dict(self.names)

    def stacked(self):
        return set()  # (forward mode saves nothing)

    def dname(self, var):
        if var not in self.names:
            candidate = "d" + var
            while candidate in self.taken:
                candidate += "_"  # (as AdjointNames._fresh does: the suffix stays)
            self.taken.add(candidate)
            self.names[var] = candidate
        return self.names[var]

    def active(self, node):
        return isinstance(node, gast.Name) and node.id in self.fn.active

    def tangent_of(self, node):
        """The tangent of an argument: its d-name, or a list of them (zeros where inactive)
        for a list of arrays, or None when nothing in it carries a tangent."""
        if isinstance(node, (gast.List, gast.Tuple)):
            if not any(self.active(e) for e in node.elts):
                return None
            return gast.List(
                elts=[
                    ir.name(self.dname(e.id))
                    if self.active(e)
                    else ir.const(None)
                    if _is_none(e)
                    else ir.call("runtime.zero_tangent", ir.copy_tree(e))
                    for e in node.elts
                ],
                ctx=gast.Load(),
            )
        return ir.name(self.dname(node.id)) if self.active(node) else None

    def build(self):
        args = ir.copy_tree(self.fn.args)
        args.args[:0] = [
            gast.Name(id=self.dname(w), ctx=gast.Param(), annotation=None, type_comment=None)
            for w in self.wrt
        ]
        # a parameter outside wrt can still become active (h in h = tanh(w @ h)): it starts
        # with a zero tangent, of a tuple or list one of zeros of each item's shape (a loop's
        # state = (x, v) unpacked: an item of an empty Sparse would be 0.0, which np.diff's
        # or a matmul's tangent cannot take for an array's)
        body = [
            ir.assign(self.dname(p), ir.call("runtime.zero_tangent", ir.name(p)))
            for p in self.fn.params
            if p in self.fn.active and p not in self.wrt
        ]
        body += self.block(self.fn.body)
        for stmt in body:
            self._check_tangents_apart(stmt)
        return [ir.function_def(self.func_name, args, body)]

    def _check_tangents_apart(self, stmt):
        """A check that an array f writes into in place shares no memory with an argument
        (aliasing.outside_checks) compares it with the tangents passed as well: the write
        would change a tangent that the code reads afterwards."""
        call = stmt.value if isinstance(stmt, gast.Expr) else None
        if isinstance(call, gast.Call) and ir.dotted(call.func) == ("runtime", "check_apart"):
            others, described = call.args[3], call.args[4]
            others.elts += [ir.name(self.dname(w)) for w in self.wrt]
            described.elts += [ir.const(f"the tangent of {w!r}") for w in self.wrt]

    def block(self, stmts):
        return [s for stmt in stmts for s in ir.located(self.statement(stmt), stmt.loc)]

    def statement(self, stmt):
        if isinstance(stmt, ir.Assign):
            return self.assign(stmt)
        if isinstance(stmt, ir.SetItem):
            return self.set_item(stmt)
        if isinstance(stmt, (ir.Push, ir.Pop)):
            return self.stack_change(stmt)
        if isinstance(stmt, ir.If):
            return ir.if_statement(stmt.test, self.block(stmt.body), self.block(stmt.orelse))
        if isinstance(stmt, ir.Break):
            return [gast.Break()]
        if isinstance(stmt, ir.For):
            return [
                gast.For(
                    target=ir.name(stmt.target, store=True),
                    iter=stmt.iter,
                    body=self.block(stmt.body) or [gast.Pass()],
                    orelse=[],
                    type_comment=None,
                )
            ]
        if isinstance(stmt, ir.While):
            return [
                gast.While(test=stmt.test, body=self.block(stmt.body) or [gast.Pass()], orelse=[])
            ]
        if isinstance(stmt, ir.Statement):
            return [stmt.node]
        if isinstance(stmt, ir.Return):
            return [
                gast.Return(
                    value=gast.Tuple(elts=[stmt.value, self.result_tangent(stmt)], ctx=gast.Load())
                )
            ]
        return []

    def set_item(self, stmt):
        out = [ir.assign(ir.subscript(stmt.target, stmt.index, store=True), stmt.value)]
        if stmt.target in self.fn.active:
            d = self.dname(stmt.target)
            value = self.tangent_of(stmt.value)
            value = (
                ir.call("runtime.through_write", value, ir.name(stmt.target))
                if value
                else ir.const(0.0)
            )
            out.append(
                ir.assign(
                    d, ir.call("runtime.set_at", ir.name(d), ir.index_value(stmt.index), value)
                )
            )
        return out

    def stack_change(self, stmt):
        """A push or pop of a loop's stack, and the same on the stack of tangents."""
        if isinstance(stmt, ir.Pop):
            return [
                ir.assign(stmt.target, ir.call(ir.attr(stmt.stack, "pop"))),
                ir.assign(self.dname(stmt.target), ir.call(ir.attr(self.dname(stmt.stack), "pop"))),
            ]
        out = [ir.expr_stmt(ir.call(ir.attr(stmt.stack, "append"), stmt.value))]
        if stmt.stack in self.fn.active:
            tangent = (
                self.tangent_of(stmt.value)
                if self.active(stmt.value)
                else ir.call("runtime.zeros_like", ir.copy_tree(stmt.value))
            )
            out.append(ir.expr_stmt(ir.call(ir.attr(self.dname(stmt.stack), "append"), tangent)))
        return out

    def result_tangent(self, ret):
        value = ret.value
        if isinstance(value, gast.Tuple):
            keep = self.outputs or [True] * len(value.elts)
            # (an item may be a list, of saved values say: its zero tangent is a list, as
            # a returned list's is)
            return gast.Tuple(
                elts=[
                    self._tangent_or_zeros(e, "runtime.zero_tangent") if k else ir.const(None)
                    for e, k in zip(value.elts, keep)
                ],
                ctx=gast.Load(),
            )
        return self._tangent_or_zeros(value, "runtime.zero_tangent")  # (of a list: a list)

    def _tangent_or_zeros(self, node, zeros="runtime.zeros_like"):
        return self.tangent_of(node) if self.active(node) else ir.call(zeros, ir.copy_tree(node))

    def assign(self, stmt):
        if stmt.callee is not None:  # y, dy = jvp_g(da, a)
            call = ir.copy_tree(stmt.value)
            call.args[:0] = [self.tangent_of(a) for a in stmt.callee.atoms]
            result = stmt.targets[0]
            return [
                ir.assign(
                    ir.tuple_of(
                        [ir.name(result, store=True), ir.name(self.dname(result), store=True)],
                        store=True,
                    ),
                    call,
                )
            ]
        targets = stmt.targets
        target = (
            targets[0]
            if not stmt.unpack
            else ir.tuple_of([ir.name(t, store=True) for t in targets], store=True)
        )
        out = [ir.assign(target, stmt.value)]
        live = [t for t in targets if t in self.fn.active]
        if not live:
            return out
        if stmt.primitive is None:
            if isinstance(stmt.value, gast.List) and not stmt.value.elts:  # a new stack
                return out + [
                    ir.assign(self.dname(t), gast.List(elts=[], ctx=gast.Load())) for t in live
                ]
            # a list appended to later ([x] with x constant), or a display whose items are
            # read or sliced later, has a list of tangents (a Sparse cannot be sliced); a
            # dict's holds its items' zeros (an item read has its shape, not 0.0), a dict a
            # call makes too (runtime.dict_of of constant values, before a loop changes it)
            listed = isinstance(stmt.value, (gast.List, gast.Tuple, gast.Dict, gast.Call))
            zero = lambda t: (  # noqa: E731
                "runtime.zero_tangent" if listed or t in self.stacks else "runtime.zeros_like"
            )
            return out + [ir.assign(self.dname(t), ir.call(zero(t), ir.name(t))) for t in live]
        return out + self._templated_tangent(stmt, live)

    def _templated_tangent(self, stmt, live):
        """`dy = ...`: the sum of the tangent template's parts, one per argument with a
        tangent (zeros where none has one)."""
        targets, rule_set = stmt.targets, stmt.primitive.tangent
        if rule_set is None:
            raise NoAdjointError(
                f"no tangent (forward-mode) rule is registered for {stmt.primitive.name}",
                stmt.loc,
                "register one with @srcdiff.tangent(...)",
            )
        output = (
            ir.name(targets[0])
            if not stmt.unpack
            else gast.List(elts=[ir.name(t) for t in targets], ctx=gast.Load())
        )
        for param, value in stmt.bound.items():
            if (
                param not in rule_set.rules
                and param not in rule_set.constant
                and not codegen.is_emitted(stmt.loc.filename)  # (see CallArguments.bind)
                and self.tangent_of(value) is not None
            ):
                raise NoAdjointError(
                    f"{stmt.primitive.name} has no forward-mode rule for its argument {param!r}",
                    stmt.loc,
                    f"make {param!r} a constant",
                )
        parts = self._tangent_parts(stmt, rule_set, output)
        if not parts:
            return [
                ir.assign(self.dname(t), ir.call("runtime.zeros_like", ir.name(t))) for t in live
            ]
        total = parts[0]
        for part in parts[1:]:  # (lists of items' tangents add item by item)
            total = (
                ir.call("runtime.add_tangents", total, part)
                if stmt.primitive.multiple_outputs
                else gast.BinOp(left=total, op=gast.Add(), right=part)
            )
        tangent_target = (
            ir.name(self.dname(targets[0]), store=True)
            if not stmt.unpack
            else ir.tuple_of([ir.name(self.dname(t), store=True) for t in targets], store=True)
        )
        return [ir.assign(tangent_target, total)]

    def _tangent_parts(self, stmt, rule_set, output):
        """The tangent of stmt's value from each of its arguments that has one."""
        parts = []
        for param, rule in rule_set.rules.items():
            value = stmt.bound.get(param)
            tangent = None if value is None else self.tangent_of(value)
            if tangent is None:
                continue
            elements = (
                [None]
                if rule.index is None
                else [k for k, e in enumerate(value.elts) if self.active(e)]
            )
            for element in elements:
                part = fold(
                    rule_set.instantiate(rule, stmt.bound, output, None, element, tangent=tangent)
                )
                parts.append(unspread(part) if self._shaped_as(stmt, param) else part)
        return parts

    def _shaped_as(self, stmt, param):
        """Whether stmt's one output surely has the shape of its operand `param`: it is a
        scalar, or every other operand is one and its record does not say it widens."""
        if stmt.unpack or len(stmt.targets) != 1:
            return False
        others = [v for p, v in stmt.bound.items() if p != param and v is not None]
        return (
            stmt.targets[0] in self.scalars
            or bool(others)
            and not stmt.primitive.widens
            and all(
                isinstance(v, gast.Constant)
                and type(v.value) in (int, float, complex)
                or isinstance(v, gast.Name)
                and v.id in self.scalars
                for v in others
            )
        )


def _is_none(node):
    return isinstance(node, gast.Constant) and node.value is None


def _assigned(stmts):
    names = set()
    for stmt in stmts:
        if isinstance(stmt, ir.Assign):
            names.update(stmt.targets)
        elif isinstance(stmt, ir.Pop):
            names.add(stmt.target)
        elif isinstance(stmt, ir.SetItem):
            names.add(stmt.target)
        elif isinstance(stmt, ir.If):
            names |= _assigned(stmt.body) | _assigned(stmt.orelse) | {stmt.test}
        elif isinstance(stmt, (ir.For, ir.While)):
            names |= _assigned(stmt.body)
            names.add(stmt.target if isinstance(stmt, ir.For) else stmt.counter)
    return names


def _walk(stmts):
    """Every ir statement of a block, nested ones included."""
    for stmt in stmts:
        yield stmt
        for block in (getattr(stmt, "body", None), getattr(stmt, "orelse", None)):
            if isinstance(block, list):
                yield from _walk(block)
