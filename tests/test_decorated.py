"""Functions under functools.wraps decorators: srcdiff differentiates the code that runs. A
transparent wrapper (it passes its own arguments on unchanged and returns the result) is
read through; one that changes them is differentiated itself, or refused, saying so. (inspect
reads the source under any wrapper: the wrapper's own change was silently dropped.)"""

import contextlib
import functools
import inspect
import time

import numpy as np
import pytest

import srcdiff as nf
from srcdiff import wrappers
from gradcheck import numerical_grad
from oracle import gradient_along


def shifted(fn):
    @functools.wraps(fn)
    def wrapper(x):
        return fn(x + 1.0)

    return wrapper


def timed(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        result = fn(*args, **kwargs)
        timed.last = time.perf_counter() - start
        return result

    return wrapper


def counted(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            with contextlib.nullcontext():
                return fn(*args, **kwargs)
        finally:
            counted.calls = getattr(counted, "calls", 0) + 1

    return wrapper


def doubled(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) * 2.0

    return wrapper


def passed_on(fn):
    @functools.wraps(fn)
    def wrapper(x, *args, **kwargs):
        return fn(x, *args, **kwargs)

    return wrapper


@shifted
def shifted_square(x):
    return np.sum(np.sin(x) * x)


@timed
@shifted
def timed_and_shifted(x):
    return np.sum(np.sin(x) * x)


@passed_on
@timed
@counted
def passed_and_timed(x, scale=2.0):
    return np.sum(np.tanh(x) * x) * scale


def calls_decorated(x):
    return shifted_square(x) * 3.0 + passed_and_timed(x)


@doubled
def doubled_sum(x):
    return np.sum(np.sin(x))


def calls_doubled(x):
    return doubled_sum(x) + np.sum(x)


def plain_shifted_square(x):
    return np.sum(np.sin(x + 1.0) * (x + 1.0))


@pytest.mark.parametrize(
    "f", [shifted_square, timed_and_shifted, passed_and_timed, calls_decorated]
)
def test_the_code_that_runs_is_differentiated(f):
    """grad, jvp and hvp of decorated functions (and of a caller of them) against finite
    differences of the function as it runs."""
    x, v = np.array([0.5, -1.0, 0.3]), np.array([0.7, -0.2, 1.1])
    expected = numerical_grad(f, (x,), 0)
    np.testing.assert_allclose(nf.grad(f)(x), expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(nf.jvp(f)(x, v)[1], expected @ v, rtol=1e-6, atol=1e-8)
    along = gradient_along(nf.grad(f), (x,), 0, v)
    np.testing.assert_allclose(nf.hvp(f)(x, v), along, rtol=1e-5, atol=1e-7)


def test_a_wrapper_that_changes_the_input_is_not_dropped():
    x = np.array([0.5, -1.0, 0.3])
    np.testing.assert_allclose(nf.grad(shifted_square)(x), nf.grad(plain_shifted_square)(x))
    assert nf.grad(shifted_square)(x) == pytest.approx(
        np.cos(x + 1.0) * (x + 1.0) + np.sin(x + 1.0)
    )


@pytest.mark.parametrize("f", [doubled_sum, calls_doubled])
def test_a_wrapper_that_changes_the_result_taking_star_args_is_a_located_error(f):
    with pytest.raises(nf.UnsupportedError, match="doubled_sum is wrapped by a decorator") as error:
        nf.grad(f)(np.array([0.5, -1.0]))
    assert "changes its arguments or result" in error.value.message
    assert "doubled(nf.grad(doubled_sum.__wrapped__))" in error.value.hint
    assert error.value.location.filename == __file__
    lines, first = inspect.getsourcelines(doubled_sum)
    assert error.value.location.lineno == first
    assert error.value.location.line == "@doubled"


def logs_result(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        result = fn(*args, **kwargs)
        print(result.shape)
        return result

    return wrapper


def scales_result(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        result = fn(*args, **kwargs)
        result *= 2.0
        return result

    return wrapper


def logs_arguments(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        print(args)
        return fn(*args)

    return wrapper


def swaps(fn):
    @functools.wraps(fn)
    def wrapper(a, b):
        return fn(b, a)

    return wrapper


def when(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        if len(args) == 2:
            return fn(*args)

    return wrapper


def pair(a, b):
    return a - b


@pytest.mark.parametrize(
    "decorator, transparent",
    [(logs_result, True), (scales_result, False), (logs_arguments, False), (swaps, False)]
    + [(when, False), (timed, True), (passed_on, True), (counted, True), (shifted, False)],
)
def test_which_wrappers_are_read_through(decorator, transparent):
    decorated = decorator(pair)
    assert (wrappers.source_function(decorated) is pair) == transparent
