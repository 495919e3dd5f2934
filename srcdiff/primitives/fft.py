"""np.fft: the complex and real transforms in one, two and n dimensions, with n= / s=,
axis= / axes= and norm=, and fftshift / ifftshift. Each is linear: its tangent is itself,
its adjoint runtime.fft_vjp (the transpose; see srcdiff/runtime/fft.py). A real function of
real arguments through complex spectra gets its real gradient."""

import numpy as np

from .. import runtime
from .registry import EVALUATE, Sample, primitive
from .samples import real


def _transform(function, *samples):
    return primitive(function, shape=EVALUATE, fresh=True, samples=list(samples))


def _complex(call, x=real(4), **facts):
    """A sample of a complex argument x + 1j * y."""
    return Sample(call, x=x, y=x, **facts)


@_transform(
    np.fft.fft,
    Sample("np.fft.fft(x)", wrap="abs2", x=real(4)),
    Sample("np.fft.fft(x, n=6, axis=0, norm='ortho')", wrap="abs2", x=real(4, 2)),
    _complex("np.fft.fft(x + 1j * y, n=3, norm='forward')", wrap="abs2"),
)
class fft:
    def adjoint(bz, z, a, n=None, axis=-1, norm=None, out=None):
        ba = runtime.fft_vjp(bz, a, "fft", s=n, axes=axis, norm=norm)

    def tangent(dz, z, a, n=None, axis=-1, norm=None, out=None):
        dz = np.fft.fft(da, n=n, axis=axis, norm=norm)


@_transform(
    np.fft.ifft,
    Sample("np.fft.ifft(x)", wrap="abs2", x=real(3, 4)),
    _complex("np.fft.ifft(x + 1j * y, n=5, axis=0, norm='ortho')", wrap="abs2", x=real(4, 2)),
)
class ifft:
    def adjoint(bz, z, a, n=None, axis=-1, norm=None, out=None):
        ba = runtime.fft_vjp(bz, a, "ifft", s=n, axes=axis, norm=norm)

    def tangent(dz, z, a, n=None, axis=-1, norm=None, out=None):
        dz = np.fft.ifft(da, n=n, axis=axis, norm=norm)


# odd and even lengths, padded (n > length) and truncated (n < length)
@_transform(
    np.fft.rfft,
    Sample("np.fft.rfft(x)", wrap="abs2", x=real(5)),
    Sample("np.fft.rfft(x, n=6, norm='ortho')", wrap="abs2", x=real(2, 4)),
    Sample("np.fft.rfft(x, n=3, axis=0, norm='forward')", wrap="abs2", x=real(4, 2)),
)
class rfft:
    def adjoint(bz, z, a, n=None, axis=-1, norm=None, out=None):
        ba = runtime.fft_vjp(bz, a, "rfft", s=n, axes=axis, norm=norm)

    def tangent(dz, z, a, n=None, axis=-1, norm=None, out=None):
        dz = np.fft.rfft(da, n=n, axis=axis, norm=norm)


@_transform(
    np.fft.irfft,
    _complex("np.fft.irfft(x + 1j * y)"),
    _complex("np.fft.irfft(x + 1j * y, n=9)"),
    _complex("np.fft.irfft(x + 1j * y, n=7)"),
    _complex("np.fft.irfft(x + 1j * y, n=4, axis=0, norm='ortho')", x=real(4, 2)),
    Sample("np.fft.irfft(x, n=5, norm='forward')", x=real(2, 3)),
)
class irfft:
    def adjoint(bz, z, a, n=None, axis=-1, norm=None, out=None):
        ba = runtime.fft_vjp(bz, a, "irfft", s=n, axes=axis, norm=norm)

    def tangent(dz, z, a, n=None, axis=-1, norm=None, out=None):
        dz = np.fft.irfft(da, n=n, axis=axis, norm=norm)


@_transform(
    np.fft.fft2,
    Sample("np.fft.fft2(x)", wrap="abs2", x=real(3, 4)),
    _complex("np.fft.fft2(x + 1j * y, s=(2, 5), axes=(0, 2))", wrap="abs2", x=real(3, 2, 4)),
)
class fft2:
    def adjoint(bz, z, a, s=None, axes=(-2, -1), norm=None, out=None):
        ba = runtime.fft_vjp(bz, a, "fft2", s=s, axes=axes, norm=norm)

    def tangent(dz, z, a, s=None, axes=(-2, -1), norm=None, out=None):
        dz = np.fft.fft2(da, s=s, axes=axes, norm=norm)


@_transform(
    np.fft.ifft2,
    _complex("np.fft.ifft2(x + 1j * y, s=(4, 2), norm='ortho')", wrap="abs2", x=real(3, 3)),
)
class ifft2:
    def adjoint(bz, z, a, s=None, axes=(-2, -1), norm=None, out=None):
        ba = runtime.fft_vjp(bz, a, "ifft2", s=s, axes=axes, norm=norm)

    def tangent(dz, z, a, s=None, axes=(-2, -1), norm=None, out=None):
        dz = np.fft.ifft2(da, s=s, axes=axes, norm=norm)


@_transform(
    np.fft.fftn,
    Sample("np.fft.fftn(x)", wrap="abs2", x=real(2, 3, 2)),
    Sample("np.fft.fftn(x, s=(3, 3), axes=(2, 0), norm='forward')", wrap="abs2", x=real(2, 3, 4)),
)
class fftn:
    def adjoint(bz, z, a, s=None, axes=None, norm=None, out=None):
        ba = runtime.fft_vjp(bz, a, "fftn", s=s, axes=axes, norm=norm)

    def tangent(dz, z, a, s=None, axes=None, norm=None, out=None):
        dz = np.fft.fftn(da, s=s, axes=axes, norm=norm)


@_transform(
    np.fft.ifftn,
    _complex("np.fft.ifftn(x + 1j * y, axes=(0, 1))", wrap="abs2", x=real(2, 3, 2)),
    Sample("np.fft.ifftn(x, s=(2, 4), axes=(0, 1))", wrap="abs2", x=real(3, 3)),
)
class ifftn:
    def adjoint(bz, z, a, s=None, axes=None, norm=None, out=None):
        ba = runtime.fft_vjp(bz, a, "ifftn", s=s, axes=axes, norm=norm)

    def tangent(dz, z, a, s=None, axes=None, norm=None, out=None):
        dz = np.fft.ifftn(da, s=s, axes=axes, norm=norm)


@_transform(
    np.fft.rfft2,
    Sample("np.fft.rfft2(x)", wrap="abs2", x=real(3, 5)),
    Sample("np.fft.rfft2(x, s=(2, 6), norm='ortho')", wrap="abs2", x=real(2, 3, 4)),
)
class rfft2:
    def adjoint(bz, z, a, s=None, axes=(-2, -1), norm=None, out=None):
        ba = runtime.fft_vjp(bz, a, "rfft2", s=s, axes=axes, norm=norm)

    def tangent(dz, z, a, s=None, axes=(-2, -1), norm=None, out=None):
        dz = np.fft.rfft2(da, s=s, axes=axes, norm=norm)


@_transform(
    np.fft.irfft2,
    _complex("np.fft.irfft2(x + 1j * y)", x=real(3, 3)),
    _complex("np.fft.irfft2(x + 1j * y, s=(4, 5), norm='forward')", x=real(3, 3)),
)
class irfft2:
    def adjoint(bz, z, a, s=None, axes=(-2, -1), norm=None, out=None):
        ba = runtime.fft_vjp(bz, a, "irfft2", s=s, axes=axes, norm=norm)

    def tangent(dz, z, a, s=None, axes=(-2, -1), norm=None, out=None):
        dz = np.fft.irfft2(da, s=s, axes=axes, norm=norm)


@_transform(
    np.fft.rfftn,
    Sample("np.fft.rfftn(x)", wrap="abs2", x=real(2, 3, 3)),
    Sample("np.fft.rfftn(x, s=(4, 3), axes=(0, 2))", wrap="abs2", x=real(3, 2, 4)),
)
class rfftn:
    def adjoint(bz, z, a, s=None, axes=None, norm=None, out=None):
        ba = runtime.fft_vjp(bz, a, "rfftn", s=s, axes=axes, norm=norm)

    def tangent(dz, z, a, s=None, axes=None, norm=None, out=None):
        dz = np.fft.rfftn(da, s=s, axes=axes, norm=norm)


@_transform(
    np.fft.irfftn,
    _complex("np.fft.irfftn(x + 1j * y, axes=(0, 1), norm='ortho')", x=real(3, 2, 2)),
    _complex("np.fft.irfftn(x + 1j * y, s=(2, 3), axes=(0, 1))", x=real(3, 3)),
)
class irfftn:
    def adjoint(bz, z, a, s=None, axes=None, norm=None, out=None):
        ba = runtime.fft_vjp(bz, a, "irfftn", s=s, axes=axes, norm=norm)

    def tangent(dz, z, a, s=None, axes=None, norm=None, out=None):
        dz = np.fft.irfftn(da, s=s, axes=axes, norm=norm)


@primitive(
    np.fft.fftshift,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("np.fft.fftshift(x)", x=real(5)),
        Sample("np.fft.fftshift(x, axes=0)", x=real(3, 4)),
    ],
)
class fftshift:
    def adjoint(bz, z, x, axes=None):
        bx = np.fft.ifftshift(bz, axes=axes)

    def tangent(dz, z, x, axes=None):
        dz = np.fft.fftshift(dx, axes=axes)


@primitive(
    np.fft.ifftshift,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("np.fft.ifftshift(x)", x=real(2, 5)),
        Sample("np.fft.ifftshift(x, axes=(1,))", x=real(3, 5)),
    ],
)
class ifftshift:
    def adjoint(bz, z, x, axes=None):
        bx = np.fft.fftshift(bz, axes=axes)

    def tangent(dz, z, x, axes=None):
        dz = np.fft.ifftshift(dx, axes=axes)
