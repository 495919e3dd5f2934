"""A read the same in every iteration of a loop is done once, before it (loop_reads.py): no
stack keeps it per iteration; where it may differ, or a loop that runs no iteration would not
make it, it stays in the loop. Each gradient is checked against finite differences."""

from collections import namedtuple

import numpy as np

import srcdiff as nf
from gradcheck import check_grad
from pytree_oracle import assert_leaves_close, finite_differences

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
    assert "    params_w = params['w']\n    params_b = params['b']\n    for _ in range(3):" in (
        source
    ), source
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
