"""Early return, break and continue: the forward sweep keeps its `break` and counts the
iterations that ran; the adjoint sweep replays those, skipping what `continue` skipped."""

import numpy as np

WRT = (0,)


def early_exit(x):
    total = 0.0
    for i in range(8):
        if i % 3 == 2:
            continue
        total = total + np.sum(np.sin(x * i))
        if total > 2.0:
            break
    if total < 0:
        return -total
    return total * 2


def example(rng):
    return (rng.normal(size=3),)
