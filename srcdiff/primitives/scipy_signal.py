"""SciPy's convolution and correlation (scipy.signal.convolve, correlate) of real arrays of
any dimension, in the modes full, same and valid, declared once the program imports
scipy.signal (optional.py), and the runtime helpers their templates call.

Each mode keeps a window of the full result (runtime.crop), so an adjoint puts bz back in
place in zeros of the full size (runtime.uncrop) and correlates it with the other operand
('valid': the window where the operand fits). correlate(a, b) is convolve(a, flipped b)."""

import numpy as np
import scipy.signal

from .. import runtime
from .registry import EVALUATE, Sample, primitive
from .samples import constant, real


def _modes(call, a=real(7), b=real(3)):
    """Samples in every mode, 1-d with either operand the larger, and 2-d."""
    samples = [
        Sample(f"{call}(a, b, mode='{mode}')", a=a, b=b) for mode in ("full", "same", "valid")
    ]
    return samples + [
        Sample(f"{call}(a, b)", a=real(3), b=real(5)),
        Sample(f"{call}(a, b, mode='same')", a=real(3), b=real(4)),
        Sample(f"{call}(a, b, 'valid')", a=real(4, 5), b=real(2, 3)),
    ]


@primitive(
    scipy.signal.convolve, shape=EVALUATE, fresh=True, samples=_modes("scipy.signal.convolve")
)
class convolve:
    def adjoint(bz, z, in1, in2, mode="full", method="auto"):
        bin1 = scipy.signal.correlate(runtime.uncrop(bz, in1, in2, mode=mode), in2, mode="valid")
        bin2 = scipy.signal.correlate(runtime.uncrop(bz, in1, in2, mode=mode), in1, mode="valid")

    def tangent(dz, z, in1, in2, mode="full", method="auto"):
        dz = scipy.signal.convolve(din1, in2, mode=mode)
        dz = scipy.signal.convolve(in1, din2, mode=mode)


@primitive(
    scipy.signal.correlate, shape=EVALUATE, fresh=True, samples=_modes("scipy.signal.correlate")
)
class correlate:
    def adjoint(bz, z, in1, in2, mode="full", method="auto"):
        bin1 = scipy.signal.convolve(runtime.uncrop(bz, in1, in2, mode=mode), in2, mode="valid")
        bin2 = np.flip(
            scipy.signal.correlate(runtime.uncrop(bz, in1, in2, mode=mode), in1, mode="valid")
        )

    def tangent(dz, z, in1, in2, mode="full", method="auto"):
        dz = scipy.signal.correlate(din1, in2, mode=mode)
        dz = scipy.signal.correlate(in1, din2, mode=mode)


_SHAPES = dict(in1=real(5, 4), in2=real(2, 3), constant=("in1", "in2"))


@primitive(
    runtime.crop,
    constant=("in1", "in2"),
    shape_args={1, 2},
    view=True,
    shape=EVALUATE,
    samples=[
        Sample("runtime.crop(h, in1, in2, mode='same')", h=real(6, 6), **_SHAPES),
        Sample("runtime.crop(h, in1, in2, 'valid')", h=real(6, 6), **_SHAPES),
    ],
)
class crop:
    def adjoint(bz, z, h, in1, in2, mode="full"):
        bh = runtime.uncrop(bz, in1, in2, mode=mode)

    def tangent(dz, z, h, in1, in2, mode="full"):
        dz = runtime.crop(dh, in1, in2, mode=mode)


@primitive(
    runtime.uncrop,
    constant=("in1", "in2"),
    shape_args={1, 2},
    fresh=True,
    shape=EVALUATE,
    samples=[
        Sample("runtime.uncrop(g, in1, in2, mode='same')", g=real(5, 4), **_SHAPES),
        Sample(
            "runtime.uncrop(g, in1, in2, mode=mode)",
            g=real(4, 2),
            mode=constant("valid"),
            **_SHAPES,
        ),
    ],
)
class uncrop:
    def adjoint(bz, z, g, in1, in2, mode="full"):
        bg = runtime.crop(bz, in1, in2, mode=mode)

    def tangent(dz, z, g, in1, in2, mode="full"):
        dz = runtime.uncrop(dg, in1, in2, mode=mode)
