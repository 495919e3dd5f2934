"""Data-parallel training under mpiexec (mpi4py and the mpich wheel: srcdiff[distributed])."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from srcdiff import checkpoint_file

try:
    import mpi4py  # noqa: F401  (only to know it is there: MPI starts in the subprocesses)
except ImportError:
    pytest.skip(
        "mpi4py is not installed: pip install -e '.[distributed]' runs these tests",
        allow_module_level=True,
    )

# the mpiexec that came with this Python's MPI wheel, else one on PATH
MPIEXEC = next(
    (
        str(p)
        for p in (Path(sys.executable).parent / "mpiexec", shutil.which("mpiexec"))
        if p and os.path.exists(p)
    ),
    None,
)
if MPIEXEC is None:
    pytest.skip(
        "mpi4py is installed but no mpiexec was found beside python or on PATH",
        allow_module_level=True,
    )

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_data import write_cifar  # noqa: E402


def mpirun(ranks, *args, timeout=300):
    out = subprocess.run(
        [MPIEXEC, "-n", str(ranks), sys.executable, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return out


ONE_STEP = """
import json
import numpy as np
import srcdiff as nf
from srcdiff import optim
from srcdiff.distributed import MPIWorld, Single
from srcdiff.nn import softmax_cross_entropy
from srcdiff.train import Config, Run, train_step


def mlp_loss(params, state, x, y):
    h = np.tanh(x @ params["w1"] + params["b1"])
    logits = h @ params["w2"] + params["b2"]
    return softmax_cross_entropy(logits, y), (state, logits)


rng = np.random.default_rng(0)
params = {"w1": rng.normal(size=(6, 8)).astype(np.float32), "b1": np.zeros(8, np.float32),
          "w2": rng.normal(size=(8, 3)).astype(np.float32), "b2": np.zeros(3, np.float32)}
x = rng.normal(size=(13, 6)).astype(np.float32)
y = rng.integers(0, 3, size=13)
grad = nf.grad(mlp_loss, has_aux=True, preserve_result=True)
config = Config(weight_decay=1e-3, momentum=0.9)
runs, mpi = {}, MPIWorld()
for name, world in (("ranks", mpi), ("one", Single())):
    run = runs[name] = Run(params, optim.momentum_init(params))
    # 13 images (shards of 7 and 6), again (momentum carries), then 1 (one shard empty)
    for batch in (np.arange(13), np.arange(13), np.arange(1)):
        mine = world.shard(batch)
        train_step(run, grad, (x[mine], y[mine]), 0.1, config, world)
if mpi.is_root:
    ranks, one = nf.ravel(runs["ranks"].params), nf.ravel(runs["one"].params)
    print(json.dumps({
        "size": mpi.size,
        "params": float(np.max(np.abs(ranks - one))), "scale": float(np.max(np.abs(one))),
        "loss": [runs["ranks"].loss_sum, runs["one"].loss_sum],
        "seen": [runs["ranks"].seen, runs["one"].seen],
        "correct": [runs["ranks"].correct, runs["one"].correct]}))
"""


def test_two_ranks_take_the_step_one_process_takes(tmp_path):
    script = tmp_path / "one_step.py"
    script.write_text(ONE_STEP)
    report = json.loads(mpirun(2, str(script)).stdout)
    assert report["size"] == 2 and report["seen"] == [27, 27]
    assert report["params"] <= 1e-6 * report["scale"]
    assert report["loss"][0] == pytest.approx(report["loss"][1], rel=1e-6)
    assert report["correct"][0] == report["correct"][1]


def train_args(data, path, epochs, *extra):
    return [
        "-m",
        "srcdiff",
        "train",
        "--distributed",
        "--data",
        str(data),
        "--depth",
        "8",
        "--width",
        "4",
        "--limit",
        "96",
        "--val",
        "32",
        "--batch-size",
        "32",
        "--lr",
        "0.05",
        "--schedule",
        "constant",
        "--warmup",
        "0",
        "--epochs",
        str(epochs),
        "--checkpoint",
        str(path),
        *extra,
    ]


def saved_arrays(path):
    trees = checkpoint_file.load(str(path))[1]
    return {
        f"{tree}/{name}": array for tree, leaves in trees.items() for name, array in leaves.items()
    }


def test_two_ranks_train_a_resnet8_and_resume_exactly(tmp_path, rng):
    data = tmp_path / "cifar"
    write_cifar(data, rng, batches=2, per_batch=64)
    straight = mpirun(2, *train_args(data, tmp_path / "straight.npz", 3))
    assert straight.stdout.count("epoch 1/3:") == 1  # rank 0 alone reports
    assert "over 2 ranks" in straight.stdout and "final test accuracy" in straight.stdout
    rows = [json.loads(line) for line in open(tmp_path / "straight.metrics.jsonl")]
    assert [row["epoch"] for row in rows] == [1, 2, 3] and rows[2]["loss"] < rows[0]["loss"]
    assert sorted(p.name for p in tmp_path.glob("straight*.npz")) == [
        "straight.best.npz",
        "straight.npz",
    ]
    arrays = saved_arrays(tmp_path / "straight.npz")
    # each rank kept the running statistics of its own shards (as DDP does by default)
    assert not np.array_equal(arrays["bn0/stem.m"], arrays["bn1/stem.m"])

    mpirun(2, *train_args(data, tmp_path / "split.npz", 1))
    mpirun(2, *train_args(data, tmp_path / "split.npz", 3, "--resume"))
    resumed = saved_arrays(tmp_path / "split.npz")
    assert resumed.keys() == arrays.keys()
    assert all(np.array_equal(arrays[k], resumed[k]) for k in arrays)


def test_sync_bn_gives_every_rank_the_same_statistics(tmp_path, rng):
    data = tmp_path / "cifar"
    write_cifar(data, rng, batches=1, per_batch=128)
    mpirun(2, *train_args(data, tmp_path / "sync.npz", 1, "--sync-bn", "--quiet"))
    arrays = saved_arrays(tmp_path / "sync.npz")
    assert np.array_equal(arrays["bn0/stem.m"], arrays["bn1/stem.m"])
    assert np.array_equal(arrays["bn0/blocks.2.v2"], arrays["bn1/blocks.2.v2"])


def test_resuming_on_another_number_of_ranks_is_refused(tmp_path, rng):
    data = tmp_path / "cifar"
    write_cifar(data, rng, batches=1, per_batch=128)
    mpirun(2, *train_args(data, tmp_path / "run.npz", 1, "--quiet"))
    out = subprocess.run(
        [
            MPIEXEC,
            "-n",
            "1",
            sys.executable,
            *train_args(data, tmp_path / "run.npz", 2, "--resume"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 2
    assert "was written by a run with ranks (mpiexec -n) 2 (these options: 1)" in out.stderr
