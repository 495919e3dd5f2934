"""Emitted code's runtime for np.fft: the adjoint of each transform (fft_vjp), which the
templates of srcdiff/primitives/fft.py call; the tangent of a transform is the transform.
Plain differentiable numpy, which srcdiff differentiates through its source again (as
runtime/linalg.py).

Every transform is linear, so its adjoint is its transpose, not conjugated (autograd's
convention for complex values), and a real input keeps the real part (runtime.real_for).
The DFT matrix is symmetric: the transpose of fftn is fftn with the same norm, after the
padding or truncation to `s` is undone. rfftn is fftn of a real input keeping the first half
of the last axis: its transpose pads that half with zeros, transforms and keeps the real
part. irfftn is the real part of the inverse transform of the Hermitian extension of the half
spectrum, each frequency but the zeroth (and the middle one of an even length) counted twice:
its transpose is the inverse transform with those weights."""

import numpy as np

from .core import real_for

# name: (transform of the same kind over any axes, default axes: None for all)
_KINDS = {
    "fft": ("fft", (-1,)),
    "ifft": ("ifft", (-1,)),
    "rfft": ("rfft", (-1,)),
    "irfft": ("irfft", (-1,)),
    "fft2": ("fft", (-2, -1)),
    "ifft2": ("ifft", (-2, -1)),
    "rfft2": ("rfft", (-2, -1)),
    "irfft2": ("irfft", (-2, -1)),
    "fftn": ("fft", None),
    "ifftn": ("ifft", None),
    "rfftn": ("rfft", None),
    "irfftn": ("irfft", None),
}


def fft_plan(shape, name, s=None, axes=None):
    """(kind, lengths, axes) of np.fft.<name>(x, s, axes) for an x of `shape`, numpy's
    defaults filled in: the transform's length along each of its axes."""
    kind, default = _KINDS[name]
    if name == kind:  # a 1-D transform: n= and axis=
        axes, s = (-1 if axes is None else axes,), None if s is None else (s,)
    if axes is None:
        axes = (
            default if default is not None else tuple(range(-len(s if s is not None else shape), 0))
        )
    axes = tuple(a % len(shape) for a in axes)
    if s is None:
        s = tuple(shape[a] for a in axes)
        if kind == "irfft":
            s = s[:-1] + (2 * (s[-1] - 1),)
    return kind, tuple(s), axes


def fit_plan(shape, target, axes):
    """(index, pad widths): what truncates and zero-pads an array of `shape` to the lengths
    of `target` along `axes`."""
    index, widths = [slice(None)] * len(shape), [(0, 0)] * len(shape)
    for axis in axes:
        length = target[axis]
        index[axis] = slice(0, min(length, shape[axis]))
        widths[axis] = (0, max(length - shape[axis], 0))
    return tuple(index), tuple(widths)


def hermitian_weights(length, count, ndim, axis, dtype):
    """How often irfft counts each of the `count` frequencies of its half spectrum (of a
    transform of `length`), shaped to broadcast along `axis`."""
    weights = np.full(count, 2.0, dtype=dtype)
    weights[0] = 1
    if length % 2 == 0 and length // 2 < count:
        weights[length // 2] = 1
    return np.reshape(weights, [count if k == axis else 1 for k in range(ndim)])


def _fit(y, shape, axes):
    """y truncated or zero-padded along `axes` to the lengths `shape` has there."""
    index, widths = fit_plan(np.shape(y), shape, axes)
    return np.pad(y[index], widths)


def fft_vjp(g, x, name, s=None, axes=None, norm=None):
    """The adjoint, for x, of np.fft.<name>(x, s, axes, norm) (n= and axis= for the 1-D
    transforms), given g, that of its result."""
    kind, lengths, axes = fft_plan(np.shape(x), name, s, axes)
    if kind == "fft":
        return real_for(_fit(np.fft.fftn(g, axes=axes, norm=norm), np.shape(x), axes), x)
    if kind == "ifft":
        return real_for(_fit(np.fft.ifftn(g, axes=axes, norm=norm), np.shape(x), axes), x)
    if kind == "rfft":
        return np.real(_fit(np.fft.fftn(g, s=lengths, axes=axes, norm=norm), np.shape(x), axes))
    last, count = axes[-1], lengths[-1] // 2 + 1
    half = _fit(
        np.fft.ifftn(g, axes=axes, norm=norm),
        np.shape(g)[:last] + (count,) + np.shape(g)[last + 1 :],
        axes[-1:],
    )
    weights = hermitian_weights(lengths[-1], count, np.ndim(g), last, np.real(half).dtype)
    return real_for(_fit(half * weights, np.shape(x), axes), x)
