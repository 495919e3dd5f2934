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


# --- p[k] += v into an item of a dict or list f makes ---------------------------------------


def augmented_writes_into_items(params, x):
    grads = {"W": np.tanh(params["W"]), "b": 2.0 * params["b"]}
    grads["W"] += params["W"] ** 2
    grads["b"] *= np.sum(grads["W"])
    hs = [x @ grads["W"], np.sin(params["b"])]
    hs[0] += hs[1]
    hs[-1] -= np.cos(hs[1])
    return np.sum(np.tanh(hs[0])) + np.sum(hs[1] ** 2)


def augmented_writes_in_loops(params, x):
    totals = {"h": np.zeros(2) * params["b"], "n": 0.0}  # (autograd adds no box into zeros)
    for k in range(3):
        totals["h"] += np.tanh(x @ params["W"] * (k + 1) + params["b"]).sum(axis=0)
        totals["n"] += np.sum(params["b"] ** 2)
    decayed = {"W": params["W"] ** 2, "b": np.sin(params["b"])}
    for key in decayed:
        decayed[key] += 0.1 * params[key]
    return np.sum(totals["h"] ** 2) * totals["n"] + np.sum(x @ decayed["W"] + decayed["b"])


def augmented_write_into_an_appended_item(params, x):
    W = 2.0 * params["W"]  # (read no more after the write: numpy changes it, unseen)
    hs = []
    for k in range(2):
        hs.append(np.tanh(x @ W * (k + 1)))
    hs[0] += params["b"]
    named = {}
    named["W"] = W
    named["W"] *= np.sum(params["b"])
    return np.sum(hs[0] ** 2) + np.sum(hs[1]) + np.sum(named["W"] ** 2)


# --- a dict or list written after being passed whole --------------------------------------------


def sum_of_squares(named):
    return sum(np.sum(value**2) for value in named.values())


def squares_of(items):
    return sum(np.sum(value**2) for value in items)


def dict_read_whole_before_a_write(params, x):
    named = {"W": params["W"] * 1.0}
    total = sum_of_squares(named)  # (it had the dict before the write, and keeps nothing)
    named["W"] = 2.0 * params["W"]
    return total + np.sum(named["W"]) * np.sum(x)


def dict_passed_to_an_inner_def_then_written(params, x):
    def total(named):  # (inlined: named stands for the dict, read before the write)
        return sum(np.sum(value**2) for value in named.values())

    layer = {"W": params["W"] * 1.0, "b": params["b"]}
    before = total(layer)
    layer["b"] = np.sin(params["b"])
    return before * np.sum(x @ layer["W"] + layer["b"]) + total(layer)


def containers_passed_whole_then_written(params, x):
    named = {"W": params["W"] * 1.0, "b": params["b"]}
    pieces = [params["W"] * 1.0, params["b"]]
    count = len(named) + len(sorted(named))
    total = sum(np.sum(v) for v in named.values()) + squares_of(pieces)
    for k in range(2):
        total = total + sum_of_squares(named)
        named["b"] = named["b"] * 2.0
    pieces[1] = np.sin(params["b"])
    pieces.append(params["b"] * 3.0)
    named["W"] = np.tanh(named["W"])
    copied = dict(params)
    copied["b"] = np.cos(params["b"])
    return (
        count * total * np.sum(x @ pieces[0] + pieces[1])
        + np.sum(pieces[2])
        + np.sum(x @ named["W"] + named["b"] + copied["b"])
    )


# --- statements and numpy keywords a prober met ---------------------------------------------


def loops_with_else(w, x):
    total = 0.0
    for i in range(4):
        total = total + np.sum(np.sin(w * (i + 1)))
        if i == 1 and np.sum(w) > -100.0:
            break
    else:
        total = total * 2.0  # (not run: the loop breaks)
    for i in range(2):
        for j in range(3):
            if j == 2:
                break
            total = total + np.sum(w * (i + j))
        else:
            total = total - 100.0
        total = total * np.sum(np.tanh(w))
    else:
        total = total + np.sum(x @ w)
    k = 0
    while k < 3:
        total = total * np.sum(np.cos(w * k))
        k += 1
    else:
        total = total + np.sum(w**2)
    return total


def try_finally_left_by_return(w, x):
    done = []
    try:
        y = np.tanh(x @ w)
        for k in range(3):
            if k == 1 and np.sum(y) > -100.0:
                return np.sum(y**2) * k
        return np.sum(y)
    finally:
        done.append(len(done))  # (runs before each return, changing no differentiated value)


def numpy_casts_and_masked_reductions(w, x):
    scale = np.float64(np.sum(w**2)) + np.float64(w[0, 0]) * 3.0
    total = np.sum(np.exp(w), where=w > 0) + np.sum(w**3, axis=0, where=w < 0.5, initial=1.5).sum()
    top = np.max(x @ w, axis=0, initial=0.0).sum() + np.min(w, initial=0.0)
    return scale * total + top + np.max(w, axis=1, where=w < 0.2, initial=-5.0).sum()


def rows_enumerated_from_one(w, x):
    total = 0.0
    for k, row in enumerate(x @ w, start=1):
        total = total + k * np.sum(np.tanh(row))
    for k, row in enumerate(w, 2):
        total = total * np.sum(np.sin(row)) / k
    return total


# --- arrays swapped, arguments bound anew, then written into in place --------------------------


def swapped_then_written(w, x):
    a, b = w[0] * 1.0, w[1] * 2.0
    a, b = b, a  # (two fresh arrays still: a write into one leaves the other)
    a *= 2.0
    b[0] = a[1] * b[1]
    return np.sum(np.sin(a) * b) + np.sum(x @ w)


def arguments_bound_anew_then_written(w, x):
    held = w
    w = w * 1.0
    w[0] = w[1] ** 2
    w += held
    x = x * 1.0
    for k in range(2):
        x = x * 0.5
        x[k] = np.tanh(x[k])
    return np.sum(np.sin(w) * held) + np.sum(x @ w)


# --- writes spelled other ways: tuple targets, out=, sort, np.add.at, np.fill_diagonal ----------


def items_swapped_by_tuple_assignment(w, x):
    a = np.sum(x @ w, axis=1)  # (4,)
    a[0], a[1] = a[1], a[0]
    for i in range(3):
        if a[i] > a[i + 1]:
            a[i], a[i + 1] = a[i + 1], a[i]
    i = 0
    a[i], i = a[3] * 2.0, 1  # (a[0]: i is bound after)
    return np.sum(a * np.arange(4.0)) * i


def results_written_into_out(w, x):
    h = x @ w
    b = np.zeros_like(h)
    np.tanh(h, out=b)
    np.add(b, h**2, out=b)
    y = np.exp(b, out=b)
    c = np.empty((4, 4))
    np.matmul(b, b.T, out=c)
    z = np.sin(h, out=np.empty_like(h))  # (an array made there: a name of its own first)
    return np.sum(y * h) + np.sum(np.sin(c)) + np.sum(z * h)


def arrays_sorted_in_place(w, x):
    h = x @ w * 1.0
    h.sort(axis=0)
    flat = h.ravel() * 1.0
    flat.sort()
    order = [3.0, 1.0, 2.0]
    order.sort()  # (a list: sorted as a list)
    return np.sum(h * np.arange(8.0).reshape(4, 2)) + np.sum(flat * order[0])


def added_at_repeated_indices(w, x):
    a = np.zeros(3)
    for k in range(2):
        np.add.at(a, [0, 0, 2], w[:, k] * (k + 1.0))  # (unbuffered: a[0] gets both)
    return np.sum(np.sin(a)) + np.sum(x @ w)


def diagonal_filled(w, x):
    m = (x @ w) @ w.T  # (4, 3)
    np.fill_diagonal(m, w[0, 0] ** 2)
    g = np.outer(w[:, 0], w[:, 1])
    np.fill_diagonal(g, w[:, 1])
    return np.sum(m * np.arange(12.0).reshape(4, 3)) + np.sum(np.tanh(g))


CASES = {
    "for ... else, while ... else, with and without a break": (loops_with_else, w_and_x),
    "try/finally left by return": (try_finally_left_by_return, w_and_x),
    "enumerate(rows, start=1)": (rows_enumerated_from_one, w_and_x),
    "d.get(k), d.get(k, default) of an argument": (read_with_get, dict_and_x),
    "d.get(k), d.get(k, default) of dicts f makes, in a loop": (
        local_dict_read_with_get,
        dict_and_x,
    ),
    "d.get(k, default) of a dict written key by key": (get_then_written_key_by_key, dict_and_x),
    "d[k] += v, xs[i] *= v into new items": (augmented_writes_into_items, dict_and_x),
    "d[k] += v in loops, over range and over d": (augmented_writes_in_loops, dict_and_x),
    "xs[0] += v into an appended item, d[k] *= v into a name's array": (
        augmented_write_into_an_appended_item,
        dict_and_x,
    ),
    "a dict passed whole to a function, then written": (
        dict_read_whole_before_a_write,
        dict_and_x,
    ),
    "a dict passed whole to an inner def, then written": (
        dict_passed_to_an_inner_def_then_written,
        dict_and_x,
    ),
    "dicts and lists passed whole (len, sorted, sum, a function), then written": (
        containers_passed_whole_then_written,
        dict_and_x,
    ),
}

# (autograd's arrays take no item writes; its np.float64 takes no box, and its sum ignores
# where=: finite differences alone check these)
WITHOUT_AUTOGRAD = {
    "np.float64(v), np.sum(where=, initial=), np.max(initial=, where=)": (
        numpy_casts_and_masked_reductions,
        w_and_x,
    ),
    "x.flatten(), then written into": (flattened_then_written, w_and_x),
    "np.array(x), x.copy(), np.copy(x), x.astype(t), then written into": (copies_written, w_and_x),
    "a, b = b, a, then written into in place": (swapped_then_written, w_and_x),
    "w = w * 1.0, then w[0] = v, w += v; in a loop too": (
        arguments_bound_anew_then_written,
        w_and_x,
    ),
    "a[0], a[1] = a[1], a[0]; a[i], i = v, 1": (items_swapped_by_tuple_assignment, w_and_x),
    "np.tanh(h, out=b), y = np.exp(b, out=b), np.matmul(a, b, out=c), out=np.empty_like(h)": (
        results_written_into_out,
        w_and_x,
    ),
    "h.sort(axis=0), flat.sort(), and a list's sort": (arrays_sorted_in_place, w_and_x),
    "np.add.at(a, idx, v) with an index repeated": (added_at_repeated_indices, w_and_x),
    "np.fill_diagonal(m, v), tall and square": (diagonal_filled, w_and_x),
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


def item_another_name_holds(params, x):
    named = {"W": 2.0 * params["W"]}
    W = named["W"]
    named["W"] += 1.0  # refused: numpy changes W too
    return np.sum(W * named["W"]) + np.sum(x)


def item_an_argument_holds(params, x):
    named = {"W": params["W"], "b": 2.0 * params["b"]}
    named["W"] += 1.0  # refused: numpy would change the caller's array
    return np.sum(named["W"]) + np.sum(x)


def item_of_a_copied_dict(params, x):
    copied = dict(params)
    copied["W"] += 1.0  # refused: the caller's array
    return np.sum(copied["W"]) + np.sum(x)


def same_list(items):
    return items


def list_held_by_what_a_function_returns(params, x):
    pieces = [params["W"] * 1.0, params["b"]]
    held = same_list(pieces)
    pieces[1] = np.sin(params["b"])  # refused: held is the same list
    return np.sum(x @ held[0] + held[1])


def with_a_count(named):
    return named, len(named)


def dict_held_by_what_a_function_returns(params, x):
    named = {"W": params["W"] * 1.0, "b": params["b"]}
    held, _ = with_a_count(named)
    named["b"] = np.sin(params["b"])  # refused: held is the same dict
    return np.sum(x @ held["W"] + held["b"])


def argument_copied_under_its_own_name(params, x):
    params = dict(params)
    params["b"] = np.sin(params["b"])  # refused: (a name of its own, then)
    return np.sum(x @ params["W"] + params["b"])


def one_array_of_two_names_written(w, x):
    a = b = np.zeros(2)
    a[0] = w[0, 0]  # refused: b is the same array
    return np.sum(x @ w) * np.sum(b)


def argument_bound_anew_on_one_path_written(w, x):
    if x[0, 0] > 0:
        w = w * 2.0
    w[0] = 1.0  # refused: w may still be the caller's
    return np.sum(x @ w)


def out_viewed_afterwards(w, x):
    h = x @ w
    top = h[:2]
    np.exp(h, out=h)  # refused: top sees the change
    return np.sum(top) + np.sum(h)


def out_where(w, x):
    h = x @ w
    np.exp(h, out=h, where=h > 0)  # refused
    return np.sum(h)


def argument_sorted(w, x):
    w.sort()  # refused: the caller's array
    return np.sum(x @ w)


def added_at_into_an_argument(w, x):
    np.add.at(w, [0, 0], 1.0)  # refused: the caller's array
    return np.sum(x @ w)


ERRORS = {
    "np.exp(h, out=h) while a view of h is read afterwards": (
        out_viewed_afterwards,
        w_and_x,
        "writing into 'h' changes 'top' too (they share memory)",
        "copy before writing",
    ),
    "np.exp(h, out=h, where=...)": (
        out_where,
        w_and_x,
        "np.exp(..., out=...) writes its result into an array in place",
        "h = np.where(h > 0, np.exp(h), h)",
    ),
    "w.sort() of an argument": (
        argument_sorted,
        w_and_x,
        "w.sort() sorts w in place",
        "w = np.sort(w)",
    ),
    "np.add.at(w, ...) of an argument": (
        added_at_into_an_argument,
        w_and_x,
        "writing into 'w' would change an array the caller may still use",
        "new = w.copy()",
    ),
    "a = b = np.zeros(n), then a written and b read": (
        one_array_of_two_names_written,
        w_and_x,
        "writing into 'a' changes 'b' too (they share memory)",
        "copy before writing",
    ),
    "an argument bound anew on one path only, then written": (
        argument_bound_anew_on_one_path_written,
        w_and_x,
        "writing into 'w' would change an array the caller may still use",
        "new = w.copy()",
    ),
    "d[k] += v of an item another name holds": (
        item_another_name_holds,
        dict_and_x,
        "named['W'] += ... changes in place the array 'named' holds there, and 'W' may hold it",
        "named['W'] = named['W'] + ...",
    ),
    "d[k] += v of an argument's array": (
        item_an_argument_holds,
        dict_and_x,
        "which may be an array of the argument 'params'",
        "named['W'] = named['W'] + ...",
    ),
    "d[k] += v of a dict(params)": (
        item_of_a_copied_dict,
        dict_and_x,
        "changes in place the array 'copied' holds there, which 'copied' shares",
        "copied['W'] = copied['W'] + ...",
    ),
    "xs[i] = v while what a function returned holds xs": (
        list_held_by_what_a_function_returns,
        dict_and_x,
        "writing into 'pieces' changes 'held' too",
        "make a new list before writing",
    ),
    "d[k] = v while what a function returned holds d": (
        dict_held_by_what_a_function_returns,
        dict_and_x,
        "srcdiff follows the item writes into a dict or list f makes itself",
        "make a new one",
    ),
    "params = dict(params), then written": (
        argument_copied_under_its_own_name,
        dict_and_x,
        "writing into 'params' would change an array the caller may still use",
        "new = params.copy() (for a dict: dict(params)",
    ),
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
