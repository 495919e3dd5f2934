"""CIFAR-10's python batches, read with an unpickler that admits only what they hold."""

import os
import pickle
import re

import numpy as np
import pytest

from srcdiff.data import DatasetError, load_cifar10, prepare, read_batch


def write_cifar(directory, rng, batches=2, per_batch=6, protocol=2):
    """Batches as the CIFAR-10 python version has them: bytes keys, a uint8 array, a list of
    ints, and the file names (pickled with protocol 2, as the real files are)."""
    os.makedirs(directory, exist_ok=True)
    for name in [f"data_batch_{i + 1}" for i in range(batches)] + ["test_batch"]:
        labels = rng.integers(0, 10, size=per_batch)
        images = rng.integers(0, 100, size=(per_batch, 3, 32, 32))
        for i, label in enumerate(labels):  # something to learn: a bright band per class
            images[i, label % 3, 3 * label : 3 * label + 3] += 150
        batch = {
            b"batch_label": name.encode(),
            b"labels": [int(v) for v in labels],
            b"data": images.reshape(per_batch, 3072).astype(np.uint8),
            b"filenames": [f"{name}_{i}.png".encode() for i in range(per_batch)],
        }
        with open(os.path.join(directory, name), "wb") as f:
            pickle.dump(batch, f, protocol=protocol)


@pytest.mark.parametrize("protocol", [2, pickle.HIGHEST_PROTOCOL])
def test_reads_the_python_batch_format(tmp_path, rng, protocol):
    write_cifar(tmp_path, rng, protocol=protocol)
    (x, y), (xt, yt) = load_cifar10(str(tmp_path))
    assert x.shape == (12, 3, 32, 32) and x.dtype == np.uint8 and y.dtype == np.int64
    assert xt.shape == (6, 3, 32, 32) and y.max() < 10
    data = prepare("cifar10", (x, y), (xt, yt), val_size=2)
    assert data.train[0].dtype == np.float32 and data.num_classes == 10
    np.testing.assert_allclose(data.train[0].mean(axis=(0, 2, 3)), 0, atol=1e-5)
    np.testing.assert_allclose(data.train[0].std(axis=(0, 2, 3)), 1, atol=1e-3)


class Exploit:
    """Unpickling this runs a command: what a crafted batch file would do."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def batch_with(**entries):
    batch = {b"data": np.zeros((2, 3072), np.uint8), b"labels": [0, 1]}
    batch.update({k.encode(): v for k, v in entries.items()})
    return batch


@pytest.mark.parametrize(
    "content, message",
    [
        (b"not a pickle", "is not a CIFAR-10 python batch file"),
        (
            batch_with(data=np.zeros((2, 10), np.uint8)),
            "of shape (N, 3072), got uint8 of shape (2, 10)",
        ),
        (batch_with(data=np.array([["x"] * 3072] * 2)), "expected data as integers 0-255"),
        (batch_with(data=np.full((2, 3072), 300)), "pixel values must lie in 0-255, found 300"),
        (batch_with(labels="01"), "labels must be a list of class numbers, got a string"),
        (batch_with(labels=["cat", "dog"]), "labels must be a list of class numbers 0-9, got <U3"),
        (batch_with(labels=[0, -1]), "label -1 (image 1) is not a class number 0-9"),
        (batch_with(labels=[10, 0]), "label 10 (image 0) is not a class number 0-9"),
        (batch_with(labels=[0]), "2 images but 1 labels"),
        ([1, 2], "does not hold a CIFAR-10 batch dictionary (it holds a list)"),
        ({b"data": np.zeros((2, 3072), np.uint8)}, "has no 'data' and 'labels' entries"),
        (batch_with(labels=np.array([0, 1], dtype=object)), "0-9, got object of shape (2,)"),
    ],
)
def test_malformed_batches_are_clear_errors(tmp_path, rng, content, message):
    write_cifar(tmp_path, rng)
    path = tmp_path / "data_batch_1"
    path.write_bytes(content if isinstance(content, bytes) else pickle.dumps(content))
    with pytest.raises(DatasetError, match=re.escape(message)) as caught:
        load_cifar10(str(tmp_path))
    assert str(path) in str(caught.value)


def test_a_crafted_pickle_is_refused_before_it_runs(tmp_path):
    marker = tmp_path / "ran"
    path = tmp_path / "data_batch_1"
    path.write_bytes(pickle.dumps(batch_with(labels=[0, 1], note=Exploit(marker)), protocol=2))
    with pytest.raises(
        DatasetError, match="refers to posix.system, which a CIFAR-10 batch file never does"
    ):
        read_batch(str(path))
    assert not marker.exists()


@pytest.mark.parametrize(
    "damage, message",
    [
        ("missing_dir", "does not exist"),
        ("no_batches", "has no data_batch_* files"),
        ("no_test", "test_batch is missing"),
        ("archive", "is a file, not the CIFAR-10 folder\nhint: unpack cifar-10-python.tar.gz"),
    ],
)
def test_missing_files_are_clear_errors(tmp_path, rng, damage, message):
    root = tmp_path / "cifar"
    write_cifar(root, rng)
    if damage == "missing_dir":
        root = tmp_path / "nowhere"
    elif damage == "archive":
        root = root / "test_batch"
    elif damage == "no_batches":
        for name in os.listdir(root):
            if name.startswith("data_batch"):
                os.remove(root / name)
    else:
        os.remove(root / "test_batch")
    with pytest.raises(DatasetError, match=re.escape(message)):
        load_cifar10(str(root))


def test_validation_size_must_leave_training_images(rng):
    x, y = np.zeros((10, 3, 32, 32), np.uint8), np.zeros(10, np.int64)
    with pytest.raises(DatasetError, match="--val 10 must be at least 0 and less than the 10"):
        prepare("cifar10", (x, y), (x, y), val_size=10)
