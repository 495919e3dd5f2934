"""A read the same in every iteration of a loop is done once, before it (loop_reads.py): no
stack keeps it per iteration; where it may differ, or a loop that runs no iteration would not
make it, it stays in the loop. Each gradient is checked against finite differences."""

from collections import namedtuple

import numpy as np

import srcdiff as nf
from gradcheck import check_grad
from pytree_oracle import (
    assert_leaves_close,
    check_tangent,
    checked_hvp,
    finite_differences,
)

Layer = namedtuple("Layer", ["W", "b"])


def _checked(function, args):
    """The emitted source of function's gradient, the gradient checked (optimised and not)."""
    for optimized in (True, False):
        got = nf.grad(function, optimized=optimized)(*args)
        assert_leaves_close(got, finite_differences(function, args), 1e-5, 1e-7, "gradient")
    return nf.grad(function).source


def blocks_in_a_loop(params, x):
    h = x
    for i in range(len(params["blocks"])):
        h = np.tanh(h * params["blocks"][i]["w"]) + params["scale"]
    return np.sum(h)


def test_a_list_of_blocks_is_read_once_before_the_loop(rng):
    params = {"blocks": [{"w": rng.normal(size=3)} for _ in range(3)], "scale": 0.5}
    source = _checked(blocks_in_a_loop, (params, rng.normal(size=3)))
    assert "    params_blocks = params['blocks']\n    for i in range(len(params_blocks)):\n" in (
        source
    ), source
    assert "_t1 = params_blocks[i]" in source and "_stack_t0" not in source
    assert "bparams_blocks = runtime.add_at(bparams_blocks, params_blocks, i," in source
    # params['scale'] is not read by range(len(...)): a loop of no iteration would not read it
    assert "        _t5 = params['scale']\n" in source


def test_the_specialised_code_keeps_the_read_out_of_the_loop(rng):
    params = {"blocks": [{"w": rng.normal(size=3)} for _ in range(2)], "scale": 0.5}
    x = rng.normal(size=3)
    grad = nf.grad(blocks_in_a_loop)
    specialised = grad.source_for(params, x)
    assert "params_blocks = params['blocks']" in specialised, specialised
    assert "_stack_t0" not in specialised
    assert_leaves_close(
        grad(params, x), finite_differences(blocks_in_a_loop, (params, x)), 1e-5, 1e-7, "bparams"
    )


def reads_in_a_loop_that_surely_runs(params, x):
    total = 0.0
    for _ in range(3):
        total = total + np.sum(np.sin(params["w"] * x + total)) * params["b"]
    return total


def test_a_loop_of_a_constant_count_reads_its_first_reads_once(rng):
    params = {"w": rng.normal(size=4), "b": 1.5}
    source = _checked(reads_in_a_loop_that_surely_runs, (params, rng.normal(size=4)))
    # (and so does the product of the two invariants: loop_computations.py)
    assert (
        "    params_w = params['w']\n    params_b = params['b']\n    _t1 = params_w * x\n"
        "    for _ in range(3):"
    ) in source, source
    assert "params['" not in source.split("for _ in range(3):")[1]
    assert "bparams = {'w': bparams_w, 'b': bparams_b}" in source


def missing_key_in_a_loop_of_no_iteration(params, x, n):
    total = np.sum(x * params["w"])
    for _ in range(n):
        total = total + np.sum(params["missing"] * x)
    return total


def test_a_loop_that_may_run_no_iteration_reads_nothing_more_before_it(rng):
    """params['missing'] is not there, and the loop runs no iteration: reading it before
    the loop would raise a KeyError the function does not."""
    params, x = {"w": rng.normal(size=3)}, rng.normal(size=3)
    grad = nf.grad(missing_key_in_a_loop_of_no_iteration)(params, x, 0)
    np.testing.assert_allclose(grad["w"], x)
    assert "        _t2 = params['missing']\n" in (
        nf.grad(missing_key_in_a_loop_of_no_iteration).source
    )


def params_rebound_in_the_loop(params, x):
    for _ in range(3):
        x = np.tanh(x * params["w"])
        params = {"w": params["w"] * 0.5}
    return np.sum(x)


def test_a_container_rebound_in_the_loop_is_read_in_each_iteration(rng):
    source = _checked(params_rebound_in_the_loop, ({"w": rng.normal(size=3)}, rng.normal(size=3)))
    loop = source.split("for _ in range(3):")[1]
    assert "params['w']" in loop or "params_1['w']" in loop, source


def row_written_in_the_loop(x):
    y = x * 1.0
    total = 0.0
    for _ in range(3):
        total = total + np.sum(y[0] * x)
        y[0] = y[0] * 2.0
    return total


def test_a_row_of_an_array_written_in_the_loop_is_read_in_each_iteration(rng):
    check_grad(row_written_in_the_loop, rng.normal(size=(2, 3)))
    loop = nf.grad(row_written_in_the_loop).source.split("for _ in range(3):")[1]
    assert "y[0]" in loop.split("\n")[1], loop


def layer_attributes_in_a_loop(layer, x):
    for _ in range(2):
        x = np.tanh(x @ layer.W + layer.b)
    return np.sum(x)


def test_attributes_are_read_once_before_a_loop_that_surely_runs(rng):
    layer = Layer(rng.normal(size=(3, 3)), rng.normal(size=3))
    x = rng.normal(size=(2, 3))
    source = nf.grad(layer_attributes_in_a_loop).source
    assert "    layer_W = layer.W\n    layer_b = layer.b\n    for _ in range(2):" in source, source
    got = nf.grad(layer_attributes_in_a_loop)(layer, x)
    expected = finite_differences(layer_attributes_in_a_loop, (layer, x))
    assert_leaves_close(got, expected, 1e-5, 1e-7, "blayer")


def key_named_like_a_local(params, x, n):
    w = x * 2.0
    total = 0.0
    for _ in range(n):
        total = total + np.sum(params["w"] * w) * params["b"]
    return total


def test_a_loops_sum_at_a_key_is_not_named_as_a_locals_adjoint(rng):
    """The loop (which may run no iteration) adds to params' adjoint at 'w' and 'b': the sum
    at 'w' is not `bw`, which reads as the adjoint of the local w, but `bparams_w`; the one
    at 'b', where no local is b, is `bb`."""
    params, x = {"w": rng.normal(size=3), "b": 0.7}, rng.normal(size=3)
    grad = nf.grad(key_named_like_a_local)
    source = grad.source
    assert "    bparams_w = 0.0\n" in source and "    bb = 0.0\n" in source, source
    assert "bparams = {'w': bparams_w, 'b': bb}" in source
    assert " bw " not in source
    got = grad(params, x, 3)
    expected = finite_differences(key_named_like_a_local, (params, x, 3))
    assert_leaves_close(got, expected, 1e-5, 1e-7, "bparams")
    split = nf.vjp(key_named_like_a_local)
    out, pullback = split(params, x, 2)
    assert_leaves_close(
        pullback(1.0),
        finite_differences(key_named_like_a_local, (params, x, 2)),
        1e-5,
        1e-7,
        "vjp",
    )


def test_resnet_reads_its_blocks_once_and_names_their_adjoint_apart_from_its_local_blocks():
    """resnet.forward loops over range(len(params['blocks'])) and has a local list `blocks`
    (the new statistics): params['blocks'] is read once, before the loop, kept whole (the
    backward loop's range reads it) rather than its shape once per block, and its adjoint is
    `bparams_blocks`, not `bblocks`, which would read as the adjoint of that local."""
    from srcdiff import resnet

    source = nf.grad(resnet.loss).source
    forward = source[source.index("def fwd_forward(") : source.index("def bwd_forward(")]
    assert "    params_blocks = params['blocks']\n    for i in range(len(params_blocks)):\n" in (
        forward
    ), forward
    assert "_t8 = params_blocks[i]" in forward and "_stack_t7" not in source
    assert "bblocks" not in source and "'blocks': bparams_blocks" in source
    assert "    for i in reversed(range(len(params_blocks))):\n" in source


# --- computations the same in every iteration (loop_computations.py) ------------------------


def springs(k, x0):
    x, v, t, dt = x0, np.zeros_like(x0), 0.0, 0.05
    while t < 1.0:
        a = -k * x - 0.1 * v
        v = v + dt * a
        x = x + dt * v
        t += dt
    return np.sum(x**2)


def test_a_while_loop_computes_its_invariant_once_and_keeps_no_stack_of_it(rng):
    for k in (1.3, rng.random(3) + 0.5):
        args = (k, rng.normal(size=3))
        source = _checked(springs, args)
        assert "    _t0 = -k\n    _n0 = 0\n    while t < 1.0:\n" in source, source
        assert "_stack_t0" not in source and "_t0 = -k" not in source.split("while")[1]
        # (its adjoint sums over the iterations, and k's is taken once, after the loop)
        assert "    bk = -b_t0\n" in source
        assert "_stack_t0" not in nf.grad(springs).source_for(*args)
        check_tangent(springs, args)
        checked_hvp(springs, args)


def scaled_sum(x, scale, n):
    total = 0.0
    for i in range(n):
        s = scale * 2.0
        w = np.tanh(scale) * x
        total = total + np.sum(w * s) * i
    return total


def test_a_loop_that_may_run_no_iteration_moves_only_what_cannot_raise(rng):
    """scale * 2.0 cannot raise, so it moves before a loop over range(n); np.tanh(scale)
    may warn (or raise, under np.errstate) and stays in the loop, as does what it feeds."""
    args = (rng.normal(size=4), 0.7, 3)
    check_grad(scaled_sum, *args, wrt=(0, 1))
    source = nf.grad(scaled_sum, wrt=(0, 1)).source
    before, loop = source.split("for i in range(n):")[:2]
    assert "    s = scale * 2.0\n" in before and "s = scale" not in loop.split("return")[0]
    assert "        _t0 = np.tanh(scale)\n" in loop, source
    assert "_stack_s" not in source


def divided_in_a_loop(x, k, n):
    total = np.sum(x)
    for _ in range(n):
        total = total + np.sum(x / k)
    while total > 1e9:
        total = total * (1.0 / k)
    return total


def test_a_loop_of_no_iteration_does_not_divide_by_zero_before_it(rng):
    """x / k and 1.0 / k by k = 0.0, a Python float, raise ZeroDivisionError; neither loop
    runs an iteration, so the function raises nothing and neither may its gradient."""
    x = rng.normal(size=3)
    np.testing.assert_allclose(nf.grad(divided_in_a_loop)(x, 0.0, 0), np.ones(3))
    np.testing.assert_allclose(nf.jvp(divided_in_a_loop)(x, 0.0, 0, x)[1], np.sum(x))
    source = nf.grad(divided_in_a_loop).source
    assert "        _t0 = x / k\n" in source and "        _t3 = 1.0 / k\n" in source, source
    check_grad(divided_in_a_loop, x, 2.0, 2, wrt=(0, 1))


def invariants_of_a_loop_that_surely_runs(x, k):
    total = 0.0
    for _ in range(3):
        total = total + np.sum(np.exp(k) / k * x) + total * x[0]
    return total


def test_a_loop_that_surely_runs_moves_any_pure_computation_it_starts_with(rng):
    args = (rng.normal(size=3), 0.8)
    check_grad(invariants_of_a_loop_that_surely_runs, *args)
    source = nf.grad(invariants_of_a_loop_that_surely_runs, wrt=(0, 1)).source
    before = source.split("for _ in range(3):")[0]
    assert "_t0 = np.exp(k)\n    _t1 = _t0 / k\n    _t2 = _t1 * x\n    _t3 = np.sum(_t2)\n" in (
        before
    ), source
    assert "_stack_t0" not in source and "_stack_t2" not in source


def rebound_or_written_in_the_loop(x, k):
    y = x * 1.0
    c = k
    for i in range(3):
        y[i] = y[i] * (-c)
        c = c * 0.5
    return np.sum(y)


def test_nothing_moves_that_the_loop_changes(rng):
    """-c reads c, rebound in the loop; and a function writing into an array moves nothing."""
    args = (rng.normal(size=3), 0.8)
    check_grad(rebound_or_written_in_the_loop, *args)
    loop = nf.grad(rebound_or_written_in_the_loop, wrt=(0, 1)).source.split("for i in")[1]
    assert " = -c" in loop and " = c * 0.5" in loop, loop
