"""Containers of parameters as people hold them (container_constructs.py): srcdiff's gradient,
tangent and Hessian-vector product against central differences, and its gradient against
autograd running the same source."""

import inspect

import numpy as np
import pytest

import container_constructs
import srcdiff as nf
from container_constructs import CASES, ERRORS, WITHOUT_AUTOGRAD
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
    gradient_differences,
    inner,
    random_like,
    structure,
)

ALL_CASES = {**CASES, **WITHOUT_AUTOGRAD}


def for_autograd():
    return module_for_autograd(container_constructs)


@pytest.mark.parametrize("name", ALL_CASES)
def test_gradient_matches_finite_differences_and_autograd(name):
    function, make_args = ALL_CASES[name]
    args = make_args()
    gradient = checked_gradient(function, args)
    if name in WITHOUT_AUTOGRAD:
        return
    pytest.importorskip("autograd")
    twin = getattr(for_autograd(), function.__name__)
    assert_leaves_close(
        gradient, autograd_grad(twin, args), 1e-9, 1e-12, "srcdiff against autograd"
    )


@pytest.mark.parametrize("name", ALL_CASES)
def test_tangent_matches_finite_differences(name):
    function, make_args = ALL_CASES[name]
    args = make_args()
    check_tangent(function, args)


@pytest.mark.parametrize("name", ALL_CASES)
def test_hessian_vector_product_matches_differences_of_the_gradient(name):
    function, make_args = ALL_CASES[name]
    args = make_args()
    checked_hvp(function, args)


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


def test_sorted_of_a_dict_the_code_does_not_show_fails_its_check_as_it_runs():
    """sorted(params), where nothing in the code shows params to be a dict, sorts its items
    (it was taken for a dict's keys: the gradient of sorted(x) of an array was silently
    zero); a dict there is a located error saying how to sort its keys."""
    params, x = container_constructs.dict_params()
    with pytest.raises(
        nf.ArgumentError, match=r"took sorted\(d\) for a sort of the items"
    ) as error:
        nf.grad(container_constructs.sorted_values)(params, x)
    assert "sorted(d.keys())" in error.value.hint
    lines, first = inspect.getsourcelines(container_constructs.sorted_values)
    assert error.value.location.filename == container_constructs.__file__
    assert error.value.location.lineno == first + len(lines) - 1


def indexed_by_its_sorted_items(x):
    total = 0.0
    for k in sorted(x):  # refused: an array indexed by its own items
        total = total + x[k]
    return total


def test_an_array_taken_for_a_dict_is_a_located_error():
    """sorted(x) read as x[k] is a dict's keys, checked as it runs: an array there is a
    located error (a raw TypeError from the emitted code)."""
    with pytest.raises(nf.ArgumentError, match="for a dict's keys.*but it is a ndarray") as error:
        nf.grad(indexed_by_its_sorted_items)(np.array([0.5, 1.0]))
    assert "np.argsort" in error.value.hint
    lines, first = inspect.getsourcelines(indexed_by_its_sorted_items)
    assert error.value.location.filename == __file__
    assert error.value.location.lineno == first + 2


def an_array_plus_a_list(w, x):
    return np.sum((w + [1.0, 2.0]) * x)


def test_an_array_plus_a_list_is_not_taken_for_a_join():
    """params + [...] of a params the code does not call a list is joined as lists, checked
    as it runs: for an array, numpy adds elementwise, which srcdiff refuses, saying so."""
    with pytest.raises(
        nf.SrcdiffError,
        match=r"srcdiff took w \+ \[...\] for joining lists, "
        r"but w is of type ndarray",
    ) as error:
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
    assert_leaves_close(
        nf.grad(function)(*args),
        finite_differences(function, args),
        1e-6,
        1e-8,
        "srcdiff against finite differences",
    )


@pytest.mark.parametrize("wrt", [1, 2])
def test_a_position_on_star_args_counts_the_arguments_as_passed(wrt):
    """f(x, *params) with wrt=1: the first value *params takes (JAX's and autograd's
    argnums count the arguments as the call passes them), in every mode."""
    layers, x = container_constructs.layer_list()
    f, args = container_constructs.layers_as_star_args, (x, *layers)
    with brief_srcdiff_errors():
        gradient = nf.grad(f, wrt=wrt)(*args, scale=0.5)
    assert structure(gradient) == structure(args[wrt])
    of_args = lambda *a: f(*a, scale=0.5)  # noqa: E731
    assert_leaves_close(
        gradient,
        finite_differences(of_args, args, wrt),
        1e-5,
        1e-7,
        "srcdiff against finite differences",
    )
    pytest.importorskip("autograd")
    twin = for_autograd().layers_as_star_args
    assert_leaves_close(
        gradient,
        autograd_grad(lambda *a: twin(*a, scale=0.5), args, wrt),
        1e-9,
        1e-12,
        "srcdiff against autograd",
    )
    direction = random_like(args[wrt], seed=1)
    value, tangent = nf.jvp(f, wrt=wrt)(*args, direction, scale=0.5)
    assert value == pytest.approx(of_args(*args), rel=1e-12)
    assert tangent == pytest.approx(inner(gradient, direction), rel=1e-9, abs=1e-12)
    product = nf.hvp(f, wrt=wrt)(*args, direction, scale=0.5)
    assert structure(product) == structure(args[wrt])
    assert_leaves_close(
        product,
        gradient_differences(lambda *a: nf.grad(f, wrt=wrt)(*a, scale=0.5), args, direction, wrt),
        1e-5,
        1e-7,
        "hvp against differences",
    )
    assert_leaves_close(
        product,
        autograd_hvp(lambda *a: twin(*a, scale=0.5), args, direction, wrt),
        1e-8,
        1e-10,
        "hvp against autograd",
    )


def test_second_derivatives_of_star_args_by_position():
    f, (x, a0, a1) = container_constructs.powers_as_star_args, (0.3, 0.7, -1.2)
    assert nf.grad(nf.grad(f, wrt=1), wrt=1)(x, a0, a1) == pytest.approx(
        -x * x * np.sin(a0 * x) * a1**3, rel=1e-12
    )
    assert nf.grad(nf.grad(f, wrt=2), wrt=1)(x, a0, a1) == pytest.approx(
        x * np.cos(a0 * x) * 3 * a1**2, rel=1e-12
    )


def test_code_for_star_args_is_made_for_how_many_a_call_passes():
    derivative = nf.grad(container_constructs.powers_as_star_args, wrt=2)
    with pytest.raises(nf.SrcdiffError, match=r"how many values \*a takes") as error:
        derivative.source
    assert error.value.location.filename == __file__
    assert "def dpowers_as_star_args(x, a_0, a_1):" in derivative.source_for(0.3, 0.7, -1.2)
    with pytest.raises(nf.ArgumentError, match="'scale' names a keyword-only parameter"):
        nf.grad(container_constructs.layers_as_star_args, wrt=(1, "scale"))


def test_wrt_names_a_keyword_that_kwargs_takes():
    """f(x, **params) with wrt="W": the value the call passes as W=..., in every mode (the
    code is made for the keywords a call passes, each then a parameter of its own)."""
    (W, b), _ = container_constructs.layer_list()[0]
    x = container_constructs.layer_list()[1]
    f = container_constructs.layer_as_keywords
    with brief_srcdiff_errors():
        dW, db = nf.grad(f, wrt=("W", "b"))(x, W=W, b=b)
    assert_leaves_close(
        [dW, db],
        finite_differences(lambda p: f(x, W=p[0], b=p[1]), ([W, b],)),
        1e-5,
        1e-7,
        "srcdiff against finite differences",
    )
    pytest.importorskip("autograd")
    twin = for_autograd().layer_as_keywords
    of_W = lambda W: twin(x, W=W, b=b)  # noqa: E731
    assert_leaves_close(dW, autograd_grad(of_W, (W,)), 1e-9, 1e-12, "srcdiff against autograd")
    v = random_like(W, seed=1)
    value, tangent = nf.jvp(f, wrt="W")(x, v, W=W, b=b)
    assert value == pytest.approx(f(x, W=W, b=b), rel=1e-12)
    assert tangent == pytest.approx(inner(dW, v), rel=1e-9, abs=1e-12)
    assert_leaves_close(
        nf.hvp(f, wrt="W")(x, v, W=W, b=b),
        autograd_hvp(of_W, (W,), v),
        1e-8,
        1e-10,
        "hvp against autograd",
    )
    _, pullback = nf.vjp(f, wrt="W")(x, W=W, b=b)
    np.testing.assert_allclose(pullback(1.0), dW, rtol=1e-12)
    assert "def dlayer_as_keywords(x, *, W, b):" in nf.grad(f, wrt="W").source_for(x, W=W, b=b)


def test_a_keyword_wrt_names_is_one_the_call_passes_and_hides_no_name():
    (W, b), _ = container_constructs.layer_list()[0]
    x = container_constructs.layer_list()[1]
    with pytest.raises(
        nf.ArgumentError,
        match=r"names a keyword of \*\*params, but the call "
        "passes no W=",
    ) as error:
        nf.grad(container_constructs.layer_as_keywords, wrt="W")(x, b=b)
    assert error.value.location.filename == __file__
    f = container_constructs.reads_a_name_a_keyword_would_hide
    with pytest.raises(nf.UnsupportedError, match="reads a name 'W', which a keyword") as error:
        nf.grad(f, wrt="W")(x, W=W)
    assert error.value.location.filename == container_constructs.__file__
    assert error.value.location.lineno == f.__code__.co_firstlineno


# --- an item past a list's end raises IndexError, as Python does ---------------------------------
def display_read_past_its_end_unused(x):
    xs = [np.sin(x), np.cos(x)]
    unused = xs[5]  # (nothing reads it: still Python raises here)
    return np.sum(xs[0]) + 0 * len(unused)


def tuple_read_before_its_start(x):
    xs = (np.sin(x), np.cos(x))
    xs[-3]
    return np.sum(xs[0])


def read_past_the_end_where_a_branch_runs(x):
    xs = [np.sin(x), np.cos(x)]
    if np.sum(x) > 0:
        xs[2]
    return np.sum(xs[1])


def item_written_past_the_end(x):
    xs = [np.sin(x), np.cos(x)]
    xs[2] = x
    return np.sum(xs[0])


def item_deleted_past_the_end(x):
    xs = [np.sin(x), np.cos(x)]
    del xs[4]
    return np.sum(xs[0])


def items_written_and_deleted_in_range(x):
    xs = [np.sin(x), np.cos(x), x**2]
    xs[1] = xs[2] * 3.0
    del xs[0]
    return np.sum(xs[0] * xs[-1])


@pytest.mark.parametrize(
    "f",
    [
        display_read_past_its_end_unused,
        tuple_read_before_its_start,
        read_past_the_end_where_a_branch_runs,
        item_written_past_the_end,
        item_deleted_past_the_end,
    ],
)
def test_an_item_past_the_end_raises_index_error_in_every_mode(f):
    x, v = np.array([0.3, 0.7]), np.array([1.0, -2.0])
    with pytest.raises(IndexError):
        f(x)
    for run in (
        lambda: nf.grad(f)(x),
        lambda: nf.jvp(f)(x, v),
        lambda: nf.vjp(f)(x),
        lambda: nf.hvp(f)(x, v),
    ):
        with pytest.raises(IndexError):
            run()


def test_a_read_past_the_end_in_a_branch_that_does_not_run_raises_nothing():
    x = np.array([-0.3, -0.7])
    g = nf.grad(read_past_the_end_where_a_branch_runs)(x)
    np.testing.assert_allclose(g, -np.sin(x), rtol=1e-12)


def test_items_written_and_deleted_within_the_list_still_differentiate():
    from gradcheck import check_grad

    x = np.array([0.3, -0.7, 1.1])
    g = check_grad(items_written_and_deleted_in_range, x)[0]
    np.testing.assert_allclose(g, 12 * x**3, rtol=1e-12)


def test_removing_an_item_that_is_not_there_raises_as_python_does():
    args = container_constructs.leaf_list()
    with pytest.raises(ValueError, match="not in list"):
        container_constructs.pieces_removed_that_are_not_there(*args)
    with pytest.raises(ValueError, match="not in list"):
        nf.grad(container_constructs.pieces_removed_that_are_not_there)(*args)


def test_del_of_an_item_of_a_constant_list_runs_as_written(rng):
    from gradcheck import check_grad

    def f(x):
        ks = [0, 1, 2]
        del ks[0]
        return np.sum(x[ks] ** 2)

    x = rng.normal(size=3)
    g = check_grad(f, x)[0]
    np.testing.assert_allclose(g, [0.0, 2 * x[1], 2 * x[2]], rtol=1e-12)


def test_del_of_an_item_of_a_list_another_name_holds_is_a_located_error():
    def f(x):
        xs = [np.sin(x), np.cos(x)]
        ys = xs
        del xs[0]
        return np.sum(ys[0])

    with pytest.raises(nf.UnsupportedError) as error:
        nf.grad(f)
    assert error.value.location.lineno == f.__code__.co_firstlineno + 3
    assert "del xs[0] changes a differentiated value in place" in error.value.message


def products_after_the_first(x):
    out = []
    for item in [x[0], x[1], x[2]]:
        if out:  # (the list's truth then: it grows after)
            item = out[-1] * item
        out.append(item)
    return out[-1] + out[0]


def test_a_branch_on_the_truth_of_a_list_the_loop_grows():
    """The backward sweep read the saved test, the list itself, whose truth had changed: it
    took the branch for every pass (IndexError: pop from empty list)."""
    x = np.array([0.3, -1.2, 0.8])
    expected = np.array([1.0 + x[1] * x[2], x[0] * x[2], x[0] * x[1]])
    np.testing.assert_allclose(nf.grad(products_after_the_first)(x), expected, rtol=1e-12)
    assert "_cond0 = bool(out)" in nf.grad(products_after_the_first).source


def enumerated_backwards(x):
    xs = [x[0], x[1], x[2]]
    out = 0.0
    for i, v in enumerate(reversed(xs)):
        out = out * v + i * v**2
    return out


def test_enumerate_of_reversed_differentiated_items():
    """reversed(xs) inside enumerate (or zip) is looped over as xs[::-1], as at the top of a
    for loop (it was 'reversed(...) of differentiated values cannot be differentiated')."""
    x = np.array([0.7, -0.4, 1.1])
    (expected,) = finite_differences(enumerated_backwards, (x,))
    np.testing.assert_allclose(nf.grad(enumerated_backwards)(x), expected, rtol=1e-6)
