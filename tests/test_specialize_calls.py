"""Calls of user functions in specialised code (specialize.Session.redirect): a call with
keyword arguments gets a copy specialised for them as for positional ones, the defaults of
the parameters it leaves out included; a forward copy and the backward copy given its saved
list share their number."""

import re

import numpy as np
import pytest

import programs
import srcdiff as nf
from gradcheck import numerical_grad
from pytree_oracle import assert_leaves_close, finite_differences
from test_specialize_saved_lists import _function, squash_copies, stacked


@pytest.fixture
def unchecked():
    """Variants as they run outside the tests, without the generic code beside them."""
    nf.config(specialize=True)
    yield
    nf.config(specialize="check")


def scaled(h, k=2.0, centred=True, power=1):
    if centred:
        h = h - np.mean(h)
    return k * np.tanh(h) ** power


def keywords(w, x):
    a = scaled(x @ w, centred=False)
    b = scaled(a, power=2, k=0.5)
    c = scaled(b, 3.0, False)
    return np.sum(a * b + c)


def test_keyword_calls_get_copies_with_their_keywords_and_defaults(rng, unchecked):
    """Each call binds its keywords to scaled's parameters and leaves the rest to their
    defaults: every call runs a copy that knows `centred` (so none tests it) and `power`."""
    w, x = rng.normal(size=(3, 4)), rng.normal(size=(5, 3))
    df = nf.grad(keywords)
    source = df.source_for(w, x)
    calls = re.findall(r"= (fwd_scaled\w*)\((.*)\)", source)
    assert [args for _, args in calls] == [
        "_t0, centred=False",
        "a, power=2, k=0.5",
        "b, 3.0, False",
    ]
    for forward, _ in calls:
        assert re.fullmatch(r"fwd_scaled_s\d", forward)
        assert "if centred" not in _function(source, forward)
        assert "if centred" not in _function(source, forward.replace("fwd", "bwd"))
    centring = [f for f, _ in calls if "np.mean" in _function(source, f)]
    assert centring == [calls[1][0]]  # (the one call leaving centred to its default, True)
    np.testing.assert_allclose(df(w, x), numerical_grad(keywords, (w, x), 0), rtol=1e-6, atol=1e-9)


def test_keyword_calls_agree_with_the_generic_code(rng):
    """(config(specialize="check") runs both and compares them element for element.)"""
    w, x = rng.normal(size=(3, 4)), rng.normal(size=(5, 3))
    df = nf.grad(keywords, wrt=(0, 1))
    for k, got in enumerate(df(w, x)):
        np.testing.assert_allclose(got, numerical_grad(keywords, (w, x), k), rtol=1e-6, atol=1e-9)


def test_gmm_logsumexp_with_axis_is_specialised(unchecked):
    """gmm_log_likelihood's `logsumexp(..., axis=0)` ran the generic fwd_logsumexp (a call
    with keywords was left alone): now a copy that knows keepdims is False, whose list a
    backward copy takes (the one the other call's copy hands its list to: the same code)."""
    gmm = programs.load("gmm")
    params, data = gmm.example(np.random.default_rng(0))
    df = nf.grad(gmm.loss)
    source = df.source_for(params, data)
    (forward,) = re.findall(r"= (fwd_logsumexp_s\d)\(_t3, axis=0\)", source)
    body = _function(source, forward)
    assert "if " not in body and "    _t4 = np.squeeze(out, axis=axis)\n" in body
    assert re.search(r"b_t3, = bwd_logsumexp_s\d\(b_t4, logsumexp_saved\)", source)
    assert re.search(r"fwd_logsumexp\(|bwd_logsumexp\(", source) is None  # (no generic one)
    expected = finite_differences(gmm.loss, (params, data))
    assert_leaves_close(df(params, data), expected, 1e-6, 1e-8, "gmm")


def test_a_pair_cut_through_a_callers_list_shares_its_number(rng, unchecked):
    """layer's copies save squash's two lists in layer's; the backward copies are made (in
    backward order) before the forward ones: each forward copy takes its backward one's
    number, where they were numbered apart (fwd_squash_s1 handed its list to bwd_squash_s2)."""
    w, xs = rng.normal(size=(3, 3)), rng.normal(size=(4, 3))
    df = nf.grad(stacked)
    source = df.source_for(w, xs)
    copies = squash_copies(source)
    assert sorted(copies) == ["squash_saved", "squash_saved_1"]
    for forward, backward in copies.values():
        assert forward.replace("fwd", "bwd") == backward
    assert copies["squash_saved"] != copies["squash_saved_1"]
    np.testing.assert_allclose(df(w, xs), numerical_grad(stacked, (w, xs), 0), rtol=1e-6, atol=1e-9)


def layer_loss(w, x, *, act=np.tanh, reg=0.1, offset=None):
    h = act(x @ w)
    if offset is not None:
        h = h + offset
    return np.mean(h**2) + reg * np.sum(w * w)


def test_keyword_only_parameters_and_keyword_calls_run_specialised_code(rng, unchecked):
    """A function with keyword-only parameters specialises (the interpreter binds them by
    name, their defaults from f's), and so does each call passing them by keyword: the
    code it runs knows `offset` is None and tests nothing."""
    w, x = rng.normal(size=(3, 4)), rng.normal(size=(5, 3))
    df = nf.grad(layer_loss)
    for keywords in ({}, {"reg": 0.3}):
        source = df.source_for(w, x, **keywords)
        assert "offset is not None" not in source and "if " not in source
        loss = lambda w: layer_loss(w, x, **keywords)  # noqa: E731
        np.testing.assert_allclose(df(w, x, **keywords), numerical_grad(loss, (w,), 0), rtol=1e-6)
    offset = rng.normal(size=4)
    loss = lambda w: layer_loss(w, x, offset=offset)  # noqa: E731
    np.testing.assert_allclose(df(w, x, offset=offset), numerical_grad(loss, (w,), 0), rtol=1e-6)


def test_a_function_passed_by_keyword_only_parameter_is_the_one_differentiated(rng):
    """act=np.sin passed by keyword to a parameter whose default is np.tanh: the code made
    for the call differentiates sin (it was tanh's derivative, silently, times sin's value)."""
    w, x = rng.normal(size=(3, 4)), rng.normal(size=(5, 3))
    df = nf.grad(layer_loss)
    for act in (np.sin, np.tanh, np.sin):
        loss = lambda w: layer_loss(w, x, act=act)  # noqa: E731
        np.testing.assert_allclose(df(w, x, act=act), numerical_grad(loss, (w,), 0), rtol=1e-6)


class _Square:
    def apply(self, v):
        return v * v


class _Cube:
    def apply(self, v):
        return v * v * v


def modelled(x, *, model=_Square()):
    return np.sum(model.apply(x))


def test_an_object_passed_by_keyword_only_parameter_is_the_one_whose_method_runs(rng):
    """model=_Cube() by keyword, where the default is a _Square: the code is made for the
    object's class (it was made for the default's: 2x where 3x**2 is right)."""
    x = rng.uniform(0.5, 1.5, size=4)
    df = nf.grad(modelled)
    np.testing.assert_allclose(df(x), 2 * x)
    np.testing.assert_allclose(df(x, model=_Cube()), 3 * x * x)
    np.testing.assert_allclose(df(x), 2 * x)
