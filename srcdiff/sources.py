"""Reading a function's source: its lines (kept while linecache holds its file), the check
that they are the code it runs, and their parse as a gast FunctionDef numbered as in its
file (kept for the functions of a module read again as siblings)."""

import ast
import contextlib
import functools
import inspect
import linecache
import threading

import gast

from . import conversion, ir, naming, wrappers
from .dead_branches import drop_dead_branches
from .errors import Location, SrcdiffError, UnsupportedError
from .lambda_source import AmbiguousLambda
from .provenance import check_source_runs


class _Readings(threading.local):
    kept = None  # fn -> its ParsedFunction made for no static arguments, in one transform
    facts = None  # analysis -> {fn: what it found of fn}, in one transform


readings = _Readings()


@contextlib.contextmanager
def reading_once():
    """Within it (a transform), a function is read once: the activity analysis of a call of
    it, the effects of one, and its own transform each take a copy of what was read (parse.
    parsed_function); its file is looked at once to tell whether it changed on disk."""
    if readings.kept is not None:
        yield
        return
    readings.kept, readings.facts = {}, {}
    try:
        yield
    finally:
        readings.kept = readings.facts = None


def facts_kept(analysis):
    """The dict in which `analysis` keeps what it finds of each function, for the transform
    in progress (a function's code does not change while it runs); a new one outside."""
    return {} if readings.facts is None else readings.facts.setdefault(analysis, {})


def signature(fn):
    """inspect.signature(fn), worked out once in a transform: its analyses ask it of a
    function at each call of it, some twice."""
    kept = facts_kept("signatures")
    found = kept.get(id(fn))
    if found is None or found[0] is not fn:  # (fn held beside it: its id stays its)
        found = kept[id(fn)] = fn, inspect.signature(fn)
    return found[1]


def check_function(fn):
    """Raise the error for anything that is not a plain Python function with source."""
    read_function(fn, parse=False)


def source_lines(fn):
    """The source of fn (under functools.wraps wrappers: see wrappers.py), kept while
    linecache holds the same text of its file: a transform asks for it three times (its
    checks, its cache key, its parse), and inspect tokenizes the whole function each time."""
    kept = _kept_source(fn)
    return wrappers.source_lines(fn) if kept is None else kept.lines


class _Source:
    """What is known of a function's source while linecache holds the same `text` of its
    file: its `lines` (source_lines'), the `tree` of their parse that no one has taken yet
    (wrappers.source_and_tree), and whether they are the code it runs (check_source_runs
    passed: `runs`)."""

    __slots__ = ("text", "lines", "_trees", "runs")

    def __init__(self, text, lines, first, tree):
        self.text, self.lines, self.runs = text, (lines, first), False
        self._trees = [] if tree is None else [tree]

    @property
    def tree(self):
        return self._trees[0] if self._trees else None

    def take_tree(self):
        """The tree, for one reader only (list.pop: two threads never both get it)."""
        try:
            return self._trees.pop()
        except IndexError:
            return None


def _kept_source(fn):
    """The _Source of fn's function (the one under wrappers), None where it is no Python
    function (inspect answers for it)."""
    function = wrappers.source_function(fn)
    if not inspect.isfunction(function):
        return None
    filename = source_file(function)
    checked = facts_kept("files checked")
    if filename not in checked:  # (as inspect does: a file changed on disk is read anew)
        linecache.checkcache(filename)
        checked[filename] = True
    text = linecache.getlines(filename, function.__globals__)
    kept = _SOURCES.get(function.__code__)
    if kept is None or kept.text is not text:
        kept = _Source(text, *wrappers.source_and_tree(fn))
        if len(_SOURCES) >= 64:
            _SOURCES.clear()
        _SOURCES[function.__code__] = kept
    return kept


_SOURCES = {}  # code object -> its _Source


def source_file(fn):
    """inspect.getsourcefile(fn) or the file its code names: that file, where it names a .py
    file, without inspect's look at the file system or its modules (a transform asks for it
    dozens of times)."""
    filename = fn.__code__.co_filename
    return filename if filename.endswith(".py") else inspect.getsourcefile(fn) or filename


def _way_in(fn):
    """What to differentiate instead of `fn`, a callable that is not a Python function."""
    if isinstance(fn, functools.partial) and inspect.isfunction(fn.func):
        wrapped = fn.func.__name__
        return (
            f"differentiate {wrapped} itself and pass the bound arguments at the call "
            f"(nf.grad({wrapped})(x, ..., name=value)), or bind them in a def calling {wrapped}"
        )
    return (
        "srcdiff differentiates functions written in Python (def ...); for a builtin or numpy "
        "function, register an adjoint with @srcdiff.adjoint instead"
    )


def read_function(fn, parse=True, shared=False):
    """(its file name, the gast FunctionDef of fn's source, the source), after the checks
    that it is one srcdiff reads (check_function); `shared`: the parse kept, not a copy."""
    name = getattr(fn, "__name__", None) or repr(fn)
    if not inspect.isfunction(fn):
        raise SrcdiffError(f"{name!r} is not a Python function with source code", hint=_way_in(fn))
    filename = source_file(fn)
    first = fn.__code__.co_firstlineno
    where = Location(filename, first, linecache.getline(filename, first).rstrip())
    try:
        kept = _kept_source(fn)
        lines, start = wrappers.source_lines(fn) if kept is None else kept.lines
    except AmbiguousLambda as exc:
        raise UnsupportedError(
            f"this lambda cannot be told apart from the others on its line ({exc})",
            where,
            "give it a line of its own, or define the function with def",
        ) from None
    except OSError as exc:
        raise SrcdiffError(
            f"the source of {name!r} is not available ({exc})",
            where,
            "define the function in a .py file so its source can be read",
        ) from None
    except TypeError as exc:
        raise SrcdiffError(
            f"the source of {name!r} is not available ({exc})",
            where,
            "define the function in a .py file so its source can be read",
        ) from None
    if kept is None or not kept.runs:
        check_source_runs(fn, where, None if kept is None else kept.tree)
        if kept is not None:
            kept.runs = True
    if not parse:
        return None
    source = wrappers.dedented(lines)
    key = source, start
    node = _PARSED.get(key)
    if node is None:
        tree = None if kept is None else kept.take_tree()
        node = _parsed_definition(fn, name, source, start, filename, where, tree)
        if not shared and key not in _READ_ONCE:  # (taken as it is: most are read once)
            if len(_READ_ONCE) >= 256:
                _READ_ONCE.clear()
            _READ_ONCE.add(key)
            return filename, node, source
        if len(_PARSED) >= 64:
            _PARSED.clear()
        _PARSED[key] = node
    # (a copy, but for a sibling's definition, only read: the stages change it in place)
    return filename, node if shared else ir.copy_tree(node), source


def _parsed_definition(fn, name, source, start, filename, where, tree=None):
    """The gast FunctionDef of fn's `source`, its lines numbered as in its file from `start`
    (the text parsed below as many empty lines: no renumbering of every node after);
    `tree`: that parse, if made already (it is made the gast tree, in place)."""
    numbered = "\n" * (max(start, 1) - 1) + source
    tree = ast.parse(numbered) if tree is None else tree
    drop_dead_branches(tree, numbered, filename, 1)
    node = _as_definition(conversion.ast_to_gast(tree).body[0], naming.base_name(fn))
    if not isinstance(node, gast.FunctionDef):
        raise UnsupportedError(
            f"{name!r} is not defined by a plain def",
            where,
            "async functions and other callables are not supported",
        )
    for handler in ir.walk_statements(node):  # (gast's Name of `except E as e` has no line)
        if isinstance(handler, gast.ExceptHandler) and isinstance(handler.name, gast.Name):
            handler.name.lineno, handler.name.end_lineno = handler.lineno, handler.lineno
    return node


def _as_definition(node, name):
    """A lambda's expression statement as the def it stands for (`def act(z): return ...`)."""
    if isinstance(node, gast.Expr) and isinstance(node.value, gast.Lambda):
        return ir.lambda_definition(name, node.value, node.value)
    return node


# (source, first line) -> its gast tree: a module's functions are read again as siblings
# of each function of it that is differentiated (see ParsedFunction.sibling), and once
# read to change (what _READ_ONCE holds), are kept at the second such read
_PARSED = {}
_READ_ONCE = set()
