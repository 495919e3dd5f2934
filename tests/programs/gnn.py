"""A graph convolutional network (Kipf & Welling 2017) on an edge list: messages gathered by
fancy indexing and summed into their target nodes by np.add.at, degree-normalised; loss:
node classification cross-entropy on the labelled nodes."""

import numpy as np


def aggregate(h, sources, targets, num_nodes):
    degree = np.bincount(targets, minlength=num_nodes) + 1.0
    out = h / degree[:, None]  # the self loop
    messages = h[sources] / np.sqrt(degree[sources] * degree[targets])[:, None]
    np.add.at(out, targets, messages)
    return out


def forward(params, features, edges):
    sources, targets = edges
    h = features
    for i, (W, b) in enumerate(params):
        h = aggregate(h, sources, targets, features.shape[0]) @ W + b
        if i < len(params) - 1:
            h = np.maximum(h, 0.0)
    return h


def loss(params, features, edges, labels, labelled):
    logits = forward(params, features, edges)
    logits = logits - logits.max(axis=1, keepdims=True)
    log_probs = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    return -np.mean(log_probs[labelled, labels[labelled]])


def example(rng, nodes=7, feats=4, hidden=5, classes=3):
    pairs = [(i, (i + 1) % nodes) for i in range(nodes)] + [(0, 3), (2, 5)]
    sources = np.array([s for s, t in pairs] + [t for s, t in pairs])
    targets = np.array([t for s, t in pairs] + [s for s, t in pairs])
    params = [
        (0.5 * rng.normal(size=(feats, hidden)), 0.1 * rng.normal(size=hidden)),
        (0.5 * rng.normal(size=(hidden, classes)), 0.1 * rng.normal(size=classes)),
    ]
    features = rng.normal(size=(nodes, feats))
    labels = rng.integers(0, classes, size=nodes)
    labelled = np.array([0, 2, 3, 5])
    return params, features, (sources, targets), labels, labelled
