"""Saved lists of callees' pairs, specialised (passes/saved_lists.py): a forward copy saves
only what its backward copy reads, also where the list goes through a caller's own saved list
(a callee of a callee) or through a stack (a call in a loop)."""

import re

import numpy as np
import pytest

import programs
import srcdiff as nf
from gradcheck import numerical_grad
from pytree_oracle import assert_leaves_close, finite_differences
from srcdiff import cache, resnet
from srcdiff.passes import saved_lists
from srcdiff.train import tree_map


@pytest.fixture
def unchecked():
    """Variants as they run outside the tests, without the generic code beside them."""
    nf.config(specialize=True)
    yield
    nf.config(specialize="check")


@pytest.fixture
def fresh():
    """No copies of callees made before (they would be found again), nor kept after."""
    cache.clear_memory()
    yield
    cache.clear_memory()


def squash(h, centred=True):
    if centred:
        h = h - np.mean(h)
    return np.tanh(h)


def layer(w, h):
    return squash(squash(h @ w), False)


def stacked(w, xs):
    h = xs[0]
    for t in range(1, xs.shape[0]):
        h = layer(w, h) + xs[t]
    return np.sum(h**2)


def _function(source, name):
    """The text of the function `name` in `source`."""
    start = source.index(f"def {name}(")
    end = source.find("\ndef ", start)
    return source[start:] if end < 0 else source[start:end]


def squash_copies(source):
    """{the name of a squash list in layer's: (the forward copy making it, the backward copy
    given it)}, from layer's copies fwd_layer_sN and bwd_layer_sN."""
    (forward,) = re.findall(r"def (fwd_layer_s\d)\(", source)
    made = re.findall(r"(squash_saved\w*) = (fwd_squash_s\d)\(", _function(source, forward))
    backward = _function(source, forward.replace("fwd", "bwd"))
    given = dict((n, f) for f, n in re.findall(r"(bwd_squash_s\d)\(b_t\d, (\w+)\)", backward))
    return {name: (copy, given[name]) for name, copy in made}


def test_a_callee_list_in_a_callers_is_cut_with_the_callers_pair(rng, unchecked):
    """layer's pair goes through a stack (layer is called in a loop) and saves squash's two
    lists; each squash copy knows `centred`, so neither backward copy reads it: no copy saves
    it, and each saves only its tanh."""
    w, xs = rng.normal(size=(3, 3)), rng.normal(size=(4, 3))
    df = nf.grad(stacked)
    assert "return _t2, [centred, _stack_h, runtime.shape_of(_t0), _t2]" in df.source
    source = df.source_for(w, xs)
    assert "centred" not in source.replace("(h, centred):", "")
    copies = re.findall(r"= (fwd_squash_s\d)\(", source)
    assert len(set(copies)) == 2  # (one with centred True, one with False)
    for copy in copies:
        assert _function(source, copy).endswith("    return _t2, [_t2]\n\n")
        unpacked = _function(source, copy.replace("fwd", "bwd")).split("\n")[1]
        assert unpacked == "    _t2, = saved"
    assert "return _t2, [h, squash_saved, squash_saved_1, w]" in source
    np.testing.assert_allclose(df(w, xs), numerical_grad(stacked, (w, xs), 0), rtol=1e-6, atol=1e-9)


def test_a_callers_pair_stays_whole_when_a_callees_forward_copy_cannot_be_cut(
    rng, monkeypatch, unchecked, fresh
):
    """squash's forward copies cannot save less: then layer's pair, which hands their lists
    on, is not cut either, and every copy saves and unpacks its whole list."""
    keep_saved = saved_lists.keep_saved

    def not_squash(forward, cut):
        return not forward.name.startswith("fwd_squash") and keep_saved(forward, cut)

    monkeypatch.setattr(saved_lists, "keep_saved", not_squash)
    w, xs = rng.normal(size=(3, 3)), rng.normal(size=(4, 3))
    df = nf.grad(stacked)
    source = df.source_for(w, xs)
    forwards = set(re.findall(r"= (fwd_squash_s\d)\(", source))
    backwards = set(re.findall(r"= (bwd_squash_s\d)\(", source))
    assert len(forwards) == len(backwards) == 2
    for copy in forwards:
        assert "return _t2, [centred, _stack_h, " in _function(source, copy)
    for copy in backwards:
        assert _function(source, copy).split("\n")[1] == "    centred, _stack_h, _t0, _t2 = saved"
    for forward, backward in squash_copies(source).values():  # (numbered as a pair)
        assert forward.replace("fwd", "bwd") == backward
    np.testing.assert_allclose(df(w, xs), numerical_grad(stacked, (w, xs), 0), rtol=1e-6, atol=1e-9)


def test_gmm_saves_no_branch_its_specialised_backward_settled(unchecked):
    """logsumexp's backward copy, called from log_normalize's, knows `keepdims` is False: the
    forward copy saves no `_cond0`, nor unpacks the backward one it (nor only to `del` it)."""
    gmm = programs.load("gmm")
    params, data = gmm.example(np.random.default_rng(0))
    df = nf.grad(gmm.loss)
    source = df.source_for(params, data)
    (copy,) = re.findall(r"= (fwd_logsumexp_s\d)\(x\)", _function(source, "fwd_log_normalize_s1"))
    forward, backward = _function(source, copy), _function(source, copy.replace("fwd", "bwd"))
    assert "_cond0" not in forward and "_cond0" not in backward
    assert "return out, [_stack_out, _t1, _t2, _t3, a, a_max, axis]" in forward
    assert backward.split("\n")[1] == "    _stack_out, _t1, _t2, _t3, a, a_max, axis = saved"
    assert "del _cond0" not in source
    expected = finite_differences(gmm.loss, (params, data))
    assert_leaves_close(df(params, data), expected, 1e-6, 1e-8, "gmm")


def test_resnet_saves_no_training_flag(unchecked):
    """batch_norm's backward copies, called from forward's and basic_block's (itself called in
    a loop), read no `training`: no copy saves or unpacks it."""
    rng = np.random.default_rng(0)
    params = resnet.init(rng, depth=8, width=2, in_channels=1, num_classes=3)
    params = tree_map(lambda a: np.asarray(a, dtype=np.float64), params)
    x, y = rng.normal(size=(2, 1, 8, 8)), np.array([0, 2])
    df = nf.grad(resnet.loss)
    source = df.source_for(params, x, y)
    # (two forward copies, one saving shapes the other does not; one backward copy, the
    # same code for both)
    backward = re.findall(r"def (bwd_batch_norm_s\d)\(", source)
    forward = re.findall(r"def (fwd_batch_norm_s\d)\(", source)
    assert (len(backward), len(forward)) == (1, 2)
    assert "training" not in _function(source, backward[0])
    for name in forward:
        assert "training" not in _function(source, name).split("):", 1)[1]
    assert "del training" not in source
    expected = finite_differences(resnet.loss, (params, x, y))
    assert_leaves_close(df(params, x, y), expected, 1e-5, 1e-7, "resnet")


def plus_one(x):
    return x + 1.0


def shifted(w, x):
    return plus_one(x @ w) + 1.0


def looped(w, xs):
    h = xs[0]
    for t in range(xs.shape[0]):
        h = shifted(w, plus_one(h) * xs[t])
    return np.sum(h**2)


def test_a_pair_that_saves_nothing_hands_no_list(rng, unchecked):
    """plus_one's backward reads nothing: its forward copy returns its value alone, its
    backward copy takes the adjoint alone, and no caller (f in a loop, through a stack; or
    shifted's pair, in its own saved list) keeps an empty list for it."""
    w, xs = rng.normal(size=(3, 3)), rng.normal(size=(4, 3))
    df = nf.grad(looped)
    assert "plus_one_saved" in df.source
    source = df.source_for(w, xs)
    assert "plus_one_saved" not in source and "_stack_plus_one" not in source
    assert _function(source, "fwd_plus_one_s1").endswith("    return _t0\n\n")
    assert "def bwd_plus_one_s1(b_t0):\n    return b_t0,\n" in source
    assert "_t0 = fwd_plus_one_s1(h)" in source and "_t1 = fwd_plus_one_s1(_t0)" in source
    assert "bh, = bwd_plus_one_s1(b_t0)\n" in source and "= bwd_plus_one_s1(b_t2)\n" in source
    assert "return _t2, [w, x]\n" in source
    np.testing.assert_allclose(df(w, xs), numerical_grad(looped, (w, xs), 0), rtol=1e-6, atol=1e-9)


def plus_one_twice(w):
    return plus_one(plus_one(w))


def scaled_in_turn(w, xs):
    h = w
    for t in range(xs.shape[0]):
        h = plus_one_twice(h) * xs[t]
    return np.sum(h)


def test_a_pair_that_saves_only_callee_lists_that_are_empty_hands_none(rng, unchecked):
    """plus_one_twice saves only plus_one's two lists, both empty: it saves nothing either,
    and f's loop keeps no stack for it."""
    w, xs = rng.normal(size=3), rng.normal(size=(4, 3))
    df = nf.grad(scaled_in_turn)
    source = df.source_for(w, xs)
    assert "saved" not in source
    assert "def fwd_plus_one_twice_s1(w):\n    _t0 = fwd_plus_one_s1(w)\n" in source
    assert _function(source, "fwd_plus_one_twice_s1").endswith("    return _t1\n\n")
    assert "def bwd_plus_one_twice_s1(b_t1):\n    b_t0, = bwd_plus_one_s1(b_t1)\n" in source
    assert "bh, = bwd_plus_one_twice_s1(b_t0)" in source
    np.testing.assert_allclose(
        df(w, xs), numerical_grad(scaled_in_turn, (w, xs), 0), rtol=1e-6, atol=1e-9
    )
