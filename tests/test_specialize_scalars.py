"""Shape specialisation of a number that is a Python number on one path and numpy's scalar on
another (shapes.EitherScalar): `total = 0.0`, then `total = total + np.sum(...)` in a loop.
Its dtype is known, its type is not, and numpy promotes the two differently, so results are
known only as far as both ways agree. The suite runs in check mode (conftest.py): each call
below also compares the variant's result with the generic code's, in type, dtype and every
element; the `unchecked` ones pin down the emitted text."""

import importlib.util
import operator
from pathlib import Path

import numpy as np
import pytest

import srcdiff as nf
from gradcheck import check_grad, numerical_grad
from srcdiff import shapes, signatures

ROOT = Path(__file__).resolve().parent.parent
EITHER_FLOAT = shapes.EitherScalar(np.dtype(float))


@pytest.fixture
def unchecked():
    nf.config(specialize=True)
    yield
    nf.config(specialize="check")


def test_a_python_number_joined_with_numpys_scalar_of_its_dtype_is_either():
    d = signatures.describe
    assert shapes.join(d(0.5), d(np.float64(2.0))) == EITHER_FLOAT
    assert shapes.join(shapes.Const(0), d(np.int64(3))) == shapes.EitherScalar(np.dtype(int))
    assert shapes.join(EITHER_FLOAT, d(1.5)) == EITHER_FLOAT
    # other dtypes, a 0-d array and an unknown value are not numbers of the same dtype
    assert shapes.join(d(0.5), d(np.float32(2.0))) is shapes.UNKNOWN
    assert shapes.join(d(0.5), d(np.array(2.0))) is shapes.UNKNOWN
    assert shapes.join(EITHER_FLOAT, shapes.UNKNOWN) is shapes.UNKNOWN  # (dtype == None holds)
    assert shapes.join(EITHER_FLOAT, d(np.int64(1))) is shapes.UNKNOWN


def test_what_either_gives_is_what_both_give():
    d = signatures.describe
    assert shapes.binary(operator.add, EITHER_FLOAT, d(0.5)) == EITHER_FLOAT
    assert shapes.binary(operator.mul, EITHER_FLOAT, d(np.ones(3))) == d(np.ones(3))
    # numpy 2: a float32 array times a Python float is float32, times a float64 scalar float64
    assert shapes.binary(operator.mul, EITHER_FLOAT, d(np.ones(3, np.float32))) is shapes.UNKNOWN
    assert shapes.binary(operator.mul, EITHER_FLOAT, d(np.float32(1.0))) is shapes.UNKNOWN
    count = shapes.EitherScalar(np.dtype(int))
    assert shapes.binary(operator.mul, count, d(np.ones(2, np.float32))) is shapes.UNKNOWN
    assert shapes.binary(operator.pow, EITHER_FLOAT, shapes.Const(0.5)) is shapes.UNKNOWN
    assert shapes.binary(operator.pow, EITHER_FLOAT, shapes.Const(2)) == EITHER_FLOAT
    # max(2, 0.5) is an int and max(1, 2.5) a float: the type is the values'
    assert shapes.evaluate_call(("max",), [count, d(0.5)], {}) is shapes.UNKNOWN
    assert shapes.evaluate_call(("max",), [EITHER_FLOAT, EITHER_FLOAT], {}) == EITHER_FLOAT


def _early_exit():
    path = ROOT / "generated_examples" / "early_exit.py"
    spec = importlib.util.spec_from_file_location("early_exit_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.early_exit


def test_early_exit_is_specialised_without_helpers_or_saved_shapes(rng, unchecked):
    early_exit, x = _early_exit(), rng.normal(size=3)
    source = nf.grad(early_exit).source_for(x)
    assert "runtime." not in source
    assert "b_result0 = 1.0\n" in source
    assert "b_t0 = btotal * np.cos(_t0)\n" in source  # (the sum's adjoint, one number)
    assert "_stack_t1" not in source  # (np.sin(x * i) was saved only for its shape)
    assert "if _cond2:\n        pass" not in source
    check_grad(early_exit, x)


def summed_sines(x):
    total = 0.0
    for i in range(4):
        total = total + np.sum(np.sin(x * i))
    return total * 2


def scaled_by_a_sum(x, y):
    total = 0.0
    for i in range(3):
        total = total + np.sum(y * i)
    return np.sum(x * total) + np.sum(x**2)


def sines_of_a_float(s):
    total = 0.0
    for i in range(3):
        total = total + np.sin(s * i)
    return total


def counted(x):
    count = 0
    for row in x:
        count = count + np.sum(row > 0)
    return np.sum(x * count) + np.sum(np.tanh(x))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_loops_summing_into_a_float(rng, dtype):
    x = rng.normal(size=(2, 3)).astype(dtype)
    tolerance = dict(rtol=1e-5, atol=1e-7) if dtype == np.float64 else dict(rtol=1e-2, atol=1e-3)
    for f, args in (
        (summed_sines, (x,)),
        (scaled_by_a_sum, (x, rng.normal(size=3))),
        (counted, (x,)),
    ):
        df = nf.grad(f, wrt=tuple(range(len(args))))
        for i, g in enumerate(df(*args)):
            assert g.dtype == args[i].dtype
            np.testing.assert_allclose(g, numerical_grad(f, args, i), **tolerance)


def test_a_float_loop_total_runs_forward_mode(unchecked):
    df = nf.grad(sines_of_a_float)
    source = df.source_for(0.7)
    assert "_stack" not in source and "reversed" not in source
    g = df(0.7)
    assert type(g) is float
    assert g == pytest.approx(numerical_grad(sines_of_a_float, (0.7,), 0))


def test_float64_variants_call_no_helpers(rng, unchecked):
    x, y = rng.normal(size=(2, 3)), rng.normal(size=3)
    assert "runtime." not in nf.grad(summed_sines).source_for(x)
    assert "runtime." not in nf.grad(scaled_by_a_sum, wrt=(0, 1)).source_for(x, y)
    check_grad(summed_sines, x)
    check_grad(scaled_by_a_sum, x, y, wrt=(0, 1))
    check_grad(counted, x)


def test_a_float32_sum_added_to_a_float_keeps_its_seed_helper(rng, unchecked):
    # float + np.float32 is np.float32, whose seed is no Python 1.0: nothing is claimed
    x = rng.normal(size=(2, 3)).astype(np.float32)
    assert "runtime.grad_seed(" in nf.grad(summed_sines).source_for(x)


PAIRS = [
    (-2.0, np.float64(-2.0)),
    (3, np.int64(3)),
    (True, np.bool_(True)),
]
PARTNERS = [
    0.5,
    -3,
    False,
    np.float32(1.5),
    np.float64(2.0),
    np.int8(2),
    np.ones(2, np.float32),
    np.ones(2),
    np.ones(2, np.int32),
    np.array(2.0),
]
OPERATORS = [operator.add, operator.mul, operator.truediv, operator.pow, operator.lt]


@pytest.mark.parametrize("op", OPERATORS, ids=lambda op: op.__name__)
@pytest.mark.parametrize("pair", PAIRS, ids=lambda pair: type(pair[0]).__name__)
def test_either_scalars_results_hold_both_ways(pair, op):
    """Whatever binary() finds for a Python number or numpy's scalar (of one dtype) and
    another value, on either side, each of the two real results is an instance of."""
    either = shapes.join(signatures.describe(pair[0]), signatures.describe(pair[1]))
    assert isinstance(either, shapes.EitherScalar)
    for partner in PARTNERS:
        for flipped in (False, True):
            operands = (signatures.describe(partner), either) if flipped else (either, partner)
            found = shapes.binary(op, *map(_described, operands))
            if found is shapes.UNKNOWN:
                continue
            for number in pair:
                with np.errstate(all="ignore"):
                    result = op(partner, number) if flipped else op(number, partner)
                assert shapes.join(signatures.describe(result), found) == found, (number, partner)


def _described(value):
    return (
        value
        if isinstance(value, (shapes.EitherScalar, shapes.Typed))
        else signatures.describe(value)
    )


def tanh_of_a_shifted_matrix(a, x):
    h = np.tanh(x + a)
    return np.sum(h * h)


def test_a_float_s_forward_mode_rewrites_helpers_inside_nested_expressions(rng, unchecked):
    """The JVP nests its tangents into the expressions that read them (passes/nested.py):
    `dh = runtime.broadcast_like(da, _t0) * (1 - h * h)`, `return ..., np.sum(dh * h + h
    * dh)`. Specialised for a float a and a 4x3 x, the helper inside is rewritten."""
    x = rng.normal(size=(4, 3))
    df = nf.grad(tanh_of_a_shifted_matrix)
    source = df.source_for(0.3, x)
    assert source[source.index("def ") :] == (
        "def dtanh_of_a_shifted_matrix(a, x):\n"
        "    da = 1.0\n"
        "    _t0 = x + a\n"
        "    h = np.tanh(_t0)\n"
        "    dh = np.broadcast_to(da, (4, 3)) * (1 - h * h)\n"
        "    return float(np.sum(dh * h + h * dh))\n"
    )
    assert df(0.3, x) == pytest.approx(numerical_grad(tanh_of_a_shifted_matrix, (0.3, x), 0))
