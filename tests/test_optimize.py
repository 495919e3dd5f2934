"""The optimisation passes: each keeps every gradient as it is, and does what it says."""
import tracemalloc

import numpy as np

import srcdiff as nf
from gradcheck import check_grad


def chain(x):
    a = np.sin(x)
    unused = np.arctan(x) * 3  # noqa: F841  (dead: the pass drops it)
    b = a * x
    return np.sum(b)


def test_dead_code_elimination(rng):
    optimized, raw = nf.grad(chain).source, nf.grad(chain, optimized=False).source
    assert "np.arctan" not in optimized and "np.arctan" in raw
    x = rng.normal(size=5)
    np.testing.assert_allclose(nf.grad(chain)(x), nf.grad(chain, optimized=False)(x))


def heavy_layer(x, w):
    h = np.tanh(x * w)
    h2 = np.exp(h) * h
    return np.sin(h2) + h


def heavy(x, w):
    return np.sum(heavy_layer(heavy_layer(x, w), w))


def peak(fn, *args):
    tracemalloc.start()
    fn(*args)
    top = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return top


def test_backward_functions_free_saved_values_early(rng):
    source = nf.grad(heavy).source
    assert "saved.clear()" in source and "\n    del " in source
    x, w = rng.normal(size=(200, 200)), rng.normal(size=(200, 200))
    check_grad(heavy, rng.normal(size=(3, 4)), rng.normal(size=(3, 4)))
    optimized, raw = nf.grad(heavy), nf.grad(heavy, optimized=False)
    np.testing.assert_allclose(optimized(x, w), raw(x, w))
    assert peak(optimized, x, w) < 0.9 * peak(raw, x, w)


def test_values_read_only_for_their_shape_are_not_kept(rng):
    def loop(x, b):
        for i in range(4):
            x = np.tanh(np.sin(x) + b)  # the adjoint of + reads sin(x)'s shape only
        return np.sum(x)

    source = nf.grad(loop).source
    assert "runtime.shape_of(" in source
    check_grad(loop, rng.normal(size=(70, 70)), rng.normal(size=70))


def test_accumulation_in_place_only_into_buffers_nothing_else_sees(rng):
    def loop(w, h):
        for _ in range(5):
            h = np.tanh(w @ h)
        return np.sum(h)

    source = nf.grad(loop).source
    assert "bw += runtime.matmul_grad(" in source  # bw starts as zeros and only accumulates
    assert "bh +=" not in source                    # bh is read each iteration: never in place
    check_grad(loop, rng.normal(size=(4, 4)) * 0.5, rng.normal(size=4))

    def shared(x):
        y = x * 1.0
        z = y * 2.0 + y * 3.0  # by gets two contributions, then flows into bx
        return np.sum(z * x + y)

    raw, optimized = nf.grad(shared, optimized=False), nf.grad(shared)
    x = rng.normal(size=4)
    np.testing.assert_array_equal(raw(x), optimized(x))
    check_grad(shared, x)


def test_copies_are_propagated(rng):
    def f(x):
        y = x
        z = np.sin(y)
        w = z
        return np.sum(w * y)

    optimized, raw = nf.grad(f).source, nf.grad(f, optimized=False).source
    assert "w = z" in raw and "w = z" not in optimized and "y = x" not in optimized
    x = rng.normal(size=4)
    np.testing.assert_allclose(nf.grad(f)(x), nf.grad(f, optimized=False)(x))
    check_grad(f, x)
