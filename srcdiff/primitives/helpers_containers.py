"""Runtime helpers as primitives (see helpers.py): the containers of adjoints and tangents
(tuples a function returns, dicts of parameters, lists built item by item)."""

import gast

from .. import ir, runtime
from ..shapes import Items, ListOf, Typed, widen
from .helpers import helper
from .rewriting import is_array
from .registry import Sample
from .samples import real


@helper(
    runtime.unpack_adjoint,
    constant=("outputs",),
    shape_args={1},
    samples=[
        Sample("runtime.unpack_adjoint(g, (x, x))[1]", g=real(2, 3), x=real(3), constant=("x",))
    ],
)
class unpack_adjoint:
    def adjoint(bz, z, g, outputs):
        bg = runtime.pack_adjoint(bz, g, outputs)

    def tangent(dz, z, g, outputs):
        dz = runtime.unpack_adjoint(dg, outputs)


@helper(
    runtime.pack_adjoint,
    constant=("g", "outputs"),
    samples=[
        Sample(
            "runtime.pack_adjoint([b, b], g, (x, x))",
            b=real(3),
            g=real(2, 3),
            x=real(3),
            constant=("g", "x"),
        )
    ],
)
class pack_adjoint:
    def adjoint(bz, z, b, g, outputs):
        bb = runtime.unpack_adjoint(bz, outputs)

    def tangent(dz, z, b, g, outputs):
        dz = runtime.pack_adjoint(db, g, outputs)


# a dict's adjoint written out, {key: adjoint} (passes/dict_adjoints.py): a Sparse, so that
# a caller adds it to its own and a key that got nothing reads as 0.0
@helper(
    runtime.Sparse,
    shape=None,
    samples=[Sample("runtime.Sparse({'a': x, 'b': x * y})['b']", x=real(3), y=real(3))],
)
class Sparse:
    def adjoint(bz, z, items):
        bitems = bz

    def tangent(dz, z, items):
        dz = runtime.Sparse(ditems)


# the adjoints of a dict display's values, by position, and back: each the other's adjoint
@helper(
    runtime.dict_values_adjoint,
    constant=("keys", "values"),
    samples=[
        Sample(
            "runtime.dict_values_adjoint({'a': g, 'b': 2 * g}, ('b', 'c', 'b'), (x, x, x))[2]",
            g=real(3),
            x=real(3),
            constant=("x",),
        )
    ],
)
class dict_values_adjoint:
    def adjoint(bz, z, g, keys, values):
        bg = runtime.dict_adjoint(bz, keys, values)

    def tangent(dz, z, g, keys, values):
        dz = runtime.dict_values_adjoint(dg, keys, values)


# dict(zip(keys, values)) where the code does not count them: keys constant, values a list
@helper(
    runtime.dict_of,
    constant=("keys",),
    samples=[Sample("runtime.dict_of(['a', 'b'], [x, 2 * x])['b']", x=real(3))],
)
class dict_of:
    def adjoint(bz, z, keys, values):
        bvalues = runtime.dict_values_adjoint(bz, keys, values)

    def tangent(dz, z, keys, values):
        dz = runtime.dict_of(keys, dvalues)


@helper(
    runtime.dict_adjoint,
    constant=("keys", "values"),
    samples=[
        Sample(
            "runtime.dict_adjoint([b, 2 * b], ('a', 'b'), (x, x))['b']",
            b=real(3),
            x=real(3),
            constant=("x",),
        )
    ],
)
class dict_adjoint:
    def adjoint(bz, z, b, keys, values):
        bb = runtime.dict_values_adjoint(bz, keys, values)

    def tangent(dz, z, b, keys, values):
        dz = runtime.dict_adjoint(db, keys, values)


# a list built with append has a list of adjoints (and of tangents), one per item: summing
# the parts of a tangent adds item by item (multiple_outputs), not joins the lists
@helper(
    runtime.add_items,
    constant=("items",),
    shape=None,
    multiple_outputs=True,
    samples=[
        Sample("runtime.add_items([a], [2 * b])[0]", a=real(3), b=real(3)),
        Sample(
            "runtime.add_items([], g, [a, b])[1]",
            g=real(2, 3),
            a=real(3),
            b=real(3),
            constant=("a", "b"),
        ),
    ],
)
class add_items:
    def adjoint(bz, z, adjoints, more, items=None):
        badjoints = runtime.items_like(bz, adjoints)
        bmore = runtime.items_like(bz, more)

    def tangent(dz, z, adjoints, more, items=None):
        dz = runtime.add_items([], dadjoints, items)
        dz = runtime.add_items([], dmore, items)


@helper(
    runtime.items_like,
    constant=("like",),
    shape=None,
    samples=[
        Sample(
            "runtime.items_like([a, b], like)",
            a=real(3),
            b=real(3),
            like=real(2, 3),
            constant=("like",),
        )
    ],
)
class items_like:
    def adjoint(bz, z, adjoints, like):
        badjoints = runtime.add_items([], bz, like)

    def tangent(dz, z, adjoints, like):
        dz = runtime.items_like(dadjoints, like)


@helper(
    runtime.add_tangents,
    shape=None,
    samples=[Sample("runtime.add_tangents(a, 2 * b)", a=real(3), b=real(3))],
)
class add_tangents:
    def adjoint(bz, z, a, b):
        ba = bz
        bb = bz

    def tangent(dz, z, a, b):
        dz = runtime.add_tangents(da, runtime.zero_tangent(b))
        dz = runtime.add_tangents(runtime.zero_tangent(a), db)


# the tangents of list and tuple displays: arithmetic on them is that of their arrays
@helper(
    runtime.tangent_list,
    shape=None,
    samples=[
        Sample("np.sum(np.stack(runtime.tangent_list([x, x * y])) * 2)", x=real(3), y=real(3)),
        Sample("-np.multiply(runtime.tangent_list([x, x * y]), 2)", x=real(3), y=real(3)),
    ],
)
class tangent_list:
    def adjoint(bz, z, items):
        bitems[i] = runtime.unpack_adjoint(bz, items)[i]

    def tangent(dz, z, items):
        dz = runtime.tangent_list(ditems)


@helper(
    runtime.tangent_tuple,
    shape=None,
    samples=[Sample("-np.multiply(runtime.tangent_tuple((x, x * y)), 2)", x=real(3), y=real(3))],
)
class tangent_tuple:
    def adjoint(bz, z, items):
        bitems[i] = runtime.unpack_adjoint(bz, items)[i]

    def tangent(dz, z, items):
        dz = runtime.tangent_tuple(ditems)


@helper(
    runtime.item_adjoints,
    shape=None,
    samples=[Sample("x * len(runtime.item_adjoints(x, [1, 2, 3]))", x=real(3))],
)
class item_adjoints:
    pass


# a side of a + [...] the code does not say is a list or tuple, checked to be one as it runs
@helper(
    runtime.listed,
    constant=("name",),
    view=True,
    samples=[Sample("np.sum(runtime.listed([x, x * y], 'xs')[1])", x=real(3), y=real(3))],
)
class listed:
    def adjoint(bz, z, x, name):
        bx = bz

    def tangent(dz, z, x, name):
        dz = dx


# an array whose x.sort() is np.sort(x) (effects.py), checked to be one as it runs
@helper(
    runtime.an_array,
    constant=("name",),
    view=True,
    samples=[Sample("np.sum(runtime.an_array(x * y, 'x'))", x=real(3), y=real(3))],
)
class an_array:
    def adjoint(bz, z, x, name):
        bx = bz

    def tangent(dz, z, x, name):
        dz = dx


# the items a for loop a break may leave takes from its constant iterable (loop_statements.py)
@helper(
    runtime.taken_items,
    differentiable=False,
    shape=None,
    samples=[Sample("x * sum(runtime.taken_items(iter([1.0, 2.0])))", x=real(3))],
)
class taken_items:
    pass


# the index of a read x[idx] as it is then, f changing idx in place later (expressions.py)
@helper(
    runtime.copied_index,
    differentiable=False,
    fresh=True,
    samples=[Sample("x[runtime.copied_index([2, 0])] * x[runtime.copied_index((1,))]", x=real(3))],
)
class copied_index:
    def rewrite(node, index):
        """An int as it is; an array, or a list of ints, by its own copy method."""
        index = widen(index)
        if isinstance(index, Typed) and index.type is int:
            return node.args[0]
        items = index.items if isinstance(index, Items) and index.type is list else None
        if isinstance(index, ListOf):
            items = (index.elem,)
        if is_array(index) or items is not None and all(_is_int(item) for item in items):
            return ir.call(ir.attr(node.args[0], "copy"))
        return None


# a list read whole where f changes it later (expressions.py's _held_arguments): its items
# as they are at the read, for the adjoint to read
@helper(
    runtime.held_items,
    samples=[Sample("np.stack(runtime.held_items([x, 2 * x]))[1]", x=real(3))],
)
class held_items:
    def adjoint(bz, z, items):
        bitems = runtime.add_items([], bz, z)

    def tangent(dz, z, items):
        dz = runtime.held_items(ditems)


# the saved values a backward function kept as written consumes, copied (effects.py)
@helper(
    runtime.unconsumed,
    differentiable=False,
    fresh=True,
    samples=[Sample("x * len(runtime.unconsumed([[x], x]))", x=real(3))],
)
class unconsumed:
    pass


def _is_int(value):
    value = widen(value)
    return isinstance(value, Typed) and value.type is int


# (higher-order functions of the product templates (helpers_products.py): their own
# derivatives are those templates')
@helper(
    runtime.unless_wrt,
    shape=None,
    samples=[Sample("x * runtime.unless_wrt(0, 1, np.sum, np.ones(2))", x=real(3))],
)
class unless_wrt:
    def fold(wrt, part, helper, *args):
        """With wrt and part written as numbers (in a gradient's code, which a higher
        derivative differentiates), the helper's call, or the zeros it would give."""
        if not all(isinstance(n, gast.Constant) for n in (wrt, part)):
            return None
        *operands, last = args
        if wrt.value != part.value:
            return ir.call(helper, *operands, ir.const(last))
        if ir.dotted(helper) == ("runtime", "einsum_grad"):
            return None  # (its operands are in a tuple)
        return ir.call("np.zeros_like", operands[1 + part.value])


helper(
    runtime.replace_at,
    shape=None,
    samples=[Sample("x * runtime.replace_at([1.0, 2.0], 0, 3.0)[1]", x=real(3))],
)(type("replace_at", (), {}))


# --- the pair a flag asks for (logsumexp's return_sign, average's returned): each is the value
# itself without the flag, which their templates' default 0 folds away; first_of and second_of
# read what as_pair makes, their transposes


@helper(
    runtime.first_of,
    samples=[
        Sample("runtime.first_of(x, 0)", x=real(3)),
        Sample("runtime.first_of((x, 2 * x), True)", x=real(3)),
    ],
)
class first_of:
    def adjoint(bout, out, z, flag):
        bz = runtime.as_pair(bout, 0.0, flag)

    def tangent(dout, out, z, flag):
        dout = runtime.first_of(dz, flag)

    def fold(z, flag):
        return z if flag == 0 else None


@helper(
    runtime.second_of,
    samples=[
        Sample("x * runtime.second_of(x, False)", x=real(3)),
        Sample("runtime.second_of((x, 2 * x), True)", x=real(3)),
    ],
)
class second_of:
    def adjoint(bout, out, z, flag):
        bz = runtime.as_pair(0.0, bout, flag)

    def tangent(dout, out, z, flag):
        dout = runtime.second_of(dz, flag)

    def fold(z, flag):
        return ir.const(0.0) if flag == 0 else None


@helper(
    runtime.as_pair,
    samples=[
        Sample("runtime.as_pair(s, t, 0)", s=real(3), t=real(3)),
        Sample("runtime.as_pair(s, t, True) * np.array([[1.0], [2.0]])", s=real(3), t=real(3)),
    ],
)
class as_pair:
    def adjoint(bout, out, first, second, flag):
        bfirst = runtime.first_of(bout, flag)
        bsecond = runtime.second_of(bout, flag)

    def tangent(dout, out, first, second, flag):
        dout = runtime.as_pair(dfirst, 0.0, flag)
        dout = runtime.as_pair(0.0, dsecond, flag)

    def fold(first, second, flag):
        return first if flag == 0 else None


@helper(
    runtime.flagged,
    samples=[
        Sample("x * runtime.flagged(x, False)", x=real(3)),
        Sample("runtime.flagged(x, True)", x=real(3)),
    ],
)
class flagged:
    def adjoint(bout, out, x, flag):
        bx = runtime.flagged(bout, flag)

    def tangent(dout, out, x, flag):
        dout = runtime.flagged(dx, flag)

    def fold(x, flag):
        return ir.const(0.0) if flag == 0 else None
