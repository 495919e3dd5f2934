"""A Poisson GLM for spike counts with a temporal stimulus filter and a spike-history filter
(Pillow et al. 2008), the design matrix built from lagged copies; loss: the negative
log-likelihood with gammaln, plus a smoothness penalty on the filters."""

import numpy as np
from scipy.special import gammaln


def lagged(signal, lags):
    return np.stack(
        [np.concatenate([np.zeros(k), signal[: len(signal) - k]]) for k in range(1, lags + 1)],
        axis=1,
    )


def loss(filters, stimulus, spikes, smoothing=1.0):
    k, h, bias = filters["stimulus"], filters["history"], filters["bias"]
    drive = lagged(stimulus, len(k)) @ k + lagged(spikes, len(h)) @ h + bias
    rate = np.exp(drive)
    log_likelihood = np.sum(spikes * drive - rate - gammaln(spikes + 1))
    roughness = sum(np.sum(np.diff(f) ** 2) for f in (k, h))
    return -log_likelihood / len(spikes) + smoothing * roughness


def example(rng, length=30):
    stimulus = rng.normal(size=length)
    spikes = rng.poisson(1.0, size=length).astype(float)
    filters = {
        "stimulus": 0.1 * rng.normal(size=4),
        "history": -0.1 * np.abs(rng.normal(size=3)),
        "bias": np.array(0.0),
    }
    return filters, stimulus, spikes
