"""Skip-gram word2vec with negative sampling (Mikolov et al. 2013): for each (centre, context)
pair the log-sigmoid of their embeddings' dot product, and of minus the dot products with
negative samples drawn outside the loss; embeddings in a dict of two matrices."""

import numpy as np


def log_sigmoid(x):
    return -np.logaddexp(0, -x)


def skipgram_pairs(sentence, window):
    pairs = []
    for i, centre in enumerate(sentence):
        for j in range(max(0, i - window), min(len(sentence), i + window + 1)):
            if j != i:
                pairs.append((centre, sentence[j]))
    return np.array(pairs)


def loss(embeddings, pairs, negatives):
    W_in, W_out = embeddings["in"], embeddings["out"]
    centres, contexts = pairs[:, 0], pairs[:, 1]
    v = W_in[centres]  # (pairs, dim)
    positive = log_sigmoid(np.sum(v * W_out[contexts], axis=1))
    negative_vectors = W_out[negatives]  # (pairs, k, dim)
    negative = log_sigmoid(-np.einsum("pkd,pd->pk", negative_vectors, v)).sum(axis=1)
    return -np.mean(positive + negative)


def example(rng, vocab=10, dim=4, num_negatives=3):
    sentence = rng.integers(0, vocab, size=8)
    pairs = skipgram_pairs(sentence, window=2)
    negatives = rng.integers(0, vocab, size=(len(pairs), num_negatives))
    embeddings = {
        "in": 0.5 * rng.normal(size=(vocab, dim)),
        "out": 0.5 * rng.normal(size=(vocab, dim)),
    }
    return embeddings, pairs, negatives
