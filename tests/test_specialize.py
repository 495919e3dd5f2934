"""Shape specialisation (specialize.py, shapes.py): each call runs the emitted code rewritten
for its arguments' types and shapes. The whole suite runs in check mode (conftest.py), where
each call's result is compared with the generic code's; these tests pin down what is
rewritten, what is not, and what the variants return."""

import ast
import re

import gast
import numpy as np
import pytest

import srcdiff as nf
from gradcheck import check_grad, numerical_grad
from srcdiff import codegen, conversion, nn, shapes, signatures, specialize, transform
from srcdiff.modes import Mode
from srcdiff.passes import saved_lists


@pytest.fixture
def unchecked():
    """Variants as they run outside the tests, without the generic code beside them."""
    nf.config(specialize=True)
    yield
    nf.config(specialize="check")


def rnn(w, b, h, xs):
    for t in range(xs.shape[0]):
        h = np.tanh(w @ h + xs[t] + b)
    return np.sum(h**2)


def test_rnn_variant_calls_no_helpers_and_keeps_no_shapes(rng, unchecked):
    w, b, h, xs = (
        rng.normal(size=(4, 4)),
        rng.normal(size=4),
        rng.normal(size=4),
        rng.normal(size=(6, 4)),
    )
    df = nf.grad(rnn, wrt=(0, 1))
    source = df.source_for(w, b, h, xs)
    assert "runtime." not in source
    assert "_stack_t0" not in source and "_stack_h" in source  # only h is read backwards
    assert "bw += np.outer(" in source and "bb += b_t3" in source
    generic = df._call(w, b, h, xs)
    for got, want in zip(df(w, b, h, xs), generic):
        np.testing.assert_array_equal(got, want)
    check_grad(rnn, w, b, h, xs, wrt=(0, 1))


def mlp(w, b, x):
    return np.mean((np.tanh(x @ w + b) - 1.0) ** 2)


def stacked_rows(x):
    rows = [np.tanh(row) for row in x]
    return np.sum(np.stack(rows) ** 2)


def test_a_list_built_with_append_and_stacked_is_specialised(rng, unchecked):
    # it was not: the shape inference gave up on a list that is more than a stack
    x = rng.normal(size=(3, 2))
    df = nf.grad(stacked_rows)
    assert "bx = np.zeros_like(x)" in df.source_for(x)
    check_grad(stacked_rows, x)


def test_broadcasts_become_sums_with_literal_axes(rng, unchecked):
    w, b, x = rng.normal(size=(3, 5)), rng.normal(size=5), rng.normal(size=(7, 3))
    source = nf.grad(mlp, wrt=(0, 1)).source_for(w, b, x)
    assert "bb = b_t1.sum(axis=0)" in source
    # the mean's adjoint stays one number: it is only ever multiplied elementwise
    assert "b_t4 = b_t5 / 35\n" in source and "broadcast_to" not in source
    assert "x.T @ " in source and "runtime." not in source
    check_grad(mlp, w, b, x, wrt=(0, 1))


def test_a_spread_adjoint_read_by_a_reduction_stays_an_array(rng, unchecked):
    def scaled(x):
        return np.sum(np.sum(x) * x)

    x = rng.normal(size=(3, 4))
    source = nf.grad(scaled).source_for(x)
    assert "np.broadcast_to(" in source  # np.sum(b * x) needs b as big as x
    check_grad(scaled, x)


def sums_in_a_loop(x):
    total = 0.0
    for i in range(3):
        total = total + np.sum(np.sin(x * i)) + np.sum(np.cumsum(x * i))
    return total


def test_a_spread_adjoint_in_a_loop_stays_one_number_where_read_elementwise(rng, unchecked):
    x = rng.normal(size=4)
    source = nf.grad(sums_in_a_loop).source_for(x)
    assert "b_t0 = btotal * np.cos(_t0)\n" in source
    assert "b_t5 = np.broadcast_to(btotal, (4,))\n" in source  # (reverse_cumsum's operand)
    check_grad(sums_in_a_loop, x)


def test_float32_loss_needs_no_value_for_its_seed(rng, unchecked):
    w, b, x = (rng.normal(size=s).astype(np.float32) for s in ((3, 5), (5,), (7, 3)))
    df = nf.grad(mlp, wrt=(0, 1))
    source = df.source_for(w, b, x)
    assert "np.mean" not in source and "np.ones((), np.float32)" in source
    gw, gb = df(w, b, x)
    assert gw.dtype == gb.dtype == np.float32
    np.testing.assert_allclose(gb, numerical_grad(mlp, (w, b, x), 1), rtol=1e-2, atol=1e-3)


def test_each_signature_gets_its_own_variant(rng):
    df = nf.grad(mlp, wrt=1)
    for rows, dtype in ((7, np.float64), (2, np.float64), (7, np.float32)):
        w = rng.normal(size=(3, 5)).astype(dtype)
        b = rng.normal(size=5).astype(dtype)
        x = rng.normal(size=(rows, 3)).astype(dtype)
        g = df(w, b, x)
        assert g.dtype == dtype and g.shape == (5,)
        if dtype == np.float64:
            np.testing.assert_allclose(g, numerical_grad(mlp, (w, b, x), 1), rtol=1e-6, atol=1e-8)
    assert len(df._variants) == 3


def test_variants_are_capped_and_keywords_run_the_generic_code(rng, monkeypatch):
    monkeypatch.setattr(specialize, "MAX_VARIANTS", 2)
    df = nf.grad(mlp)
    for rows in (1, 2, 3, 4):
        w, b, x = rng.normal(size=(3, 2)), rng.normal(size=2), rng.normal(size=(rows, 3))
        np.testing.assert_allclose(
            df(w, b, x), numerical_grad(mlp, (w, b, x), 0), rtol=1e-6, atol=1e-8
        )
    assert len(df._variants) == 2
    np.testing.assert_allclose(df(w, b=b, x=x), df(w, b, x))


def test_a_value_dependent_shape_keeps_the_helpers(rng, unchecked):
    def masked(x):
        positive = x[x > 0]  # how many elements: known only from the values
        return np.sum(positive * positive[0])

    x = rng.normal(size=6)
    x[0] = 1.0
    source = nf.grad(masked).source_for(x)
    assert "runtime.getitem_grad" in source
    check_grad(masked, x)


def test_an_unknown_int_never_decides_a_shape(rng):
    def prefix(x, n):
        total = 0.0
        for k in range(n):
            total = total + np.sum(x[:k] ** 2)  # x[:k]: a shape that depends on k
        return total

    x = rng.normal(size=5)
    check_grad(prefix, x, 4, wrt=0)


def test_a_broadcast_gradient_is_handed_out_writeable(rng, unchecked):
    def total(x, y):
        return np.sum(x + y)

    x, y = rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    g = nf.grad(total)(x, y)  # the adjoint of sum is a read-only broadcast view
    assert g.flags.writeable and np.all(g == 1.0)
    assert ".copy()" in nf.grad(total).source_for(x, y)


def test_read_only_arguments(rng):
    def f(x, w):
        return np.sum(np.tanh(x @ w))

    x, w = rng.normal(size=(3, 4)), rng.normal(size=(4, 2))
    x.flags.writeable = w.flags.writeable = False
    g = nf.grad(f, wrt=(0, 1))(x, w)
    assert all(a.flags.writeable for a in g)
    check_grad(f, x, w)


def polynomial(x, coefficients):
    total = 0.0
    for c in coefficients:
        total = total * x + c
    return total


def test_gradient_with_respect_to_a_float_runs_forward_mode(unchecked):
    coefficients = [0.5, -1.0, 2.0, 0.25]
    df = nf.grad(polynomial)
    source = df.source_for(0.3, coefficients)
    assert "_stack" not in source and "reversed" not in source
    assert "d_t0 = dtotal * x + total\n" in source  # the seed tangent 1.0 is folded away
    g = df(0.3, coefficients)
    assert type(g) is float
    assert g == pytest.approx(numerical_grad(polynomial, (0.3, coefficients), 0))
    g, value = nf.grad(polynomial, preserve_result=True)(0.3, coefficients)
    assert value == pytest.approx(polynomial(0.3, coefficients))
    assert g == pytest.approx(numerical_grad(polynomial, (0.3, coefficients), 0))


def test_forward_mode_is_not_used_for_a_non_scalar_output():
    def vector(x):
        return np.ones(3) * x

    with pytest.raises(nf.ArgumentError, match="grad needs a scalar output"):
        nf.grad(vector)(0.5)


def test_a_float_argument_of_an_array_function(rng):
    def scale(s, x):
        return np.sum(np.sin(s * x) ** 2)

    x = rng.normal(size=(3, 2))
    g = nf.grad(scale)(0.7, x)
    assert type(g) is float
    assert g == pytest.approx(numerical_grad(scale, (0.7, x), 0), rel=1e-6)
    check_grad(scale, 0.7, x, wrt=1)


def test_check_mode_catches_a_wrong_rewrite(rng, monkeypatch):
    def wrong_unbroadcast(node, g, x):
        return node.args[0]  # "equal shapes", whatever the shapes are

    from srcdiff import runtime
    from srcdiff.primitives import registry

    monkeypatch.setattr(registry.find(runtime.unbroadcast), "rewrite", wrong_unbroadcast)
    w, b, x = rng.normal(size=(3, 5)), rng.normal(size=5), rng.normal(size=(7, 3))
    with pytest.raises(
        AssertionError,
        match=r"specialised code computed ndarray \(7, 5\) "
        r"float64 where the generic code computes ndarray \(5,\)",
    ):
        nf.grad(mlp, wrt=1)(w, b, x)


def test_specialisation_can_be_turned_off(rng):
    nf.config(specialize=False)
    try:
        df = nf.grad(mlp)
        w, b, x = rng.normal(size=(3, 5)), rng.normal(size=5), rng.normal(size=(7, 3))
        df(w, b, x)
        assert not df._variants
        assert df.source_for(w, b, x) == df.source
    finally:
        nf.config(specialize="check")
    with pytest.raises(nf.ArgumentError, match="specialize must be True, False or 'check'"):
        nf.config(specialize="sometimes")


# --- the inference itself ---------------------------------------------------------------------


def test_describe_and_key_agree():
    values = [
        1.5,
        3,
        True,
        None,
        "s",
        np.float32(2.0),
        np.ones((2, 3), np.float32),
        [1.0, 2.0],
        [1.0, 2],
        (np.ones(2), 1.0),
        {"a": np.ones(1), "b": [0.5]},
    ]
    for a in values:
        for b in values:
            assert (signatures.key(a) == signatures.key(b)) == (
                signatures.describe(a) == signatures.describe(b)
            ), (
                a,
                b,
            )


def test_python_powers_of_unknown_sign_are_unknown():
    number = signatures.describe(0.5)
    assert shapes.binary(pow, number, shapes.Const(2)) == number
    assert shapes.binary(pow, number, shapes.Const(0.5)) is shapes.UNKNOWN  # maybe complex
    array = signatures.describe(np.ones(3))
    assert shapes.binary(pow, array, shapes.Const(0.5)).shape == (3,)


def test_joins():
    f32 = signatures.describe(np.ones(2, np.float32))
    f64 = signatures.describe(np.ones(2))
    assert shapes.join(f32, f64) is shapes.UNKNOWN
    assert shapes.join(shapes.Const(0.0), signatures.describe(1.5)) == signatures.describe(1.5)
    assert shapes.join(shapes.Const(1), shapes.Const(2)).type is int
    assert shapes.join(shapes.BOTTOM, f32) == f32


def dense(w, b, x):
    return np.tanh(x @ w + b)


def layered(params, x, scaled):
    h = dense(params["w1"], params["b1"], x)
    if scaled:
        h = h * 0.5
    return np.mean((h @ params["w2"]) ** 2)


def test_callees_get_copies_specialised_for_their_arguments(rng, unchecked):
    params = {
        "w1": rng.normal(size=(3, 4)),
        "b1": rng.normal(size=4),
        "w2": rng.normal(size=(4, 2)),
    }
    x = rng.normal(size=(5, 3))
    df = nf.grad(layered)
    source = df.source_for(params, x, True)
    assert re.search(r"fwd_dense_s\d+\(", source) and "bwd_dense_s" in source
    dense_code = source[source.index("def fwd_dense_s") :]
    assert "runtime." not in dense_code  # h is known (5, 4) in the caller
    assert "bb = b_t1.sum(axis=0)" in dense_code
    assert "if " not in source  # scaled is the constant True in this variant
    generic = df._call(params, x, True)
    for key in params:
        np.testing.assert_array_equal(df(params, x, True)[key], generic[key])
    expected = numerical_grad(lambda w1: layered(dict(params, w1=w1), x, False), (params["w1"],), 0)
    np.testing.assert_allclose(df(params, x, False)["w1"], expected, rtol=1e-6, atol=1e-9)


def conv_relu(x, w):
    return np.sum(nn.relu(nn.conv2d(x, w, 1, 1)) ** 2)


def test_shapes_are_followed_through_a_conv_layer(rng, unchecked):
    x, w = rng.normal(size=(2, 3, 6, 6)), rng.normal(size=(4, 3, 3, 3))
    df = nf.grad(conv_relu, wrt=(0, 1))
    source = df.source_for(x, w)
    assert re.search(r"fwd_relu_s\d+\(", source) and "bx = b_t1 * _t0" in source
    assert "runtime.unbroadcast" not in source and "runtime.grad_seed" not in source
    gx, gw = df(x, w)
    assert gx.flags.writeable and gw.flags.writeable
    check_grad(conv_relu, x, w)


def test_a_failure_to_specialise_falls_back_to_the_generic_code(rng, monkeypatch, unchecked):
    def broken(*args):
        raise KeyError("a bug")

    monkeypatch.setattr(specialize, "reverse_variant", broken)
    w, b, x = rng.normal(size=(3, 5)), rng.normal(size=5), rng.normal(size=(7, 3))
    with pytest.warns(UserWarning, match=r"could not specialise dmlp .*KeyError.*generic code"):
        g = nf.grad(mlp, wrt=1)(w, b, x)
    np.testing.assert_allclose(g, numerical_grad(mlp, (w, b, x), 1), rtol=1e-6, atol=1e-8)


def test_a_defaulted_float_in_wrt(rng):
    def scaled(x, s=0.5):
        return np.sum(np.sin(x * s))

    x = rng.normal(size=3)
    assert nf.grad(scaled, wrt=1)(x) == pytest.approx(
        numerical_grad(lambda s: scaled(x, s), (0.5,), 0), rel=1e-6
    )


def guarded(x, w):
    assert x.shape[1] == w.shape[0], "x and w do not fit"
    if np.any(np.isnan(x)):
        raise ValueError("x has a NaN")
    return np.sum(np.tanh(x @ w))


def test_asserts_and_raises_are_specialised_through(rng, unchecked):
    x, w = rng.normal(size=(4, 3)), rng.normal(size=(3, 2))
    df = nf.grad(guarded, wrt=(0, 1))
    source = df.source_for(x, w)
    assert "assert x.shape[1] == w.shape[0]" in source and "runtime." not in source
    check_grad(guarded, x, w)
    x[0, 0] = np.nan
    with pytest.raises(ValueError, match="x has a NaN"):
        df(x, w)


def dense_twice_and_looped(w, b, x, xs):
    h = dense(w, b, x) + dense(w, b, x * 2.0)
    for t in range(xs.shape[0]):
        h = h + dense(w, b, xs[t])
    return np.sum(h**2)


def test_a_specialised_pair_saves_only_what_its_backward_reads(rng, unchecked):
    """The forward copy saves what the backward copy reads, the two cut in step: both
    straight-line calls share one cut pair; the call in the loop, whose saved list goes
    through a stack, has a cut pair of its own (its backward copy reads no w)."""
    w, b, x = rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=(5, 3))
    xs = rng.normal(size=(2, 5, 3))
    df = nf.grad(dense_twice_and_looped, wrt=(0, 1, 2))
    source = df.source_for(w, b, x, xs)
    cut = re.findall(r"= (fwd_dense_\w+_s\d+)\(w, b, (?:x|_t1)\)", source)
    assert len(cut) == 2 and cut[0] == cut[1]
    forward = source[source.index(f"def {cut[0]}(") :]
    assert "return _t2, [_t2, w, x]\n" in forward
    backward = source[source.index(f"def {cut[0].replace('fwd', 'bwd')}(") :]
    assert backward.split("\n")[1] == "    _t2, w, x = saved"
    assert "return _t2, [_t2, x]\n" in source  # (the loop's pair)
    assert "_stack_dense_saved_2.append(dense_saved_2)" in source
    for i, g in enumerate(df(w, b, x, xs)):
        expected = numerical_grad(dense_twice_and_looped, (w, b, x, xs), i)
        np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-9)


def recurrent(w, xs):
    h = np.zeros(xs.shape[1])
    for t in range(xs.shape[0]):
        h = np.tanh(w @ h + xs[t])
    return h


def through_recurrent(w, xs):
    return np.sum(recurrent(w, xs) ** 2)


def test_a_stack_the_specialised_backward_pops_unread_is_not_kept(rng, unchecked):
    """The generic backward pops the shape of w @ h for an unbroadcast; specialised, it
    reads none of them: the pair keeps no such stack, pushes and pops gone."""
    w, xs = rng.normal(size=(3, 3)), rng.normal(size=(4, 3))
    df = nf.grad(through_recurrent)
    assert "_stack_t0" in df.source
    source = df.source_for(w, xs)
    assert "_stack_t0" not in source and "_stack_h.append(h)" in source
    assert "return h, [_stack_h, h, w, xs]" in source
    np.testing.assert_allclose(
        df(w, xs), numerical_grad(through_recurrent, (w, xs), 0), rtol=1e-6, atol=1e-9
    )


def squashed(w, b, x):
    return np.tanh(x @ w - b)


def squashed_loss(w, b, x):
    return np.sum(squashed(w, b, x) ** 2)


def test_a_pair_whose_forward_copy_cannot_be_cut_stays_whole(rng, monkeypatch, unchecked):
    """When the forward copy cannot save less, the backward copy unpacks everything too."""
    monkeypatch.setattr(saved_lists, "keep_saved", lambda *args: False)
    w, b, x = rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=(5, 3))
    df = nf.grad(squashed_loss, wrt=(0, 1))
    source = df.source_for(w, b, x)
    assert "return _t2, [_t0, _t2, b, w, x]\n" in source
    assert "    _t0, _t2, b, w, x = saved\n" in source and source.count("= saved\n") == 1
    for k, g in enumerate(df(w, b, x)):
        expected = numerical_grad(squashed_loss, (w, b, x), k)
        np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-9)


def squared_plus_one(x):
    return np.sum(x * x + 1)


def weighted(x, w):
    return np.sum(x * w)


def scaled_sum(x, k=2.0):
    return np.sum(x * k)


def _read_only(value):
    value = value.copy()
    value.flags.writeable = False
    return value


def _matches(got, expected, value, rtol=1e-12):
    """A gradient for `value`: its numbers, type, shape and dtype, writeable if an array."""
    assert type(got) is type(value) and np.shape(got) == np.shape(value)
    assert np.asarray(got).dtype == np.asarray(value).dtype
    assert type(got) is not np.ndarray or got.flags.writeable
    np.testing.assert_allclose(got, expected, rtol=rtol)


def test_calls_that_alternate_signatures_never_run_another_ones_variant(rng, unchecked):
    """The fast path of a call keys on all a variant depends on: each of these (another
    dtype, shape, ndim, writeability, a float for a 0-d array, keywords) met after another
    runs its own variant, in either order."""
    pytest.importorskip("autograd")
    from oracle import autograd_grad

    x = rng.normal(size=3)
    values = [
        x,
        x.astype(np.float32),
        rng.normal(size=4),
        x.reshape(3, 1),
        _read_only(x),
        0.7,
        np.array(0.7),
        x.reshape(1, 3),
    ]
    df = nf.grad(squared_plus_one)
    for call in (df, lambda value: df(x=value)):
        for value in values + values[::-1]:
            expected = autograd_grad(squared_plus_one, (np.asarray(value, np.float64),), 0)
            rtol = 1e-6 if np.asarray(value).dtype == np.float32 else 1e-12
            _matches(call(value), expected, value, rtol)
        assert len(df._variants) == len(values)  # (one made for each signature)

    w, read_only = rng.normal(size=3), _read_only(rng.normal(size=3))
    dw = nf.grad(weighted, wrt=1)
    for a, b in [(x, w), (read_only, w), (x, read_only), (x, w), (x.reshape(3, 1), w)] * 2:
        _matches(dw(a, b), numerical_grad(weighted, (a, b), 1), b, rtol=1e-6)
    # (the code for a read-only w copies its gradient; one of them run for the other would
    # not show in the numbers, but the count of variants shows each was made)
    assert ".copy()" in dw.source_for(x, read_only) and ".copy()" not in dw.source_for(x, w)
    assert len(dw._variants) == 4


def test_a_call_that_leaves_an_argument_to_its_default_sees_it_replaced(rng, monkeypatch):
    """Calls that pass every argument take no default, so they skip checking f's defaults
    for replacement; a call that leaves k to its default runs the code made anew."""
    x = rng.normal(size=3)
    df = nf.grad(scaled_sum)
    for _ in range(2):
        np.testing.assert_allclose(df(x), np.full(3, 2.0))
        np.testing.assert_allclose(df(x, 5.0), np.full(3, 5.0))
    monkeypatch.setattr(scaled_sum, "__defaults__", (3.0,))
    for _ in range(2):
        np.testing.assert_allclose(df(x, 5.0), np.full(3, 5.0))
        np.testing.assert_allclose(df(x), np.full(3, 3.0))


def long_named_loop(x, w):
    total = 0.0
    for k in range(3):
        first_activation_value = np.sin(x * w + total)  # (total: not the same each time)
        second_activation_value = np.cos(first_activation_value * w)
        total = total + np.sum(second_activation_value[::-1] * first_activation_value)
    return total + np.sum(x[-1] * w, axis=-1)


def _functions(source):
    module = conversion.ast_to_gast(ast.parse(source))
    return [f for f in module.body if isinstance(f, gast.FunctionDef)]


def _dump(tree):
    return gast.dump(tree, include_attributes=False)


def test_the_transforms_trees_are_made_those_its_source_parses_to(rng):
    """A first variant rewrites the transform's own trees (no parse of the emitted source):
    codegen.as_printed makes them what the parse gives, line numbers aside."""
    source, _, trees = transform.generate(
        long_named_loop, (1,), Mode.SPLIT, names=("fwd_loop", "bwd_loop")
    )
    parsed = _functions(source)
    assert "del (_stack_" in source  # (a del printed over lines: a del of a tuple)
    codegen.as_printed(trees)
    assert [_dump(t) for t in trees] == [_dump(t) for t in parsed]
    func = _functions("def f(x):\n    return x * x + 1\n")[0]
    total = func.body[0].value
    total.left.right, total.right = total.left.left, gast.Constant(-2.5, None)
    codegen.as_printed([func])
    assert _dump(func) == _dump(_functions(codegen.function_source(func)[0])[0])
    assert total.left.left is not total.left.right and isinstance(total.right, gast.UnaryOp)
    x, w = rng.normal(size=(3, 4)), rng.normal(size=4)
    check_grad(long_named_loop, x, w, wrt=1)


_ANNOTATED = """{future}
import numpy as np


def annotated(x: np.ndarray, w: float = 2.0) -> float:
    return np.sum(np.tanh(x * w))
"""


@pytest.mark.parametrize("future", ["", "from __future__ import annotations"])
def test_an_annotated_function_is_specialised(tmp_path, future, rng):
    """The specialised def ran in an empty scope, where `x: np.ndarray` named no np: every
    annotated function ran its generic code, with a warning."""
    import importlib.util
    import warnings

    path = tmp_path / f"annotated_{bool(future)}.py"
    path.write_text(_ANNOTATED.format(future=future))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = rng.normal(size=4)
    df = nf.grad(module.annotated)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = df(x, 0.7)
    assert df.source_for(x, 0.7).startswith("def dannotated(x, w):")
    wanted = numerical_grad(lambda v: module.annotated(v, 0.7), (x,))
    np.testing.assert_allclose(got, wanted, rtol=1e-6)
