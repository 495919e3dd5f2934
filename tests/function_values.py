"""Functions reached as values (issue 16), one small function each, for
tests/test_function_values.py (which also runs this module with `np` bound to autograd.numpy):
lists of callable objects looped over, lambdas a comprehension makes, functions a helper
returns, getattr by a known name, functions and objects held in container arguments, lambdas
and partials written where they are passed."""

import collections
import functools
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

    def forward(self, x):
        return np.tanh(x @ self.W) + self.b


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


# --- an object holding layers, which its own __call__ or forward loops over --------------------


class Net:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


NET = Net([Dense(*arrays((3, 4), 4, seed=1)), DenseLayer(*arrays((4, 2), 2, seed=2))])


def through_a_global_net(w, x):
    return np.sum(NET(x * w) ** 2)


def through_a_net_passed(w, x, net):
    return np.sum(net(x * w) ** 2)


@dataclass
class Sequential:  # (a pytree of layers: differentiated, its gradient is a Sequential too)
    layers: list

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def forward(self, x):
        for layer in self.layers:
            x = layer.forward(x)
        return x


def through_a_differentiated_net(net, x):
    return np.sum(net(x) ** 2)


def forward_of_nested_nets(net, x):
    return np.sum(net.forward(x) ** 2)


class Module:  # (as torch spells it: calling a module runs its forward)
    def __call__(self, x):
        return self.forward(x)


class Linear(Module):
    def __init__(self, W, b):
        self.W, self.b = W, b

    def forward(self, x):
        return x @ self.W + self.b


class Tanh(Module):
    def forward(self, x):
        return np.tanh(x)


class Stack(Module):
    def __init__(self, *layers):
        self.layers = list(layers)

    def forward(self, x):
        for i in range(len(self.layers)):
            x = self.layers[i](x)
        return x


class Heads(Module):
    def __init__(self, encoder, decoder):
        self.parts = {"encoder": encoder, "decoder": decoder}

    def forward(self, x):
        return self.parts["decoder"](np.tanh(self.parts["encoder"](x)))


STACK = Stack(Linear(*arrays((3, 4), 4, seed=1)), Tanh(), Linear(*arrays((4, 2), 2, seed=2)))
HEADS = Heads(STACK, Linear(*arrays((2, 3), 3, seed=3)))


def through_modules(w, x):
    return np.sum(HEADS(x * w) ** 2)


def over_net_layers_reversed_and_sliced(net, x):
    for layer in reversed(net.layers):
        x = layer(x)
    for layer in net.layers[1:]:
        x = layer.forward(x)
    return np.sum(x**2)


# --- zip of layers or functions with other values ------------------------------------------------


def zip_of_global_layers_and_scales(w, x):
    h = x * w
    for layer, scale in zip(LAYERS, (0.5, 2.0)):
        h = layer(h) * scale
    return np.sum(h)


def zip_of_functions(w, x):
    h = x * w
    for f, g in zip([np.sin, np.tanh], [np.cos, softplus]):
        h = f(h) + 0.5 * g(h)
    return np.sum(h)


def zip_of_layers_and_arrays(layers, x, scales):
    h = x
    for i, (layer, scale) in enumerate(zip(layers, scales)):
        h = layer(h) * scale + i
    return np.sum(h**2)


def zip_of_arrays_and_layers(scales, x, layers):
    return zip_of_layers_and_arrays(layers, x, scales)


# --- names bound to layers, and comprehensions over them -----------------------------------------


def layers_named(layers, x):
    first = layers[0]
    a, b = layers
    return np.sum(b.forward(first(x)) * a.forward(x))


@dataclass
class Coder:
    encoder: DenseLayer
    decoder: DenseLayer


def fields_of_a_model_named(model, x):
    encoder, decoder = model.encoder, model.decoder
    return np.sum(decoder(encoder.forward(x)) ** 2)


def comprehensions_calling_layers(layers, x):
    outs = [layer.forward(x) for layer in layers]
    return sum(np.sum(layer(x) ** 2) for layer in layers) + np.sum(outs[0] * outs[-1])


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


def lambdas_of_a_comprehension_with_a_filter(w, x):
    acts = [lambda z, k=k: np.tanh(z) * k for k in range(4) if k != 1 and k % 3 != 0]
    h = x * w
    for act in acts:
        h = act(h) + h
    return np.sum(h**2)


def functions_of_a_comprehension_with_a_filter(w, x):
    chosen = [f for f in (np.sin, np.cos, softplus) if f is not np.cos]
    h = x * w
    for f in chosen:
        h = f(h)
    named = [ACTS[name] for name in ACTS if name != "sin"]
    return np.sum(h) + sum(np.sum(f(x * w)) for f in named if f is not softplus)


ACTS = {"tanh": np.tanh, "sin": np.sin, "softplus": softplus}


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


Pair = collections.namedtuple("Pair", "a b")


@dataclass
class Encoder:
    W: np.ndarray

    def apply(self, x):
        return np.tanh(x @ self.W)


def object_made_of_differentiated_values(W, x):
    layer = Encoder(W)
    state = Pair(np.tanh(x), x * 2)
    return np.sum(layer.apply(state.a) * state.b)


class Scaled:
    """A class of one's own whose __init__ stores its parameters as given (and a constant)."""

    def __init__(self, W, scale=2.0, name="scaled"):
        self.W = W
        self.scale = float(scale)
        self.name = name

    def apply(self, x):
        return self.scale * np.tanh(x @ self.W)


def objects_of_classes_with_their_own_init(W, x):
    layer = Dense(W, np.sum(W, axis=0))
    scaled = Scaled(W=W * 0.5, scale=0.5)
    return np.sum(layer(x) ** 2) + np.sum(scaled.apply(x)) + np.sum(layer.W * scaled.W)


def through_dataclasses_made_in_a_comprehension(params, x):
    layers = [DenseLayer(W, b) for W, b in params]
    h = x
    for layer in layers:
        h = layer(h)
    return np.sum(h**2) + sum(np.sum(layer.forward(x) ** 2) for layer in layers[:1])


def through_objects_of_a_class_with_its_own_init_made_in_a_loop(params, x):
    layers = [Dense(W, b) for W, b in params]
    h = x
    for layer in reversed(layers[::-1]):
        h = layer(h)
    return np.sum(h**2)


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


# --- lambdas and partials written where they are passed ----------------------------------------


def applied_to(f, v):
    return f(v)


def scaled_tanh(z, scale, shift=0.0):
    return np.tanh(scale * z) + shift


def composed_twice(f, v, times=2):
    for _ in range(times):
        v = f(v)
    return v


def passed_on(f, v):
    return applied_to(f, v) + composed_twice(f, v)


def returned(f):
    return f


def lambda_passed_to_a_module_function(w, x):
    return np.sum(applied_to(lambda z: np.tanh(w * z), x))


def lambda_passed_to_a_local_function(w, x):
    def twice(f, v):
        return f(f(v)) * 2

    return np.sum(twice(lambda z: np.sin(z * w), x))


def lambdas_passed_by_keyword_and_on(w, x):
    first = composed_twice(times=3, f=lambda z: np.tanh(z) * w, v=x)
    return np.sum(first) + np.sum(passed_on(lambda z: z * w, x) ** 2)


def lambdas_with_defaults_passed_in_a_loop(w, x):
    total = 0.0
    for k in range(1, 3):
        total = total + np.sum(applied_to(lambda z, k=k: np.sin(k * z * w), x))
    return total + sum(np.sum(applied_to(lambda z: z * k * w, x)) for k in range(2))


def partial_passed_to_a_module_function(w, x):
    return np.sum(applied_to(functools.partial(scaled_tanh, scale=w, shift=1.0), x) ** 2)


def partials_passed_on_returned_and_of_partials(w, x):
    def local_scaled(z, scale):
        return np.sin(z * scale)

    halved = functools.partial(scaled_tanh, scale=0.5)
    again = returned(functools.partial(halved, shift=w))
    both = passed_on(functools.partial(local_scaled, scale=w), x)
    return np.sum(again(x * w) * both)


def items_picked_by_a_key_passed_to_a_local_function(w, x, cfg):
    def apply_twice(f, v):
        return f(f(v))

    return np.sum(apply_twice(cfg["act"], x * w))


# --- arguments, and the table ----------------------------------------------------------------------


def w_x_and_net():
    return (
        *w_and_x(),
        Net([DenseLayer(*arrays((3, 3), 3, seed=3)), Dense(*arrays((3, 2), 2, seed=4))]),
    )


def net_and_x():
    return Sequential(square_layers_and_x()[0]), w_and_x()[1]


def nested_nets_and_x():
    layers = square_layers_and_x()[0]
    return Sequential([Sequential(layers), DenseLayer(*arrays((3, 3), 3, seed=10))]), w_and_x()[1]


def layers_x_and_scales():
    return (*square_layers_and_x(), arrays(3, 3, seed=11))


def scales_x_and_layers():
    layers, x, scales = layers_x_and_scales()
    return scales, x, layers


def coder_and_x():
    layers = square_layers_and_x()[0]
    return Coder(*layers), w_and_x()[1]


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


def params_and_x():
    """[(W, b), (W, b)]: two dense layers, 3 -> 4 -> 2, and x."""
    return [tuple(arrays((3, 4), 4, seed=10)), tuple(arrays((4, 2), 2, seed=11))], w_and_x()[1]


def square_w_and_x():
    return (*arrays((3, 3)), w_and_x()[1])


def model_and_x():
    W1, W2 = arrays((3, 4), (4, 2), seed=5)
    return Model(Encoder(W1), Encoder(W2)), w_and_x()[1]


def functions_picked_by_a_loop_index(w, x):
    layers = [np.tanh, softplus, lambda z: z * np.sin(z)]
    h = x
    for i in range(len(layers)):
        h = layers[i](w * h) + layers[-1 - i](h)
    return np.sum(h)


def local_functions_picked_by_an_argument(w, x, k):
    def cubed(z):
        return z**3

    fs = (cubed, np.sin, lambda z: np.tanh(z) * 2.0)
    return np.sum(fs[k](w * x)) + np.sum(fs[k - 1](x) * w)


def functions_of_a_display_enumerated(w, x):
    def halved(z):
        return z / 2.0

    fs = [halved, np.sin, lambda z: z**2]
    total = 0.0
    for i, f in enumerate(fs):
        total = total + np.sum(f(w * x) * fs[-1 - i](x))
    for f, scale in zip(reversed(fs), (1.0, 2.0, 3.0)):
        total = total + scale * np.sum(f(w))
    return total


def w_x_and_an_index():
    return (*w_and_x(), 2)


def w_x_and_a_negative_index():
    return (*w_and_x(), -2)


@dataclass
class Doubled:
    W: np.ndarray

    @property
    def weight(self):
        return 2.0 * self.W


def property_of_a_differentiated_object(layer, x):
    return np.sum(x @ layer.weight)  # (Doubled.weight.fget(layer): the getter followed)


def doubled_and_x():
    return Doubled(*arrays((3, 3))), w_and_x()[1]


def running(fn, rows):
    out = [rows[0]]
    for row in rows[1:]:
        out.append(fn(out[-1], row))
    return np.stack(out)


def scaled_by(scale, z):
    return scale * np.sin(z)


def running_extrema_and_a_partial(w, x):
    h = x * w
    extrema = running(np.maximum, h) * x + running(np.minimum, h) ** 2
    steps = running(lambda a, b: a * np.cos(b), h)
    scaled = functools.partial(scaled_by, w[0])
    rows = [scaled(row) for row in h]
    return np.sum(extrema) + np.sum(steps**2) + np.sum(np.stack(rows) * x)


def one_of_each_applied_in_turn(w, x):
    h = x * w
    for fn in [np.sin, np.tanh, lambda z: z * np.exp(-z)]:
        h = running(np.add, fn(h)) * 0.5
    return np.sum(h**2)


def local_function_with_function_defaults(w, x):
    def act_scaled(h, act=np.tanh, *, scale_by=np.cos):
        return act(h) * scale_by(h)

    return np.sum(act_scaled(x * w)) + np.sum(act_scaled(x * w, np.sin, scale_by=np.exp) ** 2)


def functions_of_a_loop_passed_in_a_lambda(w, x):
    h = x * w
    for act in [np.sin, np.tanh]:
        h = applied(lambda v: act(v), h) * w
    return np.sum(h**2)


# name -> (function, arguments); the gradient is with respect to the first argument
CASES = {
    "a dataclass and a namedtuple made of differentiated values, a method called": (
        object_made_of_differentiated_values,
        square_w_and_x,
    ),
    "objects of classes with their own __init__, made of differentiated values": (
        objects_of_classes_with_their_own_init,
        square_w_and_x,
    ),
    "layers = [DenseLayer(W, b) for W, b in params]; for layer in layers: h = layer(h)": (
        through_dataclasses_made_in_a_comprehension,
        params_and_x,
    ),
    "layers = [Dense(W, b) for W, b in params], Dense with its own __init__": (
        through_objects_of_a_class_with_its_own_init_made_in_a_loop,
        params_and_x,
    ),
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
    "net(x), a global object looping over its layers": (through_a_global_net, w_and_x),
    "net(x), an object passed, looping over its layers": (through_a_net_passed, w_x_and_net),
    "net(x), a differentiated dataclass of layers": (through_a_differentiated_net, net_and_x),
    "net.forward(x) calling its layers' forward, nets nested": (
        forward_of_nested_nets,
        nested_nets_and_x,
    ),
    "module(x) calling self.forward, range(len(self.layers)), a dict of modules": (
        through_modules,
        w_and_x,
    ),
    "reversed(net.layers), net.layers[1:]": (over_net_layers_reversed_and_sliced, net_and_x),
    "zip(LAYERS, scales)": (zip_of_global_layers_and_scales, w_and_x),
    "zip(functions, functions)": (zip_of_functions, w_and_x),
    "enumerate(zip(layers, scales)), the layers differentiated": (
        zip_of_layers_and_arrays,
        layers_x_and_scales,
    ),
    "enumerate(zip(layers, scales)), the scales differentiated": (
        zip_of_arrays_and_layers,
        scales_x_and_layers,
    ),
    "first = layers[0]; a, b = layers; b.forward(...)": (layers_named, square_layers_and_x),
    "encoder, decoder = model.encoder, model.decoder": (fields_of_a_model_named, coder_and_x),
    "comprehensions calling layers": (comprehensions_calling_layers, square_layers_and_x),
    "lambdas of a comprehension with a filter": (
        lambdas_of_a_comprehension_with_a_filter,
        w_and_x,
    ),
    "functions of comprehensions with a filter": (
        functions_of_a_comprehension_with_a_filter,
        w_and_x,
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
    "applied_to(lambda z: ..., x), a module function": (
        lambda_passed_to_a_module_function,
        w_and_x,
    ),
    "twice(lambda z: ..., x), a local function": (lambda_passed_to_a_local_function, w_and_x),
    "lambdas passed by keyword, and passed on": (lambdas_passed_by_keyword_and_on, w_and_x),
    "lambdas with defaults passed, in a loop and a comprehension": (
        lambdas_with_defaults_passed_in_a_loop,
        w_and_x,
    ),
    "applied_to(functools.partial(g, scale=w), x)": (
        partial_passed_to_a_module_function,
        w_and_x,
    ),
    "partials passed on, returned, of a partial and of a local function": (
        partials_passed_on_returned_and_of_partials,
        w_and_x,
    ),
    "cfg['act'] passed to a local function": (
        items_picked_by_a_key_passed_to_a_local_function,
        w_x_and_cfg,
    ),
    "layers[i](h), layers[-1 - i](h) of a display, i a loop's": (
        functions_picked_by_a_loop_index,
        w_and_x,
    ),
    "for i, f in enumerate(fs), zip(reversed(fs), ...), fs a display": (
        functions_of_a_display_enumerated,
        w_and_x,
    ),
    "fs[k](h) of local functions and a lambda, k an argument": (
        local_functions_picked_by_an_argument,
        w_x_and_an_index,
    ),
    "fs[k](h) of local functions and a lambda, k a negative argument": (
        local_functions_picked_by_an_argument,
        w_x_and_a_negative_index,
    ),
    "layer.weight, a property of a differentiated object": (
        property_of_a_differentiated_object,
        doubled_and_x,
    ),
    "np.maximum, np.minimum, a lambda and a partial passed to a helper that appends": (
        running_extrema_and_a_partial,
        w_and_x,
    ),
    "each function of a list a loop takes, passed in a lambda calling it": (
        functions_of_a_loop_passed_in_a_lambda,
        w_and_x,
    ),
    "a local function whose parameters default to np.tanh and, keyword-only, np.cos": (
        local_function_with_function_defaults,
        w_and_x,
    ),
    "a list of functions iterated, each through a helper passed np.add": (
        one_of_each_applied_in_turn,
        w_and_x,
    ),
}

# the cases whose first argument may be a float: their grad of grad is checked too
SCALAR = {
    name: make_args
    for name, make_args in [
        ("for layer in a global list of callable objects", scalar_w_and_x),
        ("lambdas of a comprehension, looped over", scalar_w_and_x),
        ("net(x), a global object looping over its layers", scalar_w_and_x),
        (
            "module(x) calling self.forward, range(len(self.layers)), a dict of modules",
            scalar_w_and_x,
        ),
        ("zip(LAYERS, scales)", scalar_w_and_x),
        ("functions of comprehensions with a filter", scalar_w_and_x),
        ("compose(f, g) returning a lambda", scalar_w_and_x),
        ("twice(lambda z: ..., x), a local function", scalar_w_and_x),
        ("partials passed on, returned, of a partial and of a local function", scalar_w_and_x),
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


ENCODER = Encoder(arrays((3, 3))[0])


def method_of_a_global_object_passed(w, x):
    return np.sum(applied(ENCODER.apply, x * w))  # refused


def function_chosen_by_a_condition_then_passed(w, x):
    act = np.sin if w[0] > 0 else np.cos
    return np.sum(applied(act, x * w))  # refused


def partial_called_where_it_is_made(w, x):
    return np.sum(functools.partial(scaled_by, w[0])(x))  # refused


def vectorized_and_named(w, x):
    squared = np.vectorize(lambda v: v * v)
    return np.sum(squared(x * w))  # refused


def functions_of_a_loop_passed_on(w, x):
    h = x * w
    for act in [np.sin, np.tanh]:
        h = applied(act, h)  # refused
    return np.sum(h)


class Rescaled:
    def __init__(self, W):
        self.W = 2 * W  # (not a field stored as given: srcdiff cannot follow it)

    def apply(self, x):
        return np.tanh(x @ self.W)


def applied(fn, x):
    return fn(x)


def method_of_a_made_object_passed_on(W, x):
    layer = Encoder(W)
    return np.sum(applied(layer.apply, x))  # refused


def object_of_a_class_with_its_own_init(W, x):
    layer = Rescaled(W)  # refused
    return np.sum(layer.apply(x))


def function_chosen_by_a_condition_passed(w, x):
    def twice(f, v):
        return f(f(v))

    return np.sum(twice(np.sin if w[0] > 0 else np.cos, x * w))  # refused


def named_activation(name):
    return getattr(np, name)


def function_a_helper_returns_passed(w, x):
    def twice(f, v):
        return f(f(v))

    return np.sum(twice(named_activation("tanh"), x * w))  # refused


def partial_passed_where_it_is_not_called(w, x):
    key = functools.partial(scaled_tanh, scale=2.0)
    order = sorted([0.3, -0.1], key=key)  # refused
    return np.sum(w * x * order[0])


class RescaledByItsBase(Rescaled):
    def __init__(self, W):
        super().__init__(W)


def object_of_a_class_calling_its_base_init(W, x):
    layer = RescaledByItsBase(W)  # refused
    return np.sum(layer.apply(x))


def function_of_a_list_that_grows(w, x):
    fs = [np.tanh, np.sin]
    fs.append(softplus)
    return np.sum(fs[2](w * x))  # refused


# name -> (function, arguments, what the message says, what the hint says)
ERRORS = {
    "a function picked from a list f appends to": (
        function_of_a_list_that_grows,
        w_and_x,
        "fs[2](...) calls a function held in the list 'fs', which srcdiff cannot tell before the call",
        "bind the list once to a display (fs = [np.tanh, relu]) and call fs[i](h)",
    ),
    "a local function passed `a if c else b`": (
        function_chosen_by_a_condition_passed,
        w_and_x,
        "twice(...) calls its parameter 'f', passed np.sin if w[0] > 0 else np.cos here",
        "make the call in each branch of an if statement",
    ),
    "a local function passed what a helper returns": (
        function_a_helper_returns_passed,
        w_and_x,
        "twice(...) calls its parameter 'f', passed named_activation('tanh') here",
        "pass the function by its name",
    ),
    "a partial passed to sorted": (
        partial_passed_where_it_is_not_called,
        w_and_x,
        "a functools.partial is used as a value",
        "call it directly",
    ),
    "an object of a class whose __init__ computes with differentiated values": (
        object_of_a_class_with_its_own_init,
        lambda: (*arrays((3, 3)), w_and_x()[1]),
        "Rescaled(...) makes an object of a class of yours from differentiated values, and "
        "its __init__ does more with them than store them (function_values.py:",
        "store each parameter as given (self.W = W)",
    ),
    "an object of a class whose __init__ calls super().__init__": (
        object_of_a_class_calling_its_base_init,
        lambda: (*arrays((3, 3)), w_and_x()[1]),
        "and its __init__ passes self on or calls super(), which srcdiff cannot follow",
        "pass the RescaledByItsBase in as an argument",
    ),
    "a method of an object f makes, passed to a function that calls it": (
        method_of_a_made_object_passed_on,
        square_w_and_x,
        "applied(...) calls its parameter 'fn', passed layer.apply here",
        "pass a function by its name",
    ),
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
    "a method of a global object passed as a value": (
        method_of_a_global_object_passed,
        w_and_x,
        "ENCODER.apply is passed as a value, a method bound to its object",
        "pass a lambda calling it (lambda v: ENCODER.apply(v))",
    ),
    "a function chosen by a condition, then passed by its name": (
        function_chosen_by_a_condition_then_passed,
        w_and_x,
        "applied(...) calls its parameter 'fn', passed act here",
        "for a choice, applied(np.sin, ...) if c else applied(np.cos, ...)",
    ),
    "a partial called where it is made": (
        partial_called_where_it_is_made,
        w_and_x,
        "this line calls an object it makes (its class's __call__)",
        "name the object first: fn = partial(...), then fn(x)",
    ),
    "each function of a list a loop takes, passed to a function that calls it": (
        functions_of_a_loop_passed_on,
        w_and_x,
        "applied(...) calls its parameter 'fn', passed act here",
        "a lambda calling it (lambda v: act(v))",
    ),
    "np.vectorize(g), named, then called": (
        vectorized_and_named,
        w_and_x,
        "squared(...) calls an object of numpy.vectorize (np.vectorize(lambda v: v * v)), "
        "whose __call__ srcdiff does not follow",
        "call the function it wraps yourself",
    ),
    "getattr(np, name) of an int": (
        getattr_of_what_is_no_name,
        lambda: (*w_and_x(), 3),
        "'name' is 3 here, which names no attribute",
        "pass the name of a function of np",
    ),
}
