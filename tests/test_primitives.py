"""Every primitive in the adjoint table, checked against finite differences."""
import numpy as np
import pytest

from numpy.lib.stride_tricks import sliding_window_view

import srcdiff as nf
from gradcheck import check_grad

rng = np.random.default_rng(0)


def r(*shape):
    return rng.normal(size=shape)


def pos(*shape):
    return rng.uniform(0.5, 2.0, size=shape)


# --- operators, with broadcasting ---------------------------------------------------------------
def f_add(x, y):
    return np.sum(np.sin(x + y))


def f_sub(x, y):
    return np.sum(np.sin(x - y))


def f_mul(x, y):
    return np.sum(np.sin(x * y))


def f_div(x, y):
    return np.sum(np.sin(x / y))


def f_pow(x, y):
    return np.sum(x ** y)


def f_pow_const(x):
    return np.sum(x ** 3 + 2.0 ** x)


def f_matmul(x, y):
    return np.sum(np.sin(x @ y))


def f_neg(x):
    return np.sum(np.sin(-x) + (+x))


def f_scalars(x):
    a = 2 * x + 1.5
    b = 3.0 - x / 4
    return np.sum(a * b) + float(np.sum(x))


def f_python_float(a, b):
    return a * b + a / b - b ** 2


# --- elementwise functions ---------------------------------------------------------------------
def f_unary(x):
    return np.sum(np.exp(x) + np.log(x) + np.log1p(x) + np.expm1(x) + np.sqrt(x) + np.square(x))


def f_trig(x):
    return np.sum(np.sin(x) * np.cos(x) + np.tan(x) + np.tanh(x) + np.arctan(x)
                  + np.sinh(x) + np.cosh(x))


def f_abs_sign(x):
    return np.sum(np.abs(x) * 2 + np.sign(x) * x)


def f_maximum(x, y):
    return np.sum((np.maximum(x, y)) ** 2 + np.minimum(x, y) * 3)


def f_maximum_scalar(x):
    return np.sum(np.maximum(x, 0.0) * x)


def f_clip(x):
    # one bound None: was a TypeError inside the gradient
    return np.sum((np.clip(x, -0.5, 0.5)) ** 2) + np.sum(np.clip(x, None, 0.2) * x)


def f_clip_bounds(x, lo, hi):
    return np.sum((np.clip(x, lo, hi)) ** 2)


def f_where(x, y):
    return np.sum((np.where(x > y, x, y * 2)) ** 2)


def f_comparisons(x):
    m = (x > 0) & (x <= 1.5)
    return np.sum(np.where(m, x, 0.0) + np.where(x != 0.3, x * x, x))


# --- reductions ---------------------------------------------------------------------------------
def f_sum_axis(x):
    return np.sum((np.sum(x, axis=1)) ** 2) + np.sum((np.sum(x, axis=(0, 2), keepdims=True)) ** 2)


def f_mean(x):
    return np.sum((np.mean(x, axis=0)) ** 2) + np.mean(x) ** 2 + np.sum(
        (np.mean(x, axis=-1, keepdims=True)) ** 2)


def f_var_std(x):
    return np.sum(np.var(x, axis=1)) + np.std(x) + np.sum(np.std(x, axis=0, ddof=1))


def f_max_min(x):
    return np.sum((np.max(x, axis=1)) ** 2) + np.min(x) + np.sum(np.max(x, axis=0, keepdims=True))


def f_prod(x):
    return np.sum(np.prod(x, axis=0)) + np.prod(x)


def f_norm(x):
    return np.linalg.norm(x) + np.sum(np.linalg.norm(x, axis=1)) + np.sum(
        np.linalg.norm(x, ord=1, axis=0))


def f_methods(x):
    return x.sum() + np.sum((x.mean(axis=0)) ** 2) + x.max() + x.var() + np.sum(
        (x.reshape(-1)) ** 2) + np.sum(x.T @ x) + np.sum(np.ravel(x) * x.flatten())


# --- products -----------------------------------------------------------------------------------
def f_dot(x, y):
    return np.sum(np.sin(np.dot(x, y))) + np.dot(x[0], y[:, 0])


def f_dot_nd(x, y):
    return np.sum(np.sin(np.dot(x, y)))


def f_tensordot(x, y):
    return np.sum(np.sin(np.tensordot(x, y, axes=([1, 2], [0, 1])))) + np.sum(
        np.tensordot(x, x, axes=3))


def f_einsum(x, y):
    return np.sum(np.sin(np.einsum("ijk,kl->il", x, y))) + np.einsum("ijk->", x)


def f_outer(x, y):
    return np.sum(np.sin(np.outer(x, y)))


def f_matmul_vec(x, y):
    return np.sum(np.sin(x @ y)) + np.sum(y @ x.T)


def f_matmul_batched(x, y):
    return np.sum(np.sin(x @ y))


# --- shapes -------------------------------------------------------------------------------------
def f_transpose(x):
    return np.sum(np.sin(np.transpose(x, (2, 0, 1))) * np.arange(4)) + np.sum(
        np.sin(x.T)[0]) + np.sum(np.transpose(x)[1]) + np.sum(
        np.cos(x.swapaxes(0, 2)) * np.arange(3))


def f_reshape(x):
    y = np.reshape(x, (4, 6))
    # order="F" was ignored by the adjoint: a wrong gradient
    z = x.reshape(6, 4, order="F") * np.arange(24).reshape(6, 4) + np.ravel(x, order="F")[0]
    return np.sum(np.sin(y) * np.arange(6)) + np.sum(np.sin(x.reshape(2, 12))[1]) + np.sum(z)


def f_squeeze_expand(x):
    return np.sum(np.sin(np.squeeze(x, axis=1)) * np.arange(3)) + np.sum(
        np.sin(np.expand_dims(x, 0))[0, 1])


def f_broadcast_to(x):
    return np.sum(np.sin(np.broadcast_to(x, (4, 3))) * np.arange(3))


def f_concatenate(x, y):
    z = np.concatenate([x, y, x * 2], axis=1)
    return np.sum(np.sin(z) * np.arange(z.shape[1]))


def f_stack(x, y):
    z = np.stack([x, y], axis=1)
    return np.sum(np.sin(z)[:, 1] * 2 + np.sin(z)[:, 0])


def f_split(x):
    a, b = np.split(x, 2, axis=0)
    return np.sum(np.sin(a) * 3 + b * b)


def f_split_unused(x):
    a, b, c = np.split(x, [1, 3])
    return np.sum(np.sin(b))


def f_like(x):
    z = np.zeros_like(x) + np.ones_like(x) * 2
    return np.sum(x * z)


def f_getitem(x):
    return np.sum(np.sin(x[1:3, None, ::-1])) + x[0, 1] * 2 + np.sum(x[[0, 0, 2], 1]) + np.sum(
        x[x > 0])


def f_copy(x):
    y = np.copy(x)
    z = y
    # a cast to ints is flat: its gradient is zero, not that of the identity
    return np.sum(z * x) + np.sum(abs(x) * x.astype(np.float64)) + np.sum(x.astype(int) * x)


def f_array_likes(x):
    v = np.asarray(x, dtype=float) + np.asanyarray(x)
    w = np.array([np.sum(v), v[0] * 2.0])  # a display of differentiated values
    # lists handed to numpy functions: each of these once got a gradient of 0
    return (np.sum(w * np.arange(1.0, 3.0)) + np.dot([v[1], v[2]], np.arange(2.0)) +
            np.mean([v[0], np.max(v)]) + np.sum(np.multiply([v[3], v[0]], v[1])))


def f_builtins(x):
    # max and min of two values are np.maximum and np.minimum; sum of a list adds its items
    a, b = np.sum(x[:2]), np.sum(x[2:] ** 2)
    return max(a, b) * min(a * 3, b) + np.sum(sum([x, np.sin(x), 2.0]) ** 2)


def f_more_unary(x):
    return np.sum(np.arcsin(x) + np.arccos(x) * 2 + np.log2(x + 1) + np.log10(x + 2)
                  + np.reciprocal(x + 1.5))


def f_logaddexp(x, y):
    return np.sum(np.sin(np.logaddexp(x, y)))


def f_cumsum_flip(x):
    return np.sum(np.sin(np.cumsum(x, axis=1)) * np.arange(4.0)) + np.sum(
        np.cumsum(np.flip(x, 0)) ** 2) + np.sum(np.sin(np.swapaxes(x, 0, 1))[0])


def f_inv(a):
    return np.sum(np.sin(np.linalg.inv(a + 3 * np.eye(3))))


def f_complex(x, y):
    # a real function of real arguments through complex values: a real gradient
    z = x * (1 + 2j) + np.exp(1j * y)
    return (np.sum(np.abs(z) ** 2) + np.sum(np.real(z * y) * np.imag(z)) +
            np.sum(z.real * z.imag) + np.sum(np.abs(np.conj(z) @ np.ones((3, 2)))) +
            np.sum(np.abs(np.conjugate(z * x))) + np.sum(np.abs(z.conj())))


def f_index_joins(x, y):
    # np.r_ and np.c_ once gave a zero gradient: they are concatenations
    return np.sum(np.sin(np.r_[x, 2 * y, 3.0]) * np.arange(7.0)) + np.sum(np.c_[x, y * x] ** 2)


def f_filled(a, b):
    # np.linspace, np.full and np.full_like once gave a zero gradient for their values
    return (np.sum(np.sin(np.linspace(a, b, 5))) + np.sum(np.linspace(a * 2, b, 4, endpoint=False) ** 2)
            + np.sum(np.full((2, 3), a) * np.arange(3)) + np.sum(np.full_like(np.ones(3), b) ** 3))


CASES = [
    (f_add, lambda: (r(3, 1), r(4))),
    (f_sub, lambda: (r(3, 4), r(1, 4))),
    (f_mul, lambda: (r(2, 3, 4), r(3, 1))),
    (f_div, lambda: (r(3, 4), pos(4))),
    (f_pow, lambda: (pos(3, 2), r(2))),
    (f_pow_const, lambda: (pos(5),)),
    (f_matmul, lambda: (r(3, 4), r(4, 2))),
    (f_neg, lambda: (r(5),)),
    (f_scalars, lambda: (r(4),)),
    (f_python_float, lambda: (1.3, 0.7)),
    (f_unary, lambda: (pos(6),)),
    (f_trig, lambda: (rng.uniform(-1, 1, size=6),)),
    (f_abs_sign, lambda: (r(6) + 0.1,)),
    (f_maximum, lambda: (r(3, 4), r(4))),
    (f_maximum_scalar, lambda: (r(7),)),
    (f_clip, lambda: (r(8),)),
    (f_clip_bounds, lambda: (r(8), -0.3 - rng.uniform(size=8), 0.4 + rng.uniform(size=8))),
    (f_where, lambda: (r(3, 4), r(4))),
    (f_comparisons, lambda: (r(6),)),
    (f_sum_axis, lambda: (r(2, 3, 4),)),
    (f_mean, lambda: (r(3, 4),)),
    (f_var_std, lambda: (r(4, 5),)),
    (f_max_min, lambda: (r(4, 5),)),
    (f_prod, lambda: (pos(3, 4),)),
    (f_norm, lambda: (r(3, 4),)),
    (f_methods, lambda: (r(3, 4),)),
    (f_dot, lambda: (r(3, 4), r(4, 2))),
    (f_dot_nd, lambda: (r(2, 3, 4), r(5, 4, 2))),
    (f_tensordot, lambda: (r(2, 3, 4), r(3, 4, 5))),
    (f_einsum, lambda: (r(2, 3, 4), r(4, 5))),
    (f_outer, lambda: (r(3), r(4))),
    (f_matmul_vec, lambda: (r(3, 4), r(4))),
    (f_matmul_batched, lambda: (r(2, 3, 4), r(4, 5))),
    (f_transpose, lambda: (r(3, 4, 2),)),
    (f_array_likes, lambda: (r(4),)),
    (f_builtins, lambda: (r(4),)),
    (f_reshape, lambda: (r(2, 3, 4),)),
    (f_squeeze_expand, lambda: (r(2, 1, 3),)),
    (f_broadcast_to, lambda: (r(3),)),
    (f_concatenate, lambda: (r(2, 3), r(2, 1))),
    (f_stack, lambda: (r(3), r(3))),
    (f_split, lambda: (r(4, 2),)),
    (f_split_unused, lambda: (r(5),)),
    (f_like, lambda: (r(4),)),
    (f_getitem, lambda: (r(4, 3),)),
    (f_copy, lambda: (r(4),)),
    (f_more_unary, lambda: (rng.uniform(-0.8, 0.8, size=5),)),
    (f_logaddexp, lambda: (r(3, 4), r(4))),
    (f_cumsum_flip, lambda: (r(3, 4),)),
    (f_inv, lambda: (r(3, 3),)),
    (f_index_joins, lambda: (r(3), r(3))),
    (f_complex, lambda: (r(3), r(3))),
    (f_filled, lambda: (0.3, 1.7)),
]


@pytest.mark.parametrize("f, make_args", CASES, ids=[c[0].__name__ for c in CASES])
def test_primitive_gradient(f, make_args):
    check_grad(f, *make_args())


def test_every_registered_adjoint_is_exercised():
    """Each table entry appears in at least one case above (by the name numpy knows it by)."""
    import inspect
    import operator

    from srcdiff.adjoints import as_list, as_tuple, astype, copy_value
    from srcdiff import adjoints
    from srcdiff.template import ADJOINTS

    text = inspect.getsource(inspect.getmodule(test_primitive_gradient))
    symbols = {np.add: "+", np.subtract: "-", np.multiply: "*", np.true_divide: "/",
               np.power: "**", np.matmul: "@", np.negative: "-x", operator.getitem: "x[",
               copy_value: "z = y", float: "float(", astype: ".astype(", abs: "abs(",
               sum: "sum([", np.amax: "np.max", np.amin: "np.min",
               np.linalg.norm: "np.linalg.norm", np.linalg.inv: "np.linalg.inv",
               sliding_window_view: "np.lib.stride_tricks.sliding_window_view",
               as_list: "pair = [", as_tuple: "both = (", adjoints.r_: "np.r_[",
               adjoints.c_: "np.c_["}
    from srcdiff import adjoints, runtime

    for primal, template in ADJOINTS.items():
        if template.module_globals is not vars(adjoints):
            continue  # registered by a test, not built in
        if getattr(runtime, getattr(primal, "__name__", ""), None) is primal:
            continue  # runtime helpers: exercised by the higher-order tests
        token = symbols.get(primal) or f"np.{primal.__name__}"
        if primal is np.abs:
            token = "np.abs"
        assert token in text, f"no gradient test uses {token}"


def test_max_ties_split_evenly():
    def f(x):
        return np.max(x)

    g = nf.grad(f)(np.array([1.0, 3.0, 3.0, 2.0]))
    np.testing.assert_allclose(g, [0, 0.5, 0.5, 0])


def test_maximum_ties_split_evenly():
    def f(x, y):
        return np.sum(np.maximum(x, y))

    gx, gy = nf.grad(f, wrt=(0, 1))(np.array([1.0, 2.0]), np.array([1.0, 3.0]))
    np.testing.assert_allclose(gx, [0.5, 0.0])
    np.testing.assert_allclose(gy, [0.5, 1.0])


def test_prod_with_a_zero_is_exact():
    def f(x):
        return np.prod(x)

    g = nf.grad(f)(np.array([2.0, 0.0, 3.0]))
    np.testing.assert_allclose(g, [0.0, 6.0, 0.0])


def f_pad(x):
    y = np.pad(x, ((0, 0), (1, 2)))
    return np.sum(np.sin(y) * np.arange(y.shape[1])) + np.sum(np.pad(x, 1) ** 2)


def f_sliding_window(x):
    w = np.lib.stride_tricks.sliding_window_view(x, (2, 3), axis=(1, 2))
    v = sliding_window_view(x[0, 0], 2)
    return np.sum(np.sin(w[:, ::2]) * np.arange(3)) + np.sum(v ** 2)


@pytest.mark.parametrize("f, make_args", [(f_pad, lambda: (r(3, 4),)),
                                          (f_sliding_window, lambda: (r(2, 5, 4),))],
                         ids=["f_pad", "f_sliding_window"])
def test_window_primitives(f, make_args):
    check_grad(f, *make_args())


def test_pad_in_another_mode_is_an_error():
    def f(x):
        return np.sum(np.pad(x, 1, mode="reflect"))

    with pytest.raises(nf.SrcdiffError, match="mode='reflect'"):
        nf.grad(f)(np.ones(3))


@pytest.mark.parametrize("f, make_args", CASES, ids=[c[0].__name__ for c in CASES])
def test_float32_adjoints_stay_float32(f, make_args, monkeypatch):
    """No float64 creeps into the adjoint sweep of float32 inputs (as_grad would hide it)."""
    from srcdiff import runtime

    args = [a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in make_args()]
    seen = []
    real = runtime.as_grad

    def spy(g, x):
        if isinstance(x, np.ndarray) and not np.isscalar(g):
            seen.append(np.result_type(g))
        return real(g, x)

    monkeypatch.setattr(runtime, "as_grad", spy)
    wrt = tuple(i for i, a in enumerate(args) if isinstance(a, np.ndarray))
    if np.result_type(f(*args)) != np.float32:
        pytest.skip("the function itself computes in float64 (e.g. with an int64 arange)")
    if wrt:
        nf.grad(f, wrt=wrt)(*args)
        assert all(dtype == np.float32 for dtype in seen), seen


def f_containers(x):
    pair = [np.sin(x), x * 2]  # a list display of differentiated values
    first, second = pair
    both = (first, second * x)  # and a tuple display
    a, b = both
    return np.sum(a * b) + np.sum(pair[1] ** 2)


def test_list_and_tuple_displays_of_differentiated_values():
    x = r(4)
    check_grad(f_containers, x)
    v = r(4)
    _, tangent = nf.jvp(f_containers)(x, v)
    assert tangent == pytest.approx(np.sum(nf.grad(f_containers)(x) * v), rel=1e-10)
