"""Train the numpy ResNet with srcdiff-emitted gradients (`python -m srcdiff train`).

Default data: scikit-learn's bundled 8x8 digits (the `[examples]` extra), no download.
`--data DIR` reads CIFAR-10 from its python-pickle batch files instead.
"""
import argparse
import os
import pickle
import sys
import time

import numpy as np

import srcdiff as nf
from srcdiff import resnet


class DatasetError(Exception):
    """A missing or malformed dataset."""


# --- data -------------------------------------------------------------------------------------

def load_digits(seed=0, test_fraction=0.2):
    """scikit-learn's 8x8 digits as float32 NCHW in [0, 1], split into train and test."""
    try:
        from sklearn.datasets import load_digits as sklearn_digits
    except ImportError:
        raise DatasetError("the default dataset needs scikit-learn: pip install -e '.[examples]'"
                           " (or pass --data DIR with CIFAR-10)") from None
    digits = sklearn_digits()
    x = (digits.images / 16.0).astype(np.float32)[:, None]
    y = digits.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(x))
    cut = int(len(x) * (1 - test_fraction))
    return (x[order[:cut]], y[order[:cut]]), (x[order[cut:]], y[order[cut:]])


def _read_batch(path):
    try:
        with open(path, "rb") as f:
            batch = pickle.load(f, encoding="bytes")
    except FileNotFoundError:
        raise DatasetError(f"CIFAR-10 batch file {path} is missing") from None
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError) as exc:
        raise DatasetError(f"{path} is not a CIFAR-10 python batch file ({exc})") from None
    if not isinstance(batch, dict):
        raise DatasetError(f"{path} does not hold a CIFAR-10 batch dictionary")
    data = batch.get(b"data", batch.get("data"))
    labels = batch.get(b"labels", batch.get("labels"))
    if data is None or labels is None:
        raise DatasetError(f"{path} has no 'data' and 'labels' entries")
    data = np.asarray(data)
    if data.ndim != 2 or data.shape[1] != 3072 or len(labels) != len(data):
        raise DatasetError(f"{path}: expected data of shape (N, 3072) with N labels, "
                           f"got {data.shape} and {len(labels)} labels")
    x = data.reshape(-1, 3, 32, 32).astype(np.float32) / 255.0
    return x, np.asarray(labels, dtype=np.int64)


def load_cifar10(directory):
    """CIFAR-10 from `data_batch_1..5` and `test_batch`, normalised per channel."""
    if not os.path.isdir(directory):
        raise DatasetError(f"CIFAR-10 directory {directory} does not exist")
    names = sorted(n for n in os.listdir(directory) if n.startswith("data_batch_"))
    if not names:
        raise DatasetError(f"{directory} has no data_batch_* files (expected the CIFAR-10 "
                           "python version: data_batch_1 ... data_batch_5, test_batch)")
    parts = [_read_batch(os.path.join(directory, n)) for n in names]
    x_train = np.concatenate([p[0] for p in parts])
    y_train = np.concatenate([p[1] for p in parts])
    x_test, y_test = _read_batch(os.path.join(directory, "test_batch"))
    mean = x_train.mean(axis=(0, 2, 3), keepdims=True)
    std = x_train.std(axis=(0, 2, 3), keepdims=True) + 1e-6
    return ((x_train - mean) / std, y_train), ((x_test - mean) / std, y_test)


# --- pytrees ----------------------------------------------------------------------------------

def tree_map(fn, *trees):
    first = trees[0]
    if isinstance(first, dict):
        return {k: tree_map(fn, *(t[k] for t in trees)) for k in first}
    if isinstance(first, (list, tuple)):
        return type(first)(tree_map(fn, *parts) for parts in zip(*trees))
    return fn(*trees)


def flatten(tree, prefix=""):
    """{'blocks.0.w1': array, ...} for saving with np.savez."""
    if isinstance(tree, dict):
        items = tree.items()
    elif isinstance(tree, (list, tuple)):
        items = enumerate(tree)
    else:
        return {prefix: tree}
    out = {}
    for key, value in items:
        out.update(flatten(value, f"{prefix}.{key}" if prefix else str(key)))
    return out


def unflatten_like(flat, like, prefix=""):
    if isinstance(like, dict):
        return {k: unflatten_like(flat, v, f"{prefix}.{k}" if prefix else str(k))
                for k, v in like.items()}
    if isinstance(like, (list, tuple)):
        return type(like)(unflatten_like(flat, v, f"{prefix}.{i}" if prefix else str(i))
                          for i, v in enumerate(like))
    return flat[prefix]


# --- training ---------------------------------------------------------------------------------

class SGD:
    """SGD with momentum and weight decay on weight matrices/kernels (not on biases/BN)."""

    def __init__(self, params, lr, momentum=0.9, weight_decay=5e-4):
        self.lr, self.momentum, self.weight_decay = lr, momentum, weight_decay
        self.velocity = tree_map(np.zeros_like, params)

    def step(self, params, grads):
        def update(p, g, v):
            if p.ndim > 1:
                g = g + self.weight_decay * p
            v *= self.momentum
            v += g
            return p - self.lr * v
        return tree_map(update, params, grads, self.velocity)


def evaluate(params, state, x, y, batch_size=256):
    correct = 0
    for start in range(0, len(x), batch_size):
        pred = resnet.predict(params, state, x[start:start + batch_size])
        correct += int(np.sum(pred == y[start:start + batch_size]))
    return correct / len(x)


def _progress(epoch, done, total, loss, acc, started, stream):
    width = 30
    filled = int(width * done / total)
    rate = done / max(time.time() - started, 1e-9)
    line = (f"\repoch {epoch} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} "
            f"loss {loss:.3f} acc {acc:.3f} ({rate:.0f} img/s)")
    if stream.isatty() or done == total:
        stream.write(line + ("\n" if done == total else ""))
        stream.flush()


def save_checkpoint(path, params, state, optimizer, epoch, history):
    arrays = {f"params.{k}": v for k, v in flatten(params).items()}
    arrays.update({f"state.{k}": v for k, v in flatten(state).items()})
    arrays.update({f"velocity.{k}": v for k, v in flatten(optimizer.velocity).items()})
    arrays["epoch"] = np.array(epoch)
    arrays["history"] = np.array(history, dtype=np.float64).reshape(-1, 3)
    tmp = path + ".tmp.npz"
    np.savez(tmp, **arrays)
    os.replace(tmp, path)


def load_checkpoint(path, params, state, optimizer):
    with np.load(path) as data:
        def part(name, like):
            flat = {k[len(name) + 1:]: data[k] for k in data.files if k.startswith(name + ".")}
            return unflatten_like(flat, like)
        params = part("params", params)
        state = part("state", state)
        optimizer.velocity = part("velocity", optimizer.velocity)
        return params, state, int(data["epoch"]), [tuple(r) for r in data["history"]]


def plot_history(history, path):
    """Loss and accuracy per epoch as a PNG, when matplotlib is installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    epochs = np.arange(1, len(history) + 1)
    loss, train_acc, test_acc = np.array(history).T
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
    left.plot(epochs, loss, marker="o")
    left.set(xlabel="epoch", ylabel="training loss")
    right.plot(epochs, train_acc, marker="o", label="train")
    right.plot(epochs, test_acc, marker="o", label="test")
    right.set(xlabel="epoch", ylabel="accuracy")
    right.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def train(data, depth=8, width=16, epochs=4, batch_size=32, lr=0.05, momentum=0.9,
          weight_decay=5e-4, seed=0, checkpoint=None, resume=False, plot=None,
          stream=sys.stdout):
    """Train and evaluate each epoch; returns (params, state, history of (loss, train, test))."""
    (x_train, y_train), (x_test, y_test) = data
    rng = np.random.default_rng(seed)
    num_classes = int(max(y_train.max(), y_test.max())) + 1
    params = resnet.init(rng, depth=depth, width=width, num_classes=num_classes,
                         in_channels=x_train.shape[1])
    optimizer = SGD(params, lr, momentum, weight_decay)
    grad = nf.grad(resnet.train_loss, has_aux=True, preserve_result=True)
    state, start, history = None, 0, []
    if resume and checkpoint and os.path.exists(checkpoint):
        state = resnet.forward(params, None, x_train[:2], True)[1]  # the layout to load into
        params, state, start, history = load_checkpoint(checkpoint, params, state, optimizer)
        stream.write(f"resumed from {checkpoint} after epoch {start}\n")
    for epoch in range(start + 1, epochs + 1):
        order = rng.permutation(len(x_train))
        started, seen, total_loss, total_correct = time.time(), 0, 0.0, 0
        for begin in range(0, len(order), batch_size):
            batch = order[begin:begin + batch_size]
            xb, yb = x_train[batch], y_train[batch]
            grads, loss, (state, logits) = grad(params, state, xb, yb)
            params = optimizer.step(params, grads)
            seen += len(batch)
            total_loss += float(loss) * len(batch)
            total_correct += int(np.sum(np.argmax(logits, axis=1) == yb))
            _progress(epoch, seen, len(order), total_loss / seen, total_correct / seen,
                      started, stream)
        test_acc = evaluate(params, state, x_test, y_test)
        history.append((total_loss / seen, total_correct / seen, test_acc))
        stream.write(f"epoch {epoch}: loss {total_loss / seen:.4f}, train accuracy "
                     f"{total_correct / seen:.3f}, test accuracy {test_acc:.3f} "
                     f"({time.time() - started:.1f} s)\n")
        if checkpoint:
            save_checkpoint(checkpoint, params, state, optimizer, epoch, history)
    if plot and history and plot_history(history, plot):
        stream.write(f"wrote {plot}\n")
    return params, state, history


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m srcdiff train", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", help="CIFAR-10 directory (python batches); default: digits")
    parser.add_argument("--depth", type=int, default=None,
                        help="6n+2; default 8 on digits, 20 on CIFAR-10")
    parser.add_argument("--width", type=int, default=16)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--weight-decay", type=float, default=5e-4)
    parser.add_argument("--limit", type=int, default=None, help="use only N training images")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--checkpoint", help="save after each epoch (.npz); --resume loads it")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--plot", help="write a loss/accuracy PNG (needs matplotlib)")
    args = parser.parse_args(argv)
    try:
        data = load_cifar10(args.data) if args.data else load_digits(args.seed)
    except DatasetError as exc:
        print(f"srcdiff train: {exc}", file=sys.stderr)
        return 2
    if args.limit:
        (x, y), test = data
        data = (x[:args.limit], y[:args.limit]), test
    cifar = bool(args.data)
    _, _, history = train(data, depth=args.depth or (20 if cifar else 8),
                          width=args.width, epochs=args.epochs,
                          batch_size=args.batch_size, lr=args.lr, momentum=args.momentum,
                          weight_decay=args.weight_decay, seed=args.seed,
                          checkpoint=args.checkpoint, resume=args.resume, plot=args.plot)
    if history:
        print(f"final test accuracy: {history[-1][2]:.3f}")
    return 0
