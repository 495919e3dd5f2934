"""The adjoint of every built-in primitive, as a template (see `template.py`).

Python operators are looked up through the ufunc they stand for (`a * b` is np.multiply).
max/min (and np.maximum/np.minimum) split the gradient evenly between tied elements.
"""
import builtins
import operator

import numpy as np

from . import runtime  # noqa: F401  (templates name it; the reverse transform emits it)
from .template import adjoint, nondifferentiable


def copy_value(a):
    """The primitive behind a plain assignment `y = x`."""
    return a


def astype(a, dtype):
    """The primitive behind the method `x.astype(dtype)`."""
    return a.astype(dtype)


def as_list(items):
    """The primitive behind a list display `[a, b]` holding differentiated values (the list of
    saved values an emitted forward function returns, when that is differentiated again)."""
    return list(items)


def as_tuple(items):
    """The primitive behind a tuple display `(a, b)` holding differentiated values."""
    return tuple(items)


def r_(*items):
    """The primitive behind `np.r_[a, b, ...]` of differentiated values."""
    return np.r_[items]


def c_(*items):
    """The primitive behind `np.c_[a, b, ...]` of differentiated values."""
    return np.c_[items]


# --- arithmetic -------------------------------------------------------------------------------

@adjoint(np.add)
def add(bz, z, x1, x2):
    bx1 = runtime.unbroadcast(bz, x1)
    bx2 = runtime.unbroadcast(bz, x2)


@adjoint(np.subtract)
def subtract(bz, z, x1, x2):
    bx1 = runtime.unbroadcast(bz, x1)
    bx2 = runtime.unbroadcast(-bz, x2)


@adjoint(np.multiply)
def multiply(bz, z, x1, x2):
    bx1 = runtime.unbroadcast(bz * x2, x1)
    bx2 = runtime.unbroadcast(bz * x1, x2)


@adjoint(np.true_divide)
def true_divide(bz, z, x1, x2):
    bx1 = runtime.unbroadcast(bz / x2, x1)
    bx2 = runtime.unbroadcast(-bz * z / x2, x2)


# at the edge points autograd's values: d/dx x ** 0 is 0 (also at x = 0), d/dy 0 ** y is 0
@adjoint(np.power)
def power(bz, z, x1, x2):
    bx1 = runtime.unbroadcast(bz * runtime.power_slope(x1, x2), x1)
    bx2 = runtime.unbroadcast(bz * z * runtime.log_or_zero(x1), x2)


@adjoint(np.matmul)
def matmul(bz, z, x1, x2):
    bx1 = runtime.matmul_grad(bz, x1, x2, 0)
    bx2 = runtime.matmul_grad(bz, x1, x2, 1)


@adjoint(np.negative)
def negative(bz, z, x):
    bx = -bz


@adjoint(np.maximum)
def maximum(bz, z, x1, x2):
    bx1 = runtime.unbroadcast(runtime.winner_share(bz, x1, x2), x1)
    bx2 = runtime.unbroadcast(runtime.winner_share(bz, x2, x1), x2)


@adjoint(np.minimum)
def minimum(bz, z, x1, x2):
    bx1 = runtime.unbroadcast(runtime.winner_share(bz, x2, x1), x1)
    bx2 = runtime.unbroadcast(runtime.winner_share(bz, x1, x2), x2)


@adjoint(copy_value, np.copy)
def copy_(bz, z, a):
    ba = bz


@adjoint(as_list, as_tuple)
def container(bz, z, items):
    bitems[i] = runtime.unpack_adjoint(bz, items)[i]


@adjoint(builtins.float)
def float_(bz, z, x):
    bx = bz


# --- elementwise functions --------------------------------------------------------------------

@adjoint(np.exp)
def exp(bz, z, x):
    bx = bz * z


@adjoint(np.log)
def log(bz, z, x):
    bx = bz / x


@adjoint(np.log1p)
def log1p(bz, z, x):
    bx = bz / (1 + x)


@adjoint(np.expm1)
def expm1(bz, z, x):
    bx = bz * (z + 1)


@adjoint(np.sqrt)
def sqrt(bz, z, x):
    bx = bz / (2 * z)


@adjoint(np.square)
def square(bz, z, x):
    bx = bz * 2 * x


@adjoint(np.sin)
def sin(bz, z, x):
    bx = bz * np.cos(x)


@adjoint(np.cos)
def cos(bz, z, x):
    bx = -bz * np.sin(x)


@adjoint(np.tan)
def tan(bz, z, x):
    bx = bz * (1 + z * z)


@adjoint(np.tanh)
def tanh(bz, z, x):
    bx = bz * (1 - z * z)


@adjoint(np.arctan)
def arctan(bz, z, x):
    bx = bz / (1 + x * x)


@adjoint(np.sinh)
def sinh(bz, z, x):
    bx = bz * np.cosh(x)


@adjoint(np.cosh)
def cosh(bz, z, x):
    bx = bz * np.sinh(x)


@adjoint(np.arcsin)
def arcsin(bz, z, x):
    bx = bz / np.sqrt(1 - x * x)


@adjoint(np.arccos)
def arccos(bz, z, x):
    bx = -bz / np.sqrt(1 - x * x)


@adjoint(np.log2)
def log2(bz, z, x):
    bx = bz / (x * 0.6931471805599453)


@adjoint(np.log10)
def log10(bz, z, x):
    bx = bz / (x * 2.302585092994046)


@adjoint(np.reciprocal)
def reciprocal(bz, z, x):
    bx = -bz * z * z


@adjoint(np.logaddexp)
def logaddexp(bz, z, x1, x2):
    bx1 = runtime.unbroadcast(bz * np.exp(x1 - z), x1)
    bx2 = runtime.unbroadcast(bz * np.exp(x2 - z), x2)


@adjoint(astype)
def astype_(bz, z, a, dtype):
    ba = runtime.cast_grad(bz, z, a)


# of a list display (a differentiated one is as_list's), each item gets its row of bz
@adjoint(np.asarray, np.asanyarray)
def asarray(bz, z, a, dtype=None):
    ba = runtime.cast_grad(bz, z, a)


@adjoint(np.array)
def array(bz, z, object, dtype=None):  # noqa: A002  (numpy's name for it)
    bobject = runtime.cast_grad(bz, z, object)


@adjoint(np.abs, builtins.abs)
def abs_(bz, z, x):
    bx = runtime.divide_or_zero(bz * runtime.conj(x), z)  # the sign, or x's phase conjugated


# complex numbers follow autograd's convention: products' adjoints are not conjugated, and a
# complex adjoint reaching a real value keeps its real part (runtime.real_for)
@adjoint(np.real)
def real(bz, z, val):
    bval = bz


@adjoint(np.imag)
def imag(bz, z, val):
    bval = -1j * bz


@adjoint(np.conj, np.conjugate)
def conj(bz, z, x):
    bx = np.conj(bz)


@adjoint(np.clip)
def clip(bz, z, a, a_min, a_max):
    ba = bz * runtime.within(a, a_min, a_max)
    ba_min = runtime.unbroadcast(bz * (a < a_min), a_min)
    ba_max = runtime.unbroadcast(bz * (a > a_max), a_max)


@adjoint(np.where)
def where(bz, z, condition, x, y):
    bx = runtime.unbroadcast(np.where(condition, bz, 0), x)
    by = runtime.unbroadcast(np.where(condition, 0, bz), y)


# --- reductions -------------------------------------------------------------------------------

@adjoint(np.sum)
def sum_(bz, z, a, axis=None, dtype=None, keepdims=False):
    ba = runtime.unreduce(bz, a, axis=axis, keepdims=keepdims)


@adjoint(np.mean)
def mean(bz, z, a, axis=None, dtype=None, keepdims=False):
    ba = runtime.mean_grad(bz, a, axis=axis, keepdims=keepdims)


@adjoint(np.var)
def var(bz, z, a, axis=None, dtype=None, ddof=0, keepdims=False):
    ba = runtime.var_grad(bz, a, axis=axis, ddof=ddof, keepdims=keepdims)


@adjoint(np.std)
def std(bz, z, a, axis=None, dtype=None, ddof=0, keepdims=False):
    # constant data (z = 0): 0, the subgradient a norm of the centred values has there
    ba = runtime.var_grad(runtime.divide_or_zero(bz, 2 * z), a, axis=axis, ddof=ddof,
                          keepdims=keepdims)


@adjoint(np.max, np.amax, np.min, np.amin)
def extremum(bz, z, a, axis=None, keepdims=False):
    ba = runtime.extremum_grad(bz, z, a, axis=axis, keepdims=keepdims)


@adjoint(np.prod)
def prod(bz, z, a, axis=None, dtype=None, keepdims=False):
    ba = runtime.prod_grad(bz, a, axis=axis, keepdims=keepdims)


@adjoint(np.linalg.norm)
def norm(bz, z, x, ord=None, axis=None, keepdims=False):
    bx = runtime.norm_grad(bz, z, x, ord=ord, axis=axis, keepdims=keepdims)


# --- products ---------------------------------------------------------------------------------

@adjoint(np.cumsum)
def cumsum(bz, z, a, axis=None, dtype=None):
    ba = runtime.reverse_cumsum(bz, a, axis=axis)


@adjoint(np.linalg.inv)
def inv(bz, z, a):
    ba = -np.swapaxes(z, -1, -2) @ bz @ np.swapaxes(z, -1, -2)


@adjoint(np.dot)
def dot(bz, z, a, b):
    ba = runtime.dot_grad(bz, a, b, 0)
    bb = runtime.dot_grad(bz, a, b, 1)


@adjoint(np.tensordot)
def tensordot(bz, z, a, b, axes=2):
    ba = runtime.tensordot_grad(bz, a, b, axes, 0)
    bb = runtime.tensordot_grad(bz, a, b, axes, 1)


@adjoint(np.einsum)
def einsum(bz, z, subscripts, *operands, optimize=False):
    boperands[i] = runtime.einsum_grad(bz, subscripts, operands, i)


@adjoint(np.outer)
def outer(bz, z, a, b):
    ba = runtime.outer_grad(bz, a, b, 0)
    bb = runtime.outer_grad(bz, a, b, 1)


# --- shape ------------------------------------------------------------------------------------

@adjoint(np.transpose)
def transpose(bz, z, a, axes=None):
    ba = runtime.untranspose(bz, axes=axes)


@adjoint(np.reshape)
def reshape(bz, z, a, shape, order="C"):
    ba = np.reshape(bz, np.shape(a), order=order)


@adjoint(np.ravel)
def ravel(bz, z, a, order="C"):
    ba = np.reshape(bz, np.shape(a), order=order)


@adjoint(np.squeeze)
def squeeze(bz, z, a, axis=None):
    ba = np.reshape(bz, np.shape(a))


@adjoint(np.expand_dims)
def expand_dims(bz, z, a, axis):
    ba = np.reshape(bz, np.shape(a))


@adjoint(np.flip)
def flip(bz, z, m, axis=None):
    bm = np.flip(bz, axis)


@adjoint(np.swapaxes)
def swapaxes(bz, z, a, axis1, axis2):
    ba = np.swapaxes(bz, axis1, axis2)


@adjoint(np.broadcast_to)
def broadcast_to(bz, z, array, shape):
    barray = runtime.unbroadcast(bz, array)


@adjoint(np.concatenate)
def concatenate(bz, z, arrays, axis=0):
    barrays[i] = runtime.unconcatenate(bz, arrays, i, axis=axis)


@adjoint(r_)
def r_adjoint(bz, z, *items):
    bitems[i] = runtime.unjoin(bz, items, i, 0)


@adjoint(c_)
def c_adjoint(bz, z, *items):
    bitems[i] = runtime.unjoin(bz, items, i, -1)


@adjoint(np.linspace)
def linspace(bz, z, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    bstart = runtime.linspace_grad(bz, start, stop, num, endpoint, axis, 0)
    bstop = runtime.linspace_grad(bz, start, stop, num, endpoint, axis, 1)


@adjoint(np.full)
def full(bz, z, shape, fill_value, dtype=None, order="C"):
    bfill_value = runtime.unbroadcast(bz, fill_value)


@adjoint(np.full_like, constant=("a",))
def full_like(bz, z, a, fill_value, dtype=None, order="K", subok=True, shape=None):
    bfill_value = runtime.unbroadcast(bz, fill_value)


@adjoint(builtins.sum)  # of a list display: sum([a, b]) is a + b
def sum_builtin(bz, z, iterable, start=0):
    biterable[i] = runtime.unbroadcast(bz, iterable[i])
    bstart = runtime.unbroadcast(bz, start)


@adjoint(np.stack)
def stack(bz, z, arrays, axis=0):
    barrays[i] = runtime.unstack(bz, i, axis=axis)


@adjoint(np.split)
def split(bz, z, ary, indices_or_sections, axis=0):
    bary = runtime.split_grad(bz, z, axis=axis)


@adjoint(np.pad)
def pad(bz, z, array, pad_width, mode="constant", constant_values=0):
    barray = runtime.unpad(bz, array, pad_width, mode=mode)


@adjoint(np.lib.stride_tricks.sliding_window_view)
def sliding_window_view(bz, z, x, window_shape, axis=None):
    bx = runtime.unwindow(bz, x, window_shape, axis=axis)


@adjoint(operator.getitem)
def getitem(bz, z, a, b):
    ba = runtime.getitem_grad(bz, a, b)


# --- the runtime helpers emitted gradients call (reverse-over-reverse: grad of grad) ----------

# matmul_grad(g, a, b, 0) is g b^T and matmul_grad(g, a, b, 1) is a^T g (batched, with the 1-D
# rules): linear in g, and in the operand it does not differentiate; not a function of the
# other one's values at all
@adjoint(runtime.matmul_grad)
def matmul_grad(bz, z, g, a, b, wrt):
    bg = runtime.unbroadcast(np.matmul(bz, b) if wrt == 0 else np.matmul(a, bz), g)
    ba = runtime.unless_wrt(wrt, 0, runtime.matmul_grad, g, a, bz, 0)
    bb = runtime.unless_wrt(wrt, 1, runtime.matmul_grad, g, bz, b, 1)


@adjoint(runtime.outer_grad)
def outer_grad(bz, z, g, a, b, wrt):
    bg = np.outer(bz, b) if wrt == 0 else np.outer(a, bz)
    ba = runtime.unless_wrt(wrt, 0, runtime.outer_grad, g, a, bz, 0)
    bb = runtime.unless_wrt(wrt, 1, runtime.outer_grad, g, bz, b, 1)


@adjoint(runtime.einsum_grad)
def einsum_grad(bz, z, g, subscripts, operands, wrt):
    bg = np.einsum(subscripts, *runtime.replace_at(operands, wrt, bz))
    boperands[i] = runtime.unless_wrt(wrt, i, runtime.einsum_grad, g, subscripts,
                                      runtime.replace_at(operands, wrt, bz), i)


@adjoint(runtime.tensordot_grad)
def tensordot_grad(bz, z, g, a, b, axes, wrt):
    bg = np.tensordot(bz, b, axes) if wrt == 0 else np.tensordot(a, bz, axes)
    ba = runtime.unless_wrt(wrt, 0, runtime.tensordot_grad, g, a, bz, axes, 0)
    bb = runtime.unless_wrt(wrt, 1, runtime.tensordot_grad, g, bz, b, axes, 1)


# both spread g over x's reduced axes, then weigh each element (by where the peak is, or by
# its distance from the mean): the adjoint weighs bz alike and sums over those axes again
@adjoint(runtime.extremum_grad, constant=("peak", "x"))
def extremum_grad(bz, z, g, peak, x, axis=None, keepdims=False):
    bg = runtime.reduce_like(bz * runtime.extremum_grad(np.ones_like(g), peak, x, axis=axis,
                                                        keepdims=keepdims),
                             g, axis=axis, keepdims=keepdims)


@adjoint(runtime.var_grad)
def var_grad(bz, z, g, x, axis=None, ddof=0, keepdims=False):
    bg = runtime.reduce_like(bz * runtime.var_grad(np.ones_like(g), x, axis=axis, ddof=ddof,
                                                   keepdims=keepdims),
                             g, axis=axis, keepdims=keepdims)
    bx = runtime.var_grad(np.ones_like(g), bz * runtime.unreduce(g, x, axis, keepdims),
                          axis=axis, ddof=ddof, keepdims=keepdims)


# prod_grad is U(g) * P(x), P(x)_i the product of the others: P's Jacobian is symmetric, so
# its transpose is its own tangent
@adjoint(runtime.prod_grad)
def prod_grad(bz, z, g, x, axis=None, keepdims=False):
    bg = runtime.reduce_like(bz * runtime.prod_grad(np.ones_like(g), x, axis=axis,
                                                    keepdims=keepdims),
                             g, axis=axis, keepdims=keepdims)
    bx = runtime.prod_grad_tangent(np.ones_like(g), x, bz * runtime.unreduce(g, x, axis,
                                                                            keepdims),
                                   axis=axis, keepdims=keepdims)


# norm_grad is U(g) * x / U(norm) (the 2-norm; a flat sign for the 1-norm): diagonal in x,
# and in norm each element's share summed back over the reduced axes
@adjoint(runtime.norm_grad)
def norm_grad(bz, z, g, norm, x, ord=None, axis=None, keepdims=False):
    bg = runtime.reduce_like(bz * runtime.norm_grad(np.ones_like(g), norm, x, ord=ord,
                                                    axis=axis, keepdims=keepdims),
                             g, axis=axis, keepdims=keepdims)
    bnorm = runtime.reduce_like(bz * runtime.norm_grad_tangent(
        g, norm, x, np.ones_like(norm), 0.0, ord=ord, axis=axis, keepdims=keepdims),
        norm, axis=axis, keepdims=keepdims)
    bx = runtime.norm_grad_tangent(g, norm, x, 0.0, bz, ord=ord, axis=axis,
                                   keepdims=keepdims)


@adjoint(runtime.power_slope)
def power_slope(bz, z, x, y):
    bx = runtime.unbroadcast(bz * y * runtime.power_slope(x, y - 1), x)
    by = runtime.unbroadcast(bz * (x ** (y - 1) + z * runtime.log_or_zero(x)), y)


@adjoint(runtime.log_or_zero)
def log_or_zero(bz, z, x):
    bx = runtime.divide_or_zero(bz, x)


@adjoint(runtime.divide_or_zero)
def divide_or_zero(bz, z, a, b):
    ba = runtime.unbroadcast(runtime.divide_or_zero(bz, b), a)
    bb = runtime.unbroadcast(-runtime.divide_or_zero(bz * z, b), b)


@adjoint(runtime.real_for, constant=("x",))
def real_for(bz, z, g, x):
    bg = bz


@adjoint(runtime.real)
def runtime_real(bz, z, x):
    bx = bz


@adjoint(runtime.conj)
def runtime_conj(bz, z, x):
    bx = runtime.conj(bz)


@adjoint(runtime.unconcatenate, constant=("arrays",))
def unconcatenate(bz, z, g, arrays, index, axis=0):
    bg = runtime.piece_back(bz, g, arrays, index, axis=axis)


@adjoint(runtime.unjoin, constant=("items",))
def unjoin(bz, z, g, items, index, axis):
    bg = runtime.join_back(bz, g, items, index, axis)


@adjoint(runtime.linspace_grad, constant=("start", "stop"))
def linspace_grad(bz, z, g, start, stop, num, endpoint, axis, wrt):
    bg = runtime.linspace_part(bz, start, stop, num, endpoint, axis, wrt)


@adjoint(runtime.split_grad, constant=("outputs",))
def split_grad(bz, z, gs, outputs, axis=0):
    bgs[i] = runtime.unconcatenate(bz, outputs, i, axis=axis)


@adjoint(runtime.dot_grad)
def dot_grad(bz, z, g, a, b, wrt):
    bg = runtime.unbroadcast(np.dot(bz, b) if wrt == 0 else np.dot(a, bz), g)
    ba = runtime.unless_wrt(wrt, 0, runtime.dot_grad, g, a, bz, 0)
    bb = runtime.unless_wrt(wrt, 1, runtime.dot_grad, g, bz, b, 1)


@adjoint(runtime.untranspose)
def untranspose(bz, z, g, axes=None):
    bg = np.transpose(bz, axes)


@adjoint(runtime.unpad, constant=("x",))
def unpad(bz, z, g, x, pad_width, mode="constant"):
    bg = runtime.pad_tangent(bz, pad_width, mode=mode)


@adjoint(runtime.unwindow, constant=("x",))
def unwindow(bz, z, g, x, window_shape, axis=None, step=1):
    bg = runtime.windows_of(bz, g, window_shape, axis=axis, step=step)


@adjoint(runtime.unstack)
def unstack(bz, z, g, index, axis=0):
    bg = runtime.getitem_grad(bz, g, runtime.along(g, index, axis))


@adjoint(runtime.getitem_grad)
def getitem_grad(bz, z, g, x, index):
    bg = runtime.unbroadcast(bz[index], g)


@adjoint(runtime.add_at, constant=("x",))
def add_at(bz, z, bx, x, index, g):
    bbx = bz
    bg = runtime.unbroadcast(bz[index], g)


@adjoint(runtime.unpack_adjoint, constant=("outputs",))
def unpack_adjoint(bz, z, g, outputs):
    bg = runtime.pack_adjoint(bz, g, outputs)


@adjoint(runtime.zero_at)
def zero_at(bz, z, g, index):
    bg = runtime.zero_at(bz, index)


@adjoint(runtime.written)  # of the reads of an element, the one numpy keeps
def written(bz, z, g, index):
    bg = runtime.set_at(runtime.zeros_like(g), index, bz)


@adjoint(runtime.as_grad, constant=('x',))
def as_grad(bz, z, g, x):
    bg = runtime.unbroadcast(bz, g)


@adjoint(runtime.unbroadcast, constant=('x',))
def unbroadcast(bz, z, g, x):
    bg = runtime.broadcast_like(bz, g)


@adjoint(runtime.broadcast_like, constant=('like',))
def broadcast_like(bz, z, d, like):
    bd = runtime.unbroadcast(bz, d)


@adjoint(runtime.reverse_cumsum, constant=("like",))
def reverse_cumsum(bz, z, g, like, axis=None):
    bg = np.reshape(np.cumsum(bz, axis=axis), np.shape(g))


@adjoint(runtime.cast_grad, constant=("z", "x"))
def cast_grad(bout, out, g, z, x):
    bg = runtime.cast_grad(bout, z, g)


@adjoint(runtime.unreduce, constant=('x',))
def unreduce(bz, z, g, x, axis=None, keepdims=False):
    bg = runtime.reduce_like(bz, g, axis=axis, keepdims=keepdims)


@adjoint(runtime.mean_grad, constant=('x',))
def mean_grad(bz, z, g, x, axis=None, keepdims=False):
    bg = runtime.reduce_like(bz, g, axis=axis, keepdims=keepdims) / runtime.count(x, axis)


@adjoint(runtime.winner_share, constant=('x', 'other'))
def winner_share(bz, z, g, x, other):
    bg = runtime.unbroadcast(runtime.winner_share(bz, x, other), g)


nondifferentiable(
    np.sign, np.floor, np.ceil, np.round, np.rint, np.trunc, np.fix,
    np.argmax, np.argmin, np.argsort, np.nonzero, np.shape, np.ndim, np.size,
    np.zeros_like, np.ones_like, np.empty_like, np.full_like, np.zeros, np.ones, np.empty,
    np.eye, np.identity,
    np.isnan, np.isinf, np.isfinite, np.greater, np.greater_equal, np.less, np.less_equal,
    np.equal, np.not_equal, np.logical_and, np.logical_or, np.logical_not, np.any, np.all,
    builtins.len, builtins.int, builtins.bool, builtins.range, builtins.isinstance,
    runtime.grad_seed, runtime.zeros_like, runtime.count, runtime.shape_of, runtime.check_unpack,
    runtime.within, runtime.along, runtime.check_unviewed, runtime.check_not_shared,
    runtime.zero_tangent,
)
