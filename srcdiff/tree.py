"""Pytrees: nested dicts, lists and tuples of arrays (a model's parameters, an optimiser's state).

Containers are dicts (in insertion order), lists, tuples and namedtuples; None is a container
with nothing in it (a batch-norm state not yet started); anything else is a leaf.

    nf.tree_map(lambda p, g: p - 0.1 * g, params, grads)
    leaves, treedef = nf.tree_flatten(params); nf.tree_unflatten(treedef, leaves)
    vector = nf.ravel(params); nf.unravel(vector, params)   # one flat vector and back
"""
from collections import namedtuple

import numpy as np

# How to rebuild one container: its type and its keys (dict) or length (list, tuple); the
# children's own TreeDefs follow in `children`. A leaf is TreeDef(None, None, ()).
TreeDef = namedtuple("TreeDef", "kind keys children")
_LEAF = TreeDef(None, None, ())


def _children(node):
    """(keys, children) of a container, None for a leaf."""
    if isinstance(node, dict):
        return tuple(node), tuple(node.values())
    if isinstance(node, (list, tuple)):
        return len(node), tuple(node)
    if node is None:
        return 0, ()
    return None


def _rebuild(kind, keys, children):
    if kind is dict:
        return dict(zip(keys, children))
    if kind is type(None):
        return None
    if hasattr(kind, "_fields"):  # a namedtuple takes its fields as arguments
        return kind(*children)
    return kind(children)


def tree_flatten(tree):
    """(leaves, treedef): the leaves in order (dicts in insertion order) and what rebuilds
    the tree around them (`tree_unflatten(treedef, leaves)`)."""
    leaves = []

    def walk(node):
        parts = _children(node)
        if parts is None:
            leaves.append(node)
            return _LEAF
        keys, children = parts
        return TreeDef(type(node), keys, tuple(walk(child) for child in children))

    return leaves, walk(tree)


def tree_unflatten(treedef, leaves):
    """The tree of `treedef`'s shape with `leaves` (in tree_flatten's order) at its leaves."""
    leaves = iter(leaves)

    def build(definition):
        if definition.kind is None:
            return next(leaves)
        return _rebuild(definition.kind, definition.keys,
                        [build(child) for child in definition.children])

    tree = build(treedef)
    if next(leaves, _LEAF) is not _LEAF:
        raise ValueError("tree_unflatten: more leaves than the tree has places for")
    return tree


def tree_leaves(tree):
    return tree_flatten(tree)[0]


def tree_map(fn, tree, *rest):
    """fn applied to each leaf of `tree` (and the matching leaves of `rest`, trees of the same
    structure): a new tree of `tree`'s structure. A mismatch names the path where it is."""

    def walk(path, node, others):
        parts = _children(node)
        if parts is None:
            return fn(node, *others)
        keys, children = parts
        for other in others:
            _check_same_container(path, node, other)
        index = keys if isinstance(node, dict) else range(len(children))
        mapped = [walk(f"{path}.{i}" if path else str(i), child, [other[i] for other in others])
                  for i, child in zip(index, children)]
        return _rebuild(type(node), keys, mapped)

    return walk("", tree, rest)


def _check_same_container(path, node, other):
    def describe(x):
        if isinstance(x, dict):
            return f"a dict with keys {sorted(map(str, x))}"
        if isinstance(x, (list, tuple)):
            return f"a {type(x).__name__} of {len(x)}"
        return "None" if x is None else f"a leaf ({type(x).__name__})"

    same = (set(node) == set(other) if isinstance(node, dict) and isinstance(other, dict) else
            isinstance(node, (list, tuple)) and isinstance(other, (list, tuple))
            and len(node) == len(other) or node is None and other is None)
    if not same:
        raise ValueError(f"tree_map: the trees differ at {path or 'the root'}: "
                         f"{describe(node)} against {describe(other)}")


def ravel(tree):
    """All the leaves of `tree` as one flat vector (of the leaves' common dtype), in
    tree_flatten's order; `unravel(vector, tree)` gives the tree back."""
    leaves = tree_leaves(tree)
    if not leaves:
        return np.zeros(0)
    return np.concatenate([np.ravel(leaf) for leaf in leaves])


def unravel(vector, like):
    """The tree of `like`'s structure whose leaves, with `like`'s shapes and dtypes, are read
    in order from the flat `vector` (ravel's inverse)."""
    leaves, treedef = tree_flatten(like)
    sizes = [np.size(leaf) for leaf in leaves]
    if np.shape(vector) != (sum(sizes),):
        raise ValueError(f"unravel: expected a vector of {sum(sizes)} values for this tree, "
                         f"got shape {np.shape(vector)}")
    pieces, start = [], 0
    for leaf, size in zip(leaves, sizes):
        piece = vector[start:start + size]
        start += size
        if isinstance(leaf, np.ndarray):
            pieces.append(piece.reshape(leaf.shape).astype(leaf.dtype))
        else:
            pieces.append(type(leaf)(piece[0]))  # a Python or numpy scalar stays one
    return tree_unflatten(treedef, pieces)
