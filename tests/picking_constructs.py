"""Python as people write it, continued: functions and values picked from containers
(functools.reduce over zip(layers, params), P(*params[0]), sorted(..., key=...)) and numpy's
functions of functions (np.piecewise). One small function each, for
tests/test_written_constructs.py (which also runs this module with `np` bound to
autograd.numpy where autograd can)."""

import collections
import functools

import numpy as np


def w_and_x(seed=0):
    draw = np.random.default_rng(seed)
    return 0.5 * draw.normal(size=(3, 2)), draw.normal(size=(4, 3))


def scaled_tanh(h, w):
    return np.tanh(h @ w)


def scaled_sin(h, w):
    return np.sin(h @ w.T)


# --- functools.reduce with a lambda calling an item ---------------------------------------------


def reduce_calling_the_item(w, x):
    layers = [scaled_tanh, scaled_sin]
    params = [w, 2.0 * w]
    h = functools.reduce(lambda h, lp: lp[0](h, lp[1]), zip(layers, params), x)
    return np.sum(h**2)


def reduce_over_enumerate(w, x):
    rows = [x[0] @ w, x[1] @ w, x[2] @ w]
    return np.sum(
        functools.reduce(lambda acc, kv: acc * np.cos(kv[1]) + kv[0], enumerate(rows), w[0])
    )


def loop_calling_the_item(w, x):
    h = x
    for lp in zip([scaled_tanh, scaled_sin], [w, 0.5 * w]):
        h = lp[0](h, lp[-1])
    return np.sum(np.cos(h))


def reduce_over_pairs_made_before(w, x):
    pairs = list(zip([scaled_tanh, scaled_sin], [w, w]))
    return np.sum(functools.reduce(lambda h, lp: lp[0](h, lp[1]), pairs, x))  # refused


# --- a namedtuple made from a tuple of a list f makes -------------------------------------------

Dense = collections.namedtuple("Dense", ["W", "b"])


def namedtuple_from_a_listed_tuple(w, x):
    params = [(w, w[0]), (2.0 * w, np.sin(w[1]))]
    first = Dense(*params[0])
    last = Dense(*params[-1])
    h = np.tanh(x @ first.W + first.b)
    return np.sum((h @ last.W.T) ** 2) + np.sum(last.b * first.b)


# --- sorted(..., key=...), max(..., key=...) of enumerate or zip: the order carries no derivative


def sorted_enumerate_by_value(w, x):
    h = np.tanh(x @ w)[:, 0]
    order = sorted(enumerate(h), key=lambda t: t[1])
    return order[0][1] * 2.0 + order[-1][1] ** 2 * order[-1][0]


def looped_over_sorted_pairs(w, x):
    h = x @ w[:, 1]
    total = 0.0
    for i, v in sorted(zip(range(len(h)), h), key=lambda t: t[1], reverse=True):
        total = 0.5 * total + np.sin(v) * (i + 1)
    return total


def max_of_enumerate_by_key(w, x):
    h = x @ w
    k, largest = max(enumerate(h[:, 0]), key=lambda t: t[1])
    _, nearest = min(zip(h[:, 1], h[:, 0]), key=lambda t: abs(t[0]))
    return largest * nearest + np.sum(h[k] ** 2)


# --- np.piecewise, np.frompyfunc ---------------------------------------------------------------


def cubed(v, k):
    return k * v**3


def pieces_of_functions_and_values(w, x):
    h = x @ w

    def soft(v):
        return np.log1p(np.exp(v))

    y = np.piecewise(h, [h < -0.5, h > 0.5], [soft, w[0, 0], np.tanh])
    z = np.piecewise(h[:, 0], (h[:, 0] < 0,), (cubed, lambda v, k: k * np.sin(v)), 2.0)
    return np.sum(y**2) + np.sum(z * h[:, 1]) + np.sum(np.piecewise(w, [w > 0], [0.5, np.cos]))


def pieces_of_a_float(t):
    return np.piecewise(t, [t < 0, t >= 0], [lambda v: v**2, np.sin]) * t


def step(v):
    return v * v if v > 0 else 0.5 * v


def applied_item_by_item(w, x):
    h = x @ w
    return np.sum(np.frompyfunc(step, 1, 1)(h).astype(float) * h)


def pieces_not_in_the_call(w, x):
    h = x @ w
    pieces = [np.sin, np.cos]
    return np.sum(np.piecewise(h, [h < 0], pieces))  # refused


CASES = {
    "functools.reduce(lambda h, lp: lp[0](h, lp[1]), zip(layers, params), x)": (
        reduce_calling_the_item,
        w_and_x,
    ),
    "for lp in zip(layers, params): h = lp[0](h, lp[-1])": (loop_calling_the_item, w_and_x),
    "functools.reduce(lambda acc, kv: ... kv[0] ... kv[1], enumerate(rows), start)": (
        reduce_over_enumerate,
        w_and_x,
    ),
    "Dense(*params[0]) of a namedtuple class, params a list of tuples f makes": (
        namedtuple_from_a_listed_tuple,
        w_and_x,
    ),
    "sorted(enumerate(h), key=lambda t: t[1])": (sorted_enumerate_by_value, w_and_x),
    "for i, v in sorted(zip(range(n), h), key=..., reverse=True)": (
        looped_over_sorted_pairs,
        w_and_x,
    ),
    "max(enumerate(h), key=...), min(zip(a, b), key=...)": (max_of_enumerate_by_key, w_and_x),
}

WITHOUT_AUTOGRAD = {
    "np.piecewise(h, [conditions], [functions, values, an otherwise], *args)": (
        pieces_of_functions_and_values,
        w_and_x,
    ),
    "np.frompyfunc(g, 1, 1)(h).astype(float)": (applied_item_by_item, w_and_x),
}

ERRORS = {
    "functools.reduce(lambda h, lp: lp[0](h, lp[1]), pairs, x), pairs made before": (
        reduce_over_pairs_made_before,
        w_and_x,
        "lp[0](...) calls a function held in the list 'lp'",
        "loop over zip(fs, params)",
    ),
    "np.piecewise(h, [h < 0], pieces), the pieces not written in the call": (
        pieces_not_in_the_call,
        w_and_x,
        "np.piecewise(...) is differentiated as the writes it makes",
        "y = np.piecewise(x, [x < 0, x >= 1], [f, 0.0, g])",
    ),
}
