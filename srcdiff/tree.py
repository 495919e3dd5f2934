"""Pytrees: nested dicts, lists and tuples of arrays (a model's parameters, an optimiser's state).

Containers are dicts (in insertion order), lists, tuples and namedtuples; None is a container
with nothing in it (a batch-norm state not yet started); anything else is a leaf.

    nf.tree_map(lambda p, g: p - 0.1 * g, params, grads)
    leaves, treedef = nf.tree_flatten(params); nf.tree_unflatten(treedef, leaves)
    vector = nf.ravel(params); nf.unravel(vector, params)   # one flat vector and back
"""

import dataclasses
from collections import namedtuple

import numpy as np

from .runtime import PYTREE_NODES

# How to rebuild one container: its type and its keys (dict) or length (list, tuple); the
# children's own TreeDefs follow in `children`. A leaf is TreeDef(None, None, ()).
TreeDef = namedtuple("TreeDef", "kind keys children")
_LEAF = TreeDef(None, None, ())


def _children(node):
    """(keys, children) of a container, None for a leaf. A registered pytree node's keys
    are its aux data; a dataclass's are its field names."""
    if isinstance(node, dict):
        return tuple(node), tuple(node.values())
    if isinstance(node, (list, tuple)):
        return len(node), tuple(node)
    if node is None:
        return 0, ()
    if type(node) in PYTREE_NODES:
        children, aux = PYTREE_NODES[type(node)][0](node)
        return aux, tuple(children)
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        # (fields holding a name, a count or None are kept as they are, not leaves: so a
        # gradient, None there, has the structure of the parameters)
        fields = {f.name: getattr(node, f.name) for f in dataclasses.fields(node)}
        kept = {
            k: v
            for k, v in fields.items()
            if v is None or isinstance(v, (str, bool, int, np.integer))
        }
        names = tuple(k for k in fields if k not in kept)
        return (names, kept), tuple(fields[name] for name in names)
    return None


def _rebuild(kind, keys, children):
    if kind is dict:
        return dict(zip(keys, children))
    if kind is type(None):
        return None
    if kind in PYTREE_NODES:
        return PYTREE_NODES[kind][1](keys, list(children))
    if dataclasses.is_dataclass(kind):  # (fields set as they are: no __init__ runs again)
        names, kept = keys
        node = object.__new__(kind)
        for name, value in [*zip(names, children), *kept.items()]:
            object.__setattr__(node, name, value)
        return node
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
        return _rebuild(
            definition.kind, definition.keys, [build(child) for child in definition.children]
        )

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
        index = (
            keys
            if isinstance(node, dict)
            else keys[0]
            if dataclasses.is_dataclass(node)
            else range(len(children))
        )
        other_children = [_children(other)[1] for other in others]
        mapped = [
            walk(f"{path}.{i}" if path else str(i), child, [o[k] for o in other_children])
            for k, (i, child) in enumerate(zip(index, children))
        ]
        return _rebuild(type(node), keys, mapped)

    return walk("", tree, rest)


def _check_same_container(path, node, other):
    def describe(x):
        if isinstance(x, dict):
            return f"a dict with keys {sorted(map(str, x))}"
        if isinstance(x, (list, tuple)):
            return f"a {type(x).__name__} of {len(x)}"
        return "None" if x is None else f"a leaf ({type(x).__name__})"

    same = (
        set(node) == set(other)
        if isinstance(node, dict) and isinstance(other, dict)
        else isinstance(node, (list, tuple))
        and isinstance(other, (list, tuple))
        and len(node) == len(other)
        or node is None
        and other is None
        or type(node) is type(other)
        and not isinstance(node, (dict, list, tuple))
        and len(_children(node)[1]) == len(_children(other)[1])
    )
    if not same:
        raise ValueError(
            f"tree_map: the trees differ at {path or 'the root'}: "
            f"{describe(node)} against {describe(other)}"
        )


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
        raise ValueError(
            f"unravel: expected a vector of {sum(sizes)} values for this tree, "
            f"got shape {np.shape(vector)}"
        )
    pieces, start = [], 0
    for leaf, size in zip(leaves, sizes):
        piece = vector[start : start + size]
        start += size
        if isinstance(leaf, np.ndarray):
            pieces.append(piece.reshape(leaf.shape).astype(leaf.dtype))
        else:
            pieces.append(type(leaf)(piece[0]))  # a Python or numpy scalar stays one
    return tree_unflatten(treedef, pieces)
