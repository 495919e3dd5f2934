"""Python as people write it (issue 16), one small function per construct (python_constructs.py):
srcdiff's gradient and tangent against central finite differences, and its Hessian-vector
product against central differences of its gradient.

A construct srcdiff cannot differentiate yet is an expected failure (strict: the mark must go
the moment it works) whose reason is what happens today: the first line of the SrcdiffError
(raises=SrcdiffError), or, worse, a raw exception (raises=its type)."""

import pytest

import srcdiff as nf
from python_constructs import CASES, callee_default_left_out, w_and_x
from pytree_oracle import (
    checked_gradient,
    check_tangent,
    checked_hvp,
    assert_leaves_close,
    brief_srcdiff_errors,
    finite_differences,
)
from srcdiff import SrcdiffError

# What happens today: construct -> in every mode, (construct, mode) -> in that mode; the first
# line of srcdiff's error [and the line it names], or (a raw exception's message, its type)
TODAY = {}


def cases(mode):
    params = []
    for name, (function, make_args) in CASES.items():
        today = TODAY.get((name, mode), TODAY.get(name))
        reason, raises = today if isinstance(today, tuple) else (today, SrcdiffError)
        marks = (
            () if today is None else pytest.mark.xfail(strict=True, raises=raises, reason=reason)
        )
        params.append(pytest.param(function, make_args, marks=marks, id=name))
    return params


@pytest.mark.parametrize("function, make_args", cases("grad"))
def test_gradient_matches_finite_differences(function, make_args):
    args = make_args()
    checked_gradient(function, args)


@pytest.mark.parametrize("function, make_args", cases("jvp"))
def test_tangent_matches_finite_differences(function, make_args):
    check_tangent(function, make_args())


@pytest.mark.parametrize("function, make_args", cases("hvp"))
def test_hessian_vector_product_matches_differences_of_the_gradient(function, make_args):
    checked_hvp(function, make_args())


def test_wrt_by_parameter_name():
    w, x = w_and_x()
    with brief_srcdiff_errors():
        gradient = nf.grad(callee_default_left_out, wrt="w")(w, x)
    assert_leaves_close(
        gradient,
        finite_differences(callee_default_left_out, (w, x)),
        1e-5,
        1e-7,
        "wrt='w' against finite differences",
    )


def test_values_kept_for_later_are_kept_once_per_call_as_f_would(monkeypatch):
    """`LOSSES.append(float(loss))` and `recorder.record(h)` run in the forward sweep (the
    specialised code keeps them too: LOSSES is not one of srcdiff's stacks)."""
    import python_constructs as constructs

    # (the suite's "check" mode runs the generic code beside each variant: effects twice)
    monkeypatch.setitem(nf.specialize.settings, "specialize", True)
    w, x = constructs.w_and_x()
    expected = float(constructs.np.sum(constructs.np.tanh(x @ w)))
    for derivative, args in (
        (nf.grad(constructs.records_values), (w, x)),
        (nf.jvp(constructs.records_values, wrt=0), (w, x, w)),
    ):
        constructs.LOSSES.clear()
        constructs.RECORDER.seen.clear()
        derivative(*args)
        assert constructs.LOSSES == [pytest.approx(expected, rel=1e-12)]
        assert len(constructs.RECORDER.seen) == 1
