"""Functions reached as values (issue 16), one small function each, for
tests/test_function_values.py (which also runs this module with `np` bound to autograd.numpy):
lists of callable objects looped over, lambdas a comprehension makes, functions a helper
returns, getattr by a known name, functions and objects held in container arguments."""

import typing
from dataclasses import dataclass

import numpy as np


def arrays(*shapes, seed=0):
    draw = np.random.default_rng(seed)
    return [0.5 * draw.normal(size=shape) for shape in shapes]


def softplus(z):
    return np.logaddexp(0.0, z)


# --- a list of callable objects, looped over ---------------------------------------------------


class Dense:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, x):
        return np.tanh(x @ self.W + self.b)


@dataclass
class DenseLayer:  # (a pytree: differentiated, its gradient is a DenseLayer too)
    W: np.ndarray
    b: np.ndarray

    def __call__(self, x):
        return np.sin(x @ self.W + self.b)


LAYERS = [Dense(*arrays((3, 4), 4, seed=1)), DenseLayer(*arrays((4, 2), 2, seed=2))]


def through_global_layers(w, x):
    h = x * w
    for layer in LAYERS:
        h = layer(h)
    return np.sum(h**2)


def through_layers_passed(w, x, layers):
    h = x * w
    for layer in layers:
        h = layer(h)
    return np.sum(h**2)


def through_differentiated_layers(layers, x):
    h = x
    for layer in layers:
        h = layer(h)
    return np.sum(h**2)


def differentiated_layers_by_index(layers, x):
    return np.sum(layers[1](layers[0](x)) ** 2)


def enumerated_layers_and_their_methods(layers, x):
    h = x
    for i, layer in enumerate(layers):
        h = layer.__call__(h) + 0.1 * i * (h @ layer.W)
    return np.sum(h**2)


def blocks_of_layers(w, x, blocks):
    h = x * w
    for block in blocks:
        for layer in block:
            h = layer(h)
    return np.sum(h**2)


class Network(typing.NamedTuple):
    layers: list
    scale: float


def layers_of_a_differentiated_namedtuple(net, x):
    h = x
    for layer in net.layers:
        h = layer(h)
    return net.scale * np.sum(h**2)


# --- lambdas a comprehension makes ----------------------------------------------------------------


def lambdas_of_a_comprehension_looped_over(w, x):
    acts = [lambda z, k=k: np.tanh((k + 1) * z) for k in range(3)]
    h = x * w
    for act in acts:
        h = act(h) + h
    return np.sum(h**2)


def lambdas_of_a_comprehension_by_index(w, x):
    scaled = [lambda z, s=s: s * np.sin(z) for s in (0.5, 2.0)]
    return np.sum(scaled[1](scaled[0](x * w))) + np.sum(scaled[-1](w))


def lambdas_closing_over_the_variable(w, x):
    acts = [lambda z: np.tanh(k * z) for k in range(1, 4)]  # (each reads the last k: 3)
    return np.sum(acts[0](x * w))


# --- functions a helper returns --------------------------------------------------------------------


def compose(f, g):
    return lambda z: f(g(z))


def through_composed(w, x):
    h = compose(np.tanh, softplus)
    return np.sum(h(w * x))


def make_act(scale):
    def act(z):
        return np.tanh(scale * z)

    return act


def through_a_made_activation(w, x):
    act = make_act(2.0)
    return np.sum(act(w * x) ** 2)


# --- getattr by a known name ------------------------------------------------------------------------

NAME = "tanh"


def getattr_of_a_global_name(w, x):
    return np.sum(getattr(np, NAME)(w * x))


def getattr_of_a_default(w, x, name="sin"):
    return np.sum(getattr(np, name)(w * x) ** 2)


# --- functions and objects held in container arguments -------------------------------------------------


def function_from_a_dict_argument(w, x, cfg):
    return np.sum(cfg["act"](w * x) * cfg["scale"])


def act_of(cfg, h):
    return cfg["act"](h)


def run_layers(layers, h):
    for layer in layers:
        h = layer(h)
    return h


def containers_passed_on_to_helpers(w, x, cfg, layers):
    return np.sum(run_layers(layers, act_of(cfg, x * w)) ** 2)


@dataclass(frozen=True)
class Arch:
    act: typing.Callable = np.tanh
    depth: int = 2


class ArchTuple(typing.NamedTuple):
    act: typing.Callable
    depth: int


def function_field_of_an_argument(w, x, arch):
    h = x
    for _ in range(arch.depth):
        h = arch.act(h * w)
    return np.sum(h)


@dataclass
class Encoder:
    W: np.ndarray

    def apply(self, x):
        return np.tanh(x @ self.W)


class Model(typing.NamedTuple):
    enc: Encoder
    second: Encoder


def methods_of_dataclasses_in_a_namedtuple(model, x):
    h = model.enc.apply(x)
    return np.sum(model.second.apply(h) ** 2)


class Autoencoder(typing.NamedTuple):
    first: Encoder
    second: Encoder

    def forward(self, x):
        h = self.first.apply(x)
        return self.second.apply(h)


def namedtuple_method_calling_its_fields_methods(model, x):
    return np.sum(model.forward(x) ** 2)


def autoencoder_and_x():
    return Autoencoder(*model_and_x()[0]), w_and_x()[1]


# --- arguments, and the table ----------------------------------------------------------------------


def w_and_x():
    w, x = arrays(3, (5, 3))
    return w, x


def scalar_w_and_x():
    return 0.7, arrays((5, 3))[0]


def w_x_and_layers():
    return (*w_and_x(), [DenseLayer(*arrays((3, 4), 4, seed=3)), Dense(*arrays((4, 2), 2, seed=4))])


def layers_and_x():
    layers = [DenseLayer(*arrays((3, 4), 4, seed=3)), DenseLayer(*arrays((4, 2), 2, seed=4))]
    return layers, w_and_x()[1]


def square_layers_and_x():
    layers = [DenseLayer(*arrays((3, 3), 3, seed=8)), DenseLayer(*arrays((3, 3), 3, seed=9))]
    return layers, w_and_x()[1]


def w_x_and_blocks():
    first, second = square_layers_and_x()[0]
    return (*w_and_x(), [[first], [Dense(second.W, second.b), first]])


def network_and_x():
    layers, x = layers_and_x()
    return Network(layers, 0.7), x


def w_x_and_cfg():
    return (*w_and_x(), {"act": np.sin, "scale": 2.0})


def w_x_cfg_and_layers():
    return (*w_x_and_cfg(), w_x_and_layers()[2])


def w_x_and_arch():
    return (*w_and_x(), Arch(np.sin, 3))


def w_x_and_arch_tuple():
    return (*w_and_x(), ArchTuple(np.sin, 3))


def model_and_x():
    W1, W2 = arrays((3, 4), (4, 2), seed=5)
    return Model(Encoder(W1), Encoder(W2)), w_and_x()[1]


# name -> (function, arguments); the gradient is with respect to the first argument
CASES = {
    "for layer in a global list of callable objects": (through_global_layers, w_and_x),
    "for layer in a list of callable objects passed": (through_layers_passed, w_x_and_layers),
    "for layer in layers, a differentiated list of dataclasses": (
        through_differentiated_layers,
        layers_and_x,
    ),
    "layers[1](layers[0](x)), differentiated": (differentiated_layers_by_index, layers_and_x),
    "for i, layer in enumerate(layers): layer.__call__(h), layer.W": (
        enumerated_layers_and_their_methods,
        square_layers_and_x,
    ),
    "for block in blocks: for layer in block": (blocks_of_layers, w_x_and_blocks),
    "for layer in net.layers, a differentiated NamedTuple": (
        layers_of_a_differentiated_namedtuple,
        network_and_x,
    ),
    "lambdas of a comprehension, looped over": (lambdas_of_a_comprehension_looped_over, w_and_x),
    "lambdas of a comprehension, by index": (lambdas_of_a_comprehension_by_index, w_and_x),
    "lambdas of a comprehension reading its variable": (lambdas_closing_over_the_variable, w_and_x),
    "compose(f, g) returning a lambda": (through_composed, w_and_x),
    "a helper returning an inner def": (through_a_made_activation, w_and_x),
    "getattr(np, NAME), a global": (getattr_of_a_global_name, w_and_x),
    "getattr(np, name), a default": (getattr_of_a_default, w_and_x),
    "cfg['act'](h), a dict argument": (function_from_a_dict_argument, w_x_and_cfg),
    "a dict and a list of layers passed on to helpers": (
        containers_passed_on_to_helpers,
        w_x_cfg_and_layers,
    ),
    "arch.act(h), a dataclass argument": (function_field_of_an_argument, w_x_and_arch),
    "arch.act(h), a NamedTuple argument": (function_field_of_an_argument, w_x_and_arch_tuple),
    "model.enc.apply(x), dataclasses in a differentiated NamedTuple": (
        methods_of_dataclasses_in_a_namedtuple,
        model_and_x,
    ),
    "self.second.apply(h) in a method of a differentiated NamedTuple": (
        namedtuple_method_calling_its_fields_methods,
        autoencoder_and_x,
    ),
}

# the cases whose first argument may be a float: their grad of grad is checked too
SCALAR = {
    name: make_args
    for name, make_args in [
        ("for layer in a global list of callable objects", scalar_w_and_x),
        ("lambdas of a comprehension, looped over", scalar_w_and_x),
        ("compose(f, g) returning a lambda", scalar_w_and_x),
        ("getattr(np, NAME), a global", scalar_w_and_x),
        (
            "cfg['act'](h), a dict argument",
            lambda: (*scalar_w_and_x(), {"act": np.sin, "scale": 2.0}),
        ),
    ]
}


# --- what stays out: each an error at the line marked "refused" --------------------------------------


def lambdas_of_a_comprehension_of_unknown_length(w, x, n):
    acts = [lambda z, k=k: np.tanh(k * z) for k in range(n)]  # refused
    return np.sum(acts[0](w * x))


def item_of_a_dict_holding_no_function(w, x, cfg):
    return np.sum(cfg["act"](w * x))  # refused


def item_picked_at_run_time(w, x, layers, i):
    return np.sum(layers[i](w * x))  # refused


def items_of_a_list_of_arrays_called(w, x, layers):
    h = x * w
    for layer in layers:
        h = layer(h)  # refused
    return np.sum(h)


def function_a_method_returns(w, x, cfg):
    return np.sum(cfg.get("act")(w * x))  # refused


def lambda_stored_in_a_list_changed(w, x):
    acts = [lambda z: z * w]  # refused
    acts.append(np.sin)
    return np.sum(acts[1](x))


def getattr_of_what_is_no_name(w, x, name):
    return np.sum(getattr(np, name)(w * x))  # refused


# name -> (function, arguments, what the message says, what the hint says)
ERRORS = {
    "lambdas of a comprehension over range(n)": (
        lambdas_of_a_comprehension_of_unknown_length,
        lambda: (*w_and_x(), 3),
        "a list of lambdas made by a comprehension whose items srcdiff cannot list",
        "make them over range(N) with N a number",
    ),
    "cfg['act'] of a dict holding no function": (
        item_of_a_dict_holding_no_function,
        lambda: (*w_and_x(), {"act": "tanh"}),
        "'cfg' is a dict here, holding no function",
        "pass the functions",
    ),
    "layers[i], i known at run time": (
        item_picked_at_run_time,
        lambda: (*w_x_and_layers(), 0),
        "calls what the parameter 'layers' holds there",
        "pick it by constant keys",
    ),
    "layer(h) of a list of arrays": (
        items_of_a_list_of_arrays_called,
        lambda: (*w_and_x(), arrays((3, 3))),
        "'layers' is a list here, holding no function",
        "pass the functions",
    ),
    "cfg.get('act')(h)": (
        function_a_method_returns,
        lambda: (*w_and_x(), {"act": np.sin}),
        "calls the function that cfg.get('act') returns",
        "call the function by its name",
    ),
    "a lambda in a list appended to": (
        lambda_stored_in_a_list_changed,
        w_and_x,
        "a lambda is used as a value",
        "call it directly",
    ),
    "getattr(np, name) of an int": (
        getattr_of_what_is_no_name,
        lambda: (*w_and_x(), 3),
        "'name' is 3 here, which names no attribute",
        "pass the name of a function of np",
    ),
}
