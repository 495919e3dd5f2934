"""Every transform failure is a SrcdiffError naming file:line, the line, and a hint."""
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
    except ValueError:
        y = x
    return np.sum(y)


def uses_with(x):
    with open(__file__):
        y = x * 2
    return np.sum(y)


def uses_yield(x):
    yield np.sum(x)


def uses_global(x):
    global COUNTER
    return np.sum(x)


def uses_fft(x):
    y = np.fft.fft(x)
    return np.sum(y)


def mutates(x):
    x[0] = 3.0
    return np.sum(x)


def floordiv(x):
    return np.sum(x // 2.0)


def non_scalar(x):
    return np.exp(x)


def two_args(x, n):
    return np.sum(x * n)


@pytest.mark.parametrize("fn, snippet, word", [
    (uses_try, "try:", "try/except"),
    (uses_with, "with open(__file__):", "with"),
    (uses_yield, "yield np.sum(x)", "generators"),
    (uses_global, "global COUNTER", "global"),
    (mutates, "x[0] = 3.0", "copy()"),
    (floordiv, "return np.sum(x // 2.0)", "//"),
])
def test_unsupported_constructs(fn, snippet, word):
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(fn)
    assert_located(error, snippet, word)


def test_numpy_function_without_adjoint_names_it_and_how_to_register():
    with pytest.raises(nf.NoAdjointError) as error:
        nf.grad(uses_fft)
    assert_located(error, "y = np.fft.fft(x)", "numpy.fft.fft", "srcdiff.adjoint(np.fft.fft)")


def test_lambda():
    with pytest.raises(nf.UnsupportedError) as error:
        nf.grad(lambda x: x * 2)  # the lambda line
    assert_located(error, "nf.grad(lambda x: x * 2)  # the lambda line", "lambda")


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
        nf.grad(two_args, wrt="x")  # bad wrt
    assert_located(error, 'nf.grad(two_args, wrt="x")  # bad wrt', "wrt must be")
