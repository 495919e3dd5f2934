"""Pytree utilities: tree_map, tree_flatten/tree_unflatten, ravel/unravel."""

import re
from collections import namedtuple

import numpy as np
import pytest

import srcdiff as nf

Pair = namedtuple("Pair", "left right")


def sample_tree():
    return {
        "w": np.arange(6, dtype=np.float32).reshape(2, 3),
        "layers": [np.ones(2), (np.float64(2.5), None)],
        "pair": Pair(np.zeros((1, 1), np.float32), 3.0),
        "state": None,
    }


def test_flatten_then_unflatten_gives_the_tree_back():
    tree = sample_tree()
    leaves, treedef = nf.tree_flatten(tree)
    assert len(leaves) == 5 and leaves[0] is tree["w"] and leaves[-1] == 3.0
    rebuilt = nf.tree_unflatten(treedef, leaves)
    assert list(rebuilt) == ["w", "layers", "pair", "state"]
    assert isinstance(rebuilt["pair"], Pair) and isinstance(rebuilt["layers"][1], tuple)
    assert rebuilt["state"] is None and rebuilt["layers"][1][1] is None
    assert all(a is b for a, b in zip(nf.tree_leaves(rebuilt), leaves))
    with pytest.raises(ValueError, match="more leaves"):
        nf.tree_unflatten(treedef, leaves + [1.0])


def test_tree_map_over_several_trees_keeps_structure_and_types():
    tree = sample_tree()
    doubled = nf.tree_map(lambda a, b: a + b, tree, tree)
    np.testing.assert_array_equal(doubled["w"], 2 * tree["w"])
    assert doubled["w"].dtype == np.float32 and doubled["pair"].right == 6.0
    assert isinstance(doubled["pair"], Pair) and doubled["state"] is None


@pytest.mark.parametrize(
    "other, where",
    [
        ({"a": 1.0}, "the root: a dict with keys ['a', 'b'] against a dict with keys ['a']"),
        ({"a": 1.0, "b": [1.0]}, "b: a list of 2 against a list of 1"),
        ({"a": 1.0, "b": 2.0}, "b: a list of 2 against a leaf (float)"),
    ],
)
def test_tree_map_names_where_trees_differ(other, where):
    with pytest.raises(ValueError, match=re.escape(f"differ at {where}")):
        nf.tree_map(lambda a, b: a, {"a": 1.0, "b": [1.0, 2.0]}, other)


def test_ravel_and_unravel_round_trip_with_shapes_and_dtypes():
    tree = sample_tree()
    vector = nf.ravel(tree)
    assert vector.shape == (6 + 2 + 1 + 1 + 1,) and vector.dtype == np.float64
    np.testing.assert_array_equal(vector[:6], np.arange(6))
    back = nf.unravel(vector * 2, tree)
    np.testing.assert_array_equal(back["w"], 2 * tree["w"])
    assert back["w"].dtype == np.float32 and back["pair"].left.shape == (1, 1)
    assert back["pair"].right == 6.0 and type(back["pair"].right) is float
    with pytest.raises(ValueError, match="expected a vector of 11 values"):
        nf.unravel(vector[:-1], tree)


def test_ravel_of_float32_parameters_stays_float32():
    params = {"w": np.ones((3, 2), np.float32), "b": np.zeros(2, np.float32)}
    assert nf.ravel(params).dtype == np.float32
    assert nf.ravel({}).shape == (0,)
