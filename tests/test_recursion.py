"""Recursive user functions: a call back into the function whose derivative is being made
calls that derivative's own emitted functions (fwd_f calls fwd_f, jvp_f calls jvp_f).

Each form published numpy code recurses in is a row checked as tests/test_oracle.py checks
its rows: reverse mode, forward mode, hvp and reverse over reverse against central finite
differences and autograd, each derivative called twice (the conftest runs every call's specialised code
against the generic code: the first call makes it, the second runs the one made).
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import srcdiff as nf
from oracle import (
    Table,
    check_forward,
    check_grad_of_grad,
    check_hvp,
    check_reverse,
)

pytest.importorskip("autograd")

TABLE = Table()
case = TABLE.case
rng = np.random.default_rng(20261204)
EMBEDDINGS = rng.normal(size=(5, 3))


def power(x, n):
    return 1.0 if n == 0 else x * power(x, n - 1)


@case(rng.normal(size=3))
def power_sum(x):
    return np.sum(power(np.sin(x), 4))


def node(tree, W):
    """A recursive net over a nested tuple of word indices."""
    if isinstance(tree, int):
        return EMBEDDINGS[tree]
    return np.tanh(W @ np.concatenate([node(tree[0], W), node(tree[1], W)]))


@case(0.5 * rng.normal(size=(3, 6)), ((0, 1), (2, (3, 4))))
def tree_net(W, tree):
    return np.sum(node(tree, W) ** 2)


def walsh_hadamard(x):
    """The Cooley-Tukey split of a Walsh-Hadamard transform: halves transformed apart."""
    n = x.shape[0]
    if n == 1:
        return x
    low, high = walsh_hadamard(x[: n // 2]), walsh_hadamard(x[n // 2 :])
    return np.concatenate([low + high, low - high])


@case(rng.normal(size=8))
def hadamard_split(x):
    return np.sum(walsh_hadamard(np.tanh(x)) ** 2 * np.arange(8))


def fft(x):
    """Radix-2 decimation in time: the even and the odd samples transformed apart."""
    n = x.shape[0]
    if n == 1:
        return x
    even, odd = fft(x[0::2]), fft(x[1::2])
    twiddled = np.exp(-2j * np.pi * np.arange(n // 2) / n) * odd
    return np.concatenate([even + twiddled, even - twiddled])


@case(rng.normal(size=8))
def fft_power(x):
    return np.sum(np.abs(fft(x * np.sin(x))) ** 2 * np.arange(8))


def horner(coefficients, x):
    if len(coefficients) == 1:
        return coefficients[0]
    return coefficients[0] + x * horner(coefficients[1:], x)


@case(rng.normal(size=3), rng.normal(size=4))
def horner_polynomial(x, coefficients):
    return np.sum(horner(coefficients, x) ** 2)


def continued_fraction(a, x, k):
    return a[k] if k == len(a) - 1 else a[k] + x / continued_fraction(a, x, k + 1)


@case(rng.normal(size=3), rng.uniform(2, 3, size=5))
def continued_fraction_sum(x, a):
    return np.sum(continued_fraction(a, x, 0))


@case(rng.uniform(2, 3, size=5), rng.normal(size=3))
def continued_fraction_of_its_terms(a, x):
    return np.sum(continued_fraction(a, x, 0))


class Cell:
    """A chain of layers of one class, each calling the next: recursion through a method."""

    def __init__(self, W, child):
        self.W, self.child = W, child

    def forward(self, h):
        h = np.tanh(self.W @ h)
        if self.child is None:
            return h
        return self.child.forward(h)


class Head:
    def __init__(self, W):
        self.W = W

    def forward(self, h):
        return np.sin(self.W @ h)


CHAIN = Cell(rng.normal(size=(3, 3)), Cell(rng.normal(size=(3, 3)), None))
MIXED = Cell(rng.normal(size=(3, 3)), Cell(rng.normal(size=(3, 3)), Head(rng.normal(size=(3, 3)))))


@case(rng.normal(size=3), CHAIN, autograd="autograd cannot run a method bound to another np")
def method_chain(x, net):
    return np.sum(net.forward(x) ** 2)


@case(rng.normal(size=3), MIXED, autograd="autograd cannot run a method bound to another np")
def method_chain_of_two_classes(x, net):
    return np.sum(net.forward(x) ** 2)


def swapped(a, b, n):
    """Called back with the other argument differentiated: each way is a derivative of its
    own, the second calling itself."""
    return a if n == 0 else a * np.cos(swapped(a * b, b, n - 1))


@case(rng.normal(size=2), rng.normal(size=2))
def differentiated_another_way_inside(b, a):
    return np.sum(swapped(a, b, 3))


def parity(x, n, odd):
    """is_even and is_odd as one function, as the error for the pair advises."""
    if n == 0:
        return np.cos(x) if odd else np.sin(x)
    return x * parity(x, n - 1, not odd)


@case(rng.normal(size=3))
def even_odd_as_one_function(x):
    return np.sum(parity(x, 5, False))


def is_even(x, n):
    return np.cos(x) if n == 0 else x * is_odd(x, n - 1)


def is_odd(x, n):
    return np.sin(x) if n == 0 else x * is_even(x, n - 1)


@case(rng.normal(size=3))
def mutual_recursion(x):
    return np.sum(is_even(x, 5))


@case(rng.normal(size=3))
def mutual_recursion_entered_at_the_other(x):
    return np.sum(is_odd(np.tanh(x), 4) * is_even(x, 3))


def rock(x, n):
    return x if n == 0 else np.sin(paper(x, n - 1))


def paper(x, n):
    return x if n == 0 else x * scissors(x, n - 1)


def scissors(x, n):
    return x if n == 0 else np.exp(-(rock(x, n - 1) ** 2))


@case(rng.normal(size=3))
def recursion_through_three_functions(x):
    return np.sum(rock(x, 7))


def swap(a, b, n):
    """Called back with the other argument differentiated, and from it back again."""
    return a if n == 0 else np.sin(a) * swap(b, a, n - 1)


@case(rng.normal(size=2), rng.normal(size=2))
def differentiated_the_other_way_and_back(a, b):
    return np.sum(swap(a, b, 5))


def ping(a, b, n):
    return a * b if n == 0 else np.sin(pong(b, a, n - 1)) * a


def pong(a, b, n):
    return a + b if n == 0 else np.cos(ping(a * b, b, n - 1)) + b


def ping_pong(a, b):
    """Two functions calling each other with their arguments swapped, from three calls
    differentiating different arguments."""
    return np.sum(ping(a, b, 5) + pong(a, 2.0, 3) + ping(1.5, b, 2))


case(rng.normal(size=3), rng.normal(size=3), wrt=0)(ping_pong)
case(rng.normal(size=3), rng.normal(size=3), wrt=1)(ping_pong)


def value_and_count(x, n):
    """A tuple, of which only the first item carries a derivative."""
    if n == 0:
        return np.sin(x), 1
    value, count = value_and_count(x, n - 1)
    return x * value, count + 1


@case(rng.normal(size=3))
def recursion_returning_a_pair(x):
    value, count = value_and_count(x, 3)
    return np.sum(value) * count


def in_a_loop(x, n):
    if n == 0:
        return x
    h = x
    for k in range(2):
        h = np.tanh(in_a_loop(h, n - 1) + k)
    return h


@case(rng.normal(size=3))
def recursion_in_a_loop(x):
    return np.sum(in_a_loop(x, 3))


def _made_recursive():
    def halved(x, n):
        return x if n == 0 else x * np.sin(halved(x / 2, n - 1))

    return halved


halved = _made_recursive()  # (it calls itself through its closure cell)


@case(rng.normal(size=3))
def recursion_of_a_closure(x):
    return np.sum(halved(x, 4))


class Decay:
    def __init__(self, rate):
        self.rate = rate

    def apply(self, x, steps):
        return x if steps == 0 else self.apply(np.tanh(self.rate * x), steps - 1)


@case(
    rng.normal(size=3),
    Decay(0.9),
    autograd="autograd cannot run a method bound to another np",
)
def recursion_through_self(x, decay):
    return np.sum(decay.apply(x, 4) ** 2)


def even_step(x, y, n):
    return np.sin(x) * y if n == 0 else x * odd_step(x, y, n - 1)


def odd_step(x, y, n):
    return np.cos(x) if n == 0 else even_step(y, x, 0) * even_step(x, y, n - 1)


@case(rng.normal(size=3), rng.normal(size=3))
def called_another_way_before_the_call_back(x, y):
    """odd_step calls even_step another way (y differentiated) before calling back the
    even_step that called it: the other is named apart (fwd_even_step_y), not as the one
    the call back calls."""
    return np.sum(even_step(x, y, 4))


def local_depth(w, x):
    """A local function calling itself, counted down by a constant: inlined as deep as
    the count goes, each level reading the enclosing w."""

    def depth(t, n):
        return t if n == 0 else np.tanh(w * depth(t, n - 1))

    return np.sum(depth(x, 3))


case(rng.normal(size=3), rng.normal(size=3), wrt=0)(local_depth)
case(rng.normal(size=3), rng.normal(size=3), wrt=1)(local_depth)


@case(0.5 * rng.normal(size=(3, 3)), rng.normal(size=3))
def local_recursion_with_if_statements_and_keywords(W, x):
    def unfold(h, steps, residual=False):
        if steps <= 0:
            return h
        h = np.tanh(W @ unfold(h, steps=steps - 1, residual=not residual))
        if residual:
            return h + x
        return h

    return np.sum(unfold(x, 4) ** 2) + np.sum(unfold(np.sin(x), 2, True))


@case(rng.normal(size=3))
def local_mutual_recursion(x):
    def even(t, n):
        return np.cos(t) if n == 0 else x * odd(t, n - 1)

    def odd(t, n):
        return np.sin(t) if n == 0 else x * even(np.tanh(t), n - 1)

    return np.sum(even(x, 5) + odd(x, 2))


@pytest.mark.parametrize("row", TABLE.params("reverse"))
def test_reverse(row):
    check_reverse(row, calls=2)


@pytest.mark.parametrize("row", TABLE.params("forward"))
def test_forward(row):
    check_forward(row, calls=2)


@pytest.mark.parametrize("row", TABLE.params("hvp"))
def test_hvp(row):
    check_hvp(row, calls=2)


@pytest.mark.parametrize("row", TABLE.params("grad_of_grad"))
def test_grad_of_grad(row):
    """Reverse over reverse: the vjp of the gradient (H u), whose transform differentiates
    the recursive fwd_f and bwd_f."""
    check_grad_of_grad(row, calls=2)


def test_the_derivatives_of_a_recursive_function_call_themselves():
    source = nf.grad(power_sum).source
    assert "def fwd_power(x, n):" in source and "def bwd_power(b_t0, saved):" in source
    assert "_t2, power_saved = fwd_power(x, _t1)" in source
    assert "power_grads = bwd_power(b_t2, power_saved)" in source
    assert "_t2, d_t2 = jvp_power(dx, x, n - 1)" in nf.jvp(power_sum).source
    source = nf.grad(called_another_way_before_the_call_back).source
    assert "_t2, even_step_saved = fwd_even_step_y(y, x, 0)" in source
    assert "_t4, even_step_saved_1 = fwd_even_step(x, y, _t3)" in source
    # f's own JVP is what a call of f differentiates: the recursion calls it, no copy
    source = nf.jvp(power).source
    assert source.count("def jvp_power") == 1 and "= jvp_power(dx, x, n - 1)" in source
    x = np.array([0.5, 2.0])
    np.testing.assert_allclose(nf.jvp(power)(x, 3, np.ones(2))[1], 3 * x**2)


def test_the_specialised_code_follows_the_first_call_in_then_runs_the_generic_code():
    def f(x):
        return np.sum(power(x, 3))

    x = np.array([0.5, 2.0])
    gradient = nf.grad(f)
    source = gradient.source_for(x)
    assert "def fwd_power_s1(x, n):" in source and "def bwd_power_s1(b_t0, saved):" in source
    assert "_t2, power_saved = fwd_power(x, _t1)" in source  # (n - 1 not known: generic)
    assert "power_grads = bwd_power(b_t2, power_saved)" in source
    for _ in range(2):
        np.testing.assert_allclose(gradient(x), 3 * x**2)


def test_the_recursion_takes_as_deep_a_recursion_as_f_less_a_few_frames():
    """srcdiff adds a frame per level of f's recursion and per derivative, no more."""

    def deepest(run):
        low, high = 1, 2 * sys.getrecursionlimit()
        while low < high:
            middle = (low + high + 1) // 2
            try:
                run(middle)
                low = middle
            except RecursionError:
                high = middle - 1
        return low

    def f(x, n):
        return np.sum(power(x, n))

    x = np.array([0.999, 1.0])
    gradient, jvp, hvp = nf.grad(f), nf.jvp(f), nf.hvp(f)
    plain = deepest(lambda n: f(x, n))
    for derivative in (lambda n: gradient(x, n), lambda n: jvp(x, n, x), lambda n: hvp(x, n, x)):
        assert plain - 20 <= deepest(derivative) <= plain
    n = plain - 20
    np.testing.assert_allclose(gradient(x, n), n * x ** (n - 1))


FIRST_POWER = power  # (what f calls stays the original power when `power` is rebound)


def test_a_rebound_recursive_function_is_differentiated_anew(monkeypatch):
    def f(x):
        return np.sum(FIRST_POWER(x, 3))

    x = np.array([0.5, 2.0])
    gradient = nf.grad(f)
    np.testing.assert_allclose(gradient(x), 3 * x**2)
    # the original's call back into `power` now calls this one
    monkeypatch.setitem(globals(), "power", lambda x, n: 2.0 * x**n)
    np.testing.assert_allclose(gradient(x), 6 * x**2)


def odd_leaf(x):
    return np.sin(x)


def even_again(x, n):
    return np.cos(x) if n == 0 else x * odd_again(x, n - 1)


def odd_again(x, n):
    return odd_leaf(x) * SCALE if n == 0 else x * even_again(x, n - 1)


SCALE = 1.0


def test_a_function_rebound_below_the_call_back_of_a_recursion_is_seen(monkeypatch):
    """odd_leaf and SCALE are read only by odd_again, whose derivative is linked with
    even_again's."""

    def f(x):
        return np.sum(even_again(x, 3))

    x = np.array([0.5, 2.0])
    gradient = nf.grad(f)
    np.testing.assert_allclose(gradient(x), 3 * x**2 * np.sin(x) + x**3 * np.cos(x))
    monkeypatch.setitem(globals(), "odd_leaf", np.cos)
    np.testing.assert_allclose(gradient(x), 3 * x**2 * np.cos(x) - x**3 * np.sin(x))
    monkeypatch.setitem(globals(), "SCALE", 2.0)  # (a global it reads, re-read at each call)
    np.testing.assert_allclose(gradient(x), 2 * (3 * x**2 * np.cos(x) - x**3 * np.sin(x)))


MODULE = textwrap.dedent("""
    import numpy as np

    def power(x, n):
        return 1.0 if n == 0 else x * power(x, n - 1)

    def is_even(x, n):
        return np.cos(x) if n == 0 else x * is_odd(x, n - 1)

    def is_odd(x, n):
        return np.sin(x) if n == 0 else x * is_even(x, n - 1)

    def model(x):
        return np.sum(power(np.sin(x), 3))

    def even(x):
        return np.sum(is_even(x, 3))

    def odd(x):
        return np.sum(is_odd(x, 2))
""")

SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    sys.path.insert(0, sys.argv[1])
    import srcdiff as nf
    from srcdiff import cache
    import recursive_model
    x = np.array([0.5, 1.5])
    entered = sys.argv[2].split(",")  # (the order the cycle is first entered in)
    got = {name: nf.grad(getattr(recursive_model, name))(x).tolist() for name in entered}
    got["hvp"] = nf.hvp(recursive_model.model)(x, np.ones(2)).tolist()
    print(json.dumps({"stats": cache.stats, **got}))
""")


@pytest.mark.parametrize("order", ["model,even,odd", "odd,even,model"])
def test_a_recursive_derivative_loaded_from_disk(tmp_path, order):
    """The derivatives in a recursion through two functions, entered at either, made in one
    process and loaded from disk in processes entering at the one or the other."""
    (tmp_path / "recursive_model.py").write_text(MODULE)
    env = dict(os.environ, SRCDIFF_CACHE_DIR=str(tmp_path / "cache"))

    def run(entered):
        command = [sys.executable, "-c", SCRIPT, str(tmp_path), entered]
        out = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        return json.loads(out.stdout.splitlines()[-1])

    runs = [run(order), run(order), run(",".join(reversed(order.split(","))))]
    assert runs[0]["stats"]["transforms"] > 0 and runs[1]["stats"]["transforms"] == 0
    assert runs[1]["stats"]["disk_hits"] > 0
    x = np.array([0.5, 1.5])
    s, c = np.sin(x), np.cos(x)
    for got in runs:
        np.testing.assert_allclose(got["model"], 3 * s**2 * c)
        np.testing.assert_allclose(got["hvp"], 6 * s * c**2 - 3 * s**3)
        np.testing.assert_allclose(got["even"], 3 * x**2 * s + x**3 * c)  # (of x**3 sin x)
        np.testing.assert_allclose(got["odd"], 2 * x * s + x**2 * c)  # (of x**2 sin x)


def test_a_local_recursion_counted_by_a_constant_is_inlined_level_by_level():
    source = nf.grad(local_depth).source
    for level in (1, 2, 3):
        assert f"depth_n{level}_result = np.tanh(_t{level - 1})" in source
    assert "depth_n4" not in source and "def " not in source.split("def dlocal_depth")[1]


def _depth_not_counted(w, x, k):
    def depth(t, n):
        return t if n == 0 else np.tanh(w * depth(t, n - 1))

    return np.sum(depth(x, k))


def _depth_without_end(w, x):
    def depth(t, n):
        return np.tanh(w * depth(t, n - 1))

    return np.sum(depth(x, 3))


@pytest.mark.parametrize(
    "f, args, line, words",
    [
        (
            _depth_not_counted,
            (0.5, np.ones(2), 3),
            "return np.sum(depth(x, k))",
            "no constant argument counts how deep",
        ),
        (
            _depth_without_end,
            (0.5, np.ones(2)),
            "return np.tanh(w * depth(t, n - 1))",
            "more than 256 times deep",
        ),
    ],
)
def test_a_local_recursion_not_counted_down_to_its_end_is_a_located_error(f, args, line, words):
    with pytest.raises(nf.UnsupportedError, match=words) as error:
        nf.grad(f)(*args)
    assert error.value.location.filename == __file__
    assert line in str(error.value)
