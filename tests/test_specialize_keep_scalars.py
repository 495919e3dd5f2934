"""The keep-scalar pass of specialisation (passes/keep_scalars.py): a sum's or mean's adjoint
left one number where every value it reaches keeps its type, shape and dtype. Its check runs
the function's shape inference with the number in place from the statement changed, and
stops past the last use of the name where both runs agree on everything else (from there on
they are the same run); where they do not, it runs on to the end, as a whole run would."""

import numpy as np
import pytest

import srcdiff as nf
from gradcheck import check_grad
from srcdiff.passes import keep_scalars


@pytest.fixture
def unchecked():
    nf.config(specialize=True)
    yield
    nf.config(specialize="check")


@pytest.fixture
def stops(monkeypatch):
    """Whether each check found the runs alike where it stopped, in order."""
    found = []

    def alike_at(*args):
        found.append(keep_scalars_alike_at(*args))
        return found[-1]

    keep_scalars_alike_at = keep_scalars._alike_at
    monkeypatch.setattr(keep_scalars, "_alike_at", alike_at)
    return found


def mean_then_more(x, w):
    m = np.mean(np.tanh(x))
    return m * np.sum(w * x)


def scaled_sum(x, s):
    h = np.tanh(x)
    g = np.sum(h * s)
    return g * np.sum(x)


def test_a_kept_number_is_checked_up_to_the_last_use_of_its_name(unchecked, stops):
    x, w = np.linspace(-1.0, 1.0, 5), np.linspace(0.5, 2.5, 5)
    source = nf.grad(mean_then_more, wrt=(0, 1)).source_for(x, w)
    assert stops == [True, True]  # (the adjoints of the sum and of the mean)
    assert (
        "    bw = b_t2 * x\n"
        "    bx = b_t2 * w\n"
        "    b_t0 = bm / 5\n"
        "    bx = bx + b_t0 * (1 - _t0 * _t0)\n"
        "    return bx, bw\n"
    ) in source
    check_grad(mean_then_more, x, w, wrt=(0, 1))


def test_a_number_that_changes_what_follows_runs_on_and_stays_spread(unchecked, stops):
    # (bh = b_t0 * s is a float where b_t0 is one: so where the check stops, the runs differ)
    x = np.linspace(-1.0, 1.0, 5)
    source = nf.grad(scaled_sum).source_for(x, 0.5)
    assert stops == [False]
    assert "    b_t0 = np.broadcast_to(bg, (5,))\n    bh = b_t0 * s\n" in source
    assert "    bx = np.broadcast_to(b_t1, (5,))\n" in source
    check_grad(scaled_sum, x, 0.5, wrt=0)
