"""`python -m srcdiff train` as a user meets it: options, errors, Ctrl-C, resume, the README."""

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from srcdiff import checkpoint_file, threads, train_cli

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_data import write_cifar  # noqa: E402


def fails(capsys, *argv):
    """main(argv)'s exit status and what it printed to stderr."""
    try:
        status = train_cli.main(list(argv))
    except SystemExit as exc:
        status = exc.code
    return status, capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--depth", "7"], "argument --depth: 7 is not 6n + 2 with n >= 1: try 8, 14, 20"),
        (["--depth", "eight"], "argument --depth: expected a number, got 'eight'"),
        (["--lr", "0"], "argument --lr: 0 is out of range: it must be more than 0"),
        (
            ["--momentum", "1"],
            "argument --momentum: 1 is out of range: it must be at least 0 and below 1",
        ),
        (
            ["--milestones", "80,40"],
            "argument --milestones: 80,40: epochs must be positive and increasing",
        ),
        (["--schedule", "linear"], "argument --schedule: invalid choice: 'linear'"),
        (["--resume"], "--resume needs --checkpoint PATH: the run to carry on"),
        (["--sync-bn"], "--sync-bn applies only with --distributed"),
        (
            ["--checkpoint", "/no/such/folder/run.npz"],
            "--checkpoint /no/such/folder/run.npz: the folder /no/such/folder does not exist",
        ),
    ],
)
def test_bad_options_are_usage_errors(capsys, argv, message):
    status, err = fails(capsys, *argv)
    assert status == 2 and err.startswith("usage: ") and message in err


def test_help_shows_the_defaults_of_both_recipes(capsys):
    with pytest.raises(SystemExit) as exited:
        train_cli.main(["--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert exited.value.code == 0
    for shown in (
        "(default: 20 on CIFAR-10, 8 on digits)",
        "(default: 0.1 on CIFAR-10, 0.05 on digits)",
        "(default: step on CIFAR-10, constant on digits)",
        "(default: 0.9)",
        "(default: 5000 on CIFAR-10, 0 on digits)",
    ):
        assert shown in help_text


def test_plot_without_matplotlib_says_so_before_training(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(train_cli, "matplotlib_pyplot", lambda: None)
    status, err = fails(capsys, "--plot", str(tmp_path / "h.png"))
    assert status == 2 and "--plot needs matplotlib: pip install matplotlib" in err


def test_distributed_without_mpi4py_says_what_to_install(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "mpi4py", None)  # import mpi4py now fails
    status, err = fails(capsys, "--distributed")
    assert status == 2 and "--distributed needs mpi4py" in err
    assert "pip install 'srcdiff[distributed]'" in err


def test_threads_without_threadpoolctl_is_an_error_with_the_way_out(capsys, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "threadpoolctl", None)
    for name in threads.THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    write_cifar(tmp_path, np.random.default_rng(0), batches=1)
    status, err = fails(capsys, "--data", str(tmp_path), "--val", "1", "--threads", "1")
    assert status == 2 and "cannot set 1 BLAS thread(s)" in err
    assert "OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python -m srcdiff train" in err


def test_a_command_line_run_without_threadpoolctl_restarts_with_the_thread_variables(monkeypatch):
    monkeypatch.setitem(sys.modules, "threadpoolctl", None)
    for name in threads.THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(threads, "usable_cores", lambda: 2)
    monkeypatch.setattr(sys, "orig_argv", ["python3", "-m", "srcdiff", "train", "--threads", "1"])
    calls = []

    def execve(*call):  # which never returns
        calls.append(call)
        raise SystemExit(0)

    monkeypatch.setattr(os, "execve", execve)
    with pytest.raises(SystemExit):
        threads.limit(1, restart=True)
    ((executable, argv, environment),) = calls
    assert executable == sys.executable and argv == [
        sys.executable,
        "-m",
        "srcdiff",
        "train",
        "--threads",
        "1",
    ]
    assert all(environment[name] == "1" for name in threads.THREAD_VARIABLES)
    calls.clear()
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")  # the restarted run: no second restart
    assert threads.limit(1, restart=True) == "BLAS threads set by OPENBLAS_NUM_THREADS=1"
    assert threads.limit(2, restart=True) == "BLAS threads set by OPENBLAS_NUM_THREADS=1"
    assert calls == []


def test_the_restarted_command_runs_with_one_blas_thread(tmp_path):
    """What the restart relies on: OPENBLAS_NUM_THREADS set before numpy starts holds."""
    probe = (
        "import numpy, threadpoolctl; print(max(i['num_threads'] for i in "
        "threadpoolctl.threadpool_info() if i['user_api'] == 'blas'))"
    )
    pytest.importorskip("threadpoolctl")
    env = dict(os.environ, **{name: "1" for name in threads.THREAD_VARIABLES})
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "1"


def test_launcher_processes_are_read_before_mpi_starts(monkeypatch):
    for name in ("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"):
        monkeypatch.delenv(name, raising=False)
    assert threads.launcher_processes() == 1
    monkeypatch.setenv("MPI_LOCALNRANKS", "2")
    assert threads.launcher_processes() == 2


def test_thread_count_follows_idle_cores(monkeypatch):
    monkeypatch.setattr(threads, "usable_cores", lambda: 8)
    monkeypatch.setattr(threads, "busy_cores", lambda: 0.2)
    assert threads.choose(None) == (8, [])
    assert threads.choose(None, processes_here=4) == (2, [])
    monkeypatch.setattr(threads, "busy_cores", lambda: 6.0)
    assert threads.choose(None) == (2, [])
    monkeypatch.setattr(threads, "busy_cores", lambda: 7.6)
    count, warnings = threads.choose(None)
    assert count == 1 and "the machine is busy (load average 7.6 on 8 cores)" in warnings[0]
    count, warnings = threads.choose(4, processes_here=4)
    assert count == 4 and "oversubscribed" in warnings[0]


def test_bad_data_folder_is_an_error(capsys, tmp_path):
    status, err = fails(capsys, "--data", str(tmp_path / "missing"))
    assert status == 2 and "does not exist" in err


def test_an_existing_checkpoint_is_not_overwritten_by_a_new_run(capsys, tmp_path):
    path = tmp_path / "run.npz"
    path.write_bytes(b"precious")
    status, err = fails(capsys, "--checkpoint", str(path))
    assert status == 2 and "exists: add --resume to carry on that run" in err
    assert path.read_bytes() == b"precious"


def run_cli(*args, cwd=ROOT):
    paths = [str(ROOT), os.environ.get("PYTHONPATH")]  # this checkout's srcdiff from any cwd
    return subprocess.run(
        [sys.executable, "-m", "srcdiff", "train", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))},
    )


def test_readme_cifar_command_runs_on_synthetic_batches(tmp_path, rng):
    command = (
        re.search(r"^(python -m srcdiff train --data cifar-10-batches-py .*)$", README, re.M)
        .group(1)
        .split()[4:]
    )
    data = tmp_path / "cifar-10-batches-py"
    write_cifar(data, rng, batches=2, per_batch=96)
    # the recipe itself, on 128 images for 2 epochs, in the README's folder layout
    out = run_cli(*command, "--epochs", "2", "--val", "64", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert (
        "ResNet-20 (width 16) on cifar10, train/val/test 128/64/96, 2 epochs, batch 128"
        in out.stdout
    )
    assert "epoch 2/2:" in out.stdout and "validation accuracy" in out.stdout
    assert "final test accuracy" in out.stdout
    written = {p.name for p in tmp_path.iterdir()}
    stem = Path(command[command.index("--checkpoint") + 1]).stem
    assert {
        f"{stem}.npz",
        f"{stem}.best.npz",
        f"{stem}.metrics.csv",
        f"{stem}.metrics.jsonl",
    } <= written
    meta = checkpoint_file.load(str(tmp_path / f"{stem}.npz"))[0]
    assert meta["config"]["augment"] and meta["config"]["milestones"] == [1]
    assert meta["config"]["weight_decay"] == 1e-4 and meta["config"]["warmup"] == 1.0


def test_ctrl_c_saves_and_resume_carries_on_exactly(tmp_path):
    pytest.importorskip("sklearn")
    args = ["--limit", "96", "--width", "4", "--epochs", "8", "--batch-size", "16"]
    stopped = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "srcdiff",
            "train",
            *args,
            "--checkpoint",
            str(tmp_path / "stopped.npz"),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    for line in stopped.stdout:  # Ctrl-C once training is under way
        if line.startswith("epoch 1/8"):
            stopped.send_signal(signal.SIGINT)
            break
    out, err = stopped.communicate(timeout=300)
    assert stopped.returncode == 130, out + err
    assert re.search(
        r"interrupted in epoch \d+ after step \d+ of 6; saved to .*stopped.npz: "
        "add --resume to carry on exactly where it stopped",
        err,
    )
    resumed = run_cli(*args, "--checkpoint", str(tmp_path / "stopped.npz"), "--resume")
    assert resumed.returncode == 0 and "resumed from" in resumed.stdout, resumed.stderr
    straight = run_cli(*args, "--checkpoint", str(tmp_path / "straight.npz"), "--quiet")
    assert straight.returncode == 0 and straight.stdout.startswith("final test accuracy")
    a, b = (
        checkpoint_file.load(str(tmp_path / name))[1] for name in ("stopped.npz", "straight.npz")
    )
    for tree in ("params", "velocity", "bn0"):
        assert all(np.array_equal(a[tree][k], b[tree][k]) for k in b[tree])
    history = [json.loads(line) for line in open(tmp_path / "stopped.metrics.jsonl")]
    assert [row["epoch"] for row in history] == list(range(1, 9))


def test_resume_takes_left_out_options_from_the_checkpoint(tmp_path, capsys):
    pytest.importorskip("sklearn")
    path = str(tmp_path / "run.npz")
    assert (
        train_cli.main(
            [
                "--limit",
                "64",
                "--width",
                "4",
                "--epochs",
                "1",
                "--lr",
                "0.02",
                "--checkpoint",
                path,
                "--quiet",
            ]
        )
        == 0
    )
    assert train_cli.main(["--epochs", "2", "--checkpoint", path, "--resume", "--quiet"]) == 0
    meta = checkpoint_file.load(path)[0]
    assert meta["epoch"] == 2 and meta["config"]["width"] == 4 and meta["config"]["lr"] == 0.02
    capsys.readouterr()
    assert train_cli.main(["--checkpoint", path, "--resume"]) == 0
    assert "has trained 2 epochs already: raise --epochs to train on" in capsys.readouterr().out
    status, err = fails(capsys, "--width", "8", "--checkpoint", path, "--resume")
    assert status == 2 and "was written by a run with --width 4 (these options: 8)" in err
