"""A small convolutional classifier: convolution by im2col (patches gathered with slicing in
loops), ReLU, 2x2 max pooling by reshape, and a dense softmax layer; parameters as a list of
layers, each a tuple."""

import numpy as np


def im2col(images, kh, kw):
    n, c, h, w = images.shape
    out_h, out_w = h - kh + 1, w - kw + 1
    columns = []
    for i in range(kh):
        for j in range(kw):
            columns.append(images[:, :, i : i + out_h, j : j + out_w])
    patches = np.stack(columns, axis=2)  # n, c, kh*kw, out_h, out_w
    return patches.reshape(n, c * kh * kw, out_h * out_w), out_h, out_w


def conv2d(images, filters, bias):
    num_filters, c, kh, kw = filters.shape
    cols, out_h, out_w = im2col(images, kh, kw)
    out = np.einsum("fk,nkp->nfp", filters.reshape(num_filters, -1), cols)
    return out.reshape(images.shape[0], num_filters, out_h, out_w) + bias[None, :, None, None]


def max_pool(x, size=2):
    n, c, h, w = x.shape
    x = x[:, :, : h // size * size, : w // size * size]
    return x.reshape(n, c, h // size, size, w // size, size).max(axis=(3, 5))


def logsoftmax(z):
    z = z - np.max(z, axis=1, keepdims=True)
    return z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))


def predict(params, images):
    (filters, conv_bias), (W, b) = params
    h = max_pool(np.maximum(conv2d(images, filters, conv_bias), 0.0))
    return logsoftmax(h.reshape(h.shape[0], -1) @ W + b)


def loss(params, images, labels):
    log_probs = predict(params, images)
    return -np.mean(log_probs[np.arange(len(labels)), labels])


def example(rng):
    images = rng.normal(size=(4, 2, 7, 7))
    labels = rng.integers(0, 3, size=4)
    params = [
        (0.3 * rng.normal(size=(3, 2, 3, 3)), 0.1 * rng.normal(size=3)),
        (0.3 * rng.normal(size=(3 * 2 * 2, 3)), 0.1 * rng.normal(size=3)),
    ]
    return params, images, labels
