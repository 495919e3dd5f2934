"""numpy's numerical routines: convolution and correlation of 1-d arrays, polynomials,
integration, differences and interpolation. Their helpers are in runtime/numerics.py.

np.convolve and np.correlate keep a window of the full result (numpy swaps the operands when
v is the longer): an adjoint pads bz back to the full length with zeros
(runtime.convolve_margins) and correlates it with the other operand, 'valid' giving the
operand's length. Complex operands follow autograd's convention (transposes, not conjugates);
np.correlate conjugates v, so its adjoint conjugates too."""

import numpy as np

from .. import runtime
from .registry import EVALUATE, Sample, constants, primitive
from .samples import constant, number, positive, real


def _modes(call):
    """Samples in every mode with either operand the longer, and of complex operands."""
    samples = [
        Sample(f"{call}(a, v, mode='{mode}')", a=real(n), v=real(m))
        for mode in ("full", "same", "valid")
        for n, m in ((6, 3), (3, 4))
    ]
    return samples + [
        Sample(f"{call}(a, v)", a=real(2), v=real(2)),
        Sample(f"{call}(a * (1 + 2j), v * (2 - 1j), 'same')", wrap="abs2", a=real(4), v=real(3)),
        Sample(f"{call}(a * (1 - 1j), v * (1 + 3j), 'same')", wrap="abs2", a=real(2), v=real(5)),
        Sample(f"{call}(a, v * (1 + 3j), 'valid')", wrap="abs2", a=real(3), v=real(4)),
    ]


@primitive(np.convolve, shape=EVALUATE, fresh=True, samples=_modes("np.convolve"))
class convolve:
    def adjoint(bz, z, a, v, mode="full"):
        ba = runtime.real_for(
            np.correlate(
                np.pad(bz, runtime.convolve_margins(a, v, mode)), runtime.conj(v), "valid"
            ),
            a,
        )
        bv = runtime.real_for(
            np.correlate(
                np.pad(bz, runtime.convolve_margins(a, v, mode)), runtime.conj(a), "valid"
            ),
            v,
        )

    def tangent(dz, z, a, v, mode="full"):
        dz = np.convolve(da, v, mode)
        dz = np.convolve(a, dv, mode)


# z = convolve(a, conj(flip(v))): the adjoint in v goes through the conjugate and the flip
@primitive(np.correlate, shape=EVALUATE, fresh=True, samples=_modes("np.correlate"))
class correlate:
    def adjoint(bz, z, a, v, mode="valid"):
        ba = runtime.real_for(
            np.correlate(
                np.pad(bz, runtime.convolve_margins(a, v, mode, correlate=True)),
                np.flip(v),
                "valid",
            ),
            a,
        )
        bv = runtime.real_for(
            np.flip(
                np.correlate(
                    runtime.conj(np.pad(bz, runtime.convolve_margins(a, v, mode, correlate=True))),
                    a,
                    "valid",
                )
            ),
            v,
        )

    def tangent(dz, z, a, v, mode="valid"):
        dz = np.correlate(da, v, mode)
        dz = np.correlate(a, dv, mode)


constants(
    runtime.convolve_margins,
    shape_args={0, 1},
    samples=[Sample("np.pad(x, runtime.convolve_margins(x, x[:2], 'same'))", x=real(4))],
)


# --- polynomials ------------------------------------------------------------------------------


# z = sum of p[i] x ** (n - 1 - i): in p, x's powers weigh bz; in x, the derivative's
# coefficients (of 1-d p)
@primitive(
    np.polyval,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("np.polyval(p, x)", p=real(4), x=real(2, 3)),
        Sample("np.polyval(p, x)", p=real(3), x=number()),
        Sample("np.polyval(p, x)", p=real(1), x=real(2)),
    ],
)
class polyval:
    def adjoint(bz, z, p, x):
        bp = np.ravel(bz) @ runtime.powers(x, len(p))
        bx = bz * np.polyval(runtime.polyder(p), x)

    def tangent(dz, z, p, x):
        dz = runtime.broadcast_like(np.polyval(dp, x), z)
        dz = dx * np.polyval(runtime.polyder(p), x)


# z[i, j] = x[i] ** k[j], k the column's power (runtime.vander_powers); the slope k x ** (k - 1)
# is written with a power of at least 0, so that it is 0, not 0 / 0, for k = 0 at x = 0
@primitive(
    np.vander,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("np.vander(x)", x=real(3)),
        Sample("np.vander(x, 4, increasing=True)", x=real(2)),
        Sample("np.vander(x, 2)", x=constant(np.array([0.0, 1.5]))),
    ],
)
class vander:
    def adjoint(bz, z, x, N=None, increasing=False):
        bx = np.sum(
            bz
            * runtime.vander_powers(x, N, increasing)
            * x[:, None] ** np.maximum(runtime.vander_powers(x, N, increasing) - 1, 0),
            axis=1,
        )

    def tangent(dz, z, x, N=None, increasing=False):
        dz = (
            dx[:, None]
            * runtime.vander_powers(x, N, increasing)
            * x[:, None] ** np.maximum(runtime.vander_powers(x, N, increasing) - 1, 0)
        )


constants(
    runtime.vander_powers,
    shape_args={0},
    samples=[Sample("x * runtime.vander_powers(x, 3)[0]", x=real(3))],
)


# --- integration ------------------------------------------------------------------------------


# the sum over the axis of y weighted by half the intervals on either side
# (runtime.trapezoid_weights); linear in x too (in the widths, np.diff(x))
@primitive(
    np.trapezoid,
    *([np.trapz] if hasattr(np, "trapz") else []),
    shape=EVALUATE,
    fresh=True,
    keyword_aliases=(("dx", "spacing"),),  # (dx would name the tangent of x)
    samples=[
        Sample("np.trapezoid(y)", y=real(2, 4)),
        Sample("np.trapezoid(y, dx=h, axis=0)", y=real(4, 2), h=number()),
        Sample("np.trapezoid(y, x, axis=1)", y=real(2, 4, 3), x=real(4)),
        Sample("np.trapezoid(y, x, axis=0)", y=real(3, 2), x=real(3, 2)),
        Sample("np.trapezoid(y, x)", wrap=None, y=real(5), x=real(5)),
    ],
)
class trapezoid:
    def adjoint(bz, z, y, x=None, spacing=1.0, axis=-1):
        by = runtime.unreduce(bz, y, axis=axis) * runtime.trapezoid_weights(y, x, spacing, axis)
        bx = runtime.trapezoid_x_grad(bz, y, x, axis)
        bspacing = np.sum(bz * runtime.trapezoid_unit(y, x, axis))

    def tangent(dz, z, y, x=None, spacing=1.0, axis=-1):
        dz = np.trapezoid(dy, x, spacing, axis)
        dz = np.trapezoid(y, dx, axis=axis)
        dz = dspacing * runtime.trapezoid_unit(y, x, axis)


# --- ranges on a log scale --------------------------------------------------------------------


# base ** np.linspace(start, stop): the slope of z in start and stop is z log(base) times
# np.linspace's (runtime.linspace_grad, linspace_part); in a scalar base, z times the exponent
# over base
@primitive(
    np.logspace,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("np.logspace(a, b, 5)", a=number(), b=number()),
        Sample("np.logspace(a, 1.0, 4, base=2.0, axis=1)", a=real(3)),
        Sample("np.logspace(0.5, 1.0, 3, base=b)", b=number(1.5, 3.0)),
    ],
)
class logspace:
    def adjoint(bz, z, start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
        bstart = runtime.linspace_grad(bz * z * np.log(base), start, stop, num, endpoint, axis, 0)
        bstop = runtime.linspace_grad(bz * z * np.log(base), start, stop, num, endpoint, axis, 1)
        bbase = np.sum(bz * z * np.linspace(start, stop, num, endpoint, axis=axis) / base)

    def tangent(dz, z, start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
        dz = z * np.log(base) * runtime.linspace_part(dstart, start, stop, num, endpoint, axis, 0)
        dz = z * np.log(base) * runtime.linspace_part(dstop, start, stop, num, endpoint, axis, 1)
        dz = dbase * z * np.linspace(start, stop, num, endpoint, axis=axis) / base


# sign * exp(np.linspace(log |start|, log |stop|)): the slope in start is z times
# np.linspace's over start, and so in stop
@primitive(
    np.geomspace,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("np.geomspace(a, b, 5)", a=number(), b=number(3.0, 5.0)),
        Sample("np.geomspace(-a, -2.0, 4, axis=1)", a=positive(3)),
        Sample("np.geomspace(a, b, 3, endpoint=False)", a=number(), b=number()),
    ],
)
class geomspace:
    def adjoint(bz, z, start, stop, num=50, endpoint=True, dtype=None, axis=0):
        bstart = runtime.linspace_grad(bz * z, start, stop, num, endpoint, axis, 0) / start
        bstop = runtime.linspace_grad(bz * z, start, stop, num, endpoint, axis, 1) / stop

    def tangent(dz, z, start, stop, num=50, endpoint=True, dtype=None, axis=0):
        dz = z * runtime.linspace_part(dstart / start, start, stop, num, endpoint, axis, 0)
        dz = z * runtime.linspace_part(dstop / stop, start, stop, num, endpoint, axis, 1)


# --- differences ------------------------------------------------------------------------------


# central differences inside, one-sided ones at the ends: linear in f, so its tangent is
# itself; along one axis with one uniform spacing h (runtime.gradient_grad), z / h in h
@primitive(
    np.gradient,
    shape=EVALUATE,
    fresh=True,
    keyword_aliases=(("varargs", "spacing"),),  # (one spacing: more are an error at the call)
    samples=[
        Sample("np.gradient(f)", f=real(5)),
        Sample("np.gradient(f, 0.5, axis=1)", f=real(2, 4)),
        Sample("np.gradient(f, axis=0, edge_order=2)", f=real(4, 2)),
        Sample("np.gradient(f, h, edge_order=2)", f=real(3), h=constant(2.0)),
    ],
)
class gradient:
    def adjoint(bz, z, f, spacing=None, *, axis=None, edge_order=1):
        bf = runtime.gradient_grad(bz, f, spacing, axis, edge_order)
        bspacing = -np.sum(bz * z) / spacing

    def tangent(dz, z, f, spacing=None, *, axis=None, edge_order=1):
        dz = np.gradient(df, *runtime.spacings(spacing), axis=axis, edge_order=edge_order)
        dz = -dspacing * z / spacing


constants(runtime.spacings, samples=[Sample("x * len(runtime.spacings(0.5))", x=real(2))])


# the differences of ary flattened, between to_begin's values and to_end's
@primitive(
    np.ediff1d,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("np.ediff1d(x)", x=real(2, 3)),
        Sample("np.ediff1d(x, to_end=e, to_begin=b)", x=real(4), e=real(2), b=number()),
        Sample("np.ediff1d(x, [0.5], [1.0, 2.0])", x=real(3)),
    ],
)
class ediff1d:
    def adjoint(bz, z, ary, to_end=None, to_begin=None):
        bary = runtime.ediff1d_grad(bz, ary, to_end, to_begin)
        bto_end = np.reshape(bz[len(bz) - np.size(to_end) :], np.shape(to_end))
        bto_begin = np.reshape(bz[: np.size(to_begin)], np.shape(to_begin))

    def tangent(dz, z, ary, to_end=None, to_begin=None):
        dz = np.ediff1d(dary, runtime.zeros_or_none(to_end), runtime.zeros_or_none(to_begin))
        dz = np.concatenate([np.zeros_like(z[: len(z) - np.size(to_end)]), np.ravel(dto_end)])
        dz = np.concatenate([np.ravel(dto_begin), np.zeros_like(z[np.size(to_begin) :])])


constants(
    runtime.zeros_or_none,
    samples=[Sample("x + runtime.zeros_or_none(x)", x=real(2))],
)


# --- interpolation ----------------------------------------------------------------------------


# linear interpolation: in x, the slope of x's segment (runtime.interp_slope); linear in fp
# (runtime.interp_fp_grad) and in left and right, the values beyond the ends; in the knots
# xp, the line through a segment's ends moved with them (runtime.interp_xp_grad)
@primitive(
    np.interp,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("np.interp(x, np.linspace(-1, 1, 5), fp)", x=real(2, 3), fp=real(5)),
        Sample("np.interp(x, [0.0, 1.0, 3.0], fp)", x=number(0.1, 2.9), fp=real(3)),
        Sample(
            "np.interp(x, [-0.5, 0.5], fp, left=a, right=b)",
            x=constant(np.array([-2.0, -0.2, 0.3, 2.0])),
            fp=real(2),
            a=number(),
            b=number(),
        ),
        Sample(
            "np.interp(x, np.arange(4.0) + 0.2 * np.tanh(u), fp)",
            x=constant(np.array([[0.5, 1.4], [2.7, -1.0]])),
            u=real(4),
            fp=real(4),
        ),
    ],
)
class interp:
    def adjoint(bz, z, x, xp, fp, left=None, right=None, period=None):
        bx = bz * runtime.interp_slope(x, xp, fp, period)
        bxp = runtime.interp_xp_grad(bz, x, xp, fp, period)
        bfp = runtime.interp_fp_grad(bz, x, xp, fp, left, right, period)
        bleft = np.sum(np.where(x < xp[0], bz, 0))
        bright = np.sum(np.where(x > xp[-1], bz, 0))

    def tangent(dz, z, x, xp, fp, left=None, right=None, period=None):
        dz = dx * runtime.interp_slope(x, xp, fp, period)
        dz = runtime.interp_xp_tangent(dxp, x, xp, fp, period)
        dz = np.interp(x, xp, dfp, runtime.zeros_or_none(left), runtime.zeros_or_none(right))
        dz = np.where(x < xp[0], dleft, 0)
        dz = np.where(x > xp[-1], dright, 0)
