"""A recursive net over a parse tree (a nested tuple of word indices): each node is the
tanh of W times its children's vectors. The node's derivative is a pair fwd_node/bwd_node
that calls itself as node does."""

import numpy as np

WRT = (0,)


def node(W, embeddings, tree):
    if isinstance(tree, int):
        return embeddings[tree]
    left, right = node(W, embeddings, tree[0]), node(W, embeddings, tree[1])
    return np.tanh(W @ np.concatenate([left, right]))


def tree_net(W, embeddings, tree, target):
    return np.sum((node(W, embeddings, tree) - target) ** 2)


def example(rng):
    W = 0.5 * rng.normal(size=(4, 8))
    embeddings = rng.normal(size=(5, 4))
    return W, embeddings, ((0, 1), (2, (3, 4))), rng.normal(size=4)
