"""A GRU language model over one-hot characters (Cho et al. 2014): the gates' weights in one
dict keyed by f-strings, the hidden state carried through a Python loop, and the
cross-entropy of each next character."""

import numpy as np

GATES = ("update", "reset", "candidate")


def sigmoid(x):
    return 0.5 * (np.tanh(0.5 * x) + 1.0)


def init_params(rng, vocab, hidden):
    params = {}
    for gate in GATES:
        params[f"W_{gate}"] = 0.3 * rng.normal(size=(vocab, hidden))
        params[f"U_{gate}"] = 0.3 * rng.normal(size=(hidden, hidden))
        params[f"b_{gate}"] = np.zeros(hidden)
    params["W_out"] = 0.3 * rng.normal(size=(hidden, vocab))
    return params


def gru_step(params, h, x):
    def gate(name, state):
        return x @ params[f"W_{name}"] + state @ params[f"U_{name}"] + params[f"b_{name}"]

    z = sigmoid(gate("update", h))
    r = sigmoid(gate("reset", h))
    h_tilde = np.tanh(gate("candidate", r * h))
    return (1 - z) * h + z * h_tilde


def loss(params, sequence):
    hidden = params["U_update"].shape[0]
    h = np.zeros((sequence.shape[1], hidden))
    total = 0.0
    for t in range(len(sequence) - 1):
        h = gru_step(params, h, sequence[t])
        logits = h @ params["W_out"]
        log_probs = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
        total -= np.sum(log_probs * sequence[t + 1])
    return total / (len(sequence) - 1)


def example(rng, vocab=5, hidden=4, length=6, batch=2):
    sequence = np.eye(vocab)[rng.integers(0, vocab, size=(length, batch))]
    return init_params(rng, vocab, hidden), sequence
