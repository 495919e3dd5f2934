"""srcdiff against a second oracle, autograd, and against central finite differences.

Each row of the table is one small function, registered with its arguments by `@case(...)`;
its name is the test id. The same source runs under autograd with `np` bound to
`autograd.numpy` (tests/oracle.py). Four checks per row: reverse mode (`nf.grad` vs
`autograd.grad`), forward mode (`nf.jvp` vs `autograd.make_jvp`), and second order: `nf.hvp`,
and `nf.grad(nf.grad(f))` (of a float argument) or the vjp of the gradient (of an array, H u),
vs autograd's reverse over reverse. Finite differences in float64 decide: srcdiff must match
them always. Where autograd cannot run a row (`autograd="why"`) they are the only oracle;
where autograd disagrees with them (`autograd_wrong="why"`) the test checks that it still
does, so the note stays true.
"""

import numpy as np
import pytest

from helpers import layers
from oracle import (
    Table,
    check_forward,
    check_grad_of_grad,
    check_hvp,
    check_reverse,
    is_float,
    leaves,
)

pytest.importorskip("autograd")

MODES = ("reverse", "forward", "hvp", "grad_of_grad")
TABLE = Table()
case = TABLE.case
rng = np.random.default_rng(20240613)


def r(*shape):
    return rng.normal(size=shape)


def pos(*shape):
    return rng.uniform(0.5, 2.0, size=shape)


# --- the table: operators, with broadcasting -----------------------------------------------------


@case(r(3, 4), r(4))
def add_subtract_broadcast(x, y):
    return np.sum(np.sin(x + y) * np.cos(y - x) + (1.5 - x) + (y + 2))


@case(r(3, 1), r(1, 4), wrt=1)
def multiply_divide_broadcast(x, y):
    return np.sum(x * y / (1.0 + y**2) + 2 / (3 + x * x))


@case(pos(2, 3), r(3), wrt=1)
def power_exponent(x, y):
    return np.sum(x**y + 2.0**y)


@case(pos(2, 3), r(3))
def power_base(x, y):
    return np.sum(x**y + x**3 + x**0.5 + x**-1.5)


@case(r(2, 3), r(3, 4))
def matmul_matrices(x, y):
    return np.sum(np.tanh(x @ y))


@case(r(3), r(3, 4), wrt=1)
def matmul_vector_matrix(x, y):
    return np.sum(np.sin(x @ y)) + np.sum(x @ (y @ y.T))


@case(r(2, 3, 4), r(4, 2))
def matmul_batched(x, y):
    return np.sum(np.sin(np.matmul(x, y)))


@case(r(4))
def negative(x):
    return np.sum(-x * np.sin(-x) - x)


@case(r(5), r(5))
def comparisons_in_where(x, y):
    a = np.where(x > y, x * y, np.sin(y))
    b = np.where(x <= 0.1, x**2, -x)
    return np.sum(a + b + np.where(x != y, y, 0.0) + np.where(x >= y, 1.0, 2.0) * x)


# --- elementwise functions -----------------------------------------------------------------------


@case(pos(4))
def logarithms(x):
    return np.sum(np.log(x) + np.log1p(x) + np.log2(x) * np.log10(x))


@case(r(2, 3))
def exponentials(x):
    return np.sum(np.exp(x) - np.expm1(x * 0.5) + np.square(x))


@case(pos(2, 3))
def roots_and_reciprocals(x):
    return np.sum(np.sqrt(x) * np.reciprocal(x))


@case(r(5) * 0.5)
def trigonometry(x):
    return np.sum(np.sin(x) * np.cos(x) + np.tan(x))


@case(rng.uniform(-0.8, 0.8, size=4))
def inverse_trigonometry(x):
    return np.sum(np.arcsin(x) * np.arccos(x * 0.5) + np.arctan(x * 3))


@case(r(4))
def hyperbolic(x):
    return np.sum(np.tanh(x) * np.sinh(x) + np.cosh(x * 0.5))


@case(r(6))
def abs_and_sign(x):
    return np.sum(np.abs(x) * x + np.sign(x) * x**2 + abs(x))


@case(r(3, 4), r(4))
def maximum_minimum(x, y):
    return np.sum(np.maximum(x, y) ** 2 + np.minimum(x, 0.1) * y)


# at a kink, central differences give the mean of the two slopes: ties split evenly
@case(np.array([1.0, -2.0, 0.0, 1.0]), second=False)
def kinks_and_ties(x):
    return np.sum(np.maximum(x, x[::-1]) * np.arange(4.0)) + np.max(x) + np.sum(np.abs(x))


@case(r(2, 3), r(3), wrt=1)
def logaddexp(x, y):
    return np.sum(np.logaddexp(x, y) ** 2)


@case(r(6) * 2)
def clip(x):
    return np.sum(np.clip(x, -1.0, 1.0) ** 3 + x.clip(0.0, None) ** 2)


# --- reductions, with axis= (negative too) and keepdims= -----------------------------------------


@case(r(3, 4, 2))
def sum_axes(x):
    return np.sum(np.sum(x, axis=-1, keepdims=True) * x) + np.sum(np.sum(x, axis=(0, 2)) ** 2)


@case(r(3, 4))
def mean_axes(x):
    return np.mean(np.mean(x, axis=0) ** 2) + np.sum(x / np.mean(x**2, axis=-1, keepdims=True))


@case(r(3, 4))
def var_std(x):
    return (
        np.var(x)
        + np.sum(np.std(x, axis=-1, keepdims=True) * x)
        + np.sum(np.var(x, axis=0, ddof=1))
    )


@case(r(3, 4))
def max_min_axes(x):
    return np.max(x) * np.sum(np.max(x, axis=-1) ** 2) + np.sum(
        np.min(x, axis=0, keepdims=True) * x
    )


@case(pos(3, 4) * np.array([1.0, -1.0, 1.0, 1.0]))
def prod_axes(x):
    return (
        np.prod(x[0]) + np.sum(np.prod(x, axis=-1) ** 2) + np.sum(np.prod(x, axis=0, keepdims=True))
    )


@case(
    np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 1.5]]),
    autograd_wrong=dict.fromkeys(MODES, "autograd divides by x: NaN where x has zeros"),
)
def prod_with_zeros(x):
    return np.prod(x[0]) + np.sum(np.prod(x, axis=-1, keepdims=True) * x)


@case(r(3, 4))
def cumsum_axes(x):
    return np.sum(np.sin(np.cumsum(x, axis=-1))) + np.sum(np.cumsum(x) ** 2)


@case(r(3, 4))
def norm(x):
    return np.linalg.norm(x) + np.sum(np.linalg.norm(x, axis=-1) ** 3)


@case(r(3, 4), autograd="gives the gradient of norm(x, axis=0, keepdims=True) shape (1, 3, 4)")
def norm_keepdims(x):
    return np.sum(np.linalg.norm(x, axis=0, keepdims=True) * x)


# --- products ------------------------------------------------------------------------------------


@case(r(3, 4), r(4), autograd="has no ArrayBox.dot")
def dot(x, y):
    return np.sum(np.sin(np.dot(x, y))) + np.dot(y, y) * np.sum(x.dot(y))


@case(r(3, 4, 2), r(2, 4, 5))
def tensordot(x, y):
    return np.sum(np.tanh(np.tensordot(x, y, axes=([1, 2], [1, 0])))) + np.sum(
        np.tensordot(x, y, axes=1) ** 2
    )


@case(r(3, 4), r(4, 2))
def einsum(x, y):
    return np.sum(np.sin(np.einsum("ij,jk->ik", x, y))) + np.einsum("ij,ij->", x, x)


@case(r(3), r(4))
def outer(x, y):
    return np.sum(np.tanh(np.outer(x, y)) * np.outer(y, y)[0])


@case(r(3, 3) + 3 * np.eye(3), autograd={"forward": "has no JVP of inv"})
def inverse(x):
    return np.sum(np.linalg.inv(x) ** 2)


# --- shapes --------------------------------------------------------------------------------------


@case(r(2, 3, 4))
def transpose_swapaxes(x):
    return (
        np.sum(np.sin(np.transpose(x, (1, 0, 2))[0]) * np.swapaxes(x, 0, 1)[1])
        + np.sum(x.T[1] * x.transpose((2, 1, 0))[0])
        + np.sum(x.swapaxes(1, 2)[:, 0] ** 2)
    )


@case(r(2, 3, 4), autograd="has no derivatives of np.flip")
def flip(x):
    return np.sum(np.flip(x, axis=-1) * x + np.flip(x) * np.sin(x))


@case(r(2, 6))
def reshape_ravel_flatten(x):
    return np.sum(np.sin(np.reshape(x, (3, -1))) @ x.reshape(4, 3)) + np.sum(
        np.ravel(x) * x.ravel() * x.flatten()
    )


@case(r(3, 1, 4))
def squeeze_expand_dims(x):
    y = np.squeeze(x, axis=1)
    return np.sum(np.expand_dims(y, -1) * np.expand_dims(y, 1)) + np.sum(np.squeeze(x) ** 2)


@case(r(3, 1), autograd="cannot broadcast_to more dimensions (AssertionError)")
def broadcast_to(x):
    return np.sum(np.broadcast_to(x, (2, 3, 4)) * np.arange(4.0))


@case(r(2, 3), r(2, 2))
def concatenate_stack(x, y):
    c = np.concatenate([x, y, x], axis=-1)
    s = np.stack([x, np.sin(x)], axis=1)
    return np.sum(np.sin(c)) + np.sum(s[:, 1] * s[:, 0] ** 2)


@case(r(6, 2))
def split(x):
    a, b = np.split(x, 2)
    c, d, e = np.split(x, [1, 4], axis=0)
    return np.sum(a * b) + np.sum(c**2) + np.sum(np.sin(d)) + np.sum(e)


@case(r(2, 3), autograd="pad's VJP is broken (TypeError: missing 'mode')")
def pad(x):
    return np.sum(np.sin(np.pad(x, ((1, 0), (2, 1)))) * np.arange(6.0))


@case(r(3, 4), autograd="has no VJP for np.copy and no ArrayBox.copy")
def copies_and_casts(x):
    a = np.copy(x) * x.copy()
    b = np.asarray(x) + np.asanyarray(x) * np.array(x)
    return np.sum(a * b) + np.sum(x.astype(np.float64) ** 3)


@case(r(3))
def zeros_ones_like(x):
    return np.sum((np.zeros_like(x) + 2) * x + np.ones_like(x) * x**2)


@case(r(7), autograd="has no sliding_window_view")
def sliding_window_view(x):
    windows = np.lib.stride_tricks.sliding_window_view(x, 3)
    return np.sum(np.tanh(windows @ np.array([1.0, -2.0, 0.5])) ** 2)


@case(r(3, 4))
def reduction_methods(x):
    return (
        x.sum() * x.mean()
        + x.var()
        + x.std()
        + x.max()
        - x.min()
        + x.prod()
        + np.sum(x.sum(axis=0) ** 2)
        + np.sum(x.mean(axis=-1, keepdims=True) * x)
    )


@case(r(3))
def list_given_to_numpy(x):
    return np.sum(np.sum([x, x * x, np.sin(x)], axis=0) ** 2) + np.sum([x[0], x[1] * x[2]])


# --- linear algebra and FFT ----------------------------------------------------------------------


@case(r(3, 3) + 3 * np.eye(3), r(3, 2), autograd="has no derivative of matrix_power")
def linalg_solves(a, b):
    return (
        np.linalg.det(a)
        + np.linalg.slogdet(a)[1]
        + np.sum(np.sin(np.linalg.solve(a, b)))
        + np.sum(np.linalg.matrix_power(a, 3) * 0.01)
        + np.sum(np.linalg.inv(a[None]) ** 2)
    )


@case(r(4, 3), r(4), autograd="has no derivative of lstsq or matrix_transpose")
def linalg_least_squares(c, y):
    return (
        np.sum(np.linalg.pinv(c) ** 2)
        + np.sum(np.linalg.lstsq(c, y)[0] ** 2)
        + np.sum(np.linalg.multi_dot([c.T, c, c.T]) * 0.1)
        + np.sum(np.linalg.matrix_transpose(c) ** 3)
    )


# cholesky and eigh read one triangle: differentiated as functions of s's symmetric part
@case(r(3, 3), autograd="has no derivative of eigvalsh")
def linalg_symmetric(m):
    s = m @ m.T + 3 * np.eye(3)
    w, v = np.linalg.eigh(s)
    return (
        np.sum(np.linalg.cholesky(s) ** 3)
        + np.sum(w**3)
        + np.sum(v**2 * np.arange(3.0))
        + np.sum(np.linalg.eigvalsh(s) ** 2)
    )


@case(r(4, 3), autograd="has no derivative of qr or svdvals")
def linalg_svd_qr(c):
    u, s, vh = np.linalg.svd(c, full_matrices=False)
    q, r_ = np.linalg.qr(c)
    return (
        np.sum(u**2 * np.arange(3.0))
        + np.sum(s**3)
        + np.sum(np.sin(vh) ** 2)
        + np.sum(np.linalg.svdvals(c))
        + np.sum(q**2 * np.arange(3.0))
        + np.sum(r_**3)
    )


@case(r(4, 3), autograd="has no gradient of the matrix norms ord=2 and -2")
def linalg_norm_orders(c):
    return (
        np.linalg.norm(c, 1)
        + np.linalg.norm(c, -1)
        + np.linalg.norm(c, np.inf)
        + np.linalg.norm(c, 2)
        + np.linalg.norm(c, -2)
        + np.linalg.norm(c, "nuc")
        + np.linalg.norm(c, "fro")
        + np.sum(np.linalg.norm(c, ord=3, axis=0))
    )


@case(r(3, 3), autograd="has no .mT")
def triangles_and_trace(x):
    return np.trace(x) ** 2 + np.sum(np.tril(x) * np.triu(x, 1).T) + np.sum(x.mT * x**2)


@case(r(6), autograd={"forward": "has no JVP of fft"})
def ffts(x):
    spectrum = np.fft.fft(x) * np.fft.ifft(x[::-1], norm="ortho")
    planes = np.fft.fft2(x.reshape(2, 3)) + np.fft.ifftn(x.reshape(2, 3), axes=(0,))
    return (
        np.sum(np.abs(spectrum) ** 2)
        + np.sum(np.real(planes) * np.imag(planes))
        + np.sum(np.abs(np.fft.ifft2(x.reshape(3, 2)) + np.fft.fftn(x.reshape(3, 2))))
        + np.sum(np.fft.fftshift(x) * np.fft.ifftshift(x) ** 2)
    )


@case(r(7), autograd="has no gradient of irfft to an odd length")
def real_ffts(x):
    back = np.fft.irfft(np.fft.rfft(x) * (1 + 2j), n=7) + np.fft.irfftn(np.fft.rfftn(x), s=(7,))
    grid = np.fft.irfft2(np.fft.rfft2(x[:6].reshape(2, 3), s=(2, 4)) ** 2)
    return np.sum(back**2) + np.sum(np.sin(grid))


# --- Python floats, builtins ---------------------------------------------------------------------


@case(0.7, 1.3)
def python_floats(a, b):
    return a * b + np.sin(a) / b - b**2 + a**3


@case(0.7, 1.3, wrt=1)
def python_float_builtins(a, b):
    return max(a * b, b) * min(a, b * b) + abs(a - b) + sum([a, b * b, a * b])


@case(r(3), autograd="float() of an ArrayBox is an error")
def float_of_array(x):
    return float(np.sum(x**2)) * np.sum(x)


# --- indexing ------------------------------------------------------------------------------------


@case(r(4, 5))
def index_reads(x):
    return (
        np.sum(x[1] * x[-1])
        + np.sum(x[:, 2:-1] ** 2)
        + np.sum(x[::2, ::-2])
        + x[-2, -3] * x[0, 0]
        + np.sum(x[None, 1:3, ..., np.newaxis] ** 3)
    )


@case(r(3), autograd="its einsum cannot take lists of boxes")
def einsum_of_list_operands(x):  # (their derivative was dropped: grad 0)
    return np.einsum("i,i->", [x[0], 1.0], [x[1], x[1]]) + np.einsum("i,i", [x[0], x[2]], x[:2])


@case(r(3), autograd="its average cannot take lists of boxes")
def average_of_a_list(x):  # (hvp: a TypeError ndarray * Sparse, the list weights' tangent)
    return np.average([x[0], x[1] ** 2], weights=[1.0, 3.0]) + np.average(x, weights=[1, 2, 3])


@case(r(3), autograd="its functions do not take out= or where=")
def stated_defaults(x):  # (refused: "cannot match the arguments ... unexpected keyword")
    y = np.exp(x, out=None) * np.add(x, x**2, out=None, casting="same_kind", where=True)
    z = np.concatenate([y, x], axis=0, dtype=None, out=None)
    return np.sum(np.maximum(z, 0.1, out=None) ** 2, axis=None, dtype=None, out=None)


@case(r(4, 5))
def fancy_and_mask_reads(x):
    return np.sum(x[[0, 2, 2]] ** 2) + np.sum(x[x > 0] ** 3) + np.sum(x[:, np.array([4, 0])])


@case(r(3), autograd="cannot assign into arrays")
def index_writes(x):
    y = np.zeros(5)
    y[0] = x[1] * 2
    y[1:4] = np.sin(x)
    y[2:] += x[0] * y[1:4]
    y[-1] = y[-1] * y[0]
    return np.sum(y**2)


# --- control flow --------------------------------------------------------------------------------


@case(r(4), r(4))
def if_elif_else(x, y):
    if np.sum(x) > 1.0:
        z = x * y
    elif np.sum(x) > -1.0:
        z = np.sin(x) * 3
    else:
        z = x**2
    w = y if np.max(y) > 0 else -y
    return np.sum(z * w)


@case(r(3), r(5, 3) * 0.5)
def for_loops(h, xs):
    for t in range(xs.shape[0]):
        h = np.tanh(h * 0.9 + xs[t])
    for row in xs:
        h = h + np.sin(row) * h
    for row in reversed(xs):
        h = h * 0.5 + row
    for k, row in enumerate(xs):
        h = h + k * row
    for a, b in zip(xs, xs[1:]):
        h = h + a * b
    return np.sum(h**2)


@case(r(3))
def while_break_continue(x):
    s = np.sum(x * x)
    i = 0
    while s < 30.0 and i < 50:
        s = s * 1.5 + np.sum(x)
        i = i + 1
    for k in range(6):
        if k == 1:
            continue
        s = s + np.sum(np.sin(x * k))
        if k == 4:
            break
    return s


@case(r(3) * 0.5)
def early_return(x):
    for k in range(5):
        x = np.sin(x) + 0.5
        if np.sum(x) > 2.5:
            return np.sum(x**2) * k
    return np.sum(x)


def helper(a, b):
    return np.tanh(a) * b + np.sin(b)


def twice(a, b):
    return helper(helper(a, b), b) * 0.5


def make_scaled(scale):
    def scaled(x):
        return np.sum(np.sin(x * scale) ** 2)

    return scaled


scaled_by_1_5 = make_scaled(1.5)


@case(r(3), r(3))
def user_functions(x, y):
    return np.sum(twice(x, y) + helper(y, x)) + scaled_by_1_5(x)


def value_and_sine(a):
    return a * 2, np.sin(a)


@case(r(3))
def user_function_returning_a_tuple(x):
    a, b = value_and_sine(x)
    return np.sum(a * b)


@case(r(3, 4), r(4), r(2, 3), autograd="calls helpers.layers.dense, which imports plain numpy")
def imported_function(w, b, x):
    return np.sum(layers.dense(w, b, x) ** 2)


# --- lists, tuples, dicts ------------------------------------------------------------------------


@case(r(3))
def list_append_stack(x):
    states = []
    for k in range(3):
        x = np.sin(x) * (k + 1)
        states.append(x)
    return np.sum(np.stack(states) ** 2) + np.sum(states[-1] * states[0])


@case(r(3))
def comprehensions(x):
    parts = [np.sin(x * k) for k in range(3)]
    return np.sum(np.concatenate(parts) ** 2) + sum(np.sum(p * x) for p in parts)


@case(r(3))
def tuples(x):
    pair = (x * 2, np.sin(x))
    a, b = pair
    return np.sum(a * b) + np.sum(pair[1] ** 2)


@case([(r(3, 4), r(4)), (r(4, 2), r(2))], r(5, 3))
def list_of_tuples(params, x):
    for i in range(len(params)):
        W, b = params[i]
        x = np.tanh(x @ W + b)
    return np.sum(x**2)


@case([(r(3, 4), r(4)), (r(4, 2), r(2))], r(5, 3))
def negative_index_into_a_list(params, x):
    for i in range(len(params) - 1):
        W, b = params[i]
        x = np.tanh(x @ W + b)
    W, b = params[-1]
    return np.sum((x @ W + b) ** 2)


@case({"w": r(3), "b": 0.5, "n": 2}, r(4, 3), autograd="cannot take a dict holding an int")
def dict_of_parameters(p, x):  # n gets no gradient (None); see test_found_bugs for n's tangent
    return np.sum((1.5 + np.tanh(x @ p["w"] + p["b"])) ** p["n"])


@case(r(3), r(4))
def array_rows_read_at_constants(p, x):  # specialised, p's adjoint is one np.array
    return np.sum(np.sin(p[0] * x) * p[1]) + p[2] ** 2 + p[0] * p[2]


def _dict_layer(p, x):  # its backward returns p's adjoint as one display ('w' read twice)
    return np.tanh(x @ p["w"] + p["b"]) * p["w"][0]


@case({"w": r(3, 3), "b": r(3), "unused": r(2)}, r(4, 3))
def dict_through_a_callee(params, x):  # "unused" gets zeros
    h = _dict_layer(params, x)
    return np.sum(h**2) + np.sum(params["b"] * params["w"][1])


@case({"w": r(3), "v": r(3)}, r(3))
def dict_read_in_loops(p, x):  # the loops' reads stay one by one, after the display
    total = 0.0
    for k in range(3):
        total = total + np.sum(np.sin(p["w"] * x * k) * p["v"])
    for key in ("w", "v"):
        total = total + np.sum(p[key] ** 2)
    return total + np.sum(p["w"] * p["v"])


@case((r(3), [r(3), 0.3]), r(3))
def nested_tuple_and_list(p, x):
    w, vc = p
    v, c = vc
    return np.sum(np.sin(w * x) * v) + c * np.sum(v * x) + c**2


# --- float32 (the gradient is float32 too) -------------------------------------------------------


@case(r(3, 4).astype(np.float32), r(4).astype(np.float32))
def float32_mlp(x, w):
    return np.sum(np.tanh(x @ w) ** 2) + np.mean(np.maximum(x, 0.0)) + np.std(x, axis=0).sum()


@case([r(3, 2).astype(np.float32), r(2).astype(np.float32)], r(4, 3).astype(np.float32))
def float32_list_parameters(p, x):
    return np.sum(np.logaddexp(x @ p[0], p[1]) ** 2) + np.sum(np.linalg.norm(p[0], axis=0))


# --- the checks ----------------------------------------------------------------------------------


@pytest.mark.parametrize("row", TABLE.params("reverse"))
def test_reverse(row):
    got = check_reverse(row)
    for g, x in zip(leaves(got), leaves(row.args[row.wrt])):  # float32 in, float32 out
        if is_float(x):
            assert type(g) is type(x) and np.shape(g) == np.shape(x), (g, x)
            assert getattr(g, "dtype", None) == getattr(x, "dtype", None), (g.dtype, x.dtype)


@pytest.mark.parametrize("row", TABLE.params("forward"))
def test_forward(row):
    check_forward(row)


@pytest.mark.parametrize("row", TABLE.params("hvp"))
def test_hvp(row):
    check_hvp(row)


@pytest.mark.parametrize("row", TABLE.params("grad_of_grad"))
def test_grad_of_grad(row):
    check_grad_of_grad(row)
