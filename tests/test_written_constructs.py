"""Python as people write it (written_constructs.py, and picking_constructs.py: what picks
items, branches or pieces): srcdiff's gradient, tangent and Hessian-vector product against
central differences, its gradient against autograd running the same source, and the
constructs it refuses, located at the user's line."""

import inspect

import numpy as np
import pytest

import srcdiff as nf
import picking_constructs
import written_constructs
from pytree_oracle import (
    assert_leaves_close,
    autograd_grad,
    check_tangent,
    checked_gradient,
    checked_hvp,
    module_for_autograd,
)

MODULES = (written_constructs, picking_constructs)
# name -> (its module, function, what makes its arguments, whether autograd runs it too)
ALL_CASES = {
    name: (module, *case, name not in module.WITHOUT_AUTOGRAD)
    for module in MODULES
    for name, case in {**module.CASES, **module.WITHOUT_AUTOGRAD}.items()
}
ERRORS = {name: (module, *error) for module in MODULES for name, error in module.ERRORS.items()}


@pytest.mark.parametrize("name", ALL_CASES)
def test_gradient_matches_finite_differences_and_autograd(name):
    module, function, make_args, by_autograd = ALL_CASES[name]
    args = make_args()
    gradient = checked_gradient(function, args)
    if not by_autograd:
        return
    pytest.importorskip("autograd")
    twin = getattr(module_for_autograd(module), function.__name__)
    assert_leaves_close(
        gradient, autograd_grad(twin, args), 1e-9, 1e-12, "srcdiff against autograd"
    )


@pytest.mark.parametrize("name", ALL_CASES)
def test_tangent_matches_finite_differences(name):
    _, function, make_args, _ = ALL_CASES[name]
    check_tangent(function, make_args())


@pytest.mark.parametrize("name", ALL_CASES)
def test_hessian_vector_product_matches_differences_of_the_gradient(name):
    _, function, make_args, _ = ALL_CASES[name]
    checked_hvp(function, make_args())


@pytest.mark.parametrize("name", ERRORS)
def test_what_srcdiff_cannot_follow_is_a_located_error(name):
    module, function, make_args, message, hint = ERRORS[name]
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(function)(*make_args())
    assert message in error.value.message and hint in error.value.hint
    lines, first = inspect.getsourcelines(function)
    refused = next(k for k, line in enumerate(lines) if "refused" in line)
    assert error.value.location.filename == module.__file__
    assert error.value.location.lineno == first + refused


@pytest.mark.parametrize("t", [0.3, -0.4])
def test_piecewise_of_a_float_is_numpys_array_and_its_derivative(t):
    value, tangent = nf.jvp(picking_constructs.pieces_of_a_float)(t, 1.0)
    assert value == picking_constructs.pieces_of_a_float(t)
    expected = np.sin(t) + t * np.cos(t) if t >= 0 else 3 * t**2
    assert tangent == pytest.approx(expected, rel=1e-12)
    assert nf.grad(picking_constructs.pieces_of_a_float)(t) == pytest.approx(expected, rel=1e-12)
