"""The demo: differentiate a small numpy model, print the emitted gradient, check it."""

import numpy as np

import srcdiff as nf
from srcdiff.check import numerical_grad


def logistic_loss(w, x, y):
    """Mean logistic loss of a linear classifier with an L2 penalty."""
    logits = x @ w
    p = 1 / (1 + np.exp(-logits))
    nll = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
    return nll + 0.01 * np.sum(w**2)


def main(out=print):
    """Show and check one emitted gradient, then train a ResNet on the digits with them."""
    status = check_gradient(out)
    from .data import DatasetError, load_digits
    from .train import train

    out("\nTraining a ResNet-8 (width 16) on scikit-learn's 8x8 digits with srcdiff gradients:\n")
    try:
        data = load_digits()
    except DatasetError as exc:
        out(f"skipped: {exc}")
        return status
    _fit_blas_threads()
    history = train(data, depth=8, width=16, epochs=4).history
    out(f"\nheld-out test accuracy after {len(history)} epochs: {history[-1]['test_acc']:.3f}")
    return status


def _fit_blas_threads():
    """As the trainer does: no more BLAS threads than idle cores (srcdiff/threads.py)."""
    from . import threads

    try:
        threads.limit(threads.choose(None)[0])
    except RuntimeError:
        pass  # no threadpoolctl: numpy keeps the threads it started with


def check_gradient(out):
    import inspect

    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 5))
    y = (x[:, 0] - x[:, 1] > 0).astype(np.float64)
    w = rng.normal(size=5) * 0.1
    out("The function:\n")
    out(inspect.getsource(logistic_loss))
    dloss = nf.grad(logistic_loss)
    out("Its gradient, as emitted by srcdiff:\n")
    out(dloss.source)
    ours = dloss(w, x, y)
    theirs = numerical_grad(logistic_loss, (w, x, y))
    error = np.max(np.abs(ours - theirs))
    out(f"srcdiff gradient:    {np.array2string(ours, precision=6)}")
    out(f"finite differences:  {np.array2string(theirs, precision=6)}")
    out(f"max abs difference:  {error:.2e}  ({'OK' if error < 1e-6 else 'MISMATCH'})")
    return 0 if error < 1e-6 else 1
