"""A two-layer regression model held in a dataclass, with a frozen config object."""

from dataclasses import dataclass

import numpy as np


@dataclass
class MLP:
    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: np.ndarray

    def predict(self, inputs):
        hidden = np.tanh(inputs @ self.W1 + self.b1)
        return hidden @ self.W2 + self.b2


@dataclass(frozen=True)
class Config:
    weight_decay: float = 1e-2


def loss(model, inputs, targets, config):
    residuals = model.predict(inputs) - targets
    penalty = config.weight_decay * (np.sum(model.W1**2) + np.sum(model.W2**2))
    return np.mean(residuals**2) + penalty


def example(rng):
    model = MLP(
        W1=0.5 * rng.normal(size=(3, 4)),
        b1=np.zeros(4),
        W2=0.5 * rng.normal(size=(4, 2)),
        b2=np.zeros(2),
    )
    inputs = rng.normal(size=(8, 3))
    targets = rng.normal(size=(8, 2))
    return model, inputs, targets, Config()
