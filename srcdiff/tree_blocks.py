"""Hessians and Jacobians with respect to pytrees (a dict of parameters), as JAX gives them:
the block of an output leaf and an input leaf, shaped out.shape + leaf.shape, in the input's
structure (and, for a Hessian, in the output's around it). An array or a float is a tree of
one leaf: its block is the whole answer, as before."""

import numpy as np

from .tree import tree_flatten, tree_unflatten


def is_float_leaf(leaf):
    return isinstance(leaf, float) or (
        isinstance(leaf, (np.ndarray, np.generic)) and np.asarray(leaf).dtype.kind == "f"
    )


def units(xs):
    """(j, leaf, index) of every float element of the pytrees xs: one tangent each."""
    return [
        (j, m, index)
        for j, x in enumerate(xs)
        for m, leaf in enumerate(tree_flatten(x)[0])
        if is_float_leaf(leaf)
        for index in np.ndindex(np.shape(leaf))
    ]


def unit_tangents(xs, unit, single):
    """Tangents for xs: zeros (of their structure), but 1 at `unit`, a (j, leaf, index) of
    units(xs) (or None: all zeros)."""
    out = []
    for k, x in enumerate(xs):
        leaves, treedef = tree_flatten(x)
        out.append(
            tree_unflatten(
                treedef,
                [
                    _unit(leaf, unit[2] if unit is not None and unit[:2] == (k, m) else None)
                    for m, leaf in enumerate(leaves)
                ],
            )
        )
    return out[0] if single else tuple(out)


def _unit(leaf, index):
    if isinstance(leaf, float):
        return 0.0 if index is None else 1.0
    if not isinstance(leaf, (int, np.ndarray, np.generic)):
        return leaf  # (a string or an object: no tangent; the checks take it as it is)
    leaf = np.asarray(leaf)
    t = np.zeros(leaf.shape, leaf.dtype if leaf.dtype.kind == "f" else np.float64)
    if index is not None:
        t[index] = 1.0
    return t


def blocks(columns, units_j, x, out):
    """The Jacobian of `out`'s leaves with respect to pytree x: `columns` holds, for each
    unit of x (units_j, in order), the derivative of out (a pytree like it) along it. A
    tree like x of blocks out_leaf.shape + x_leaf.shape, in a tree like out (None for the
    leaves of x that are not floats)."""
    out_leaves, out_def = tree_flatten(out)
    x_leaves, x_def = tree_flatten(x)
    columns = [tree_flatten(c)[0] for c in columns]
    rows = []
    for i, out_leaf in enumerate(out_leaves):
        shape = np.shape(out_leaf)
        per_leaf = []
        for m, x_leaf in enumerate(x_leaves):
            taken = [c[i] for c, (_, leaf, _) in zip(columns, units_j) if leaf == m]
            if not is_float_leaf(x_leaf):
                per_leaf.append(None)
            elif not taken:  # (a leaf with no elements)
                per_leaf.append(np.zeros(shape + np.shape(x_leaf)))
            else:  # (a zero tangent may come back as one 0.0 for the whole array)
                stacked = np.stack([np.broadcast_to(t, shape) for t in taken], axis=-1)
                per_leaf.append(np.reshape(stacked, shape + np.shape(x_leaf)))
        rows.append(tree_unflatten(x_def, per_leaf))
    return tree_unflatten(out_def, rows)
