"""numpy's order statistics: median, percentile, quantile and their NaN-ignoring versions
(nanmedian, nanpercentile, nanquantile, whose NaNs get no gradient). numpy's interpolation
between sorted values; tied values share their part evenly (runtime/statistics.py).

numpy gives a quantile of float32 values at a list or an array of float64 q in float64:
the tangents follow the value's dtype (runtime.cast_grad); the adjoints come in it too, and
as_grad gives each argument its own dtype at the end."""

import numpy as np

from .. import runtime
from .registry import EVALUATE, Sample, primitive
from .samples import constant, distinct, with_nans
from .statistics import _axes


def _reduction(*functions, **facts):
    return primitive(*functions, shape=EVALUATE, fresh=True, **facts)


# --- of every value ---------------------------------------------------------------------------


@_reduction(
    np.median,
    samples=_axes("np.median(x{})", distinct(2, 3, 4)) + [Sample("np.median(x)", x=distinct(5))],
)
class median:
    def adjoint(bz, z, a, axis=None, out=None, overwrite_input=False, keepdims=False):
        ba = runtime.quantile_grad(bz, a, 0.5, axis=axis, keepdims=keepdims)

    def tangent(dz, z, a, axis=None, out=None, overwrite_input=False, keepdims=False):
        dz = runtime.quantile_tangent(da, a, 0.5, axis=axis, keepdims=keepdims)


@_reduction(
    np.percentile,
    samples=[
        Sample("np.percentile(x, 30)", x=distinct(2, 3)),
        Sample("np.percentile(x, [10, 50, 100], axis=0)", x=distinct(4, 2)),
        Sample("np.percentile(x, 75, axis=(0, 2), keepdims=True)", x=distinct(2, 3, 2)),
    ],
)
class percentile:
    def adjoint(
        bz,
        z,
        a,
        q,
        axis=None,
        out=None,
        overwrite_input=False,
        method="linear",
        keepdims=False,
        weights=None,
    ):
        ba = runtime.quantile_grad(
            bz, a, np.divide(q, 100), axis=axis, keepdims=keepdims, method=method
        )

    def tangent(
        dz,
        z,
        a,
        q,
        axis=None,
        out=None,
        overwrite_input=False,
        method="linear",
        keepdims=False,
        weights=None,
    ):
        dz = runtime.cast_grad(
            runtime.quantile_tangent(
                da, a, np.divide(q, 100), axis=axis, keepdims=keepdims, method=method
            ),
            z,
            z,
        )


@_reduction(
    np.quantile,
    samples=[
        Sample("np.quantile(x, 0.3)", x=distinct(2, 3)),
        Sample(
            "np.quantile(x, q, axis=-1)",
            x=distinct(2, 4),
            constant=("q",),
            q=constant(np.array([[0.0, 0.5], [0.9, 1.0]])),
        ),
        Sample(
            "np.sum(np.quantile(x, [0.3, 0.5], method='nearest')) + np.quantile(x, 0.7, "
            "method='lower') + np.sum(np.quantile(x, 0.3, axis=0, method='higher')) + "
            "np.quantile(x, 0.4, method='midpoint')",
            x=distinct(3, 4),
        ),
    ],
)
class quantile:
    def adjoint(
        bz,
        z,
        a,
        q,
        axis=None,
        out=None,
        overwrite_input=False,
        method="linear",
        keepdims=False,
        weights=None,
    ):
        ba = runtime.quantile_grad(bz, a, q, axis=axis, keepdims=keepdims, method=method)

    def tangent(
        dz,
        z,
        a,
        q,
        axis=None,
        out=None,
        overwrite_input=False,
        method="linear",
        keepdims=False,
        weights=None,
    ):
        dz = runtime.cast_grad(
            runtime.quantile_tangent(da, a, q, axis=axis, keepdims=keepdims, method=method), z, z
        )


# --- of the numbers alone: the quantiles of each line's values that are not NaN ---------------


@_reduction(
    np.nanmedian,
    samples=_axes("np.nanmedian(x{})", with_nans(2, 3, 4))
    + [Sample("np.nanmedian(x)", x=with_nans(6))],
)
class nanmedian:
    def adjoint(bz, z, a, axis=None, out=None, overwrite_input=False, keepdims=False):
        ba = runtime.quantile_grad(bz, a, 0.5, axis=axis, keepdims=keepdims, skip_nans=True)

    def tangent(dz, z, a, axis=None, out=None, overwrite_input=False, keepdims=False):
        dz = runtime.quantile_tangent(da, a, 0.5, axis=axis, keepdims=keepdims, skip_nans=True)


@_reduction(
    np.nanpercentile,
    samples=[
        Sample("np.nanpercentile(x, 30)", x=with_nans(2, 3)),
        Sample("np.nanpercentile(x, [10, 50, 100], axis=0)", x=with_nans(4, 3)),
        Sample("np.nanpercentile(x, 75, axis=(0, 2), keepdims=True)", x=with_nans(2, 3, 2)),
    ],
)
class nanpercentile:
    def adjoint(
        bz,
        z,
        a,
        q,
        axis=None,
        out=None,
        overwrite_input=False,
        method="linear",
        keepdims=False,
        weights=None,
    ):
        ba = runtime.quantile_grad(
            bz, a, np.divide(q, 100), axis=axis, keepdims=keepdims, method=method, skip_nans=True
        )

    def tangent(
        dz,
        z,
        a,
        q,
        axis=None,
        out=None,
        overwrite_input=False,
        method="linear",
        keepdims=False,
        weights=None,
    ):
        dz = runtime.cast_grad(
            runtime.quantile_tangent(
                da,
                a,
                np.divide(q, 100),
                axis=axis,
                keepdims=keepdims,
                method=method,
                skip_nans=True,
            ),
            z,
            z,
        )


@_reduction(
    np.nanquantile,
    samples=[
        Sample("np.nanquantile(x, 0.3)", x=with_nans(2, 3)),
        Sample(
            "np.nanquantile(x, q, axis=-1)",
            x=with_nans(2, 5),
            constant=("q",),
            q=constant(np.array([[0.0, 0.5], [0.9, 1.0]])),
        ),
        Sample(
            "np.sum(np.nanquantile(x, [0.3, 0.5], axis=1, method='nearest')) + "
            "np.nanquantile(x, 0.7, method='lower') + np.sum(np.nanquantile(x, 0.3, axis=0, "
            "method='higher')) + np.nanquantile(x, 0.4, method='midpoint')",
            x=with_nans(3, 4),
        ),
    ],
)
class nanquantile:
    def adjoint(
        bz,
        z,
        a,
        q,
        axis=None,
        out=None,
        overwrite_input=False,
        method="linear",
        keepdims=False,
        weights=None,
    ):
        ba = runtime.quantile_grad(
            bz, a, q, axis=axis, keepdims=keepdims, method=method, skip_nans=True
        )

    def tangent(
        dz,
        z,
        a,
        q,
        axis=None,
        out=None,
        overwrite_input=False,
        method="linear",
        keepdims=False,
        weights=None,
    ):
        dz = runtime.cast_grad(
            runtime.quantile_tangent(
                da, a, q, axis=axis, keepdims=keepdims, method=method, skip_nans=True
            ),
            z,
            z,
        )
