"""Reductions: sums, means, variances, extrema, products, running sums (np.linalg.norm is in
linalg.py). `axis=` and `keepdims=` are honoured; the adjoints spread over the reduced axes
(runtime.unreduce)."""

import builtins

import numpy as np

from .. import runtime
from .registry import EVALUATE, Sample, primitive
from .samples import distinct, positive, real


def _reduction(*functions, **facts):
    return primitive(*functions, shape=EVALUATE, fresh=True, **facts)


def _axes(call, x=real(2, 3, 4)):
    """Samples of a reduction over all axes, one axis, several with keepdims, a negative one."""
    calls = [
        call.format(""),
        call.format(", axis=1"),
        call.format(", axis=(0, 2), keepdims=True"),
        call.format(", axis=-1"),
    ]
    return [Sample(c, x=x) for c in calls]


@_reduction(
    np.sum,
    methods=("sum",),
    samples=_axes("np.sum(x{})")
    + [
        Sample("x.sum(axis=0)", x=real(3, 4)),
        Sample("np.sum(x)", wrap=None, x=real(3)),
        Sample("np.sum(x, axis=1, where=x > 0, initial=1.5)", x=real(3, 4)),
        Sample("x.sum(where=[True, False, True])", x=real(2, 3)),
    ],
)
class sum_:
    def adjoint(bz, z, a, axis=None, dtype=None, keepdims=False, initial=None, where=True):
        ba = runtime.unreduce(bz, a, axis=axis, keepdims=keepdims, where=where)

    def tangent(dz, z, a, axis=None, dtype=None, keepdims=False, initial=None, where=True):
        dz = np.sum(da, axis=axis, keepdims=keepdims, where=where)


@_reduction(
    np.mean,
    methods=("mean",),
    samples=_axes("np.mean(x{})")
    + [
        Sample("x.mean(axis=0)", x=real(3, 4)),
        Sample("np.mean(x, axis=1, where=np.eye(3, 4) < 1)", x=real(3, 4)),
        Sample("np.mean(x, where=[[True, False, True]], keepdims=True)", x=real(2, 3)),
    ],
)
class mean:
    def adjoint(bz, z, a, axis=None, dtype=None, out=None, keepdims=False, where=True):
        ba = runtime.mean_grad(bz, a, axis=axis, keepdims=keepdims, where=where)

    def tangent(dz, z, a, axis=None, dtype=None, out=None, keepdims=False, where=True):
        dz = np.mean(da, axis=axis, keepdims=keepdims, where=where)


@_reduction(
    np.var,
    methods=("var",),
    samples=_axes("np.var(x{})")
    + [
        Sample("np.var(x, axis=0, ddof=1)", x=real(4, 3)),
        Sample("x.var()", x=real(3, 4)),
        Sample("np.var(x, 0, None, None, 1)", x=real(4, 3)),  # (numpy's order: out before ddof)
        Sample("np.var(x, axis=0, ddof=1, where=np.eye(5, 3) < 1)", x=real(5, 3)),
        Sample("np.var(x, where=[[True], [False], [True]])", x=real(3, 2)),
    ],
)
class var:
    def adjoint(bz, z, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=True):
        ba = runtime.var_grad(bz, a, axis=axis, ddof=ddof, keepdims=keepdims, where=where)

    def tangent(dz, z, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=True):
        # (complex a: the real part, var being of |a - mean|)
        dz = runtime.real_for(
            np.sum(
                runtime.var_grad(1.0, a, axis=axis, ddof=ddof, keepdims=True, where=where) * da,
                axis=axis,
                keepdims=keepdims,
            ),
            z,
        )


@_reduction(
    np.std,
    methods=("std",),
    samples=_axes("np.std(x{})")
    + [
        Sample("np.std(x, axis=0, ddof=1)", x=real(4, 3)),
        Sample("x.std(axis=1)", x=real(3, 4)),
        Sample("np.std(x, 1, None, None, 1, True)", x=real(3, 4)),
        Sample("np.std(x, axis=1, where=np.eye(3, 5) < 1)", x=real(3, 5)),
    ],
)
class std:
    def adjoint(bz, z, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=True):
        # constant data (z = 0): 0, the subgradient a norm of the centred values has there
        ba = runtime.var_grad(
            runtime.divide_or_zero(bz, 2 * z),
            a,
            axis=axis,
            ddof=ddof,
            keepdims=keepdims,
            where=where,
        )

    def tangent(dz, z, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=True):
        dz = runtime.divide_or_zero(
            runtime.real_for(
                np.sum(
                    runtime.var_grad(1.0, a, axis=axis, ddof=ddof, keepdims=True, where=where) * da,
                    axis=axis,
                    keepdims=keepdims,
                ),
                z,
            ),
            2 * z,
        )


# ties share the gradient evenly
@_reduction(
    np.max,
    np.amax,
    np.min,
    np.amin,
    methods=("max", "min"),
    samples=_axes("np.max(x{})", distinct(2, 3, 4))
    + _axes("np.min(x{})", distinct(2, 3, 4))
    + [
        Sample("x.max() + x.min(axis=0)", x=distinct(3, 4)),
        Sample("np.amax(x, axis=1) + np.amin(x)", x=distinct(3, 4)),
        Sample("np.max(x, axis=0, initial=0.0) + np.min(x, initial=0.5)", x=distinct(3, 4)),
        Sample("np.max(x, axis=1, where=x < 0.5, initial=-5.0)", x=distinct(3, 4)),
    ],
)
class extremum:
    def adjoint(bz, z, a, axis=None, keepdims=False, initial=None, where=True):
        ba = runtime.extremum_grad(
            bz, z, a, axis=axis, keepdims=keepdims, initial=initial, where=where
        )

    def tangent(dz, z, a, axis=None, keepdims=False, initial=None, where=True):
        dz = np.sum(
            runtime.extremum_grad(
                np.ones_like(z), z, a, axis=axis, keepdims=keepdims, initial=initial, where=where
            )
            * da,
            axis=axis,
            keepdims=keepdims,
        )


# exact with zeros in a: the product of the other elements, not z / a
@_reduction(
    np.prod,
    methods=("prod",),
    samples=_axes("np.prod(x{})", positive(2, 3, 4))
    + [
        Sample("x.prod(axis=1)", x=positive(3, 4)),
        Sample("np.prod(x, axis=0)", x=positive(2, 0)),  # (an empty kept axis)
    ],
)
class prod:
    def adjoint(bz, z, a, axis=None, dtype=None, keepdims=False):
        ba = runtime.prod_grad(bz, a, axis=axis, keepdims=keepdims)

    def tangent(dz, z, a, axis=None, dtype=None, keepdims=False):
        dz = np.sum(
            runtime.prod_grad(1.0, a, axis=axis, keepdims=True) * da, axis=axis, keepdims=keepdims
        )


@_reduction(
    np.cumsum,
    methods=("cumsum",),
    samples=[
        Sample("np.cumsum(x, axis=1)", x=real(3, 4)),
        Sample("np.cumsum(x)", x=real(3, 4)),
        Sample("x.cumsum(axis=-1)", x=real(3, 4)),
    ],
)
class cumsum:
    def adjoint(bz, z, a, axis=None, dtype=None):
        ba = runtime.reverse_cumsum(bz, a, axis=axis)

    def tangent(dz, z, a, axis=None, dtype=None):
        dz = np.cumsum(da, axis=axis)


# of a list display, or of a list built with append: sum([a, b]) is a + b
@primitive(
    builtins.sum,
    shape=EVALUATE,
    widens=True,
    samples=[
        Sample("sum([x, np.sin(x), 2.0])", x=real(4)),
        Sample("sum([x, y])", x=real(3), y=real(2, 3)),
        Sample("sum([x, y], 0.0) * x", x=real(1), y=real(3)),
    ],
)
class sum_builtin:
    def adjoint(bz, z, iterable, start=0):
        biterable[i] = runtime.unbroadcast(bz, iterable[i])
        bstart = runtime.unbroadcast(bz, start)

    def tangent(dz, z, iterable, start=0):
        dz = runtime.broadcast_like(sum(diterable), z)
        dz = runtime.broadcast_like(dstart, z)
