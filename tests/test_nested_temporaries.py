"""Forward-mode code with the transform's temporaries put back where they are read
(passes/nested.py): the text a person writes, the same numbers, and no substitution that
could change them."""

import textwrap

import gast
import numpy as np
import pytest

import srcdiff as nf
from srcdiff import unparse
from srcdiff.passes.nested import nest_temporaries


def layer(w, x):
    h = np.tanh(x @ w)
    return h


def decayed(w, x, ks):
    h = np.tanh(x @ w)
    total = 0.0
    for k in ks:
        total = total * 0.5 + np.sum(h * k)
    return total


def _body(source):
    """The emitted function's text, without the module's docstring and imports."""
    return source[source.index("def ") :]


def test_a_layer_reads_as_written():
    assert _body(nf.jvp(layer, wrt=0).source) == textwrap.dedent(
        """\
        def jvp_layer(dw, w, x):
            h = np.tanh(x @ w)
            dh = (x @ dw) * (1 - h * h)
            return h, dh
        """
    )


def test_a_loop_s_sum_reads_as_written():
    assert _body(nf.jvp(decayed, wrt=0).source) == textwrap.dedent(
        """\
        def jvp_decayed(dw, w, x, ks):
            h = np.tanh(x @ w)
            dh = (x @ dw) * (1 - h * h)
            total = 0.0
            dtotal = runtime.zeros_like(total)
            for k in ks:
                total = total * 0.5 + np.sum(h * k)
                dtotal = dtotal * 0.5 + np.sum(dh * k)
            return total, dtotal
        """
    )


@pytest.mark.parametrize("wrt", [0, 1, 2])
def test_the_tangents_match_finite_differences(wrt, rng):
    args = [rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=(5, 4))]
    direction = rng.normal(size=args[wrt].shape)
    value, tangent = nf.jvp(decayed, wrt=wrt)(*args, direction)
    assert value == pytest.approx(decayed(*args), rel=1e-12)
    eps = 1e-6

    def at(step):
        moved = list(args)
        moved[wrt] = args[wrt] + step * direction
        return decayed(*moved)

    assert tangent == pytest.approx((at(eps) - at(-eps)) / (2 * eps), rel=1e-6)
    w, x = args[:2]
    _, layer_tangent = nf.jvp(layer, wrt=0)(w, x, direction if wrt == 0 else np.ones(3))
    v = direction if wrt == 0 else np.ones(3)
    expected = (layer(w + eps * v, x) - layer(w - eps * v, x)) / (2 * eps)
    np.testing.assert_allclose(layer_tangent, expected, rtol=1e-6, atol=1e-9)


def _nested(source):
    (func,) = gast.parse(textwrap.dedent(source)).body
    nest_temporaries(func)
    rows, _ = unparse.rows(func)
    return "\n".join(row.rstrip("\n")[4:] for row in rows[1:])


def test_a_temporary_is_put_into_its_one_read():
    assert (
        _nested(
            """
        def f(a, b):
            _t0 = a + b
            _t1 = -_t0
            d_t2 = a - b
            _t3 = a - d_t2
            _t4 = a ** b
            _t5 = _t4 ** b
            _t6 = a @ b
            return _t1 * _t3, _t5 * _t6
        """
        )
        == "return -(a + b) * (a - (a - b)), (a ** b) ** b * (a @ b)"
    )


_UNMOVED = """\
_t0 = a + b
a[0] = 1.0
c = _t0 * 2
_t1 = a * b
b.x = 2
d = _t1 * 2
_t2 = a * 3
a += 1
e = _t2 * 2
_t3 = np.sum(b)
xs.append(b)
f = _t3 * 2
_t4 = g(a)
h = np.sum(b) * _t4
_t5 = a - b
while _t5 > 0:
    a = a - 1
_t6 = a * b
for x in xs:
    y = _t6 * x
_t7 = a * 2
z = [(_t7 * x) for x in xs]
_t8 = a * 4
_t9 = a * 5
k = g(b) + _t9
_t10 = a * 6
if b:
    k = _t10
_t11 = a * 7
xs[0] = 1.0
m = _t11
return c, d, e, f, h, y, z, _t8, _t8 + 1, k, m"""


def test_a_temporary_stays_where_moving_it_would_change_a_value():
    """Past a write into a name it reads (an item, an attribute, an augmented assignment,
    a method's call) or into any other (xs may be a, by another name), a call of an impure
    function (or a value past one), into a while loop's test, a nested body, a
    comprehension; nor a temporary read twice."""
    function = "def f(a, b, xs):\n" + textwrap.indent(_UNMOVED, "    ")
    assert _nested(function) == _UNMOVED


def test_a_pure_temporary_moves_into_a_call_of_an_impure_function():
    assert (
        _nested(
            """
        def f(a, b):
            _t0 = a * b
            c = np.sum(a)
            return g(c, _t0)
        """
        )
        == "c = np.sum(a)\nreturn g(c, a * b)"
    )


def test_a_temporary_goes_into_a_for_loop_s_iter_and_an_if_s_test():
    assert (
        _nested(
            """
        def f(a, xs):
            _t0 = xs * 2
            for x in _t0:
                a = a + x
            _t1 = a > 0
            if _t1:
                a = -a
            return a
        """
        )
        == "for x in xs * 2:\n    a = a + x\nif a > 0:\n    a = -a\nreturn a"
    )
