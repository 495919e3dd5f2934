"""What an emitted derivative depends on: the code that runs, and everything it reaches.

`check_source_runs` makes sure the source srcdiff reads is the code the function runs (a module
edited after import is not); `cache_key` digests everything that decides the emitted code: that
source, what each global name and attribute path it reads resolves to (callees by their code,
however they are reached: `g`, `mod.g`, `mod.sub.g`, `obj.method`, and what those reach in
turn), the options and srcdiff's own transformer.
"""

import __future__
import ast
import contextlib
import dis
import functools
import importlib.machinery
import inspect
import linecache
import operator
import os
import site
import sys
import threading

import numpy as np

from . import __version__, cache
from .errors import SrcdiffError
from .primitives import registry
from .remat import Checkpointed
from .runtime import is_record as _is_record
from .wrappers import source_function

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
# srcdiff's showcase: programs written with srcdiff, not part of the transformer. An edit to
# one must not throw away every cache entry (the functions a key reaches are digested anyway)
SHOWCASE = {
    "nn.py",
    "resnet.py",
    "train.py",
    "train_cli.py",
    "demo.py",
    "data.py",
    "optim.py",
    "tree.py",
    "checkpoint_file.py",
    "distributed.py",
    "report.py",
    "threads.py",
    "__main__.py",
}
_MISSING = object()
# the class attribute naming the functions an object holds of its own (statics.object_class)
OWN_FUNCTIONS = "__srcdiff_own_functions__"


@functools.lru_cache(maxsize=None)
def implementation_digest():
    """A digest of the transformer's own files, so that editing srcdiff invalidates cached
    output (its showcase modules aside). Each file counts by its size and time of change,
    as Python's own bytecode cache trusts them: reading all of them cost a first transform
    ~4 ms."""
    parts = []
    _describe_files(_PACKAGE, "", parts)
    return cache.digest(*parts)


def _describe_files(folder, relative, parts):
    """Append "path size mtime" of each .py file under `folder` (its path below the
    package, as `relative` begins it) to `parts`, in the order of their names (scandir
    and slicing: os.walk and os.path.relpath cost a first transform ~1 ms)."""
    with os.scandir(folder) as found:
        entries = sorted(found, key=lambda entry: entry.name)
    for entry in entries:
        if entry.name.endswith(".py"):
            if not (relative == "" and entry.name in SHOWCASE):
                stat = entry.stat()
                parts.append(f"{relative}{entry.name} {stat.st_size} {stat.st_mtime_ns}")
        elif entry.name != "__pycache__" and entry.is_dir(follow_symlinks=False):
            _describe_files(entry.path, f"{relative}{entry.name}/", parts)


def cache_key(fn, wrt, mode, options, source):
    """The key of fn's derivative: everything that decides the emitted code."""
    reached = sorted(f"{path}={described(value)}" for path, value in _reads(fn))
    return cache.digest(
        __version__,
        implementation_digest(),
        mode,
        wrt,
        sorted(options.items()),
        fn.__module__,
        fn.__qualname__,
        source,
        reached,
        registry.token(),
    )


# --- what a function reads ------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def _paths(code):
    """(from a closure cell?, name, attributes) of each name a code object and the code nested
    in it read from outside, with the attributes read of it: `g`, `helpers.g`, `helpers.sub.g`,
    `obj.method`."""
    found = set()
    instructions = _instructions(code)
    for i, (op, arg) in enumerate(instructions):
        if op not in _ROOTS:
            continue
        chain = [_root_name(code, op, arg)]
        following = i + 1
        while following < len(instructions) and instructions[following][0] in _ATTRIBUTES:
            chain.append(code.co_names[instructions[following][1] >> _ATTRIBUTE_SHIFT])
            following += 1
        found.add((op == _LOAD_DEREF, chain[0], tuple(chain[1:])))
    for const in code.co_consts:
        if inspect.iscode(const):
            found |= _paths(const)
    return frozenset(found)


def _instructions(code):
    """(opcode, argument) of each instruction of `code` in dis.get_instructions' list (its
    EXTENDED_ARGs too, the inline caches of 3.11 on left out), read off the bytecode without
    an Instruction object each: those cost a large function's key as much as its parse."""
    raw, found, extended = code.co_code, [], 0
    for offset in range(0, len(raw), 2):
        op = raw[offset]
        if op == _CACHE:
            continue
        arg = raw[offset + 1] | extended
        extended = arg << 8 if op == dis.EXTENDED_ARG else 0
        found.append((op, arg))
    return found


def _root_name(code, op, arg):
    if op == _LOAD_DEREF:
        if sys.version_info >= (3, 11):
            return code._varname_from_oparg(arg)
        return (code.co_cellvars + code.co_freevars)[arg]
    return code.co_names[arg >> 1 if op == _LOAD_GLOBAL and sys.version_info >= (3, 11) else arg]


def global_reads(codes, among):
    """The names of `among` that the code of a module (`codes[0]`, then code evaluated in
    its namespace) and the code in it read as globals but its body does not bind, as
    Python's symbol tables would say, at a fraction of their cost: only code that holds
    such a name at all is read instruction by instruction (emitted code reads few globals
    but the module's own: np, runtime, its functions)."""
    module, reads = codes[0], set()
    binds = {module.co_names[arg] for op, arg in _instructions(module) if op == _STORE_NAME}
    among = among - binds
    todo = [(code, True) for code in codes]
    for current, read in todo:
        if read or not among.isdisjoint(current.co_names):
            reads.update(
                _root_name(current, op, arg)
                for op, arg in _instructions(current)
                if op in _GLOBAL_LOADS
            )
        todo += [(const, False) for const in current.co_consts if inspect.iscode(const)]
    return reads & among


_CACHE = dis.opmap.get("CACHE", -1)  # (no opcode before 3.11)
_LOAD_GLOBAL, _LOAD_DEREF = dis.opmap["LOAD_GLOBAL"], dis.opmap["LOAD_DEREF"]
_GLOBAL_LOADS = frozenset((_LOAD_GLOBAL, dis.opmap["LOAD_NAME"]))
_STORE_NAME = dis.opmap["STORE_NAME"]
_ROOTS = frozenset(dis.opmap[name] for name in ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF"))
_ATTRIBUTES = frozenset(dis.opmap[n] for n in ("LOAD_ATTR", "LOAD_METHOD") if n in dis.opmap)
_ATTRIBUTE_SHIFT = 1 if sys.version_info >= (3, 12) else 0  # (its low bit: a method's load)


def _reads(fn):
    """(path, object) for each attribute path fn's code reads, and each prefix of it."""
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    for from_cell, root, attributes in _paths(fn.__code__):
        if from_cell and root in cells:
            try:
                value = cells[root].cell_contents
            except ValueError:  # not assigned yet
                continue
        elif not from_cell and root in fn.__globals__:
            value = fn.__globals__[root]
        else:
            continue
        yield root, value
        for depth, attribute in enumerate(attributes, 1):
            # no code runs to look an attribute up: no property, no module __getattr__
            value = inspect.getattr_static(value, attribute, _MISSING)
            if value is _MISSING:
                break
            yield ".".join([root, *attributes[:depth]]), value


_once = threading.local()  # (.memo: id -> (value, its description) in a transform)


@contextlib.contextmanager
def describing_once():
    """Within it (a transform, in which no code runs that could rebind what a function
    reads), each value is described once: the key of every callee describes what it
    reaches, and a static argument is described in each key and name it is part of."""
    if getattr(_once, "memo", None) is not None:
        yield
        return
    _once.memo = {}
    try:
        yield
    finally:
        _once.memo = None


def described(value):
    """describe(value, set()), once per value in a transform (describing_once)."""
    memo = getattr(_once, "memo", None)
    if memo is None:
        return describe(value, set())
    found = memo.get(id(value))
    if found is None or found[0] is not value:
        found = memo[id(value)] = (value, describe(value, set()))
    return found[1]


def describe(value, seen):
    """What a name refers to, as far as the transform cares. A function is described by its
    code and, if srcdiff would differentiate through it, by what it reads in turn."""
    if isinstance(value, (staticmethod, classmethod)) or inspect.ismethod(value):
        value = value.__func__
    if inspect.ismodule(value):
        return f"module:{value.__name__}"
    if isinstance(value, Checkpointed):  # the transform differentiates what it marks
        return f"checkpoint:{describe(value.fun, seen)}"
    if isinstance(value, functools.partial):  # (the code reads the bound values when it runs)
        return (
            f"partial:{describe(value.func, seen)}:{len(value.args)}:"
            f"{','.join(sorted(value.keywords))}"
        )
    if isinstance(value, str) and len(value) <= 64:  # (it may name an attribute: getattr)
        return f"str:{value!r}"
    held = _described_holder(value, seen)
    if held is not None:
        return held
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    if inspect.isfunction(value):
        described = f"function:{value.__module__}.{name}:{_code_digest(value.__code__)}"
        if value in seen or not _differentiated_through(value):
            return described
        seen.add(value)
        reads = sorted(f"{path}={describe(v, seen)}" for path, v in _reads(value))
        return described + "(" + ",".join(reads) + ")"
    if name is not None:
        return f"{type(value).__name__}:{getattr(value, '__module__', '')}.{name}"
    return f"value:{type(value).__name__}"


def _described_holder(value, seen):
    """describe() of what holds functions f may call: an object (its class and own
    functions), a container of functions or objects, a user class (its methods); else None."""
    if _is_record(value):  # (an object whose methods f may call: its class and own functions)
        return (
            f"object:{describe(type(value), seen)}["
            + ",".join(f"{k}={describe(v, seen)}" for k, v in _own_functions(value))
            + "]"
        )
    if (
        isinstance(value, (dict, list, tuple))
        and id(value) not in seen
        and holds_functions(value, objects=True)
    ):
        seen.add(id(value))
        items = value.items() if isinstance(value, dict) else enumerate(value)
        return (
            f"{type(value).__name__}:["
            + ",".join(  # (its functions may be called by key)
                f"{k!r}={describe(v, seen)}" for k, v in items
            )
            + "]"
        )
    if inspect.isclass(value) and OWN_FUNCTIONS in vars(value):  # (statics.object_class)
        return (
            describe(value.__base__, seen)
            + "["
            + ",".join(f"{k}={describe(v, seen)}" for k, v in vars(value)[OWN_FUNCTIONS])
            + "]"
        )
    if (
        inspect.isclass(value)
        and value.__module__ not in ("builtins", "numpy")
        and value not in seen
    ):  # a user class: what its methods are (one may be patched)
        seen.add(value)
        methods = {
            k: v
            for cls in reversed(value.__mro__[:-1])
            for k, v in vars(cls).items()
            if isinstance(v, (staticmethod, classmethod))
            or inspect.isroutine(v)
            or isinstance(v, np.ufunc)
        }
        return (
            f"class:{value.__module__}.{value.__qualname__}("
            + ",".join(f"{k}={describe(v, seen)}" for k, v in sorted(methods.items()))
            + ")"
        )
    return None


def functions_read(fn):
    """(name, value) for each global or closure name fn reads directly whose value is a
    function, or a small container of functions or objects (`act`, `ACTIVATIONS`, `LAYERS`),
    or, where fn calls getattr, a str (`getattr(np, NAME)`): what the transform resolves
    calls through, and a program may rebind between calls."""
    names_attributes = any(root == "getattr" for _, root, _ in _paths(fn.__code__))
    for name, value in _reads(fn):
        if "." not in name and (
            inspect.isroutine(value)
            or isinstance(value, (np.ufunc, functools.partial))
            or isinstance(value, (dict, list, tuple))
            and holds_functions(value, objects=True)
            or names_attributes
            and isinstance(value, str)
        ):
            yield name, value


def contents(value, depth=3):
    """The items of a container of functions or objects, nested ones opened, and the
    functions each object holds of its own, and its objects and containers of them, opened
    too (compared item by item with `is`: rebinding `ACTIVATIONS['relu']`, `LAYERS[0].act`,
    or `net.layers[0]`, changes them); of a method, its object's; () for anything else."""
    if inspect.ismethod(value) and _is_record(value.__self__):
        value = value.__self__
    runs_as = getattr(type(value), "runs_as", None)
    if runs_as is not None:  # a derivative srcdiff made: the code its calls run, not the
        return (("runs_as", runs_as(value)),)  # caches each call adds to
    if _is_record(value):
        return _own_functions(value) + (_own_parts(value, depth - 1) if depth else ())
    if not isinstance(value, (dict, list, tuple)) or depth == 0:
        return ()
    items = value.items() if isinstance(value, dict) else enumerate(value)
    return tuple(part for k, v in items for part in ((k, v),) + contents(v, depth - 1))


def holds_functions(container, depth=3, objects=False):
    """Whether a small dict, list or tuple holds a function (or such a container, nested
    at most `depth` deep): one srcdiff may pick a function from (`ACTIVATIONS["relu"]`);
    with `objects`, an object too, whose methods it may call (`LAYERS[0](h)`)."""
    if len(container) > 64 or depth == 0:
        return False
    items = container.values() if isinstance(container, dict) else container
    return any(
        inspect.isroutine(v)
        or isinstance(v, (np.ufunc, functools.partial))
        or objects
        and _is_record(v)
        or isinstance(v, (dict, list, tuple))
        and holds_functions(v, depth - 1, objects)
        for v in items
    )


def _own_functions(obj):
    """(name, function) of the functions an object holds as its own attributes."""
    own = getattr(obj, "__dict__", None) or {}
    return tuple(
        (k, v)
        for k, v in own.items()
        if inspect.isroutine(v) or isinstance(v, (np.ufunc, functools.partial))
    )


def _own_parts(obj, depth):
    """(name, value) of the objects, and containers of functions or objects, that an object
    holds as its own attributes (`self.layers`), each followed by its contents."""
    own = getattr(obj, "__dict__", None) or {}
    return tuple(
        part
        for k, v in own.items()
        if _is_record(v) or isinstance(v, (dict, list, tuple)) and holds_functions(v, objects=True)
        for part in ((k, v),) + contents(v, depth)
    )


@functools.cache
def _library_directories():
    """Where installed libraries and Python's own modules live (site-packages, the stdlib:
    sysconfig's paths, without the ~3 ms its configuration costs to read)."""
    found = {os.path.dirname(os.__file__)}
    found.update(getattr(site, "getsitepackages", list)())
    found.add(site.getusersitepackages())
    return tuple(os.path.join(os.path.realpath(d), "") for d in found)


_SRCDIFF = os.path.join(os.path.realpath(_PACKAGE), "")


@functools.cache
def is_library_file(filename):
    """Whether `filename` is an installed library's (SciPy's, numpy's, the stdlib's), not
    the user's nor srcdiff's own (srcdiff.nn is meant to be read)."""
    filename = os.path.realpath(filename)
    return filename.startswith(_library_directories()) and not filename.startswith(_SRCDIFF)


def _differentiated_through(fn):
    """Whether srcdiff may transform fn's source as a callee (a user's function: not a
    primitive, nor one of an installed library's, whose version is what changes it)."""
    if registry.find(fn) is not None:
        return False
    return not is_library_file(fn.__code__.co_filename)


@functools.lru_cache(maxsize=4096)
def _code_digest(code):
    """A digest of a code object that is the same in every process (no addresses)."""
    consts = [_code_digest(c) if inspect.iscode(c) else repr(c) for c in code.co_consts]
    return cache.digest(code.co_code, consts, code.co_names)


# --- the source read against the code that runs ---------------------------------------------


def check_source_runs(fn, where, tree=None):
    """Raise unless the source srcdiff reads for fn is the code fn runs: a module edited after
    it was imported runs its old code, so a derivative of the text now on disk would be the
    derivative of another function. `tree`: the parse of that source, numbered as in its
    file (wrappers.source_and_tree), if made."""
    function = source_function(fn)  # the function whose source srcdiff reads
    module = function.__globals__
    loader = getattr(module.get("__spec__"), "loader", None) or module.get("__loader__")
    if loader is not None and not isinstance(loader, importlib.machinery.SourceFileLoader):
        return  # an import hook (pytest's assert rewriting, say) compiles text to other code
    code = function.__code__
    if _unchanged_since_start(code.co_filename):
        return
    if tree is not None and _compiles_to(tree, function):
        return
    filename = inspect.getsourcefile(function) or inspect.getfile(function)
    text = "".join(linecache.getlines(filename, module))
    defined = _functions_defined(text)
    # Line numbers inside the function may differ: they change no derivative, and srcdiff
    # locates its errors in the text as it is now. But the first line (the first decorator's)
    # must be the same, since inspect reads the function's text from there.
    where_defined = (code.co_name, getattr(code, "co_qualname", None), code.co_firstlineno)
    if not any(_same_code(code, other) for other in defined.get(where_defined, ())):
        raise SrcdiffError(
            f"the source of {fn.__qualname__} in {filename} is not the code it runs: the file "
            "was edited after the module was imported",
            where,
            "reload the module (importlib.reload) or restart Python, then differentiate it",
        )


def _unchanged_since_start(filename):
    """Whether the file `filename` was last changed before this process started: then every
    module imported from it runs its text as it is now, with no compile to check that (a
    first transform compiled each function it reads, ~0.1 ms each). Its time of change is
    trusted as Python's bytecode cache trusts it. (A relative name is not: the directory it
    is relative to may have changed since.)"""
    started = _process_start()
    if started is None or not os.path.isabs(filename):
        return False
    try:
        return os.stat(filename).st_mtime < started
    except (OSError, ValueError):  # (no such file: code compiled from a string, a notebook)
        return False


@functools.lru_cache(maxsize=None)
def _process_start():
    """When this process started, in seconds since the epoch, a second early or more (Linux
    gives the boot time in whole seconds); None where /proc does not tell."""
    try:
        with open("/proc/self/stat") as stat:
            ticks = int(stat.read().rsplit(")", 1)[1].split()[19])  # (field 22: starttime)
        with open("/proc/stat") as stat:
            booted = next(int(line.split()[1]) for line in stat if line.startswith("btime "))
        return booted + ticks / os.sysconf("SC_CLK_TCK") - 1
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def _compiles_to(tree, function):
    """Whether the parse of a function's source alone compiles to its code: then that source
    is the code that runs, and the module need not be compiled. A function whose code
    depends on what is around it, a closure's cells or a class's private names, does not
    compile to it alone, and the module decides; but for the modules it reads, imported
    there (an imported name's methods are called without LOAD_METHOD), as here."""
    code = function.__code__
    imports = [
        ast.Import(names=[ast.alias(name, None, **_NOWHERE)], **_NOWHERE)
        for name in sorted(_names_read(code))
        if inspect.ismodule(function.__globals__.get(name))
    ]
    try:
        module = compile(
            ast.Module(body=imports + tree.body, type_ignores=[]),
            "<srcdiff check>",
            "exec",
            flags=code.co_flags & _FUTURE_FLAGS,  # (its module's __future__ imports)
            dont_inherit=True,
        )
    except (SyntaxError, ValueError, TypeError):  # (TypeError: a tree another thread took
        return False  # and is making gast meanwhile)
    return any(
        inspect.iscode(const)
        and (const.co_name, const.co_firstlineno) == (code.co_name, code.co_firstlineno)
        and _same_code(const, code)
        for const in module.co_consts
    )


_NOWHERE = {"lineno": 1, "col_offset": 0, "end_lineno": 1, "end_col_offset": 0}
# the flags a module's __future__ imports set on its code (nested_scopes' is CO_NESTED, set
# on a function defined in another: no import's)
_FUTURE_FLAGS = functools.reduce(
    operator.or_,
    (
        getattr(__future__, name).compiler_flag
        for name in __future__.all_feature_names
        if name != "nested_scopes"
    ),
)


def _names_read(code):
    """The names (of globals, attributes) that `code` and the code nested in it read."""
    names = set(code.co_names)
    for const in code.co_consts:
        if inspect.iscode(const):
            names |= _names_read(const)
    return names


@functools.lru_cache(maxsize=64)
def _functions_defined(text):
    """{(name, qualname, first line): [code]} of the functions the module source `text`
    defines. The whole text is compiled, as a function's code depends on its surroundings
    (imports, enclosing functions and classes, __future__)."""
    try:
        module = compile(text, "<srcdiff check>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return {}
    defined = {}
    stack = [module]
    while stack:
        for const in stack.pop().co_consts:
            if inspect.iscode(const):
                where = (const.co_name, getattr(const, "co_qualname", None), const.co_firstlineno)
                defined.setdefault(where, []).append(const)
                stack.append(const)
    return defined


def _same_code(a, b):
    return (
        a.co_code == b.co_code
        and a.co_names == b.co_names
        and a.co_varnames == b.co_varnames
        and a.co_freevars == b.co_freevars
        and a.co_cellvars == b.co_cellvars
        and a.co_argcount == b.co_argcount
        and a.co_kwonlyargcount == b.co_kwonlyargcount
        and a.co_posonlyargcount == b.co_posonlyargcount
        and _same_const(a.co_consts, b.co_consts)
    )


def _same_const(a, b):
    if type(a) is not type(b):
        return False
    if inspect.iscode(a):
        return _same_code(a, b)
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same_const(x, y) for x, y in zip(a, b))
    if isinstance(a, (float, complex)):
        return repr(a) == repr(b)  # -0.0 is not 0.0, and nan is nan
    return a == b
