"""A temporal convolutional network on time series: causal dilated 1-d convolutions written
with np.lib.stride_tricks.sliding_window_view and np.pad, residual connections, global
average pooling and a linear head; parameters as a list of dicts."""

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def causal_conv(x, kernel, bias, dilation):
    # x: (batch, time, channels_in), kernel: (width, channels_in, channels_out)
    width = kernel.shape[0]
    padded = np.pad(x, ((0, 0), ((width - 1) * dilation, 0), (0, 0)))
    windows = sliding_window_view(padded, (width - 1) * dilation + 1, axis=1)
    windows = windows[..., ::dilation]  # (batch, time, channels_in, width)
    return np.einsum("btcw,wco->bto", windows, kernel) + bias


def loss(layers, series, targets):
    h = series
    for dilation, layer in enumerate(layers[:-1], start=0):
        out = np.tanh(causal_conv(h, layer["kernel"], layer["bias"], 2**dilation))
        h = out + h if out.shape == h.shape else out
    head = layers[-1]
    prediction = h.mean(axis=1) @ head["W"] + head["b"]
    return np.mean((prediction - targets) ** 2)


def example(rng, channels=3, width=2, batch=2, time=8):
    layers = [
        {
            "kernel": 0.5 * rng.normal(size=(width, channels, channels)),
            "bias": 0.1 * rng.normal(size=channels),
        }
        for _ in range(2)
    ]
    layers.append({"W": rng.normal(size=(channels, 1)), "b": np.zeros(1)})
    series = rng.normal(size=(batch, time, channels))
    return layers, series, rng.normal(size=(batch, 1))
