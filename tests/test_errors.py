"""Every transform failure is a SrcdiffError naming file:line, the line, and a hint."""

import functools
import os

import numpy as np
import pytest

import srcdiff as nf

HERE = os.path.abspath(__file__)


def line_of(snippet):
    with open(HERE) as f:
        for number, line in enumerate(f, 1):
            if snippet in line and "line_of(" not in line:
                return number
    raise AssertionError(snippet)


def assert_located(error, snippet, *words):
    text = str(error.value)
    assert f"{HERE}:{line_of(snippet)}" in text, text
    assert snippet in text, text
    assert "hint:" in text, text
    for word in words:
        assert word in text, text


def uses_try(x):
    try:
        y = np.exp(x)
        z = y * 2  # (two statements tried: which one raised decides what z is)
    except ValueError:
        y = z = x
    return np.sum(y * z)


def uses_with(x):
    with open(__file__):
        y = x * 2
    return np.sum(y)


def uses_yield(x):
    yield np.sum(x)


def uses_global(x):
    global COUNTER
    return np.sum(x)


def uses_unwrap(x):
    y = np.unwrap(x)
    return np.sum(y)


def mutates(x):
    x[0] = 3.0
    return np.sum(x)


def non_scalar(x):
    return np.exp(x)


def two_args(x, n):
    return np.sum(x * n)


@pytest.mark.parametrize(
    "fn, snippet, word",
    [
        (uses_try, "try:", "try only the call that may raise"),
        (uses_with, "with open(__file__):", "with"),
        (uses_yield, "yield np.sum(x)", "generators"),
        (uses_global, "global COUNTER", "global"),
        (mutates, "x[0] = 3.0", "copy()"),
    ],
)
def test_unsupported_constructs(fn, snippet, word):
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(fn)
    assert_located(error, snippet, word)


def test_numpy_function_without_adjoint_names_it_and_how_to_register():
    with pytest.raises(nf.NoAdjointError) as error:
        nf.grad(uses_unwrap)
    assert_located(
        error,
        "y = np.unwrap(x)",
        "numpy.unwrap",
        "srcdiff.adjoint(np.unwrap)",
    )


def test_lambda_without_source():
    made = eval("lambda x: x * 2")  # (no file holds its text)
    with pytest.raises(nf.SrcdiffError, match="source of '<lambda>' is not available") as error:
        nf.grad(made)
    assert error.value.location.filename == "<string>"
    assert "in a .py file" in error.value.hint


def test_builtin_has_no_source():
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(np.exp)  # builtin line
    assert_located(error, "nf.grad(np.exp)  # builtin line", "not a Python function")


def test_function_without_source():
    scope = {"np": np}
    exec("def f(x):\n    return np.sum(x)\n", scope)
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(scope["f"])
    text = str(error.value)
    assert "<string>:1" in text and "source" in text and "hint:" in text


def test_wrt_out_of_range():
    with pytest.raises(nf.ArgumentError) as error:
        nf.grad(two_args, wrt=2)
    assert_located(error, "def two_args(x, n):", "wrt=2 is out of range")


def test_wrt_pointing_at_an_int_argument():
    with pytest.raises(nf.ArgumentError) as error:
        nf.grad(two_args, wrt=1)(np.ones(3), 2)
    assert_located(error, "def two_args(x, n):", "'n'", "int")
    with pytest.raises(nf.ArgumentError):
        nf.grad(two_args)(np.arange(3), 2.0)


def test_non_scalar_output_given_to_grad():
    with pytest.raises(nf.ArgumentError) as error:
        nf.grad(non_scalar)(np.ones(3))
    assert_located(error, "return np.exp(x)", "scalar", "vjp")


def test_bad_wrt_type():
    with pytest.raises(nf.ArgumentError) as error:
        nf.grad(two_args, wrt=1.5)  # bad wrt
    assert_located(error, "nf.grad(two_args, wrt=1.5)  # bad wrt", "wrt must be")
    with pytest.raises(nf.ArgumentError) as error:
        nf.grad(two_args, wrt="z")  # no such parameter
    assert_located(error, 'nf.grad(two_args, wrt="z")  # no such parameter', "names no parameter")


# --- every construct the transformer rejects: a SrcdiffError with file:line and a hint -----------
class Holder:
    value = 1.0


def defines_class(x):
    class Local:
        pass

    return np.sum(x)


def imports_inside(x):
    import json  # noqa: F401

    return np.sum(x)


def imports_under_a_branch(x):
    if x.shape[0] > 2:
        import math  # noqa: F401
    return np.sum(x)


def reduces_under_a_condition(x):
    return functools.reduce(np.add, x) if x[0] > 0 else np.sum(x * 2)


def blocks_of_a_named_list(x):
    pieces = [[x, x]]
    return np.sum(np.block(pieces))


def star_args(*xs):
    return np.sum(xs[0])


def starred_call(x):
    # (with the count in the code, `extra = (1.0,)`, the call is spelled out and works)
    return np.sum(np.add(x, *x[:1]))


def bare_expression(x):
    np.sin(x)
    return np.sum(x)


def attribute_target(x):
    h = Holder()
    h.value = x * 2
    return np.sum(x)


def unknown_local_call(x):
    f = np.sin if np.sum(x) > 0 else np.cos  # (f = np.sin alone is an alias: it works)
    return np.sum(f(x))


def no_return(x):
    y = x * 2  # noqa: F841


def list_to_callee(x):
    # (star_args([x, x]) works: inlined, its *xs is the display of the arguments)
    return np.sum(star_args(*np.split(x, 3)))


def unpack_active(x):
    a, b = x * 2  # x has 3 items
    return np.sum(a)


def nested_subscript_write(x):
    y = np.zeros((2, 2))
    y[0][1] = np.sum(x)
    return np.sum(y)


def set_comprehension_over_x(x):
    doubled = {x[i] * 2 for i in range(3)}
    return sum(doubled)


def or_of_x(x):
    y = x[0] or 1.0
    return y * y


def list_of_x(x):
    return sum(x.tolist())


def writes_through_an_alias(x):
    z = np.zeros(3)
    w = z
    w[1] = x[2]
    return np.sum(z * 3.0)


def writes_under_a_view(x):
    z = np.zeros((2, 3))
    row = z[0, :]
    z[0, 1] = x[2]
    return np.sum(row * 3.0)


def writes_under_a_list(x):
    z = np.zeros(3)
    held = [z, 1.0]
    first, _ = held
    z[0] = x[1]
    return np.sum(first * 2.0)


def walrus_of_x(x):
    total = 1.0
    if total + (total := np.sum(x)) > 0:  # (the old total read first)
        return total * 2
    return total


def copies_into(x):
    y = np.zeros(3)
    np.copyto(y, x * 2)
    return np.sum(y)


def pops_and_indexes(x):
    items = []
    items.append(x * 2)
    items.append(x * 3)
    last = items.pop()
    return np.sum(items[0] * last)


def max_with_a_default(x):
    return max(x, default=0.0) * 2.0


def adds_into_an_item_of_a_list_display(x):
    hs = [x * 2, x]
    hs[0] += 1.0  # (hs[i] = ... works: it replaces the item)
    return np.sum(hs[0] * hs[1])


class Scaled:
    def __init__(self, k):
        self.k = k

    def __call__(self, v):
        return self.k * v


class Stacked:
    def __init__(self, layers):
        self.layers = layers

    def apply(self, v):
        for layer in self.layers:
            v = layer(v)
        return v


def model_made_in_f(x):
    stack = Stacked([Scaled(2.0), Scaled(x[0])])
    return np.sum(stack.apply(x))


REJECTED = [
    (model_made_in_f, "return np.sum(stack.apply(x))", "outside the differentiated function"),
    (max_with_a_default, "return max(x, default=0.0) * 2.0", "if len(xs) else"),
    (pops_and_indexes, "return np.sum(items[0] * last)", "popped from and read by index"),
    (copies_into, "np.copyto(y, x * 2)", "changes a value in place"),
    (adds_into_an_item_of_a_list_display, "hs[0] += 1.0", "changes in place"),
    (
        walrus_of_x,
        "if total + (total := np.sum(x)) > 0:  # (the old total read first)",
        ":=",
    ),  # a gradient of 0, once
    (writes_under_a_list, "z[0] = x[1]", "changes 'first' too"),
    # these once ran, with a gradient of zero
    (writes_through_an_alias, "w[1] = x[2]", "changes 'z' too"),
    (writes_under_a_view, "z[0, 1] = x[2]", "changes 'row' too"),
    (or_of_x, "y = x[0] or 1.0", "and`/`or"),
    (list_of_x, "return sum(x.tolist())", "sum"),
    (set_comprehension_over_x, "doubled = {x[i] * 2 for i in range(3)}", "comprehension"),
    (defines_class, "class Local:", "class"),
    (imports_inside, "import json", "of a module srcdiff does not know (json)"),
    (imports_under_a_branch, "import math", "first thing in the function's body"),
    (blocks_of_a_named_list, "return np.sum(np.block(pieces))", "np.block([[a, b], [c, d]])"),
    (reduces_under_a_condition, "return functools.reduce(np.add, x) if", "write it as a for loop"),
    (starred_call, "return np.sum(np.add(x, *x[:1]))", "*args"),
    (bare_expression, "    np.sin(x)", "or has no effect"),
    (attribute_target, "h.value = x * 2", "assignment to"),
    (unknown_local_call, "return np.sum(f(x))", "cannot differentiate through f"),
    (no_return, "def no_return(x):", "return statement"),
    (list_to_callee, "return np.sum(star_args(*np.split(x, 3)))", "*args"),
    (nested_subscript_write, "y[0][1] = np.sum(x)", "named array"),
]


@pytest.mark.parametrize("fn, snippet, word", REJECTED, ids=[r[0].__name__ for r in REJECTED])
def test_every_rejected_construct_names_its_location(fn, snippet, word):
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(fn)(np.ones(3))
    assert_located(error, snippet, word)


def adds_in_place_under_an_alias(x, start):
    z = start * 1.0
    before = z
    z += x
    return np.sum(z * before)


def test_adding_in_place_to_a_shared_array_is_refused_when_called():
    # a float is rebound by +=, an array changed in place (which `before` would see): only
    # the call can tell, so the emitted code checks there
    df = nf.grad(adds_in_place_under_an_alias)
    assert df(2.0, 3.0) == pytest.approx(3.0)
    with pytest.raises(nf.ArgumentError) as error:
        df(np.ones(3), np.ones(3))
    assert_located(error, "z += x", "'before'", "in place")


def writes_under_a_row(x, rows):
    z = np.zeros(rows)
    first = z[0]  # a row of a matrix sees the write below; a number does not
    z[0, ...] = x[2]
    return np.sum(first * 3.0) + np.sum(z)


def test_writing_under_a_row_is_refused_when_called():
    df = nf.grad(writes_under_a_row)
    np.testing.assert_allclose(df(np.ones(3), (3,)), [0.0, 0.0, 1.0])
    with pytest.raises(nf.ArgumentError) as error:
        df(np.ones(3), (2, 2))
    assert_located(error, "z[0, ...] = x[2]", "'first'", "a view of it")


def test_unpacking_checks_the_length_like_python():
    with pytest.raises(ValueError, match="cannot unpack 3 values into 2"):
        nf.grad(unpack_active)(np.ones(3))
    g = nf.grad(unpack_active)(np.ones(2))
    np.testing.assert_allclose(g, [2.0, 0.0])


def test_nan_and_inf_propagate_like_numpy():
    def f(x):
        return np.sum(np.sin(x) * x)

    with np.errstate(all="ignore"):
        g = nf.grad(f)(np.array([1.0, np.nan, np.inf]))
    assert np.isfinite(g[0]) and np.isnan(g[1]) and np.isnan(g[2])


def test_every_transform_error_is_raised_with_a_location():
    """Structural: each SrcdiffError the transformer raises is given a location, except the
    two raised before there is a function to point at, which the API gives the caller's line
    (test_builtin_has_no_source, test_bad_wrt_type); runtime errors get the return line."""
    import ast
    import pathlib

    import srcdiff

    kinds = {"SrcdiffError", "UnsupportedError", "NoAdjointError", "ArgumentError", "TemplateError"}
    package = pathlib.Path(srcdiff.__file__).parent
    unlocated = []
    for path in sorted(package.rglob("*.py")):
        if path.parent.name == "runtime":  # errors of emitted code's calls: located by the API
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                name = getattr(node.exc.func, "id", getattr(node.exc.func, "attr", ""))
                located = len(node.exc.args) >= 2 or any(
                    k.arg == "location" for k in node.exc.keywords
                )
                if name in kinds and not located:
                    unlocated.append(path.name)
    assert sorted(unlocated) == ["arguments.py", "sources.py"], unlocated


def inverted(h):
    return np.linalg.inv(h)  # the failing line


def through_a_callee(w, x):
    h = x @ w
    return np.sum(inverted(h))


@pytest.mark.skipif(not hasattr(Exception, "add_note"), reason="notes are Python 3.11+")
@pytest.mark.parametrize("size", [3, 400])  # specialised code, and the generic code
def test_an_error_in_emitted_code_names_the_user_line_it_comes_from(size):
    w, x = np.zeros((size, size)), np.ones((size, size))
    with pytest.raises(np.linalg.LinAlgError) as error:
        nf.grad(through_a_callee)(w, x)
    notes = getattr(error.value, "__notes__", [])
    assert any(
        f"{HERE}:{line_of('return np.linalg.inv(h)  # the failing line')}" in note
        and "np.linalg.inv(h)" in note
        for note in notes
    ), notes


@pytest.mark.skipif(not hasattr(Exception, "add_note"), reason="notes are Python 3.11+")
def test_specialised_code_made_from_code_read_from_disk_names_the_user_line_too():
    # (the first variant rewrites the transform's trees, whose statements carry f's lines;
    # one of code read from disk parses it, and maps its rows to f's lines)
    from srcdiff import cache

    nf.grad(through_a_callee)(np.eye(3), np.eye(3))
    cache.clear_memory()
    made = cache.stats["transforms"]
    with pytest.raises(np.linalg.LinAlgError) as error:
        nf.grad(through_a_callee)(np.zeros((3, 3)), np.ones((3, 3)))
    assert cache.stats["transforms"] == made  # (read from disk)
    notes = getattr(error.value, "__notes__", [])
    line = line_of("return np.linalg.inv(h)  # the failing line")
    assert any(f"{HERE}:{line}" in note for note in notes), notes


def test_each_emitted_statement_knows_its_line():
    from srcdiff import transform

    emitted = transform.derive(through_a_callee, (0,))
    rows = dict(emitted.meta.lines)
    source = emitted.source.splitlines()
    first = line_of("h = x @ w")
    assert {rows[k] for k, text in enumerate(source, 1) if "x @ w" in text} == {first}
    assert {rows[k] for k, text in enumerate(source, 1) if "matmul_grad" in text} == {first}


def pads_with_the_maximum(x):
    return np.sum(np.pad(x, 1, mode="maximum") ** 2)


def weighs_by_frequency(x):
    return np.sum(np.cov(x, fweights=np.array([1, 2, 1, 1])) ** 2)


def weibull_median(x):
    return np.percentile(x, 50, method="weibull") ** 2


SECOND_ORDER = {
    "grad": lambda f, x: nf.grad(f)(x),
    "hvp": lambda f, x: nf.hvp(f)(x, x),
    "grad of grad": lambda f, x: nf.vjp(nf.grad(f))(x)[1](x),
    "jvp of grad": lambda f, x: nf.jvp(nf.grad(f))(x, x),
}


@pytest.mark.parametrize("derivative", SECOND_ORDER)
@pytest.mark.parametrize(
    "f, snippet, words",
    [
        (pads_with_the_maximum, "np.pad(x, 1, mode=", ["mode='maximum'"]),
        (weighs_by_frequency, "np.cov(x, fweights=", ["fweights"]),
        (weibull_median, "np.percentile(x, 50", ["'weibull'"]),
    ],
    ids=["pad", "cov", "percentile"],
)
def test_a_refusal_of_a_second_derivative_names_the_user_line(derivative, f, snippet, words):
    """The emitted gradient calls helpers that refuse these arguments when called: under hvp
    (and grad or jvp of grad) the error named the gradient's file in the cache and a line
    of it, and grad the line f returns at."""
    with pytest.raises(nf.SrcdiffError) as error:
        SECOND_ORDER[derivative](f, np.array([0.3, 1.2, -0.5, 0.8]))
    assert_located(error, snippet, *words)


def cubed(x):
    return x**3


def sum_of_cubes(x):
    y = np.sin(x)
    return np.sum(cubed(y))  # its adjoint calls unwrap


@pytest.mark.parametrize("derivative", ["hvp", "grad of grad"])
def test_refusing_to_differentiate_a_gradient_names_the_user_line(derivative):
    """An error met transforming the emitted gradient (here: it calls a user adjoint whose
    template has no derivative) names the line of f its code comes from, and the emitted
    statement, not a line of the gradient's file in the cache."""

    @nf.adjoint(cubed)
    def cubed_adjoint(bz, z, x):
        bx = bz * 3 * x * np.unwrap(x)  # noqa: F841

    x = np.array([0.3, 0.5])
    np.testing.assert_allclose(nf.grad(sum_of_cubes)(x), 3 * np.sin(x) ** 2 * np.cos(x))
    with pytest.raises(nf.NoAdjointError) as error:
        SECOND_ORDER[derivative](sum_of_cubes, x)
    assert_located(error, "return np.sum(cubed(y))", "numpy.unwrap", "emitted for this line: by =")
