"""What a transform makes, compiled: the emitted source, its functions and callees, and
what tells whether the names it was made for still refer to what they did."""

import functools
import inspect

from . import codegen, provenance
from .primitives import registry


class Emitted:
    """Emitted source, the functions compiled from it, and the derivatives of its callees."""

    def __init__(self, source, functions, meta, callees, scope=None, live=(), module=None):
        self.source, self.functions, self.meta, self.callees = source, functions, meta, callees
        self.function = functions[meta.names[0]]
        self.variant = None  # what tells it from another derivative of its function (naming.py)
        self.scope, self.live, self.module = scope, live, module
        # (what a name resolves to now, what it did, the items of a container of functions)
        # for the callees and functions named by fn's globals, closure or object arguments
        self.guards = []
        # f's closure cells and defaults: held, so their ids in its memory key stay theirs
        self.closure = self.defaults = None
        self.fn = None  # f, whose defaults replaced since make the code stale
        # what specialize.py keeps for it: its functions as gast trees, and the copies of
        # them it made for given arguments
        self.parsed, self.clones = None, {}

    @functools.cached_property
    def has_live(self):
        """Whether refresh() has anything to re-read, or current() to check (calls skip
        them otherwise)."""
        return bool(self.live or self.guards) or any(c.has_live for c in self.callees)

    def current(self):
        """Whether each callee this code was made for is still what its name refers to (a
        global rebound since, say a helper replaced, needs the code made anew)."""
        try:
            return (
                self._same_defaults()
                and all(
                    _same_callable(resolve(), target)
                    and _same(provenance.contents(target), contents)
                    for resolve, target, contents in self.guards
                )
                and all(callee.current() for callee in self.callees)
            )
        except (LookupError, AttributeError, ValueError, TypeError):  # (deleted since)
            return False

    def _same_defaults(self):
        return self.fn is None or (
            self.fn.__defaults__ is self.defaults[0] and self.fn.__kwdefaults__ is self.defaults[1]
        )

    def refresh(self):
        """Re-read the globals and closure variables the emitted code uses (a few dict
        look-ups per call, so the emitted code itself keeps fast exact-dict globals)."""
        for name, cell in self.live:
            try:
                value = cell.cell_contents if cell is not None else self.module[name]
            except (ValueError, KeyError):
                continue
            if self.scope.get(name) is not value:
                self.scope[name] = value
        for callee in self.callees:
            callee.refresh()

    def full_source(self):
        """This module's source followed by the functions of every callee it uses, once each."""
        parts, seen = [self.source.rstrip("\n")], set(self.meta.names)
        stack = list(self.callees)
        while stack:
            callee = stack.pop(0)
            if callee.meta.names[0] in seen:
                continue
            seen.update(callee.meta.names)
            parts.append(codegen.definitions(callee.source).rstrip("\n"))
            stack.extend(callee.callees)
        return "\n\n\n".join(parts) + "\n"


def namespace(fn):
    return dict(registry.template_globals(), __name__=fn.__module__)


def live_names(codes, scope, fn):
    """(name, closure cell or None) for each name emitted code (`codes`: codegen.compiled's)
    reads from fn's closure or module: Emitted.refresh() re-reads them, so rebinding a global
    is seen as by fn. What the module binds itself (its imports: np, runtime; its defs) and
    what the scope has are its own."""
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    among = (cells.keys() | fn.__globals__.keys()) - scope.keys()
    return [(name, cells.get(name)) for name in sorted(provenance.global_reads(codes, among))]


def _same_callable(a, b):
    """a is b, for a bound method (made anew at each look-up) its function and object."""
    if inspect.ismethod(a) and inspect.ismethod(b):
        return a.__func__ is b.__func__ and a.__self__ is b.__self__
    return a is b


def _same(items, others):
    return len(items) == len(others) and all(
        k == j and v is w for (k, v), (j, w) in zip(items, others)
    )
