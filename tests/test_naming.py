"""Names in the emitted code (issue 21): a callee's derivative is named after the callee alone
unless the module holds more than one derivative of it; saved values after what they serve."""

import re

import numpy as np

import srcdiff as nf
from srcdiff import cache, transform
from srcdiff.modes import Mode
from gradcheck import check_grad


def scale(x, w):
    return x * w


def one_way(x, w):
    return np.sum(scale(x, w) ** 2) + np.sum(scale(x, w))


def two_ways(x, w):
    return np.sum(scale(x, w) * scale(2.0, w))


def inner(x, w):
    return np.sum(np.tanh(scale(x, w)))


def two_ways_at_two_depths(x, w):
    return inner(x, w) + np.sum(scale(3.0, w))


def only_w(x, w):
    return np.sum(scale(3.0, w) ** 2) + np.sum(x)


def only_x_and_w(x, w):
    return np.sum(scale(x, w) ** 3)


def two_ways_in_two_callees(x, w):
    return only_w(x, w) + only_x_and_w(x, w)


def defined(source):
    return re.findall(r"^def (\w+)\(", source, re.MULTILINE)


def args(rng):
    return rng.normal(size=3), rng.normal(size=3)


def test_a_callee_differentiated_one_way_is_named_after_itself(rng):
    source = nf.grad(one_way, wrt=(0, 1)).source
    assert defined(source) == ["done_way", "fwd_scale", "bwd_scale"]
    assert "scale_saved = fwd_scale(x, w)" in source and "scale_saved_1 = " in source
    check_grad(one_way, *args(rng), wrt=(0, 1))


def test_callees_differentiated_two_ways_say_which(rng):
    source = nf.grad(two_ways, wrt=(0, 1)).source
    assert set(defined(source)) == {
        "dtwo_ways",
        "fwd_scale_x_w",
        "bwd_scale_x_w",
        "fwd_scale_w",
        "bwd_scale_w",
    }
    check_grad(two_ways, *args(rng), wrt=(0, 1))


def test_two_ways_at_two_depths_of_calls_are_named_apart(rng):
    source = nf.grad(two_ways_at_two_depths, wrt=(0, 1)).source
    names = defined(source)
    assert len(names) == len(set(names))  # each emitted function once, under its own name
    assert {"fwd_inner", "fwd_scale_x_w", "fwd_scale_w"} <= set(names)
    assert "fwd_scale_x_w(x, w)" in source.split("def fwd_inner")[1]
    check_grad(two_ways_at_two_depths, *args(rng), wrt=(0, 1))


def test_two_ways_in_two_sibling_callees_are_named_apart(rng):
    source = nf.grad(two_ways_in_two_callees, wrt=(0, 1)).source
    names = defined(source)
    assert len(names) == len(set(names))
    assert {"fwd_only_w", "fwd_only_x_and_w", "fwd_scale_w", "fwd_scale_x_w"} <= set(names)
    check_grad(two_ways_in_two_callees, *args(rng), wrt=(0, 1))


def test_names_a_module_chose_come_back_from_the_disk_cache(rng):
    x, w = args(rng)
    derivative = nf.grad(two_ways_at_two_depths, wrt=(0, 1))
    first, expected = derivative.source, derivative(x, w)
    cache._memory.clear()
    again = nf.grad(two_ways_at_two_depths, wrt=(0, 1))
    assert again.source == first
    for got, want in zip(again(x, w), expected):
        np.testing.assert_array_equal(got, want)


def shadowed(x, w):
    fwd_scale = 2.0  # a variable holding the name the callee's derivative would take
    return np.sum(scale(x, w) * fwd_scale)


def test_a_name_the_function_uses_is_not_taken(rng):
    source = nf.grad(shadowed, wrt=(0, 1)).source
    assert "def fwd_scale_x_w(" in source and "fwd_scale = 2.0" in source
    check_grad(shadowed, *args(rng), wrt=(0, 1))


def held_in_a_branch(x, training):
    if training:
        x = x * 2.0
    return x


def calls_held_in_a_branch(x):
    return np.sum(held_in_a_branch(x, True) ** 2)


def test_the_backward_half_unpacks_under_the_forward_halfs_names(rng):
    source = nf.grad(calls_held_in_a_branch).source
    backward = source.split("def bwd_held_in_a_branch")[1]
    assert "_cond" not in source
    assert "if training:" in backward
    check_grad(calls_held_in_a_branch, rng.normal(size=3))


def inner_again(x, w):
    return np.sum(np.cos(scale(x, w)))


def only_inner_again(x, w):
    return inner_again(x, w) * 2.0


def inner_again_and_scale(x, w):
    return inner_again(x, w) + np.sum(scale(3.0, w))


def test_a_second_way_hidden_in_a_cached_callee_is_named_apart_too(rng):
    # inner_again's module, made for only_inner_again, is found made: its call of scale is
    # not met again, and only the module made shows scale differentiated two ways
    nf.grad(only_inner_again, wrt=(0, 1)).source
    source = nf.grad(inner_again_and_scale, wrt=(0, 1)).source
    names = defined(source)
    assert len(names) == len(set(names))
    assert {"fwd_inner_again", "fwd_scale_x_w", "fwd_scale_w"} <= set(names)
    check_grad(inner_again_and_scale, *args(rng), wrt=(0, 1))


def test_a_module_named_again_is_renamed_as_a_transform_would_write_it(rng):
    # made first with scale named as if differentiated one way, then named again with its
    # two ways apart: each derivative is transformed once, and each module renamed reads
    # exactly as one a transform makes under those names
    cache.clear()
    before = cache.stats["transforms"]
    entry = transform.derive(two_ways_at_two_depths, (0, 1))
    assert cache.stats["transforms"] - before == 4  # f, inner, scale by (x, w), scale by w
    assert entry.meta.suffixed == ("scale",)
    fresh, meta, _ = transform.generate(
        two_ways_at_two_depths, (0, 1), Mode.GRAD, suffixed=("scale",)
    )
    assert entry.source == fresh and entry.meta == meta
    inner_entry = entry.callees[0]
    assert inner_entry.meta.names == ("fwd_inner", "bwd_inner")
    fresh, meta, _ = transform.generate(
        inner, (0, 1), Mode.SPLIT, names=inner_entry.meta.names, suffixed=("scale",)
    )
    assert inner_entry.source == fresh and inner_entry.meta == meta
    check_grad(two_ways_at_two_depths, *args(rng), wrt=(0, 1))


def calls_inner(x, w):
    return inner(x, w) * 2.0


def test_a_module_made_before_its_trees_were_named_again_is_specialised_from_its_source(rng):
    # the naming round renames inner's trees in place: the module made first, under the
    # first names, gives them up, and another caller finding it made specialises it from
    # its source (its first call with arrays)
    cache.clear()
    nf.grad(two_ways_at_two_depths, wrt=(0, 1))(*args(rng))
    before = cache.stats["transforms"]
    entry = transform.derive(calls_inner, (0, 1))
    assert cache.stats["transforms"] - before == 1  # inner's module is the one made first
    assert entry.callees[0].meta.names == ("fwd_inner", "bwd_inner")
    assert entry.callees[0].trees == {}
    check_grad(calls_inner, *args(rng), wrt=(0, 1))


def shadowed_two_ways(x, w):
    fwd_scale_w = 2.0  # the name scale's derivative by w alone would take, once named apart
    return np.sum(scale(x, w) * fwd_scale_w) + np.sum(scale(3.0, w))


def test_a_module_whose_names_might_clash_is_made_again_not_renamed(rng):
    cache.clear()
    entry = transform.derive(shadowed_two_ways, (0, 1))
    fresh, meta, _ = transform.generate(shadowed_two_ways, (0, 1), Mode.GRAD, suffixed=("scale",))
    assert entry.source == fresh and entry.meta == meta
    assert "def fwd_scale_w_2(" in entry.full_source() and "fwd_scale_w = 2.0" in fresh
    check_grad(shadowed_two_ways, *args(rng), wrt=(0, 1))


def scaler(v):
    factor = np.sum(v)

    def apply(u):
        scaled = u * factor
        return np.tanh(scaled)

    return apply


def twice_scaled(x, w):
    first = scaler(w)
    second = scaler(2.0 * w)
    return np.sum(first(x) * second(x)) + np.sum(first(w))


def test_inlined_locals_are_named_after_their_function_once(rng):
    # scaler's locals, apply's among them, named at scaler's inlining keep that name where
    # apply is inlined (scaler_scaled, not first_scaler_scaled0_0); each inlining's own
    # (scaler called twice, apply three times) is a version of it
    source = nf.grad(twice_scaled, wrt=(0, 1)).source
    assert {
        "scaler_factor",
        "scaler_factor_1",
        "scaler_scaled",
        "scaler_scaled_1",
        "scaler_scaled_2",
    } <= set(re.findall(r"\w+", source))
    assert not re.search(r"\w+_(?:scaler|apply)_\w+|scaler_\w*[a-z][0-9]\b", source)
    check_grad(twice_scaled, *args(rng), wrt=(0, 1))


class _Layer:
    def __call__(self, x):  # (each class's forward: a derivative of __call__ per class)
        return self.forward(x)


class _Dense(_Layer):
    def __init__(self, w):
        self.w = w

    def forward(self, x):
        return np.tanh(self.w * x)


class _Shift(_Layer):
    def __init__(self, w):
        self.w = w

    def forward(self, x):
        return np.sin(self.w + x)


_LAYERS = [_Dense(2.0), _Shift(0.5)]


def _through_layers(x):
    total = 0.0
    for layer in _LAYERS:
        total = total + np.sum(layer(x))
    return total


def test_every_derivative_of_one_method_per_class_is_listed_under_its_own_name(rng):
    x = rng.normal(size=3)
    df = nf.grad(_through_layers)
    check_grad(_through_layers, x)
    for source in (df.source, df.source_for(x)):
        defined = re.findall(r"^def (\w+)\(", source, re.M)
        assert len(defined) == len(set(defined)) == 9, defined
        assert "np.tanh" in source and "np.sin" in source
    source = df.source
    assert "def fwd__Dense_forward_x(" in source and "def bwd__Shift_forward_x(" in source
    assert source.count("fwd__Shift_forward_x(self, x)") == 2  # (called, and defined)
    namespace = {"np": np, "runtime": nf.runtime, "_LAYERS": _LAYERS}
    exec(source, namespace)  # the listing is one module, each name bound to what runs
    np.testing.assert_array_equal(namespace["d_through_layers"](x), df(x))
    assert df.source == nf.grad(_through_layers).source  # (deterministic)
