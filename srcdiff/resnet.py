"""CIFAR-style ResNet-(6n+2) as plain numpy functions; srcdiff emits every gradient.

Three stages of n basic blocks (width w, 2w, 4w); the first block of stages 2 and 3 halves
the resolution, its shortcut subsamples x[:, :, ::2, ::2] and zero-pads the new channels.
`params` is a nested dict of float32 arrays; `state` holds the batch-norm running statistics
in the same layout (None before training has produced any).
"""

import numpy as np

from .nn import batch_norm, conv2d, global_avg_pool, linear, relu, softmax_cross_entropy


def _conv_init(rng, out_channels, in_channels, k):
    scale = np.sqrt(2.0 / (in_channels * k * k))
    return (rng.normal(size=(out_channels, in_channels, k, k)) * scale).astype(np.float32)


def init(rng, depth=20, width=16, num_classes=10, in_channels=3):
    """Parameters of a ResNet-`depth` (depth = 6n + 2) as a nested dict of float32 arrays."""
    if (depth - 2) % 6 != 0 or depth < 8:
        raise ValueError(f"depth must be 6n + 2 with n >= 1 (8, 14, 20, 32, 56, ...), not {depth}")
    per_stage = (depth - 2) // 6
    ones = lambda c: np.ones(c, dtype=np.float32)  # noqa: E731
    zeros = lambda c: np.zeros(c, dtype=np.float32)  # noqa: E731
    params = {
        "stem": {
            "w": _conv_init(rng, width, in_channels, 3),
            "gamma": ones(width),
            "beta": zeros(width),
        },
        "blocks": [],
    }
    channels = width
    for stage in range(3):
        out = width * 2**stage
        for _ in range(per_stage):
            params["blocks"].append(
                {
                    "w1": _conv_init(rng, out, channels, 3),
                    "g1": ones(out),
                    "b1": zeros(out),
                    "w2": _conv_init(rng, out, out, 3),
                    "g2": ones(out),
                    "b2": zeros(out),
                }
            )
            channels = out
    limit = np.sqrt(1.0 / channels)
    params["head"] = {
        "w": rng.uniform(-limit, limit, size=(channels, num_classes)).astype(np.float32),
        "b": zeros(num_classes),
    }
    return params


def basic_block(p, s, x, training):
    """Two 3x3 conv-bn layers and a shortcut; returns (output, new running statistics)."""
    stride = 1 if x.shape[1] == p["w1"].shape[0] else 2
    h = conv2d(x, p["w1"], stride, 1)
    h, m1, v1 = batch_norm(
        h,
        p["g1"],
        p["b1"],
        None if s is None else s["m1"],
        None if s is None else s["v1"],
        training,
    )
    h = relu(h)
    h = conv2d(h, p["w2"], 1, 1)
    h, m2, v2 = batch_norm(
        h,
        p["g2"],
        p["b2"],
        None if s is None else s["m2"],
        None if s is None else s["v2"],
        training,
    )
    shortcut = x
    if stride == 2:
        shortcut = x[:, :, ::2, ::2]
        shortcut = np.concatenate([shortcut, np.zeros_like(shortcut)], axis=1)
    return relu(h + shortcut), {"m1": m1, "v1": v1, "m2": m2, "v2": v2}


def forward(params, state, x, training, block=basic_block):
    """Logits for x (N, C, H, W), and the new batch-norm running statistics. `block` is
    basic_block, or nf.checkpoint(basic_block) to have a gradient recompute each block's
    values in its backward sweep rather than keep them (less memory, one more forward)."""
    stem = params["stem"]
    h, m, v = batch_norm(
        conv2d(x, stem["w"], 1, 1),
        stem["gamma"],
        stem["beta"],
        None if state is None else state["stem"]["m"],
        None if state is None else state["stem"]["v"],
        training,
    )
    h = relu(h)
    blocks = []
    for i in range(len(params["blocks"])):
        h, block_state = block(
            params["blocks"][i], None if state is None else state["blocks"][i], h, training
        )
        blocks = blocks + [block_state]
    logits = linear(global_avg_pool(h), params["head"]["w"], params["head"]["b"])
    return logits, {"stem": {"m": m, "v": v}, "blocks": blocks}


def loss(params, x, y, block=basic_block):
    """Mean cross-entropy of int labels y, with batch statistics (training mode)."""
    logits, _ = forward(params, None, x, True, block)
    return softmax_cross_entropy(logits, y)


def train_loss(params, state, x, y):
    """(loss, (new running statistics, logits)): differentiate it with
    srcdiff.grad(..., has_aux=True)."""
    logits, new_state = forward(params, state, x, True)
    return softmax_cross_entropy(logits, y), (new_state, logits)


def predict(params, state, x):
    """Class predictions in evaluation mode (running statistics)."""
    logits, _ = forward(params, state, x, False)
    return np.argmax(logits, axis=1)
