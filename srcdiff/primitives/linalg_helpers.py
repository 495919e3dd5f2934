"""The runtime helpers np.linalg's templates call (srcdiff/runtime/linalg.py): plain numpy
that srcdiff differentiates through its source, declared here so that specialisation sees
the type, shape and dtype of what they return (shapes.py calls them on stand-ins), and so
that the one-line ones become the numpy they run once those are known (`bk = blogdet *
np.linalg.inv(k).T` for slogdet's adjoint)."""

import gast

from .. import ir, runtime
from ..shapes import Items, SparseOf, Typed, widen
from .registry import EVALUATE, Sample, primitive
from .samples import number, real, spd, well_conditioned


def _helper(function, **facts):
    return primitive(function, shape=EVALUATE, fresh=True, **facts)


def _matrices(a, kinds="f"):
    """Whether `a` is an array of matrices whose dtype kind is in `kinds`."""
    return isinstance(a, Typed) and a.is_array and len(a.shape) >= 2 and a.dtype.kind in kinds


def _item(g_node, g, out_node, k):
    """(the node of the adjoint of item k of a returned tuple, its abstract value) from the
    tuple's adjoint g: None where it got none. An item of a Sparse is read by adjoint_at,
    which specialisation reads as the value getitem_grad placed there (passes/item_adjoints)."""
    if isinstance(g, Items) and len(g.items) > k and isinstance(widen(g.items[k]), Typed):
        return gast.Subscript(value=g_node, slice=ir.const(k), ctx=gast.Load()), g.items[k]
    if isinstance(g, SparseOf) and k in dict(g.items):
        node = ir.call("runtime.adjoint_at", g_node, out_node, ir.const(k))
        return node, dict(g.items)[k]
    return None, None


def _scaled_inverse_transpose(scale_node, scale, a_node, a):
    """scale * inv(a)^T, the scale spread over the matrices: as np.expand_dims(scale, (-2, -1))
    * np.linalg.inv(a).mT computes it, when the dtype is the same (a Python float spread is
    a float64 array)."""
    scale = widen(scale)
    if not isinstance(scale, Typed) or scale.type in (float, int) and a.dtype.name != "float64":
        return None
    inverse = ir.call("np.linalg.inv", a_node)
    if len(a.shape) == 2 and scale.shape == ():
        return gast.BinOp(left=scale_node, op=gast.Mult(), right=ir.attr(inverse, "T"))
    spread = ir.call("np.expand_dims", scale_node, ir.const((-2, -1)))
    return gast.BinOp(left=spread, op=gast.Mult(), right=ir.attr(inverse, "mT"))


@_helper(
    runtime.slogdet_vjp,
    samples=[
        Sample(
            "runtime.slogdet_vjp((0.0, g), np.linalg.slogdet(a), a)",
            g=number(),
            a=spd(3),
            constant=("g",),  # (a tuple of differentiated values is no user function's argument)
        )
    ],
)
class slogdet_vjp:
    def rewrite(node, g, out, a):
        if not _matrices(a):  # (a complex one: the call refuses it)
            return None
        item, value = _item(node.args[0], g, node.args[1], 1)
        return None if item is None else _scaled_inverse_transpose(item, value, node.args[2], a)


@_helper(
    runtime.det_vjp,
    samples=[Sample("runtime.det_vjp(g, np.linalg.det(a), a)", g=number(), a=well_conditioned(3))],
)
class det_vjp:
    def rewrite(node, g, det, a):
        det = widen(det)
        if not _matrices(a, "fc") or not isinstance(det, Typed) or det.type is float:
            return None
        scale = gast.BinOp(left=node.args[0], op=gast.Mult(), right=node.args[1])
        return _scaled_inverse_transpose(scale, det, node.args[2], a)


def _through_source(function, call, **args):
    """A helper whose result only its record's shape rule tells: its samples check its
    gradient through its source."""
    _helper(function, samples=[Sample(call, **args)])(type(function.__name__, (), {}))


_through_source(
    runtime.slogdet_jvp,
    "runtime.slogdet_jvp(d, np.linalg.slogdet(a), a)[1]",
    d=real(3, 3),
    a=spd(3),
)
_through_source(
    runtime.det_jvp, "runtime.det_jvp(d, np.linalg.det(a), a)", d=real(3, 3), a=well_conditioned(3)
)
_through_source(
    runtime.cholesky_vjp,
    "runtime.cholesky_vjp(g, np.linalg.cholesky((a + a.mT) / 2))",
    g=real(3, 3),
    a=spd(3),
)
_through_source(
    runtime.cholesky_jvp,
    "runtime.cholesky_jvp(d, np.linalg.cholesky((a + a.mT) / 2))",
    d=real(3, 3),
    a=spd(3),
)
_through_source(
    runtime.solve_vjp_a,
    "runtime.solve_vjp_a(g, np.linalg.solve(a, b), a, b)",
    g=real(3),
    a=well_conditioned(3),
    b=real(3),
)
_through_source(
    runtime.solve_vjp_b,
    "runtime.solve_vjp_b(g, np.linalg.solve(a, b), a, b)",
    g=real(3, 2),
    a=well_conditioned(3),
    b=real(3, 2),
)
_through_source(
    runtime.solve_jvp_a,
    "runtime.solve_jvp_a(d, np.linalg.solve(a, b), a, b)",
    d=real(3, 3),
    a=well_conditioned(3),
    b=real(3),
)
