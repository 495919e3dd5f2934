"""The errors for a call of a function srcdiff cannot tell before the call runs (a mixin of
expressions.Expressions): of a parameter or what it holds (a request to make the code when
the function is called), of a function a call returns, of an item picked at run time."""

import functools
import re
import sys

import gast

from . import ir, runtime
from .container_sharing import LIST_CHANGES
from .errors import NoAdjointError, StaticArgumentNeeded, UnsupportedError
from .made_derivatives import refuse_unresolved_derivative
from .provenance import holds_functions, is_library_file
from .user_calls import STATIC_HINT

# (a deque's methods at its front)
_AT_THE_FRONT = ("popleft", "appendleft", "extendleft", "rotate")


def as_written(name, loc):
    """`name` as the user's line spells it: a name an inlining gave a lambda's or function's
    parameter (`_combine0_lp`, `g_lp`) shown as the parameter (`lp`) the line names."""
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", loc.line if loc else ""))
    if name in words:
        return name
    endings = [word for word in words if name.endswith(f"_{word}")]
    renamed = re.fullmatch(r"_([A-Za-z_][A-Za-z0-9_]*?)[0-9]+", name)  # (a loop's `o` as _o0)
    if not endings and renamed and renamed.group(1) in words:
        return renamed.group(1)
    return max(endings, key=len, default=name)


class UnknownCallees:
    def _bound_again(self, name):
        """Whether f's body binds its parameter `name` (`if act is None: act = relu`)."""
        return any(
            isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Store)
            for n in ir.walk(self.p.node)
        )

    def _unknown_callee(self, func, loc):
        """Raise the error saying why the function func names is not known here."""
        what = gast.unparse(func)
        self._refuse_parameter_call(func, what, loc)
        self._refuse_item_call(func, what, loc)
        made = self._made_by(func)
        if made is not None:
            refuse_unresolved_derivative(made, what, self.p, self.params, loc)
            self._refuse_calling_what_a_call_made(made, what, loc)
        _refuse_in_place_call(func, what, loc)
        held = func.value if isinstance(func, gast.Subscript) else None
        if isinstance(held, gast.Name) and held.id in self.p.local_names:
            written = as_written(held.id, loc)
            raise UnsupportedError(
                f"{what.replace(held.id, written)}(...) calls a function held in the list "
                f"{written!r}, which srcdiff cannot tell before the call runs (it follows a "
                "name bound once to a function, or to a list, tuple or dict display of "
                "functions left unchanged)",
                loc,
                "bind the list once to a display (fs = [np.tanh, relu]) and call fs[i](h), "
                "loop over zip(fs, params) (for fn, p in zip(fs, params): h = fn(h, p)), "
                "or call the function by its name",
            )
        root = func
        while isinstance(root, gast.Attribute):
            root = root.value
        written = as_written(root.id, loc) if isinstance(root, gast.Name) else None
        if written is not None and (
            root is not func or root.id in self.p.local_names or written != root.id
        ):
            raise NoAdjointError(
                f"cannot differentiate through {what.replace(root.id, written, 1)}(...): "
                "srcdiff cannot tell before the call runs what it calls (a function chosen "
                "as it runs, or an object's method or __call__: of objects of several "
                "classes in one list, of a dict's values, or of what an operator returns)",
                loc,
                "call a function by its name, and an object on a name bound to a call of "
                "its class (layer = Dense(W, b); layer(h)), or loop over a list of objects "
                "of one class",
            )
        raise NoAdjointError(
            f"cannot differentiate through {what}(...)",
            loc,
            f"srcdiff does not know what {what!r} is; call a numpy function "
            "or one with a registered adjoint",
        )

    def _refuse_parameter_call(self, func, what, loc):
        """A call of a parameter (or of a method of one) that no static argument tells."""
        root = ir.dotted(func)
        if root is not None and root[0] in self.params and self._bound_again(root[0]):
            raise UnsupportedError(
                f"{what}(...) calls the parameter {root[0]!r}, which the function binds "
                "again: srcdiff cannot tell whether the function passed or the one bound "
                "here is called",
                loc,
                f"give {root[0]} the function as its default ({root[0]}=...) instead of "
                "binding it in the body, or call the function bound by a name of its own",
            )
        if (
            root is not None
            and root[0] in self.params
            and getattr(self.p.statics.get(root[0]), "kind", None) != "tree"
        ):
            raise StaticArgumentNeeded(
                f"{what}(...) calls {'a method of ' if len(root) > 1 else ''}the "
                f"parameter {root[0]!r}, which is known only when the function is called",
                loc,
                STATIC_HINT,
                parameter=root[0],
            )

    def _refuse_calling_what_a_call_made(self, made, what, loc):
        """Refuse calling what the call `made` returns (an object, or a function: a derivative
        made in f is refuse_unresolved_derivative's)."""
        self._refuse_calling_an_object_made_here(made, loc, what)
        raise UnsupportedError(
            f"{what}(...) calls the function that {gast.unparse(made)} returns, which srcdiff "
            "cannot tell before the call runs",
            loc,
            "call the function by its name, "
            "or pick it from a container by a constant key (cfg['act'](h))",
        )

    def _refuse_calling_an_object_made_here(self, made, loc, what=None):
        """Refuse `Layer(w, b)(x)`, the call `made` making an object of a class (or the
        runtime.replaced(...) of its fields that making one from differentiated values
        becomes), saying to name it; an object of a library's class (np.vectorize(g)),
        named or not, saying that its __call__ is not followed."""
        while self.p.resolve(made.func) is runtime.replaced and made.args:
            if not isinstance(made.args[0], gast.Call):
                return
            made = made.args[0]
        kind = self.p.resolve(made.func)
        if isinstance(kind, type) and kind is not functools.partial and _of_a_library(kind):
            raise UnsupportedError(
                f"{what or gast.unparse(made)}(...) calls an object of {kind.__module__}."
                f"{kind.__qualname__} ({gast.unparse(made)[:60]}), whose __call__ srcdiff "
                "does not follow",
                loc,
                "call the function it wraps yourself (numpy's functions take whole arrays), "
                "or loop over the items",
            )
        if isinstance(kind, type):
            name = "fn" if kind is functools.partial else "layer"
            raise UnsupportedError(
                "this line calls an object it makes (its class's __call__): srcdiff follows "
                "an object's methods through a name",
                loc,
                f"name the object first: {name} = {kind.__name__}(...), then {name}(x)",
            )

    def _made_by(self, func):
        """The call that made the function `func` calls: func itself (nf.grad(g)(x)), or the
        call a local name is bound to once (dg = nf.grad(g); dg(x)); else None."""
        if isinstance(func, gast.Call):
            return func
        if not isinstance(func, gast.Name) or func.id not in self.p.local_names:
            return None
        bound = [
            stmt.value
            for stmt in ir.walk(self.p.node)
            if isinstance(stmt, gast.Assign)
            and any(isinstance(t, gast.Name) and t.id == func.id for t in stmt.targets)
        ]
        return bound[0] if len(bound) == 1 and isinstance(bound[0], gast.Call) else None

    def _refuse_item_call(self, func, what, loc):
        """For a call of what a parameter holds (`cfg["act"](h)`), the request to make the
        code for its functions and objects when the function is called; once it is made,
        the error for an item that is no function srcdiff can tell before the call."""
        root = func
        while isinstance(root, (gast.Attribute, gast.Subscript)):
            root = root.value
        if not isinstance(root, gast.Name) or root.id not in self.params or root is func:
            return
        if root.id not in self.p.statics:
            raise StaticArgumentNeeded(
                f"{what}(...) calls an item of the parameter {root.id!r}, which is known "
                "only when the function is called",
                loc,
                STATIC_HINT,
                parameter=root.id,
                kind="tree",
            )
        raise UnsupportedError(
            f"{what}(...) calls what the parameter {root.id!r} holds there, which is no "
            "function (nor object with that method) that srcdiff can tell before the call",
            loc,
            f"pick it by constant keys ({root.id}['act'], {root.id}[0]), or by a "
            "parameter, from functions or objects the argument holds; or loop over a list "
            "of them (for layer in layers: h = layer(h))",
        )

    def _picked_at_run_time(self, func, loc):
        """The error for a call of `ACTIVATIONS[key]`, a function picked from a global
        container by a key known only at run time: for a parameter, a request to make the
        code for its value (when the function is called); else a refusal."""
        container = self.p.container(func.value)
        if not (isinstance(container, (dict, list, tuple)) and holds_functions(container)):
            return
        what, key = gast.unparse(func), func.slice
        if isinstance(key, gast.Name) and key.id in self.params:
            raise StaticArgumentNeeded(
                f"{what}(...) calls the function the parameter {key.id!r} picks, which is "
                "known only when the function is called",
                loc,
                "srcdiff makes the code for "
                "the key passed (a str or an int): call the derivative with it, or give the "
                "parameter a default",
                parameter=key.id,
                kind="key",
            )
        raise UnsupportedError(
            f"{what}(...) calls a function picked by {gast.unparse(key)}, a value known only "
            "at run time: srcdiff makes the code for a function it knows before the call",
            loc,
            f"pick it by a constant key ({gast.unparse(func.value)}['relu']), by a "
            "parameter of the differentiated function (the code is made for the value each "
            "call passes), or pass the function itself as an argument",
        )


def _refuse_in_place_call(func, what, loc):
    """Refuse a method call that changes its object in place where srcdiff does not follow
    it (in an expression, of a dict, or at a deque's front)."""
    if isinstance(func, gast.Attribute) and func.attr in (*LIST_CHANGES, "append"):
        raise UnsupportedError(
            f"{what}(...) changes a value in place, which srcdiff follows only in a "
            f"statement of its own (v = {what}(...)), of a list f makes that no other name "
            "holds while it changes (not a dict's pop)",
            loc,
            "call it on a line of its own, or bind the name to a new value instead "
            "(xs = xs[1:], xs = xs + [v], d = {**d, 'b': v}; for v = d.pop(k): v = d[k] "
            "and d = {key: u for key, u in d.items() if key != k})",
        )
    if isinstance(func, gast.Attribute) and func.attr in _AT_THE_FRONT:
        queue = gast.unparse(func.value).strip()
        raise UnsupportedError(
            f"{what}(...) changes a deque at its front, which srcdiff does not follow "
            "(it follows append and pop, at the end, as a stack's)",
            loc,
            f"keep a list and read it in order by a count: v = {queue}[k]; k += 1 "
            f"(while k < len({queue}); {queue}.append(w) still adds to the queue)",
        )


def _of_a_library(kind):
    """Whether class `kind` is a library's (numpy's, the stdlib's), not the user's."""
    filename = getattr(sys.modules.get(kind.__module__), "__file__", None)
    return filename is None or is_library_file(filename)
