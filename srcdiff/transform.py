"""The pipeline: parse -> ANF -> reverse -> optimise -> codegen, behind the caches."""
import inspect

from . import cache, codegen
from .anf import Normalizer
from .errors import ArgumentError, UnsupportedError
from .optimize import eliminate_dead_code
from .parse import ParsedFunction, check_function
from .reverse import Reverse
from .template import registry_token

VERSION = "0.1.0"


class Emitted:
    """Emitted source, the function compiled from it, and what the API needs to report errors."""

    def __init__(self, source, function, meta):
        self.source, self.function, self.meta = source, function, meta


def namespace(fn):
    scope = dict(fn.__globals__)
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            scope[name] = cell.cell_contents
        except ValueError:  # a closure variable not yet assigned
            pass
    return scope


def _describe(value):
    """What a global name is, as far as the transform cares (part of the cache key)."""
    if inspect.ismodule(value):
        return f"module:{value.__name__}"
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    if name is not None:
        return f"{type(value).__name__}:{getattr(value, '__module__', '')}.{name}"
    return f"value:{type(value).__name__}"


def cache_key(fn, wrt, mode, options):
    try:
        source = inspect.getsource(fn)
    except (OSError, TypeError):
        source = repr(fn.__code__.co_code)
    refs = inspect.getclosurevars(fn)
    names = {**refs.globals, **refs.nonlocals}
    described = sorted(f"{k}={_describe(v)}" for k, v in names.items())
    return cache.digest(VERSION, mode, wrt, sorted(options.items()), fn.__module__,
                        fn.__qualname__, source, described, registry_token())


def derive(fn, wrt, mode="grad", **options):
    """The emitted derivative of `fn` (from memory, disk, or a fresh transform)."""
    check_function(fn)
    key = cache_key(fn, wrt, mode, options)
    entry = cache.memory_get(key)
    if entry is not None:
        return entry
    loaded = cache.load(key)
    if loaded is None:
        source, meta = generate(fn, wrt, mode, **options)
        path = cache.store(key, source, meta)
    else:
        (source, meta), path = loaded, cache.path_for(key)
    filename = str(path) if path is not None else f"<srcdiff {fn.__qualname__} {key[:8]}>"
    function = codegen.compile_function(source, filename, meta["name"], namespace(fn))
    function.__defaults__, function.__kwdefaults__ = fn.__defaults__, fn.__kwdefaults__
    entry = Emitted(source, function, meta)
    cache.memory_put(key, entry)
    return entry


def generate(fn, wrt, mode, preserve_result=False, optimized=True):
    """Run the transformer: the emitted module's source and its metadata."""
    cache.stats["transforms"] += 1
    parsed = ParsedFunction(fn)
    node = parsed.node
    params = [a.id for a in node.args.posonlyargs + node.args.args]
    where = parsed.location(node)
    for index in wrt:
        if not 0 <= index < len(params):
            raise ArgumentError(f"wrt={index} is out of range: {fn.__name__} has "
                                f"{len(params)} positional parameter(s) ({', '.join(params)})",
                                where, f"choose wrt between 0 and {len(params) - 1}")
    wrt_names = [params[i] for i in wrt]
    program = Normalizer(parsed, wrt_names).run()
    returns = program.body[-1] if program.body else None
    if returns is None or type(returns).__name__ != "Return":
        raise UnsupportedError(f"{fn.__name__} does not end with a return statement", where,
                               "return the value to differentiate on the last line")
    name = f"d{fn.__name__}" if mode == "grad" else f"vjp_{fn.__name__}"
    func = Reverse(program, wrt_names, vjp=(mode == "vjp"), preserve_result=preserve_result,
                   func_name=name).build()
    if optimized:
        eliminate_dead_code(func)
    what = "Gradient" if mode == "grad" else "Vector-Jacobian product"
    doc = (f"{what} of {fn.__module__}.{fn.__qualname__} with respect to "
           f"{', '.join(wrt_names)}.\n\nEmitted by srcdiff {VERSION}.\n")
    source = codegen.to_source(func, doc)
    ret = returns.loc
    meta = {"name": name, "return": [ret.filename, ret.lineno, ret.line],
            "def": [where.filename, where.lineno, where.line], "params": wrt_names,
            "preserve_result": preserve_result}
    return source, meta
