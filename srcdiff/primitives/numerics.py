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
from .samples import constant, number, real


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
