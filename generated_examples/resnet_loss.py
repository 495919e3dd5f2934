"""The gradient of srcdiff.resnet.loss: a whole ResNet's backward pass, as emitted."""
import numpy as np

from srcdiff import resnet
from srcdiff.resnet import loss as resnet_loss

WRT = (0,)


def example(rng):
    params = resnet.init(rng, depth=8, width=2, in_channels=1, num_classes=3)
    return (_float64(params), rng.normal(size=(2, 1, 8, 8)), np.array([0, 2]))


def _float64(tree):
    if isinstance(tree, dict):
        return {k: _float64(v) for k, v in tree.items()}
    if isinstance(tree, list):
        return [_float64(v) for v in tree]
    return np.asarray(tree, dtype=np.float64)
