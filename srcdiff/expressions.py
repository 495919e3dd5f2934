"""Stage 2c, expressions: flattening a differentiated expression into one operation per
statement, each bound to its primitive's record (or a call to the user's own function)."""

import inspect
import operator

import gast
import numpy as np

from . import ir, runtime
from .activity import SCOPES, is_pop
from .errors import NoAdjointError, UnsupportedError
from .parse import MISSING, spelling
from .primitives import registry
from .blocks import refuse_block
from .piecewise_calls import refuse_piecewise
from .reduce_loops import refuse_reduce
from .primitives.shape import as_dict, as_list, as_tuple, c_, copy_value, r_
from .call_arguments import CallArguments
from .unknown_callees import UnknownCallees
from .user_calls import (
    UserCalls,
    refuse_derivative_object,
    refuse_spread_arguments,
    refuse_user_class,
)


class Expressions(UserCalls, CallArguments, UnknownCallees):
    """The expression half of the Normalizer (anf.py), which provides the names, versions
    and activity these methods use."""

    def _rules(self, record):
        """The record's template for this mode (tangent or adjoint), or None."""
        return record.template(self.forward_mode) if record is not None else None

    def emit_copy(self, target, source, loc, out):
        record = registry.find(copy_value)
        out.append(ir.Assign([target], source, loc, record, self._rules(record).bind([source], {})))

    def atom(self, node, loc, out, active=True):
        """A name or inactive expression with the value of `node`, emitting statements for it;
        `active=False` treats `node` as carrying no gradient whatever it reads."""
        if not active or not self._is_active(node):
            self.refuse_a_pop_kept_inside(node, loc)
            node = self.rename(node)
            if ir.is_simple(node):
                return node
            held = self.names.fresh("_t")
            out.append(ir.Assign([held], node, loc))
            return ir.name(held)
        if isinstance(node, gast.Name):
            return ir.name(self.versions.get(node.id, node.id))
        if is_pop(node):  # bh + stack.pop(), as gradient code reads its adjoint stacks
            held = self.names.fresh("_t")
            self.active.add(held)
            stack = node.func.value.id
            out.append(ir.Pop(held, self.versions.get(stack, stack), loc))
            return ir.name(held)
        return ir.name(self.active_value(node, loc, out))

    def active_value(self, node, loc, out, target=None):
        """Emit the operation computing active `node` into `target` (or a temporary)."""
        if isinstance(node, gast.Name):
            source = self.atom(node, loc, out)
            name = self.store(target) if target else self.names.fresh("_t")
            self.active.add(name)
            self.emit_copy(name, source, loc, out)
            return name
        if isinstance(node, gast.Call) and self.activity.is_user_function(
            self.p.resolve(node.func)
        ):
            return self.user_call(node, loc, out, target)
        if isinstance(node, gast.IfExp):
            return self.conditional(node, loc, out, target)
        read = self._item_read(node, out) if target is None else None
        held = read and self._read_before(read, out)
        if held is not None:
            return held
        record, forward, bound = self.operation(node, loc, out)
        name = self.store(target) if target else self.names.fresh("_t")
        self.active.add(name)
        # x = x * y: write a temporary first, so both values stay readable (a fresh
        # temporary is read by nothing yet)
        if target and name in ir.names_in(forward):
            held = self.names.fresh("_t")
            self.active.add(held)
            out.append(ir.Assign([held], forward, loc, record, bound))
            self.emit_copy(name, ir.name(held), loc, out)
        else:
            out.append(ir.Assign([name], forward, loc, record, bound))
            if _is_display(_joined_display(node) or node) and target not in self.changed_in_place:
                self.displays[name] = (forward, out)
            if target is None and _read(forward) is not None:
                self.items_read[_read(forward)] = (name, out, len(out) - 1)
        return name

    def _item_read(self, node, out):
        """(d, k) of a read d[k] (`_read`) where d is a name, or an item read before that a
        temporary holds (d['head']['w']); else None."""
        if not isinstance(node, gast.Subscript):
            return None
        index = node.slice
        if isinstance(index, gast.Name):
            index = ir.name(self.versions.get(index.id, index.id))
        if isinstance(node.value, gast.Name):
            base = self.versions.get(node.value.id, node.value.id)
        else:
            inner = self._item_read(node.value, out)
            base = inner and self._read_before(inner, out)
        return None if base is None else _read(gast.Subscript(value=ir.name(base), slice=index))

    def _read_before(self, read, out):
        """The temporary that holds d[k] (`read`) already, where nothing since can have
        changed what it reads: every statement after it in the block computes a new value of
        another name (not d's, nor k's) by a pure primitive (so that `d['head']['w']`,
        `d['head']['b']` read d['head'] once, and `ps[i]['w']`, `ps[i]['b']` read ps[i] once).
        Blocks only grow: the statements looked at are not looked at again."""
        held, block, looked = self.items_read.get(read, (None, None, 0))
        if block is not out:
            return None
        for stmt in out[looked + 1 :]:
            if not (
                isinstance(stmt, ir.Assign)
                and stmt.primitive is not None
                and stmt.primitive.pure
                and stmt.callee is None
                and len(stmt.targets) == 1
                and stmt.targets[0] not in (held, *read)
            ):
                del self.items_read[read]
                return None
        self.items_read[read] = (held, out, len(out) - 1)
        return held

    def operation(self, node, loc, out):
        """(record, forward expression, bound operands) of the primitive operation `node`."""
        if _joined_display(node) is not None:
            return self.operation(_joined_display(node), loc, out)  # (a, b) + (c,)
        if isinstance(node, gast.BinOp):
            return self.binary(node, loc, out)
        if isinstance(node, gast.UnaryOp):
            operand = self.atom(node.operand, loc, out)
            if isinstance(node.op, gast.UAdd):
                forward, record = operand, registry.find(copy_value)
            else:
                forward, record = (
                    gast.UnaryOp(op=node.op, operand=operand),
                    registry.find(np.negative),
                )
            return record, forward, self._rules(record).bind([operand], {})
        if isinstance(node, gast.Call):
            plainer = _plain_builtin_call(node, self.p.resolve(node.func))
            if plainer is not None:
                return self.operation(plainer, loc, out)
            return self.call_parts(node, loc, out)
        if isinstance(node, gast.Attribute) and self._rules(registry.attribute(node.attr)):
            operand = self.atom(node.value, loc, out)  # x.T is np.transpose(x)
            record = registry.attribute(node.attr)
            forward = gast.Attribute(value=operand, attr=node.attr, ctx=gast.Load())
            return record, forward, self._rules(record).bind([operand], {})
        if isinstance(node, gast.Attribute):  # a field of a dataclass, a namedtuple, a model
            self.refuse_property(node, loc)
            operand = self.atom(node.value, loc, out)
            record = registry.find(runtime.field)
            forward = gast.Attribute(value=operand, attr=node.attr, ctx=gast.Load())
            name = gast.Constant(value=node.attr, kind=None)
            return record, forward, self._rules(record).bind([operand, name], {})
        if isinstance(node, gast.Subscript):
            return (
                self.item(node, loc, out)
                if self._is_active(node.value)
                else self.joined(node, loc, out)
            )
        if isinstance(node, (gast.List, gast.Tuple)):
            forward = self.argument(node, loc, out)
            record = registry.find(as_list if isinstance(node, gast.List) else as_tuple)
            return record, forward, self._rules(record).bind([forward], {})
        if isinstance(node, gast.Dict):
            return self.dict_display(node, loc, out)
        raise _unsupported(node, loc)

    def binary(self, node, loc, out):
        if not isinstance(node.op, gast.Add):  # (x * [1.0, 2.0]: of the array numpy makes)
            left, right = (
                ir.call("np.array", side) if _is_display(side) else side
                for side in (node.left, node.right)
            )
            node = gast.BinOp(left=left, op=node.op, right=right)
        if isinstance(node.op, gast.Add) and (_is_display(node.left) or _is_display(node.right)):
            raise UnsupportedError(
                "joining a tuple or list of differentiated values with "
                f"{ir.op_symbol(node.op)} cannot be differentiated",
                loc,
                "write the tuple out whole, (a, b, c), or join the arrays "
                "themselves: np.concatenate([a, b, c])",
            )
        record = registry.operator(type(node.op))
        if self._rules(record) is None:
            raise NoAdjointError(
                f"the operator {ir.op_symbol(node.op)} has no gradient",
                loc,
                "rewrite it with differentiable operations",
            )
        left, right = self.atom(node.left, loc, out), self.atom(node.right, loc, out)
        forward = gast.BinOp(left=left, op=node.op, right=right)
        return record, forward, self._rules(record).bind([left, right], {})

    def dict_display(self, node, loc, out):
        """(record, forward, bound) of `{"w": a, "b": b}`: its keys are constants."""
        if None in node.keys:
            raise UnsupportedError(
                "a dict display that unpacks another dict ({**d, ...}) cannot be differentiated",
                loc,
                "write each key out: {'w': d['w'], 'b': b}",
            )
        if any(self._is_active(key) for key in node.keys):
            raise UnsupportedError(
                "a dict key that depends on differentiated values has no derivative",
                loc,
                "key the dict by names or numbers",
            )
        keys = [self.atom(key, loc, out, active=False) for key in node.keys]
        values = [self.atom(value, loc, out) for value in node.values]
        forward = gast.Dict(keys=keys, values=values)
        record = registry.find(as_dict)
        return (
            record,
            forward,
            self._rules(record).bind(
                [
                    gast.Tuple(elts=ir.copy_tree(keys), ctx=gast.Load()),
                    gast.Tuple(elts=ir.copy_tree(values), ctx=gast.Load()),
                ],
                {},
            ),
        )

    def item(self, node, loc, out):
        """(record, forward, bound) of `x[index]`."""
        if (
            isinstance(node.value, gast.Name)
            and not self.forward_mode
            and node.value.id in self.popped
        ):
            raise UnsupportedError(
                f"{node.value.id!r} is popped from and read by index too: srcdiff cannot "
                "differentiate both at once yet",
                loc,
                "read the items by index only, or take them with pop only",
            )
        value = self.atom(node.value, loc, out)
        index = self.held_index(node.slice, loc, out)
        forward = gast.Subscript(value=value, slice=index, ctx=gast.Load())
        record = registry.find(operator.getitem)
        return record, forward, self._rules(record).bind([value, ir.index_value(index)], {})

    def held_index(self, node, loc, out):
        """The index `node` renamed, as a name where it is not one; copied as it is now
        (runtime.copied_index) where f may change what it reads in place later (idx[0] = i,
        idx.append(i): truths.py), since the adjoint reads it when the reverse sweep runs."""
        index = self.rename(node)
        copied = self._changed_later(node)
        if not copied and ir.is_simple(index):
            return index
        if copied:
            return self.copied(ir.index_value(index), loc, out)
        held = self.names.fresh("_idx")
        out.append(ir.Assign([held], ir.index_value(index), loc))
        return ir.name(held)

    def _changed_later(self, node):
        """Whether `node` carries no gradient but reads a value f may change in place (so
        the reverse sweep, reading it later, would find it changed)."""
        return (
            not self.forward_mode
            and bool(ir.names_in(node) & self.copied_at_read)
            and not self._is_active(node)
        )

    def _held_arguments(self, record, nodes, atoms, loc, out):
        """The atoms of a primitive's arguments `nodes` (a dict by position or keyword),
        each that f may change in place later copied as it is now (as held_index does):
        the adjoint of np.take(x, idx) reads idx when the reverse sweep runs. Not the
        first of a view's (np.asarray(a) is a, and sees its changes)."""
        if not record.pure:  # (it may change the argument itself: np.copyto)
            return atoms
        for key, node in nodes.items():
            if self._changed_later(node) and not (record.view and key == 0):
                atoms[key] = self.copied(atoms[key], loc, out)
            elif self._list_changed_later(record, node):
                held = ir.call(ir.attr("runtime", "held_items"), atoms[key])
                atoms[key] = self.atom(held, loc, out)
        return atoms

    def _list_changed_later(self, record, node):
        """Whether `node` names a differentiated list that f may append to or pop from
        after this statement reads it whole (np.stack(hs) in a loop that appends to hs):
        the adjoint of the read, as the reverse sweep runs, would find it changed. (Not
        where a runtime helper reads it: those of emitted code follow its lists' changes.)"""
        return (
            isinstance(node, gast.Name)
            and node.id in self.stacks  # (first: asked of every argument of every primitive)
            and not self.forward_mode
            and not any(runtime.is_helper(fn) for fn in record.functions)
            and self._is_active(node)
            and self.read_later(node.id)
        )

    def copied(self, atom, loc, out):
        """A name holding a copy of the index or argument `atom` as it is now."""
        held = self.names.fresh("_idx")
        out.append(ir.Assign([held], ir.call(ir.attr("runtime", "copied_index"), atom), loc))
        return ir.name(held)

    def conditional(self, node, loc, out, target):
        """`a if c else b`: an if statement into one name, stored after both branches are
        read (`h = f(h) if c else g(h)` reads the h before it)."""
        name = None if target else self.names.fresh("_t")
        test = self.names.fresh("_cond")
        out.append(ir.Assign([test], self.truth(node.test), loc))
        self.depth += 1
        branches = []
        for branch in (node.body, node.orelse):
            block, active = [], self._is_active(branch)
            value = self.atom(branch, loc, block) if active else self.rename(branch)
            branches.append((block, active, value))
        self.depth -= 1
        name = name or self.store(target)
        self.active.add(name)
        for block, active, value in branches:
            if active:
                self.emit_copy(name, value, loc, block)
            else:
                block.append(ir.Assign([name], value, loc))
        out.append(ir.If(test, branches[0][0], branches[1][0], loc))
        return name

    def joined(self, node, loc, out):
        """(record, forward, bound) of `np.r_[a, b]` or `np.c_[a, b]` (the only indexing
        of a constant by differentiated values that means something)."""
        joiner = self.p.resolve(node.value)
        items = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        if joiner is not np.r_ and joiner is not np.c_:
            raise UnsupportedError(
                f"{gast.unparse(node.value)} is indexed by a differentiated "
                "value, which has no derivative",
                loc,
                "index with an int (int(...), np.argmax(...)) or write the selection with np.where",
            )
        if any(
            isinstance(i, gast.Slice) or isinstance(i, gast.Constant) and isinstance(i.value, str)
            for i in items
        ):
            raise UnsupportedError(
                f"{gast.unparse(node.value)}[...] with ranges or directive "
                "strings cannot be differentiated",
                loc,
                "use np.concatenate, np.stack or np.arange explicitly",
            )
        atoms = [self.atom(i, loc, out) for i in items]
        forward = gast.Subscript(
            value=ir.attr("np", "r_" if joiner is np.r_ else "c_"),
            slice=gast.Tuple(elts=atoms, ctx=gast.Load()),
            ctx=gast.Load(),
        )
        record = registry.find(r_ if joiner is np.r_ else c_)
        return record, forward, self._rules(record).bind(atoms, {})

    def call_parts(self, node, loc, out):
        """(record, forward expression, bound arguments) for an active call."""
        func = node.func
        obj = self.p.resolve(func)
        if (
            obj is MISSING
            and isinstance(func, gast.Attribute)
            and self._rules(registry.method(func.attr))
        ):
            return self.method_call(node, loc, out)
        if obj is MISSING and isinstance(func, gast.Subscript):
            self._picked_at_run_time(func, loc)
        if obj is MISSING:
            self._unknown_callee(func, loc)
        record = registry.find(obj)
        if obj in (max, min) and len(node.args) == 2 and not node.keywords:
            record = registry.find(np.maximum if obj is max else np.minimum)  # of two values
        if self._rules(record) is None:
            self._no_rule(obj, func, loc)
        refuse_spread_arguments(node, loc)
        call_args, keywords = self._call_arguments(record, node.args, node.keywords, loc, out)
        spelled = spelling(obj)
        forward = gast.Call(
            func=ir.attr(*spelled.split(".")) if spelled else self.rename(func),
            args=call_args,
            keywords=[gast.keyword(arg=k, value=v) for k, v in keywords.items()],
        )
        return record, forward, self.bind(record, call_args, keywords, node, loc, out, forward)

    def method_call(self, node, loc, out):
        """`x.sum(axis=1)`: the record of the method's numpy function, bound to x and the
        arguments (x.reshape(2, 3) to x and the shape (2, 3))."""
        func = node.func
        record = registry.method(func.attr)
        receiver = self.atom(func.value, loc, out)
        call_args, keywords = self._call_arguments(
            record, node.args, node.keywords, loc, out, first=1
        )
        forward = gast.Call(
            func=gast.Attribute(value=receiver, attr=func.attr, ctx=gast.Load()),
            args=call_args,
            keywords=[gast.keyword(arg=k, value=v) for k, v in keywords.items()],
        )
        if record.vararg_method and len(call_args) > 1:
            call_args = [gast.Tuple(elts=call_args, ctx=gast.Load())]
        return (
            record,
            forward,
            self.bind(record, [receiver] + call_args, keywords, node, loc, out, forward),
        )

    def _no_rule(self, obj, func, loc):
        what = _qualified(obj)
        if runtime.is_helper(obj):
            raise NoAdjointError(
                f"{what} has no {'tangent' if self.forward_mode else 'adjoint'}"
                " template, so this higher-order derivative is not supported",
                loc,
                "differentiate once, or avoid the primitive whose gradient calls it",
            )
        if obj is max or obj is min:
            raise NoAdjointError(
                f"srcdiff differentiates {what}(xs), {what}(xs, key=f) and {what}(a, b, ...), "
                "not other forms",
                loc,
                f"test for no items first ({what}(xs) if len(xs) else v), or use np.{what}(x)",
            )
        if obj is complex:
            raise UnsupportedError(
                "complex(...) of differentiated values is not followed",
                loc,
                "write it as arithmetic: re + 1j * im (complex(x) as x + 0j)",
            )
        refuse_reduce(obj, loc)
        refuse_piecewise(obj, loc)
        refuse_block(obj, loc)
        if getattr(obj, "__module__", None) in ("builtins", "itertools", "functools"):
            raise UnsupportedError(
                f"{what}(...) of differentiated values cannot be differentiated in this form",
                loc,
                "over a container, write it as a for loop or a comprehension (srcdiff "
                "follows list, tuple, dict, zip (without strict=), enumerate, reversed, sorted, "
                "iter/next, len, sum, max, min, map and itertools' accumulate, chain, "
                "islice, pairwise, combinations and product); on arrays, call the numpy function",
            )
        refuse_user_class(obj, loc)
        if inspect.isclass(obj) and obj.__module__.split(".")[0] == "numpy":
            raise NoAdjointError(  # (np.matrix, np.poly1d: no adjoint of a class would do)
                f"{gast.unparse(func)}(...) makes an object of numpy's class {obj.__name__} "
                "from differentiated values, and srcdiff differentiates arrays and the numpy "
                "functions on them, not such objects",
                loc,
                "keep the values arrays (np.asarray) and write what the class does with numpy "
                "functions (np.matrix's * as @, np.poly1d(c)(x) as np.polyval(c, x))",
            )
        refuse_derivative_object(obj, gast.unparse(func), loc)
        if not (inspect.isfunction(obj) or spelling(obj)):  # a method, or SciPy's ufunc
            what = gast.unparse(func)
        raise NoAdjointError(
            f"no adjoint is registered for {what}",
            loc,
            f"register one with @srcdiff.adjoint({_short(obj, func)}) (see the "
            "README's custom adjoints section), or write the computation with "
            "numpy functions srcdiff differentiates",
        )

    def _call_arguments(self, record, args, keywords, loc, out, first=0):
        """The atoms of a primitive call's arguments and keywords (`first`: the position
        of the first of args, 1 after a method's object)."""
        atoms = {first + k: self.argument(a, loc, out) for k, a in enumerate(args)}
        atoms |= {k.arg: self.argument(k.value, loc, out) for k in keywords}
        nodes = {first + k: a for k, a in enumerate(args)} | {k.arg: k.value for k in keywords}
        atoms = self._held_arguments(record, nodes, atoms, loc, out)
        return [atoms[first + k] for k in range(len(args))], {k.arg: atoms[k.arg] for k in keywords}

    def argument(self, node, loc, out):
        node = _joined_display(node) or node
        if isinstance(node, (gast.List, gast.Tuple)) and self._is_active(node):
            return type(node)(elts=[self.atom(e, loc, out) for e in node.elts], ctx=gast.Load())
        return self.atom(node, loc, out)


def _qualified(obj):
    module = getattr(obj, "__module__", None) or ""
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or repr(obj)
    if isinstance(obj, np.ufunc):
        module = "numpy"
    return f"{module}.{name}" if module and module != "builtins" else name


def _short(obj, func):
    return spelling(obj) or gast.unparse(func)


def _unsupported(node, loc):
    """The error for an expression on differentiated values srcdiff has no rule for."""
    if isinstance(node, gast.BoolOp):  # `x or 1.0` is x or 1.0, by value
        return UnsupportedError(
            "`and`/`or` on differentiated values cannot be differentiated",
            loc,
            "write a conditional expression: `x if x else 1.0` for `x or 1.0`",
        )
    if isinstance(node, gast.Lambda):
        return UnsupportedError(
            "a lambda that reads a differentiated value cannot be differentiated",
            loc,
            "define the function at module level and pass the value to it as an argument",
        )
    if isinstance(node, SCOPES):
        return UnsupportedError(
            "this comprehension over differentiated values cannot be "
            "differentiated (list and dict comprehensions and generators can, in an "
            "assignment, a return or an expression statement)",
            loc,
            "build a list on a line of its own: items = [f(r) for r in x]",
        )
    return UnsupportedError(
        f"{type(node).__name__} expressions on differentiated values are not supported", loc
    )


def _plain_builtin_call(node, obj):
    """`pow(a, b)` as `a ** b`, `max(a, b, c)` as `max(max(a, b), c)` and `max([a, b])` as
    `max(a, b)` (min too): the same values, in the forms srcdiff differentiates (None for
    any other call)."""
    args = node.args
    if node.keywords or any(isinstance(a, gast.Starred) for a in args):
        return None
    if obj is pow and len(args) == 2:
        return gast.copy_location(gast.BinOp(left=args[0], op=gast.Pow(), right=args[1]), node)
    if obj is not max and obj is not min:
        return None
    if len(args) == 1 and _is_display(args[0]) and len(args[0].elts) > 1:
        if any(isinstance(e, gast.Starred) for e in args[0].elts):
            return None
        args = args[0].elts
    elif len(args) < 3:
        return None
    if len(args) > 2:
        first = gast.Call(func=node.func, args=args[:-1], keywords=[])
        args = [gast.copy_location(first, node), args[-1]]
    return gast.copy_location(gast.Call(func=node.func, args=list(args), keywords=[]), node)


def _read(node):
    """(d, k) of a read d[k] of a name d at a constant string key (a dict's item) or at a
    name k (an item of a list a loop reads twice); else None."""
    if not (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)):
        return None
    index = node.slice
    if isinstance(index, gast.Constant) and type(index.value) is str:
        return node.value.id, repr(index.value)
    if isinstance(index, gast.Name):
        return node.value.id, index.id
    return None


def _is_display(node):
    return isinstance(node, (gast.Tuple, gast.List))


def _joined_display(node):
    """(a, b) + (c,) as the display (a, b, c) it makes (None for anything else)."""
    if not (isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add)):
        return None
    left, right = (_joined_display(n) or n for n in (node.left, node.right))
    if _is_display(left) and type(left) is type(right):
        return type(left)(elts=left.elts + right.elts, ctx=gast.Load())
    return None
