"""The tangent (forward-mode) template of every built-in primitive (see `template.py`).

`dz = <expression of dx>` is the part of the output's tangent that comes from argument x;
the forward transform sums the parts of the arguments that carry tangents.
"""
import builtins
import operator

import numpy as np

from . import runtime  # noqa: F401  (templates name it)
from .adjoints import copy_value
from .template import tangent

# --- arithmetic -------------------------------------------------------------------------------


@tangent(np.add)
def add(dz, z, x1, x2):
    dz = runtime.broadcast_like(dx1, z)
    dz = runtime.broadcast_like(dx2, z)


@tangent(np.subtract)
def subtract(dz, z, x1, x2):
    dz = runtime.broadcast_like(dx1, z)
    dz = runtime.broadcast_like(-dx2, z)


@tangent(np.multiply)
def multiply(dz, z, x1, x2):
    dz = dx1 * x2
    dz = x1 * dx2


@tangent(np.true_divide)
def true_divide(dz, z, x1, x2):
    dz = dx1 / x2
    dz = -dx2 * z / x2


@tangent(np.power)
def power(dz, z, x1, x2):
    dz = dx1 * x2 * x1 ** (x2 - 1)
    dz = dx2 * z * np.log(x1)


@tangent(np.matmul)
def matmul(dz, z, x1, x2):
    dz = dx1 @ x2
    dz = x1 @ dx2


@tangent(np.negative)
def negative(dz, z, x):
    dz = -dx


@tangent(np.maximum)
def maximum(dz, z, x1, x2):
    dz = runtime.winner_share(dx1, x1, x2)
    dz = runtime.winner_share(dx2, x2, x1)


@tangent(np.minimum)
def minimum(dz, z, x1, x2):
    dz = runtime.winner_share(dx1, x2, x1)
    dz = runtime.winner_share(dx2, x1, x2)


@tangent(copy_value, np.copy)
def copy_(dz, z, a):
    dz = da


@tangent(builtins.float)
def float_(dz, z, x):
    dz = dx


# --- elementwise functions --------------------------------------------------------------------

@tangent(np.exp)
def exp(dz, z, x):
    dz = dx * z


@tangent(np.log)
def log(dz, z, x):
    dz = dx / x


@tangent(np.log1p)
def log1p(dz, z, x):
    dz = dx / (1 + x)


@tangent(np.expm1)
def expm1(dz, z, x):
    dz = dx * (z + 1)


@tangent(np.sqrt)
def sqrt(dz, z, x):
    dz = dx / (2 * z)


@tangent(np.square)
def square(dz, z, x):
    dz = 2 * x * dx


@tangent(np.sin)
def sin(dz, z, x):
    dz = dx * np.cos(x)


@tangent(np.cos)
def cos(dz, z, x):
    dz = -dx * np.sin(x)


@tangent(np.tan)
def tan(dz, z, x):
    dz = dx * (1 + z * z)


@tangent(np.tanh)
def tanh(dz, z, x):
    dz = dx * (1 - z * z)


@tangent(np.arctan)
def arctan(dz, z, x):
    dz = dx / (1 + x * x)


@tangent(np.sinh)
def sinh(dz, z, x):
    dz = dx * np.cosh(x)


@tangent(np.cosh)
def cosh(dz, z, x):
    dz = dx * np.sinh(x)


@tangent(np.abs)
def abs_(dz, z, x):
    dz = dx * np.sign(x)


@tangent(np.clip)
def clip(dz, z, a, a_min, a_max):
    dz = da * ((a >= a_min) & (a <= a_max))
    dz = da_min * (a < a_min)
    dz = da_max * (a > a_max)


@tangent(np.where)
def where(dz, z, condition, x, y):
    dz = np.where(condition, dx, 0)
    dz = np.where(condition, 0, dy)


# --- reductions -------------------------------------------------------------------------------

@tangent(np.sum)
def sum_(dz, z, a, axis=None, dtype=None, keepdims=False):
    dz = np.sum(da, axis=axis, keepdims=keepdims)


@tangent(np.mean)
def mean(dz, z, a, axis=None, dtype=None, keepdims=False):
    dz = np.mean(da, axis=axis, keepdims=keepdims)


@tangent(np.var)
def var(dz, z, a, axis=None, dtype=None, ddof=0, keepdims=False):
    dz = np.sum(runtime.var_grad(1.0, a, axis=axis, ddof=ddof, keepdims=True) * da, axis=axis,
                keepdims=keepdims)


@tangent(np.std)
def std(dz, z, a, axis=None, dtype=None, ddof=0, keepdims=False):
    dz = np.sum(runtime.var_grad(1.0, a, axis=axis, ddof=ddof, keepdims=True) * da, axis=axis,
                keepdims=keepdims) / (2 * z)


@tangent(np.max, np.amax, np.min, np.amin)
def extremum(dz, z, a, axis=None, keepdims=False):
    dz = np.sum(runtime.extremum_grad(np.ones_like(z), z, a, axis=axis, keepdims=keepdims) * da,
                axis=axis, keepdims=keepdims)


@tangent(np.prod)
def prod(dz, z, a, axis=None, dtype=None, keepdims=False):
    dz = np.sum(runtime.prod_grad(1.0, a, axis=axis, keepdims=True) * da, axis=axis,
                keepdims=keepdims)


@tangent(np.linalg.norm)
def norm(dz, z, x, ord=None, axis=None, keepdims=False):
    dz = np.sum(runtime.norm_grad(np.ones_like(z), z, x, ord=ord, axis=axis,
                                  keepdims=keepdims) * dx,
                axis=axis, keepdims=keepdims)


# --- products ---------------------------------------------------------------------------------

@tangent(np.dot)
def dot(dz, z, a, b):
    dz = np.dot(da, b)
    dz = np.dot(a, db)


@tangent(np.tensordot)
def tensordot(dz, z, a, b, axes=2):
    dz = np.tensordot(da, b, axes)
    dz = np.tensordot(a, db, axes)


@tangent(np.einsum)
def einsum(dz, z, subscripts, *operands, optimize=False):
    dz[i] = np.einsum(subscripts, *runtime.replace_at(operands, i, doperands[i]), optimize=True)


@tangent(np.outer)
def outer(dz, z, a, b):
    dz = np.outer(da, b)
    dz = np.outer(a, db)


# --- shape ------------------------------------------------------------------------------------

@tangent(np.transpose)
def transpose(dz, z, a, axes=None):
    dz = np.transpose(da, axes)


@tangent(np.reshape)
def reshape(dz, z, a, shape, order="C"):
    dz = np.reshape(da, np.shape(z))


@tangent(np.ravel)
def ravel(dz, z, a, order="C"):
    dz = np.reshape(da, np.shape(z))


@tangent(np.squeeze)
def squeeze(dz, z, a, axis=None):
    dz = np.reshape(da, np.shape(z))


@tangent(np.expand_dims)
def expand_dims(dz, z, a, axis):
    dz = np.reshape(da, np.shape(z))


@tangent(np.broadcast_to)
def broadcast_to(dz, z, array, shape):
    dz = np.broadcast_to(darray, np.shape(z))


@tangent(np.concatenate)
def concatenate(dz, z, arrays, axis=0):
    dz = np.concatenate(darrays, axis=axis)


@tangent(np.stack)
def stack(dz, z, arrays, axis=0):
    dz = np.stack(darrays, axis=axis)


@tangent(np.split)
def split(dz, z, ary, indices_or_sections, axis=0):
    dz = np.split(dary, indices_or_sections, axis=axis)


@tangent(np.pad)
def pad(dz, z, array, pad_width, mode="constant", constant_values=0):
    dz = runtime.pad_tangent(darray, pad_width, mode=mode)


@tangent(np.lib.stride_tricks.sliding_window_view)
def sliding_window_view(dz, z, x, window_shape, axis=None):
    dz = np.lib.stride_tricks.sliding_window_view(dx, window_shape, axis=axis)


@tangent(operator.getitem)
def getitem(dz, z, a, b):
    dz = da[b]
