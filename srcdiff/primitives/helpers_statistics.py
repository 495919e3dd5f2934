"""The runtime helpers of statistics.py's adjoints (runtime/statistics.py), as primitives,
with the templates that differentiate them again."""

import numpy as np

from .. import runtime
from .helpers import helper
from .registry import Sample
from .samples import constant, distinct, number, positive, real, with_nans

_CUMPROD = dict(a=real(2, 3), constant=("a",))


# cumprod_grad(g, a) = J(a)^T g and cumprod_tangent(d, a) = J(a) d are linear in g and d; in
# a, their derivatives are those of J, the second derivatives H_j of each z_j, which
# cumprod_curvature (sum_j g_j H_j u) and cumprod_second (u^T H_j v) apply
@helper(
    runtime.cumprod_grad,
    fresh=True,
    samples=[
        Sample("runtime.cumprod_grad(g, a, axis=1)", g=real(2, 3), a=real(2, 3)),
        Sample("runtime.cumprod_grad(g, a)", g=real(3), a=constant(np.array([0.5, 0.0, 2.0]))),
    ],
)
class cumprod_grad:
    def adjoint(bz, z, g, a, axis=None):
        bg = runtime.cumprod_tangent(bz, a, axis=axis)
        ba = runtime.cumprod_curvature(g, a, bz, axis=axis)

    def tangent(dz, z, g, a, axis=None):
        dz = runtime.cumprod_grad(dg, a, axis=axis)
        dz = runtime.cumprod_curvature(g, a, da, axis=axis)


@helper(
    runtime.cumprod_tangent,
    fresh=True,
    samples=[
        Sample("runtime.cumprod_tangent(d, a, axis=0)", d=real(2, 3), a=real(2, 3)),
        Sample("runtime.cumprod_tangent(d, a)", d=real(3), a=constant(np.array([0.0, 1.5, 0.0]))),
    ],
)
class cumprod_tangent:
    def adjoint(bz, z, d, a, axis=None):
        bd = runtime.cumprod_grad(bz, a, axis=axis)
        ba = runtime.cumprod_curvature(bz, a, d, axis=axis)

    def tangent(dz, z, d, a, axis=None):
        dz = runtime.cumprod_tangent(dd, a, axis=axis)
        dz = runtime.cumprod_second(d, a, da, axis=axis)


for function, call in (
    (runtime.cumprod_second, "x * runtime.cumprod_second(np.ones(3), np.full(3, 2.0), np.ones(3))"),
    (
        runtime.cumprod_curvature,
        "x * runtime.cumprod_curvature(np.ones(3), np.full(3, 2.0), np.ones(3))",
    ),
):
    helper(function, fresh=True, samples=[Sample(call, x=positive(3))])(
        type(function.__name__, (), {})
    )


# the quantiles' weights depend on a's order only: flat in a, linear in g and d
@helper(
    runtime.quantile_grad,
    constant=("a",),
    samples=[
        Sample(
            "runtime.quantile_grad(g, a, [0.2, 0.5], axis=0)",
            g=real(2, 3),
            a=distinct(4, 3),
            constant=("a",),
        ),
        Sample(
            "runtime.quantile_grad(g, a, 0.5, keepdims=True)",
            g=real(1, 1),
            a=constant(np.array([[1.0, 2.0, 2.0], [2.0, 0.0, 3.0]])),
            constant=("a",),
        ),
        Sample(
            "runtime.quantile_grad(g, a, [0.2, 0.5], axis=1, skip_nans=True)",
            g=real(2, 4),
            a=with_nans(4, 3),
            constant=("a",),
        ),
    ],
)
class quantile_grad:
    def adjoint(bz, z, g, a, q, axis=None, keepdims=False, method="linear", skip_nans=False):
        bg = runtime.quantile_tangent(
            bz, a, q, axis=axis, keepdims=keepdims, method=method, skip_nans=skip_nans
        )

    def tangent(dz, z, g, a, q, axis=None, keepdims=False, method="linear", skip_nans=False):
        dz = runtime.quantile_grad(
            dg, a, q, axis=axis, keepdims=keepdims, method=method, skip_nans=skip_nans
        )


@helper(
    runtime.quantile_tangent,
    constant=("a",),
    samples=[
        Sample(
            "runtime.quantile_tangent(d, a, 0.7, axis=(0, 2))",
            d=real(2, 2, 3),
            a=distinct(2, 2, 3),
            constant=("a",),
        ),
        Sample(
            "runtime.quantile_tangent(d, a, [0.5, 1.0])",
            d=real(4),
            a=constant(np.array([1.0, 3.0, 1.0, 1.0])),
            constant=("a",),
        ),
        Sample(
            "runtime.quantile_tangent(d, a, 0.3, axis=0, skip_nans=True)",
            d=real(5, 2),
            a=with_nans(5, 2),
            constant=("a",),
        ),
    ],
)
class quantile_tangent:
    def adjoint(bz, z, d, a, q, axis=None, keepdims=False, method="linear", skip_nans=False):
        bd = runtime.quantile_grad(
            bz, a, q, axis=axis, keepdims=keepdims, method=method, skip_nans=skip_nans
        )

    def tangent(dz, z, d, a, q, axis=None, keepdims=False, method="linear", skip_nans=False):
        dz = runtime.quantile_tangent(
            dd, a, q, axis=axis, keepdims=keepdims, method=method, skip_nans=skip_nans
        )


helper(
    runtime.count_numbers,
    differentiable=False,
    samples=[Sample("x * runtime.count_numbers(np.where(x > 0, x, np.nan), axis=0)", x=real(2, 3))],
)(type("count_numbers", (), {}))


# nanvar_grad(g, x) is linear in g and in x's numbers (the NaNs' places held): the same
# structure as var_grad's (helpers.py), with x's NaNs carried into what stands for x
@helper(
    runtime.nanvar_grad,
    fresh=True,
    samples=[
        Sample("runtime.nanvar_grad(g, x, axis=0)", g=real(3), x=with_nans(3, 3)),
        Sample("runtime.nanvar_grad(g, x, ddof=1, keepdims=True)", g=real(1, 1), x=real(2, 3)),
    ],
)
class nanvar_grad:
    def adjoint(bz, z, g, x, axis=None, ddof=0, keepdims=False):
        bg = runtime.reduce_like(
            bz * runtime.nanvar_grad(np.ones_like(g), x, axis=axis, ddof=ddof, keepdims=keepdims),
            g,
            axis=axis,
            keepdims=keepdims,
        )
        bx = runtime.nanvar_grad(
            np.ones_like(g),
            np.where(np.isnan(x), np.nan, bz * runtime.unreduce(g, x, axis, keepdims)),
            axis=axis,
            ddof=ddof,
            keepdims=keepdims,
        )

    def tangent(dz, z, g, x, axis=None, ddof=0, keepdims=False):
        dz = runtime.nanvar_grad(dg, x, axis=axis, ddof=ddof, keepdims=keepdims)
        dz = runtime.nanvar_grad(
            g, np.where(np.isnan(x), np.nan, dx), axis=axis, ddof=ddof, keepdims=keepdims
        )


# --- average's weights: linear maps (reshapes, transposes, sums) and their transposes ----------


@helper(
    runtime.weights_for,
    constant=("a",),
    shape_args={1},
    samples=[
        Sample(
            "runtime.weights_for(w, a, axis=(2, 0))", w=real(3, 2), a=real(2, 2, 3), constant=("a",)
        ),
        Sample("runtime.weights_for(w, a)", w=real(2, 3), a=real(2, 3), constant=("a",)),
    ],
)
class weights_for:
    def adjoint(bz, z, weights, a, axis=None):
        bweights = runtime.unweights(bz, weights, a, axis=axis)

    def tangent(dz, z, weights, a, axis=None):
        dz = runtime.weights_for(dweights, a, axis=axis)


@helper(
    runtime.unweights,
    constant=("weights", "a"),
    shape_args={1, 2},
    samples=[
        Sample(
            "runtime.unweights(b, w, a, axis=(2, 0))",
            b=real(2, 2, 3),
            w=real(3, 2),
            a=real(2, 2, 3),
            constant=("w", "a"),
        ),
        Sample(
            "runtime.unweights(b, w, a, axis=1)",
            b=real(1, 3),
            w=real(3),
            a=real(2, 3),
            constant=("w", "a"),
        ),
    ],
)
class unweights:
    def adjoint(bz, z, b, weights, a, axis=None):
        bb = runtime.broadcast_like(runtime.weights_for(bz, a, axis=axis), b)

    def tangent(dz, z, b, weights, a, axis=None):
        dz = runtime.unweights(db, weights, a, axis=axis)


@helper(
    runtime.weight_total,
    constant=("a",),
    shape_args={1},
    samples=[
        Sample(
            "runtime.weight_total(w, a, axis=1, keepdims=True)",
            w=real(3),
            a=real(2, 3),
            constant=("a",),
        ),
        Sample("x * runtime.weight_total(None, a)", x=number(), a=real(2, 3), constant=("a",)),
    ],
)
class weight_total:
    def adjoint(bz, z, weights, a, axis=None, keepdims=False):
        bweights = runtime.unweights(
            runtime.unreduce(bz, a, axis=axis, keepdims=keepdims), weights, a, axis=axis
        )

    def tangent(dz, z, weights, a, axis=None, keepdims=False):
        dz = runtime.weight_total(dweights, a, axis=axis, keepdims=keepdims)


# --- cov: cov_tangent(m, t) is symmetric and bilinear, cov_grad(g, m) its transpose in t ------


@helper(
    runtime.cov_grad,
    fresh=True,
    samples=[
        Sample("runtime.cov_grad(g, m)", g=real(2, 2), m=real(2, 3)),
        Sample("runtime.cov_grad(g, m, rowvar=False, ddof=0)", g=number(), m=real(4)),
        Sample(
            "np.abs(runtime.cov_grad(g + 1j * g.T, m - 1j * m[::-1]))", g=real(2, 2), m=real(2, 3)
        ),
    ],
)
class cov_grad:
    def adjoint(
        bz, z, g, m, rowvar=True, bias=False, ddof=None, y=None, fweights=None, aweights=None
    ):
        bg = runtime.cov_tangent(m, bz, rowvar=rowvar, bias=bias, ddof=ddof)
        bm = runtime.cov_grad(g, bz, rowvar=rowvar, bias=bias, ddof=ddof)

    def tangent(
        dz, z, g, m, rowvar=True, bias=False, ddof=None, y=None, fweights=None, aweights=None
    ):
        dz = runtime.cov_grad(dg, m, rowvar=rowvar, bias=bias, ddof=ddof)
        dz = runtime.cov_grad(g, dm, rowvar=rowvar, bias=bias, ddof=ddof)


@helper(
    runtime.cov_tangent,
    fresh=True,
    samples=[
        Sample("runtime.cov_tangent(m, t, rowvar=False)", m=real(3, 2), t=real(3, 2)),
        Sample("np.abs(runtime.cov_tangent(m + 1j * t, t - 2j * m))", m=real(2, 3), t=real(2, 3)),
    ],
)
class cov_tangent:
    def adjoint(
        bz, z, m, t, rowvar=True, bias=False, ddof=None, y=None, fweights=None, aweights=None
    ):
        bm = runtime.cov_grad(bz, t, rowvar=rowvar, bias=bias, ddof=ddof)
        bt = runtime.cov_grad(bz, m, rowvar=rowvar, bias=bias, ddof=ddof)

    def tangent(
        dz, z, m, t, rowvar=True, bias=False, ddof=None, y=None, fweights=None, aweights=None
    ):
        dz = runtime.cov_tangent(dm, t, rowvar=rowvar, bias=bias, ddof=ddof)
        dz = runtime.cov_tangent(m, dt, rowvar=rowvar, bias=bias, ddof=ddof)
