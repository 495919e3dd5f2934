"""The gradient of srcdiff.resnet.loss: a whole ResNet's backward pass, as emitted."""

import numpy as np

from srcdiff import resnet
from srcdiff.resnet import loss as resnet_loss
from srcdiff.train import tree_map

WRT = (0,)


def example(rng):
    params = resnet.init(rng, depth=8, width=2, in_channels=1, num_classes=3)
    params = tree_map(lambda a: np.asarray(a, dtype=np.float64), params)
    return (params, rng.normal(size=(2, 1, 8, 8)), np.array([0, 2]))
