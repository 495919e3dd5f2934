"""Forward mode: jvp agrees with reverse mode (<jvp(v), u> == <v, vjp(u)>) and with finite
differences, for every construct (test_primitives.py checks every primitive's samples)."""

import numpy as np
import pytest

import srcdiff as nf
import test_control_flow as flow
from gradcheck import numerical_grad


def float_positions(args):
    return tuple(
        i
        for i, a in enumerate(args)
        if isinstance(a, (float, np.ndarray)) and np.asarray(a).dtype.kind == "f"
    )


def random_like(arg, rng):
    return float(rng.normal()) if isinstance(arg, float) else rng.normal(size=np.shape(arg))


def check_jvp_against_grad(f, args, wrt, rng):
    grads = nf.grad(f, wrt=wrt)(*args)
    tangents = tuple(random_like(args[i], rng) for i in wrt)
    out, tangent = nf.jvp(f, wrt=wrt)(*args, tangents)
    np.testing.assert_allclose(out, f(*args), rtol=1e-12)
    expected = sum(float(np.sum(g * t)) for g, t in zip(grads, tangents))
    np.testing.assert_allclose(tangent, expected, rtol=1e-6, atol=1e-9)


FLOW = [
    (
        flow.rnn,
        lambda r: (
            r.normal(size=(4, 4)) * 0.4,
            r.normal(size=4),
            r.normal(size=4),
            r.normal(size=(20, 4)),
        ),
        (0,),
    ),
    (flow.piecewise, lambda r: (r.normal(size=4) - 0.5, r.normal(size=4)), (0, 1)),
    (flow.branch_in_loop, lambda r: (r.normal(size=3), 5), (0,)),
    (flow.while_loop, lambda r: (r.uniform(0.5, 1, size=3),), (0,)),
    (flow.rows_zip_enumerate, lambda r: (r.normal(size=(4, 3)), r.normal(size=3)), (0, 1)),
    (flow.nested, lambda r: (r.normal(size=3), 4), (0,)),
    (
        flow.mlp,
        lambda r: (
            r.normal(size=(3, 4)),
            r.normal(size=4),
            r.normal(size=(4, 2)),
            r.normal(size=2),
            r.normal(size=(5, 3)),
        ),
        (0, 2),
    ),
    (flow.with_break, lambda r: (r.normal(size=3), 1.0), (0,)),
    (flow.with_continue, lambda r: (r.uniform(0.5, 1.5, size=3),), (0,)),
    (flow.early_return, lambda r: (-np.abs(r.normal(size=3)) - 2,), (0,)),
    (flow.conv1d, lambda r: (r.normal(size=12), r.normal(size=3)), (0, 1)),
    (flow.overwrites, lambda r: (r.normal(size=5),), (0,)),
    (flow.uses_one_output, lambda r: (r.normal(size=(5, 3)), r.normal(size=3)), (0, 1)),
    (flow.ternaries, lambda r: (r.uniform(0, 1, size=3), 2.0), (0, 1)),
]


@pytest.mark.parametrize("f, make_args, wrt", FLOW, ids=[c[0].__name__ for c in FLOW])
def test_jvp_through_control_flow_and_calls(f, make_args, wrt, rng):
    check_jvp_against_grad(f, make_args(rng), wrt, rng)


def test_jvp_vjp_duality_for_a_vector_output(rng):
    def f(x, w):
        h = np.tanh(x @ w)
        return np.concatenate([h, h[:, :1] ** 2], axis=1)

    x, w = rng.normal(size=(4, 3)), rng.normal(size=(3, 2))
    v, u = rng.normal(size=w.shape), rng.normal(size=(4, 3))
    out, jv = nf.jvp(f, wrt=1)(x, w, v)
    _, pullback = nf.vjp(f, wrt=1)(x, w)
    assert np.sum(jv * u) == pytest.approx(np.sum(v * pullback(u)), rel=1e-10)
    expected = numerical_grad(lambda s: np.sum(f(x, w + s * v) * u), (0.0,), 0)
    assert np.sum(jv * u) == pytest.approx(expected, rel=1e-6)


def test_jvp_source_carries_tangents_alongside(rng):
    source = nf.jvp(flow.rnn, wrt=0).source
    assert "def jvp_rnn(dw, w, b, h, xs):" in source
    assert "dh = runtime.zero_tangent(h)" in source  # h is not in wrt but becomes active
    assert "_stack" not in source  # forward mode saves nothing


def test_jvp_of_a_pytree_argument(rng):
    params = {"w": rng.normal(size=(3, 2)), "b": rng.normal(size=2)}
    x = rng.normal(size=(4, 3))

    def f(p, x):
        return np.sum(np.tanh(x @ p["w"] + p["b"]))

    tangent = {"w": rng.normal(size=(3, 2)), "b": rng.normal(size=2)}
    _, jv = nf.jvp(f)(params, x, tangent)
    g = nf.grad(f)(params, x)
    assert jv == pytest.approx(np.sum(g["w"] * tangent["w"]) + np.sum(g["b"] * tangent["b"]))


def test_wrong_number_of_tangents():
    with pytest.raises(nf.ArgumentError, match="needs 2 tangent"):
        nf.jvp(flow.piecewise, wrt=(0, 1))(np.ones(2), np.ones(2), (np.ones(2),))


def test_a_tangent_of_the_wrong_shape_is_an_error_not_a_crash():
    """(v,) for wrt=0 would be an array of shape (1, ...) to numpy: a raw broadcasting error
    deep in the emitted code, or a wrong-shaped tangent, before this check."""
    w = np.ones((3, 3))
    with pytest.raises(nf.ArgumentError, match=r"tangent of argument 'x' has shape \(1, 3, 3\)"):
        nf.jvp(flow.piecewise)(w, np.ones(3), (w,))
    with pytest.raises(nf.ArgumentError, match=r"tangent of argument 'y' has shape \(2,\)"):
        nf.jvp(flow.piecewise, wrt=(0, 1))(w, np.ones(3), (w, np.ones(2)))
