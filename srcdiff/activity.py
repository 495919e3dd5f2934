"""Stage 2a: activity analysis. A name is *varied* when its value may depend on the
arguments differentiated (flow-insensitively, to a fixed point) and *useful* when it may reach
the differentiated output; the transforms differentiate only names that are both (active)."""

import inspect

import gast
import numpy as np

from . import ir, runtime
from .comprehension_loops import lower_comprehensions
from .errors import SrcdiffError
from .parse import MISSING, is_library_function, parsed_function
from .primitives import registry

_JOINERS = (np.r_, np.c_)  # np.r_[a, b]: a concatenation written as an index

# expressions with a scope of their own
SCOPES = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def is_push(stmt):
    """Whether `stmt` is `name.append(value)`."""
    return (
        isinstance(stmt, gast.Expr)
        and isinstance(stmt.value, gast.Call)
        and isinstance(stmt.value.func, gast.Attribute)
        and stmt.value.func.attr == "append"
        and isinstance(stmt.value.func.value, gast.Name)
        and len(stmt.value.args) == 1
        and not stmt.value.keywords
    )


def is_pop(value):
    """Whether `value` is `name.pop()`."""
    return (
        isinstance(value, gast.Call)
        and isinstance(value.func, gast.Attribute)
        and value.func.attr == "pop"
        and isinstance(value.func.value, gast.Name)
        and not value.args
        and not value.keywords
    )


def _nondifferentiable(obj):
    record = registry.find(obj)
    return record is not None and not record.differentiable


def _nondifferentiable_member(table, name):
    """Whether ndarray method or attribute `name` gives a constant (x.argmax(), x.shape), or
    operator `name` does (//)."""
    record = table(name)
    return record is not None and not record.differentiable


def _flow_pairs(stmt):
    """(target, the value it is given) of each value a flow statement passes on."""
    if isinstance(stmt, gast.Assign):
        if (
            len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Tuple)
            and isinstance(stmt.value, gast.Tuple)
            and len(stmt.targets[0].elts) == len(stmt.value.elts)
        ):
            return list(zip(stmt.targets[0].elts, stmt.value.elts))
        return [(t, stmt.value) for t in stmt.targets]
    if isinstance(stmt, gast.AugAssign):
        return [(stmt.target, stmt.value)]
    if isinstance(stmt, gast.For):
        return [(t, source) for t, source in loop_pairs(stmt) or [] if source is not None]
    return [(stmt.value.func.value, stmt.value.args[0])]  # (a push)


def target_names(target):
    if isinstance(target, gast.Subscript):
        return target_names(target.value)
    return {n.id for n in ir.walk(target) if isinstance(n, gast.Name)}


def loop_pairs(stmt):
    """(target, iterated sequence) pairs of a for loop; the sequence is None for an index."""
    it, target = stmt.iter, stmt.target
    if isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and not it.keywords:
        if (
            it.func.id == "enumerate"
            and len(it.args) in (1, 2)
            and isinstance(target, gast.Tuple)
            and len(target.elts) == 2
        ):
            inner = gast.For(
                target=target.elts[1], iter=it.args[0], body=[], orelse=[], type_comment=None
            )  # enumerate(zip(a, b)): index, then zip's
            zipped = (
                loop_pairs(inner)
                if isinstance(it.args[0], gast.Call) and len(it.args) == 1
                else None
            )
            return [(target.elts[0], None)] + (zipped or [(target.elts[1], it.args[0])])
        if (
            it.func.id == "zip"
            and isinstance(target, gast.Tuple)
            and len(target.elts) == len(it.args)
        ):
            return list(zip(target.elts, it.args))
    if isinstance(target, (gast.Name, gast.Tuple, gast.List)):  # (for W, b in params)
        return [(target, it)]
    return None


_analysing = set()  # functions whose returned items are being worked out (for recursion)


_RETURN_OR_LOOP = frozenset((gast.Return, gast.comprehension))


def _returned_items_varied(fn, wrt, varied_items):
    """Which items of the tuple that `fn` returns on its last line vary with its positional
    arguments at `wrt`, or None if it returns no tuple display there (or only there)."""
    try:
        parsed = parsed_function(fn, shared=True)
    except SrcdiffError:
        return None
    node = parsed.node
    params = [a.id for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]
    last = node.body[-1] if node.body else None
    if not (isinstance(last, gast.Return) and isinstance(last.value, gast.Tuple)):
        return None
    kinds = {n.__class__ for n in ir.nodes_of(node, _RETURN_OR_LOOP) if n is not last}
    if gast.Return in kinds:
        return None
    if gast.comprehension in kinds:  # (lowered below: in a copy, the read being shared)
        parsed = parsed_function(fn)
        node, last = parsed.node, parsed.node.body[-1]
    _analysing.add(fn)
    try:
        analysis = Activity(
            parsed, [params[i] for i in wrt if i < len(params)], varied_items=varied_items
        )
        # as its transform will: `shapes = [p.shape for p in params]` becomes a loop whose
        # appends are constant, so the shapes it returns are
        names = None  # (made when a comprehension is lowered: most functions have none)

        def fresh(base):
            nonlocal names
            names = ir.Names(node) if names is None else names
            return names.fresh(base)

        while lower_comprehensions(
            node.body, lambda n: analysis.is_active(n, analysis.varied), fresh
        ):
            analysis.update()
    finally:
        _analysing.discard(fn)
    return tuple(analysis.variation(e, analysis.varied) for e in last.value.elts)


def _joined(a, b):
    """The variation of a name assigned values of variations a and b (see variation)."""
    if a is False or b is False:
        return b if a is False else a
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        return _normalised(tuple(_joined(x, y) for x, y in zip(a, b)))
    return True


def _deeply_normalised(varied):
    """A variation with each tuple in it, its own items first, _normalised."""
    if not isinstance(varied, tuple):
        return varied
    return _normalised(tuple(_deeply_normalised(v) for v in varied))


def _normalised(items):
    """A tuple of variations, as a bool when its items are all the same bool."""
    if all(i is True for i in items) or all(i is False for i in items):
        return bool(items) and items[0]
    return items


class Activity:
    """The varied names of one function given the names it is differentiated with respect
    to; `useful(outputs)` and `is_active(node, names)` answer the rest. `varied_items`:
    (user function, active positions) -> which items of the tuple it returns vary, shared by
    one transform's analyses (and dropped after it: a rebound global may change the answer).
    In forward mode a user function with a tangent template is a primitive, in reverse mode
    one with an adjoint template."""

    def __init__(self, parsed, wrt_names, forward_mode=False, varied_items=None):
        self.p = parsed
        self.wrt_names = set(wrt_names)
        self.forward_mode = forward_mode
        self.varied_items = {} if varied_items is None else varied_items
        self.update()

    def update(self):
        """Work out the varied names again (after the function's code changed)."""
        # a varied name holding a tuple only some of whose items vary: which (see variation)
        self.partly = {}
        self.varied = self._propagate(set(self.wrt_names))
        self._useful = {}  # outputs -> useful(outputs), for the code as it is now

    def _propagate(self, active):
        """Names that may carry a gradient (flow-insensitive, to a fixed point)."""
        statements = self._flow_statements()
        while True:
            before = len(active), dict(self.partly)
            for stmt in statements:
                if isinstance(stmt, gast.Assign) and self._settled(stmt.targets, active):
                    continue  # (nothing it may vary is left: the second round, mostly)
                if isinstance(stmt, gast.Assign) and self.is_active(stmt.value, active):
                    varied = self._items_varied(stmt.value, active)
                    for target in stmt.targets:
                        self._vary(target, True if varied is None else varied, active)
                elif isinstance(stmt, gast.AugAssign) and self.is_active(stmt.value, active):
                    self._vary(stmt.target, True, active)
                elif isinstance(stmt, gast.For):
                    for target, source in loop_pairs(stmt) or []:  # None: for_statement says
                        if source is not None and self.is_active(source, active):
                            self._vary(target, True, active)
                elif is_push(stmt) and self.is_active(stmt.value.args[0], active):
                    self._vary(stmt.value.func.value, True, active)
            if (len(active), self.partly) == before:
                return active

    def _settled(self, targets, active):
        """Whether assigning to `targets` can vary nothing more: names varied as a whole."""
        return all(
            t.__class__ is gast.Name and t.id in active and t.id not in self.partly for t in targets
        )

    def _vary(self, target, varied, active):
        """Add the names `target` assigns to `active`, given which items of the value vary
        (True: all of it). A name holding a tuple some of whose items vary keeps which in
        `partly`, until (flow-insensitively) an assignment of a varied whole reaches it."""
        if isinstance(target, gast.Subscript):
            target, varied = target.value, True
        if isinstance(varied, tuple) and isinstance(target, (gast.Tuple, gast.List)):
            if len(target.elts) == len(varied) and not any(
                isinstance(e, gast.Starred) for e in target.elts
            ):
                for item, item_varied in zip(target.elts, varied):
                    if item_varied is not False:
                        self._vary(item, item_varied, active)
                return
            varied = True
        if not isinstance(target, gast.Name):
            active |= target_names(target)
            for name in target_names(target):
                self.partly.pop(name, None)
            return
        if target.id in active and target.id not in self.partly:
            return  # (varied as a whole already)
        active.add(target.id)
        # ((False,) as False, as joins give it: else the two spellings take turns, and the
        # fixed point is never reached)
        varied = _joined(self.partly.get(target.id, False), _deeply_normalised(varied))
        if varied is True:
            self.partly.pop(target.id, None)
        else:
            self.partly[target.id] = varied

    def variation(self, node, active):
        """Which parts of node's value may vary: a bool for all of it, or for a tuple only
        some of whose items do, a tuple of theirs (nested), as `flat, shapes = flatten(p)`
        needs to know that shapes do not."""
        if isinstance(node, gast.Tuple):
            return _normalised(tuple(self.variation(e, active) for e in node.elts))
        if isinstance(node, gast.Name) and node.id in self.partly and node.id in active:
            return self.partly[node.id]
        item = self._tuple_item(node, active)
        return self.is_active(node, active) if item is None else item

    def _tuple_item(self, node, active):
        """The variation of `t[k]` for a constant k and a t only some of whose items vary
        (None for any other expression)."""
        if not (
            isinstance(node, gast.Subscript)
            and isinstance(node.slice, gast.Constant)
            and type(node.slice.value) is int
        ):
            return None
        whole = self.variation(node.value, active)
        if not isinstance(whole, tuple) or not -len(whole) <= node.slice.value < len(whole):
            return None
        return whole[node.slice.value]

    def _flow_statements(self):
        """The statements that pass values on (assignments, loops, appends), in the order
        of a walk of the function: the fixed points go over these, not over every node."""
        return [
            n
            for n in ir.walk_statements(self.p.node)
            if isinstance(n, (gast.Assign, gast.AugAssign, gast.For)) or is_push(n)
        ]

    def _items_varied(self, value, active):
        """For a call of a user function that returns a tuple display, which of its items
        may vary with the arguments that are active (say, not `x.shape[0]`); else None."""
        if not isinstance(value, gast.Call):
            varied = self.variation(value, active)  # (a tuple's item, or a copy of it)
            return varied if isinstance(varied, tuple) else None
        if value.keywords or any(isinstance(a, gast.Starred) for a in value.args):
            return None
        fn = self.p.resolve(value.func)
        if not self.is_user_function(fn):
            return None
        # (a method's object is its first parameter: `self`, which may vary as well)
        receiver = self.p.receiver(value.func)
        passed = value.args if receiver is None else [receiver, *value.args]
        wrt = tuple(i for i, a in enumerate(passed) if self.is_active(a, active))
        if (fn, wrt) not in self.varied_items:
            self.varied_items[fn, wrt] = (
                None if fn in _analysing else _returned_items_varied(fn, wrt, self.varied_items)
            )
        return self.varied_items[fn, wrt]

    def useful(self, outputs):
        """Names whose value can reach the differentiated output: of a returned tuple, only
        the items `outputs` marks (flow-insensitive, backwards to a fixed point). Asked
        again of code that did not change since (update() says when it did): the set found
        then, which the asker does not change."""
        key = None if outputs is None else tuple(outputs)
        if key not in self._useful:
            self._useful[key] = self._reaching(outputs)
        return self._useful[key]

    def _reaching(self, outputs):
        ret = self.p.node.body[-1] if self.p.node.body else None
        if not isinstance(ret, gast.Return) or ret.value is None:
            return set()
        value = ret.value
        if isinstance(value, gast.Tuple) and outputs is not None:
            useful = set().union(*(ir.names_in(e) for e, keep in zip(value.elts, outputs) if keep))
        else:
            useful = ir.names_in(value)
        statements, done = self._flow_statements(), set()  # (done: all it passes on, in)
        while True:
            before = len(useful)
            for stmt in reversed(statements):  # (against the flow: fewer rounds)
                if id(stmt) in done:
                    continue
                pairs = _flow_pairs(stmt)
                reached = [source for target, source in pairs if target_names(target) & useful]
                for source in reached:
                    useful |= ir.names_in(source)
                if len(reached) == len(pairs):
                    done.add(id(stmt))
            if len(useful) == before:
                return useful

    def is_active(self, node, active):
        if isinstance(node, gast.Name):
            return node.id in active
        if isinstance(node, (gast.Constant, gast.Compare, gast.JoinedStr)):
            return False
        act = lambda n: self.is_active(n, active)  # noqa: E731  (past the commonest leaves)
        if isinstance(node, SCOPES):  # what it reads from outside makes it varied too
            return any(isinstance(n, gast.Name) and n.id in active for n in ir.walk(node))
        if isinstance(node, gast.BinOp) and _nondifferentiable_member(
            registry.operator, type(node.op)
        ):
            return False  # x // y, a constant as np.floor_divide is
        if isinstance(node, gast.UnaryOp):
            return not isinstance(node.op, (gast.Not, gast.Invert)) and act(node.operand)
        if isinstance(node, gast.Attribute):
            return not _nondifferentiable_member(registry.attribute, node.attr) and act(node.value)
        if isinstance(node, gast.Subscript):  # an index carries no gradient (an int, a mask)
            item = self._tuple_item(node, active)
            if item is not None:
                return item is not False
            joiner = self.p.resolve(node.value)
            return act(node.value) or any(joiner is j for j in _JOINERS) and act(node.slice)
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
            elif self.p.receiver(node.func) is not None:  # model.predict(x) reads model
                operands.append(self.p.receiver(node.func))
            else:
                operands = self._carrying(obj, node, operands)
            return any(act(a) for a in operands)
        return any(act(child) for child in ir.children(node))

    def _carrying(self, obj, node, operands):
        """The operands of a primitive's call through which its result varies: not those
        its template (in this mode) reads only as constants, a shape or a mask, so that
        `unpack_adjoint(g, out)` of a constant g is a constant, not a value whose tangent is
        a zero that `.mT` cannot read."""
        record = registry.find(obj)
        template = record.template(self.forward_mode) if record is not None else None
        if (
            template is None
            or any(k.arg is None for k in node.keywords)
            or any(isinstance(a, gast.Starred) for a in node.args)
        ):
            return operands
        try:
            keywords = {k.arg: k.value for k in node.keywords}
            bound = template.bind(
                node.args, {k: v for k, v in keywords.items() if k not in record.inert_keywords}
            )
        except TypeError:
            return operands
        return [v for p, v in bound.items() if p not in template.constant]

    def is_user_function(self, obj):
        """A Python function srcdiff differentiates through its source (not a runtime
        helper of emitted code, nor a library's function: those need a template); a method
        of an object is its function, called with the object first."""
        obj = obj.__func__ if inspect.ismethod(obj) else obj
        if not inspect.isfunction(obj) or runtime.is_helper(obj) or is_library_function(obj):
            return False
        record = registry.find(obj)
        return (
            record is None or record.differentiable and record.template(self.forward_mode) is None
        )
