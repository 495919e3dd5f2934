"""What a transform makes, compiled: the emitted source, its functions and callees, and
what tells whether the names it was made for still refer to what they did."""

import functools
import inspect
import io
import threading
import tokenize

from . import codegen, provenance
from .primitives import registry


class Emitted:
    """Emitted source, the functions compiled from it, and the derivatives of its callees."""

    def __init__(
        self, source, functions, meta, callees, scope=None, live=(), module=None, run=None
    ):
        """`run`, instead of the functions, scope and live names: what gives them, called
        when one is first asked for (a module_run.ModuleRun: the scope and live names may
        come alone, before the functions are asked for)."""
        self.source, self.meta, self.callees = source, meta, callees
        if run is None:
            self.functions, self.scope, self.live = functions, scope, live
            self.linked = ()
            self.function = functions[meta.names[0]]
        else:
            self._run = run
        self.variant = None  # what tells it from another derivative of its function (naming.py)
        self.module = module
        # (what a name resolves to now, what it did, the items of a container of functions)
        # for the callees and functions named by fn's globals, closure or object arguments
        self.guards = []
        # f's closure cells and defaults: held, so their ids in its memory key stay theirs
        self.closure = self.defaults = None
        self.fn = None  # f, whose defaults replaced since make the code stale
        # what specialize.py keeps for it: its functions as gast trees, and the copies of
        # them it made for given arguments
        self.parsed, self.clones = None, {}
        # the transform's trees of its functions (none for code read from disk), each
        # handed to specialize.py once, which rewrites it in place (else it parses the source)
        self.trees = {}

    def __getattr__(self, name):  # (only for what is missing: the code of an entry not run)
        if name not in _RUN or "_run" not in self.__dict__:
            raise AttributeError(name)
        with _RUNNING:  # (once, though two threads ask: the functions run in the scope kept)
            run = self.__dict__.get("_run")
            if run is not None and name in _SCOPE and "scope" not in self.__dict__:
                alone = run.scope_alone()
                if alone is not None:
                    self.__dict__.update(alone)
                    return alone[name]
            if run is not None:
                self.__dict__["_linked"] = []  # (the scopes waiting for its functions)
                try:
                    made = run()
                finally:
                    linked = self.__dict__.pop("_linked")
                made["function"] = made["functions"][self.meta.names[0]]
                self.__dict__.update(made)
                del self.__dict__["_run"]
                for scope in linked:
                    scope.update(made["functions"])
        return self.__dict__[name]

    def link(self, scope):
        """Give `scope`, of a module whose code this one's calls in a recursion through
        both, this module's functions: now, or when its run, under way, ends."""
        with _RUNNING:
            if "_linked" in self.__dict__:
                self._linked.append(scope)
            else:
                scope.update(self.functions)

    @functools.cached_property
    def has_live(self):
        """Whether refresh() has anything to re-read, or current() to check (calls skip
        them otherwise)."""
        return (
            bool(self.live or self.guards)
            or any(use.cyclic for use in self.meta.callees)
            or any(c.has_live for c in self.callees)
        )

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
                and _through_linked(self, Emitted.current)
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
        _through_linked(self, Emitted.refresh)

    def full_source(self):
        """This module's source followed by the functions of every derivative it calls, once
        each. Derivatives that share a name, made in different callers' modules (a method
        reached through one base-class method, made per class of its object), are listed
        under names that tell them apart: their class's, or else a number."""
        listed, children = _listing(self)
        shown = _shown_names(listed)
        parts = []
        for entry in listed:
            renames = dict(zip(entry.meta.names, shown[id(entry)]))
            for child in children[id(entry)]:
                renames.update(zip(child.meta.names, shown[id(child)]))
            text = entry.source if entry is self else codegen.definitions(entry.source)
            parts.append(_renamed(text, renames).rstrip("\n"))
        return "\n\n\n".join(parts) + "\n"


# what an Emitted made without its code gets when it is run (Emitted.__getattr__), and the
# lock that runs one at a time (a module runs its callees' first: the thread holds it again)
_RUN = frozenset({"functions", "function", "scope", "live", "linked"})
_SCOPE = frozenset({"scope", "live", "linked"})  # (what may come before the functions)
_RUNNING = threading.RLock()
_WALKED = threading.local()  # (the linked derivatives a check has reached: see _through_linked)


def _through_linked(entry, check):
    """Whether `check` holds of each derivative `entry` was linked with as it ran (those
    calling each other's functions in a recursion: module_run.py), each checked once in a
    walk from the first entry asked, since they reach each other again; True before it ran."""
    linked = entry.__dict__.get("linked", ())
    if not linked:
        return True
    walked = getattr(_WALKED, "ids", None)
    first = walked is None
    if first:
        walked = _WALKED.ids = {id(entry)}
    try:
        unwalked = [other for other in linked if id(other) not in walked]
        walked.update(map(id, unwalked))
        return all([check(other) is not False for other in unwalked])
    finally:
        if first:
            _WALKED.ids = None


def _listing(root):
    """The derivatives under `root` (itself first), breadth first, one of each that emits the
    same code calling the same derivatives; and {id(entry): the listed ones it calls}."""
    keys, listed, children = {}, [root], {}
    by_key = {_key(root, keys): root}
    for entry in listed:
        children[id(entry)] = []
        for callee in [*entry.callees, *entry.linked]:
            found = by_key.setdefault(_key(callee, keys), callee)
            if found is callee and all(found is not e for e in listed):
                listed.append(found)
            children[id(entry)].append(found)
    return listed, children


def _key(entry, keys, within=()):
    """What tells two derivatives' code apart: their source and their callees' (a recursive
    callee is told by its place on the path)."""
    if id(entry) in within:
        return ("recursion", within.index(id(entry)))
    if id(entry) not in keys:
        path = within + (id(entry),)
        keys[id(entry)] = (
            entry.source,
            tuple(_key(c, keys, path) for c in [*entry.callees, *entry.linked]),
        )
    return keys[id(entry)]


def _shown_names(listed):
    """{id(entry): the names its functions are listed under}: their own, but where two listed
    derivatives share one, each of those is named by its function's class (fwd_Dense_forward_x)
    where that tells them apart, else all but the first numbered."""
    sharing = {}
    for entry in listed[1:]:
        sharing.setdefault(entry.meta.names, []).append(entry)
    taken = {name for entry in listed for name in entry.meta.names}
    shown = {id(entry): entry.meta.names for entry in listed}
    for names, entries in sharing.items():
        if len(entries) < 2 and names[0] not in listed[0].meta.names:
            continue
        by_class = _told_by_class(entries)
        first = 0 if by_class or names[0] in listed[0].meta.names else 1  # (kept by the first)
        for k, entry in enumerate(entries[first:], first):
            new = tuple(told_apart(n, entry, k + 1, by_class) for n in names)
            if taken.isdisjoint(new) and len(set(new)) == len(new):
                shown[id(entry)] = new
                taken.update(new)
    return shown


def _told_by_class(entries):
    """Whether the classes of their functions tell these derivatives apart."""
    owners = [_owner(entry) for entry in entries]
    return None not in owners and len(set(owners)) == len(owners)


def told_apart(name, entry, number, by_class=True):
    """The name `name` of one of entry's functions, told apart from another derivative's of
    the same name by entry's function's class (fwd_forward_x: fwd_Dense_forward_x), or else
    by a number."""
    fn_name = getattr(entry.fn, "__name__", "")
    if by_class and _owner(entry) and fn_name and f"_{fn_name}" in name:
        return name.replace(f"_{fn_name}", f"_{_owner(entry)}_{fn_name}", 1)
    return f"{name}_{number}"


def _owner(entry):
    """The class whose method the derivative's function is (None for a plain function)."""
    parts = getattr(entry.fn, "__qualname__", "").split(".")
    return parts[-2] if len(parts) > 1 and parts[-2] != "<locals>" else None


def _renamed(text, renames):
    """Source `text` with each name token in `renames` replaced (not in strings or comments)."""
    renames = {old: new for old, new in renames.items() if old != new}
    if not renames:
        return text
    lines = text.splitlines(True)
    found = [
        t
        for t in tokenize.generate_tokens(io.StringIO(text).readline)
        if t.type == tokenize.NAME and t.string in renames
    ]
    for token in reversed(found):
        (row, col), (_, end) = token.start, token.end
        line = lines[row - 1]
        lines[row - 1] = line[:col] + renames[token.string] + line[end:]
    return "".join(lines)


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
