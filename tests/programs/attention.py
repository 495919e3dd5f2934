"""A pre-norm transformer block: multi-head self-attention and a feed-forward layer, each with
a residual connection, on a batch of token sequences; loss: squared error of a readout."""

import numpy as np


def layer_norm(x, gain, bias, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return gain * (x - mean) / np.sqrt(var + eps) + bias


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(x, num_heads):
    batch, seq, width = x.shape
    return x.reshape(batch, seq, num_heads, width // num_heads).transpose((0, 2, 1, 3))


def merge_heads(x):
    batch, heads, seq, depth = x.shape
    return np.transpose(x, (0, 2, 1, 3)).reshape(batch, seq, heads * depth)


def self_attention(p, x, num_heads, mask):
    q = split_heads(x @ p["Wq"], num_heads)
    k = split_heads(x @ p["Wk"], num_heads)
    v = split_heads(x @ p["Wv"], num_heads)
    scores = q @ k.swapaxes(-1, -2) / np.sqrt(q.shape[-1])
    scores = np.where(mask, scores, -1e9)
    return merge_heads(softmax(scores, axis=-1) @ v) @ p["Wo"]


def transformer_block(p, x, num_heads, mask):
    x = x + self_attention(p, layer_norm(x, p["ln1_g"], p["ln1_b"]), num_heads, mask)
    h = np.maximum(0, layer_norm(x, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"])
    return x + h @ p["W2"] + p["b2"]


def loss(params, tokens, targets, num_heads=2):
    seq = tokens.shape[1]
    causal = np.tril(np.ones((seq, seq), dtype=bool))
    out = transformer_block(params, tokens, num_heads, causal)
    return np.mean((out.mean(axis=1) @ params["readout"] - targets) ** 2)


def example(rng, width=8, hidden=12):
    def dense(m, n):
        return rng.normal(size=(m, n)) / np.sqrt(m)

    params = {
        "Wq": dense(width, width),
        "Wk": dense(width, width),
        "Wv": dense(width, width),
        "Wo": dense(width, width),
        "ln1_g": 1 + 0.1 * rng.normal(size=width),
        "ln1_b": 0.1 * rng.normal(size=width),
        "ln2_g": 1 + 0.1 * rng.normal(size=width),
        "ln2_b": 0.1 * rng.normal(size=width),
        "W1": dense(width, hidden),
        "b1": 0.1 * rng.normal(size=hidden),
        "W2": dense(hidden, width),
        "b2": 0.1 * rng.normal(size=width),
        "readout": dense(width, 1)[:, 0],
    }
    tokens = rng.normal(size=(3, 5, width))
    targets = rng.normal(size=3)
    return params, tokens, targets
