"""numpy's statistics and running operations: cumprod, diff, average, ptp, the NaN-ignoring
reductions (nansum, nanmean, nanvar, nanstd, nanmax, nanmin) and cov (median, percentile and
quantile are in order_statistics.py). `axis=` and `keepdims=` are honoured as by the
reductions of reductions.py; the helpers are in runtime/statistics.py (their records in
helpers_statistics.py)."""

import numpy as np

from .. import runtime
from .registry import EVALUATE, Sample, primitive
from .samples import constant, distinct, positive, real, with_nans


def _reduction(*functions, **facts):
    return primitive(*functions, shape=EVALUATE, fresh=True, **facts)


def _axes(call, x):
    """Samples over all axes, one axis, two with keepdims, a negative one."""
    calls = [
        call.format(""),
        call.format(", axis=1"),
        call.format(", axis=(0, 2), keepdims=True"),
        call.format(", axis=-1"),
    ]
    return [Sample(c, x=x) for c in calls]


# --- running products and differences ---------------------------------------------------------


# exact where a holds zeros too (runtime.cumprod_grad): the products of the other factors
@_reduction(
    np.cumprod,
    methods=("cumprod",),
    samples=[
        Sample("np.cumprod(x, axis=1)", x=real(2, 3)),
        Sample("np.cumprod(x)", x=real(2, 2)),
        Sample("x.cumprod(axis=-1)", x=real(3, 2)),
        Sample(
            "np.cumprod(x * y, axis=0)",
            x=constant(np.array([[1.5, 0.0], [0.0, 2.0], [-1.0, 0.5]])),
            y=real(3, 2),
        ),
    ],
)
class cumprod:
    def adjoint(bz, z, a, axis=None, dtype=None, out=None):
        ba = runtime.cumprod_grad(bz, a, axis=axis)

    def tangent(dz, z, a, axis=None, dtype=None, out=None):
        dz = runtime.cumprod_tangent(da, a, axis=axis)


@primitive(
    np.diff,
    shape=EVALUATE,
    view=True,
    samples=[  # (with n=0: a itself)
        Sample("np.diff(x)", x=real(2, 4)),
        Sample("np.diff(x, 2, axis=0)", x=real(4, 2)),
        Sample("np.diff(x, prepend=0.5, append=np.ones((2, 2)))", x=real(2, 3)),
        Sample("np.diff(x, prepend=p, append=q)", x=real(2, 3), p=real(), q=real(2, 2)),
        Sample("np.diff(x, 2, axis=0, prepend=p, append=q)", x=real(3, 2), p=real(2, 2), q=real()),
    ],
)
class diff:
    def adjoint(bz, z, a, n=1, axis=-1, prepend=None, append=None):
        ba = runtime.undiff(bz, n=n, axis=axis, prepend=prepend, append=append)
        bprepend = runtime.diff_end_grad(bz, a, n, axis, prepend, append, 0)
        bappend = runtime.diff_end_grad(bz, a, n, axis, prepend, append, 1)

    def tangent(dz, z, a, n=1, axis=-1, prepend=None, append=None):
        dz = runtime.padded_diff(da, n=n, axis=axis, prepend=prepend, append=append)
        dz = runtime.diff_end_tangent(dprepend, a, n, axis, prepend, append, 0)
        dz = runtime.diff_end_tangent(dappend, a, n, axis, prepend, append, 1)


# --- averages and ranges ----------------------------------------------------------------------


# z = sum(a w) / sum(w) over the axes, w the weights laid over a (runtime.weights_for):
# written with primitives that have templates, so that second derivatives follow. With
# returned=True the value is the pair (z, sum(w)), read through runtime.first_of, second_of
# and as_pair; returned's default is 0 here, not False, so that they fold away where a call
# leaves it out
@_reduction(
    np.average,
    samples=[
        Sample("np.average(x, axis=1)", x=real(2, 3)),
        Sample("np.average(x)", x=real(2, 3)),
        Sample("np.average(x, axis=0, weights=w)", x=real(3, 2), w=positive(3)),
        Sample(
            "np.average(x, weights=w, axis=(0, 2), keepdims=True)",
            x=real(2, 2, 3),
            w=positive(2, 3),
        ),
        Sample("np.average(x, weights=w)", x=real(2, 2), w=positive(2, 2)),
        Sample(
            "np.sum(np.sin(mean) * total)",
            wrap=None,
            setup="mean, total = np.average(x, axis=1, weights=w, returned=True)",
            x=real(3, 4),
            w=positive(4),
        ),
        Sample(
            "np.average(x, axis=0, returned=True)[0] * np.average(x, returned=True)[1]",
            x=real(3, 2),
        ),
    ],
)
class average:
    def adjoint(bz, z, a, axis=None, weights=None, returned=0, keepdims=False):
        ba = runtime.unreduce(
            runtime.first_of(bz, returned)
            / runtime.weight_total(weights, a, axis=axis, keepdims=keepdims),
            a,
            axis=axis,
            keepdims=keepdims,
        ) * runtime.weights_for(weights, a, axis=axis)
        bweights = runtime.unweights(
            runtime.unreduce(
                runtime.first_of(bz, returned)
                / runtime.weight_total(weights, a, axis=axis, keepdims=keepdims),
                a,
                axis=axis,
                keepdims=keepdims,
            )
            * (
                a - runtime.unreduce(runtime.first_of(z, returned), a, axis=axis, keepdims=keepdims)
            ),
            weights,
            a,
            axis=axis,
        ) + runtime.flagged(
            runtime.unweights(
                runtime.unreduce(runtime.second_of(bz, returned), a, axis=axis, keepdims=keepdims),
                weights,
                a,
                axis=axis,
            ),
            returned,
        )

    def tangent(dz, z, a, axis=None, weights=None, returned=0, keepdims=False):
        dz = runtime.as_pair(
            np.sum(da * runtime.weights_for(weights, a, axis=axis), axis=axis, keepdims=keepdims)
            / runtime.weight_total(weights, a, axis=axis, keepdims=keepdims),
            0.0,
            returned,
        )
        dz = runtime.as_pair(
            np.sum(
                runtime.weights_for(dweights, a, axis=axis)
                * (
                    a
                    - runtime.unreduce(
                        runtime.first_of(z, returned), a, axis=axis, keepdims=keepdims
                    )
                ),
                axis=axis,
                keepdims=keepdims,
            )
            / runtime.weight_total(weights, a, axis=axis, keepdims=keepdims),
            runtime.weight_total(dweights, a, axis=axis, keepdims=keepdims),
            returned,
        )


# max - min: the ties of each share its part evenly, as np.max's do
@_reduction(np.ptp, samples=_axes("np.ptp(x{})", distinct(2, 3, 4)))
class ptp:
    def adjoint(bz, z, a, axis=None, out=None, keepdims=False):
        ba = runtime.extremum_grad(
            bz, np.max(a, axis=axis, keepdims=keepdims), a, axis=axis, keepdims=keepdims
        ) - runtime.extremum_grad(
            bz, np.min(a, axis=axis, keepdims=keepdims), a, axis=axis, keepdims=keepdims
        )

    def tangent(dz, z, a, axis=None, out=None, keepdims=False):
        dz = np.sum(
            (
                runtime.extremum_grad(
                    np.ones_like(z),
                    np.max(a, axis=axis, keepdims=keepdims),
                    a,
                    axis=axis,
                    keepdims=keepdims,
                )
                - runtime.extremum_grad(
                    np.ones_like(z),
                    np.min(a, axis=axis, keepdims=keepdims),
                    a,
                    axis=axis,
                    keepdims=keepdims,
                )
            )
            * da,
            axis=axis,
            keepdims=keepdims,
        )


# --- reductions that skip NaNs: NaNs get no gradient ------------------------------------------


@_reduction(np.nansum, samples=_axes("np.nansum(x{})", with_nans(2, 3, 4)))
class nansum:
    def adjoint(bz, z, a, axis=None, dtype=None, out=None, keepdims=False):
        ba = np.where(np.isnan(a), 0, runtime.unreduce(bz, a, axis=axis, keepdims=keepdims))

    def tangent(dz, z, a, axis=None, dtype=None, out=None, keepdims=False):
        dz = np.sum(np.where(np.isnan(a), 0, da), axis=axis, keepdims=keepdims)


@_reduction(np.nanmean, samples=_axes("np.nanmean(x{})", with_nans(2, 3, 4)))
class nanmean:
    def adjoint(bz, z, a, axis=None, dtype=None, out=None, keepdims=False):
        ba = np.where(
            np.isnan(a),
            0,
            runtime.unreduce(
                bz / runtime.count_numbers(a, axis=axis, keepdims=keepdims),
                a,
                axis=axis,
                keepdims=keepdims,
            ),
        )

    def tangent(dz, z, a, axis=None, dtype=None, out=None, keepdims=False):
        dz = np.sum(
            np.where(np.isnan(a), 0, da), axis=axis, keepdims=keepdims
        ) / runtime.count_numbers(a, axis=axis, keepdims=keepdims)


@_reduction(
    np.nanvar,
    samples=_axes("np.nanvar(x{})", with_nans(2, 3, 4))
    + [Sample("np.nanvar(x, axis=0, ddof=1)", x=with_nans(4, 3))],
)
class nanvar:
    def adjoint(bz, z, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        ba = runtime.nanvar_grad(bz, a, axis=axis, ddof=ddof, keepdims=keepdims)

    def tangent(dz, z, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        dz = np.sum(
            runtime.nanvar_grad(1.0, a, axis=axis, ddof=ddof, keepdims=True) * da,
            axis=axis,
            keepdims=keepdims,
        )


@_reduction(np.nanstd, samples=_axes("np.nanstd(x{})", with_nans(2, 3, 4)))
class nanstd:
    def adjoint(bz, z, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        # constant data (z = 0): 0, as for np.std
        ba = runtime.nanvar_grad(
            runtime.divide_or_zero(bz, 2 * z), a, axis=axis, ddof=ddof, keepdims=keepdims
        )

    def tangent(dz, z, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        dz = runtime.divide_or_zero(
            np.sum(
                runtime.nanvar_grad(1.0, a, axis=axis, ddof=ddof, keepdims=True) * da,
                axis=axis,
                keepdims=keepdims,
            ),
            2 * z,
        )


# ties share the gradient evenly, as np.max's do (NaNs never equal the extremum)
@_reduction(
    np.nanmax,
    np.nanmin,
    samples=_axes("np.nanmax(x{})", with_nans(2, 3, 4))
    + _axes("np.nanmin(x{})", with_nans(2, 3, 4)),
)
class nanextremum:
    def adjoint(bz, z, a, axis=None, out=None, keepdims=False):
        ba = runtime.extremum_grad(bz, z, a, axis=axis, keepdims=keepdims)

    def tangent(dz, z, a, axis=None, out=None, keepdims=False):
        dz = np.sum(
            runtime.extremum_grad(np.ones_like(z), z, a, axis=axis, keepdims=keepdims) * da,
            axis=axis,
            keepdims=keepdims,
        )


# --- covariance -------------------------------------------------------------------------------
# (numpy computes it in float64 at least: the tangent follows the value's dtype)


@_reduction(
    np.cov,
    samples=[
        Sample("np.cov(x)", x=real(2, 4)),
        Sample("np.cov(x, rowvar=False, bias=True)", x=real(4, 3)),
        Sample("np.cov(x, ddof=0) * 2", x=real(5)),
        Sample("np.abs(np.cov(x + 1j * x[::-1], rowvar=False))", x=real(3, 2)),
    ],
)
class cov:
    def adjoint(
        bz,
        z,
        m,
        y=None,
        rowvar=True,
        bias=False,
        ddof=None,
        fweights=None,
        aweights=None,
        dtype=None,
    ):
        bm = runtime.cov_grad(
            bz, m, rowvar=rowvar, bias=bias, ddof=ddof, y=y, fweights=fweights, aweights=aweights
        )

    def tangent(
        dz,
        z,
        m,
        y=None,
        rowvar=True,
        bias=False,
        ddof=None,
        fweights=None,
        aweights=None,
        dtype=None,
    ):
        dz = runtime.cast_grad(
            runtime.cov_tangent(
                m,
                dm,
                rowvar=rowvar,
                bias=bias,
                ddof=ddof,
                y=y,
                fweights=fweights,
                aweights=aweights,
            ),
            z,
            z,
        )


# the product of the numbers (NaNs read as 1), exact with zeros as np.prod's
@_reduction(
    np.nanprod,
    samples=[Sample(c.call, x=with_nans(2, 3, 2)) for c in _axes("np.nanprod(x{})", None)],
)
class nanprod:
    def adjoint(bz, z, a, axis=None, dtype=None, out=None, keepdims=False):
        ba = np.where(
            np.isnan(a),
            0,
            runtime.prod_grad(bz, np.where(np.isnan(a), 1, a), axis=axis, keepdims=keepdims),
        )

    def tangent(dz, z, a, axis=None, dtype=None, out=None, keepdims=False):
        dz = np.sum(
            np.where(
                np.isnan(a),
                0,
                runtime.prod_grad(1.0, np.where(np.isnan(a), 1, a), axis=axis, keepdims=True) * da,
            ),
            axis=axis,
            keepdims=keepdims,
        )


@_reduction(
    np.nancumsum,
    samples=[
        Sample("np.nancumsum(x, axis=1)", x=with_nans(3, 4)),
        Sample("np.nancumsum(x)", x=with_nans(3, 4)),
    ],
)
class nancumsum:
    def adjoint(bz, z, a, axis=None, dtype=None, out=None):
        ba = np.where(np.isnan(a), 0, runtime.reverse_cumsum(bz, a, axis=axis))

    def tangent(dz, z, a, axis=None, dtype=None, out=None):
        dz = np.cumsum(np.where(np.isnan(a), 0, da), axis=axis)


# the covariance over the products of the standard deviations (runtime.corrcoef_vjp), of the
# variables of a real x (without y: as np.cov, an error at the call)
@primitive(
    np.corrcoef,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("np.corrcoef(x)", x=real(3, 5)),
        Sample("np.corrcoef(x, rowvar=False)", x=real(4, 2)),
        Sample("np.corrcoef(x) * x", x=real(3)),
    ],
)
class corrcoef:
    def adjoint(bz, z, x, y=None, rowvar=True, dtype=None):
        bx = runtime.corrcoef_vjp(bz, z, x, y, rowvar=rowvar)

    def tangent(dz, z, x, y=None, rowvar=True, dtype=None):
        dz = runtime.corrcoef_jvp(dx, z, x, y, rowvar=rowvar)


# --- counts weighted ----------------------------------------------------------------------------


# z[k] = the sum of the weights at the positions where x is k: the adjoint of the weights reads
# bz at x, and a tangent is the count of the weights' tangents (as long as z)
@primitive(
    np.bincount,
    constant=("x", "minlength"),
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("np.bincount(x, weights=w)", x=constant(np.array([0, 2, 2, 4, 0])), w=real(5)),
        Sample("np.bincount(x, w, minlength=7)", x=constant(np.array([1, 1, 3])), w=real(3)),
    ],
)
class bincount:
    def adjoint(bz, z, x, weights=None, minlength=0):
        bweights = bz[x]

    def tangent(dz, z, x, weights=None, minlength=0):
        dz = np.bincount(x, weights=dweights, minlength=np.size(z))
