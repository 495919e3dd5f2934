"""The runtime helpers of arrays.py's adjoints (runtime/rearranging.py), as primitives: each
is linear in its adjoint, and its adjoint template is its transpose (a numpy function or
another helper here), so gradients of gradients work through them."""

import numpy as np

from .. import ir, runtime, shapes
from .helpers import helper
from .registry import Sample
from .samples import constant, real


def _from_shapes(function):
    """A shape rule for a helper whose (constant) result depends only on its arguments'
    shapes and constant values: computed exactly, on empty arrays of those shapes."""

    def stand_in(value):
        value = shapes.widen(value) if not isinstance(value, shapes.Const) else value
        if isinstance(value, shapes.Const):
            return value.value
        if isinstance(value, (shapes.Typed, shapes.ShapeOf)):
            return np.empty(value.shape, value.dtype)
        if isinstance(value, shapes.Items):
            return value.type(stand_in(v) for v in value.items)
        raise LookupError

    def rule(args, kwargs):
        try:
            return shapes.Const(
                function(*map(stand_in, args), **{k: stand_in(v) for k, v in kwargs.items()})
            )
        except (LookupError, TypeError, ValueError, IndexError):
            return shapes.UNKNOWN

    return rule


def _constant_helper(function, call):
    helper(
        function,
        differentiable=False,
        shape=_from_shapes(function),
        samples=[Sample(call, x=real(2, 3))],
    )(type(function.__name__, (), {}))


_constant_helper(runtime.hsplit_axis, "x * runtime.hsplit_axis([x, x])")
_constant_helper(runtime.rollaxis_destination, "x * runtime.rollaxis_destination(x, -1, 0)")
helper(
    runtime.chosen,
    differentiable=False,
    samples=[Sample("x * runtime.chosen([x > 0, x > -1], 1)", x=real(2, 3))],
)(type("chosen", (), {}))


# --- the items of lists, atleast_*, stacks ----------------------------------------------------


@helper(
    runtime.gathered_items,
    constant=("items",),
    samples=[
        Sample(
            "runtime.gathered_items([g, 2 * h], x)",
            g=real(3),
            h=real(3),
            x=real(2, 3),
            constant=("x",),
        ),
        Sample(
            "runtime.gathered_items([g, h], [x, x])[1]",
            g=real(3),
            h=real(3),
            x=real(3),
            constant=("x",),
        ),
    ],
)
class gathered_items:
    def adjoint(bz, z, adjoints, items):
        badjoints[i] = runtime.unpack_adjoint(bz, items)[i]

    def tangent(dz, z, adjoints, items):
        dz = runtime.gathered_items(dadjoints, items)


@helper(
    runtime.unatleast,
    constant=("outputs", "arys"),
    shape_args={1},
    samples=[
        Sample(
            "runtime.unatleast(g, np.atleast_2d(x), (x,), 0)",
            g=real(1, 3),
            x=real(3),
            constant=("x",),
        ),
        Sample(
            "runtime.unatleast([g, h], np.atleast_1d(x, y), (x, y), 1)",
            g=real(3),
            h=real(1),
            x=real(3),
            y=real(1),
            constant=("x", "y"),
        ),
    ],
)
class unatleast:
    def adjoint(bz, z, g, outputs, arys, index):
        bg = runtime.atleast_back(bz, outputs, arys, index)

    def tangent(dz, z, g, outputs, arys, index):
        dz = runtime.unatleast(dg, outputs, arys, index)


@helper(
    runtime.atleast_back,
    constant=("outputs", "arys"),
    shape_args={1},
    samples=[
        Sample(
            "runtime.atleast_back(b, np.atleast_2d(x), (x,), 0)",
            b=real(3),
            x=real(3),
            constant=("x",),
        ),
        Sample(
            "runtime.atleast_back(b, [x, x], (x, x), 1)[1]", b=real(3), x=real(3), constant=("x",)
        ),
    ],
)
class atleast_back:
    def adjoint(bz, z, b, outputs, arys, index):
        bb = runtime.unatleast(bz, outputs, arys, index)

    def tangent(dz, z, b, outputs, arys, index):
        dz = runtime.atleast_back(db, outputs, arys, index)


@helper(
    runtime.unstacked,
    constant=("tup",),
    samples=[
        Sample(
            "runtime.unstacked(g, (x, y), 1, 'vstack')",
            g=real(3, 2),
            x=real(2),
            y=real(2, 2),
            constant=("x", "y"),
        ),
        Sample(
            "runtime.unstacked(g, (x, y), 0, 'column_stack')",
            g=real(3, 3),
            x=real(3),
            y=real(3, 2),
            constant=("x", "y"),
        ),
    ],
)
class unstacked:
    def adjoint(bz, z, g, tup, index, how):
        bg = runtime.stacked_back(bz, g, tup, index, how)

    def tangent(dz, z, g, tup, index, how):
        dz = runtime.unstacked(dg, tup, index, how)


@helper(
    runtime.stacked_back,
    constant=("g", "tup"),
    shape_args={1},
    fresh=True,
    samples=[
        Sample(
            "runtime.stacked_back(b, g, (x, y), 0, 'dstack')",
            b=real(2, 3),
            g=real(2, 3, 2),
            x=real(2, 3),
            y=real(2, 3),
            constant=("g", "x", "y"),
        ),
        Sample(
            "runtime.stacked_back(b, g, (x, y), 1, 'hstack')",
            b=real(3),
            g=real(5),
            x=real(2),
            y=real(3),
            constant=("g", "x", "y"),
        ),
    ],
)
class stacked_back:
    def adjoint(bz, z, b, g, tup, index, how):
        bb = runtime.unstacked(bz, tup, index, how)

    def tangent(dz, z, b, g, tup, index, how):
        dz = runtime.stacked_back(db, g, tup, index, how)


# --- repeat, tile, diagonals ------------------------------------------------------------------


@helper(
    runtime.unrepeat,
    constant=("a",),
    shape_args={1},
    samples=[
        Sample("runtime.unrepeat(g, a, 2, 1)", g=real(2, 4), a=real(2, 2), constant=("a",)),
        Sample("runtime.unrepeat(g, a, [2, 0, 1])", g=real(3), a=real(3), constant=("a",)),
    ],
)
class unrepeat:
    def adjoint(bz, z, g, a, repeats, axis=None):
        bg = np.repeat(bz, repeats, axis)

    def tangent(dz, z, g, a, repeats, axis=None):
        dz = runtime.unrepeat(dg, a, repeats, axis)


@helper(
    runtime.untile,
    constant=("a",),
    shape_args={1},
    samples=[
        Sample("runtime.untile(g, a, (2, 1, 2))", g=real(2, 2, 6), a=real(2, 3), constant=("a",))
    ],
)
class untile:
    def adjoint(bz, z, g, a, reps):
        bg = np.tile(bz, reps)

    def tangent(dz, z, g, a, reps):
        dz = runtime.untile(dg, a, reps)


@helper(
    runtime.undiag,
    constant=("v",),
    shape_args={1},
    samples=[
        Sample("runtime.undiag(g, v, 1)", g=real(3), v=real(3, 4), constant=("v",)),
        Sample("runtime.undiag(g, v)", g=real(3, 3), v=real(3), constant=("v",)),
    ],
)
class undiag:
    def adjoint(bz, z, g, v, k=0):
        bg = runtime.undiag(bz, g, k)

    def tangent(dz, z, g, v, k=0):
        dz = runtime.undiag(dg, v, k)


@helper(
    runtime.undiagonal,
    constant=("a",),
    shape_args={1},
    fresh=True,
    samples=[
        Sample("runtime.undiagonal(g, a, -1, 2, 0)", g=real(2, 3), a=real(3, 2, 4), constant=("a",))
    ],
)
class undiagonal:
    def adjoint(bz, z, g, a, offset=0, axis1=0, axis2=1):
        bg = np.diagonal(bz, offset, axis1, axis2)

    def tangent(dz, z, g, a, offset=0, axis1=0, axis2=1):
        dz = runtime.undiagonal(dg, a, offset, axis1, axis2)

    def rewrite(node, g, a, offset=shapes.Const(0), axis1=shapes.Const(0), axis2=shapes.Const(1)):
        """np.diag(g): a square matrix's main diagonal, in its dtype."""
        g, a = shapes.widen(g), shapes.widen(a)
        if not (
            isinstance(g, shapes.Typed)
            and g.is_array
            and len(g.shape) == 1
            and isinstance(a, (shapes.Typed, shapes.ShapeOf))
            and a.shape == g.shape * 2
            and (offset, axis1, axis2) == (shapes.Const(0), shapes.Const(0), shapes.Const(1))
            and np.result_type(g.dtype, a.dtype) == g.dtype
        ):
            return None
        return ir.call("np.diag", node.args[0])


# --- take, take_along_axis, kron --------------------------------------------------------------


@helper(
    runtime.untake,
    constant=("a",),
    shape_args={1},
    index_args=(2,),
    fresh=True,
    samples=[
        Sample(
            "runtime.untake(g, a, index, 1)",
            g=real(2, 3),
            a=real(2, 2),
            constant=("a",),
            index=constant(np.array([1, 1, 0])),
        ),
        Sample(
            "runtime.untake(g, a, [4, -2], None, 'clip')", g=real(2), a=real(3), constant=("a",)
        ),
    ],
)
class untake:
    def adjoint(bz, z, g, a, indices, axis=None, mode="raise"):
        bg = np.take(bz, indices, axis, mode=mode)

    def tangent(dz, z, g, a, indices, axis=None, mode="raise"):
        dz = runtime.untake(dg, a, indices, axis, mode)


@helper(
    runtime.put_along,
    constant=("a",),
    shape_args={1},
    fresh=True,
    samples=[
        Sample(
            "runtime.put_along(g, a, index, 0)",
            g=real(2, 2),
            a=real(3, 2),
            constant=("a",),
            index=constant(np.array([[2, 2], [0, 2]])),
        ),
        Sample(
            "runtime.put_along(g, a, index, None)",
            g=real(3),
            a=real(2, 2),
            constant=("a",),
            index=constant(np.array([3, 0, 3])),
        ),
    ],
)
class put_along:
    def adjoint(bz, z, g, a, indices, axis=-1):
        bg = np.take_along_axis(bz, indices, axis)

    def tangent(dz, z, g, a, indices, axis=-1):
        dz = runtime.put_along(dg, a, indices, axis)


# kron_grad(g, a, b, 0) is linear in g and b, and kron_grad(g, a, b, 1) in g and a: the same
# structure as matmul_grad's (helpers_products.py)
@helper(
    runtime.kron_grad,
    fresh=True,
    samples=[
        Sample("runtime.kron_grad(g, a, b, 0)", g=real(4, 6), a=real(2, 3), b=real(2, 2)),
        Sample("runtime.kron_grad(g, a, b, 1)", g=real(1, 2, 6), a=real(3), b=real(1, 2, 2)),
    ],
)
class kron_grad:
    def adjoint(bz, z, g, a, b, wrt):
        bg = np.kron(bz, b) if wrt == 0 else np.kron(a, bz)
        ba = runtime.unless_wrt(wrt, 0, runtime.kron_grad, g, a, bz, 0)
        bb = runtime.unless_wrt(wrt, 1, runtime.kron_grad, g, bz, b, 1)

    def tangent(dz, z, g, a, b, wrt):
        dz = runtime.kron_grad(dg, a, b, wrt)
        dz = runtime.unless_wrt(wrt, 0, runtime.kron_grad, g, da, b, wrt)
        dz = runtime.unless_wrt(wrt, 1, runtime.kron_grad, g, a, db, wrt)


# --- meshgrid, diff ---------------------------------------------------------------------------


@helper(
    runtime.unmesh,
    constant=("outputs", "xi"),
    samples=[
        Sample(
            "runtime.unmesh([g, g], np.meshgrid(x, y), (x, y), 0)",
            g=real(2, 3),
            x=real(3),
            y=real(2),
            constant=("x", "y"),
        )
    ],
)
class unmesh:
    def adjoint(bz, z, g, outputs, xi, index, indexing="xy"):
        bg = runtime.mesh_back(bz, outputs, xi, index, indexing)

    def tangent(dz, z, g, outputs, xi, index, indexing="xy"):
        dz = runtime.unmesh(dg, outputs, xi, index, indexing)


@helper(
    runtime.mesh_back,
    constant=("outputs", "xi"),
    samples=[
        Sample(
            "runtime.mesh_back(b, np.meshgrid(x, y, indexing='ij'), (x, y), 1, 'ij')[1]",
            b=real(2),
            x=real(3),
            y=real(2),
            constant=("x", "y"),
        )
    ],
)
class mesh_back:
    def adjoint(bz, z, b, outputs, xi, index, indexing="xy"):
        bb = runtime.unmesh(bz, outputs, xi, index, indexing)

    def tangent(dz, z, b, outputs, xi, index, indexing="xy"):
        dz = runtime.mesh_back(db, outputs, xi, index, indexing)


@helper(
    runtime.undiff,
    fresh=True,
    constant=("prepend", "append"),  # (read for their widths)
    samples=[
        Sample("runtime.undiff(g, 2, 0)", g=real(2, 3)),
        Sample("runtime.undiff(g, prepend=1.0, append=np.ones(2))", g=real(4)),
    ],
)
class undiff:
    def adjoint(bz, z, g, n=1, axis=-1, prepend=None, append=None):
        bg = runtime.padded_diff(bz, n, axis, prepend, append)

    def tangent(dz, z, g, n=1, axis=-1, prepend=None, append=None):
        dz = runtime.undiff(dg, n, axis, prepend, append)


@helper(
    runtime.padded_diff,
    fresh=True,
    constant=("prepend", "append"),
    samples=[Sample("runtime.padded_diff(d, 1, 0, np.ones((1, 2)))", d=real(3, 2))],
)
class padded_diff:
    def adjoint(bz, z, d, n=1, axis=-1, prepend=None, append=None):
        bd = runtime.undiff(bz, n, axis, prepend, append)

    def tangent(dz, z, d, n=1, axis=-1, prepend=None, append=None):
        dz = runtime.padded_diff(dd, n, axis, prepend, append)


# the two are each other's transposes, linear in their first argument; a and the ends are
# read for their shapes
@helper(
    runtime.diff_end_grad,
    fresh=True,
    constant=("a", "prepend", "append"),
    samples=[
        Sample(
            "runtime.diff_end_grad(g, a, 1, -1, 0.5, np.ones((2, 2)), 0)",
            g=real(2, 5),
            a=real(2, 3),
            constant=("a",),
        ),
        Sample(
            "runtime.diff_end_grad(g, a, 2, 0, np.ones((2, 2)), 0.5, 1)",
            g=real(4, 2),
            a=real(3, 2),
            constant=("a",),
        ),
    ],
)
class diff_end_grad:
    def adjoint(bz, z, g, a, n, axis, prepend, append, end):
        bg = runtime.diff_end_tangent(bz, a, n, axis, prepend, append, end)

    def tangent(dz, z, g, a, n, axis, prepend, append, end):
        dz = runtime.diff_end_grad(dg, a, n, axis, prepend, append, end)


@helper(
    runtime.diff_end_tangent,
    fresh=True,
    constant=("a", "prepend", "append"),
    samples=[
        Sample(
            "runtime.diff_end_tangent(d, a, 1, -1, 0.5, np.ones((2, 2)), 0)",
            d=real(),
            a=real(2, 3),
            constant=("a",),
        ),
        Sample(
            "runtime.diff_end_tangent(d, a, 2, 0, np.ones((2, 2)), 0.5, 0)",
            d=real(2, 2),
            a=real(3, 2),
            constant=("a",),
        ),
    ],
)
class diff_end_tangent:
    def adjoint(bz, z, d, a, n, axis, prepend, append, end):
        bd = runtime.diff_end_grad(bz, a, n, axis, prepend, append, end)

    def tangent(dz, z, d, a, n, axis, prepend, append, end):
        dz = runtime.diff_end_tangent(dd, a, n, axis, prepend, append, end)
