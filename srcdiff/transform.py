"""The pipeline: parse -> ANF -> reverse -> optimise -> codegen, behind the caches."""

import functools
import inspect
import sys
import threading

from . import __version__, arguments, cache, callee_paths, codegen, ir, naming, provenance
from . import recursion
from .activity import Activity
from .anf import Normalizer
from .containers import lower_containers
from .comprehension_loops import lower_comprehensions
from .desugar import desugar
from .past_the_end import raise_past_the_end
from .write_forms import lower_write_forms
from .indexed_items import unpack_indexed_loop_targets
from .piecewise_calls import piecewise_as_writes
from .reduce_loops import called_objects, reduces_as_loops
from .inline import Inliner
from .local_classes import name_made_receivers
from .made_derivatives import is_made_path, made_once_calls
from .loop_reads import hoist_loop_reads
from .effects import yield_refused
from .errors import ArgumentError, UnsupportedError
from .forward import Forward
from .optimize import optimize
from .passes.plain_names import Suffixed
from .plain import is_plain
from .parse import expand_object_calls, parsed_function
from .sources import reading_once
from .sources import check_function, source_lines
from .reverse import Reverse
from .primitives import registry
from .meta import CalleeUse, Meta
from .modes import Mode
from .emitted import Emitted
from .module_run import ModuleRun
from .wrappers import check_wrapper, source_function

VERSION = __version__
_FRAMES_PER_CALL_LEVEL = 100  # (more than a level takes: see derive_callee in generate)


class _Deriving(threading.local):
    """The functions this thread is transforming now (a call back into one: recursion.py)."""

    def __init__(self):
        self.codes = set()  # (code, globals, statics) of each function being made
        self.varied_items = {}  # what the activity analyses of the transform in progress share
        self.below = {}  # naming.shared's, of what the module being made holds so far
        self.made = {}  # what a module made so far is made from -> its naming.Made
        self.holders = {}  # id of a tree of one -> the Emitted.trees that holds it
        # cache_key's answers in the transform in progress, which changes nothing they read
        # (a callee's module is looked up again by each caller, and in the naming round),
        # and the functions check_function passed in it
        self.keys = self.checked = None


_in_progress = _Deriving()


def cache_key(fn, wrt, mode, options):
    asked = (fn, tuple(wrt), mode, str(sorted(options.items())), registry.token())
    known = _in_progress.keys
    if known is not None and asked in known:
        return known[asked]
    try:
        source = "".join(source_lines(fn)[0])
    except (OSError, TypeError):
        source = repr(fn.__code__.co_code)
    key = provenance.cache_key(fn, wrt, mode, options, source)
    if known is not None:
        known[asked] = key
    return key


def derive(fn, wrt, mode=Mode.GRAD, **options):
    """The emitted derivative of `fn` (from memory, disk, or a fresh transform). A callee's
    is named by its caller (`names`); f's own module is named again when some function is
    differentiated in more than one way in it, so that those are named apart (naming.py).
    Under functools.wraps wrappers, what is differentiated is the code that runs: the
    wrapped function through wrappers that pass their arguments on (wrappers.py)."""
    check_wrapper(fn)
    fn = source_function(fn)
    if "names" in options:
        return _derive(fn, wrt, mode, **options)
    held = (_in_progress.below, _in_progress.made, _in_progress.holders)
    held += (_in_progress.keys, _in_progress.checked)
    if _in_progress.keys is None:
        _in_progress.keys, _in_progress.checked = {}, set()
    try:
        with reading_once(), provenance.describing_once(), cache.session():
            return _derive_module(fn, wrt, mode, options)
    finally:
        (_in_progress.below, _in_progress.made, _in_progress.holders) = held[:3]
        (_in_progress.keys, _in_progress.checked) = held[3:]


def _derive_module(fn, wrt, mode, options):
    """derive() of f itself: made naming each function as if differentiated one way, then
    named again (the modules made renamed) with the functions it differentiates in more
    ways named apart; a module found made whole is checked too, since a callee's module
    found made is not looked into."""
    suffixed, _in_progress.below, _in_progress.made, _in_progress.holders = (), {}, {}, {}
    while True:
        entry = _derive(fn, wrt, mode, **options, **_suffixed_option(suffixed))
        shared, below = naming.shared(entry)
        _in_progress.below.update(below)
        if shared == entry.meta.suffixed:
            break
        suffixed = shared
    if suffixed:  # kept under f's own key too, found then without making it again
        key, where = cache_key(fn, wrt, Mode(mode), options), _where(fn)
        cache.memory_put((key, where), entry)
        cache.store(key, entry.source, entry.meta.to_json())
    return entry


def _where(fn):
    """What tells apart the closures of one code: the entry reads this function's own
    globals and closure cells at every call (refresh), and its emitted function takes f's
    defaults, so another closure of the same code (other cells, other defaults: `def fk(x,
    k=k)` in a loop) needs an entry of its own; the entry holds the cells, the defaults and
    the globals, so their ids stay theirs while it lives."""
    return (
        id(fn.__globals__),
        id(fn.__defaults__),
        id(fn.__kwdefaults__),
        *(id(cell) for cell in fn.__closure__ or ()),
    )


def _derive(fn, wrt, mode, **options):
    checked = _in_progress.checked
    if checked is None or fn not in checked:
        check_function(fn)
        if checked is not None:
            checked.add(fn)
    mode = Mode(mode)
    key, where = cache_key(fn, wrt, mode, options), _where(fn)
    entry = cache.memory_get((key, where))
    statics = options.get("statics", ())
    if entry is not None and entry.current():
        return entry  # (a rebound callee, say a monkeypatched helper, is transformed anew)
    loaded = _load(key)
    if loaded is None:
        declared = registry.token()
        source, meta, trees = generate(fn, wrt, mode, **options)
        if registry.token() != declared:  # it met, and declared, an optional library's rules
            key = cache_key(fn, wrt, mode, options)  # which a process without them must not use
        path = cache.store(key, source, meta.to_json())
    else:
        (source, meta), path, trees = loaded, cache.path_for(key), ()
        meta = meta.relocated(
            inspect.getsourcefile(fn) or fn.__code__.co_filename, fn.__code__.co_firstlineno
        )
    callees, guards, linked = _derived_callees(fn, meta, mode, statics, options)
    filename = str(path) if path is not None else f"<srcdiff {fn.__qualname__} {key[:8]}>"
    # compiled when first used: a module the naming round makes again never is
    ran = ModuleRun(fn, source, meta, (callees, linked), filename, path is not None)
    entry = Emitted(source, None, meta, callees, module=fn.__globals__, run=ran)
    entry.trees = {tree.name: tree for tree in trees}
    _in_progress.holders.update((id(tree), entry.trees) for tree in trees)
    entry.variant = naming.variant(fn, wrt, options)
    guards += [
        (functools.partial(callee_paths.follow, fn, name, ()), value, provenance.contents(value))
        for name, value in provenance.functions_read(fn)
    ]
    entry.guards = guards
    entry.closure, entry.defaults = fn.__closure__, (fn.__defaults__, fn.__kwdefaults__)
    entry.fn = fn
    cache.memory_put((key, where), entry)
    return entry


def _derived_callees(fn, meta, mode, statics, options):
    """(the Emitted of each user function the code calls, the guards checking each still
    resolves to the function it was made for, what makes each callee in a recursion through
    fn: made when the module runs, as it was made in fn's transform or will be made on its
    own, not inside fn's load, which it is part of)."""
    callees, guards, linked = [], [], []
    for callee in meta.callees:
        target = callee_paths.resolve_path(fn, callee.path, statics)
        made = is_made_path(callee.path)
        # (what the target holds now, as what a guard finds is compared with: a derivative's
        # code, the functions an object holds)
        contents = provenance.contents(target)
        root, steps = (None, ()) if made else callee_paths.path_steps(callee.path, statics)
        static = next((s for s in statics if s.name == root), None)
        if made:  # (nf.grad(inner): made again of what inner names now)
            guards.append(
                (
                    functools.partial(callee_paths.resolve_path, fn, callee.path, statics),
                    target,
                    contents,
                )
            )
        elif static is None:
            guards.append(
                (functools.partial(callee_paths.follow, fn, root, steps), target, contents)
            )
        elif static.kind in ("type", "tree"):  # (a method monkeypatched onto the class)
            guards.append(
                (
                    functools.partial(callee_paths.follow_steps, static.value, steps),
                    target,
                    contents,
                )
            )
        make = functools.partial(
            derive,
            callee_paths.function_of(target),
            tuple(callee.wrt),
            mode.for_callees,
            names=tuple(callee.names),
            outputs=_outputs(callee.outputs),
            optimized=options.get("optimized", True),
            **callee_paths.statics_option(
                fn, callee.statics, statics, callee_paths.function_of(target)
            ),
            **_suffixed_option(callee.suffixed),
        )
        if callee.cyclic:
            linked.append(make)
        else:
            callees.append(make())
    return callees, guards, linked


def _load(key):
    """(source, Meta) of the disk entry for `key`, or None (none, or one whose metadata is
    not what this srcdiff writes)."""
    loaded = cache.load(key)
    if loaded is None:
        return None
    try:
        return loaded[0], Meta.from_json(loaded[1])
    except (TypeError, KeyError, ValueError):
        return None


def _suffixed_option(suffixed):
    return {"suffixed": tuple(suffixed)} if suffixed else {}


def _outputs(mask):
    return None if mask is None else tuple(mask)


def _normalizer(parsed, wrt_names, forward_mode, derive_callee, outputs, suffixed, own_names):
    """The stages before the transforms, in order: inlining of local functions, desugar,
    activity analysis (with the comprehensions over differentiated values lowered to loops),
    then ANF. `own_names` are the emitted module's functions: no other name is one of them."""
    names = ir.Names(parsed.node)
    names.used.update(own_names)
    called = called_objects(parsed.node, parsed.resolve)
    lowered = reduces_as_loops(parsed.node, parsed.resolve, names.fresh, called)
    lowered |= piecewise_as_writes(parsed.node, parsed.resolve, names.fresh, called)
    if unpack_indexed_loop_targets(parsed.node, parsed.resolve, names.fresh) | lowered:
        parsed.find_locals()  # (the names the loops and writes bind)
    if Inliner(parsed.node, names, parsed.resolve, parsed.location, parsed.sibling).run():
        parsed.find_locals()
        expand_object_calls(parsed)  # (of the loops over objects inlining unrolled)
    if name_made_receivers(parsed, names.fresh):
        parsed.find_locals()
    desugar(parsed.node, names.fresh, parsed.resolve)
    raise_past_the_end(parsed.node)
    lower_write_forms(parsed.node, parsed.resolve, names.fresh)
    activity = Activity(parsed, wrt_names, forward_mode, _in_progress.varied_items)
    varied = lambda node: activity.is_active(node, activity.varied)  # noqa: E731
    plain = is_plain(parsed.node, parsed.resolve)  # (then no container to lower)
    renamed = {}  # (a comprehension's loop name, made fresh: the objects it names, its own)
    while not plain and lower_containers(
        parsed.node, varied, parsed.resolve, names.fresh, parsed.location, activity.useful(outputs)
    ) | lower_comprehensions(parsed.node.body, varied, names.fresh, renamed):
        activity.update()
    parsed.local_classes.update(
        (new, parsed.local_classes[old])
        for new, old in renamed.items()
        if old in parsed.local_classes
    )
    return Normalizer(parsed, activity, names, derive_callee, outputs, suffixed)


def emitted_name(mode, name):
    """The name of the (first) function emitted for `name` in this mode."""
    return Mode(mode).prefix + name


def _checked_return(fn, program, mode, has_aux, where):
    """The normalised function's return, once it is one grad can differentiate."""
    returns = program.body[-1] if program.body else None
    if returns is None or type(returns).__name__ != "Return":
        raise UnsupportedError(
            f"{fn.__name__} does not end with a return statement",
            where,
            "return the value to differentiate on the last line",
        )
    returns_tuple = type(returns.value).__name__ == "Tuple"
    if mode is Mode.GRAD and has_aux and not (returns_tuple and len(returns.value.elts) == 2):
        raise ArgumentError(
            f"with has_aux=True, {fn.__name__} must return a pair (value, auxiliary data)",
            returns.loc,
            "return value, aux  (aux is passed through undifferentiated)",
        )
    if mode is Mode.GRAD and not has_aux and returns.active and returns_tuple:
        raise ArgumentError(
            f"grad needs a scalar output, but {fn.__name__} returns a tuple",
            returns.loc,
            "return one scalar, use has_aux=True to pass extra values through, or use srcdiff.vjp",
        )
    return returns


def _callee_deriver(fn, mode, optimized, statics, suffixed):
    """The Normalizer's derive_callee for fn's module (its functions of `suffixed` named by
    what they differentiate)."""

    def derive_callee(callee, callee_wrt, callee_names, callee_outputs, loc, described):
        options = dict(
            names=tuple(callee_names),
            outputs=callee_outputs,
            optimized=optimized,
            **callee_paths.statics_option(fn, described, statics, callee),
        )
        variant = naming.variant(callee, callee_wrt, options)
        made_for = _made_for(callee, options.get("statics", ()))
        making = (made_for, mode.for_callees, tuple(callee_wrt), _outputs(callee_outputs))
        called_back = recursion.called_back(making)
        if called_back is not None:  # (in the making: its names are given)
            return (), variant, *called_back
        options.update(_suffixed_option(naming.passed_on(suffixed, variant, _in_progress.below)))
        # a callee is transformed inside its caller's transform (a static argument it
        # needs is the caller's to give): each level of calls takes a few dozen frames
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(limit + _FRAMES_PER_CALL_LEVEL)
        try:
            made = derive(callee, callee_wrt, mode.for_callees, **options)
        finally:
            sys.setrecursionlimit(limit)
        _in_progress.below.update(naming.shared(made)[1])  # (for a module named again)
        return options.get("suffixed", ()), variant, None, recursion.through_callee()

    return derive_callee


@codegen.located_in_user_code
@ir.pausing_gc
def generate(
    fn,
    wrt,
    mode,
    preserve_result=False,
    optimized=True,
    names=None,
    outputs=None,
    has_aux=False,
    statics=(),
    suffixed=(),
):
    """Run the transformer: the emitted module's (source, metadata, function trees)."""
    options = (preserve_result, optimized, outputs, has_aux, statics)
    made_from = (fn, tuple(wrt), mode, repr(options))
    func_names = list(names) if names else mode.function_names(naming.base_name(fn))
    renamed = naming.renamed(
        _in_progress.made.get(made_from), func_names, suffixed, _in_progress.below, _released
    )
    if renamed is not None:  # (made earlier in this transform, named otherwise)
        return renamed
    cache.stats["transforms"] += 1
    parsed = parsed_function(fn, statics, first=names is None)
    if names is None and inspect.isgeneratorfunction(fn):  # (a callee's items are a list)
        raise yield_refused(parsed.location(parsed.yields))
    where = parsed.location(parsed.node)
    wrt_names = arguments.wrt_names(fn, parsed.node, wrt, where)
    outputs = (True, False) if has_aux else outputs
    derive_callee = _callee_deriver(fn, mode, optimized, statics, suffixed)
    normalizer = _normalizer(
        parsed, wrt_names, mode is Mode.JVP, derive_callee, outputs, suffixed, func_names
    )
    made_for = _made_for(fn, tuple(statics))
    with recursion.making(*_called_as(made_for, mode, wrt, outputs, has_aux, names, func_names)):
        program = _normalized(made_for, normalizer)
    returns = _checked_return(fn, program, mode, has_aux, where)
    funcs, suffixes = _sweeps(
        program,
        wrt_names,
        mode,
        func_names,
        preserve_result,
        has_aux,
        outputs,
        normalizer.names.versions,
        wrt_checked=names is None,  # (a callee is named by its caller)
    )
    made_once_calls(funcs, parsed)
    if optimized:
        optimize(funcs, mode, suffixes)
    doc = _docstring(fn, mode, wrt_names)
    source, lines = codegen.to_source(funcs, doc, parsed.imports)
    codegen.as_printed(funcs)  # (what specialize.py would get from parsing the source)
    located, flags = (where, returns.loc), (preserve_result, has_aux)
    meta = _meta(fn, normalizer, func_names, wrt_names, located, lines, suffixed, flags)
    _remember(made_from, funcs, doc, meta, normalizer, named=names is not None)
    return source, meta, funcs


def _released(trees):
    """Take the trees of a module made in this transform from the entry holding them (it
    parses its source if it is ever specialised), before they are named again in place."""
    for tree in trees:
        holder = _in_progress.holders.pop(id(tree), None)
        if holder is not None:
            holder.clear()


def _remember(made_from, funcs, doc, meta, normalizer, named):
    """Keep a module made in the transform in progress, to rename it if it is asked for
    again under other names (`named`: by a caller)."""
    if not (meta.callees or named):  # (else no name in it can change)
        return
    _in_progress.made[made_from] = naming.Made(
        funcs,
        doc,
        meta,
        normalizer.names.used,
        [c["naming"] for c in normalizer.callees],
        normalizer.callee_prefixes,
        normalizer.p.imports,
    )


def _docstring(fn, mode, wrt_names):
    return (
        f"{mode.title} of {fn.__module__}.{fn.__qualname__} with respect to "
        f"{', '.join(wrt_names) or 'nothing'}.\n\nEmitted by srcdiff {VERSION}.\n"
    )


def _meta(fn, normalizer, func_names, wrt_names, located, lines, suffixed, flags):
    """What the emitted module records beside its source (meta.py); `flags`: preserve_result
    and has_aux."""
    callees = tuple(
        CalleeUse(
            *(c[k] for k in ("path", "wrt", "names", "outputs", "statics", "suffixed", "cyclic"))
        )
        for c in normalizer.callees
    )
    return Meta(
        tuple(func_names),
        *located,
        tuple(wrt_names),
        *flags,
        callees,
        tuple(map(tuple, lines)),
        fn.__code__.co_firstlineno,
        tuple(suffixed),
    )


def _made_for(fn, statics):
    """What a transform in progress is made for: a call back into the same is recursion."""
    return fn.__code__, id(fn.__globals__), statics


def _called_as(made_for, mode, wrt, outputs, has_aux, names, func_names):
    """recursion.making's arguments for a derivative: what a call back into it asks for
    (None for f's gradient, which has no fwd_f and bwd_f to call; f's own JVP is one a call
    can call), its names, and whether it is a callee's (named by its caller)."""
    callable_ = names is not None or mode is Mode.JVP and not has_aux
    asked = (made_for, mode, tuple(wrt), _outputs(outputs)) if callable_ else None
    return asked, func_names, names is not None


def _normalized(made_for, normalizer):
    """The program in ANF, its loop-invariant reads hoisted; the callees it calls are derived
    meanwhile, fn's code and statics marked as in progress."""
    _in_progress.codes.add(made_for)
    try:
        program = normalizer.run()
        hoist_loop_reads(program, normalizer.names)
        return program
    finally:
        _in_progress.codes.discard(made_for)
        if not _in_progress.codes:
            _in_progress.varied_items.clear()


def _sweeps(
    program, wrt_names, mode, func_names, preserve_result, has_aux, outputs, versions, wrt_checked
):
    """The emitted functions: the JVP, or the gradient (the forward and backward halves);
    and the names that carry a suffix, each with the name it stands for: a version of a
    variable (`versions`: h_1 of h), its derivative's (bh_1 of bh: the name of h's own
    derivative, or a name the function does not use). A name chosen with a clash suffix
    (b_t0_ beside the first-order b_t0) is none of them: its plain name is another value's."""
    if mode is Mode.JVP:
        sweeps = Forward(program, wrt_names, func_names[0], outputs)
    else:
        sweeps = Reverse(
            program,
            wrt_names,
            mode=mode,
            preserve_result=preserve_result,
            has_aux=has_aux,
            outputs=outputs,
            func_name=func_names if mode is Mode.SPLIT else func_names[0],
            wrt_checked=wrt_checked,
        )
    funcs = sweeps.build()
    stacked = sweeps.stacked()  # (a stack's name spells its variable's: h_1's _stack_h_1)
    suffixes = Suffixed({v: of for v, of in versions.items() if v not in stacked})
    derivatives = sweeps.derivative_names()
    for var, name in derivatives.items():
        if var in suffixes.stands_for and name == sweeps.PREFIX + var:
            of = versions[var]
            wanted = derivatives.get(of, sweeps.PREFIX + of)
            if of in derivatives or wanted not in sweeps.taken:
                suffixes.stands_for[name] = wanted
                suffixes.follows[name] = var
    return funcs, suffixes
