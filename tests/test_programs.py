"""The target of issue 16: realistic numpy programs (tests/programs/), differentiated as written,
agree with autograd running the same source and with finite differences, in reverse mode,
forward mode and second order.

A check srcdiff cannot pass yet is an expected failure whose reason is the first line of the
SrcdiffError it raises (and the source line): strict, so the mark must go the moment the check
passes, and only a SrcdiffError counts (a raw exception or a wrong number fails the test)."""

import numpy as np
import pytest

import programs
import srcdiff as nf
from srcdiff import SrcdiffError
from pytree_oracle import (
    assert_leaves_close,
    autograd_grad,
    autograd_hvp,
    brief_srcdiff_errors,
    finite_differences,
    gradient_differences,
    inner,
    random_like,
    structure,
)

pytest.importorskip("autograd")

# srcdiff's error today: program -> for every check, (program, check) -> for that check
BLOCKED = {}

# programs autograd cannot run as written, and why: finite differences alone check them (of
# srcdiff's gradient, for the second order)
NOT_FOR_AUTOGRAD = {
    "nbody": "it writes into an array in place (acc[i] += ...)",
    "heat": "it writes into a copy in place (u_new[1:-1] += ...) and calls x.copy()",
    "gnn": "np.add.at",
    "conv1d": "sliding_window_view",
    "hmc": "its leapfrog steps call srcdiff's gradient of the potential",
    "spring_mass": "it writes into an array in place (f[:-1] += tension)",
}


def blocked(name, check):
    """srcdiff's error for this check of this program today, or None if it passes."""
    return BLOCKED.get((name, check), BLOCKED.get(name))


def cases(check):
    params = []
    for name in programs.NAMES:
        reason = blocked(name, check)
        marks = (
            ()
            if reason is None
            else pytest.mark.xfail(strict=True, raises=SrcdiffError, reason=reason)
        )
        params.append(pytest.param(name, marks=marks, id=name))
    return params


def expected_gradient(name, program, args):
    """autograd's gradient of the program's twin, or finite differences where it has none."""
    if name in NOT_FOR_AUTOGRAD:
        return finite_differences(program.loss, args)
    twin = programs.load_for_autograd(name)
    return autograd_grad(twin.loss, twin.example(np.random.default_rng(0)))


def expected_hvp(name, program, args, direction):
    if name in NOT_FOR_AUTOGRAD:
        return gradient_differences(nf.grad(program.loss), args, direction)
    twin = programs.load_for_autograd(name)
    return autograd_hvp(twin.loss, twin.example(np.random.default_rng(0)), direction)


@pytest.mark.parametrize("name", cases("grad"))
def test_gradient_agrees_with_autograd_and_finite_differences(name):
    program = programs.load(name)
    args = program.example(np.random.default_rng(0))
    with brief_srcdiff_errors():
        gradient = nf.grad(program.loss)(*args)
    assert structure(gradient) == structure(args[0])
    if name not in NOT_FOR_AUTOGRAD:
        assert_leaves_close(
            gradient,
            expected_gradient(name, program, args),
            1e-7,
            1e-10,
            f"{name}: srcdiff against autograd",
        )
    assert_leaves_close(
        gradient,
        finite_differences(program.loss, args),
        1e-5,
        1e-7,
        f"{name}: srcdiff against finite differences",
    )


@pytest.mark.parametrize("name", cases("jvp"))
def test_forward_mode_agrees_with_autograd(name):
    program = programs.load(name)
    args = program.example(np.random.default_rng(0))
    direction = random_like(args[0], seed=1)
    with brief_srcdiff_errors():
        value, tangent = nf.jvp(program.loss, wrt=0)(*args, direction)
    assert value == pytest.approx(program.loss(*args), rel=1e-12)
    expected = inner(expected_gradient(name, program, args), direction)
    rtol = 1e-5 if name in NOT_FOR_AUTOGRAD else 1e-7
    assert tangent == pytest.approx(expected, rel=rtol, abs=1e-10)


@pytest.mark.parametrize("name", cases("hvp"))
def test_hessian_vector_product_agrees_with_autograd(name):
    program = programs.load(name)
    args = program.example(np.random.default_rng(0))
    direction = random_like(args[0], seed=1)
    with brief_srcdiff_errors():
        product = nf.hvp(program.loss)(*args, direction)
    assert structure(product) == structure(args[0])
    assert_leaves_close(
        product,
        expected_hvp(name, program, args, direction),
        1e-5 if name in NOT_FOR_AUTOGRAD else 1e-6,
        1e-7 if name in NOT_FOR_AUTOGRAD else 1e-9,
        f"{name}: srcdiff's hvp against autograd's",
    )


def test_scipy_minimize_with_the_gradient_of_a_closure_as_its_jacobian():
    """logreg_lbfgs.fit passes nf.grad of an objective closing over the data as jac=: L-BFGS
    converges where the objective's finite-difference gradient vanishes."""
    program = programs.load("logreg_lbfgs")
    _, X, y = program.example(np.random.default_rng(0))
    w, result = program.fit(X, y)
    assert result.success
    at_optimum = finite_differences(program.loss, (w, X, y))[0]
    np.testing.assert_allclose(at_optimum, 0.0, atol=1e-5)
