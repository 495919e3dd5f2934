"""`check_grads`: reverse mode, forward mode and finite differences, side by side."""

import numpy as np

from .api import jvp
from .composed import vjp


def numerical_grad(f, args, wrt=0, eps=1e-6):
    """Central finite differences of scalar f with respect to args[wrt], in float64."""
    args = list(args)
    scalar = isinstance(args[wrt], float)
    x = np.array(args[wrt], dtype=np.float64)
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        for sign in (1.0, -1.0):
            shifted = x.copy()
            shifted[index] += sign * eps
            args[wrt] = float(shifted) if scalar else shifted
            grad[index] += sign * float(f(*args)) / (2 * eps)
    return float(grad) if scalar else grad


def _float_positions(args):
    return tuple(
        i
        for i, a in enumerate(args)
        if isinstance(a, float) or (isinstance(a, np.ndarray) and a.dtype.kind == "f")
    )


def _random_like(x, rng):
    return float(rng.normal()) if isinstance(x, float) else rng.normal(size=np.shape(x))


def _inner(a, b):
    if isinstance(a, (tuple, list)):
        return sum(_inner(x, y) for x, y in zip(a, b))
    return float(np.sum(np.asarray(a, dtype=np.float64) * np.asarray(b, dtype=np.float64)))


def _shift(args, wrt, direction, eps):
    shifted = list(args)
    for i, d in zip(wrt, direction):
        shifted[i] = args[i] + eps * d
    return shifted


class GradCheckReport:
    """What check_grads measured: one row per random direction."""

    def __init__(self, name, rows, rtol, atol):
        self.name, self.rows, self.rtol, self.atol = name, rows, rtol, atol

    @property
    def ok(self):
        return all(self._agree(r) for r in self.rows)

    def _agree(self, row):
        fd, forward, reverse = row
        scale = self.atol + self.rtol * max(abs(fd), abs(forward), abs(reverse))
        return abs(forward - fd) <= scale and abs(reverse - fd) <= scale

    def __str__(self):
        lines = [
            f"check_grads({self.name}): <u, J v> along {len(self.rows)} random directions",
            f"{'direction':>9}  {'finite diff':>14}  {'forward (jvp)':>14}  "
            f"{'reverse (vjp)':>14}  agree",
        ]
        for k, row in enumerate(self.rows):
            lines.append(
                f"{k:>9}  {row[0]:>14.8g}  {row[1]:>14.8g}  {row[2]:>14.8g}  "
                f"{'yes' if self._agree(row) else 'NO'}"
            )
        lines.append(
            "all agree" if self.ok else f"MISMATCH beyond rtol={self.rtol}, atol={self.atol}"
        )
        return "\n".join(lines)


def check_grads(
    f, *args, wrt=None, directions=3, eps=1e-6, rtol=1e-5, atol=1e-8, seed=0, verbose=False
):
    """Compare srcdiff's reverse mode (vjp), forward mode (jvp) and central finite differences
    of `f` at `args` along random directions v (and random output weights u): the three
    numbers <u, J v> must agree. Raises AssertionError with the report when they do not;
    returns the report otherwise. Use it after registering a custom adjoint or tangent."""
    rng = np.random.default_rng(seed)
    wrt = (
        _float_positions(args) if wrt is None else ((wrt,) if isinstance(wrt, int) else tuple(wrt))
    )
    forward = jvp(f, wrt=wrt)
    out, pullback = vjp(f, wrt=wrt)(*args)
    rows = []
    for _ in range(directions):
        v = tuple(_random_like(args[i], rng) for i in wrt)
        u = (
            tuple(_random_like(o, rng) for o in out)
            if isinstance(out, tuple)
            else _random_like(out, rng)
        )
        fd = (
            _inner(u, f(*_shift(args, wrt, v, eps))) - _inner(u, f(*_shift(args, wrt, v, -eps)))
        ) / (2 * eps)
        _, tangent = forward(*args, v)
        cotangent = pullback(u)
        cotangent = cotangent if isinstance(cotangent, tuple) else (cotangent,)
        rows.append((fd, _inner(u, tangent), _inner(v, cotangent)))
    report = GradCheckReport(getattr(f, "__name__", "f"), rows, rtol, atol)
    if verbose:
        print(report)
    if not report.ok:
        raise AssertionError(str(report))
    return report
