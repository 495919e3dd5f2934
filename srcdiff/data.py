"""The trainer's data: scikit-learn's bundled 8x8 digits, or CIFAR-10 read safely from its
python batch files; a held-out validation split; CIFAR's random-crop-and-flip augmentation."""

import os
import pickle
import zlib
from collections import namedtuple

import numpy as np

from .errors import SrcdiffError


class DatasetError(SrcdiffError):
    """A missing or malformed dataset."""


# train, val (None without a validation split) and test are (images NCHW float32, int labels)
Dataset = namedtuple("Dataset", "name train val test num_classes")

CIFAR_CLASSES = 10


def load_digits(seed=0, test_fraction=0.2):
    """scikit-learn's 8x8 digits as float32 NCHW in [0, 1], split into train and test."""
    try:
        from sklearn.datasets import load_digits as sklearn_digits
    except ImportError:
        raise DatasetError(
            "the default dataset, scikit-learn's 8x8 digits, needs scikit-learn",
            hint="pip install 'srcdiff[examples]' (in a checkout of srcdiff: "
            "pip install -e '.[examples]'), or pass --data DIR with "
            "CIFAR-10",
        ) from None
    digits = sklearn_digits()
    x = (digits.images / 16.0).astype(np.float32)[:, None]
    y = digits.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(x))
    cut = int(len(x) * (1 - test_fraction))
    return (x[order[:cut]], y[order[:cut]]), (x[order[cut:]], y[order[cut:]])


# --- CIFAR-10's python batches, unpickled with only what they are made of -----------------------


def _checked_bytes_codec(text, encoding="latin1"):
    # pickle protocol 2 writes bytes as _codecs.encode(text, "latin1"): allow that and no more
    if not isinstance(text, str) or encoding != "latin1":
        raise pickle.UnpicklingError("_codecs.encode is allowed only as pickle writes bytes")
    return text.encode("latin1")


# what numpy's own pickles of arrays, dtypes and scalars call, under every name it has used
_ALLOWED = {
    ("numpy", "ndarray"): np.ndarray,
    ("numpy", "dtype"): np.dtype,
    ("_codecs", "encode"): _checked_bytes_codec,
}
for _core in ("numpy.core", "numpy._core"):
    _ALLOWED[(_core + ".multiarray", "_reconstruct")] = np.ndarray.__reduce__(np.zeros(1))[0]
    _ALLOWED[(_core + ".multiarray", "scalar")] = np.float64(0).__reduce__()[0]
    # pickle protocol 5 writes an array as _frombuffer(bytes, dtype, shape, order)
    _ALLOWED[(_core + ".numeric", "_frombuffer")] = np.zeros(1).__reduce_ex__(5)[0]


class _BatchUnpickler(pickle.Unpickler):
    """Admits dicts, lists, bytes, str, numbers and numpy arrays: a crafted pickle that names
    any other callable (os.system, say) is refused before anything runs."""

    def find_class(self, module, name):
        if (module, name) in _ALLOWED:
            return _ALLOWED[(module, name)]
        raise pickle.UnpicklingError(
            f"it refers to {module}.{name}, which a CIFAR-10 batch file never does (only dicts, "
            "lists, bytes, str and numpy arrays are admitted: a pickle can run code)"
        )


def _unpickle(path):
    try:
        with open(path, "rb") as f:
            return _BatchUnpickler(f, encoding="bytes").load()
    except FileNotFoundError:
        raise DatasetError(f"CIFAR-10 batch file {path} is missing") from None
    except (
        pickle.UnpicklingError,
        EOFError,
        ValueError,
        TypeError,
        AttributeError,
        IndexError,
        KeyError,
        OverflowError,
        MemoryError,
    ) as exc:
        raise DatasetError(
            f"{path} is not a CIFAR-10 python batch file ({exc})",
            hint="download 'CIFAR-10 python version' and pass the folder "
            "holding data_batch_1 ... data_batch_5 and test_batch",
        ) from None


def read_batch(path, num_classes=CIFAR_CLASSES):
    """One CIFAR-10 batch file: (uint8 images (N, 3, 32, 32), int64 labels (N,))."""
    batch = _unpickle(path)
    if not isinstance(batch, dict):
        raise DatasetError(
            f"{path} does not hold a CIFAR-10 batch dictionary (it holds a {type(batch).__name__})"
        )
    data = batch.get(b"data", batch.get("data"))
    labels = batch.get(b"labels", batch.get("labels"))
    if data is None or labels is None:
        raise DatasetError(f"{path} has no 'data' and 'labels' entries")
    data = np.asarray(data)
    if data.dtype.kind not in "iu" or data.ndim != 2 or data.shape[1] != 3072:
        raise DatasetError(
            f"{path}: expected data as integers 0-255 of shape (N, 3072), got "
            f"{data.dtype} of shape {data.shape}"
        )
    if data.size and (data.min() < 0 or data.max() > 255):
        raise DatasetError(
            f"{path}: pixel values must lie in 0-255, found {data.min()} to {data.max()}"
        )
    return data.reshape(-1, 3, 32, 32).astype(np.uint8), _labels(
        path, labels, len(data), num_classes
    )


def _labels(path, labels, count, num_classes):
    if isinstance(labels, (bytes, str)):
        raise DatasetError(f"{path}: labels must be a list of class numbers, got a string")
    labels = np.asarray(labels)
    if labels.dtype.kind not in "iu" or labels.ndim != 1:
        raise DatasetError(
            f"{path}: labels must be a list of class numbers 0-"
            f"{num_classes - 1}, got {labels.dtype} of shape {labels.shape}"
        )
    if len(labels) != count:
        raise DatasetError(f"{path}: {count} images but {len(labels)} labels")
    wrong = np.flatnonzero((labels < 0) | (labels >= num_classes))
    if len(wrong):
        raise DatasetError(
            f"{path}: label {labels[wrong[0]]} (image {wrong[0]}) is not a "
            f"class number 0-{num_classes - 1}"
        )
    return labels.astype(np.int64)


def load_cifar10(directory):
    """CIFAR-10 from `data_batch_1..5` and `test_batch`: ((x, y), (x_test, y_test)) with x
    uint8 (N, 3, 32, 32); `prepare` normalises them."""
    if os.path.isfile(directory):
        raise DatasetError(
            f"{directory} is a file, not the CIFAR-10 folder",
            hint="unpack cifar-10-python.tar.gz (tar xzf) and pass the folder "
            "it makes, cifar-10-batches-py",
        )
    if not os.path.isdir(directory):
        raise DatasetError(f"CIFAR-10 directory {directory} does not exist")
    names = sorted(n for n in os.listdir(directory) if n.startswith("data_batch_"))
    if not names:
        raise DatasetError(
            f"{directory} has no data_batch_* files",
            hint="pass the folder of the CIFAR-10 python version: "
            "data_batch_1 ... data_batch_5, test_batch",
        )
    parts = [read_batch(os.path.join(directory, n)) for n in names]
    test = read_batch(os.path.join(directory, "test_batch"))
    return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])), test


# --- the splits the trainer uses ------------------------------------------------------------------


def prepare(name, train, test, val_size=0, limit=None, seed=0):
    """A Dataset: `val_size` training images held out for validation (chosen by `seed`), then at
    most `limit` kept for training; uint8 images scaled by the training part's per-channel mean
    and standard deviation."""
    x, y = train
    if not 0 <= val_size < len(x):
        raise DatasetError(
            f"--val {val_size} must be at least 0 and less than the {len(x)} training images"
        )
    # stream 1 of the seed (train.py draws the others)
    order = np.random.default_rng([seed, 1]).permutation(len(x)) if val_size else np.arange(len(x))
    train_part, val_part = order[: len(x) - val_size], order[len(x) - val_size :]
    if limit is not None:
        train_part = train_part[:limit]
    x_train, y_train = x[train_part], y[train_part]
    scale = (lambda images: images) if x.dtype != np.uint8 else _standardiser(x_train)
    val = (scale(x[val_part]), y[val_part]) if val_size else None
    num_classes = CIFAR_CLASSES if x.dtype == np.uint8 else int(max(y.max(), test[1].max())) + 1
    return Dataset(name, (scale(x_train), y_train), val, (scale(test[0]), test[1]), num_classes)


def _standardiser(images):
    mean = images.mean(axis=(0, 2, 3), dtype=np.float64, keepdims=True)
    std = images.std(axis=(0, 2, 3), dtype=np.float64, keepdims=True) + 1e-6
    return lambda batch: ((batch - mean) / std).astype(np.float32)


def fingerprint(dataset):
    """A short digest of the labels trained, validated and tested on (images are not read: their
    scaled values may differ in the last bit between machines), so that a checkpoint is not
    resumed on other data by mistake."""
    parts = [dataset.train, dataset.val, dataset.test]
    sizes = "/".join(str(0 if part is None else len(part[1])) for part in parts)
    digest = 0
    for part in parts:
        if part is not None:
            digest = zlib.crc32(part[1].astype(np.int64).tobytes(), digest)
    return f"{dataset.name}:{sizes}:{digest:08x}"


def sample_crops(rng, count, padding):
    """Random crop offsets (0..2*padding each way) and horizontal flips for `count` images."""
    offsets = rng.integers(0, 2 * padding + 1, size=(count, 2))
    return offsets, rng.random(count) < 0.5


def augment(x, offsets, flips, padding):
    """Each image of x (N, C, H, W) zero-padded by `padding`, cropped back to H x W at its
    offset and mirrored left-right where `flips` says: CIFAR-10's standard augmentation."""
    height, width = x.shape[2:]
    padded = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    out = np.empty_like(x)
    for i, ((top, left), flip) in enumerate(zip(offsets, flips)):
        crop = padded[i, :, top : top + height, left : left + width]
        out[i] = crop[:, :, ::-1] if flip else crop
    return out
