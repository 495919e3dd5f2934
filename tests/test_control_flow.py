"""Branches, loops and calls to user functions (issue: control flow)."""
import numpy as np
import pytest

import srcdiff as nf
from gradcheck import check_grad
from helpers import layers
from helpers.layers import dense


def rnn(w, b, h, xs):
    for t in range(xs.shape[0]):
        h = np.tanh(w @ h + xs[t] + b)
    return np.sum(h ** 2)


def test_rnn_100_steps(rng):
    w = rng.normal(size=(6, 6)) * 0.4
    check_grad(rnn, w, rng.normal(size=6), rng.normal(size=6), rng.normal(size=(100, 6)) * 0.3)


def piecewise(x, y):
    if np.sum(x) > 0:
        z = x * y
    elif np.sum(x) > -1:
        z = np.sin(x) * 3
    else:
        z = x ** 2
    if np.max(y) > 10:
        z = z * 0.0
    return np.sum(z * y)


@pytest.mark.parametrize("shift", [2.0, -0.3, -5.0])
def test_piecewise_takes_the_recorded_branch(rng, shift):
    x = rng.uniform(-0.1, 0.1, size=4) + shift / 4
    check_grad(piecewise, x, rng.normal(size=4))


def branch_in_loop(x, n):
    acc = 0.0
    for i in range(n):
        if i % 2 == 0:
            acc = acc + np.sum(np.sin(x) * i)
        else:
            acc = acc * 0.5 + np.sum(x ** 2)
    return acc


def test_branch_inside_loop(rng):
    check_grad(branch_in_loop, rng.normal(size=3), 5)


def while_loop(x):
    s = np.sum(x * x)
    steps = 0
    while s < 50.0 and steps < 100:
        s = s * 1.5 + np.sum(x)
        steps = steps + 1
    return s


def test_while_loop(rng):
    check_grad(while_loop, rng.uniform(0.5, 1.0, size=3))


def rows_zip_enumerate(x, w):
    acc = 0.0
    for row in x:
        acc = acc + np.sum(np.tanh(row * w))
    for i, row in enumerate(x):
        acc = acc + np.sum(row) * i
    for a, b in zip(x, x[::-1]):
        acc = acc + np.sum(a * b * w)
    return acc


def test_iteration_over_rows_zip_enumerate(rng):
    check_grad(rows_zip_enumerate, rng.normal(size=(4, 3)), rng.normal(size=3))


def nested(x, m):
    total = 0.0
    for i in range(m):
        y = x * (i + 1)
        for j in range(i + 1):
            y = np.sin(y) + x * j
        total = total + np.sum(y)
    return total


def test_nested_loops_with_computed_bounds(rng):
    check_grad(nested, rng.normal(size=3), 4)


def loop_over_constants(x):
    out = 0.0
    for scale in [1.0, 2.0, 0.5]:
        out = out + np.sum(np.exp(x * scale))
    return out


def test_loop_over_a_constant_list(rng):
    check_grad(loop_over_constants, rng.normal(size=3))


# --- calls to user functions --------------------------------------------------------------------
def mlp(w1, b1, w2, b2, x):
    h = dense(w1, b1, x)
    h = layers.dense(w2, b2, h)
    return np.sum(layers.scaled_square(h, scale=3.0))


def test_calls_into_an_imported_module(rng):
    args = (rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=(4, 2)),
            rng.normal(size=2), rng.normal(size=(5, 3)))
    check_grad(mlp, *args)


def test_callee_adjoint_is_reused_across_call_sites(rng):
    def twice(w, x):
        return np.sum(dense(w, 0.0, x) + dense(w, 1.0, x))

    source = nf.grad(twice).source
    assert source.count("def bwd_dense") == 1
    check_grad(twice, rng.normal(size=(3, 3)), rng.normal(size=(2, 3)), wrt=0)


def test_closure_callee_in_a_loop(rng):
    def cell(w, h):
        return np.tanh(w @ h)

    def unrolled(w, h):
        for _ in range(5):
            h = cell(w, h)
        return np.sum(h)

    check_grad(unrolled, rng.normal(size=(3, 3)), rng.normal(size=3))


def fact(x, n):
    if n <= 1:
        y = x
    else:
        y = x * fact(x, n - 1)
    return y


def test_recursion_is_a_clear_error():
    with pytest.raises(nf.UnsupportedError) as error:
        nf.grad(fact)
    assert "recursive" in str(error.value) and "test_control_flow.py" in str(error.value)


# --- readability of loops -----------------------------------------------------------------------
def test_loop_source_pushes_only_what_the_adjoint_reads():
    def f(w, x, n):
        count = 0
        for i in range(n):
            shift = i * 2
            count = count + 1
            x = np.sin(w * x) + shift
        return np.sum(x) + count

    source = nf.grad(f).source
    assert "_stack_x" in source          # x is overwritten and read by the adjoint of sin
    assert "_stack_count" not in source  # integer bookkeeping never reaches the adjoint
    assert "_stack_shift" not in source
    assert "_stack_i" not in source      # the reversed loop sets i itself
    check_grad(f, 0.7, np.linspace(0.1, 0.5, 3), 4, wrt=(0, 1))


# --- break, continue, early return ---------------------------------------------------------------
def with_break(x, limit):
    total = 0.0
    for i in range(10):
        total = total + np.sum(np.sin(x * i))
        if total > limit:
            break
        total = total * 1.1
    return total


def with_continue(x):
    total = 0.0
    for i in range(6):
        if i % 3 == 1:
            continue
        total = total + np.sum(x ** i)
    return total


def while_break(x):
    y = x
    while True:
        y = np.sin(y) * 1.5
        if np.sum(y * y) > 3.0 or np.max(np.abs(y)) < 1e-3:
            break
    return np.sum(y)


def early_return(x):
    if np.sum(x) > 0:
        return np.sum(x ** 3)
    y = np.exp(x)
    for i in range(5):
        y = y * 0.9
        if np.sum(y) < 0.5:
            return np.sum(y * x)
    return np.sum(y)


def return_from_nested_loop(x):
    acc = 0.0
    for i in range(4):
        for j in range(4):
            acc = acc + np.sum(x * (i - j))
            if acc > 2.0:
                return acc * 2
    return acc


@pytest.mark.parametrize("fn, make", [
    (with_break, lambda r: (r.normal(size=3), 1.0)),
    (with_break, lambda r: (r.normal(size=3), 100.0)),
    (with_continue, lambda r: (r.uniform(0.5, 1.5, size=3),)),
    (while_break, lambda r: (r.normal(size=3) * 0.5,)),
    (early_return, lambda r: (np.abs(r.normal(size=3)),)),
    (early_return, lambda r: (-np.abs(r.normal(size=3)),)),
    (early_return, lambda r: (-np.abs(r.normal(size=3)) - 2,)),
    (return_from_nested_loop, lambda r: (np.array([0.5, 0.2]),)),
    (return_from_nested_loop, lambda r: (np.array([-0.5, 0.2]),)),
])
def test_break_continue_early_return(fn, make, rng):
    args = make(rng)
    check_grad(fn, *args, wrt=0)
