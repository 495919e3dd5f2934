"""What the derivatives of the user functions an emitted module calls are named.

A function g differentiated one way in the whole module (its `.source`: f's derivative and
every callee's, however deep) gives `fwd_g` and `bwd_g` (`jvp_g`). One differentiated in more
ways, say conv2d with respect to its weights at one call and to its input and weights at
another, gives one pair per way, named by what it differentiates: `fwd_conv2d_w`,
`fwd_conv2d_x_w` (and `_out0` when only some items of its result are). A caller sees only
its own calls, so a transform that meets a function's second way starts again with that
function named apart (the `suffixed` option, handed down to each callee for the functions
below it, as far as known), and a module made is checked whole (`shared`)."""


def variant(fn, wrt, options):
    """What tells one derivative of fn from another in a module: the parameters it
    differentiates, the items of its result that carry a derivative, its static arguments."""
    outputs = options.get("outputs")
    return (fn, tuple(wrt), None if outputs is None else tuple(outputs),
            repr(options.get("statics", ())))


def base_names(fn, wrt_names, outputs, suffixed):
    """The names to try, best first, for a derivative of fn (after fwd_, bwd_ or jvp_): fn's
    own name unless fn is differentiated in more than one way in the module, then the name
    that says which way."""
    spelled = "_".join([fn.__name__] + list(wrt_names))
    if outputs is not None:
        spelled += "_out" + "".join(str(k) for k, keep in enumerate(outputs) if keep)
    return [spelled] if fn.__name__ in suffixed else [fn.__name__, spelled]


def shared(entry):
    """(the names of the functions differentiated in more than one way in the module of an
    Emitted `entry`, the names of the functions below each of its derivatives' variants)."""
    ways, below = {}, {}

    def visit(node):
        if node.variant not in below:  # (a derivative met again has nothing new below it)
            name = node.variant[0].__name__
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
