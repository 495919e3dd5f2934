"""Neural style transfer's losses on fixed random convolutional features (Gatys et al. 2016):
content loss on one layer and style loss on Gram matrices of several, differentiated with
respect to the image; the feature extractor is a list of (filter bank, bias) convolutions
written with np.einsum over shifted slices."""

import numpy as np


def conv3x3(image, filters, bias):
    # image: (channels, h, w) -> (filters, h - 2, w - 2)
    h, w = image.shape[1] - 2, image.shape[2] - 2
    out = bias[:, None, None] + sum(
        np.einsum("fc,chw->fhw", filters[:, :, i, j], image[:, i : i + h, j : j + w])
        for i in range(3)
        for j in range(3)
    )
    return np.maximum(out, 0.1 * out)  # leaky ReLU


def features(image, layers):
    out = []
    for filters, bias in layers:
        image = conv3x3(image, filters, bias)
        out.append(image)
    return out


def gram(feature):
    flat = feature.reshape(feature.shape[0], -1)
    return flat @ flat.T / flat.shape[1]


def loss(image, content_features, style_grams, layers, style_weight=10.0):
    made = features(image, layers)
    content = np.mean((made[-1] - content_features) ** 2)
    style = sum(np.sum((gram(f) - g) ** 2) for f, g in zip(made, style_grams))
    return content + style_weight * style


def example(rng):
    layers = [
        (0.3 * rng.normal(size=(4, 3, 3, 3)), 0.1 * rng.normal(size=4)),
        (0.3 * rng.normal(size=(5, 4, 3, 3)), 0.1 * rng.normal(size=5)),
    ]
    content = rng.random((3, 9, 9))
    style = rng.random((3, 9, 9))
    return (
        content + 0.1 * rng.normal(size=content.shape),
        features(content, layers)[-1],
        [gram(f) for f in features(style, layers)],
        layers,
    )
