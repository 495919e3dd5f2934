"""The README shows what srcdiff really emits."""

import re
from pathlib import Path

import numpy as np

import srcdiff as nf

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def loss(w, x):
    return np.sum(np.tanh(x @ w) ** 2)


def test_tour_source_is_the_emitted_source():
    shown = re.search(r"```python\n(def dloss\(w, x\):.*?)```", README, re.S).group(1)
    assert shown in nf.grad(loss).source


def test_walkthrough_is_the_checked_in_rnn_gradient():
    shown = re.search(r"```python\n(def drnn\(.*?)```", README, re.S).group(1)
    code = [line.split("  #")[0].rstrip() for line in shown.splitlines()]
    emitted = (
        Path(__file__).resolve().parent.parent / "generated_examples" / "rnn_grad.py"
    ).read_text()
    assert "\n".join(code) in emitted


def test_readme_states_the_demo_accuracy():
    import io

    import pytest

    pytest.importorskip("sklearn")
    from srcdiff.data import load_digits
    from srcdiff.train import train

    # BLAS kernels differ between CPUs, so the trained figure is only reproducible to within
    # a few test digits: the README states it as approximate, and the run must reach it
    stated = float(re.search(r"\*\*about ([\d.]+)% held-out test", README).group(1))
    history = train(load_digits(), depth=8, width=16, epochs=4, stream=io.StringIO()).history
    assert 100 * history[-1]["test_acc"] >= stated - 1.5


def test_specialised_rnn_is_what_a_call_runs():
    import sys

    shown = re.search(r"is what runs:\n\n```python\n(def drnn\(.*?)```", README, re.S).group(1)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
    import regen_examples

    rnn = regen_examples.load("rnn")
    args = rnn.example(np.random.default_rng(0))
    assert [np.shape(a) for a in args] == [(4, 4), (4,), (4,), (10, 4)]
    assert nf.grad(rnn.rnn, wrt=(0, 1)).source_for(*args) == shown
