"""What the specialisation rewrites of runtime helpers are written with: reading the abstract
values shapes.py infers, and building the numpy expressions that replace a helper's call."""

import gast
import numpy as np

from .. import ir
from ..runtime.core import _weak_spread_dtype
from ..shapes import Const, EitherScalar, ShapeOf, Typed, widen


def literal(value):
    if isinstance(value, tuple):
        return gast.Tuple(elts=[literal(v) for v in value], ctx=gast.Load())
    return ir.const(value)


def axes_literal(axes):
    return literal(axes[0] if len(axes) == 1 else tuple(axes))


def dtype_literal(dtype):
    named = getattr(np, dtype.name, None)
    if named is not None and np.dtype(named) == dtype and dtype.name.isidentifier():
        return ir.attr("np", dtype.name)
    return None


_SHAPED = (Typed, EitherScalar, ShapeOf)


def shape(value):
    value = widen(value)
    return value.shape if isinstance(value, _SHAPED) else None


def dtype_kind(value):
    value = widen(value)
    return value.dtype.kind if isinstance(value, _SHAPED) else None


def is_float(value):
    """isinstance(x, float) holds at run time: a Python float or a numpy float64 scalar."""
    value = widen(value)
    if isinstance(value, EitherScalar):
        return value.dtype == np.dtype(float)
    return isinstance(value, Typed) and issubclass(value.type, float)


def is_array(value):
    return isinstance(value, Typed) and value.is_array


def reduced_shape(shape_, axis, keepdims):
    """The keepdims shape of reducing `shape_` over `axis` (a Const value)."""
    ndim = len(shape_)
    axes = range(ndim) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    axes = {a % ndim for a in axes}
    return tuple(1 if i in axes else n for i, n in enumerate(shape_))


def spread(g_node, g, x, axis, keepdims):
    """np.broadcast_to(g, x.shape) with g first given keepdims form: what unreduce does."""
    xs = shape(x)
    if xs is None or not isinstance(axis, Const) or not isinstance(keepdims, Const):
        return None
    g = widen(g)
    if not isinstance(g, (Typed, EitherScalar)) or _weakly_cast(g, x):
        return None
    if xs == () and g.shape != ():  # (scipy keeps a 0-d x's dimension as 1-d)
        g_node = ir.call("np.reshape", g_node, literal(()))
    elif not keepdims.value and g.shape != ():
        g_node = ir.call("np.reshape", g_node, literal(reduced_shape(xs, axis.value, False)))
    return ir.call("np.broadcast_to", g_node, literal(xs))


def _weakly_cast(g, x):
    """Whether unreduce makes Python number g an array of x's dtype, not of g's own (1.0 over
    a float32 x: float32, as numpy's arithmetic would), which np.broadcast_to(g) would not."""
    python = isinstance(g, EitherScalar) or g.type in (int, float, complex)
    x_dtype = getattr(widen(x), "dtype", None)
    number = g.dtype.type(0).item()
    return python and (x_dtype is None or _weak_spread_dtype(number, x_dtype) != g.dtype)
