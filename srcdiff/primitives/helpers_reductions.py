"""Runtime helpers as primitives (see helpers.py): the adjoints and tangents of reductions."""

import gast
import numpy as np

from .. import ir, runtime
from ..shapes import Const
from .helpers import helper
from .registry import Sample
from .rewriting import (
    reduced_shape,
    shape,
    spread,
)
from .samples import number, positive, real


# --- reductions -------------------------------------------------------------------------------

_REDUCED = dict(g=real(3), x=real(2, 3), constant=("x",))


@helper(
    runtime.unreduce,
    constant=("x",),
    shape_args={1},
    samples=[
        Sample("runtime.unreduce(g, x, axis=0)", **_REDUCED),
        Sample("runtime.unreduce(g, x)", g=number(), x=real(2, 3), constant=("x",)),
    ],
)
class unreduce:
    def adjoint(bz, z, g, x, axis=None, keepdims=False, where=True):
        bg = runtime.reduce_like(bz, g, axis=axis, keepdims=keepdims, where=where)

    def tangent(dz, z, g, x, axis=None, keepdims=False, where=True):
        dz = runtime.unreduce(dg, x, axis=axis, keepdims=keepdims, where=where)

    def rewrite(node, g, x, axis=Const(None), keepdims=Const(False)):
        return spread(node.args[0], g, x, axis, keepdims)


@helper(
    runtime.reduce_like,
    constant=("like",),
    shape_args={1},
    samples=[
        Sample(
            "runtime.reduce_like(g, like, axis=0)", g=real(2, 3), like=real(3), constant=("like",)
        )
    ],
)
class reduce_like:
    def adjoint(bz, z, g, like, axis=None, keepdims=False, where=True):
        bg = runtime.unreduce(bz, g, axis=axis, keepdims=keepdims, where=where)

    def tangent(dz, z, g, like, axis=None, keepdims=False, where=True):
        dz = runtime.reduce_like(dg, like, axis=axis, keepdims=keepdims, where=where)


@helper(
    runtime.mean_grad,
    constant=("x",),
    shape_args={1},
    samples=[
        Sample("runtime.mean_grad(g, x, axis=0)", **_REDUCED),
        Sample("runtime.mean_grad(g, x, axis=0, where=[[True], [False]])", **_REDUCED),
    ],
)
class mean_grad:
    def adjoint(bz, z, g, x, axis=None, keepdims=False, where=True):
        bg = runtime.reduce_like(bz, g, axis=axis, keepdims=keepdims, where=where) / runtime.count(
            x, axis, where, keepdims
        )

    def tangent(dz, z, g, x, axis=None, keepdims=False, where=True):
        dz = runtime.mean_grad(dg, x, axis=axis, keepdims=keepdims, where=where)

    def rewrite(node, g, x, axis=Const(None), keepdims=Const(False), where=Const(True)):
        xs = shape(x)
        if xs is None or not isinstance(axis, Const) or where != Const(True):
            return None
        count = int(np.prod(xs)) // int(np.prod(reduced_shape(xs, axis.value, True)))
        if count == 0:
            return None
        scaled = gast.BinOp(left=node.args[0], op=gast.Div(), right=ir.const(count))
        return spread(scaled, g, x, axis, keepdims)


@helper(
    runtime.var_grad,
    fresh=True,
    samples=[
        Sample("runtime.var_grad(g, x, axis=0)", g=real(3), x=real(2, 3)),
        Sample("runtime.var_grad(g, x, ddof=1)", g=number(), x=real(4)),
        Sample(
            "runtime.var_grad(g, x, axis=1, ddof=1, where=np.eye(2, 5) < 1)",
            g=real(2),
            x=real(2, 5),
        ),
    ],
)
class var_grad:
    # (1.0, a Python number, spreads in x's dtype: np.ones_like(g) of a Python g is float64)
    def adjoint(bz, z, g, x, axis=None, ddof=0, keepdims=False, where=True):
        bg = runtime.reduce_like(
            bz * runtime.var_grad(1.0, x, axis=axis, ddof=ddof, keepdims=True, where=where),
            g,
            axis=axis,
            keepdims=keepdims,
        )
        bx = runtime.var_grad(
            1.0,
            bz * runtime.unreduce(g, x, axis, keepdims),
            axis=axis,
            ddof=ddof,
            keepdims=True,
            where=where,
        )

    def tangent(dz, z, g, x, axis=None, ddof=0, keepdims=False, where=True):
        dz = runtime.var_grad(dg, x, axis=axis, ddof=ddof, keepdims=keepdims, where=where)
        dz = runtime.var_grad(g, dx, axis=axis, ddof=ddof, keepdims=keepdims, where=where)


# both spread g over x's reduced axes, then weigh each element (by where the peak is, or by
# its distance from the mean): the adjoint weighs bz alike and sums over those axes again
@helper(
    runtime.extremum_grad,
    constant=("peak", "x"),
    fresh=True,
    samples=[
        Sample(
            "runtime.extremum_grad(g, np.max(x, axis=0), x, axis=0)",
            g=real(3),
            x=real(2, 3),
            constant=("x",),
        )
    ],
)
class extremum_grad:
    def adjoint(bz, z, g, peak, x, axis=None, keepdims=False, initial=None, where=True):
        bg = runtime.reduce_like(
            bz
            * runtime.extremum_grad(
                np.ones_like(g), peak, x, axis=axis, keepdims=keepdims, initial=initial, where=where
            ),
            g,
            axis=axis,
            keepdims=keepdims,
        )

    def tangent(dz, z, g, peak, x, axis=None, keepdims=False, initial=None, where=True):
        dz = runtime.extremum_grad(
            dg, peak, x, axis=axis, keepdims=keepdims, initial=initial, where=where
        )


# prod_grad is U(g) * P(x), P(x)_i the product of the others: P's Jacobian is symmetric, so
# its transpose is its own tangent
@helper(
    runtime.prod_grad,
    fresh=True,
    samples=[Sample("runtime.prod_grad(g, x, axis=1)", g=real(2), x=positive(2, 3))],
)
class prod_grad:
    def adjoint(bz, z, g, x, axis=None, keepdims=False):
        bg = runtime.reduce_like(
            bz * runtime.prod_grad(np.ones_like(g), x, axis=axis, keepdims=keepdims),
            g,
            axis=axis,
            keepdims=keepdims,
        )
        bx = runtime.prod_grad_tangent(
            np.ones_like(g),
            x,
            bz * runtime.unreduce(g, x, axis, keepdims),
            axis=axis,
            keepdims=keepdims,
        )

    def tangent(dz, z, g, x, axis=None, keepdims=False):
        dz = runtime.prod_grad(dg, x, axis=axis, keepdims=keepdims)
        dz = runtime.prod_grad_tangent(g, x, dx, axis=axis, keepdims=keepdims)


@helper(
    runtime.prod_grad_tangent,
    fresh=True,
    samples=[Sample("x * runtime.prod_grad_tangent(1.0, np.ones(3), np.ones(3))", x=real(3))],
)
class prod_grad_tangent:
    pass


@helper(
    runtime.reverse_cumsum,
    constant=("like",),
    shape_args={1},
    samples=[
        Sample(
            "runtime.reverse_cumsum(g, like, axis=1)",
            g=real(2, 3),
            like=real(2, 3),
            constant=("like",),
        )
    ],
)
class reverse_cumsum:
    def adjoint(bz, z, g, like, axis=None):
        bg = np.reshape(np.cumsum(bz, axis=axis), np.shape(g))

    def tangent(dz, z, g, like, axis=None):
        dz = runtime.reverse_cumsum(dg, like, axis=axis)


@helper(
    runtime.count, differentiable=False, samples=[Sample("x * runtime.count(x, 0)", x=real(2, 3))]
)
class count:
    pass
