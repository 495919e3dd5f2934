"""Python as people write it (issue 16), continued: dict.get, augmented writes into container
items, containers written after being passed whole, copies written into, and the statements
and numpy keywords a prober met. One small function each, for tests/test_written_constructs.py
(which also runs this module with `np` bound to autograd.numpy where autograd can)."""

import numpy as np


def w_and_x(seed=0):
    draw = np.random.default_rng(seed)
    return 0.5 * draw.normal(size=(3, 2)), draw.normal(size=(4, 3))


def dict_and_x(seed=0):
    draw = np.random.default_rng(seed)
    return {"W": 0.5 * draw.normal(size=(3, 2)), "b": draw.normal(size=2)}, draw.normal(size=(4, 3))


# --- copies written into: flatten, np.array, copy, np.copy and astype copy ---------------------


def flattened_then_written(w, x):
    flat = w.flatten()  # a copy: the write changes w not
    flat[0] = 3.0 * flat[1]
    return np.sum(np.sin(flat)) * np.sum(w**2) + np.sum(x @ w)


def copies_written(w, x):
    a = np.array(w)
    a[0, 0] = 1.0
    b = w.copy()
    b[1, 1] = np.sum(x)
    c = np.copy(w)
    c[2, 0] = 0.5 * w[0, 1]
    d = w.astype(np.float64)
    d[0, 1] = 0.0
    return np.sum(a * b * c * d * w)


# (autograd's arrays take no item writes)
WITHOUT_AUTOGRAD = {
    "x.flatten(), then written into": (flattened_then_written, w_and_x),
    "np.array(x), x.copy(), np.copy(x), x.astype(t), then written into": (copies_written, w_and_x),
}

# --- d.get(k), d.get(k, default) ---------------------------------------------------------------


def read_with_get(params, x):
    scale = params.get("scale", 1.5)  # (no such key: the default)
    h = np.tanh(x @ params.get("W") + params.get("b", 0.0))
    return np.sum(h) * scale + np.sum(params.get("c", params["b"] * 2.0) ** 2)


def local_dict_read_with_get(params, x):
    layer = {"W": 2.0 * params["W"], "b": np.sin(params["b"])}
    model = {"layer": layer, "scale": 0.5}
    total = np.sum(np.tanh(x @ model["layer"].get("W") + layer.get("b", 0.0)))
    for key in ["W", "b", "c"]:
        total = total + np.sum(np.cos(layer.get(key, 0.25))) * model.get("scale", 1.0)
    return total + np.sum(model.get("missing", params["b"]))


def get_then_written_key_by_key(params, x):
    named = {}
    named["W"] = params.get("W") * 2.0
    named["b"] = named.get("b", 0.0) + params["b"]
    return np.sum(np.tanh(x @ named["W"] + named["b"]))


CASES = {
    "d.get(k), d.get(k, default) of an argument": (read_with_get, dict_and_x),
    "d.get(k), d.get(k, default) of dicts f makes, in a loop": (
        local_dict_read_with_get,
        dict_and_x,
    ),
    "d.get(k, default) of a dict written key by key": (get_then_written_key_by_key, dict_and_x),
}


# --- what srcdiff refuses, at the line, saying what to write ------------------------------------


def view_by_astype_written(w, x):
    z = w * 1.0
    d = z.astype(np.float64, copy=False)  # (z itself: the dtype is already float64)
    d[0] = 3.0 * w[1]  # refused: z changes too
    return np.sum(z * w) + np.sum(x)


def list_read_with_get(params, x):
    return np.sum(x @ params.get(0))  # refused: a list has no get


def list_and_x(seed=0):
    params, x = dict_and_x(seed)
    return [params["W"]], x


ERRORS = {
    "list.get(k), checked as it runs": (
        list_read_with_get,
        list_and_x,
        "srcdiff took params.get(...) for a dict's get, but params is a list",
        "read the item: params[k]",
    ),
    "x.astype(t, copy=False) written into": (
        view_by_astype_written,
        w_and_x,
        "writing into 'd' changes 'z' too",
        "copy before writing",
    ),
}
