"""The trainer as a Python function: exact resume, checkpoints, the schedule, augmentation."""

import io
import os

import numpy as np
import pytest

from srcdiff import checkpoint_file, ravel
from srcdiff.checkpoint_file import CheckpointError
from srcdiff.data import augment, prepare, sample_crops
from srcdiff.train import Config, TrainingInterrupted, learning_rate, train


def tiny_data(rng, count=30):
    x = rng.uniform(size=(count, 1, 8, 8)).astype(np.float32)
    y = (x[:, 0, :4].mean(axis=(1, 2)) > 0.5).astype(np.int64)
    return (x[:20], y[:20]), (x[20:], y[20:])


# every part of the recipe that a resume must carry: validation split, crops and flips,
# warm-up, a step schedule, weight decay, momentum, a last batch smaller than the others
TINY = Config(
    depth=8,
    width=4,
    epochs=4,
    batch_size=6,
    lr=0.05,
    schedule="step",
    milestones=(3,),
    warmup=1.0,
    augment=True,
    crop_padding=1,
    val=4,
)


def quiet_train(data, config, **options):
    return train(data, config, stream=io.StringIO(), **options)


def assert_same_run(a, b, varies=("seconds", "images_per_s")):
    assert np.array_equal(ravel(a.params), ravel(b.params))
    assert np.array_equal(ravel(a.state), ravel(b.state))
    timeless = [
        [{k: v for k, v in row.items() if k not in varies} for row in run.history] for run in (a, b)
    ]
    assert timeless[0] == timeless[1]


def test_two_epochs_then_resume_to_four_equals_four_straight(tmp_path, rng):
    data = tiny_data(rng)
    straight = quiet_train(data, TINY, checkpoint_path=str(tmp_path / "straight.npz"))
    path = str(tmp_path / "split.npz")
    first = quiet_train(data, TINY, epochs=2, checkpoint_path=path)
    assert len(first.history) == 2
    out = io.StringIO()
    resumed = train(data, TINY, checkpoint_path=path, resume=True, stream=out)
    assert "resumed from" in out.getvalue() and "after epoch 2" in out.getvalue()
    assert "epoch 1/4" not in out.getvalue() and "epoch 3/4" in out.getvalue()
    # the two-epoch run ended with a look at the test set, which the straight run took later
    assert_same_run(straight, resumed, varies=("seconds", "images_per_s", "test_acc"))
    assert straight.history[-1]["test_acc"] == resumed.history[-1]["test_acc"]
    saved = [
        checkpoint_file.load(str(tmp_path / name))[1] for name in ("straight.npz", "split.npz")
    ]
    for name in saved[0]["velocity"]:
        assert np.array_equal(saved[0]["velocity"][name], saved[1]["velocity"][name])


class StopAfter:
    """Stands in for Ctrl-C: asks the run to stop at the `checks`-th step."""

    def __init__(self, checks):
        self.checks = checks

    @property
    def requested(self):
        self.checks -= 1
        return self.checks < 0


@pytest.mark.parametrize("schedule", ["cosine", "step"])
def test_interrupted_mid_epoch_then_resumed_equals_uninterrupted(tmp_path, rng, schedule):
    data = tiny_data(rng)
    config = Config(**{**TINY.__dict__, "schedule": schedule})
    straight = quiet_train(data, config)
    path = str(tmp_path / "run.npz")
    with pytest.raises(
        TrainingInterrupted,
        match=f"interrupted in epoch 2 after step 2 of 3; saved to {path}: add --resume",
    ):
        quiet_train(data, config, checkpoint_path=path, interrupt=StopAfter(4))
    meta = checkpoint_file.load(path)[0]
    assert (meta["epoch"], meta["step"]) == (1, 2)
    resumed = quiet_train(data, config, checkpoint_path=path, resume=True)
    assert_same_run(straight, resumed)


def test_interrupt_without_checkpoint_says_nothing_was_saved(rng):
    with pytest.raises(TrainingInterrupted, match="nothing was saved"):
        quiet_train(tiny_data(rng), TINY, interrupt=StopAfter(1))


@pytest.mark.parametrize(
    "change, message",
    [
        ({"width": 8}, "--width 4 (these options: 8)"),
        ({"depth": 14}, "--depth 8 (these options: 14)"),
        (
            {"lr": 0.1, "milestones": (2, 3)},
            "--lr 0.05 (these options: 0.1); --milestones 3 (these options: 2,3)",
        ),
    ],
)
def test_resume_with_other_options_names_both_values(tmp_path, rng, change, message):
    data = tiny_data(rng)
    path = str(tmp_path / "run.npz")
    quiet_train(data, TINY, epochs=1, checkpoint_path=path)
    with pytest.raises(CheckpointError) as caught:
        quiet_train(data, TINY, checkpoint_path=path, resume=True, **change)
    assert f"{path} was written by a run with {message}" in str(caught.value)
    assert "hint: resume with the checkpoint's options" in str(caught.value)


def test_resume_on_other_data_is_refused(tmp_path, rng):
    path = str(tmp_path / "run.npz")
    quiet_train(tiny_data(rng), TINY, epochs=1, checkpoint_path=path)
    with pytest.raises(CheckpointError, match="data arrays:16/4/10:[0-9a-f]+ \\(this data: "):
        quiet_train(tiny_data(np.random.default_rng(7)), TINY, checkpoint_path=path, resume=True)


@pytest.mark.parametrize(
    "damage, message",
    [
        ("truncate", "is not a readable checkpoint"),
        ("text", "is not a readable checkpoint"),
        ("old format", "was not written by this version of srcdiff train"),
        ("missing", "there is no checkpoint at"),
    ],
)
def test_bad_checkpoint_is_a_clear_error(tmp_path, rng, damage, message):
    data = tiny_data(rng)
    path = tmp_path / "run.npz"
    quiet_train(data, TINY, epochs=1, checkpoint_path=str(path))
    if damage == "truncate":
        path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])
    elif damage == "text":
        path.write_text("not a checkpoint")
    elif damage == "old format":
        np.savez(path, epoch=np.array(1), **{"params.stem.w": np.zeros(3)})
    else:
        path.unlink()
    with pytest.raises(CheckpointError, match=message):
        quiet_train(data, TINY, checkpoint_path=str(path), resume=True)


def test_resume_needs_a_checkpoint_path(rng):
    with pytest.raises(CheckpointError, match="resume needs a checkpoint"):
        quiet_train(tiny_data(rng), TINY, resume=True)


def test_a_failed_write_leaves_the_old_checkpoint_whole(tmp_path, rng, monkeypatch):
    path = tmp_path / "run.npz"
    quiet_train(tiny_data(rng), TINY, epochs=1, checkpoint_path=str(path))
    before = path.read_bytes()

    def fail_midway(file, **arrays):
        file.write(b"PK\x03\x04 half a zip")
        raise OSError("disk full")

    monkeypatch.setattr(checkpoint_file.np, "savez", fail_midway)
    with pytest.raises(OSError, match="disk full"):
        checkpoint_file.save(str(path), {"epoch": 2}, {"params": {"w": np.ones(2)}})
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["run.best.npz", "run.npz"]  # no temporary left


def test_best_validation_epoch_is_saved_beside_the_checkpoint(tmp_path, rng):
    path = str(tmp_path / "run.npz")
    result = quiet_train(tiny_data(rng), TINY, checkpoint_path=path)
    best = max(result.history, key=lambda row: row["val_acc"])  # the first of equals
    meta = checkpoint_file.load(str(tmp_path / "run.best.npz"))[0]
    assert meta["epoch"] == best["epoch"] and meta["best"]["val_acc"] == best["val_acc"]
    # with a validation set the test set is evaluated at the end only
    assert [row["test_acc"] is None for row in result.history] == [True, True, True, False]


def test_metrics_are_appended_per_epoch_and_resume_continues_them(tmp_path, rng):
    import csv
    import json

    data, path, prefix = tiny_data(rng), str(tmp_path / "run.npz"), str(tmp_path / "m")
    quiet_train(data, TINY, epochs=2, checkpoint_path=path, metrics=prefix)
    with open(prefix + ".jsonl", "a") as f:
        f.write(json.dumps({"epoch": 3, "loss": 9.9}) + "\n")  # written, then a crash
    quiet_train(data, TINY, checkpoint_path=path, metrics=prefix, resume=True)
    rows = [json.loads(line) for line in open(prefix + ".jsonl")]
    assert [row["epoch"] for row in rows] == [1, 2, 3, 4] and rows[2]["loss"] != 9.9
    with open(prefix + ".csv") as f:
        table = list(csv.DictReader(f))
    assert [int(r["epoch"]) for r in table] == [1, 2, 3, 4]
    assert float(table[0]["loss"]) == pytest.approx(rows[0]["loss"])
    assert set(table[0]) == {
        "epoch",
        "lr",
        "loss",
        "train_acc",
        "val_acc",
        "test_acc",
        "seconds",
        "images_per_s",
    }


def test_learning_rate_warm_up_then_step_or_cosine():
    config = Config(lr=0.1, epochs=10, schedule="step", milestones=(5, 8), warmup=2.0)
    steps = 10  # per epoch
    assert learning_rate(config, 0, steps) == pytest.approx(0.1 / 20)
    assert learning_rate(config, 19, steps) == pytest.approx(0.1)
    assert learning_rate(config, 49, steps) == pytest.approx(0.1)
    assert learning_rate(config, 50, steps) == pytest.approx(0.01)
    assert learning_rate(config, 80, steps) == pytest.approx(0.001)
    cosine = Config(lr=0.1, epochs=10, schedule="cosine", warmup=2.0)
    assert learning_rate(cosine, 20, steps) == pytest.approx(0.1)
    assert learning_rate(cosine, 60, steps) == pytest.approx(0.05)
    assert learning_rate(cosine, 99, steps) == pytest.approx(
        0.1 * 0.5 * (1 + np.cos(np.pi * 7.9 / 8))
    )


def test_crop_and_flip(rng):
    x = rng.normal(size=(3, 2, 5, 5)).astype(np.float32)
    offsets = np.array([[2, 2], [0, 4], [2, 2]])
    out = augment(x, offsets, np.array([False, False, True]), padding=2)
    np.testing.assert_array_equal(out[0], x[0])  # centred crop: unchanged
    np.testing.assert_array_equal(out[1][:, 2:, :3], x[1][:, :3, 2:])  # moved down and left
    assert not out[1][:, :2].any() and not out[1][:, :, 3:].any()  # zero padding came in
    np.testing.assert_array_equal(out[2], x[2][:, :, ::-1])  # mirrored
    offsets, flips = sample_crops(rng, 1000, 4)
    assert offsets.min() == 0 and offsets.max() == 8 and 400 < flips.sum() < 600


def test_validation_split_and_limit(rng):
    (x, y), test = tiny_data(rng)
    data = prepare("tiny", (x, y), test, val_size=5, limit=8, seed=3)
    assert len(data.train[1]) == 8 and len(data.val[1]) == 5 and data.num_classes == 2
    held_out = {tuple(img.ravel()) for img in data.val[0]}
    assert not held_out & {tuple(img.ravel()) for img in data.train[0]}


def test_progress_into_a_file_is_a_line_a_minute_with_rate_and_eta(monkeypatch):
    from srcdiff import report

    clock = iter([0.0, 30.0, 61.0, 90.0])
    monkeypatch.setattr(report.time, "monotonic", lambda: next(clock))
    out = io.StringIO()
    progress = report.Progress(out, quiet=False, epochs=3)  # the clock reads 0
    for done in (100, 200, 300):  # at 30 s (too soon), 61 s, 90 s (too soon again)
        progress.step(2, done, 1000, 0.5, 0.8, 0.1, rate=10.0)
    assert out.getvalue() == (
        "epoch 2/3: 200/1000 loss 0.500 acc 0.800 lr 0.1 10 img/s ETA 1:20 (run 3:00)\n"
    )
