"""What the derivatives of the user functions an emitted module calls are named (and, at
the end, what a reverse sweep names the adjoints and stacks it makes: AdjointNames).

A function g differentiated one way in the whole module (its `.source`: f's derivative and
every callee's, however deep) gives `fwd_g` and `bwd_g` (`jvp_g`). One differentiated in more
ways, say conv2d with respect to its weights at one call and to its input and weights at
another, gives one pair per way, named by what it differentiates: `fwd_conv2d_w`,
`fwd_conv2d_x_w` (and `_out0` when only some items of its result are). A caller sees only
its own calls: a transform names each function as if differentiated one way, and when the
module made turns out to differentiate some in more ways (`shared`), it is named again with
those apart (the `suffixed` option, handed down to each callee for the functions below it).
Naming again changes no more than names, so the modules already made are renamed
(`renamed`), not made anew."""

import itertools
from dataclasses import replace

import gast

from . import codegen, ir


def variant(fn, wrt, options):
    """What tells one derivative of fn from another in a module: the parameters it
    differentiates, the items of its result that carry a derivative, its static arguments."""
    outputs = options.get("outputs")
    return (
        fn,
        tuple(wrt),
        None if outputs is None else tuple(outputs),
        repr(options.get("statics", ())),
    )


def base_name(fn):
    """fn's name, as emitted names are made from it: a lambda's is the module's name for it
    (`act = lambda z: ...`), else `lambda_`."""
    if fn.__name__.isidentifier():
        return fn.__name__
    bound = (k for k, v in fn.__globals__.items() if v is fn and k.isidentifier())
    return next(bound, "lambda_")


def base_names(fn, wrt_names, outputs, suffixed):
    """The names to try, best first, for a derivative of fn (after fwd_, bwd_ or jvp_): fn's
    own name unless fn is differentiated in more than one way in the module, then the name
    that says which way."""
    name = base_name(fn)
    spelled = "_".join([name] + list(wrt_names))
    if outputs is not None:
        spelled += "_out" + "".join(str(k) for k, keep in enumerate(outputs) if keep)
    return [spelled] if name in suffixed else [name, spelled]


def callee_names(fn, wrt_names, outputs, suffixed, prefixes, taken):
    """The names of a callee's derivative in its caller's module (`fwd_g` and `bwd_g`, or
    `jvp_g`, for each of `prefixes`): the first base name for which `taken` holds none. (A
    number only where the module holds another g differentiated the same way, or uses the
    name otherwise: another function g, or a variable.)"""
    spelled = base_names(fn, wrt_names, outputs, suffixed)
    numbered = (f"{spelled[-1]}_{k}" for k in itertools.count(2))
    for base in itertools.chain(spelled, numbered):
        names = [f"{prefix}_{base}" for prefix in prefixes]
        if not any(n in taken for n in names):
            return names


class Made:
    """A module made by the transform in progress, kept in case it must be named again: its
    functions' trees, docstring and metadata, the names its normaliser held in use, and for
    each callee (in the order they were named) what its names are made from."""

    def __init__(self, funcs, doc, meta, used, callees, prefixes, imports=()):
        self.funcs, self.doc, self.meta, self.used = funcs, doc, meta, used
        self.callees, self.prefixes, self.imports = callees, prefixes, imports


_DEFINITIONS = frozenset((gast.FunctionDef,))


def renamed(made, names, suffixed, below, release):
    """(source, Meta, function trees) of the module `made`, its functions named `names` and
    its callees as `suffixed` names them, exactly as a transform with those options would
    write it; None if a name a transform would weigh is one the module uses otherwise (it
    is made anew). The trees are renamed in place, once `release(trees)` has taken them from
    the module made before (which parses its source if it is ever specialised): a copy cost
    a fifth of the naming round."""
    if made is None or any(use.cyclic for use in made.meta.callees):
        return None  # (modules calling each other's functions are made anew together)
    old = set(made.meta.names).union(*(c.names for c in made.meta.callees))
    nodes, reserved = [], set(made.used) - set(made.meta.names)
    definitions = []
    for node in ir.names_under(list(made.funcs), _DEFINITIONS, definitions) + definitions:
        name = node.id if node.__class__ is gast.Name else node.name
        if name in old:
            nodes.append(node)
        else:
            reserved.add(name)
    if reserved.intersection(names):
        return None
    mapping, chosen, callees = dict(zip(made.meta.names, names)), set(names), []
    for use, (fn, wrt_names, outputs, variant) in zip(made.meta.callees, made.callees):
        picked = callee_names(fn, wrt_names, outputs, suffixed, made.prefixes, chosen)
        if picked != callee_names(
            fn, wrt_names, outputs, suffixed, made.prefixes, chosen | reserved
        ):
            return None  # (one the transform skips, or not, as its names in use then say)
        mapping.update(zip(use.names, picked))
        chosen.update(picked)
        callees.append(replace(use, names=picked, suffixed=passed_on(suffixed, variant, below)))
    release(made.funcs)
    for node in nodes:
        if node.__class__ is gast.Name:
            node.id = mapping[node.id]
        else:
            node.name = mapping[node.name]
    source, lines = codegen.to_source(made.funcs, made.doc, made.imports)
    made.meta = replace(
        made.meta,
        names=tuple(names),
        callees=tuple(callees),
        lines=tuple(map(tuple, lines)),
        suffixed=tuple(suffixed),
    )
    return source, made.meta, made.funcs


def shared(entry):
    """(the names of the functions differentiated in more than one way in the module of an
    Emitted `entry`, the names of the functions below each of its derivatives' variants)."""
    ways, below = {}, {}

    def visit(node):
        if node.variant not in below:  # (a derivative met again has nothing new below it)
            name = base_name(node.variant[0])
            below[node.variant] = frozenset({name}.union(*map(visit, node.callees)))
            ways.setdefault(name, set()).add(node.variant)
        return below[node.variant]

    visit(entry)
    return tuple(sorted(name for name, found in ways.items() if len(found) > 1)), below


def passed_on(suffixed, callee_variant, below):
    """The part of a module's `suffixed` a callee's own module needs: the functions below it
    (all of them if the module was never made without it)."""
    names = below.get(callee_variant)
    return tuple(sorted(set(suffixed) if names is None else set(suffixed) & names))


class AdjointNames:
    """What the reverse sweeps (reverse.py) name the adjoints and stacks they make, in the
    function whose variables `taken` holds; the names in `adjoint_names` and `stack_names`
    by what they are of."""

    PREFIX = "b"  # (the adjoint of x is bx)

    def _fresh(self, base, table):
        """The name for `base[0]` in `table` (chosen once, so it is stable): `base[1]`, or
        while the function uses that, with trailing underscores (PEP 8's way out of a
        clash). The suffix stays: the plain name is another value's (the first-order b_t0
        beside the adjoint of _t0, b_t0_, in grad of grad), never to be read as this one."""
        if base[0] not in table:
            candidate = base[1]
            while candidate in self.taken:
                candidate += "_"
            self.taken.add(candidate)
            table[base[0]] = candidate
        return table[base[0]]

    def bname(self, var):
        return self._fresh((var, "b" + var), self.adjoint_names)

    def stack(self, var):
        return self._fresh(
            (var, "_stack" + (var if var.startswith("_") else "_" + var)), self.stack_names
        )

    def derivative_names(self):
        """Each variable's adjoint's name."""
        return {var: name for var, name in self.adjoint_names.items() if isinstance(var, str)}

    def stacked(self):
        """The variables saved on a stack of their own."""
        return {var for var in self.stack_names if isinstance(var, str)}
