"""Branches, loops and calls to user functions (issue: control flow)."""

import numpy as np
import pytest

import srcdiff as nf
from gradcheck import check_grad, numerical_grad
from helpers import layers
from helpers.layers import dense


def rnn(w, b, h, xs):
    for t in range(xs.shape[0]):
        h = np.tanh(w @ h + xs[t] + b)
    return np.sum(h**2)


def test_rnn_100_steps(rng):
    w = rng.normal(size=(6, 6)) * 0.4
    check_grad(rnn, w, rng.normal(size=6), rng.normal(size=6), rng.normal(size=(100, 6)) * 0.3)


def piecewise(x, y):
    if np.sum(x) > 0:
        z = x * y
    elif np.sum(x) > -1:
        z = np.sin(x) * 3
    else:
        z = x**2
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
            acc = acc * 0.5 + np.sum(x**2)
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


def enumerate_from_one(x):
    total = 0.0
    for i, row in enumerate(x, 1):  # enumerate with a start: a TypeError inside srcdiff, once
        total = total + np.sum(row**2) * i
    return total


def all_states(w, x):
    h = np.zeros(3)
    states = []
    for t in range(x.shape[0]):
        h = np.tanh(w @ h + x[t])
        states.append(h)
    return (
        np.sum(np.stack(states) ** 2)
        + np.sum(np.concatenate(states) * 0.5)
        + np.sum(sum(states) ** 3)
    )


def test_a_list_built_with_append_and_stacked(rng):
    # 'np.stack needs a list literal', once; now the list's adjoint is a list as well
    w, x = rng.normal(size=(3, 3)) * 0.5, rng.normal(size=(4, 3))
    gw = check_grad(all_states, w, x, wrt=0)[0]
    v = rng.normal(size=(3, 3))
    _, tangent = nf.jvp(all_states)(w, x, v)
    assert tangent == pytest.approx(np.sum(gw * v))
    assert "bstates = runtime.add_items(bstates, [" in nf.grad(all_states).source
    # second order too (once "higher-order derivative not supported": add_items had no
    # tangent): the hvp is the directional derivative of the gradient
    gradient, eps = nf.grad(all_states), 1e-5
    expected = (gradient(w + eps * v, x) - gradient(w - eps * v, x)) / (2 * eps)
    np.testing.assert_allclose(nf.hvp(all_states)(w, x, v), expected, rtol=1e-5, atol=1e-7)


def comprehensions(x):
    rows = np.stack([np.sin(row) * i for i, row in enumerate(x)])
    pairs = sum(x[i] * x[i + 1] for i in range(len(x) - 1))  # a generator
    grid = np.array([[v * w for w in row] for v, row in zip(x[:, 0], x)])  # nested
    sums = np.array([np.sum(row) for row in x if np.sum(row) > -1.0])  # filtered
    return np.sum(rows**2) + np.sum(pairs) + np.sum(grid) + np.sum(sums**2)


def check_both_modes(f, x):
    """Reverse mode against finite differences, and forward mode (all-ones tangent) against
    reverse mode."""
    g = check_grad(f, x)[0]
    _, tangent = nf.jvp(f)(x, np.ones_like(x))
    assert tangent == pytest.approx(np.sum(g))


def reads_a_list_it_built(x):
    states = [np.sin(row) for row in x]
    states.append(x[0] * 2)
    total = np.sum(states[0] * states[-1])  # index reads
    for i, h in enumerate(states):  # a loop over it
        total = total + np.sum(h**2) * i
    return total + np.sum(np.stack(states))


def test_a_list_built_with_append_read_by_index_and_in_a_loop(rng):
    # once a TypeError inside the emitted code: the index reads' adjoint (a Sparse) met the
    # adjoint stack the appends pop
    x = rng.normal(size=(3, 2))
    check_both_modes(reads_a_list_it_built, x)


def test_list_comprehensions_and_generators_become_loops(rng):
    # each once got a gradient of 0 (taken for a constant), then was refused
    x = rng.normal(size=(3, 3))
    check_both_modes(comprehensions, x)
    assert "_items0.append(" in nf.grad(comprehensions).source


def runs_backwards(x):
    total = 0.0
    for row in reversed(x):  # was: no adjoint is registered for reversed
        total = total * 0.5 + np.sum(np.sin(row))
    return total


def test_loop_over_reversed_rows(rng):
    x = rng.normal(size=(4, 2))
    check_both_modes(runs_backwards, x)


def test_enumerate_with_a_start(rng):
    check_grad(enumerate_from_one, rng.normal(size=(3, 2)))
    _, tangent = nf.jvp(enumerate_from_one)(np.ones((3, 2)), np.ones((3, 2)))
    assert tangent == pytest.approx(2 * (1 + 2 + 3) * 2)


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
    args = (
        rng.normal(size=(3, 4)),
        rng.normal(size=4),
        rng.normal(size=(4, 2)),
        rng.normal(size=2),
        rng.normal(size=(5, 3)),
    )
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
    assert "_stack_x" in source  # x is overwritten and read by the adjoint of sin
    assert "_stack_count" not in source  # integer bookkeeping never reaches the adjoint
    assert "_stack_shift" not in source
    assert "_stack_i" not in source  # the reversed loop sets i itself
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
        total = total + np.sum(x**i)
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
        return np.sum(x**3)
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


def elif_returns(x):
    if x[0] > 1.0:
        return np.sum(np.abs(x))
    elif x[0] > 0.0:
        return np.sum(x**2)
    return np.max(x)


def else_if_returns(x):
    if x[0] > 1.0:
        return np.sum(np.abs(x))
    else:
        if x[0] > 0.0:
            return np.sum(x**2)
    return np.max(x)


def elif_continues(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 1.0:
            continue
        elif x[i] < -1.0:
            continue
        s = s + x[i] ** 2
    return s


def elif_breaks(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 1.0:
            s = s * 2.0
            break
        elif x[i] < -1.0:
            break
        s = s + np.sin(x[i])
    return s


def return_from_a_loop_in_a_branch(x):
    s = x[0] * 0.5
    if x[0] > 0.0:
        s = s * 2.0
    else:
        for i in range(2):
            return s * 3.0
    return s + np.sin(x[1])


def return_in_both_branches_then_code(x):
    s = x[0]
    if x[1] > 0:
        if x[2] > 0:
            return s * 2.0
        s = s + np.sin(x[0])
    else:
        if x[3] > 0:
            if x[2] > 0:
                return s * 5.0
        else:
            s = s * 4.0
        s = s - 1.0
    return s * x[1]


def continue_in_both_branches_then_code(x):
    s = 0.5
    for i in range(x.shape[0]):
        if x[i] > 0:
            if x[i] > 1.0:
                continue
            s = s + np.sin(x[i])
        else:
            if x[i] < -1.0:
                if s > 0:
                    continue
            else:
                s = s * 2.0
            s = s - 1.0
        s = s * 0.9
    return s


EARLY_EXITS_IN_BRANCHES = [
    (return_in_both_branches_then_code, [0.5, 0.7, -0.2, 0.1]),
    (return_in_both_branches_then_code, [0.5, -0.7, 0.2, -0.1]),
    (continue_in_both_branches_then_code, [0.5, -0.7, 0.2, 0.1]),
    (continue_in_both_branches_then_code, [1.5, -1.7, 0.2, -0.1]),
    (elif_returns, [1.5, -1.2, 0.8]),
    (elif_returns, [0.3, -1.2, 0.8]),
    (elif_returns, [-0.3, -1.2, 0.8]),
    (else_if_returns, [0.3, -1.2, 0.8]),
    (else_if_returns, [-0.3, -1.2, 0.8]),
    (elif_continues, [0.3, -1.2, 0.8, 1.5, 0.1]),
    (elif_breaks, [0.3, 0.2, 1.5, 0.1]),
    (elif_breaks, [0.3, -1.2, 0.8, 1.5]),
    (return_from_a_loop_in_a_branch, [-1.4, 0.3]),
    (return_from_a_loop_in_a_branch, [1.4, 0.3]),
]


@pytest.mark.parametrize("fn, x", EARLY_EXITS_IN_BRANCHES)
def test_early_exits_in_nested_branches(fn, x):
    """An elif (or an else holding an if) whose branch returns, continues or breaks, a
    return from a loop inside a branch, and jumps in both branches of an if followed by
    code (flags stand in): the value and both derivatives are those of the path taken (the
    jump was dropped, or a statement ran twice)."""
    x = np.array(x)
    value, _ = nf.value_and_grad(fn)(x)
    assert value == pytest.approx(fn(x))
    gradient = check_grad(fn, x, wrt=0)
    tangent = np.linspace(-1.0, 1.0, x.size)
    primal, derivative = nf.jvp(fn)(x, tangent)
    assert primal == pytest.approx(fn(x))
    assert derivative == pytest.approx(np.dot(gradient, tangent))


@pytest.mark.parametrize(
    "fn, make",
    [
        (with_break, lambda r: (r.normal(size=3), 1.0)),
        (with_break, lambda r: (r.normal(size=3), 100.0)),
        (with_continue, lambda r: (r.uniform(0.5, 1.5, size=3),)),
        (while_break, lambda r: (r.normal(size=3) * 0.5,)),
        (early_return, lambda r: (np.abs(r.normal(size=3)),)),
        (early_return, lambda r: (-np.abs(r.normal(size=3)),)),
        (early_return, lambda r: (-np.abs(r.normal(size=3)) - 2,)),
        (return_from_nested_loop, lambda r: (np.array([0.5, 0.2]),)),
        (return_from_nested_loop, lambda r: (np.array([-0.5, 0.2]),)),
    ],
)
def test_break_continue_early_return(fn, make, rng):
    args = make(rng)
    check_grad(fn, *args, wrt=0)


# --- subscripts: reads and writes ---------------------------------------------------------------
def conv1d(x, w):
    k = w.shape[0]
    n = x.shape[0] - k + 1
    y = np.zeros(n)
    for i in range(n):
        y[i] = np.sum(x[i : i + k] * w)
    return np.sum(y**2)


def test_loop_conv1d_writing_into_a_preallocated_array(rng):
    check_grad(conv1d, rng.normal(size=12), rng.normal(size=3))


def overwrites(x):
    y = x * 1.0
    z = y * 2.0
    y[0] = 3.0
    y[1:3] += x[0] * x[1:3]
    y[-1] *= y[0]
    return np.sum(y * z)


def test_overwritten_elements_drop_their_adjoint(rng):
    g = check_grad(overwrites, rng.normal(size=5))
    assert np.isfinite(g).all()


def writes_twice_through_one_index(x):
    y = np.zeros(4)
    y[[0, 0, 2]] = x[:3] ** 2  # numpy keeps the last write to y[0]: x[1]'s
    y[np.array([1, 1])] += x[2:4]  # y[1] = 0 + x[3] (x[2]'s add is overwritten)
    for i in range(3):
        y[i + 1] = y[i + 1] * y[i] + x[3]
    return np.sum(y * np.arange(1.0, 5.0) * y)


def test_an_index_naming_an_element_twice_keeps_the_last_write(rng):
    x = rng.normal(size=4)
    g = check_grad(writes_twice_through_one_index, x)[0]
    assert g[0] == 0.0
    v = rng.normal(size=4)
    eps = 1e-5
    gradient = nf.grad(writes_twice_through_one_index)
    expected = (gradient(x + eps * v) - gradient(x - eps * v)) / (2 * eps)
    np.testing.assert_allclose(
        nf.hvp(writes_twice_through_one_index)(x, v), expected, rtol=1e-5, atol=1e-7
    )


def indexing(x):
    a = x[1, ::-1] * x[:, None, 0]
    b = x[x[:, 0] > 0]
    c = x[np.array([0, 0, 2]), -1]
    return np.sum(a**2) + np.sum(b * 3) + np.sum(c**3) + x.shape[0] * x.ndim * np.sum(x.T[0])


def test_index_reads(rng):
    check_grad(indexing, rng.normal(size=(4, 3)))


def writes_into_an_argument(x):
    x[0] = 1.0
    return np.sum(x)


def writes_into_a_view(x):
    y = x[1:]
    y[0] = 1.0
    return np.sum(y)


@pytest.mark.parametrize("fn", [writes_into_an_argument, writes_into_a_view])
def test_writing_into_caller_memory_is_rejected(fn):
    with pytest.raises(nf.UnsupportedError) as error:
        nf.grad(fn)
    assert "copy()" in str(error.value) and "test_control_flow.py" in str(error.value)


# --- tuples and containers ----------------------------------------------------------------------
def normalize(x, gain):
    m = np.mean(x, axis=0)
    return (x - m) / np.std(x, axis=0) * gain, m


def uses_one_output(x, gain):
    y, m = normalize(x, gain)
    a, b = y[0], y[1] * 2
    return np.sum(np.sin(y)) + np.sum(a * b)


def test_tuple_returned_by_a_callee_and_unpacked(rng):
    check_grad(uses_one_output, rng.normal(size=(5, 3)), rng.normal(size=3))


def swaps(x, y):
    a, b = x * 2, y + 1
    for _ in range(3):
        a, b = b, a * b  # reads both before writing either
    return np.sum(a * 3 + b)


def test_swapping_names_passes_their_gradients(rng):
    # the gradient was 0: the copies holding the old values were taken for constants
    x, y = rng.normal(size=4), rng.normal(size=4)
    gx, gy = check_grad(swaps, x, y)
    _, tangent = nf.jvp(swaps, wrt=(0, 1))(x, y, (np.ones(4), np.zeros(4)))
    assert tangent == pytest.approx(np.sum(gx))


def rows_written_after_their_view_is_read(w, x):
    h = np.zeros((4, 3))
    for t in range(1, 4):
        previous = h[t - 1]  # a view of h, not read after h changes: fine
        h[t] = np.tanh(w @ previous + x[t])
    total, before = 0.0, 0.0
    for v in h[:, 0]:
        before = total
        total += v  # a float: += rebinds, `before` keeps the old value
    return np.sum(h**2) + total * before


def test_views_and_aliases_not_read_after_a_write(rng):
    check_grad(
        rows_written_after_their_view_is_read, rng.normal(size=(3, 3)), rng.normal(size=(4, 3))
    )


def ignores_its_first_argument(x, y):
    return np.ones(3) * y


def calls_a_function_flat_in_x(x):
    return np.sum(ignores_its_first_argument(x, x * 3) * x)


def test_a_callee_whose_result_does_not_depend_on_an_argument(rng):
    # its backward half returned zeros_like(x) without x having been saved: a NameError
    check_grad(calls_a_function_flat_in_x, rng.normal(size=3))


def windows_and_count(x, size):
    n, length = x.shape
    count = length - size + 1
    return np.lib.stride_tricks.sliding_window_view(x, size, axis=1), n, count


def uses_the_sizes_a_callee_returns(x, w):
    windows, n, count = windows_and_count(x, w.shape[0])
    return np.sum(np.tanh(windows @ w).reshape(n * count))  # ints from a callee as a shape


def test_sizes_returned_beside_an_array_are_constants(rng):
    source = nf.grad(uses_the_sizes_a_callee_returns, wrt=(0, 1)).source
    # only the array is differentiated, and the callee named as it is (one variant of it)
    assert "runtime.unpack_adjoint(b_out, (_t0, None, None))" in source
    assert "fwd_windows_and_count(" in source
    check_grad(
        uses_the_sizes_a_callee_returns, rng.normal(size=(2, 6)), rng.normal(size=3), wrt=(0, 1)
    )


def test_vjp_of_a_tuple_output(rng):
    x, gain = rng.normal(size=(5, 3)), rng.normal(size=3)
    (y, m), pullback = nf.vjp(normalize)(x, gain)
    u, v = rng.normal(size=y.shape), rng.normal(size=m.shape)
    from gradcheck import numerical_grad

    expected = numerical_grad(
        lambda x_: np.sum(normalize(x_, gain)[0] * u) + np.sum(normalize(x_, gain)[1] * v), (x,), 0
    )
    np.testing.assert_allclose(pullback((u, v)), expected, rtol=1e-5)


def test_grad_of_a_tuple_is_an_error():
    with pytest.raises(nf.ArgumentError) as error:
        nf.grad(normalize)
    assert "tuple" in str(error.value) and "vjp" in str(error.value)


def dict_mlp(params, x):
    h = np.tanh(x @ params["w1"] + params["b1"])
    for i in range(len(params["scales"])):
        h = h * params["scales"][i]
    return np.mean((h @ params["w2"]) ** 2) + params["meta"]["reg"] * np.sum(params["w1"] ** 2)


def test_pytree_argument_gets_a_pytree_gradient(rng):
    from gradcheck import numerical_grad

    params = {
        "w1": rng.normal(size=(3, 4)),
        "b1": rng.normal(size=4),
        "w2": rng.normal(size=(4, 2)),
        "scales": [1.1, rng.normal(size=4)],
        "meta": {"reg": 0.1, "steps": 3},
    }
    x = rng.normal(size=(5, 3))
    g = nf.grad(dict_mlp)(params, x)
    assert set(g) == set(params) and g["meta"]["steps"] is None
    for key in ("w1", "b1", "w2"):

        def along(leaf, key=key):
            return dict_mlp({**params, key: leaf}, x)

        np.testing.assert_allclose(g[key], numerical_grad(along, (params[key],), 0), rtol=1e-5)
    assert isinstance(g["scales"], list)
    scales = params["scales"]
    np.testing.assert_allclose(
        g["scales"][1],
        numerical_grad(
            lambda s: dict_mlp({**params, "scales": [scales[0], s]}, x), (scales[1],), 0
        ),
        rtol=1e-5,
    )
    assert g["meta"]["reg"] == pytest.approx(np.sum(params["w1"] ** 2))


def ternaries(x, scale):
    y = x * 2 if np.sum(x) > 0 else np.sin(x)
    z = np.sum(y * (scale if scale > 1 else 1.0))
    for i in range(3):
        z = z * 0.5 if i % 2 else z + np.sum(x**2)
    return z


@pytest.mark.parametrize("shift", [1.0, -1.0])
def test_conditional_expressions(rng, shift):
    check_grad(ternaries, rng.uniform(0, 1, size=3) * shift, 2.0, wrt=(0, 1))
    check_grad(ternaries, rng.uniform(0, 1, size=3) * shift, 0.5, wrt=(0, 1))


def ternaries_reading_what_they_assign(x, scale):
    h = np.tanh(x) if scale > 1 else np.sin(x)
    h = np.tanh(h) if scale > 1 else np.sin(h)  # (reads the h of the line before)
    h = h * scale if np.sum(h) > 0 else helper_square(h)
    return np.sum(h)


def helper_square(h):
    return h**2


@pytest.mark.parametrize("scale", [2.0, 0.5])
def test_a_conditional_expression_reads_the_value_it_replaces(rng, scale):
    # (it read the new version of h, never assigned: a gradient of 0, or a NameError)
    for shift in (1.0, -1.0):
        x = rng.uniform(0.1, 1, size=3) * shift
        check_grad(ternaries_reading_what_they_assign, x, scale, wrt=0)
        _, tangent = nf.jvp(ternaries_reading_what_they_assign)(x, scale, np.ones(3))
        expected = numerical_grad(ternaries_reading_what_they_assign, (x, scale), 0)
        assert tangent == pytest.approx(np.sum(expected), rel=1e-6)


def scaled_by_sines(s, x, n):
    for i in range(n):
        s = s * np.sin(x[i])
    return s


def through_a_helper_looping_n_times(x, n):
    return scaled_by_sines(x[0], x, n) * 2.0


def product_of_sines(s, xs):
    for v in xs:
        s = s * np.sin(v)
    return s


def a_built_list_passed_to_a_helper(x, n):
    return product_of_sines(x[0], [x[i] for i in range(n)]) * 2.0


@pytest.mark.parametrize("fn", [through_a_helper_looping_n_times, a_built_list_passed_to_a_helper])
@pytest.mark.parametrize("n", [0, 2])
def test_helpers_whose_loops_may_run_no_time(fn, n):
    """A helper's loop running no time left its target unbound among the saved values; a
    list built with append passed to a helper got back an adjoint its appends could not pop
    (both raised from the emitted code)."""
    x = np.array([0.5, 0.7, -0.2, 0.1])
    value, _ = nf.value_and_grad(fn)(x, n)
    assert value == pytest.approx(fn(x, n))
    check_grad(fn, x, n, wrt=0)


def list_read_on_one_path(x):
    s, h = x[0], x * 0.5
    hs = []
    for i in range(2):
        hs.append(h * s)
    if s > 0:
        return s * 2.0
    return s + sum(np.sum(v) for v in hs)


@pytest.mark.parametrize("first", [0.5, -0.5])
def test_a_list_built_with_append_read_on_one_path_only(first):
    """On the path that returns early the list's adjoint is a zero Sparse, which the reverse
    of its appends popped: TypeError from the emitted code."""
    x = np.array([first, 0.7, -0.2, 0.1])
    value, _ = nf.value_and_grad(list_read_on_one_path)(x)
    assert value == pytest.approx(list_read_on_one_path(x))
    check_grad(list_read_on_one_path, x, wrt=0)


# --- branches under a constant test: dropped as the function is read -----------------------------
def dead_branches(x):
    if False:
        try:
            x = np.linalg.eigvals(np.outer(x, x))
        except ValueError:
            pass
    if 0:
        y = x**3
    else:
        y = np.sin(x) * x
    while None:
        y = np.exp(y)
    if not False:
        z = np.cos(y) if True else np.linalg.eigvals(np.outer(x, x))
    return np.sum(z * y) + np.sum(x**5 if 0 else x**2)


def test_constant_tests_keep_only_the_branch_python_runs(rng):
    pytest.importorskip("autograd")  # (the oracle; CI's oldest-dependency run has none)
    from oracle import autograd_grad, autograd_hvp

    x, v = rng.normal(size=3), rng.normal(size=3)
    g = check_grad(dead_branches, x)[0]
    np.testing.assert_allclose(g, autograd_grad(dead_branches, (x,), 0), rtol=1e-10)
    tangent = nf.jvp(dead_branches)(x, v)[1]
    np.testing.assert_allclose(tangent, g @ v, rtol=1e-10)
    np.testing.assert_allclose(
        nf.hvp(dead_branches)(x, v), autograd_hvp(dead_branches, (x,), 0, v), rtol=1e-9
    )
    source = nf.grad(dead_branches).source
    assert "eig" not in source and "if " not in source and "while" not in source


def test_a_name_bound_only_in_a_dead_branch_is_an_error_at_its_read():
    def f(x):
        if False:
            y = x
        return np.sum(np.sin(x)) + np.sum(y)

    with pytest.raises(nf.UnsupportedError) as error:
        nf.grad(f)
    line = f.__code__.co_firstlineno + 3
    assert f"test_control_flow.py:{line}: `y` is bound only in the branch" in str(error.value)
    assert f"constant test at line {line - 2}" in str(error.value)
    assert "UnboundLocalError" in str(error.value)


def test_a_name_a_local_function_binds_only_in_a_dead_branch_is_an_error_too():
    def f(x):
        def g(z):
            if False:
                x = z
            return x * z  # (Python: UnboundLocalError, not f's x)

        return np.sum(g(x))

    with pytest.raises(nf.UnsupportedError, match="`x` is bound only in the branch"):
        nf.grad(f)
