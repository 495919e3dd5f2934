"""Python as people write it (issue 16): one small function per construct, and CASES, the
table tests/test_python_constructs.py differentiates them by."""

import collections
import contextlib
import functools
import logging
import math
import operator
import typing
import warnings
from dataclasses import dataclass

import numpy as np

log = logging.getLogger(__name__)


def arrays(*shapes, seed=0):
    draw = np.random.default_rng(seed)
    return [0.5 * draw.normal(size=shape) for shape in shapes]


def layer_list(seed=0):
    """[(W, b), (W, b)]: two dense layers, 3 -> 4 -> 2."""
    W1, b1, W2, b2 = arrays((3, 4), 4, (4, 2), 2, seed=seed)
    return [(W1, b1), (W2, b2)]


def softplus(x):
    return np.logaddexp(0.0, x)


# --- functions defined inside the differentiated function -------------------------------------


def inner_def_closing_over_parameters(w, x):
    def predict(inputs):
        return np.tanh(inputs @ w)

    return np.sum(predict(x) ** 2)


def inner_defs_calling_each_other(w, x):
    def hidden(inputs):
        return np.tanh(inputs @ w)

    def output(inputs):
        return np.sum(hidden(inputs) ** 2)

    return output(x) + output(2 * x)


def inner_def_called_in_a_loop(w, x):
    def step(h):
        return np.tanh(h @ w)

    h = x
    for _ in range(3):
        h = step(h)
    return np.sum(h)


def inner_def_of_parameters_and_argument(w, x):
    def dense(W, inputs):
        return np.sin(inputs @ W)

    return np.sum(dense(w, x) * dense(w, -x))


def lambda_assigned_to_a_name(w, x):
    act = lambda z: z * np.tanh(z)  # noqa: E731 (people write it)
    return np.sum(act(x @ w))


def lambda_closing_over_parameters(w, x):
    predict = lambda inputs: np.tanh(inputs @ w)  # noqa: E731
    return np.sum(predict(x) ** 2)


def make_dense(W):
    def dense(inputs):
        return np.tanh(inputs @ W)

    return dense


def closure_made_by_a_module_function(w, x):
    layer = make_dense(w)
    return np.sum(layer(x))


def closure_made_inside(w, x):
    def make_scaled(scale):
        def scaled(z):
            return scale * np.sin(z)

        return scaled

    return np.sum(make_scaled(np.sum(w))(x))


def inner_def_accumulating_into_a_list(w, x):
    total = [0.0]  # (forward mode: its tangent is a list, sliced as the item write rebuilds it)

    def add(v):
        total[0] = total[0] + v

    for v in np.tanh(x @ w).ravel():
        add(v)
    return total[0] ** 2


# --- functions as values --------------------------------------------------------------------------


def apply_activation(w, x, activation):
    return np.sum(activation(x @ w))


def activation_default(w, x, activation=np.tanh):
    return np.sum(activation(x @ w))


def unused_function_default(w, x, activation=np.tanh):
    return np.sum(np.sin(x @ w))


def squared_norm(a):
    return np.sum(a**2)


def map_over_parameters(w, x):
    return sum(map(squared_norm, [w, x @ w]))


def map_a_numpy_function(w, x):
    return np.sum(np.stack(list(map(np.tanh, [w, 2.0 * w]))))


def scaled_softplus(z, beta):
    return np.logaddexp(0.0, beta * z) / beta


SHARP_SOFTPLUS = functools.partial(scaled_softplus, beta=3.0)


def global_partial_called(w, x):
    return np.sum(SHARP_SOFTPLUS(x @ w) ** 2)


def functools_partial(w, x):
    act = functools.partial(scaled_softplus, beta=2.0)
    return np.sum(act(x @ w))


def reduce_with_a_lambda(w, x):
    return functools.reduce(lambda acc, row: acc + np.sum(np.tanh(row @ w)) ** 2, x, 0.0)


def accumulate(acc, h):
    return acc * np.tanh(h)


def reduce_with_a_function_and_no_start(w, x):
    h = x @ w
    total = functools.reduce(accumulate, [h, 2 * h, h + 1.0])
    return np.sum(total) + np.sum(functools.reduce(np.multiply, h[:3] + 1.0))


ACTIVATIONS = {"tanh": np.tanh, "softplus": softplus}


def function_from_a_dict(w, x, name):
    act = ACTIVATIONS[name]
    return np.sum(act(x @ w))


def activated(w, x, nonlinearity):
    return nonlinearity(x @ w)


def function_from_a_dict_passed_on(w, x, name):
    act = ACTIVATIONS[name]
    return np.sum(activated(w, x, act) ** 2)


LAYERS = {"hidden": [np.tanh, softplus], "out": {"act": np.sin}}


def functions_by_constant_keys(w, x):
    act = ACTIVATIONS["softplus"]  # (a name bound once to a function: an alias of it)
    h = act(x @ w) + LAYERS["hidden"][-1](x @ w)
    return np.sum(LAYERS["out"]["act"](h) * np.tanh(h))


def function_from_a_list_by_a_parameter(w, x, k):
    return np.sum(LAYERS["hidden"][k](x @ w))


def local_alias_of_a_function(w, x):
    squash = np.tanh
    return np.sum(squash(x @ w) ** 2)


def functions_from_a_list(w, x):
    h = x @ w
    for act in [np.tanh, np.sin, softplus]:
        h = act(h)
    return np.sum(h)


def functions_from_local_displays(w, x):
    acts = {"hidden": np.sin, "out": softplus}
    stack = [np.tanh, softplus]
    h = acts["hidden"](x @ w)
    for act in stack:
        h = act(h)
    return np.sum(acts["out"](h) + stack[-1](h))


def weighted_terms(**terms):
    return terms["data"] * 2.0 + terms["penalty"]


def layer(x, w, *, act=np.tanh, scale=1.0):
    return act(scale * (x @ w))


def keywords_packed_and_spread(w, x):
    options = {"act": softplus, "scale": 0.5}
    h = layer(x, w, **options)
    return weighted_terms(data=np.sum(h**2), penalty=np.sum(w**2))


def spreads_a_list_into_args(w, x):
    parts = [w, np.tanh(x @ w)]
    return total_of(*parts) + total_of(*(w, x @ w), w)


LAYERS_OF_ACTIVATIONS = (np.sin, softplus, np.tanh)


def functions_from_a_global_tuple(w, x):
    h = x @ w
    for act in LAYERS_OF_ACTIVATIONS:
        h = act(h) * 1.5
    return np.sum(h)


activation_alias = np.tanh


def global_alias_of_a_function(w, x):
    return np.sum(activation_alias(x @ w))


# --- containers of parameters ---------------------------------------------------------------------


def for_pairs_in_list(params, x):
    for W, b in params:
        x = np.tanh(x @ W + b)
    return np.sum(x)


def for_layer_then_unpack(params, x):
    for layer in params:
        W, b = layer
        x = np.tanh(x @ W + b)
    return np.sum(x)


def for_pairs_in_slice_then_last(params, x):
    for W, b in params[:-1]:
        x = np.tanh(x @ W + b)
    W, b = params[-1]
    return np.sum(x @ W + b)


def for_pairs_in_reversed(params, x):
    total = 0.0
    for W, b in reversed(params):
        total = total + np.sum(W**2) * np.sum(b)
    return total + np.sum(x)


def enumerate_pairs(params, x):
    total = 0.0
    for i, (W, b) in enumerate(params):
        total = total + (i + 1) * np.sum(np.sin(W)) + np.sum(b**2)
    return total


def zip_parameters_with_masks(params, masks):
    total = 0.0
    for (W, b), mask in zip(params, masks):
        total = total + np.sum((W * mask) ** 2) + np.sum(b)
    return total


def zip_star_pairs(params, x):
    Ws, bs = zip(*params)
    return sum(np.sum(W**2) for W in Ws) + sum(np.sum(np.sin(b)) for b in bs)


def len_and_index_from_the_end(params, x):
    for i in range(len(params) - 1):
        W, b = params[i]
        x = np.tanh(x @ W + b)
    return np.sum(x @ params[-1][0] + params[-1][1])


def starred_assignment(params, x):
    *hidden, (W_out, b_out) = params
    for W, b in hidden:
        x = np.tanh(x @ W + b)
    return np.sum(x @ W_out + b_out)


def list_of_parameters(params, x):
    layers = list(params)
    W, b = layers[0]
    return np.sum(np.tanh(x @ W + b))


def iter_and_next(params, x):
    layers = iter(params)
    W, b = next(layers)
    return np.sum(np.tanh(x @ W + b))


def sorted_keys(params, x):
    total = 0.0
    for key in sorted(params):
        total = total + np.sum(params[key] ** 2)
    return total * np.sum(x)


def values_and_items_of_a_dict(params, x):
    sizes = sum(np.sum(v**2) for v in params.values())
    return sizes * np.sum(x @ params["w"]) + sum(np.sum(v) * len(k) for k, v in params.items())


def dict_updated(params, x):
    layer = {"w": params["w"] * 2}
    layer.update({"b": np.tanh(params["b"])})
    layer.update(scale=np.sum(x**2))
    return np.sum((x @ layer["w"] + layer["b"]) ** 2) * layer["scale"]


def dict_comprehension(params, x):
    scaled = {k: v * (i + 1) for i, (k, v) in enumerate(params.items())}
    squares = {i: np.sum(x[i] ** 2) for i in range(len(x)) if i != 1}
    return np.sum(np.tanh(x @ scaled["w"] + scaled["b"])) * squares[0] + squares[2]


def dict_of_zip(params, x):
    keys = ["w", "b"]
    named = dict(zip(keys, params))
    return np.sum(np.tanh(x @ named["w"] + named["b"]))


def dict_call_with_keywords(params, x):
    named = dict(w=params[0], b=params[1])
    return np.sum(np.tanh(x @ named["w"] + named["b"]))


def helper_returns_appended_list(w, x):
    hiddens = []
    h = x
    for _ in range(3):
        h = np.tanh(h @ w)
        hiddens.append(h)
    return hiddens


def list_from_a_helper_read_by_index(w, x):
    hiddens = helper_returns_appended_list(w, x)
    return np.sum(hiddens[0]) + np.sum(hiddens[2] ** 2)


def list_of_constant_and_differentiated_stacked(w, x):
    values = [x]
    values.append(np.sin(w * x))
    return np.sum(np.stack(values) ** 2)


def concatenate_a_tuple_sum(w, x):
    parts = (x @ w, np.tanh(x @ w))
    return np.sum(np.concatenate(parts + (np.ones((x.shape[0], 1)),), axis=1) ** 2)


def sum_of_a_generator_over_zip(w, x):
    outputs = [np.tanh(x @ w), np.sin(x @ w)]
    targets = [x[:, :2], x[:, 1:]]
    return sum(np.sum(out * target) for out, target in zip(outputs, targets))


def pieces_of(params):
    for layer in params:
        for piece in layer:
            yield piece


def user_generator_of_pieces(params, x):
    total = 0.0
    for piece in pieces_of(params):
        total = total + np.sum(piece**2)
    return total


# --- objects --------------------------------------------------------------------------------------

Layer = collections.namedtuple("Layer", ["W", "b"])


class TypedLayer(typing.NamedTuple):
    W: np.ndarray
    b: np.ndarray


@dataclass
class DataLayer:
    W: np.ndarray
    b: np.ndarray


def field_reads(layer, x):
    return np.sum(np.tanh(x @ layer.W + layer.b))


def namedtuples_made_in_a_comprehension(params, x):
    layers = [Layer(W, b) for W, b in params]
    h = x
    for layer in layers:
        h = np.tanh(h @ layer.W + layer.b)
    return np.sum(h**2)


@dataclass
class CallableLayer:  # (a dataclass with eq: unhashable)
    W: np.ndarray
    b: np.ndarray

    def __call__(self, x):
        return np.tanh(x @ self.W + self.b)

    def loss(self, x):
        return np.sum(self(x) ** 2)


def layer_called(layer, x):
    return np.sum(layer(x) ** 2) + layer.loss(x)


def through_a_constant_layer(x, layer):
    return np.sum(np.sin(layer(x)))


CALLABLE_LAYER = CallableLayer(*arrays((3, 2), 2, seed=2))


def through_a_global_callable_layer(x):
    return np.sum(CALLABLE_LAYER(x) ** 2)


@dataclass(frozen=True)
class Settings:
    scale: float = 0.5


SETTINGS = Settings()


def attribute_of_a_constant_object(w, x):
    return SETTINGS.scale * np.sum(np.tanh(x @ w))


class Model:
    def __init__(self, scale):
        self.scale = scale

    def loss(self, w, x):
        return self.scale * np.sum(np.tanh(x @ w))

    def predict(self, w, x):
        return np.tanh(self.scale * (x @ w))


MODEL = Model(0.5)


class Fitted:
    def __init__(self, w):
        self.w = w

    def loss(self, x):
        return np.sum(np.tanh(x @ self.w) ** 2)


def method_of_an_object_made_there(w, x):
    return Fitted(w * 2).loss(x) + Model(np.sum(w)).loss(w, x) * Fitted(w).loss(x)


def method_of_a_constant_object(w, x):
    return np.sum(MODEL.predict(w, x) ** 2)


# --- calling conventions --------------------------------------------------------------------------


def columns_product(B, columns):
    a = B[:, columns[0]]
    for c in columns[1:]:
        a = a * B[:, c]
    return np.sum(a)


def int_array_loop_in_a_callee(B, columns):
    return columns_product(B, columns)


def sizes_of(a):
    return (a.shape[0],)


def callee_returning_a_tuple_of_constants(w, x):
    (rows,) = sizes_of(x @ w)  # (activity's fixed point once never ended here)
    sizes = sizes_of(w)
    return np.sum(np.tanh(x @ w)) / rows + sizes[0] * np.sum(w**2)


def total_of(*values):
    return sum(np.sum(v**2) for v in values)


def star_args_callee(w, x):
    return total_of(w, x @ w)


def weighted(a, **weights):
    return np.sum(a**2) * weights["scale"]


def star_kwargs_callee(w, x):
    return weighted(x @ w, scale=2.0)


def dense_with_options(h, W, act=np.tanh, **opts):
    return act(h @ W) * opts.get("scale", 1.0)


def callee_with_a_function_default_and_options(w, x):
    # (was "cannot differentiate through dense_act0(...)": a name of srcdiff's)
    return np.sum(dense_with_options(x, w, scale=0.5) ** 2) + np.sum(dense_with_options(x, w))


def dense(x, W, scale=1.0):
    return np.tanh(scale * (x @ W))


def callee_default_left_out(w, x):
    return np.sum(dense(x, w))


def callee_called_with_keywords(w, x):
    return np.sum(dense(x, W=w, scale=0.5))


def dense_kwonly(x, W, *, scale):
    return np.tanh(scale * (x @ W))


def keyword_only_callee(w, x):
    return np.sum(dense_kwonly(x, w, scale=0.5))


def splat_call(w, x):
    pair = (x, w)
    return np.sum(dense(*pair))


squared = lambda z: z**2  # noqa: E731 (as users write them)
LAMBDAS = {
    "soft": lambda z: np.log1p(
        np.exp(z)  # (a lambda over two lines)
    ),
    "lin": lambda z: 2 * z,
}
scaled, shifted = (lambda z, k=3.0: k * z), (lambda z: z + 1.0)


def module_lambdas(w, x):
    h = LAMBDAS["soft"](x @ w)
    return np.sum(squared(h) + LAMBDAS["lin"](h) * scaled(shifted(h)))


def tries_a_cholesky(w, x):
    total = 0.0
    for shift in (1.0, -10.0):  # positive definite, then not (w @ w.T has rank 2): both paths
        K = w @ w.T + shift * np.eye(3)
        try:
            L = np.linalg.cholesky(K)
        except np.linalg.LinAlgError:
            L = np.linalg.cholesky(K + 20.0 * np.eye(3))
        except (ValueError, TypeError) as error:  # noqa: F841 (a name unread is allowed)
            raise RuntimeError("not a matrix")
        else:
            L = 2.0 * L
        total = total + np.sum(np.tanh(x @ L))
    return total


def assignment_expressions(w, x):
    if (total := np.sum(np.tanh(x @ w))) > 100.0:
        return total
    scaled = (h := np.sin(x @ w)) * 2 + np.sum(h)
    for row in scaled:
        if (top := np.max(row)) > 0.1:
            total = total + top
    return total * np.sum(scaled)


def operator_functions(w, x):
    terms = [x @ w, np.tanh(x @ w), operator.neg(x @ w)]
    total = functools.reduce(operator.add, terms)
    products = list(map(operator.mul, terms, terms[::-1]))
    return np.sum(operator.truediv(total, 2.0) ** 2) + np.sum(operator.getitem(products, 1))


@np.vectorize
def vectorized_step(v):
    return v * v if v > 0 else 0.5 * v


def vectorized_functions(w, x):
    h = x @ w
    return np.sum(vectorized_step(h)) + np.sum(np.vectorize(np.tanh)(h) * h)


def above_a_half_below(v):
    return v > -0.5


def filtered_items(w, x):
    h = np.tanh(x @ w).ravel()
    kept = list(filter(above_a_half_below, h))
    return sum(kept) * np.sum(np.array(list(filter(None, [h[0], 0.0, h[1]]))) ** 2)


def running_mean_kept_for_the_caller(w, x, bn_param):
    h = x @ w
    mu = np.mean(h, axis=0)
    momentum = bn_param["momentum"]
    out = (h - mu) / np.sqrt(np.var(h, axis=0) + 1e-5)
    # (as CS231n's batchnorm_forward: the caller's dict changed, read no more in f)
    bn_param["running_mean"] = momentum * bn_param["running_mean"] + (1 - momentum) * mu
    return np.sum(np.tanh(out) * out[0])


def math_in_scalar_code(w, x):
    size = float(np.sum(w**2)) + 1.0
    return math.log(size, 10) * math.sqrt(size) + math.atan2(math.tanh(size), 2.0) * np.sum(x @ w)


def tanh_layer(W, b, x):
    return np.tanh(x @ W + b)


def pairs_spread_into_calls(w, x):
    params = [(w, np.ones(2)), (np.ones((2, 2)) * w[0], w[1])]

    def scaled(W, b, h):
        return 0.5 * (h @ W + b)

    h = x
    for p in params:
        h = tanh_layer(*p, h) + scaled(*p, h)
    return np.sum(h**2)


def weighs_a_pair(pair, x):
    first, second = pair
    return np.sum(np.tanh(x @ first) * second)


def displays_passed_to_a_user_function(w, x):
    total = weighs_a_pair([w, 2.0], x) + weighs_a_pair(pair=(w * w, w[0]), x=x)
    for k in range(2):
        total = total + weighs_a_pair([np.sin(w), w[k]], x)
    return total


def defaults_of_the_differentiated_function(w, x, scale=0.5, *, offset=1.0):
    return np.sum(np.tanh(scale * (x @ w) + offset))


def builtin_max_min_of_several(w, x):
    a, b, c = np.sum(w), np.sum(x**2), np.sum(np.tanh(x @ w))
    return max(a, b, c) + min([a * b, c, b]) * max((c, a))


def builtin_pow(w, x):
    return pow(np.sum(w**2) + 1.0, 0.5) * np.sum(pow(np.tanh(x @ w), 3))


def imports_inside(w, x):
    import numpy as np
    from scipy.special import logsumexp as lse
    import scipy.special
    from scipy import special

    h = x @ w
    return lse(np.tanh(h)) + np.sum(scipy.special.expit(h)) + np.sum(special.softplus(h))


def blocks_of_a_nested_list(w, x):
    h = x @ w
    grid = np.block([[h, np.tanh(h)], [np.ones((1, 2)), h[:1] ** 2]])
    return np.sum(np.sin(grid) ** 2) + np.sum(np.block([w[0], 2.0, np.cos(w[1])]))


# --- statements that do not change values ---------------------------------------------------------


def prints_a_value(w, x):
    y = np.tanh(x @ w)
    print("y is", np.sum(y))
    return np.sum(y**2)


def prints_under_a_condition(w, x):
    y = np.tanh(x @ w)
    if np.sum(y) > 100.0:
        print("large:", np.sum(y))
    return np.sum(y**2)


def logs_a_value(w, x):
    y = np.tanh(x @ w)
    log.debug("sum of y: %s", np.sum(y))
    return np.sum(y**2)


LOSSES = []


class Recorder:
    def __init__(self):
        self.seen = []

    def record(self, value):
        self.seen.append(value)


RECORDER = Recorder()


def records_values(w, x):
    y = np.tanh(x @ w)
    LOSSES.append(float(np.sum(y)))
    RECORDER.record(y)
    return np.sum(y**2)


def history_kept_and_never_read(w, x, history=None):
    hist, losses = [], {"train": []}
    h = x @ w
    for step in range(3):
        h = np.tanh(h)
        loss = np.sum(h**2)
        hist.append(loss)
        if step % 2 == 0:
            losses["train"].append(loss)
    if history is not None:
        history.append(loss)
    return loss


def asserts(w, x):
    assert w.shape[0] == x.shape[1], "shapes do not match"
    y = np.tanh(x @ w)
    assert np.all(np.isfinite(y))
    return np.sum(y**2)


def with_errstate(w, x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(np.exp(x @ w))
    return np.sum(y**2)


def with_contexts_named(w, x):
    # (the names bound, unread, are what this case is about)
    with np.errstate(divide="ignore") as state, contextlib.nullcontext() as nothing:  # noqa: F841
        y = np.log(np.exp(x @ w))
    with warnings.catch_warnings(record=True) as caught:  # noqa: F841
        y = np.tanh(y)
    return np.sum(y**2)


def with_catch_warnings(w, x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = np.tanh(x @ w)
    return np.sum(y**2)


def with_nullcontext(w, x):
    with contextlib.nullcontext():
        y = np.tanh(x @ w)
    return np.sum(y**2)


def try_finally(w, x):
    try:
        y = np.tanh(x @ w)
    finally:
        log.debug("done")
    return np.sum(y**2)


def raise_under_a_condition(w, x):
    if x.shape[1] != w.shape[0]:
        raise ValueError("x and w do not fit")
    return np.sum(np.tanh(x @ w) ** 2)


def warns_under_a_condition(w, x):
    y = np.tanh(x @ w)
    if np.any(np.abs(y) > 0.999):
        warnings.warn("saturated")
    return np.sum(y**2)


# --- arguments, and the table ---------------------------------------------------------------


def w_and_x():
    w, x = arrays((3, 2), (4, 3))
    return w, x


def params_and_x():
    return layer_list(), arrays((5, 3), seed=1)[0]


def masks():
    return [(draw > 0) * 1.0 for draw in arrays((3, 4), (4, 2), seed=2)]


def pair_and_x():
    W, b, x = arrays((3, 2), 2, (4, 3))
    return (W, b), x


def dict_and_x():
    W, b, x = arrays((3, 2), 2, (4, 3))
    return {"w": W, "b": b}, x


def layer_as(kind):
    W, b, x = arrays((3, 2), 2, (4, 3))
    return kind(W, b), x


# name -> (function, arguments); the gradient is with respect to the first argument
CASES = {
    # functions defined inside the differentiated function
    "inner def closing over parameters": (inner_def_closing_over_parameters, w_and_x),
    "inner defs calling each other": (inner_defs_calling_each_other, w_and_x),
    "inner def called in a loop": (
        inner_def_called_in_a_loop,
        lambda: (arrays((3, 3))[0], arrays((4, 3))[0]),
    ),
    "inner def of parameters and argument": (inner_def_of_parameters_and_argument, w_and_x),
    "lambda assigned to a name": (lambda_assigned_to_a_name, w_and_x),
    "lambda closing over parameters": (lambda_closing_over_parameters, w_and_x),
    "closure made by a module function": (closure_made_by_a_module_function, w_and_x),
    "closure made inside": (closure_made_inside, w_and_x),
    "inner def accumulating into a list": (inner_def_accumulating_into_a_list, w_and_x),
    # functions as values
    "user function as an argument": (apply_activation, lambda: (*w_and_x(), softplus)),
    "numpy function as an argument": (apply_activation, lambda: (*w_and_x(), np.tanh)),
    "function default used": (activation_default, w_and_x),
    "function default unused": (unused_function_default, w_and_x),
    "map over parameters": (map_over_parameters, w_and_x),
    "map a numpy function": (map_a_numpy_function, w_and_x),
    "functools.partial": (functools_partial, w_and_x),
    "a global functools.partial called": (global_partial_called, w_and_x),
    "functools.reduce(lambda acc, row: ..., x, 0.0)": (reduce_with_a_lambda, w_and_x),
    "functools.reduce(f, items), functools.reduce(np.multiply, h)": (
        reduce_with_a_function_and_no_start,
        w_and_x,
    ),
    "function from a dict": (function_from_a_dict, lambda: (*w_and_x(), "softplus")),
    "function from a dict, passed to a function that calls it": (
        function_from_a_dict_passed_on,
        lambda: (*w_and_x(), "softplus"),
    ),
    "functions by constant keys": (functions_by_constant_keys, w_and_x),
    "local alias of a function": (local_alias_of_a_function, w_and_x),
    "function from a list by an int parameter": (
        function_from_a_list_by_a_parameter,
        lambda: (*w_and_x(), np.int64(1)),
    ),
    "functions from a list": (functions_from_a_list, w_and_x),
    "loop over a global tuple of functions": (functions_from_a_global_tuple, w_and_x),
    "functions from a local dict and list": (functions_from_local_displays, w_and_x),
    "f(*parts) of a function taking *args": (spreads_a_list_into_args, w_and_x),
    "**kwargs packed by a function, **options spread in a call": (
        keywords_packed_and_spread,
        w_and_x,
    ),
    "global alias of a function": (global_alias_of_a_function, w_and_x),
    # containers of parameters
    "for W, b in params": (for_pairs_in_list, params_and_x),
    "for layer in params: W, b = layer": (for_layer_then_unpack, params_and_x),
    "for W, b in params[:-1]; params[-1]": (for_pairs_in_slice_then_last, params_and_x),
    "for W, b in reversed(params)": (for_pairs_in_reversed, params_and_x),
    "for i, (W, b) in enumerate(params)": (enumerate_pairs, params_and_x),
    "for (W, b), mask in zip(params, masks)": (
        zip_parameters_with_masks,
        lambda: (layer_list(), masks()),
    ),
    "zip(*pairs)": (zip_star_pairs, params_and_x),
    "len(params), params[-1][0]": (len_and_index_from_the_end, params_and_x),
    "*hidden, last = params": (starred_assignment, params_and_x),
    "list(params)": (list_of_parameters, params_and_x),
    "iter and next": (iter_and_next, params_and_x),
    "sorted(d)": (sorted_keys, dict_and_x),
    "d.values(), d.items() in generators": (values_and_items_of_a_dict, dict_and_x),
    "dict comprehensions": (dict_comprehension, dict_and_x),
    "d.update({...}), d.update(k=v)": (dict_updated, dict_and_x),
    "dict(zip(keys, values))": (dict_of_zip, pair_and_x),
    "dict(w=..., b=...)": (dict_call_with_keywords, pair_and_x),
    "list from a helper, read by index": (
        list_from_a_helper_read_by_index,
        lambda: (arrays((3, 3))[0], arrays((4, 3))[0]),
    ),
    "list of a constant and differentiated values, stacked": (
        list_of_constant_and_differentiated_stacked,
        lambda: arrays(3, 3),
    ),
    "np.concatenate(tuple + tuple)": (concatenate_a_tuple_sum, w_and_x),
    "sum of a generator over zip": (sum_of_a_generator_over_zip, w_and_x),
    "user generator of parameter pieces": (user_generator_of_pieces, params_and_x),
    # objects
    "collections.namedtuple argument": (field_reads, lambda: layer_as(Layer)),
    "typing.NamedTuple argument": (field_reads, lambda: layer_as(TypedLayer)),
    "dataclass argument": (field_reads, lambda: layer_as(DataLayer)),
    "layers = [Layer(W, b) for W, b in params]; for layer in layers": (
        namedtuples_made_in_a_comprehension,
        params_and_x,
    ),
    "dataclass with __call__, called": (layer_called, lambda: layer_as(CallableLayer)),
    "constant dataclass with __call__": (
        through_a_constant_layer,
        lambda: layer_as(CallableLayer)[::-1],
    ),
    "bound method of a dataclass with __call__": (CALLABLE_LAYER.loss, lambda: arrays((4, 3))),
    "global dataclass with __call__, called": (
        through_a_global_callable_layer,
        lambda: arrays((4, 3)),
    ),
    "attribute of a constant object": (attribute_of_a_constant_object, w_and_x),
    "bound method, constant self": (MODEL.loss, w_and_x),
    "method of a constant object": (method_of_a_constant_object, w_and_x),
    # calling conventions
    "callee loops over an int array, indexing": (
        int_array_loop_in_a_callee,
        lambda: (arrays((3, 4))[0], np.array([0, 2, 1, 3])),
    ),
    "callee returning a tuple of constants": (callee_returning_a_tuple_of_constants, w_and_x),
    "*args callee": (star_args_callee, w_and_x),
    "**kwargs callee": (star_kwargs_callee, w_and_x),
    "callee with a function default and **opts": (
        callee_with_a_function_default_and_options,
        w_and_x,
    ),
    "callee default left out": (callee_default_left_out, w_and_x),
    "callee called with keywords": (callee_called_with_keywords, w_and_x),
    "keyword-only callee": (keyword_only_callee, w_and_x),
    "f(*pair)": (splat_call, w_and_x),
    "g([w, 2.0], x), g(pair=(w, b), x=x)": (displays_passed_to_a_user_function, w_and_x),
    "module-level lambdas, two on a line, in a dict": (module_lambdas, w_and_x),
    "for p in params: h = layer(*p, h), of a module and a local layer": (
        pairs_spread_into_calls,
        w_and_x,
    ),
    "math.log(x, 10), math.sqrt, math.atan2 of floats": (math_in_scalar_code, w_and_x),
    "bn_param['running_mean'] = ... into an argument dict read no more": (
        running_mean_kept_for_the_caller,
        lambda: (*w_and_x(), {"momentum": 0.9, "running_mean": np.zeros(2)}),
    ),
    "filter(g, xs), list(filter(None, xs))": (filtered_items, w_and_x),
    "@np.vectorize def g, np.vectorize(np.tanh)(h)": (vectorized_functions, w_and_x),
    "functools.reduce(operator.add, ...), map(operator.mul, ...)": (operator_functions, w_and_x),
    "Fitted(w).loss(x), a method of an object made there": (
        method_of_an_object_made_there,
        w_and_x,
    ),
    "if (n := np.sum(...)) > c:, y = (h := f(x)) * 2 + g(h)": (assignment_expressions, w_and_x),
    "try: L = np.linalg.cholesky(K) / except LinAlgError: ... / else": (tries_a_cholesky, w_and_x),
    "defaults of the differentiated function": (defaults_of_the_differentiated_function, w_and_x),
    "max(a, b, c), min([a, b, c])": (builtin_max_min_of_several, w_and_x),
    "pow(a, b)": (builtin_pow, w_and_x),
    "import numpy as np, from scipy.special import ... inside f": (imports_inside, w_and_x),
    "np.block([[a, b], [c, d]])": (blocks_of_a_nested_list, w_and_x),
    # statements that do not change values
    "print": (prints_a_value, w_and_x),
    "print under an if": (prints_under_a_condition, w_and_x),
    "logging": (logs_a_value, w_and_x),
    "values kept in a global list and object": (records_values, w_and_x),
    "hist.append(loss), a history never read": (history_kept_and_never_read, w_and_x),
    "history.append(loss), a list passed": (
        history_kept_and_never_read,
        lambda: (*w_and_x(), []),
    ),
    "assert": (asserts, w_and_x),
    "with np.errstate": (with_errstate, w_and_x),
    "with ... as a name f does not read": (with_contexts_named, w_and_x),
    "with warnings.catch_warnings": (with_catch_warnings, w_and_x),
    "with contextlib.nullcontext": (with_nullcontext, w_and_x),
    "try/finally": (try_finally, w_and_x),
    "raise under a condition": (raise_under_a_condition, w_and_x),
    "warnings.warn under a condition": (warns_under_a_condition, w_and_x),
}
