"""Containers of parameters as people hold them (container_constructs.py): srcdiff's gradient,
tangent and Hessian-vector product against central differences, and its gradient against
autograd running the same source."""
import inspect
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import container_constructs
import srcdiff as nf
from container_constructs import CASES, ERRORS, WITHOUT_AUTOGRAD
from pytree_oracle import (assert_leaves_close, autograd_grad, brief_srcdiff_errors,
                           finite_differences, gradient_differences, inner, random_like,
                           structure)

NUMPY_IMPORT = "import numpy as np\n"
ALL_CASES = {**CASES, **WITHOUT_AUTOGRAD}


def for_autograd():
    """container_constructs with `np` bound to autograd.numpy."""
    path = Path(container_constructs.__file__)
    module = types.ModuleType("container_constructs_autograd")
    module.__file__ = f"{path} (autograd.numpy)"
    sys.modules[module.__name__] = module
    source = path.read_text().replace(NUMPY_IMPORT, "import autograd.numpy as np\n")
    exec(compile(source, module.__file__, "exec"), vars(module))
    return module


@pytest.mark.parametrize("name", ALL_CASES)
def test_gradient_matches_finite_differences_and_autograd(name):
    function, make_args = ALL_CASES[name]
    args = make_args()
    with brief_srcdiff_errors():
        gradient = nf.grad(function)(*args)
    assert structure(gradient) == structure(args[0])
    assert_leaves_close(gradient, finite_differences(function, args), 1e-5, 1e-7,
                        "srcdiff against finite differences")
    if name in WITHOUT_AUTOGRAD:
        return
    pytest.importorskip("autograd")
    twin = getattr(for_autograd(), function.__name__)
    assert_leaves_close(gradient, autograd_grad(twin, args), 1e-9, 1e-12,
                        "srcdiff against autograd")


@pytest.mark.parametrize("name", ALL_CASES)
def test_tangent_matches_finite_differences(name):
    function, make_args = ALL_CASES[name]
    args = make_args()
    direction = random_like(args[0], seed=1)
    with brief_srcdiff_errors():
        value, tangent = nf.jvp(function, wrt=0)(*args, direction)
    assert value == pytest.approx(function(*args), rel=1e-12)
    expected = inner(finite_differences(function, args), direction)
    assert tangent == pytest.approx(expected, rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("name", ALL_CASES)
def test_hessian_vector_product_matches_differences_of_the_gradient(name):
    function, make_args = ALL_CASES[name]
    args = make_args()
    direction = random_like(args[0], seed=1)
    with brief_srcdiff_errors():
        product = nf.hvp(function)(*args, direction)
    assert structure(product) == structure(args[0])
    assert_leaves_close(product, gradient_differences(nf.grad(function), args, direction),
                        1e-5, 1e-7, "srcdiff's hvp against differences of its gradient")


@pytest.mark.parametrize("name", ERRORS)
def test_what_has_no_length_in_the_code_is_a_located_error(name):
    function, make_args, message, hint = ERRORS[name]
    with pytest.raises(nf.UnsupportedError) as error:
        nf.grad(function)(*make_args())
    assert message in error.value.message and hint in error.value.hint
    lines, first = inspect.getsourcelines(function)
    refused = next(k for k, line in enumerate(lines) if "refused" in line)
    assert error.value.location.filename == container_constructs.__file__
    assert error.value.location.lineno == first + refused


def test_sorted_of_what_is_not_a_dict_fails_its_check_as_it_runs():
    params, x = container_constructs.layer_list()
    with pytest.raises(TypeError, match="took a differentiated value for a dict's keys.*but it is a list"):
        nf.grad(container_constructs.sorted_values)(params, x)


def an_array_plus_a_list(w, x):
    return np.sum((w + [1.0, 2.0]) * x)


def test_an_array_plus_a_list_is_not_taken_for_a_join():
    """params + [...] of a params the code does not call a list is joined as lists, checked
    as it runs: for an array, numpy adds elementwise, which srcdiff refuses, saying so."""
    with pytest.raises(nf.SrcdiffError, match=r"srcdiff took w \+ \[...\] for joining lists, "
                       r"but w is of type ndarray") as error:
        nf.grad(an_array_plus_a_list)(np.ones(2), np.ones(2))
    assert "np.array([...])" in error.value.hint


def writes_into_a_local_dict(x):
    d = {}
    d["a"] = x * 2
    return np.sum(d["a"] ** 2)


def unpacks_a_dict_display(x):
    d = {**{"a": x * 2}, "b": x}
    return np.sum(d["a"] * d["b"])


@pytest.mark.parametrize("function", [writes_into_a_local_dict, unpacks_a_dict_display])
def test_what_tests_errors_once_refused(function):
    """d = {}; d["a"] = v and {**{"a": v}, "b": w} were refused (tests/test_errors.py)."""
    args = (np.array([0.5, -1.0, 2.0]),)
    assert_leaves_close(nf.grad(function)(*args), finite_differences(function, args), 1e-6,
                        1e-8, "srcdiff against finite differences")
