"""The scope specialised code runs in, made before the generic module runs (module_run.py):
a first call runs its variant without compiling the generic code, which runs later, when
asked for, in the same scope; where the code reads a name of f's (a global, a closure
variable, its own functions in a recursion) the module runs first, as before."""

import numpy as np
import pytest

import srcdiff as nf
from gradcheck import numerical_grad

GAIN = 2.0


@pytest.fixture
def unchecked():
    """Variants as they run outside the tests, without the generic code beside them."""
    nf.config(specialize=True)
    yield
    nf.config(specialize="check")


def layers(w, x):
    h = np.tanh(x * w + 0.1)
    h = np.tanh(h * w + 0.1)
    return np.sum(h)


def gained(x):
    return np.sum(np.tanh(GAIN * x))


def power(x, n):
    return 1.0 if n == 0 else x * power(x, n - 1)


def power_sum(x):
    return np.sum(power(np.sin(x), 3))


def test_a_first_call_runs_its_variant_and_the_generic_code_only_when_asked(unchecked):
    w, x = np.linspace(0.1, 0.9, 5), np.linspace(-1.0, 1.0, 5)
    df = nf.grad(layers)
    got = df(w, x)
    emitted = df._emitted
    assert "functions" not in vars(emitted) and emitted.live == []
    np.testing.assert_allclose(got, numerical_grad(layers, (w, x), 0), rtol=1e-6, atol=1e-9)
    ((variant, _),) = df._variants.values()
    generic = df._call  # (asked for: the module runs now, in the scope the variant has)
    assert generic.__globals__ is variant.__globals__ is emitted.scope
    np.testing.assert_allclose(generic(w, x), got, rtol=1e-12)
    np.testing.assert_allclose(df(w, x), got, rtol=1e-12)


def test_a_global_the_code_reads_is_live_though_the_scope_comes_first(unchecked):
    global GAIN
    x = np.linspace(-1.0, 1.0, 4)
    df = nf.grad(gained)
    try:
        for gain in (2.0, 0.5):
            GAIN = gain
            np.testing.assert_allclose(df(x), numerical_grad(gained, (x,), 0), rtol=1e-6, atol=1e-9)
        assert df._emitted.live == [("GAIN", None)]
    finally:
        GAIN = 2.0


def test_a_closure_variable_the_code_reads_is_live_too(unchecked):
    scale = 3.0

    def scaled(x):
        return np.sum(np.sin(scale * x))

    x = np.linspace(-1.0, 1.0, 4)
    df = nf.grad(scaled)
    np.testing.assert_allclose(df(x), numerical_grad(scaled, (x,), 0), rtol=1e-6, atol=1e-9)
    scale = 0.25
    np.testing.assert_allclose(df(x), numerical_grad(scaled, (x,), 0), rtol=1e-6, atol=1e-9)
    assert [name for name, _ in df._emitted.live] == ["scale"]


def test_a_recursive_callee_calling_its_own_functions_runs_first(unchecked):
    x = np.linspace(-1.0, 1.0, 4)
    df = nf.grad(power_sum)
    np.testing.assert_allclose(df(x), numerical_grad(power_sum, (x,), 0), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(df(x), 3 * np.sin(x) ** 2 * np.cos(x), rtol=1e-12)


@pytest.mark.parametrize("many", [False, True])
def test_a_name_counts_as_read_where_it_is_a_word_but_a_def_name(many):
    from srcdiff import module_run

    code = "def df(w, x):\n    _t0 = x_1 * w\n    return gain(_t0) + 'text'\n"
    padding = {f"unused_{k}" for k in range(module_run._FEW + 1)} if many else set()
    for names, none in [
        ({"df", "f", "_t", "x_"}, True),  # (a def's name, and parts of words)
        ({"gain"}, False),
        ({"text"}, False),  # (in a string: the module then runs to tell)
        ({"_t0", "unread"}, False),
    ]:
        assert module_run._none_a_word(names | padding, code) is none, names
    unicode = "def dσ(σx):\n    return σx * gainσ + é"
    assert module_run._none_a_word({"x", "gain", "dσ"} | padding, unicode)
    assert not module_run._none_a_word({"é"} | padding, unicode)  # (at the very end)
