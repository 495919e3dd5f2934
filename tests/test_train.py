"""The training tool: data loading, checkpoints, the CLI."""
import io
import os
import pickle

import numpy as np
import pytest

from srcdiff import train as training


def write_cifar(directory, rng, batches=2, per_batch=6):
    os.makedirs(directory, exist_ok=True)
    for name in [f"data_batch_{i + 1}" for i in range(batches)] + ["test_batch"]:
        batch = {b"data": rng.integers(0, 256, size=(per_batch, 3072), dtype=np.uint8),
                 b"labels": list(rng.integers(0, 10, size=per_batch))}
        with open(os.path.join(directory, name), "wb") as f:
            pickle.dump(batch, f)


def test_cifar_loader_reads_the_python_batch_format(tmp_path, rng):
    write_cifar(tmp_path, rng)
    (x, y), (xt, yt) = training.load_cifar10(str(tmp_path))
    assert x.shape == (12, 3, 32, 32) and x.dtype == np.float32 and y.shape == (12,)
    assert xt.shape == (6, 3, 32, 32)
    np.testing.assert_allclose(x.mean(axis=(0, 2, 3)), 0, atol=1e-5)


@pytest.mark.parametrize("damage, message", [
    ("missing_dir", "does not exist"),
    ("no_batches", "no data_batch_"),
    ("no_test", "test_batch is missing"),
    ("garbage", "not a CIFAR-10 python batch file"),
    ("wrong_shape", "expected data of shape (N, 3072)"),
])
def test_malformed_cifar_gives_a_clear_error(tmp_path, rng, damage, message):
    root = tmp_path / "cifar"
    write_cifar(root, rng)
    if damage == "missing_dir":
        root = tmp_path / "nowhere"
    elif damage == "no_batches":
        for n in os.listdir(root):
            if n.startswith("data_batch"):
                os.remove(root / n)
    elif damage == "no_test":
        os.remove(root / "test_batch")
    elif damage == "garbage":
        (root / "data_batch_1").write_bytes(b"not a pickle")
    elif damage == "wrong_shape":
        with open(root / "data_batch_1", "wb") as f:
            pickle.dump({b"data": np.zeros((2, 10), np.uint8), b"labels": [0, 1]}, f)
    with pytest.raises(training.DatasetError, match=message.replace("(", r"\(").replace(
            ")", r"\)")):
        training.load_cifar10(str(root))


def test_cli_reports_a_bad_data_directory(tmp_path, capsys):
    assert training.main(["--data", str(tmp_path / "missing")]) == 2
    assert "does not exist" in capsys.readouterr().err


def tiny_data(rng):
    x = rng.uniform(size=(24, 1, 8, 8)).astype(np.float32)
    y = (x[:, 0, :4].mean(axis=(1, 2)) > 0.5).astype(np.int64)
    return (x[:16], y[:16]), (x[16:], y[16:])


def test_checkpoint_save_and_resume(tmp_path, rng):
    data = tiny_data(rng)
    path = str(tmp_path / "ckpt.npz")
    out = io.StringIO()
    params, state, history = training.train(data, depth=8, width=4, epochs=1, batch_size=8,
                                            checkpoint=path, stream=out)
    assert os.path.exists(path) and len(history) == 1 and "epoch 1" in out.getvalue()
    out = io.StringIO()
    params2, state2, history2 = training.train(data, depth=8, width=4, epochs=2,
                                               batch_size=8, checkpoint=path, resume=True,
                                               stream=out)
    assert "resumed" in out.getvalue() and "epoch 2:" in out.getvalue()
    assert "epoch 1:" not in out.getvalue() and len(history2) == 2
    assert history2[0] == pytest.approx(history[0])
    with np.load(path) as saved:
        assert int(saved["epoch"]) == 2 and "params.blocks.0.w1" in saved.files


def test_plot_is_written_when_matplotlib_is_installed(tmp_path):
    pytest.importorskip("matplotlib")
    path = str(tmp_path / "history.png")
    assert training.plot_history([(1.0, 0.5, 0.4), (0.5, 0.8, 0.7)], path) == path
    with open(path, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_digits_training_learns(rng):
    pytest.importorskip("sklearn")
    (x, y), test = training.load_digits()
    _, _, history = training.train(((x[:400], y[:400]), test), depth=8, width=8, epochs=2,
                                   stream=io.StringIO())
    assert history[-1][2] > 0.7
