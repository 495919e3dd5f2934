"""Stage 6, at call time: emitted code rewritten for the types and shapes of its arguments.

Generic emitted code calls runtime helpers (unbroadcast, matmul_grad, shape_of, ...) that look
at shapes only known at run time; on small arrays and scalars those calls cost more than the
arithmetic. For each new signature of the arguments (types, shapes, dtypes; see
signatures.describe) this stage infers the same for every value in the function (shapes.py) and
replaces each helper call whose outcome is then certain by the numpy it would run, often
nothing (`runtime.unbroadcast(b_t3, _t2)` with equal shapes is `b_t3`). The dead code left
behind (a stack of shapes nothing reads any more) is removed by the optimisation passes.

A gradient with respect to one Python float is computed in forward mode, from the function's
emitted JVP with the seed tangent 1.0: no stacks, no adjoint sweep.

With `config(specialize="check")` each call runs both the variant and the generic code and
compares their results element for element (runtime.same_as): the test suite runs that way.
"""

import ast
import copy
import types

import gast

from . import cache, codegen, conversion, ir, runtime
from .emitted import told_apart
from .passes import saved_lists, tuple_items
from .passes.keep_scalars import keep_scalars_unspread
from .optimize import eliminate_dead_code, eliminate_dead_stacks, gather_row_adjoints, release_early
from .passes.copies import CopyPropagation, coalesce_temporaries
from .inference import Interpreter, Unsupported, bind_parameters
from .shapes import BOTTOM, UNKNOWN, EitherScalar, Typed, widen
from .signatures import describe
from .known_outcomes import rewritten

settings = {"specialize": True}  # False: always the generic code; "check": compare with it
MAX_VARIANTS = 8  # signatures per derivative; beyond, calls run the generic code


# --- building a variant -----------------------------------------------------------------------


def _function(emitted, name):
    """The emitted module's function `name` as a gast tree to rewrite in place."""
    tree = _taken(emitted, (name,)).get(name)
    if tree is None:
        raise Unsupported(f"no function {name} in the emitted source")
    return tree


def _taken(emitted, names):
    """{name: gast tree} of the emitted module's functions `names`, for specialisation to
    rewrite in place: the transform's own trees, each handed out once (made what the parse
    of their source gives: codegen.as_printed), else parsed from the source. Their
    statements carry the lines of f they come from (those of the parsed ones are mapped)."""
    kept = [emitted.trees.pop(name, None) for name in names]
    found = {tree.name: tree for tree in kept if tree is not None}
    if len(found) < len(names):
        lines = dict(emitted.meta.lines)
        for tree in conversion.ast_to_gast(ast.parse(emitted.source)).body:
            if isinstance(tree, gast.FunctionDef) and tree.name in names:
                found.setdefault(tree.name, _relined(tree, lines))
    return found


def _relined(func, lines):
    """A function parsed from emitted source, each statement's line number made the line of
    f its row comes from (`lines`), or 0 if none: what the transform's trees carry."""
    todo = [func]
    for stmt in todo:
        stmt.lineno = lines.get(stmt.lineno, 0)
        for field in ("body", "orelse", "finalbody"):
            todo.extend(getattr(stmt, field, None) or ())
        for handler in getattr(stmt, "handlers", None) or ():
            todo.extend(handler.body)
    return func


def rewrite(func, arguments, emitted, session, interpreter=None, cut=None, partners=None):
    """Specialise gast FunctionDef `func` of `emitted`'s module (in place) for `arguments`
    (abstract values, one per parameter), its calls to callees included (`cut`, `partners`:
    see Session.redirect); returns the interpreter (its run on func for them, if one is
    given), whose `returned` is the abstract return value, and what redirect returns: the
    callee lists cut, and the backward copies given the lists func takes."""
    callees = Callees(emitted, session)
    if interpreter is None:
        interpreter = Interpreter(func, _opaque(emitted), callees, _fixed(emitted)).run(arguments)
    rewritten(func, interpreter.seen)
    lengths = tuple_items.tuple_lengths(interpreter.bound)
    if lengths:  # (the tuple passes act on names holding a tuple: most code has none)
        tuple_items.forward_item_adjoints(func, lengths)
        tuple_items.gather_tuple_adjoints(func, lengths)
    while eliminate_dead_stacks(func):
        pass
    name_nodes = ir.NameNodes()  # (each statement walked once for both passes below)
    eliminate_dead_code(func, name_nodes)
    if lengths:
        tuple_items.unpack_tuples(func, lengths)
    copies = CopyPropagation(func, None if lengths else name_nodes)
    copies.run()
    context = _opaque(emitted), callees, _fixed(emitted)
    keep_scalars_unspread(func, arguments, context, copies)
    gather_row_adjoints(func, interpreter.seen)
    coalesce_temporaries(func)  # (`_t4 = v + _t3; v = _t4`, with no stack between now)
    inner = session.redirect(interpreter.seen, emitted, func, cut, partners)
    return interpreter, inner


class Session:
    """The building of one variant: what the callees return (memo, see Callees) and the
    specialised copies of them its code calls (`sources`, in the order they were made)."""

    def __init__(self):
        self.memo, self.sources = {}, []
        self.sharing = {}  # the names of callees' functions -> the callees sharing them
        self.interpreters = {}  # Callees' runs of a callee function, by the memo's key

    def redirect(self, seen, emitted, func, cut=None, partners=None):
        """Point each call to one of `emitted`'s callee functions at a copy of that function
        specialised for the call's arguments (kept, for other variants, on the callee). A
        callee's saved list that func hands from the forward call to the backward one goes
        through a pair of copies that save only what the backward one reads
        (passes/saved_lists.py); so does one that func, a backward copy being cut (`cut`
        True), takes from its own saved list, and one that func, a forward copy being cut
        (`cut` a saved_lists.Cut), saves in its own as that Cut's `inner` says. Returns
        those func takes and cuts, for its `inner`: ((place, forward function, Cut), ...),
        and the backward copies given the lists it takes, by place: those of the forward
        copies that func, a forward copy, saves at those places pair with (`partners`)."""
        owners = _owners(emitted)
        if not owners:  # (no callee: nothing to point anywhere)
            return (), {}
        plan, places = _plan(func, owners, cut)
        partners = partners or {}
        done, later, inner = set(), {}, []  # (later: a backward copy's sources, shown where called)
        given = {}
        for node, values in list(seen.values()):
            self.sources += [s for s in later.pop(id(node), ()) if s not in self.sources]
            if not (
                isinstance(node, gast.Call)
                and isinstance(node.func, gast.Name)
                and node.func.id in owners
                and id(node) not in done
            ):
                continue
            callee, name = owners[node.func.id], node.func.id
            values = _call_arguments(callee, name, node, values)
            channel, how = plan.pop(id(node), (None, None))
            pair = partners.get(places.get(id(node)))
            if isinstance(how, saved_lists.Cut):  # (a forward call whose list func saves)
                saving = self.clone(callee, name, values, cut=how, pair=pair)
                if saving is None:
                    raise Unsupported(f"{name} cannot save less")
                self._point(node, saving, emitted)
                cut_to = how
            elif isinstance(how, int):  # (a backward call given a list func takes)
                pruned = self.clone(callee, name, values, cut=True)
                self._point(node, pruned, emitted)
                cut_to = None if pruned is None else pruned.kept
                if pruned is not None:
                    given[how] = pruned
                if cut_to is not None:
                    inner.append((how, _forward_of(owners, name), cut_to))
            elif how is not None and id(how) in seen:  # (a forward call and its backward one)
                cut_to = self._redirect_pair(owners, (node, values), how, seen, later, emitted)
                done.add(id(how))
            else:
                copy = self.clone(callee, name, values, pair=pair)
                self._point(node, copy, emitted)
                if copy is not None and id(node) in places and _forward_of(owners, name):
                    given[places[id(node)]] = copy  # (a backward call given a list whole)
                continue
            if cut_to is not None and cut_to.empty:
                saved_lists.unhand(func, channel)
        if any(isinstance(how, saved_lists.Cut) for _, how in plan.values()):
            raise Unsupported("a callee's list to cut is made where the run never went")
        return tuple(inner), given

    def _redirect_pair(self, owners, call, backward, seen, later, emitted):
        """Point a forward call and the backward call it hands its saved list to at copies
        made together, under one number: copies that save only what the backward one reads;
        returns their Cut, None (and plain copies) when they read all of it."""
        (forward, values), start = call, len(self.sources)
        callee, backward_values = owners[forward.func.id], seen[id(backward)][1]
        backward_values = _call_arguments(callee, backward.func.id, backward, backward_values)
        pruned = self.clone(callee, backward.func.id, backward_values, cut=True)
        later[id(backward)] = self.sources[start:]
        del self.sources[start:]
        if pruned is not None and pruned.kept is not None:
            saving = self.clone(callee, forward.func.id, values, cut=pruned.kept, pair=pruned)
            if saving is not None:
                self._point(forward, saving, emitted)
                self._point(backward, pruned, emitted)
                return pruned.kept
            del self.sources[start:]  # (the cut copies are not called: not shown)
            pruned = self.clone(callee, backward.func.id, backward_values)
            later[id(backward)] = self.sources[start:]
            del self.sources[start:]
        self._point(forward, self.clone(callee, forward.func.id, values, pair=pruned), emitted)
        self._point(backward, pruned, emitted)
        return None

    def clone_name(self, callee, name, number):
        """The name of the number'th copy of `callee`'s function `name`: numbered also by
        callee where this variant calls others whose functions share its names (one
        method's derivatives, made per class in different callers' modules)."""
        sharing = self.sharing.setdefault(callee.meta.names, [])
        if callee not in sharing:
            sharing.append(callee)
        rank = sharing.index(callee)
        return f"{told_apart(name, callee, rank + 1) if rank else name}_s{number}"

    @staticmethod
    def _point(node, clone, emitted):
        if clone is not None:
            node.func.id = clone.__name__
            emitted.scope[clone.__name__] = clone

    def clone(self, callee, name, values, cut=None, pair=None):
        """Callee function `name` specialised for the abstract arguments `values` (None if it
        cannot be). `cut`: True for a backward function to unpack only the saved values it
        reads (its `kept` says which: None if all), or what a backward one's `kept` says, for
        a forward function to save only those (None if it cannot). `pair`: for a forward
        function, the backward copy its copy goes with, whose number it takes when no other
        copy of `name` has it, and whose callees' copies its callees' copies pair with."""
        if all(v is UNKNOWN for v in values):
            return None
        clones = callee.clones
        key = (name, tuple(values)) if cut is None else (name, tuple(values), cut)
        try:
            found = clones.get(key)
        except TypeError:  # an unhashable constant among the arguments (a slice)
            return None
        if found is not None:  # (made for another variant: listed here too, with its callees')
            self.sources += [s for s in found.listing if s not in self.sources]
            return found
        listed, copied = len(self.sources), {}
        func = ir.copy_tree(_parsed(callee)[name][0], copied)
        number = _number(clones, callee.meta.names, name, pair and pair.number)
        func.name = self.clone_name(callee, name, number)
        generic = callee.functions[name]
        defaults, kwdefaults = generic.__defaults__, generic.__kwdefaults__
        backward = name == callee.meta.names[-1] != callee.meta.names[0]
        if backward:  # its dels are placed anew once the rewrites changed what is read where
            func.body = [stmt for stmt in func.body if not isinstance(stmt, gast.Delete)]
        # (finding what it returned, Callees ran it on these arguments: that run is reused)
        interpreter = self.interpreters.pop((id(callee), name, tuple(values)), None)
        if interpreter is not None:
            interpreter.seen = {
                id(copied[key]): (copied[key], found)
                for key, (_, found) in interpreter.seen.items()
            }
        try:
            partners = pair.partners if pair is not None else None
            _, (inner, given) = rewrite(
                func, list(values), callee, self, interpreter, cut, partners
            )
        except Unsupported:
            return None
        kept = _cut(func, cut, inner)
        if kept is False:
            return None
        keys = [key]
        if cut is True and kept is None:  # (it reads them all: the plain copy, under both keys)
            keys.append(key[:2])
            if clones.get(key[:2]) is not None:
                clones[key] = clones[key[:2]]
                return clones[key]
        if backward:
            release_early(func)
        function = compile_function(func, callee, defaults, func.name, kwdefaults)
        function.kept, function.number, function.partners = kept, number, given
        return self._kept(clones, keys, function, listed)

    def _kept(self, clones, keys, function, listed):
        """A new copy kept under its `keys`, listed after the copies made for it (the sources
        from `listed` on); or, where a copy made before is the same code (_twin), that one:
        other arguments, the same code, shown and run once."""
        twin = _twin(clones, keys[0][0], function)
        if twin is not None:
            del self.sources[listed:]
            self.sources += [s for s in twin.listing if s not in self.sources]
            function = twin
        else:
            self.sources.append(function.source)
            function.listing = self.sources[listed:]
        for key in keys:
            clones[key] = function
        return function


def _twin(clones, name, function):
    """A copy of callee function `name` made before whose code is `function`'s but for its
    name, cut alike and handing its lists to the same copies (nothing else tells them
    apart); else None."""
    code = function.source.partition("(")[2]
    return next(
        (
            f
            for key, f in clones.items()
            if key[0] == name
            and f.kept == function.kept
            and f.partners == function.partners
            and f.source.partition("(")[2] == code
        ),
        None,
    )


def _number(clones, names, name, wanted):
    """The number of a new copy of a callee's function `name`: `wanted` (its pair's) when no
    copy of `name` has it, else the first that no copy of any of the callee's functions
    `names` has (so that a copy made later may share it with its pair)."""
    taken = {f.number for key, f in clones.items() if key[0] == name}
    if wanted is not None and wanted not in taken:
        return wanted
    taken |= {f.number for key, f in clones.items() if key[0] in names}
    return next(n for n in range(1, len(taken) + 2) if n not in taken)


def _cut(func, cut, inner):
    """What clone's `cut` asks of the specialised func: for a backward function, what it
    keeps of its saved values (saved_lists.keep_read; `inner`, the callee lists it cut), None
    for all; for a forward function, False if it cannot save only those."""
    if cut is True:
        return saved_lists.keep_read(func, inner)
    if cut is not None and not saved_lists.keep_saved(func, cut):
        return False
    return None


def _plan(func, owners, cut):
    """{id(call): (its saved_lists.Channel, how Session.redirect points it)} for func's calls
    whose saved lists are cut: a forward call's backward call (a pair within func), a
    backward call's place in func's saved list (func a backward copy being cut, `cut` True),
    a forward call's Cut (func a forward copy cut so; raises Unsupported when one is not
    found); and {id(call): place} for the forward calls whose lists func saves and the
    backward calls given the lists func takes."""
    forwards = {name: _forward_of(owners, name) for name in owners}
    forwards = {name: forward for name, forward in forwards.items() if forward is not None}
    plan, returned, places = {}, {}, {}
    for channel in saved_lists.channels(func, forwards):
        pair, handed_in, handed_out = channel.pair(), channel.handed_in(), channel.handed_out()
        if pair is not None:
            plan[id(pair[0])] = channel, pair[1]
        elif handed_in is not None and cut is True:
            plan[id(handed_in[1])] = channel, handed_in[0]
        elif handed_in is not None:
            places[id(handed_in[1])] = handed_in[0]
        elif handed_out is not None:
            returned[handed_out[0]] = channel, handed_out[1]
    for place, forward, inner in cut.inner if isinstance(cut, saved_lists.Cut) else ():
        channel, call = returned.get(place, (None, None))
        if call is None or call.func.id != forward:
            raise Unsupported(f"no call of {forward} saved at {place}")
        plan[id(call)] = channel, inner
    places.update((id(call), place) for place, (_, call) in returned.items())
    return plan, places


def _forward_of(owners, name):
    """The forward function a callee's backward function `name` goes with, else None."""
    names = owners[name].meta.names if name in owners else ()
    return names[0] if names and name == names[-1] != names[0] else None


class Callees:
    """What the functions of an emitted module's callees return (fwd_g, bwd_g, jvp_g), found
    by running each abstractly on the arguments of the call; `memo` keeps every result
    for the arguments it was found for, across the whole tree of callees."""

    def __init__(self, emitted, session):
        self.session, self.memo = session, session.memo
        self.owners = _owners(emitted)

    def __call__(self, name, args, named=None):
        callee = self.owners.get(name)
        if callee is None:
            return None
        try:
            params = _bound_call(callee, name, args, named)
        except Unsupported:
            return UNKNOWN
        key = (id(callee), name, tuple(params))
        try:
            if key in self.memo:
                return self.memo[key]
        except TypeError:  # an unhashable constant among the arguments (a slice)
            key = None
        result = UNKNOWN
        try:
            parsed = _parsed(callee)[name]
            interpreter = Interpreter(
                parsed[0], _opaque(callee), Callees(callee, self.session), _fixed(callee), parsed[1]
            )
            try:
                interpreter.run(params)
            finally:  # (stack_names of a callee, found only if a run asks: kept for the next)
                parsed[1] = interpreter.known_stacks
            result = UNKNOWN if interpreter.returned is BOTTOM else interpreter.returned
            if key is not None:
                self.session.interpreters[key] = interpreter
        except Unsupported:
            pass
        if key is not None:
            self.memo[key] = result
        return result


def _owners(emitted):
    """The Emitted each of the module's callee functions (fwd_g, bwd_g, jvp_g) belongs to."""
    return {name: callee for callee in emitted.callees for name in callee.meta.names}


def _parsed(emitted):
    """The emitted module's functions as gast trees, taken once (and only ever read), each
    with the names of the lists it uses as stacks (None until an interpreter's run asks):
    {name: [tree, stack names]}."""
    if emitted.parsed is None:
        taken = _taken(emitted, emitted.meta.names)
        emitted.parsed = {name: [tree, None] for name, tree in taken.items()}
    return emitted.parsed


def _unannotated(parameter):
    if parameter is None or parameter.annotation is None:
        return parameter
    parameter = copy.copy(parameter)
    parameter.annotation = None
    return parameter


def compile_function(func, emitted, defaults, label, kwdefaults=None):
    """Compile a gast FunctionDef made from a function of `emitted` into a function whose
    globals are emitted's scope (so it sees the same callees and refreshed globals), and
    whose defaults are `defaults` and `kwdefaults` (its keyword-only parameters')."""
    # (the defaults are given below, and the annotations are dropped: their expressions,
    # evaluated where the def runs, may name what this scope lacks, `x: np.ndarray`)
    bare = copy.copy(func)
    bare.args = copy.copy(func.args)
    bare.args.defaults = []
    bare.args.kw_defaults = [None] * len(func.args.kwonlyargs)
    bare.returns = None
    for field in ("posonlyargs", "args", "kwonlyargs"):
        setattr(bare.args, field, [_unannotated(a) for a in getattr(func.args, field)])
    bare.args.vararg, bare.args.kwarg = map(_unannotated, (func.args.vararg, func.args.kwarg))
    source, rows = codegen.function_source(bare)  # (rows: func's statements carry f's lines)
    filename = f"<srcdiff {label} {cache.digest(source)[:8]}>"
    origin = (emitted.meta.defined.filename, rows)
    compiled = codegen.compile_module(source, filename, {}, origin=origin)[func.name]
    function = types.FunctionType(compiled.__code__, emitted.scope, func.name, defaults)
    function.__kwdefaults__ = kwdefaults
    function.source = source
    return function


def _bound_call(callee, name, args, named=None):
    """Abstract values of callee function `name`'s parameters for a call (bind_parameters)."""
    function = callee.functions[name]
    return bind_parameters(
        _parsed(callee)[name][0], function.__defaults__, args, named, function.__kwdefaults__
    )


def _call_arguments(callee, name, call, values):
    """Abstract values of callee function `name`'s parameters for `call`, whose arguments'
    values are `values` (by position, then by keyword in the order of their names, as the
    interpreter records them); those given when none is known (no copy is made for the
    defaults alone) or when they do not bind (the generic call raises the error)."""
    if all(v is UNKNOWN for v in values):
        return values
    count = len(call.args)
    named = dict(zip(sorted(k.arg for k in call.keywords), values[count:]))
    try:
        return _bound_call(callee, name, values[:count], named)
    except Unsupported:
        return [UNKNOWN] * len(values)


def reverse_variant(emitted, args, keywords=None):
    """The emitted function rewritten for `args` and `keywords` (its keyword-only ones:
    raises Unsupported when the interpreter gives up)."""
    func = _function(emitted, emitted.meta.names[0])
    defaults = _defaults(emitted, func)
    kwdefaults = emitted.function.__kwdefaults__ if any(func.args.kw_defaults) else None
    session = Session()
    named = {name: describe(value) for name, value in (keywords or {}).items()}
    params = bind_parameters(func, defaults, [describe(a) for a in args], named, kwdefaults)
    rewrite(func, params, emitted, session)
    function = compile_function(func, emitted, defaults, f"{func.name} specialised", kwdefaults)
    function.source = "\n\n".join([function.source] + session.sources)
    return function


def _defaults(emitted, func):
    """The defaults of the emitted function `func` (its tree, as made): none where neither
    it nor f has any, known without running the module (module_run.py), else those of the
    function it runs (f's, or its own)."""
    if func.args.defaults or emitted.fn is None or emitted.fn.__defaults__ is not None:
        return emitted.function.__defaults__
    return None


def _seeded(jvp_emitted, position, name):
    """f's JVP as a function of f's arguments, the tangent of the one at `position` seeded
    with 1.0, returning (d f / d x, f's value); None when it does not return a pair."""
    func = _function(jvp_emitted, jvp_emitted.meta.names[0])
    seed = func.args.args.pop(0)
    last = func.body[-1]
    if not (
        isinstance(last, gast.Return)
        and isinstance(last.value, gast.Tuple)
        and len(last.value.elts) == 2
    ):
        return None
    value, tangent = last.value.elts
    x = func.args.args[position].id
    last.value.elts = [ir.call("runtime.as_grad", tangent, ir.name(x)), value]
    func.body.insert(0, ir.assign(seed.id, ir.const(1.0)))
    func.name = name
    return func


def forward_variant(jvp_emitted, args, position, name, preserve_result):
    """d f / d x for a float x = args[position], as f's JVP with tangent 1.0, rewritten for
    `args`; None unless f's value is certainly a scalar (else grad must report the error).
    Its `reference` is the same without the rewriting."""
    func = _seeded(jvp_emitted, position, name)
    if func is None:
        return None
    generic = ir.copy_tree(func)
    defaults, kwdefaults = jvp_emitted.function.__defaults__, jvp_emitted.function.__kwdefaults__
    session = Session()
    params = bind_parameters(func, defaults, [describe(a) for a in args], None, kwdefaults)
    interpreter, _ = rewrite(func, params, jvp_emitted, session)
    returned = interpreter.returned
    out = widen(returned.items[1]) if hasattr(returned, "items") else UNKNOWN
    if not (isinstance(out, (Typed, EitherScalar)) and out.shape == () and out.dtype.kind != "c"):
        return None
    if not preserve_result:
        for f in (func, generic):
            f.body[-1].value = f.body[-1].value.elts[0]
    label = f"{name} (forward mode)"
    function = compile_function(func, jvp_emitted, defaults, label, kwdefaults)
    function.source = "\n\n".join([function.source] + session.sources)
    function.reference = compile_function(generic, jvp_emitted, defaults, name, kwdefaults)
    return function


def checked(variant, emitted):
    """The variant, run together with the generic code it was made from (its `reference`,
    else `emitted`'s function), whose results it must match in every element
    (config(specialize="check"))."""
    reference = getattr(variant, "reference", None) or emitted.function

    def both(*args, **kwargs):
        return runtime.same_as(variant(*args, **kwargs), reference(*args, **kwargs))

    both.source = variant.source
    return both


def _fixed(emitted):
    """The emitted module's globals that it never re-reads (not live): what templates use."""
    live = {name for name, _ in emitted.live}
    return {name: value for name, value in emitted.scope.items() if name not in live}


def _opaque(emitted):
    """Global names of the emitted module other than its imports: callees, names templates
    use, and the user's globals and closure variables (which may change between calls).
    None of them is a builtin (a user's `max` is not max) and none is looked into."""
    return (set(emitted.scope) | {name for name, _ in emitted.live}) - {"np", "runtime"}
