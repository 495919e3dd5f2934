"""The tangent (forward-mode) template of every built-in primitive (see `template.py`).

`dz = <expression of dx>` is the part of the output's tangent that comes from argument x;
the forward transform sums the parts of the arguments that carry tangents.
"""
import builtins
import operator

import numpy as np

from . import runtime  # noqa: F401  (templates name it)
from .adjoints import as_list, as_tuple, astype, c_, copy_value, r_
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
    dz = dx1 * runtime.power_slope(x1, x2)
    dz = dx2 * z * runtime.log_or_zero(x1)


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


@tangent(np.arcsin)
def arcsin(dz, z, x):
    dz = dx / np.sqrt(1 - x * x)


@tangent(np.arccos)
def arccos(dz, z, x):
    dz = -dx / np.sqrt(1 - x * x)


@tangent(np.log2)
def log2(dz, z, x):
    dz = dx / (x * 0.6931471805599453)


@tangent(np.log10)
def log10(dz, z, x):
    dz = dx / (x * 2.302585092994046)


@tangent(np.reciprocal)
def reciprocal(dz, z, x):
    dz = -dx * z * z


@tangent(np.logaddexp)
def logaddexp(dz, z, x1, x2):
    dz = dx1 * np.exp(x1 - z)
    dz = dx2 * np.exp(x2 - z)


@tangent(astype)
def astype_(dz, z, a, dtype):
    dz = runtime.cast_grad(da, z, z)


@tangent(np.asarray, np.asanyarray)
def asarray(dz, z, a, dtype=None):
    dz = runtime.cast_grad(np.asarray(da), z, z)


@tangent(np.array)
def array(dz, z, object, dtype=None):  # noqa: A002  (numpy's name for it)
    dz = runtime.cast_grad(np.asarray(dobject), z, z)


@tangent(np.abs, builtins.abs)
def abs_(dz, z, x):
    dz = runtime.real(runtime.divide_or_zero(dx * runtime.conj(x), z))


@tangent(np.real)
def real(dz, z, val):
    dz = np.real(dval)


@tangent(np.imag)
def imag(dz, z, val):
    dz = np.imag(dval)


@tangent(np.conj, np.conjugate)
def conj(dz, z, x):
    dz = np.conj(dx)


@tangent(np.clip)
def clip(dz, z, a, a_min, a_max):
    dz = da * runtime.within(a, a_min, a_max)
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
    dz = runtime.divide_or_zero(np.sum(runtime.var_grad(1.0, a, axis=axis, ddof=ddof,
                                                        keepdims=True) * da,
                                       axis=axis, keepdims=keepdims), 2 * z)


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

@tangent(np.cumsum)
def cumsum(dz, z, a, axis=None, dtype=None):
    dz = np.cumsum(da, axis=axis)


@tangent(np.linalg.inv)
def inv(dz, z, a):
    dz = -z @ da @ z


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
    dz = np.reshape(da, np.shape(z), order=order)


@tangent(np.ravel)
def ravel(dz, z, a, order="C"):
    dz = np.reshape(da, np.shape(z), order=order)


@tangent(np.squeeze)
def squeeze(dz, z, a, axis=None):
    dz = np.reshape(da, np.shape(z))


@tangent(np.expand_dims)
def expand_dims(dz, z, a, axis):
    dz = np.reshape(da, np.shape(z))


@tangent(np.flip)
def flip(dz, z, m, axis=None):
    dz = np.flip(dm, axis)


@tangent(np.swapaxes)
def swapaxes(dz, z, a, axis1, axis2):
    dz = np.swapaxes(da, axis1, axis2)


@tangent(np.broadcast_to)
def broadcast_to(dz, z, array, shape):
    dz = np.broadcast_to(darray, np.shape(z))


@tangent(np.concatenate)
def concatenate(dz, z, arrays, axis=0):
    dz = np.concatenate(darrays, axis=axis)


@tangent(as_list)
def as_list_(dz, z, items):
    dz = list(ditems)


@tangent(as_tuple)
def as_tuple_(dz, z, items):
    dz = tuple(ditems)


@tangent(builtins.sum)
def sum_builtin(dz, z, iterable, start=0):
    dz = runtime.broadcast_like(sum(diterable), z)
    dz = runtime.broadcast_like(dstart, z)


@tangent(r_)
def r_tangent(dz, z, *items):
    dz = np.r_[tuple(ditems)]


@tangent(c_)
def c_tangent(dz, z, *items):
    dz = np.c_[tuple(ditems)]


@tangent(np.linspace)
def linspace(dz, z, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    dz = runtime.linspace_part(dstart, start, stop, num, endpoint, axis, 0)
    dz = runtime.linspace_part(dstop, start, stop, num, endpoint, axis, 1)


@tangent(np.full)
def full(dz, z, shape, fill_value, dtype=None, order="C"):
    dz = runtime.broadcast_like(dfill_value, z)


@tangent(np.full_like, constant=("a",))
def full_like(dz, z, a, fill_value, dtype=None, order="K", subok=True, shape=None):
    dz = runtime.broadcast_like(dfill_value, z)


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


# --- the runtime helpers emitted gradients call (forward-over-reverse: hvp, hessian) ----------
# Each is linear in its adjoint argument g; matmul_grad and friends are also linear in the
# operand they do not differentiate, and do not depend on the one they do.

@tangent(runtime.as_grad, constant=('x',))
def as_grad(dz, z, g, x):
    dz = runtime.as_grad(dg, x)


@tangent(runtime.unbroadcast, constant=('x',))
def unbroadcast(dz, z, g, x):
    dz = runtime.unbroadcast(dg, x)


@tangent(runtime.broadcast_like, constant=('like',))
def broadcast_like(dz, z, d, like):
    dz = runtime.broadcast_like(dd, like)


@tangent(runtime.reverse_cumsum, constant=("like",))
def reverse_cumsum(dz, z, g, like, axis=None):
    dz = runtime.reverse_cumsum(dg, like, axis=axis)


@tangent(runtime.cast_grad, constant=("z", "x"))
def cast_grad(dout, out, g, z, x):
    dout = runtime.cast_grad(dg, z, x)


@tangent(runtime.unreduce, constant=('x',))
def unreduce(dz, z, g, x, axis=None, keepdims=False):
    dz = runtime.unreduce(dg, x, axis=axis, keepdims=keepdims)


@tangent(runtime.mean_grad, constant=('x',))
def mean_grad(dz, z, g, x, axis=None, keepdims=False):
    dz = runtime.mean_grad(dg, x, axis=axis, keepdims=keepdims)


@tangent(runtime.var_grad)
def var_grad(dz, z, g, x, axis=None, ddof=0, keepdims=False):
    dz = runtime.var_grad(dg, x, axis=axis, ddof=ddof, keepdims=keepdims)
    dz = runtime.var_grad(g, dx, axis=axis, ddof=ddof, keepdims=keepdims)


@tangent(runtime.extremum_grad, constant=('peak', 'x'))
def extremum_grad(dz, z, g, peak, x, axis=None, keepdims=False):
    dz = runtime.extremum_grad(dg, peak, x, axis=axis, keepdims=keepdims)


@tangent(runtime.winner_share, constant=('x', 'other'))
def winner_share(dz, z, g, x, other):
    dz = runtime.winner_share(dg, x, other)


@tangent(runtime.matmul_grad)
def matmul_grad(dz, z, g, a, b, wrt):
    dz = runtime.matmul_grad(dg, a, b, wrt)
    dz = runtime.unless_wrt(wrt, 0, runtime.matmul_grad, g, da, b, wrt)
    dz = runtime.unless_wrt(wrt, 1, runtime.matmul_grad, g, a, db, wrt)


@tangent(runtime.dot_grad)
def dot_grad(dz, z, g, a, b, wrt):
    dz = runtime.dot_grad(dg, a, b, wrt)
    dz = runtime.unless_wrt(wrt, 0, runtime.dot_grad, g, da, b, wrt)
    dz = runtime.unless_wrt(wrt, 1, runtime.dot_grad, g, a, db, wrt)


@tangent(runtime.outer_grad)
def outer_grad(dz, z, g, a, b, wrt):
    dz = runtime.outer_grad(dg, a, b, wrt)
    dz = runtime.unless_wrt(wrt, 0, runtime.outer_grad, g, da, b, wrt)
    dz = runtime.unless_wrt(wrt, 1, runtime.outer_grad, g, a, db, wrt)


@tangent(runtime.tensordot_grad)
def tensordot_grad(dz, z, g, a, b, axes, wrt):
    dz = runtime.tensordot_grad(dg, a, b, axes, wrt)
    dz = runtime.unless_wrt(wrt, 0, runtime.tensordot_grad, g, da, b, axes, wrt)
    dz = runtime.unless_wrt(wrt, 1, runtime.tensordot_grad, g, a, db, axes, wrt)


@tangent(runtime.einsum_grad)
def einsum_grad(dz, z, g, subscripts, operands, wrt):
    dz = runtime.einsum_grad(dg, subscripts, operands, wrt)
    dz[i] = runtime.unless_wrt(wrt, i, runtime.einsum_grad, g, subscripts,
                               runtime.replace_at(operands, i, doperands[i]), wrt)


@tangent(runtime.getitem_grad, constant=('x',))
def getitem_grad(dz, z, g, x, index):
    dz = runtime.getitem_grad(dg, x, index)


@tangent(runtime.add_at, constant=("x",))
def add_at(dz, z, bx, x, index, g):
    dz = dbx
    dz = runtime.getitem_grad(dg, x, index)


@tangent(runtime.zero_at)
def zero_at(dz, z, g, index):
    dz = runtime.zero_at(dg, index)


@tangent(runtime.written)
def written(dz, z, g, index):
    dz = runtime.written(dg, index)


@tangent(runtime.untranspose)
def untranspose(dz, z, g, axes=None):
    dz = runtime.untranspose(dg, axes=axes)


@tangent(runtime.unconcatenate, constant=('arrays',))
def unconcatenate(dz, z, g, arrays, index, axis=0):
    dz = runtime.unconcatenate(dg, arrays, index, axis=axis)


@tangent(runtime.unstack)
def unstack(dz, z, g, index, axis=0):
    dz = runtime.unstack(dg, index, axis=axis)


@tangent(runtime.unpad, constant=('x',))
def unpad(dz, z, g, x, pad_width, mode="constant"):
    dz = runtime.unpad(dg, x, pad_width, mode=mode)


@tangent(runtime.unwindow, constant=('x',))
def unwindow(dz, z, g, x, window_shape, axis=None, step=1):
    dz = runtime.unwindow(dg, x, window_shape, axis=axis, step=step)


@tangent(runtime.unpack_adjoint, constant=('outputs',))
def unpack_adjoint(dz, z, g, outputs):
    dz = runtime.unpack_adjoint(dg, outputs)


@tangent(runtime.prod_grad)
def prod_grad(dz, z, g, x, axis=None, keepdims=False):
    dz = runtime.prod_grad(dg, x, axis=axis, keepdims=keepdims)
    dz = runtime.prod_grad_tangent(g, x, dx, axis=axis, keepdims=keepdims)


@tangent(runtime.norm_grad)
def norm_grad(dz, z, g, norm, x, ord=None, axis=None, keepdims=False):
    dz = runtime.norm_grad(dg, norm, x, ord=ord, axis=axis, keepdims=keepdims)
    dz = runtime.norm_grad_tangent(g, norm, x, dnorm, 0.0, ord=ord, axis=axis, keepdims=keepdims)
    dz = runtime.norm_grad_tangent(g, norm, x, 0.0, dx, ord=ord, axis=axis, keepdims=keepdims)


@tangent(runtime.split_grad, constant=("outputs",))
def split_grad(dz, z, gs, outputs, axis=0):
    dz = runtime.split_grad(dgs, outputs, axis=axis)


@tangent(runtime.power_slope)
def power_slope(dz, z, x, y):
    dz = dx * y * runtime.power_slope(x, y - 1)
    dz = dy * (x ** (y - 1) + z * runtime.log_or_zero(x))


@tangent(runtime.log_or_zero)
def log_or_zero(dz, z, x):
    dz = runtime.divide_or_zero(dx, x)


@tangent(runtime.divide_or_zero)
def divide_or_zero(dz, z, a, b):
    dz = runtime.divide_or_zero(da, b)
    dz = -runtime.divide_or_zero(db * z, b)


@tangent(runtime.unjoin, constant=("items",))
def unjoin(dz, z, g, items, index, axis):
    dz = runtime.unjoin(dg, items, index, axis)


@tangent(runtime.linspace_grad, constant=("start", "stop"))
def linspace_grad(dz, z, g, start, stop, num, endpoint, axis, wrt):
    dz = runtime.linspace_grad(dg, start, stop, num, endpoint, axis, wrt)


@tangent(runtime.real_for, constant=("x",))
def real_for(dz, z, g, x):
    dz = runtime.real_for(dg, x)


@tangent(runtime.real)
def runtime_real(dz, z, x):
    dz = runtime.real(dx)


@tangent(runtime.conj)
def runtime_conj(dz, z, x):
    dz = runtime.conj(dx)
