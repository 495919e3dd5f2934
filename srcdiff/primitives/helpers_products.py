"""Runtime helpers as primitives (see helpers.py): the adjoints of products, of indexing and
writes, and of joins, splits, padding and windows (containers of adjoints:
helpers_containers.py)."""

import gast
import numpy as np

from .. import ir, runtime
from ..shapes import Const, Typed, widen
from .helpers import helper
from .rewriting import literal
from .registry import Sample
from .samples import constant, number, real


# --- products ---------------------------------------------------------------------------------


# matmul_grad(g, a, b, 0) is g b^T and matmul_grad(g, a, b, 1) is a^T g (batched, with the 1-D
# rules): linear in g, and in the operand it does not differentiate; not a function of the
# other one's values at all
@helper(
    runtime.matmul_grad,
    fresh=True,
    samples=[
        Sample("runtime.matmul_grad(g, a, b, 0)", g=real(3, 2), a=real(3, 4), b=real(4, 2)),
        Sample("runtime.matmul_grad(g, a, b, 1)", g=real(3), a=real(3, 4), b=real(4)),
    ],
)
class matmul_grad:
    def adjoint(bz, z, g, a, b, wrt):
        bg = runtime.unbroadcast(np.matmul(bz, b) if wrt == 0 else np.matmul(a, bz), g)
        ba = runtime.unless_wrt(wrt, 0, runtime.matmul_grad, g, a, bz, 0)
        bb = runtime.unless_wrt(wrt, 1, runtime.matmul_grad, g, bz, b, 1)

    def tangent(dz, z, g, a, b, wrt):
        dz = runtime.matmul_grad(dg, a, b, wrt)
        dz = runtime.unless_wrt(wrt, 0, runtime.matmul_grad, g, da, b, wrt)
        dz = runtime.unless_wrt(wrt, 1, runtime.matmul_grad, g, a, db, wrt)

    def rewrite(node, g, a, b, wrt):
        if not (
            isinstance(a, Typed)
            and a.is_array
            and isinstance(b, Typed)
            and b.is_array
            and isinstance(wrt, Const)
        ) or "c" in (widen(g).dtype.kind, a.dtype.kind, b.dtype.kind):
            return None
        g_, a_, b_ = node.args[:3]
        transpose = lambda e: (  # noqa: E731  (x.T.T is x)
            e.value if isinstance(e, gast.Attribute) and e.attr == "T" else ir.attr(e, "T")
        )
        forms = {
            (2, 2, 0): lambda: gast.BinOp(left=g_, op=gast.MatMult(), right=transpose(b_)),
            (2, 2, 1): lambda: gast.BinOp(left=transpose(a_), op=gast.MatMult(), right=g_),
            (2, 1, 0): lambda: ir.call("np.outer", g_, b_),
            (2, 1, 1): lambda: gast.BinOp(left=transpose(a_), op=gast.MatMult(), right=g_),
            (1, 1, 0): lambda: gast.BinOp(left=g_, op=gast.Mult(), right=b_),
            (1, 1, 1): lambda: gast.BinOp(left=g_, op=gast.Mult(), right=a_),
        }
        form = forms.get((len(a.shape), len(b.shape), wrt.value))
        return form() if form is not None else None


# cross_grad(g, a, b, ..., 0) is the cross product of b with g, (..., 1) of g with a: linear
# in g and in the operand it does not differentiate, as matmul_grad is
@helper(
    runtime.cross_grad,
    fresh=True,
    samples=[
        Sample(
            "runtime.cross_grad(g, a, b, -1, -1, -1, None, 0)",
            g=real(4, 3),
            a=real(4, 3),
            b=real(3),
        ),
        Sample(
            "runtime.cross_grad(g, a, b, 0, -1, 0, None, 1)", g=real(3, 2), a=real(2, 2), b=real(3)
        ),
        Sample(
            "runtime.cross_grad(g, a, b, -1, -1, -1, None, 1)", g=real(4), a=real(4, 2), b=real(2)
        ),
    ],
)
class cross_grad:
    def adjoint(bz, z, g, a, b, axisa, axisb, axisc, axis, wrt):
        bg = runtime.unbroadcast(
            np.cross(bz, b, axisa, axisb, axisc, axis)
            if wrt == 0
            else np.cross(a, bz, axisa, axisb, axisc, axis),
            g,
        )
        ba = runtime.unless_wrt(wrt, 0, runtime.cross_grad, g, a, bz, axisa, axisb, axisc, axis, 0)
        bb = runtime.unless_wrt(wrt, 1, runtime.cross_grad, g, bz, b, axisa, axisb, axisc, axis, 1)

    def tangent(dz, z, g, a, b, axisa, axisb, axisc, axis, wrt):
        dz = runtime.cross_grad(dg, a, b, axisa, axisb, axisc, axis, wrt)
        dz = runtime.unless_wrt(
            wrt, 0, runtime.cross_grad, g, da, b, axisa, axisb, axisc, axis, wrt
        )
        dz = runtime.unless_wrt(
            wrt, 1, runtime.cross_grad, g, a, db, axisa, axisb, axisc, axis, wrt
        )

    def rewrite(node, g, a, b, axisa, axisb, axisc, axis, wrt):
        """np.cross(b, g) or np.cross(g, a) of 3-vectors on the last axis where nothing
        broadcasts, as a person writes it."""
        arrays, axes = (g, a, b), (axisa, axisb, axisc, axis, wrt)
        if not all(isinstance(v, Typed) and v.is_array and v.dtype.kind != "c" for v in arrays):
            return None
        if not all(isinstance(v, Const) for v in axes) or axes[3].value is not None:
            return None
        if {v.value for v in axes[:3]} != {-1} or not g.shape == a.shape == b.shape:
            return None
        if g.shape[-1:] != (3,):
            return None
        g_, a_, b_ = node.args[:3]
        return ir.call("np.cross", b_, g_) if wrt.value == 0 else ir.call("np.cross", g_, a_)


@helper(
    runtime.outer_grad,
    fresh=True,
    samples=[
        Sample(
            "runtime.outer_grad(g, a, b, 0) + 2 * runtime.outer_grad(g, a, b, 1)[0]",
            g=real(3, 3),
            a=real(3),
            b=real(3),
        )
    ],
)
class outer_grad:
    def adjoint(bz, z, g, a, b, wrt):
        bg = np.outer(bz, b) if wrt == 0 else np.outer(a, bz)
        ba = runtime.unless_wrt(wrt, 0, runtime.outer_grad, g, a, bz, 0)
        bb = runtime.unless_wrt(wrt, 1, runtime.outer_grad, g, bz, b, 1)

    def tangent(dz, z, g, a, b, wrt):
        dz = runtime.outer_grad(dg, a, b, wrt)
        dz = runtime.unless_wrt(wrt, 0, runtime.outer_grad, g, da, b, wrt)
        dz = runtime.unless_wrt(wrt, 1, runtime.outer_grad, g, a, db, wrt)


@helper(
    runtime.einsum_grad,
    samples=[
        Sample(
            "runtime.einsum_grad(g, 'ij,jk->ik', (a, b), 1)",
            g=real(2, 4),
            a=real(2, 3),
            b=real(3, 4),
            second_order=False,
        )
    ],
)  # (its adjoint calls np.einsum(s, *operands))
class einsum_grad:
    def adjoint(bz, z, g, subscripts, operands, wrt):
        bg = np.einsum(subscripts, *runtime.replace_at(operands, wrt, bz))
        boperands[i] = runtime.unless_wrt(
            wrt, i, runtime.einsum_grad, g, subscripts, runtime.replace_at(operands, wrt, bz), i
        )

    def tangent(dz, z, g, subscripts, operands, wrt):
        dz = runtime.einsum_grad(dg, subscripts, operands, wrt)
        dz[i] = runtime.unless_wrt(
            wrt,
            i,
            runtime.einsum_grad,
            g,
            subscripts,
            runtime.replace_at(operands, i, doperands[i]),
            wrt,
        )


@helper(
    runtime.tensordot_grad,
    samples=[
        Sample("runtime.tensordot_grad(g, a, b, 1, 0)", g=real(2, 4), a=real(2, 3), b=real(3, 4))
    ],
)
class tensordot_grad:
    def adjoint(bz, z, g, a, b, axes, wrt):
        bg = (
            np.tensordot(bz, b, runtime.contraction_axes(a, b, axes))
            if wrt == 0
            else np.tensordot(a, bz, runtime.contraction_axes(a, b, axes))
        )
        ba = runtime.unless_wrt(wrt, 0, runtime.tensordot_grad, g, a, bz, axes, 0)
        bb = runtime.unless_wrt(wrt, 1, runtime.tensordot_grad, g, bz, b, axes, 1)

    def tangent(dz, z, g, a, b, axes, wrt):
        dz = runtime.tensordot_grad(dg, a, b, axes, wrt)
        dz = runtime.unless_wrt(wrt, 0, runtime.tensordot_grad, g, da, b, axes, wrt)
        dz = runtime.unless_wrt(wrt, 1, runtime.tensordot_grad, g, a, db, axes, wrt)


@helper(
    runtime.dot_grad,
    samples=[Sample("runtime.dot_grad(g, a, b, 0)", g=real(2, 4), a=real(2, 3), b=real(3, 4))],
)
class dot_grad:
    def adjoint(bz, z, g, a, b, wrt):
        bg = runtime.unbroadcast(np.dot(bz, b) if wrt == 0 else np.dot(a, bz), g)
        ba = runtime.unless_wrt(wrt, 0, runtime.dot_grad, g, a, bz, 0)
        bb = runtime.unless_wrt(wrt, 1, runtime.dot_grad, g, bz, b, 1)

    def tangent(dz, z, g, a, b, wrt):
        dz = runtime.dot_grad(dg, a, b, wrt)
        dz = runtime.unless_wrt(wrt, 0, runtime.dot_grad, g, da, b, wrt)
        dz = runtime.unless_wrt(wrt, 1, runtime.dot_grad, g, a, db, wrt)


@helper(
    runtime.untranspose,
    samples=[
        Sample("runtime.untranspose(g, axes=(2, 0, 1))", g=real(2, 3, 4)),
        Sample("runtime.untranspose(g, axes=(-1, 0, -2))", g=real(2, 3, 4)),
    ],
)
class untranspose:
    def adjoint(bz, z, g, axes=None):
        bg = np.transpose(bz, axes)

    def tangent(dz, z, g, axes=None):
        dz = runtime.untranspose(dg, axes=axes)

    def rewrite(node, g, axes=Const(None)):
        g = widen(g)
        if not (isinstance(g, Typed) and g.is_array and isinstance(axes, Const)):
            return None
        if axes.value is None:
            return ir.attr(node.args[0], "T")
        order = np.argsort(np.asarray(axes.value) % len(g.shape))
        return ir.call("np.transpose", node.args[0], literal(tuple(int(k) for k in order)))


# --- indexing and writes ----------------------------------------------------------------------


@helper(
    runtime.getitem_grad,
    constant=("x",),
    shape_args={1},
    index_args=(2,),
    fresh=True,
    samples=[
        Sample("runtime.getitem_grad(g, x, 1)", g=real(3), x=real(2, 3), constant=("x",)),
        Sample(
            "runtime.getitem_grad(g, x, index)",
            g=real(4),
            x=real(3),
            index=constant(np.array([0, 2, 2, 1])),
            constant=("x",),
        ),
    ],
)
class getitem_grad:
    def adjoint(bz, z, g, x, index):
        bg = runtime.unbroadcast(runtime.adjoint_at(bz, x, index), g)

    def tangent(dz, z, g, x, index):
        dz = runtime.getitem_grad(dg, x, index)


# bz[index] for an array bz; a container's adjoint is a Sparse keyed from the start
@helper(
    runtime.adjoint_at,
    constant=("x",),
    shape_args={1},
    index_args=(2,),
    samples=[Sample("runtime.adjoint_at(b, x, 1)", b=real(2, 3), x=real(2, 3), constant=("x",))],
)
class adjoint_at:
    def adjoint(bz, z, b, x, index):
        bb = runtime.getitem_grad(bz, x, index)

    def tangent(dz, z, b, x, index):
        dz = runtime.adjoint_at(db, x, index)

    def rewrite(node, b, x, index):
        if isinstance(b, Typed) and b.is_array:
            return gast.Subscript(value=node.args[0], slice=node.args[2], ctx=gast.Load())
        return None


@helper(
    runtime.add_at,
    constant=("x",),
    shape_args={1},
    index_args=(2,),
    fresh=True,
    samples=[
        Sample("runtime.add_at(b, x, 1, g)", b=real(2, 3), x=real(2, 3), g=real(3), constant=("x",))
    ],
)
class add_at:
    def adjoint(bz, z, bx, x, index, g):
        bbx = bz
        bg = runtime.unbroadcast(runtime.adjoint_at(bz, x, index), g)

    def tangent(dz, z, bx, x, index, g):
        dz = dbx
        dz = runtime.getitem_grad(dg, x, index)


@helper(
    runtime.set_at,
    index_args=(1,),
    fresh=True,
    samples=[Sample("runtime.set_at(d, 1, v)", d=real(3), v=number())],
)
class set_at:
    def adjoint(bz, z, d, index, value):
        bd = runtime.zero_at(bz, index)
        bvalue = runtime.unbroadcast(runtime.written(bz, index), value)

    def tangent(dz, z, d, index, value):
        dz = runtime.set_at(dd, index, 0.0)
        dz = runtime.set_at(runtime.zeros_like(z), index, dvalue)


@helper(
    runtime.zero_at,
    index_args=(1,),
    fresh=True,
    samples=[Sample("runtime.zero_at(g, 1)", g=real(3, 2))],
)
class zero_at:
    def adjoint(bz, z, g, index):
        bg = runtime.zero_at(bz, index)

    def tangent(dz, z, g, index):
        dz = runtime.zero_at(dg, index)


@helper(
    runtime.written,
    index_args=(1,),
    samples=[Sample("runtime.written(g, index)", g=real(4), index=constant(np.array([1, 3, 1])))],
)
class written:
    def adjoint(bz, z, g, index):
        bg = runtime.set_at(runtime.zeros_like(g), index, bz)

    def tangent(dz, z, g, index):
        dz = runtime.written(dg, index)

    def rewrite(node, g, index):
        index = widen(index)
        if isinstance(index, Typed) and index.type is int:  # one element: g[index] it is
            return gast.Subscript(value=node.args[0], slice=node.args[1], ctx=gast.Load())
        return None


@helper(
    runtime.along, differentiable=False, samples=[Sample("x[runtime.along(x, 1, 1)]", x=real(2, 3))]
)
class along:
    pass


# --- joins, splits, padding and windows -------------------------------------------------------


@helper(
    runtime.unconcatenate,
    constant=("arrays",),
    shape_args={1},
    samples=[
        Sample(
            "runtime.unconcatenate(g, (a, b), 1, axis=1)",
            g=real(2, 5),
            a=real(2, 3),
            b=real(2, 2),
            constant=("a", "b"),
        )
    ],
)
class unconcatenate:
    def adjoint(bz, z, g, arrays, index, axis=0):
        bg = runtime.piece_back(bz, g, arrays, index, axis=axis)

    def tangent(dz, z, g, arrays, index, axis=0):
        dz = runtime.unconcatenate(dg, arrays, index, axis=axis)


@helper(
    runtime.piece_back,
    constant=("g", "arrays"),
    fresh=True,
    samples=[
        Sample(
            "runtime.piece_back(b, g, (x, y), 0)",
            b=real(2),
            g=real(5),
            x=real(2),
            y=real(3),
            constant=("g", "x", "y"),
        )
    ],
)
class piece_back:
    def adjoint(bz, z, b, g, arrays, index, axis=0):
        bb = runtime.unconcatenate(bz, arrays, index, axis=axis)

    def tangent(dz, z, b, g, arrays, index, axis=0):
        dz = runtime.piece_back(db, g, arrays, index, axis=axis)


@helper(
    runtime.unjoin,
    constant=("items",),
    samples=[Sample("runtime.unjoin(g, (x, 2.0), 0, 0)", g=real(4), x=real(3), constant=("x",))],
)
class unjoin:
    def adjoint(bz, z, g, items, index, axis):
        bg = runtime.join_back(bz, g, items, index, axis)

    def tangent(dz, z, g, items, index, axis):
        dz = runtime.unjoin(dg, items, index, axis)


@helper(
    runtime.join_back,
    constant=("g", "items"),
    fresh=True,
    samples=[
        Sample(
            "runtime.join_back(b, g, (x, 2.0), 0, 0)",
            b=real(3),
            g=real(4),
            x=real(3),
            constant=("g", "x"),
        )
    ],
)
class join_back:
    def adjoint(bz, z, b, g, items, index, axis):
        bb = runtime.unjoin(bz, items, index, axis)

    def tangent(dz, z, b, g, items, index, axis):
        dz = runtime.join_back(db, g, items, index, axis)


@helper(
    runtime.linspace_grad,
    constant=("start", "stop"),
    samples=[Sample("runtime.linspace_grad(g, 0.0, 1.0, 4, True, 0, 1)", g=real(4))],
)
class linspace_grad:
    def adjoint(bz, z, g, start, stop, num, endpoint, axis, wrt):
        bg = runtime.linspace_part(bz, start, stop, num, endpoint, axis, wrt)

    def tangent(dz, z, g, start, stop, num, endpoint, axis, wrt):
        dz = runtime.linspace_grad(dg, start, stop, num, endpoint, axis, wrt)


@helper(
    runtime.linspace_part,
    constant=("start", "stop"),
    samples=[Sample("runtime.linspace_part(d, 0.0, 1.0, 4, True, 0, 0)", d=number())],
)
class linspace_part:
    def adjoint(bz, z, d, start, stop, num, endpoint, axis, wrt):
        bd = runtime.linspace_grad(bz, start, stop, num, endpoint, axis, wrt)

    def tangent(dz, z, d, start, stop, num, endpoint, axis, wrt):
        dz = runtime.linspace_part(dd, start, stop, num, endpoint, axis, wrt)


@helper(
    runtime.split_grad,
    constant=("outputs",),
    fresh=True,
    samples=[Sample("runtime.split_grad([a, b], [a, b])", a=real(2), b=real(3), constant=("b",))],
)
class split_grad:
    def adjoint(bz, z, gs, outputs, axis=0):
        bgs = runtime.split_like(bz, outputs, axis=axis)

    def tangent(dz, z, gs, outputs, axis=0):
        dz = runtime.split_grad(dgs, outputs, axis=axis)


@helper(
    runtime.split_like,
    constant=("outputs",),
    samples=[
        Sample(
            "runtime.split_like(g, [a, b])[1]", g=real(5), a=real(2), b=real(3), constant=("a", "b")
        )
    ],
)
class split_like:
    def adjoint(bz, z, g, outputs, axis=0):
        bg = runtime.split_grad(bz, outputs, axis=axis)

    def tangent(dz, z, g, outputs, axis=0):
        dz = runtime.split_like(dg, outputs, axis=axis)


@helper(runtime.unstack, samples=[Sample("runtime.unstack(g, 1, axis=1)", g=real(2, 3))])
class unstack:
    def adjoint(bz, z, g, index, axis=0):
        bg = runtime.getitem_grad(bz, g, runtime.along(g, index, axis))

    def tangent(dz, z, g, index, axis=0):
        dz = runtime.unstack(dg, index, axis=axis)


@helper(
    runtime.unpad,
    constant=("x",),
    shape_args={1},
    samples=[
        Sample("runtime.unpad(g, x, 1)", g=real(4, 5), x=real(2, 3), constant=("x",)),
        Sample("runtime.unpad(g, x, (3, 1), 'reflect')", g=real(7), x=real(3), constant=("x",)),
    ],
)
class unpad:
    def adjoint(bz, z, g, x, pad_width, mode="constant"):
        bg = runtime.pad_tangent(bz, pad_width, mode=mode)

    def tangent(dz, z, g, x, pad_width, mode="constant"):
        dz = runtime.unpad(dg, x, pad_width, mode=mode)


@helper(
    runtime.pad_tangent,
    fresh=True,
    samples=[
        Sample("runtime.pad_tangent(d, ((1, 0), (0, 2)))", d=real(2, 3)),
        Sample("runtime.pad_tangent(d, ((1, 0), (0, 2)), 'edge')", d=real(2, 3)),
    ],
)
class pad_tangent:
    def adjoint(bz, z, d, pad_width, mode="constant"):
        bd = runtime.unpad(bz, d, pad_width, mode=mode)

    def tangent(dz, z, d, pad_width, mode="constant"):
        dz = runtime.pad_tangent(dd, pad_width, mode=mode)


@helper(
    runtime.unwindow,
    constant=("x",),
    shape_args={1},
    fresh=True,
    samples=[
        Sample("runtime.unwindow(g, x, (2,))", g=real(4, 2), x=real(5), constant=("x",)),
        Sample(
            "runtime.unwindow(g, x, (2, 2), axis=(0, 1), step=2)",
            g=real(2, 2, 2, 2),
            x=real(5, 5),
            constant=("x",),
        ),
    ],
)
class unwindow:
    def adjoint(bz, z, g, x, window_shape, axis=None, step=1):
        bg = runtime.windows_of(bz, g, window_shape, axis=axis, step=step)

    def tangent(dz, z, g, x, window_shape, axis=None, step=1):
        dz = runtime.unwindow(dg, x, window_shape, axis=axis, step=step)


@helper(
    runtime.windows_of,
    constant=("g",),
    samples=[Sample("runtime.windows_of(b, g, (2,))", b=real(5), g=real(4, 2), constant=("g",))],
)
class windows_of:
    def adjoint(bz, z, b, g, window_shape, axis=None, step=1):
        bb = runtime.unwindow(bz, b, window_shape, axis=axis, step=step)

    def tangent(dz, z, b, g, window_shape, axis=None, step=1):
        dz = runtime.windows_of(db, g, window_shape, axis=axis, step=step)
