"""The runtime helpers np.linalg's templates call (srcdiff/runtime/linalg.py): plain numpy
that srcdiff differentiates through its source, declared here so that specialisation sees
the type, shape and dtype of what they return (shapes.py calls them on stand-ins), and so
that the one-line ones become the numpy they run once those are known (`bk = blogdet *
np.linalg.inv(k).T` for slogdet's adjoint)."""

import gast

from .. import ir, runtime
from ..shapes import Const, Items, SparseOf, Typed, evaluate, widen
from .rewriting import dtype_literal
from .rewriting import shape as shape_of
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
    which specialisation reads as the value getitem_grad placed there (passes/tuple_items.py)."""
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
    tuple_adjoints=(0,),
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


def _through_source(function, call, constant=(), tuple_adjoints=(), **args):
    """A helper whose result only its record's shape rule tells: its sample checks its
    gradient through its source (a tuple of adjoints is no user function's argument: those
    in one are constants)."""
    sample = Sample(call, constant=constant, **args)
    record = _helper(function, samples=[sample], tuple_adjoints=tuple_adjoints)
    record(type(function.__name__, (), {}))


@_helper(runtime.symmetrize, samples=[Sample("runtime.symmetrize(x)", x=real(2, 3, 3))])
class symmetrize:  # (x + x^T) / 2: written out for a name (an expression would run twice)
    def rewrite(node, x):
        x_shape = shape_of(x)
        if not isinstance(node.args[0], gast.Name) or x_shape is None or len(x_shape) < 2:
            return None
        transposed = ir.attr(node.args[0], "T" if len(x_shape) == 2 else "mT")
        total = gast.BinOp(left=node.args[0], op=gast.Add(), right=transposed)
        return gast.BinOp(left=total, op=gast.Div(), right=ir.const(2))


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
    runtime.solve_jvp_a,
    "runtime.solve_jvp_a(d, np.linalg.solve(a, b), a, b)",
    d=real(3, 3),
    a=well_conditioned(3),
    b=real(3),
)


@_helper(
    runtime.trace_vjp,
    samples=[
        Sample("runtime.trace_vjp(g, a, offset=1, axis1=1, axis2=0)", g=real(2), a=real(2, 4, 3))
    ],
)
class trace_vjp:  # g times the identity, for one matrix's trace
    def rewrite(node, g, a, offset=Const(0), axis1=Const(0), axis2=Const(1)):
        a, g = widen(a), widen(g)
        if not (
            isinstance(a, Typed)
            and len(a.shape) == 2
            and isinstance(g, Typed)
            and g.shape == ()
            and (offset, axis1, axis2) == (Const(0), Const(0), Const(1))
        ):
            return None
        out = evaluate(runtime.trace_vjp, [g, a], {})  # (its dtype: g's and a's)
        if not isinstance(out, Typed):
            return None
        eye = ir.call("np.eye", *(ir.const(n) for n in a.shape))
        if out.dtype.name != "float64":
            dtype = dtype_literal(out.dtype)
            if dtype is None:
                return None
            eye.keywords.append(gast.keyword(arg="dtype", value=dtype))
        return gast.BinOp(left=node.args[0], op=gast.Mult(), right=eye)


def _solve_parts(a, b, g, x, wrt):
    """Whether a is one matrix and b, g and x are alike, one right-hand side or several:
    then np.linalg.solve reads b as it is and nothing is summed over a stack; and whether
    the adjoint of argument `wrt` (0: a, 1: b) needs no real part taken (unbroadcast takes
    a real argument's)."""
    a, b, g, x = (widen(v) for v in (a, b, g, x))
    if not (
        _matrices(a, "fc")
        and len(a.shape) == 2
        and all(isinstance(v, Typed) and v.is_array for v in (b, g, x))
        and len(b.shape) in (1, 2)
        and b.shape == g.shape == x.shape
        and b.shape[0] == a.shape[0]
    ):
        return False
    complex_adjoint = any(v.dtype.kind == "c" for v in (a, g) + ((x,) if wrt == 0 else ()))
    return not complex_adjoint or (a, b)[wrt].dtype.kind == "c"


def _transposed_solve(node):
    """np.linalg.solve(a.T, g) for a call (g, x, a, b) of a solve's adjoint."""
    return ir.call("np.linalg.solve", ir.attr(node.args[2], "T"), node.args[0])


@_helper(
    runtime.solve_vjp_a,
    samples=[
        Sample(
            "runtime.solve_vjp_a(g, np.linalg.solve(a, b), a, b)",
            g=real(3),
            a=well_conditioned(3),
            b=real(3),
        )
    ],
)
class solve_vjp_a:  # -(a^-T g) x^T
    def rewrite(node, g, x, a, b):
        if not _solve_parts(a, b, g, x, 0):
            return None
        if len(shape_of(b)) == 1:
            if any(widen(v).dtype.kind == "c" for v in (g, x, a)):
                return None  # (a complex product of a column and a row: BLAS's may round apart)
            return gast.UnaryOp(
                op=gast.USub(), operand=ir.call("np.outer", _transposed_solve(node), node.args[1])
            )
        product = gast.BinOp(
            left=_transposed_solve(node), op=gast.MatMult(), right=ir.attr(node.args[1], "T")
        )
        return gast.UnaryOp(op=gast.USub(), operand=product)


@_helper(
    runtime.solve_vjp_b,
    samples=[
        Sample(
            "runtime.solve_vjp_b(g, np.linalg.solve(a, b), a, b)",
            g=real(3, 2),
            a=well_conditioned(3),
            b=real(3, 2),
        )
    ],
)
class solve_vjp_b:  # a^-T g
    def rewrite(node, g, x, a, b):
        return _transposed_solve(node) if _solve_parts(a, b, g, x, 1) else None


# the adjoints of decompositions returning tuples take a tuple of adjoints: samples with items
# constant (None, 0.0, or left out of a Sparse) as when a program reads one item, so that the
# forward and second-order derivatives of the helper see a partly constant tuple adjoint
_SYMMETRIC = "a + a.mT"
# a product of two symmetric positive definite matrices: real eigenvalues, not symmetric
_REAL_EIGENVALUES = "(a @ a.mT + np.eye(3)) @ (a.mT @ a + 2 * np.eye(3))"
_PARTLY_CONSTANT = {
    runtime.eigh_vjp: [
        Sample(
            f"runtime.eigh_vjp(g, np.linalg.eigh({_SYMMETRIC}))",
            setup="g = (gw, None)",
            a=real(3, 3),
            gw=real(3),
        ),
        Sample(
            f"runtime.eigh_vjp(g, np.linalg.eigh({_SYMMETRIC}))",
            setup="g = (0.0, gv)",
            gv=real(3, 3),
            a=real(3, 3),
        ),
    ],
    runtime.eig_vjp: [
        Sample(
            "runtime.eig_vjp(g, np.linalg.eig(a @ b))",
            setup="g = (gw, None)",
            a=spd(3),
            b=spd(3),
            gw=real(3),
        ),
        Sample(
            "runtime.eig_vjp(g, np.linalg.eig(a @ b))",
            setup="g = (0.0, gv)",
            a=spd(3),
            b=spd(3),
            gv=real(3, 3),
        ),
    ],
    runtime.svd_vjp: [
        Sample(
            "runtime.svd_vjp(g, np.linalg.svd(a, full_matrices=False))",
            setup="g = (0.0, gs, None)",
            a=real(4, 3),
            gs=real(3),
        ),
        Sample(
            "runtime.svd_vjp(g, np.linalg.svd(a))",
            setup="g = (gu, None, gvh)",
            a=real(3, 3),
            gu=real(3, 3),
            gvh=real(3, 3),
        ),
    ],
    runtime.qr_vjp: [
        Sample(
            "runtime.qr_vjp(g, np.linalg.qr(a), a)",
            setup="g = (gq, 0.0)",
            a=real(4, 3),
            gq=real(4, 3),
        ),
        Sample(
            "runtime.qr_vjp(runtime.getitem_grad(gr, out, 1), out, a)",
            setup="out = np.linalg.qr(a)",
            a=real(2, 4),
            gr=real(2, 4),
        ),
    ],
}
for function, samples in _PARTLY_CONSTANT.items():
    _helper(function, samples=samples, tuple_adjoints=(0,))(type(function.__name__, (), {}))
for function, call, args in (
    (runtime.eigh_jvp, f"runtime.eigh_jvp(d, np.linalg.eigh({_SYMMETRIC}))[0]", dict(d=real(3, 3))),
    (
        runtime.eig_jvp,
        f"runtime.eig_jvp(d, np.linalg.eig({_REAL_EIGENVALUES}))[1]",
        dict(d=real(3, 3)),
    ),
    (runtime.eigvalsh_vjp, f"runtime.eigvalsh_vjp(gw, {_SYMMETRIC})", dict(gw=real(3))),
    (runtime.eigvalsh_jvp, f"runtime.eigvalsh_jvp(d, {_SYMMETRIC})", dict(d=real(3, 3))),
    (
        runtime.svd_jvp,
        "runtime.svd_jvp(d, np.linalg.svd(a, full_matrices=False))[1]",
        dict(d=real(3, 3)),
    ),
    (runtime.svdvals_vjp, "runtime.svdvals_vjp(gs, a)", dict(gs=real(3))),
    (runtime.svdvals_jvp, "runtime.svdvals_jvp(d, a)", dict(d=real(3, 3))),
    (runtime.qr_jvp, "runtime.qr_jvp(d, np.linalg.qr(a), a)[1]", dict(d=real(3, 3))),
    (runtime.cond_vjp, "runtime.cond_vjp(g, np.linalg.cond(a), a)", dict(g=real())),
    (runtime.cond_jvp, "runtime.cond_jvp(d, np.linalg.cond(a, 1), a, 1)", dict(d=real(3, 3))),
):
    _through_source(function, call, a=real(3, 3), **args)
