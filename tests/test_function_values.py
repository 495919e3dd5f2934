"""Functions reached as values (function_values.py): srcdiff's gradient, tangent and
Hessian-vector product against central differences and autograd running the same source; grad
of grad for a float argument; a rebinding seen at the next call; what stays out, an error at
the user's line."""

import inspect

import numpy as np
import pytest

import function_values
import srcdiff as nf
from function_values import CASES, ERRORS, SCALAR
from gradcheck import numerical_grad
from pytree_oracle import (
    checked_gradient,
    check_tangent,
    checked_hvp,
    module_for_autograd,
    assert_leaves_close,
    autograd_grad,
    autograd_hvp,
    brief_srcdiff_errors,
    finite_differences,
)


def for_autograd():
    return module_for_autograd(function_values)


def twin_of(name):
    """The autograd twin's function and arguments of a case."""
    function, make_args = CASES[name]
    twin = for_autograd()
    return getattr(twin, function.__name__), getattr(twin, make_args.__name__)()


@pytest.mark.parametrize("name", CASES)
def test_gradient_matches_finite_differences_and_autograd(name):
    function, make_args = CASES[name]
    args = make_args()
    gradient = checked_gradient(function, args)
    pytest.importorskip("autograd")
    assert_leaves_close(
        gradient, autograd_grad(*twin_of(name)), 1e-9, 1e-12, "srcdiff against autograd"
    )


@pytest.mark.parametrize("name", CASES)
def test_tangent_matches_finite_differences(name):
    function, make_args = CASES[name]
    args = make_args()
    check_tangent(function, args)


@pytest.mark.parametrize("name", CASES)
def test_hessian_vector_product_matches_differences_and_autograd(name):
    function, make_args = CASES[name]
    args = make_args()
    product, direction = checked_hvp(function, args)
    pytest.importorskip("autograd")
    twin, twin_args = twin_of(name)
    assert_leaves_close(
        product,
        autograd_hvp(twin, twin_args, direction),
        1e-8,
        1e-10,
        "srcdiff's hvp against autograd's",
    )


@pytest.mark.parametrize("name", SCALAR)
def test_grad_of_grad_of_a_float_matches_differences(name):
    function, make_args = CASES[name][0], SCALAR[name]
    w, *rest = make_args()
    with brief_srcdiff_errors():
        second = nf.grad(nf.grad(function))(w, *rest)
    expected = numerical_grad(lambda v: nf.grad(function)(v, *rest), (w,), 0, eps=1e-5)
    assert second == pytest.approx(float(expected), rel=1e-5, abs=1e-7)


def gradient_checked(function, args):
    """nf.grad(function) at args, checked against finite differences."""
    gradient = nf.grad(function)(*args)
    assert_leaves_close(
        gradient,
        finite_differences(function, args),
        1e-5,
        1e-7,
        "srcdiff against finite differences",
    )


def test_a_global_list_of_layers_changed_is_seen_at_the_next_call(monkeypatch):
    args = function_values.w_and_x()
    check = lambda: gradient_checked(function_values.through_global_layers, args)  # noqa: E731
    check()
    layers = list(function_values.LAYERS)
    monkeypatch.setattr(function_values, "LAYERS", layers)  # (restored after the test)
    layers[0] = function_values.DenseLayer(*function_values.arrays((3, 4), 4, seed=6))
    check()
    layers.append(function_values.Dense(*function_values.arrays((2, 2), 2, seed=7)))
    check()

    def doubled(self, x):
        return 2.0 * np.tanh(x @ self.W + self.b)

    monkeypatch.setattr(function_values.Dense, "__call__", doubled)
    check()


def test_a_global_name_getattr_reads_rebound_is_seen_at_the_next_call(monkeypatch):
    args = function_values.w_and_x()
    for name in ("tanh", "sin", "cos"):
        monkeypatch.setattr(function_values, "NAME", name)
        gradient_checked(function_values.getattr_of_a_global_name, args)


def test_the_code_is_made_for_the_functions_and_classes_each_call_passes():
    w, x, layers = function_values.w_x_and_layers()
    arrays = function_values.arrays
    swapped = [
        function_values.Dense(layers[0].W, layers[0].b),
        function_values.DenseLayer(layers[1].W, layers[1].b),
    ]
    for held in (swapped, layers + [function_values.Dense(*arrays((2, 2), 2))]):
        gradient_checked(function_values.through_layers_passed, (w, x, held))
    for act in (np.sin, np.cos, function_values.softplus):
        gradient_checked(
            function_values.function_from_a_dict_argument, (w, x, {"act": act, "scale": 3.0})
        )
        for arch in (function_values.Arch(act, 2), function_values.ArchTuple(act, 2)):
            gradient_checked(function_values.function_field_of_an_argument, (w, x, arch))
    gradient_checked(function_values.getattr_of_a_default, (w, x, "cos"))


@pytest.mark.parametrize("name", ERRORS)
def test_what_stays_out_is_an_error_at_the_users_line(name):
    function, make_args, message, hint = ERRORS[name]
    with pytest.raises(nf.UnsupportedError) as error:
        nf.grad(function)(*make_args())
    assert message in error.value.message and hint in error.value.hint
    lines, first = inspect.getsourcelines(function)
    refused = next(k for k, line in enumerate(lines) if "refused" in line)
    assert error.value.location.filename == function_values.__file__
    assert error.value.location.lineno == first + refused
