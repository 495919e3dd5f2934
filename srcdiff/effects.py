"""Stage 2c, statements kept for their effect: a bare expression in a differentiated function.

`print(x)`, logging, warnings, plotting, a method of a value that carries no gradient, a
recorder object's method, or a user function that writes into nothing run as written in the
forward sweep; a stack's `append` is a push; a change in place of a differentiated value is
refused with what to write instead.
"""

import collections
import operator

import gast
import numpy as np

from . import codegen, ir
from .activity import is_pop, is_push
from .errors import SrcdiffError, UnsupportedError
from .parse import MISSING, parsed_function
from .primitives import registry
from .shapes import IN_PLACE_METHODS, MUTATORS

# calls made for what they show, never changing a value
_EFFECT_MODULES = {"logging", "warnings", "matplotlib", "pprint", "tqdm"}
# the nodes of a del that frees names only (`del a, (b, c)`)
_NAMES = (gast.Name, gast.Tuple, gast.List, gast.expr_context)


def _writes_nothing(fn):
    """Whether user function fn's source writes into no subscript or attribute and calls
    no method that changes a list in place (so a call of it for its effect only reads)."""
    try:
        node = parsed_function(fn, shared=True).node
    except SrcdiffError:
        return False
    for n in ir.walk(node):
        if isinstance(n, (gast.Subscript, gast.Attribute)) and isinstance(n.ctx, gast.Store):
            return False
        if (
            isinstance(n, gast.AugAssign)
            or isinstance(n, gast.Call)
            and any(k.arg == "out" for k in n.keywords)
            or isinstance(n, gast.Call)
            and isinstance(n.func, gast.Attribute)
            and n.func.attr in IN_PLACE_METHODS
        ):
            return False
    return True


class EffectStatements:
    """Bare expression statements, for the Normalizer (anf.py)."""

    def _refuse_a_list_method_of_another_kind(self, stmt, loc):
        """`window.append(v)` of an object made by a class other than list: a backward sweep
        takes append and pop for a list's, but a deque with a maxlen drops items as it
        appends (its gradient was silently wrong), a class of yours does what its method
        says. (Forward mode runs the object's own method as it goes.)"""
        call = stmt.value
        if not (is_push(stmt) or is_pop(call)) or self.forward_mode:
            return
        name = call.func.value.id
        if name not in self.active:
            return
        for made in self.aliasing.values_of(name):
            kind = self.p.resolve(made.func) if isinstance(made, gast.Call) else None
            bounded = kind is collections.deque and (
                len(made.args) > 1 or any(k.arg == "maxlen" for k in made.keywords)
            )
            if isinstance(kind, type) and kind not in (list, collections.deque) or bounded:
                raise UnsupportedError(
                    f"{name}.{call.func.attr}(...) of the {kind.__name__} "
                    f"{gast.unparse(made)}: srcdiff follows append and pop of a list "
                    "(or of a deque without maxlen)",
                    loc,
                    f"keep a list instead ({name} = {name}[1:] + [v] for a window of fixed length)",
                )

    def kept_as_written(self, value, loc):
        """`value` renamed, for an assignment kept as written (it carries no gradient). In a
        derivative of emitted code, a call of another emitted function that changes its
        arguments (a backward function: it pops the stacks and clears the lists of the saved
        values it is passed) is passed copies of those that vary: the derivative's own
        backward sweep reads their lists again, having saved them as they were (zero
        adjoints sized from stacks popped empty were empty: 'pop from empty list')."""
        self.refuse_a_pop_kept_inside(value, loc)
        renamed = self.rename(value)
        if not (isinstance(value, gast.Call) and codegen.is_emitted(self.p.filename)):
            return renamed
        fn = self.p.resolve(value.func)
        code = getattr(fn, "__code__", None)
        if code is None or not codegen.is_emitted(code.co_filename) or _writes_nothing(fn):
            return renamed
        renamed.args = [
            ir.call("runtime.unconsumed", new) if self._is_active(old, self.varied) else new
            for old, new in zip(value.args, renamed.args)
        ]
        return renamed

    def refuse_a_pop_kept_inside(self, value, loc):
        """A pop of a differentiated list inside a value with no gradient, that desugar.py
        could not make a statement of its own (the list read before it, or the pop under
        `and`, `or`, `if`-`else`): the list's adjoint would get no item back for it."""
        for node in ir.walk(value) if self.popped else ():  # (most functions pop nothing)
            if is_pop(node) and node.func.value.id in self.active:
                name = node.func.value.id
                raise UnsupportedError(
                    f"{name}.pop() inside {gast.unparse(value)[:60]}: srcdiff follows the pop "
                    "of a differentiated list as a statement of its own",
                    loc,
                    f"pop into a name first (item = {name}.pop()), then use the item",
                )

    def _changed_in_place(self, value, loc, out):
        """A call changing a differentiated value in place: an array's own sort, followed
        as `x = np.sort(x)`; anything else is refused."""
        if _sorts_a_name(value) and self._sorts_its_own_array(value.func.value.id):
            # (list.sort takes only key= and reverse=: anything else sorts an array)
            self.assign_statement(_sorted_array(value), loc, out)
            return
        if _sorts_a_name(value):
            raise _sort_refused(value, loc)
        at = self.p.resolve(value.func)
        if getattr(at, "__name__", None) == "at" and isinstance(at.__self__, np.ufunc):
            raise _ufunc_at_refused(value, at.__self__, loc)
        raise UnsupportedError(  # (np.copyto(y, x), x.sort(): a change in place)
            f"{gast.unparse(value)[:60]} changes a value in place (or has no effect), "
            "with a differentiated value: srcdiff follows values assigned, not values "
            "changed",
            loc,
            "assign a new value instead (d = {**d, 'b': v}, xs = xs + "
            "[v], y = np.sort(x)); to keep values for later, return them with "
            "has_aux=True",
        )

    def expression_statement(self, stmt, loc, out):
        """A bare expression: `stack.append(v)`, a call kept for its effect, a docstring."""
        value = stmt.value
        if isinstance(value, (gast.Yield, gast.YieldFrom, gast.Await)):
            raise yield_refused(loc)
        if isinstance(value, gast.Constant):
            return
        if (
            isinstance(value, gast.Call)
            and isinstance(value.func, gast.Attribute)
            and isinstance(value.func.value, gast.Name)
            and value.func.attr in MUTATORS
            and self._is_active(value, self.varied)
        ):
            versions = lambda n: self.versions.get(n, n)  # noqa: E731
            out += self.aliasing.shared_change_checks(stmt, value.func.value.id, loc, versions)
        self._refuse_a_list_method_of_another_kind(stmt, loc)
        if is_push(stmt) and value.func.value.id in self.active:
            stack = self.versions.get(value.func.value.id, value.func.value.id)
            out.append(ir.Push(stack, self.atom(value.args[0], loc, out), loc))
            return
        if is_pop(value) and value.func.value.id in self.active:
            # stack.pop() dropping its item (an emitted gradient's, for an item with no
            # adjoint): a pop into a name nothing reads
            stack = self.versions.get(value.func.value.id, value.func.value.id)
            out.append(ir.Pop(self.names.fresh("_t"), stack, loc))
            return
        if is_push(stmt) or is_pop(value):  # of a list no output reads (running statistics,
            # or an emitted gradient's adjoint list past its last read)
            out.append(ir.Statement(self.rename(stmt), loc))
            return
        if self._releases(stmt):
            return  # like del: only frees memory (emitted backward functions do it)
        if (
            isinstance(value, gast.Call)
            and any(k.arg == "out" for k in value.keywords)
            and self._is_active(value, self.varied)
        ):
            raise _out_refused(value, loc)
        if self._is_active(value, self.varied) and not self._reads_only(value):
            self._changed_in_place(value, loc, out)
            return
        written = self._written_by(value) if isinstance(value, gast.Call) else []
        out.append(  # print(x), logging: as written
            self.aliasing.kept_write(stmt, self.rename(stmt), written, loc, self.versions)
        )

    def _sorts_its_own_array(self, name):
        """Whether `name`.sort() may be followed as `name = np.sort(name)`: name bound only
        to new values (x.copy(), x * 2), no caller's array nor a view, which f sorts too."""
        values = [
            n.value
            for n in ir.walk(self.p.node)
            if isinstance(n, gast.Assign) and name in ir.names_in(n.targets[0], gast.Store)
        ]
        return (
            self.p.resolve(ir.attr("np", "sort")) is np.sort
            and name not in self.params
            and bool(values)
            and all(_is_a_new_array(v) for v in values)
        )

    def _written_by(self, call):
        """The names whose arrays a call kept as written may change in place: its out=,
        a ufunc's outputs passed by position, the receiver of a method that changes it
        (y.fill(v)), the first argument of another numpy function (np.copyto(y, x),
        np.put, np.fill_diagonal: numpy's writers write there), every argument of a
        function that may write into them (one of the user's that writes), none of a call
        that only reads."""
        written = [k.value for k in call.keywords if k.arg == "out"]
        func = self.p.resolve(call.func)
        module = (getattr(func, "__module__", None) or "").split(".")[0]
        if isinstance(func, np.ufunc):
            written += call.args[func.nin :]
        elif func is MISSING and isinstance(call.func, gast.Attribute):
            if call.func.attr in IN_PLACE_METHODS:
                written.append(call.func.value)
        elif module == "numpy" and registry.find(func) is None:
            written += call.args[:1]
        elif not (
            self._records(call.func)
            or func is print
            or registry.find(func) is not None
            or module in _EFFECT_MODULES
            or self.activity.is_user_function(func)
            and _writes_nothing(func)
        ):
            written += call.args + [k.value for k in call.keywords]
        return [ir.root_name(node) for node in written]

    def delete_statement(self, stmt, loc, out):
        """`del name` (or `del a, b`) only frees memory (emitted backward functions use it); `del xs[k]` of a
        value that carries no gradient runs as written, as its methods do. Of a differentiated
        list f makes, list_changes.py rebound it already; of any other differentiated value
        it would change what another name holds, or a dict, which srcdiff does not follow."""
        kept = [t for t in stmt.targets if not all(isinstance(n, _NAMES) for n in ir.walk(t))]
        if not kept:
            return
        if any(self._is_active(t, self.varied) for t in kept):
            raise UnsupportedError(
                f"del {gast.unparse(kept[0])} changes a differentiated value in place, which "
                "srcdiff follows only for a list f makes that no other name holds",
                loc,
                "build the value anew without the item: xs = xs[:k] + xs[k + 1:], "
                "d = {key: v for key, v in d.items() if key != k}",
            )
        out.append(ir.Statement(self.rename(stmt), loc))

    def _reads_only(self, call):
        """Whether a call made for its effect only reads its arguments: print, logging,
        warnings, plotting, a method of a value that carries no gradient (ax.plot(x)), or
        a function of the user's that writes into nothing (log_stats(x))."""
        if not isinstance(call, gast.Call):
            return False
        if self._records(call.func):
            return True
        func = self.p.resolve(call.func)
        if func is MISSING:
            if not isinstance(call.func, gast.Attribute):
                return False
            # (a method that changes a receiver f's result reads, y.fill(v), writes v in)
            changes = call.func.attr in IN_PLACE_METHODS and ir.names_in(call.func.value)
            return not (changes and changes & self.useful) and not self._is_active(
                call.func.value, self.varied
            )
        if func is print or registry.find(func) is not None:
            return func is print
        module = (getattr(func, "__module__", None) or "").split(".")[0]
        if module in _EFFECT_MODULES:
            return True
        return self.activity.is_user_function(func) and _writes_nothing(func)

    def _records(self, func):
        """Whether `func` is a method of a global or closure object that f uses only so,
        for its effect (`HISTORY.append(float(loss))`, `recorder.log(h)`): what it keeps
        is never read back into f's result."""
        if not (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)):
            return False
        name = func.value.id
        if name in self.p.local_names or self.p.resolve(func.value) is operator:
            return False  # (operator.setitem(y, i, v), operator.iadd: a change of y)
        receivers = {
            id(s.value.func.value)
            for s in ir.walk(self.p.node)
            if isinstance(s, gast.Expr)
            and isinstance(s.value, gast.Call)
            and isinstance(s.value.func, gast.Attribute)
        }
        return all(
            id(n) in receivers
            for n in ir.walk(self.p.node)
            if isinstance(n, gast.Name) and n.id == name
        )

    def _releases(self, stmt):
        """Whether `stmt` is `saved.clear()` of a list that the function reads only once
        elsewhere, to unpack it: what an emitted backward function does with its saved
        values, freeing them early."""
        call = stmt.value
        if not (
            isinstance(call, gast.Call)
            and isinstance(call.func, gast.Attribute)
            and call.func.attr == "clear"
            and isinstance(call.func.value, gast.Name)
            and not call.args
            and not call.keywords
        ):
            return False
        name = call.func.value.id
        loads = [
            n
            for n in ir.walk(self.p.node)
            if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
        ]
        unpacks = [
            n
            for n in ir.walk(self.p.node)
            if isinstance(n, gast.Assign)
            and isinstance(n.value, gast.Name)
            and n.value.id == name
            and isinstance(n.targets[0], (gast.Tuple, gast.List))
        ]
        return len(loads) == 2 and len(unpacks) == 1


def _out_refused(call, loc):
    """The error for `np.f(..., out=y)` on a differentiated value, whose hint is the
    assignment that means the same."""
    out = gast.unparse(next(k.value for k in call.keywords if k.arg == "out"))
    where = next((k.value for k in call.keywords if k.arg == "where"), None)
    plain = gast.unparse(
        gast.Call(
            func=call.func,
            args=call.args,
            keywords=[k for k in call.keywords if k.arg not in ("out", "where")],
        )
    )
    if where is not None:  # (out keeps its values where `where` is False)
        plain = f"np.where({gast.unparse(where)}, {plain}, {out})"
    return UnsupportedError(
        f"{gast.unparse(call.func)}(..., out=...) writes its result into an array "
        "in place, which srcdiff cannot follow",
        loc,
        f"assign the result instead: {out} = {plain}",
    )


def _sorts_a_name(call):
    return (
        isinstance(call, gast.Call)
        and isinstance(call.func, gast.Attribute)
        and call.func.attr == "sort"
        and isinstance(call.func.value, gast.Name)
        and not {k.arg for k in call.keywords} & {"key", "reverse"}
    )


def _is_a_new_array(value):
    copied = (
        isinstance(value, gast.Call)
        and isinstance(value.func, gast.Attribute)
        and value.func.attr == "copy"
    )
    return copied or isinstance(value, (gast.BinOp, gast.UnaryOp))


def _sorted_array(call):
    """`y.sort(...)` of a differentiated value as `y = np.sort(y, ...)`, y checked to be an
    array as it runs where the call does not show it (no arguments: a list's sort too)."""
    name = call.func.value.id
    sorted_name = ir.name(name)
    if not call.args and not call.keywords:
        sorted_name = ir.call("runtime.an_array", sorted_name, ir.const(name))
    value = ir.call("np.sort", sorted_name, *call.args)
    value.keywords = call.keywords
    return gast.copy_location(ir.assign(name, value), call)


def _sort_refused(call, loc):
    """The error for `y.sort()` of a differentiated value that is not a list f makes itself
    (list_changes.py rebinds those): an array's, or one that may be either."""
    name = call.func.value.id
    sorted_array = gast.Call(
        func=ir.attr("np", "sort"), args=[ir.name(name), *call.args], keywords=call.keywords
    )
    return UnsupportedError(
        f"{gast.unparse(call)} sorts {name} in place, with a differentiated value: srcdiff "
        "follows values assigned, not values changed",
        loc,
        f"assign the sorted values instead: {name} = {gast.unparse(sorted_array).strip()} "
        f"of an array, {name} = sorted({name}) of a list",
    )


def yield_refused(loc):
    return UnsupportedError(
        "generators and coroutines cannot be differentiated by themselves: srcdiff follows a "
        "generator where its caller loops over all its items (for x in gen(...), "
        "list(gen(...)), sum(gen(...)))",
        loc,
        "loop over the generator where it is called, or return a list instead of yielding values",
    )


def _ufunc_at_refused(call, ufunc, loc):
    """The error for np.maximum.at(a, i, v) and the like of a differentiated value (np.add.at
    and np.subtract.at are lowered to item writes: write_forms.py)."""
    a, i, v = (gast.unparse(arg) for arg in call.args[:3]) if len(call.args) >= 3 else "aiv"
    return UnsupportedError(
        f"np.{ufunc.__name__}.at changes {a} in place, with a differentiated value: srcdiff "
        "follows np.add.at and np.subtract.at, not other ufuncs' .at",
        loc,
        f"for a shift whose derivative cancels (a segment softmax's maximum), pass "
        f"nf.stop_gradient({v}); else loop over the items: for k, j in enumerate({i}): "
        f"{a}[j] = np.{ufunc.__name__}({a}[j], {v}[k])",
    )
