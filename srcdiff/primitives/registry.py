"""The primitive registry: every function srcdiff differentiates without reading its source
(a numpy function, an operator, a runtime helper that emitted code calls) is declared once,
in one record holding all its facts. The pipeline's stages ask the registry; none keeps a
table of its own.

A record is declared as a class whose methods are its templates (template.py):

    @primitive(np.tanh, samples=[Sample("np.tanh(x)", x=real(3, 4))])
    class tanh:
        def adjoint(bz, z, x):
            bx = bz * (1 - z * z)

        def tangent(dz, z, x):
            dz = dx * (1 - z * z)

and may also define `rewrite(node, *abstract_args)` (its specialisation once shapes are
known, specialize.py) and `fold(*arg_nodes)` (constant folding when its last argument is a
number, passes/fold.py).
"""

import builtins
import hashlib
import importlib
import inspect
import sys
from dataclasses import dataclass, field

import numpy as np

from .. import runtime
from ..template import Template

EVALUATE = "evaluate"  # shape rule: call the function itself on stand-ins (shapes.py)

# Parameters of numpy's and SciPy's functions that they take only as ints, bools, strings or
# dtypes (an axis, a shape, a count, a flag), so no derivative can flow through them: constant
# in srcdiff's own templates that give them no rule, even when the analysis sees them varied
# (for W, (m, n) in layers: m and n come out of a list holding arrays that are)
INTEGRAL_PARAMETERS = frozenset(
    """axis axes axis1 axis2 axisa axisb axisc keepdims dtype order shape ddof n k s num
    offset endpoint reps repeats shift source destination start kth indices_or_sections
    pad_width window_shape mode norm kind stable UPLO casting method overwrite_input
    full_matrices compute_uv hermitian retstep subok sparse indexing N increasing edge_order
    rowvar bias returned copy indices obj condition condlist where""".split()
)


@dataclass(eq=False)
class Sample:
    """A call of a primitive for the tests generated from the registry: `call` is an
    expression of the named arguments, each made by a maker from samples.py. `wrap` makes
    it a scalar: "sin" (np.sum(np.sin(call))), "abs2" (for complex values), or None (the
    call is a scalar already). `constant` names arguments not to differentiate."""

    call: str
    args: dict
    wrap: str = "sin"
    constant: tuple = ()
    second_order: bool = True
    setup: str = ""  # a statement to run first (`y = x`)

    def __init__(self, call, wrap="sin", constant=(), second_order=True, setup="", **args):
        self.call, self.args, self.wrap, self.setup = call, args, wrap, setup
        self.constant, self.second_order = tuple(constant), second_order


@dataclass(eq=False)
class Primitive:
    """Everything srcdiff knows of one primitive."""

    name: str
    functions: tuple
    methods: tuple = ()  # ndarray methods meaning the same (x.sum(...) is np.sum(x, ...))
    attributes: tuple = ()  # ndarray attributes meaning the same (x.T)
    operators: tuple = ()  # Python operators (gast node classes) meaning the same (a + b)
    adjoint: Template = None
    tangent: Template = None
    differentiable: bool = True  # False: its result carries no gradient (argmax, x.shape)
    shape: object = None  # EVALUATE, or None: its result's type and shape are unknown
    shape_args: frozenset = frozenset()  # positions read only for shape and dtype
    index_args: tuple = ()  # positions where an int of unknown value is an index
    fresh: bool = False  # its result is always a new array (never a view of an argument)
    view: bool = False  # its result may share memory with its first argument
    pure: bool = True  # no side effect: an unused result may be dropped
    vararg_method: bool = False  # x.reshape(2, 3) is np.reshape(x, (2, 3))
    multiple_outputs: bool = False  # it returns a tuple or list of arrays: a, b = f(x)
    # its templates follow a dtype= of ints or bools (runtime.cast_grad: flat); without it
    # such a dtype of a differentiated call is refused (np.sum(x, dtype=int))
    casts: bool = False
    # its order= says in which order it reads its argument's elements, which its templates
    # follow for 'C' and 'F' only: 'A' and 'K' follow the argument's memory layout, which the
    # arrays its templates reshape lack (refused, as an order only the call tells)
    reads_in_order: bool = False
    # positions of a returned tuple's adjoint it reads only by runtime.unpack_adjoint, where
    # a tuple of the items' adjoints (None: none) may stand for the Sparse (eigh_vjp's g)
    tuple_adjoints: tuple = ()
    # its result may be larger than an array operand whose other operands are all numbers
    # or real scalars (np.full(3, a), np.tril of a 1-d m): the adjoint's runtime.unbroadcast
    # (a tangent's broadcast_like) stays then
    widens: bool = False
    # keyword names numpy also takes for a template's parameter: (("min", "a_min"),) for clip
    keyword_aliases: tuple = ()
    # keywords a call may pass that never change its value (SciPy's check_finite): the
    # templates take no parameter for them, and the call keeps them
    inert_keywords: tuple = ()
    rewrite: object = None
    fold: object = None
    samples: list = field(default_factory=list)
    own: bool = True  # declared by srcdiff's primitives alone (register says)

    def template(self, forward):
        """The tangent template (forward mode) or the adjoint template."""
        return self.tangent if forward else self.adjoint

    @property
    def function(self):
        return self.functions[0]


_records = []
_registered = set()  # the ids of _records' records
_by_function = {}
_by_method, _by_attribute, _by_operator = {}, {}, {}
_token = _globals = None  # digests of the records, made again after each registration
_deferred = {}  # an optional library's module -> the srcdiff modules declaring its primitives
_declared_for = []  # the optional libraries' modules whose primitives were declared
_modules_seen = [0]  # how many modules were imported when _deferred was last looked at


def when_imported(library_module, *declaring_modules):
    """Declare an optional library's primitives (SciPy's) only once the program has imported
    that library's module: srcdiff never imports it, so it costs nothing to those without it."""
    _deferred[library_module] = declaring_modules


def declare_imported():
    """Declare the primitives of each deferred library module the program has imported."""
    if len(sys.modules) == _modules_seen[0]:  # (asked at each miss of find: none imported since)
        return
    _modules_seen[0] = len(sys.modules)
    for library_module in [m for m in _deferred if m in sys.modules]:
        _declared_for.append(library_module)
        for declaring_module in _deferred.pop(library_module):
            importlib.import_module(declaring_module)


def _key(obj):
    try:
        hash(obj)
    except TypeError:
        return id(obj)
    return obj


def register(record):
    """Add a record (or a newer version of one: a user's rule replaces the built-in)."""
    global _token, _globals
    for fn in record.functions:
        old = _by_function.get(_key(fn))
        if old is not None and old is not record:
            old.functions = tuple(f for f in old.functions if f is not fn)
        _by_function[_key(fn)] = record
    for table, names in (
        (_by_method, record.methods),
        (_by_attribute, record.attributes),
        (_by_operator, record.operators),
    ):
        for name in names:
            table[name] = record
    if id(record) not in _registered:
        _registered.add(id(record))
        _records.append(record)
    declarer = sys._getframe(1)
    while declarer.f_globals is globals():  # (the public API's functions here call this)
        declarer = declarer.f_back
    # a record any registration outside srcdiff's primitives touched (a user's rule, nn.py's)
    # is described in full in cache keys: srcdiff's own are its implementation's digest's
    if not declarer.f_globals.get("__name__", "").startswith(__package__ + "."):
        record.own = False
    _token = _globals = None
    return record


def primitive(*functions, constant=(), samples=(), **facts):
    """Declare the primitive covering `functions` from the decorated class (module doc).
    `constant` names arguments whose value carries no derivative (a shape, a mask)."""

    def declare(cls):
        found = {name: cls.__dict__.get(name) for name in ("adjoint", "tangent", "rewrite", "fold")}
        record = Primitive(cls.__name__, tuple(functions), samples=list(samples), **facts)
        record.shape_args = frozenset(record.shape_args)
        for kind in ("adjoint", "tangent"):
            if found[kind] is not None:
                template = Template(
                    functions,
                    found[kind],
                    kind,
                    constant,
                    True,
                    record.widens,
                    record.keyword_aliases,
                    INTEGRAL_PARAMETERS,
                )
                setattr(record, kind, template)
        record.rewrite = _plain(found["rewrite"])
        record.fold = _plain(found["fold"])
        return register(record)

    return declare


def _plain(method):
    return method.__func__ if isinstance(method, staticmethod) else method


def extend(existing, *functions, samples=(), inert_keywords=()):
    """Let the record of the function `existing` cover `functions` too: an optional
    library's functions computing the same with the same parameters (scipy.linalg.inv is
    np.linalg.inv), so that their rules are written once. `inert_keywords`: see Primitive."""
    record = find(existing)
    record.functions += tuple(functions)
    record.samples += list(samples)
    record.inert_keywords += tuple(k for k in inert_keywords if k not in record.inert_keywords)
    for template in (record.adjoint, record.tangent):
        if template is not None:
            template.primals += tuple(functions)
    return register(record)


def constants(*functions, methods=(), attributes=(), shape=EVALUATE, pure=True, **facts):
    """Declare functions whose results carry no gradient (a shape, an index, a mask, a
    random draw), one record each."""
    for fn in functions:
        register(
            Primitive(
                getattr(fn, "__name__", repr(fn)),
                (fn,),
                differentiable=False,
                shape=shape,
                pure=pure,
                **facts,
            )
        )
    if methods or attributes:
        register(
            Primitive(
                f"methods {', '.join(methods + attributes)}",
                (),
                methods=methods,
                attributes=attributes,
                differentiable=False,
                shape=shape,
                **facts,
            )
        )


# --- lookup -----------------------------------------------------------------------------------


def find(obj):
    """The record of a function or other callable, or None. (A bound method, such as
    scipy.stats.norm.logpdf, is a new object at each look-up, but equal to the others.)"""
    try:
        record = _by_function.get(_key(obj))
        if record is None and _deferred:
            declare_imported()
            record = _by_function.get(_key(obj))
        if record is None and inspect.ismethod(obj):
            record = _by_function.get(_key(_namesake_method(obj)))
        return record
    except TypeError:
        return None


def _namesake_method(method):
    """The same method of the instance its module names as the method's object is named: of a
    copy of a distribution (a frozen one's `dist`), scipy.stats' own (`gamma.logpdf`); or None."""
    owner = method.__self__
    module = sys.modules.get(getattr(type(owner), "__module__", None) or "")
    namesake = getattr(module, str(getattr(owner, "name", "")), None)
    if namesake is None or namesake is owner or type(namesake) is not type(owner):
        return None
    return getattr(namesake, method.__name__, None)


def method(name):
    return _by_method.get(name)


def attribute(name):
    return _by_attribute.get(name)


def operator(op_class):
    return _by_operator.get(op_class)


def records():
    declare_imported()
    return list(_records)


_MODULES = {"np": np, "runtime": runtime}
# libraries emitted code reads by their own names (the program imported them), once imported
_LIBRARIES = ("scipy",)


def resolve(path):
    """The object at a dotted path of emitted code: ("np", "linalg", "norm"), ("runtime",
    "unbroadcast"), ("scipy", "stats", "t", "logpdf"), ("len",) for a builtin; None when
    there is none."""
    root, *rest = path
    if not rest:
        obj = getattr(builtins, root, None)
    else:
        obj = _MODULES.get(root) or (sys.modules.get(root) if root in _LIBRARIES else None)
    for part in rest:
        obj = getattr(obj, part, None)
    return obj


def at(path):
    """The record of the function at a dotted path of emitted code, or None."""
    obj = resolve(path)
    return None if obj is None else find(obj)


def is_pure(path):
    """Whether a call to the function at `path` has no side effect: its record says; numpy's
    own functions are pure (but for np.random's draws, declared impure)."""
    record = at(path)
    if record is not None:
        return record.pure
    return path[0] == "np" and path[1:2] != ("random",)


# --- the public registration API --------------------------------------------------------------


def _record_for(primal, shape_safe):
    record = find(primal)
    if record is None:
        record = Primitive(getattr(primal, "__name__", repr(primal)), (primal,))
    if shape_safe:
        record.shape = EVALUATE
    return record


def adjoint(*primals, constant=(), shape_safe=False):
    """Register the decorated adjoint template for each of `primals` (see template.py).
    `constant` names arguments whose value carries no derivative (a shape, a mask);
    `shape_safe=True` says the primal's result's type, shape and dtype follow from its
    arguments' alone, so srcdiff may call it on placeholders to specialise code."""

    def register_template(fn):
        for primal in primals:
            record = _record_for(primal, shape_safe)
            record.adjoint = Template((primal,), fn, "adjoint", constant)
            record.differentiable = True
            register(record)
        return fn

    return register_template


def tangent(*primals, constant=(), shape_safe=False):
    """Register the decorated tangent (forward-mode) template for each of `primals`."""

    def register_template(fn):
        for primal in primals:
            record = _record_for(primal, shape_safe)
            record.tangent = Template((primal,), fn, "tangent", constant)
            record.differentiable = True
            register(record)
        return fn

    return register_template


def nondifferentiable(*primals):
    """Declare functions whose output carries no gradient (shapes, comparisons, draws)."""
    for primal in primals:
        record = _record_for(primal, False)
        record.differentiable = False
        record.adjoint = record.tangent = None
        register(record)


def shape_safe(*functions):
    """Declare functions whose result's type, shape and dtype follow from their arguments'
    alone (not their values): srcdiff may call them on placeholders to specialise code."""
    for fn in functions:
        register(_record_for(fn, True))


# --- what emitted code and caches depend on ---------------------------------------------------


def template_globals():
    """The module names user templates refer to, for the namespace emitted code runs in."""
    global _globals
    declare_imported()
    if _globals is None:
        _globals = {}
        for record in _records:
            for template in (record.adjoint, record.tangent):
                if template is not None:
                    _globals.update(template.globals)
    return dict(_globals)


def token():
    """A digest of every registered template and declaration, part of each cache key. The
    records srcdiff's primitives declare follow from srcdiff's files (digested apart), which
    of them were declared (the optional libraries imported) and the libraries' versions (the
    functions they name): describing each of them cost a first transform ~2 ms."""
    global _token
    declare_imported()
    if _token is None:
        h = hashlib.sha256()
        for text in sorted(_describe(record) for record in _records if not record.own):
            h.update(text.encode())
        h.update(repr(_declared_with()).encode())
        _token = h.hexdigest()
    return _token


def _declared_with():
    """(Python's version, numpy's, how many records srcdiff's primitives declared, the
    optional library modules they were declared for and their packages' versions)."""
    declared = sorted(_declared_for)
    versions = [getattr(sys.modules.get(m.split(".")[0]), "__version__", "") for m in declared]
    own = sum(record.own for record in _records)
    return sys.version_info[:3], np.__version__, own, declared, versions


def _describe(record):
    shape = record.shape if record.shape in (None, EVALUATE) else _qualname(record.shape)
    parts = [_qualname(f) for f in record.functions] + [str(record.differentiable), str(shape)]
    parts += [t.description for t in (record.adjoint, record.tangent) if t is not None]
    return "\n".join(parts)


def _qualname(obj):
    module = getattr(obj, "__module__", None) or ""
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or repr(obj)
    return f"{module}.{name}"
