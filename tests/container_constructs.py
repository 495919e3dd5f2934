"""Containers of parameters as people hold them (issue 16), one small function each, for
tests/test_containers.py (which also runs this module with `np` bound to autograd.numpy)."""

import dataclasses
from typing import NamedTuple

import numpy as np


def layer_list(seed=0):
    """[(W, b), (W, b)]: two dense layers, 3 -> 4 -> 2, and an input batch of 5."""
    draw = np.random.default_rng(seed)
    shapes = [(3, 4), (4,), (4, 2), (2,), (5, 3)]
    W1, b1, W2, b2, x = [0.5 * draw.normal(size=shape) for shape in shapes]
    return [(W1, b1), (W2, b2)], x


def appended_pairs_read_by_index(params, x):
    pairs = []
    for W, b in params:
        pairs.append((W, 2.0 * b))
    W, b = pairs[0]  # the second pair is never read: its adjoint is a zero of its own kind
    return np.sum(np.tanh(x @ W + b))


def dict_display_of_layers(params, x):
    model = {"hidden": params[0], "output": {"W": params[1][0], "b": params[1][1]}}
    W, b = model["hidden"]
    h = np.tanh(x @ W + b)
    return np.sum(h @ model["output"]["W"] + model["output"]["b"])


def three_layers(seed=0):
    draw = np.random.default_rng(seed)
    shapes = [(3, 4), (4,), (4, 4), (4,), (4, 2), (2,), (5, 3)]
    W1, b1, W2, b2, W3, b3, x = [0.5 * draw.normal(size=shape) for shape in shapes]
    return [(W1, b1), (W2, b2), (W3, b3)], x


def nested_model(seed=0):
    pairs, draw = three_layers(seed)[0], np.random.default_rng(seed + 1)
    return {
        "layers": pairs[:2],
        "head": {"W": pairs[2][0], "b": pairs[2][1]},
        "scale": (0.5 + draw.random(), [draw.normal(size=2)]),
    }, draw.normal(size=(5, 4))


def first_middle_last(params, x):
    (W_in, b_in), *middle, last = params
    x = np.tanh(x @ W_in + b_in)
    for W, b in middle:
        x = np.sin(x @ W + b)
    return np.sum(x @ last[0] + last[1])


def nested_unpacking(params, x):
    (W1, b1), ((W2, b2), (W3, b3)) = params[0], params[1:]
    h = np.tanh(np.tanh(x @ W1 + b1) @ W2 + b2)
    return np.sum(h @ W3 + b3)


def loop_over_nested_targets(params, x):
    total = 0.0
    for k, ((W, _), (b, c)) in enumerate(zip(params, [(b, 1.5) for _, b in params])):
        total = total + (k + c) * np.sum(np.tanh(W) * np.sum(b))
    return total + np.sum(x)


def dict_items_and_values(params, x):
    h = x @ params["head"]["W"]
    for name, value in sorted(params["head"].items()):
        h = h + np.sum(value) * len(name)
    for pair in params["layers"]:
        h = h * np.sum(pair[1])
    for leaf in params["scale"][1]:
        h = h + leaf
    return np.sum(h) * params["scale"][0]


def loop_over_dict_values(params, x):
    total = 0.0
    for W, b in params["layers"]:
        total = total + np.sum(W) * np.sum(b**2)
    for part in params["head"].values():
        total = total + np.sum(np.cos(part))
    return total * np.sum(x)


def tuple_and_list_of_generators(params, x):
    norms = tuple(np.sum(W**2) for W, _ in params)
    pairs = list(zip(norms, [np.sum(b) for _, b in params]))
    return sum(a * b for a, b in pairs) + np.sum(x)


def dict_of_pairs(params, x):
    named = dict([("W", params[0][0]), ("b", params[0][1])])
    return np.sum(np.tanh(x @ named["W"] + named["b"]))


def enumerate_zip_star(params, x):
    total = 0.0
    for k, (W, b) in enumerate(zip(*zip(*params))):
        total = total + (k + 1) * np.sum(np.sin(W)) * np.sum(b)
    return total + np.sum(x)


def next_then_the_rest(params, x):
    layers = iter(params)
    W, b = next(layers)
    x = np.tanh(x @ W + b)
    for W, b in layers:
        x = np.tanh(x @ W + b)
    return np.sum(x) + np.sum(next(iter(params))[1])


def pieces_of(params):
    for layer in params:
        yield from layer


def layer_norms(params, scale):
    for k, (W, b) in enumerate(params):
        if k == 2:
            return
        yield scale * np.sum(W**2)
        yield np.sum(np.sin(b))


def generators_looped_over(params, x):
    total = sum(layer_norms(params, 2.0))
    for piece in pieces_of(params):
        total = total + np.sum(piece**3)
    return total + sum(np.sum(p) for p in pieces_of(params)) * np.sum(x)


def local_generator(params, x):
    def products():
        for W, b in params:
            yield np.tanh(W @ b) * np.sum(x)

    return sum(np.sum(v**2) for v in products())


def flatten_with_comprehensions(params, x):
    flat = np.concatenate([p.ravel() for layer in params for p in layer])
    shapes = [p.shape for layer in params for p in layer]
    pieces, start = [], 0
    for shape in shapes:
        size = int(np.prod(shape))
        pieces.append(flat[start : start + size].reshape(shape))
        start += size
    W1, b1, W2, b2 = pieces
    return np.sum(np.tanh(x @ W1 + b1) @ W2 + b2) + 0.1 * np.dot(flat, flat)


def dict_of_keys_counted_as_it_runs(params, x):
    keys = sorted(params)
    pieces = [np.tanh(params[key]) for key in keys]
    named = dict(zip(keys, pieces))
    return np.sum(x @ named["W"] + named["b"]) + np.sum(named["W"] ** 2)


def dict_params(seed=0):
    (W, b), x = layer_list(seed)[0][0], layer_list(seed)[1]
    return {"b": b, "W": W}, x


def loop_over_dict_keys(params, x):
    total = np.sum(x)
    for key in params:
        total = total + np.sum(np.sin(params[key]))
    return total * sum(np.sum(params[key] ** 2) for key in params)


def enumerated_dict_keys(params, x):  # (a raw KeyError: 0, the dict read by position)
    total = np.sum(x)
    for k, key in enumerate(params):
        total = total + np.sum(np.sin(params[key])) * (k + 1)
    return total


def list_and_tuple_of_dict_keys(params, x):
    keys, names = list(params), tuple(params)
    total = np.sum(np.tanh(x @ params[names[-1]] + params[names[0]]))
    for key in keys:
        total = total + np.sum(np.tanh(params[key]))
    for key in list(params):
        total = total + np.sum(np.sin(params[key]))
    return total * sum(np.sum(params[name] ** 2) for name in tuple(params))


def reversed_enumerated_layers(params, x):
    for k, (W, b) in reversed(list(enumerate(params))):
        x = np.tanh(x @ W + b) * (k + 1)
    return np.sum(x)


def states_written_into_a_list(params, x):
    states = [None] * len(params)
    for k, (W, b) in enumerate(params):
        x = np.tanh(x @ W + b)
        states[k] = x
    scales = [0.0] * 2
    for k in range(2):
        scales[k] = np.sum(states[k]) ** (k + 1)
    ends = [None] * 2
    ends[0] = np.sin(x)  # never read: no adjoint of its own
    ends[1] = 2.0 * x
    return scales[0] * scales[1] + np.sum(states[-1] ** 2) + np.sum(ends[1])


def unflatten_like(flat, like):
    pieces, start = [], 0
    for p in like:
        pieces.append(flat[start : start + p.size].reshape(p.shape))
        start += p.size
    return pieces


def unflattened_by_a_helper(params, x):
    flat = np.concatenate([p.ravel() for p in params])
    W1, b1, W2, b2 = unflatten_like(np.sin(flat), params)  # (params: read for shapes only)
    return np.sum(np.tanh(x @ W1 + b1) @ W2 + b2)


def leaf_list(seed=0):
    layers, x = layer_list(seed)
    return [p for layer in layers for p in layer], x


def layers_sorted_by_a_key(params, x):
    (W2, b2), (W1, b1) = sorted(params, key=lambda layer: layer[0].size)
    total = np.sum(np.tanh(x @ W1 + b1) @ W2 + b2)
    for W, b in sorted(params, key=lambda layer: layer[1].size, reverse=True):
        total = total * np.sum(np.sin(W)) + np.sum(b**2)
    return total


def items_sorted(params, x):
    # the code does not show params or x to be a dict: sorted() sorts their items, np.sort's
    # order for an array, and the adjoint scatters back
    ranked = sorted(params)
    top = sorted(x * x, reverse=True)
    return (
        sum(v * k for k, v in enumerate(ranked)) ** 2
        + np.sum(np.array(top) * np.arange(3.0))
        + sorted(np.sin(x))[0] ** 3
    )


def dict_keys_enumerated_and_zipped(params, x):
    # sorted(params) is a dict's keys: the code indexes params by them, through enumerate
    # and zip too
    total = np.sum(x)
    for k, key in enumerate(sorted(params)):
        total = total + (k + 1) * np.sum(np.sin(params[key]))
    for key, w in zip(reversed(sorted(params)), [2.0, 3.0]):
        total = total * w + np.sum(params[key] ** 2)
    return total


def items_at_extremes(params, x):
    # Python's max/min of items return the first greatest (least) item itself: its adjoint
    # goes to that item alone
    top, low = max(params), min(x * x)
    best = max([x, 2 * x, x**2], key=lambda p: np.sum(p))
    return top * low + np.sum(best * best) + min(np.sin(v) for v in params)


def numbers_and_a_vector(seed=0):
    draw = np.random.default_rng(seed)
    return [float(v) for v in draw.normal(size=4)], draw.normal(size=3)


# --- joined, merged, copied and written item by item, the count not in the code ----------------


def starred_displays(params, x):
    W, b = params[0]
    layers = [*params, (2.0 * W, np.sin(b))]
    pairs = (*params[1:], *params)
    total = np.sum(x)
    for W, b in layers:
        total = total + np.sum(np.tanh(W)) * np.sum(b)
    for k, (W, b) in enumerate(pairs):
        total = total + (k + 1) * np.sum(W**2) * np.sum(b)
    return total


def joined_with_plus(params, x):
    W, b = params[0]
    layers = list(params) + [(W * 2.0, b)]  # (autograd nests boxes for params + [...])
    total = np.sum(x)
    for W, b in layers[1:]:
        total = total * np.sum(np.tanh(W)) + np.sum(b)
    return total


def dict_displays_unpacking(params, x):
    scaled = {**params, "W": 2.0 * params["W"], "x": np.sum(params["b"]) * x}
    more = dict(params, c=np.tanh(params["b"]))
    return (
        np.sum(scaled["W"]) * np.sum(scaled["x"])
        + np.sum(more["c"] * more["b"])
        + np.sum(scaled["b"] ** 2) * np.sum(more["W"])
    )


def dicts_copied(params, x):
    ordered = dict(sorted(params.items()))
    copied = dict(params)
    values = list(params.values())
    total = np.sum(x)
    for k, (name, value) in enumerate(ordered.items()):
        total = total + (k + 1) * np.sum(np.sin(value)) * len(name)
    return total * np.sum(copied["W"] ** 2) + np.sum(values[0] * params["b"]) + np.sum(values[1])


def dict_written_key_by_key(params, x):
    grads = {}
    grads["W"] = np.tanh(params["W"])
    grads["b"] = 2.0 * params["b"]
    grads["W"] = grads["W"] * np.sum(grads["b"])
    grads["b"] = grads["b"] + np.cos(params["b"])
    for key in sorted(params):
        grads[key + "2"] = np.sin(params[key])
    return (
        np.sum(grads["W"]) * np.sum(x)
        + np.sum(grads["b2"] * grads["b"])
        + np.sum(grads["W2"]) * len(grads)
    )


def list_copy_written(params, x):
    layers = list(params)
    W, b = layers[0]
    layers[0] = (np.tanh(W), b * 2.0)
    layers[-1] = (layers[-1][0] * 0.5, layers[-1][1])
    layers.append((np.sin(W), b))
    for k in range(len(layers)):
        layers[k] = (layers[k][0], layers[k][1] + 1.0)
    for W, b in layers:
        x = np.tanh(x @ W + b)
    return np.sum(x)


def unzipped_with_list(params, x):
    Ws, bs = list(zip(*params))
    total = np.sum(x)
    for first, second in tuple(zip(*params)):
        total = total + np.sum(first) * np.sum(second)
    return total + np.sum(Ws[0] ** 2) * np.sum(bs[1])


def columns_counted_as_it_runs(params, x):
    columns = list(zip(*params))
    total = np.sum(columns[0][1] * columns[1][0][0])
    for column in zip(*params):
        total = total + np.sum(np.tanh(column[0])) * len(column)
    return total + np.sum(np.stack(columns[1][:1])) * np.sum(x)


def enumerated_from_two(params, x):
    total = np.sum(x)
    for k, (W, b) in enumerate(params, start=2):
        total = total + k * np.sum(np.tanh(W)) * np.sum(b)
    for pair in enumerate(params, 1):
        total = total * pair[0] + np.sum(pair[1][1])
    return total


def next_with_a_default(params, x):
    layers = iter(params)
    W, b = next(layers, (None, None))
    x = np.tanh(x @ W + b)
    for W, b in layers:
        x = np.tanh(x @ W + b)
    first = next(iter(params), None)
    return np.sum(x) * np.sum(first[1])


@dataclasses.dataclass
class Dense:
    W: np.ndarray
    b: np.ndarray


class DensePair(NamedTuple):
    W: np.ndarray
    b: np.ndarray


def dense_layer(seed=0):
    (W, b), x = layer_list(seed)[0][0], layer_list(seed)[1]
    return Dense(W, b), x


def dense_pair(seed=0):
    (W, b), x = layer_list(seed)[0][0], layer_list(seed)[1]
    return DensePair(W, b), x


def fields_replaced(layer, x):
    wider = dataclasses.replace(layer, W=2.0 * layer.W)
    both = dataclasses.replace(wider, b=np.sin(wider.b), W=wider.W * layer.b[0])
    return np.sum(np.tanh(x @ wider.W + both.b)) + np.sum(both.W**2)


def namedtuple_fields_replaced(layer, x):
    wider = layer._replace(W=2.0 * layer.W)
    return np.sum(np.tanh(x @ wider.W + wider.b)) * np.sum(layer.W)


def joined_to_an_argument(params, x):
    W, b = params[0]
    layers = params + [(W * 2.0, b)]
    total = np.sum(x)
    for W, b in layers[1:]:
        total = total * np.sum(np.tanh(W)) + np.sum(b)
    return total


def dict_copy_written(params, x):
    copied = params.copy()
    copied["W"] = copied["W"] * np.sum(params["b"])
    return np.sum(np.tanh(x @ copied["W"] + copied["b"])) + np.sum(params["W"] ** 2)


# autograd cannot run these (params + [...] of its ListBox nests boxes; its DictBox has no
# copy method): finite differences alone check them
WITHOUT_AUTOGRAD = {
    "params + [(W, b)]": (joined_to_an_argument, three_layers),
    "d.copy(), then written into": (dict_copy_written, dict_params),
}


def square_layers(seed=0):
    """Three 3 x 3 matrices, summable, and an input batch of 5."""
    draw = np.random.default_rng(seed)
    return [0.5 * draw.normal(size=(3, 3)) for _ in range(3)], draw.normal(size=(5, 3))


def sum_of_parameters(params, x):
    return np.sum(np.tanh(x @ sum(params)) ** 2) + np.sum(sum(params, x[0]) ** 3)


def sum_of_generators_over_parameters(params, x):
    total = np.sin(sum(p.sum() for p in params)) * np.sum(x)
    return total + sum(np.sum(W**2) for W, b in zip(params[::2], params[1::2]))


def flatten(params):
    shapes = [p.shape for p in params]
    flat = np.concatenate([p.ravel() for p in params])
    return flat, shapes


def unflatten(flat, shapes):
    out, i = [], 0
    for s in shapes:
        n = int(np.prod(s))
        out.append(flat[i : i + n].reshape(s))
        i = i + n
    return out


def flattened_and_back_by_helpers(params, x):
    flat, shapes = flatten(params)  # shapes: tuples of ints, constant
    W1, b1, W2, b2 = unflatten(np.sin(flat), shapes)
    return np.sum(np.tanh(x @ W1 + b1) @ W2 + b2)


def display_written_by_item(params, x):
    (W1, b1), (W2, b2) = params
    hs = [x @ W1, x @ W1]  # a new list: writing an item changes no array
    for i in range(2):
        hs[i] = np.tanh(hs[i] + b1 * (i + 1))
    return np.sum(hs[0] @ W2 + hs[1] @ W2 + b2)


def last_item_written_from_the_end(params, x):
    states = [None] * 3
    for k in range(3):
        states[k] = np.tanh(x @ params[0][0] * (k + 1) + params[0][1])
    states[-1] = np.sin(states[-2]) @ params[1][0]  # (the list's adjoint: only items read)
    return np.sum(states[0]) + np.sum(states[-1] + params[1][1])


def negative_index_of_a_growing_list(params, x):
    hs = [x]
    for W, b in params:
        h = np.tanh(hs[-1] @ W + b)  # the last item when read, not when differentiated
        hs.append(h)
        hs[-1] = hs[-1] * 2.0
    return np.sum(hs[-1]) + np.sum(hs[-2] ** 2)


def layers_as_star_args(x, *params, scale=1.0):
    for W, b in params:  # wrt=1: the first layer passed, as JAX's argnums counts
        x = np.tanh(x @ W + b)
    return scale * np.sum(x**2) + np.sum(params[0][0] ** 3)


def powers_as_star_args(x, *a):
    return np.sin(a[0] * x) * a[1] ** 3


def layer_as_keywords(x, **params):
    return np.sum(np.tanh(x @ params["W"] + params["b"]) ** 2) + np.sum(params["b"] ** 3)


def reads_a_name_a_keyword_would_hide(x, **terms):
    W = terms["W"]
    return np.sum(x @ W)


# --- the input differentiated, the containers constant (a saliency map) -----------------------


def input_then_square_layers(seed=0):
    draw = np.random.default_rng(seed)
    layers = [(0.5 * draw.normal(size=(3, 3)), draw.normal(size=3)) for _ in range(3)]
    return draw.normal(size=(5, 3)), layers


def three_square_layers(seed=0):
    x, layers = input_then_square_layers(seed)
    return layers, x


def input_then_dict(seed=0):
    draw = np.random.default_rng(seed)
    return draw.normal(size=(5, 3)), {"b": draw.normal(size=3), "a": draw.normal(size=(5, 1))}


def input_through_reversed_layers(x, params):
    for W, b in reversed(params):
        x = np.tanh(x @ W.T + b)
    return np.sum(x**2)


def input_through_reversed_enumerated_layers(x, params):
    for k, (W, b) in reversed(list(enumerate(params))):
        x = np.tanh(x @ W + b) * (k + 1)
    return np.sum(x)


def input_through_the_rest_of_an_iterator(x, params):
    layers = iter(params)
    W, b = next(layers)
    x = np.tanh(x @ W + b)
    for W, b in layers:
        x = np.sin(x @ W + b)
    return np.sum(x)


def input_against_dict_items(x, params):
    total = 0.0
    for name, value in params.items():
        total = total + len(name) * np.sum(np.sin(value * x))
    return total


def written_while_looped_over(params, x):
    pieces = list(params)
    for k, piece in enumerate(pieces):
        pieces[k] = 2.0 * piece
    return sum(np.sum(piece) for piece in pieces) * np.sum(x)


def filtered_layers(params, x):
    for W, b in filter(lambda layer: layer[0].shape[0] == 3, params):  # (the first layer)
        x = np.tanh(x @ W + b)
    return np.sum(x)


def layers_extended_and_repeated_in_place(params, x):
    layers = list(params)
    layers += [(np.tanh(layers[0][0]), 2.0 * layers[0][1])]
    layers *= 2
    h = x
    for W, b in layers[3:5]:
        h = np.tanh(h @ W + b)
    return np.sum(h) * np.sum(layers[-1][0]) * len(layers)


def tuples_extended_and_repeated(params, x):
    pair = (params[0][0], params[0][1])
    pair += (2.0 * pair[1],)
    pair *= 2
    return np.sum(np.tanh(x @ pair[3] + pair[4]) * pair[2]) * len(pair)


def layers_reversed_and_extended(params, x):
    layers = list(params)
    layers.reverse()
    W, b = layers[0]
    layers.extend([(np.tanh(W), 2.0 * b)])
    h = x
    for W, b in layers[1:]:
        h = np.tanh(h @ W + b)
    return np.sum(h) * np.sum(layers[0][0])


def pieces_inserted_popped_and_deleted(params, x):
    pieces = [params[0], params[1]]
    for k in range(2, len(params)):
        pieces.insert(-1, params[k] * np.sum(pieces[-1]))
    last = pieces.pop()  # (a stack's pop, of a list changed otherwise too)
    first = pieces.pop(0)
    del pieces[-1]
    pieces.insert(len(pieces) // 2, np.sin(first))
    return np.sum(last) * sum(np.sum(p**2) for p in pieces) * np.sum(x)


def pieces_cleared_and_refilled(params, x):
    pieces = [np.sum(p) for p in params]
    total = pieces[0] * pieces[1]
    pieces.clear()
    for p in params:
        pieces.insert(0, np.sum(p**2) + total)
    return pieces[0] * pieces[-1] + np.sum(x)


def rows_written_by_item(params, x):
    W1, b1, W2, b2 = params
    grid = [[W1, b1], [W2, b2]]
    grid[0][1] = np.tanh(grid[0][1]) * np.sum(grid[1][1])
    for i in range(2):
        grid[i][-1] = grid[i][-1] ** 2 + np.sum(grid[1 - i][0])
    h = np.tanh(x @ grid[0][0] + grid[0][1])
    return np.sum(h @ grid[1][0] + grid[1][1])


def list_of_rows_read_by_item_and_whole(params, x):
    sums = [[np.sum(params[0]), np.sum(params[1])], [np.sum(params[2]), np.sum(params[3])]]
    sums[1][0] = sums[0][1] * 3.0
    first = sums[0]  # (after the last write: reads the rows it then holds)
    return sums[0][0] * sums[1][1] + np.sum(np.array(sums) ** 2) * first[1] + np.sum(x)


def pieces_popped_from_the_front_while_any(params, x):
    pieces = list(params)
    total = np.sum(x)
    while pieces:
        piece = pieces.pop(0)
        total = np.tanh(total) * np.sum(piece**2)
    return total


def pieces_sorted_in_place(params, x):
    sums = [np.sum(p**2) for p in params]
    sums.sort(reverse=True)
    pieces = list(params)
    pieces.sort(key=lambda p: p.size)
    return sums[0] * sums[-1] + np.sum(pieces[0]) * np.sum(pieces[-1] * np.sum(x))


def items_put_back_where_popped(params, x):
    pieces = [np.sum(p) for p in params]
    pieces[0] = pieces.pop(0)  # (pops first: the list written into is the shorter one)
    pieces[-1] = pieces.pop(1)
    return pieces[0] * pieces[1] ** 2 + pieces[-1] * len(pieces) * np.sum(x)


def dicts_of_layers(seed=0):
    """{'hidden': {'W', 'b'}, 'blocks': [{'W', 'b'}, {'W', 'b'}], 'head': {'W', 'b'}}."""
    ((W1, b1), _, (W3, b3)), x = three_layers(seed)
    draw = np.random.default_rng(seed + 1)
    blocks = [{"W": 0.5 * draw.normal(size=(4, 4)), "b": draw.normal(size=4)} for _ in range(2)]
    return {"hidden": {"W": W1, "b": b1}, "blocks": blocks, "head": {"W": W3, "b": b3}}, x


def dicts_of_layers_without_blocks(seed=0):
    params, x = dicts_of_layers(seed)
    return dict(params, blocks=[]), x


def dict_of_dicts(params, x):  # params["hidden"]["W"] read twice
    h = np.tanh(x @ params["hidden"]["W"] + params["hidden"]["b"])
    out = h @ params["head"]["W"] + params["head"]["b"]
    return np.sum(out**2) + np.sum(params["hidden"]["W"] ** 2)


def list_of_dicts_in_a_loop(params, x):
    h = np.tanh(x @ params["hidden"]["W"] + params["hidden"]["b"])
    for i in range(len(params["blocks"])):
        h = h + np.sin(h @ params["blocks"][i]["W"] + params["blocks"][i]["b"])
    return np.sum(h @ params["head"]["W"] + params["head"]["b"])


def dict_block(p, h):
    return h + np.sin(h @ p["W"] + p["b"]) * p["b"]


def dict_blocks_through_a_callee_twice(params, x):
    h = np.tanh(x @ params["hidden"]["W"] + params["hidden"]["b"])
    for i in range(len(params["blocks"])):
        for _ in range(2):
            h = dict_block(params["blocks"][i], h)
    return np.sum(h @ params["head"]["W"]) * np.sum(params["head"]["b"])


def key_read_in_and_outside_a_loop(params, x):
    total = np.sum(x @ params["W"]) * params["W"][0, 0]
    for k in range(len(x) - 3):  # (twice; none, for x of 3 rows)
        total = total + np.sum(np.sin(params["W"] * k + params["b"]))
    return total + np.sum(params["b"] ** 2)


def dict_params_three_rows(seed=0):
    params, x = dict_params(seed)
    return params, x[:3]


def pieces_deleted_by_slices(params, x):
    pieces = [np.sum(p**2) for p in params] + [np.sum(x)]
    del pieces[1:3]
    del pieces[-1:]
    del pieces[len(pieces) - 1 : 0]  # (bounds out of order: deletes nothing)
    return pieces[0] * pieces[-1] + len(pieces) * pieces[1]


def pieces_deleted_by_a_stepped_slice(params, x):
    pieces = list(params)
    del pieces[::2]
    return np.sum(pieces[0] * np.sum(x)) + np.sum(pieces[-1] ** 2)


def pieces_removed_by_value(params, x):
    sums = [np.sum(p) for p in params]
    sums.remove(sums[2])  # (the first item equal to it)
    pieces = list(params)
    pieces.remove(pieces[0])  # (the first item: list.remove compares no array with ==)
    return sums[0] * sums[2] + np.sum(pieces[0] * np.sum(x))


def pieces_removed_that_are_not_there(params, x):
    sums = [np.sum(p) for p in params]
    sums.remove(-123.0)
    return sums[0] * np.sum(x)


def items_deleted_from_a_dict(params, x):
    grads = {"W": params[0], "b": params[1]}
    del grads["b"]  # refused: a dict changed in place
    return np.sum(grads["W"]) * np.sum(x)


CASES = {
    "list of pairs built with append, one read": (appended_pairs_read_by_index, layer_list),
    "dict display of differentiated values, nested": (dict_display_of_layers, layer_list),
    "(W, b), *middle, last = params": (first_middle_last, three_layers),
    "nested tuple targets": (nested_unpacking, three_layers),
    "loop target nested two deep": (loop_over_nested_targets, three_layers),
    "sorted(d.items()), lists and tuples in a dict": (dict_items_and_values, nested_model),
    "for part in d.values()": (loop_over_dict_values, nested_model),
    "tuple(generator), list(zip(...))": (tuple_and_list_of_generators, three_layers),
    "dict([(key, value), ...])": (dict_of_pairs, layer_list),
    "enumerate(zip(*zip(*params)))": (enumerate_zip_star, three_layers),
    "next(it), then a loop over the rest": (next_then_the_rest, three_layers),
    "generators (yield, yield from, return) looped over": (generators_looped_over, three_layers),
    "a local generator summed": (local_generator, three_layers),
    "dict(zip(sorted(params), pieces))": (dict_of_keys_counted_as_it_runs, dict_params),
    "for key in params: params[key]": (loop_over_dict_keys, dict_params),
    "for k, key in enumerate(params): params[key]": (enumerated_dict_keys, dict_params),
    "list(params), tuple(params) of a dict": (list_and_tuple_of_dict_keys, dict_params),
    "flatten with comprehensions and np.concatenate": (flatten_with_comprehensions, layer_list),
    "reversed(list(enumerate(params)))": (reversed_enumerated_layers, three_square_layers),
    "states = [None] * n; states[k] = x": (states_written_into_a_list, layer_list),
    "unflatten helper reading shapes from params": (unflattened_by_a_helper, leaf_list),
    "sum(params), sum(params, start)": (sum_of_parameters, square_layers),
    "sum(p.sum() for p in params), sum(np.sum(W ** 2) for W, b in ...)": (
        sum_of_generators_over_parameters,
        leaf_list,
    ),
    "flat, shapes = flatten(params); unflatten(flat, shapes)": (
        flattened_and_back_by_helpers,
        leaf_list,
    ),
    "hs = [a, a]; hs[i] = h": (display_written_by_item, layer_list),
    "states[-1] = v, states' adjoint holding only items read": (
        last_item_written_from_the_end,
        layer_list,
    ),
    "hs[-1] of a list that grows (append), read and written": (
        negative_index_of_a_growing_list,
        layer_list,
    ),
    "sorted(params, key=lambda ...)": (layers_sorted_by_a_key, layer_list),
    "sorted(params), sorted(array), of items": (items_sorted, numbers_and_a_vector),
    "max(params), min(array), max(..., key=...), of items": (
        items_at_extremes,
        numbers_and_a_vector,
    ),
    "enumerate(sorted(d)), zip(reversed(sorted(d)), ...), of keys": (
        dict_keys_enumerated_and_zipped,
        dict_params,
    ),
    "x through reversed(params), constant": (
        input_through_reversed_layers,
        input_then_square_layers,
    ),
    "x through reversed(list(enumerate(params))), constant": (
        input_through_reversed_enumerated_layers,
        input_then_square_layers,
    ),
    "x through the rest of iter(params), constant": (
        input_through_the_rest_of_an_iterator,
        input_then_square_layers,
    ),
    "x against d.items(), constant": (input_against_dict_items, input_then_dict),
    "[*params, extra], (*params[1:], *params)": (starred_displays, layer_list),
    "list(params) + [(W, b)]": (joined_with_plus, three_layers),
    "{**d, 'W': v}, dict(d, c=v)": (dict_displays_unpacking, dict_params),
    "dict(sorted(d.items())), dict(d), list(d.values())": (dicts_copied, dict_params),
    "grads = {}; grads[key] = v": (dict_written_key_by_key, dict_params),
    "layers = list(params); layers[k] = (W, b)": (list_copy_written, three_square_layers),
    "Ws, bs = list(zip(*pairs)), for a, b in tuple(zip(*pairs))": (unzipped_with_list, layer_list),
    "pieces[k] = v in a loop over enumerate(pieces)": (written_while_looped_over, leaf_list),
    "columns = list(zip(*params)), for column in zip(*params)": (
        columns_counted_as_it_runs,
        layer_list,
    ),
    "enumerate(params, start=2), enumerate(params, 1)": (enumerated_from_two, three_layers),
    "next(it, default), next(iter(params), None)": (next_with_a_default, three_square_layers),
    "layers.reverse(), layers.extend([...])": (layers_reversed_and_extended, layer_list),
    "layers += [...], layers *= 2": (layers_extended_and_repeated_in_place, layer_list),
    "for W, b in filter(lambda layer: ..., params)": (filtered_layers, layer_list),
    "pair += (v,), pair *= 2 of a tuple": (tuples_extended_and_repeated, layer_list),
    "pieces.insert(k, v), .pop(), .pop(0), del pieces[-1]": (
        pieces_inserted_popped_and_deleted,
        leaf_list,
    ),
    "pieces.clear(), then insert(0, v) in a loop": (pieces_cleared_and_refilled, leaf_list),
    "sums.sort(reverse=True), pieces.sort(key=...)": (pieces_sorted_in_place, leaf_list),
    "pieces[0] = pieces.pop(0)": (items_put_back_where_popped, leaf_list),
    "del pieces[a:b], del pieces[-1:], out of order": (pieces_deleted_by_slices, leaf_list),
    "del pieces[::2]": (pieces_deleted_by_a_stepped_slice, leaf_list),
    "sums.remove(v), pieces.remove(pieces[0])": (pieces_removed_by_value, leaf_list),
    "while pieces: piece = pieces.pop(0)": (pieces_popped_from_the_front_while_any, leaf_list),
    "grid[i][j] = v, a list of row displays": (rows_written_by_item, leaf_list),
    "rows[i][j] = v, then np.array(rows) and rows[i][j]": (
        list_of_rows_read_by_item_and_whole,
        leaf_list,
    ),
    "dataclasses.replace(layer, W=v)": (fields_replaced, dense_layer),
    "namedtuple's layer._replace(W=v)": (namedtuple_fields_replaced, dense_pair),
    "dict of dicts, a key read twice": (dict_of_dicts, dicts_of_layers),
    "list of dicts read in a loop": (list_of_dicts_in_a_loop, dicts_of_layers),
    "list of dicts read in a loop that runs no times": (
        list_of_dicts_in_a_loop,
        dicts_of_layers_without_blocks,
    ),
    "list of dicts through a callee, in nested loops": (
        dict_blocks_through_a_callee_twice,
        dicts_of_layers,
    ),
    "a key read in and outside a loop": (key_read_in_and_outside_a_loop, dict_params),
    "a key read in a loop that runs no times, and outside it": (
        key_read_in_and_outside_a_loop,
        dict_params_three_rows,
    ),
}


# --- what srcdiff refuses, at the line, saying what to write ------------------------------------


def zip_star_with_one_more(params, x):
    columns = list(zip(*params, [x, x]))  # refused: the pieces and one more
    return np.sum(columns[0][0])


def next_under_a_condition(params, x):
    layers = iter(params)
    W, b = next(layers)
    if np.sum(x) > 0:
        W, b = next(layers)  # refused: which item this is depends on the data
    return np.sum(x @ W + b)


ACTIVATIONS = {"tanh": np.tanh, "sin": np.sin}


def functions_picked_in_a_loop(params, x):
    for (W, b), name in zip(params, ["tanh", "sin"]):
        x = ACTIVATIONS[name](x @ W + b)  # refused: which function is known at run time
    return np.sum(x)


def next_of_a_generator(params, x):
    pieces = pieces_of(params)  # refused: not every item is looped over
    return np.sum(next(pieces)) + np.sum(x)


def sorted_values(params, x):
    # taken for a sort of items (nothing in the code says params is a dict): a dict fails the
    # check as it runs
    return sum(np.sum(v) for v in sorted(params)) + np.sum(x)


def next_after_the_rest(params, x):
    layers = iter(params)
    W, b = next(layers)
    for W, b in layers:
        x = np.tanh(x @ W + b)
    last = next(layers, None)  # refused: the loop took the rest
    return np.sum(x) + (0.0 if last is None else 1.0)


def dict_held_by_another_name(params, x):
    named = {}
    also = named
    named["W"] = 2.0 * params["W"]  # refused: `also` sees the change
    return np.sum(also["W"] * x[0, 0])


def list_reversed_while_another_name_holds_it(params, x):
    layers = list(params)
    also = layers
    layers.reverse()  # refused: `also` sees the change
    return np.sum(also[0][0]) * np.sum(x)


def row_written_while_another_name_holds_it(params, x):
    grid = [[params[0], params[1]], [params[2], params[3]]]
    row = grid[0]
    grid[0][1] = 2.0 * grid[0][1]  # refused: `row` sees the change
    return np.sum(row[1]) * np.sum(x)


def popped_within_an_expression(params, x):
    pieces = list(params)
    total = np.sum(pieces.pop(0)) * np.sum(x)  # refused: a change in place within an expression
    return total + np.sum(pieces[0])


def joined_in_a_branch(params, x):
    layers = [*params, x] if np.sum(x) > 0 else params  # refused: built before the test
    return sum(np.sum(layer) for layer in layers)


ERRORS = {
    "next(generator)": (
        next_of_a_generator,
        layer_list,
        "pieces_of is a generator",
        "loop over the generator here",
    ),
    "zip(*pieces, more)": (
        zip_star_with_one_more,
        layer_list,
        "srcdiff follows zip(*pieces) alone",
        "index the pieces: zip(pieces[0], pieces[1], more)",
    ),
    "next(it) under a condition": (
        next_under_a_condition,
        layer_list,
        "srcdiff follows layers = iter(...) only into next(layers)",
        "index the sequence instead",
    ),
    "ACTIVATIONS[name], name a loop's": (
        functions_picked_in_a_loop,
        layer_list,
        "a value known only at run time",
        "pick it by a constant key (ACTIVATIONS['relu'])",
    ),
    "next(it) after the loop over the rest": (
        next_after_the_rest,
        layer_list,
        "then at most a loop over the rest",
        "index the sequence instead",
    ),
    "a dict written into while another name holds it": (
        dict_held_by_another_name,
        dict_params,
        "writing into 'named' changes 'also' too",
        "copy before writing",
    ),
    "a list reversed while another name holds it": (
        list_reversed_while_another_name_holds_it,
        layer_list,
        "layers.reverse() changes a value in place",
        "assign a new value instead",
    ),
    "a row written into while another name holds it": (
        row_written_while_another_name_holds_it,
        leaf_list,
        "writing into grid[0] changes a row of the list 'grid' in place",
        "read its rows by item until then, or replace the row (grid[0] = [...])",
    ),
    "pieces.pop(0) within an expression": (
        popped_within_an_expression,
        leaf_list,
        "pieces.pop(...) changes a value in place, which srcdiff follows only in a statement",
        "call it on a line of its own",
    ),
    "del d[k] of a differentiated dict": (
        items_deleted_from_a_dict,
        layer_list,
        "del grads['b'] changes a differentiated value in place",
        "d = {key: v for key, v in d.items() if key != k}",
    ),
    "[*params, x] in a branch of a conditional expression": (
        joined_in_a_branch,
        leaf_list,
        "joined in a branch of a conditional expression",
        "join it on a line of its own, under an if statement",
    ),
}
