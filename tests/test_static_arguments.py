"""Functions and objects passed as arguments (issue 16): srcdiff makes the code for the
function passed (a numpy function, one's own) or for the object's class, once per set of
them, and differentiates through the attributes of dataclasses, namedtuples and other
objects. Each check compares numbers with central differences."""

import collections
import dataclasses
import functools
import types

import numpy as np
import pytest

import srcdiff as nf
from gradcheck import numerical_grad

X = np.linspace(-1.0, 1.2, 5)
V = np.arange(5.0) - 2.0


def softplus(x):
    return np.logaddexp(0.0, x)


def energy(x, activation):
    return np.sum(activation(x) ** 2)


def energy_default(x, activation=np.tanh):
    return np.sum(activation(x) ** 2)


def passes_on(x, activation):
    return energy(x, activation=activation)


def looped(x, activation):  # (nothing for the inliner: the function passed is called)
    for i in range(len(x) - 3):
        x = activation(x * (i + 1.0))
    return np.sum(x**2)


def uses_callee_default(x):
    return energy_default(x) * 2.0


def hessian_by_differences(f, x, *rest, eps=1e-5):
    gradient = nf.grad(f)
    return np.stack(
        [
            (gradient(x + eps * e, *rest) - gradient(x - eps * e, *rest)) / (2 * eps)
            for e in np.eye(len(x))
        ],
        axis=-1,
    )


@pytest.mark.parametrize("f", [energy, energy_default, passes_on, looped])
@pytest.mark.parametrize("activation", [np.tanh, np.sin, softplus])
def test_the_code_follows_the_function_passed(f, activation):
    gradient = nf.grad(f)(X, activation)
    np.testing.assert_allclose(gradient, numerical_grad(f, (X, activation)), rtol=1e-6)
    value, tangent = nf.jvp(f)(X, activation, V)
    assert tangent == pytest.approx(np.dot(gradient, V), rel=1e-9)
    out, pullback = nf.vjp(f)(X, activation)
    np.testing.assert_allclose(pullback(1.0), gradient, rtol=1e-12)
    hessian = hessian_by_differences(f, X, activation)
    np.testing.assert_allclose(nf.hessian(f)(X, activation), hessian, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(nf.hvp(f)(X, activation, V), hessian @ V, rtol=1e-5, atol=1e-7)


def test_a_callees_default_function_is_used_where_the_caller_passes_none():
    np.testing.assert_allclose(
        nf.grad(uses_callee_default)(X), numerical_grad(uses_callee_default, (X,)), rtol=1e-6
    )


def test_code_for_a_function_argument_exists_once_it_is_passed():
    gradient = nf.grad(energy)
    with pytest.raises(
        nf.UnsupportedError, match="known only when the function is called"
    ) as error:
        gradient.source
    assert "source_for" in error.value.hint and "activation(x)" in str(error.value)
    assert "np.tanh" in gradient.source_for(X, np.tanh)
    assert "softplus" in gradient.source_for(X, softplus)


ACTIVATIONS = [np.tanh, np.sin]


def chooses_by_a_parameter(x, k):
    return energy(x, ACTIVATIONS[k])


def chooses_at_run_time(x):
    return energy(x, ACTIVATIONS[int(np.sum(x) > 0)])


def test_a_function_picked_by_a_parameter_is_made_for_each_key():
    derivative = nf.grad(chooses_by_a_parameter)
    for k in (0, 1, 0):
        np.testing.assert_allclose(
            derivative(X, k), numerical_grad(chooses_by_a_parameter, (X, k)), rtol=1e-6, atol=1e-8
        )


def test_a_function_chosen_at_run_time_is_a_located_error():
    with pytest.raises(nf.UnsupportedError, match="a value known only at run time") as error:
        nf.grad(chooses_at_run_time)(X)
    assert error.value.location.lineno == chooses_at_run_time.__code__.co_firstlineno + 1
    assert "pass the function itself as an argument" in error.value.hint


# --- objects: attributes carry gradients, methods are followed --------------------------------


@dataclasses.dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray
    name: str = "dense"

    def apply(self, x):
        return np.tanh(x @ self.W + self.b)


@dataclasses.dataclass(frozen=True)
class Frozen:
    W: np.ndarray
    scale: float


Pair = collections.namedtuple("Pair", "W b")


def layer_loss(layer, x):
    return np.sum(layer.apply(x) ** 2) + 0.1 * np.sum(layer.W**2)


def frozen_loss(p, x):
    return np.sum(np.sin(x @ p.W) * p.scale)


def pair_loss(p, x):
    return np.sum(np.tanh(x @ p.W + p.b) * p[1])


def namespace_loss(p, x):
    return np.sum((x @ p.W) ** 2)


def fields_by_differences(f, obj, *rest):
    """{field: its gradient by central differences} for the float fields of obj."""
    out = {}
    for name, value in vars(obj).items() if not hasattr(obj, "_fields") else obj._asdict().items():
        if isinstance(value, (float, np.ndarray)):

            def of_field(v, name=name):
                if hasattr(obj, "_fields"):
                    return f(obj._replace(**{name: v}), *rest)
                changed = (
                    types.SimpleNamespace(**vars(obj))
                    if isinstance(obj, types.SimpleNamespace)
                    else dataclasses.replace(obj, **{name: v})
                )
                if isinstance(obj, types.SimpleNamespace):
                    setattr(changed, name, v)
                return f(changed, *rest)

            out[name] = numerical_grad(of_field, (value,), 0)
    return out


W = np.random.default_rng(3).normal(size=(4, 3))
XS = np.random.default_rng(4).normal(size=(6, 4))
OBJECTS = [
    (layer_loss, Layer(W, np.arange(3.0) / 3)),
    (frozen_loss, Frozen(W, 1.5)),
    (pair_loss, Pair(W, np.arange(3.0) / 3)),
    (namespace_loss, types.SimpleNamespace(W=W, label="w")),
]


@pytest.mark.parametrize("f, obj", OBJECTS, ids=lambda v: getattr(v, "__name__", ""))
def test_gradients_with_respect_to_objects_have_their_type_and_fields(f, obj):
    gradient = nf.grad(f)(obj, XS)
    assert type(gradient) is type(obj)
    for name, expected in fields_by_differences(f, obj, XS).items():
        np.testing.assert_allclose(
            getattr(gradient, name), expected, rtol=1e-6, atol=1e-9, err_msg=name
        )
    if isinstance(obj, (Layer, types.SimpleNamespace)):  # a field that is no float: None
        assert getattr(gradient, "name", getattr(gradient, "label", None)) is None


@pytest.mark.parametrize("f, obj", OBJECTS[:2], ids=lambda v: getattr(v, "__name__", ""))
def test_forward_and_second_order_through_objects(f, obj):
    direction = dataclasses.replace(obj, W=np.ones_like(obj.W))
    if isinstance(obj, Layer):
        direction = dataclasses.replace(direction, b=np.zeros(3))
    else:
        direction = dataclasses.replace(direction, scale=0.5)
    gradient = nf.grad(f)(obj, XS)
    _, tangent = nf.jvp(f)(obj, XS, direction)
    expected = np.sum(gradient.W) + (0.5 * gradient.scale if isinstance(obj, Frozen) else 0)
    assert tangent == pytest.approx(expected, rel=1e-9)
    eps = 1e-5
    moved = [
        nf.grad(f)(
            dataclasses.replace(
                obj,
                W=obj.W + s * eps * direction.W,
                **({"scale": obj.scale + s * eps * 0.5} if isinstance(obj, Frozen) else {}),
            ),
            XS,
        ).W
        for s in (1, -1)
    ]
    np.testing.assert_allclose(
        nf.hvp(f)(obj, XS, direction).W, (moved[0] - moved[1]) / (2 * eps), rtol=1e-5, atol=1e-7
    )


def test_an_attribute_of_an_array_that_has_no_rule_is_a_clear_error():
    def flat_sum(x):
        return np.sum(x.flat)

    with pytest.raises(nf.SrcdiffError, match="attribute .flat"):
        nf.grad(flat_sum)(np.ones(3))


# --- functions as values inside f: closures made and returned, partials, loops over them ------


def integrate(field, y, steps):
    for _ in range(steps):
        y = y + 0.1 * field(y)
    return y


def with_a_local_vector_field(w, y0):
    def field(y):
        return np.tanh(w * y)

    return np.sum(integrate(field, y0, steps=3) ** 2)


def make_layer(W, scale=2.0):
    def layer(inputs):
        return np.tanh(scale * inputs @ W)

    return layer


def shifted(W):
    def forward(inputs):
        return inputs @ W

    return W + 1.0, forward


def uses_returned_closures(W, x):
    hidden = make_layer(W)(x)
    offset, forward = shifted(W)
    return np.sum(hidden**2) + np.sum(forward(x)) * np.sum(offset)


def scaled_softplus(z, beta):
    return np.logaddexp(0.0, beta * z) / beta


def partial_and_loop_over_functions(W, x):
    soft = functools.partial(scaled_softplus, beta=W[0, 0])
    h = x @ W
    for act in [np.sin, soft, softplus]:
        h = act(h)
    return np.sum(h)


@pytest.mark.parametrize(
    "f, args",
    [
        (with_a_local_vector_field, (np.array([0.5, -1.0, 2.0]), np.array([1.0, 0.3, -0.2]))),
        (uses_returned_closures, (W, XS)),
        (partial_and_loop_over_functions, (W, XS)),
    ],
)
def test_functions_made_inside_f_are_inlined_where_they_are_called(f, args):
    gradient = nf.grad(f)(*args)
    np.testing.assert_allclose(gradient, numerical_grad(f, args), rtol=1e-6, atol=1e-9)
    direction = np.ones_like(args[0])
    assert nf.jvp(f)(*args, direction)[1] == pytest.approx(np.sum(gradient), rel=1e-9)
    eps = 1e-5
    moved = [nf.grad(f)(args[0] + s * eps * direction, *args[1:]) for s in (1, -1)]
    np.testing.assert_allclose(
        nf.hvp(f)(*args, direction), (moved[0] - moved[1]) / (2 * eps), rtol=1e-5, atol=1e-7
    )


def stores_a_local_function(w):
    def square(v):
        return v * v

    table = []
    table.append(square)  # (a display of it is read through: function_values.py)
    return np.sum(table[0](w))


def test_a_local_function_stored_in_a_list_is_a_located_error():
    with pytest.raises(nf.UnsupportedError, match="'square' is used as a value") as error:
        nf.grad(stores_a_local_function)(np.ones(2))
    assert error.value.location.line.strip().startswith("table.append(square)")


# --- user classes registered as pytree nodes ----------------------------------------------------


class Affine:
    """Parameters in __slots__, flattened to (W, b); `activation` is aux data, no gradient."""

    __slots__ = ("W", "b", "activation")

    def __init__(self, W, b, activation="tanh"):
        self.W, self.b, self.activation = W, b, activation

    def apply(self, x):
        return np.tanh(x @ self.W + self.b)


nf.register_pytree_node(
    Affine,
    lambda a: ((a.W, a.b), a.activation),
    lambda activation, children: Affine(*children, activation),
)


def affine_loss(layer, x):
    return np.sum(layer.apply(x) ** 2)


def test_a_registered_class_is_a_pytree_for_gradients_and_trees():
    layer = Affine(W, np.arange(3.0) / 3)
    gradient = nf.grad(affine_loss)(layer, XS)
    assert type(gradient) is Affine and gradient.activation == "tanh"
    for name in ("W", "b"):

        def of_field(value, name=name):
            changed = Affine(layer.W, layer.b)
            setattr(changed, name, value)
            return affine_loss(changed, XS)

        np.testing.assert_allclose(
            getattr(gradient, name),
            numerical_grad(of_field, (getattr(layer, name),), 0),
            rtol=1e-6,
            atol=1e-9,
        )
    stepped = nf.tree_map(lambda p, g: p - 0.1 * g, layer, gradient)
    assert type(stepped) is Affine and stepped.activation == "tanh"
    np.testing.assert_allclose(stepped.W, layer.W - 0.1 * gradient.W)
    assert len(nf.tree_leaves(layer)) == 2


def test_dataclasses_are_trees_for_the_optimisers():
    layer = Layer(W, np.zeros(3))
    gradient = nf.grad(layer_loss)(layer, XS)
    stepped = nf.tree_map(lambda p, g: p - 0.5 * g, layer, gradient)
    assert type(stepped) is Layer and stepped.name == "dense"
    np.testing.assert_allclose(stepped.b, -0.5 * gradient.b)


def shifted_softplus(z, beta, shift=0.0):
    return np.logaddexp(0.0, beta * z) / beta + shift


def with_a_partial(x, act=functools.partial(shifted_softplus, beta=2.0)):
    return energy(x, act) + np.sum(act(x, shift=1.0))


@pytest.mark.parametrize(
    "act",
    [
        functools.partial(shifted_softplus, beta=2.0),
        functools.partial(shifted_softplus, beta=0.5),
        functools.partial(shifted_softplus, 3.0, shift=0.5),
    ],
    ids=["beta=2", "beta=0.5", "positional"],
)
def test_a_partial_passed_is_called_with_the_values_it_binds(act):
    gradient = nf.grad(with_a_partial)
    np.testing.assert_allclose(
        gradient(X, act), numerical_grad(with_a_partial, (X, act)), rtol=1e-6
    )
    assert nf.jvp(with_a_partial)(X, act, V)[1] == pytest.approx(
        np.dot(gradient(X, act), V), rel=1e-9
    )
    # one code for partials that bind the same names: the values are read when it runs
    assert "act.keywords['beta']" in gradient.source_for(X, act) or isinstance(act.args[0], float)


def reads_with_setdefault(p, x):
    return np.sum(p.setdefault("w", 0.0) * x)  # the setdefault line


def test_a_method_of_a_dict_argument_says_to_read_the_item():
    """d.setdefault(k, v) calls a method of a parameter, which waits for the call; a dict
    there is no object whose class decides the code, and the advice is to index it (d.get
    is read so: tests/written_constructs.py)."""
    with pytest.raises(nf.UnsupportedError) as error:
        nf.grad(reads_with_setdefault)({"w": np.ones(3)}, np.ones(3))
    message = str(error.value)
    assert "'p' is a dict here" in message and "p.setdefault" in message
    assert "p['w']), or by p.get('w', default)" in message
    assert "# the setdefault line" in message


def squares_of_listed_items(x):
    return sum(t * t for t in x.tolist())  # the tolist line


def test_a_method_of_an_array_argument_without_a_rule_says_what_to_write():
    """x.tolist() waits for the call like an object's method; an array there has no rule
    for it, and the advice names what srcdiff does differentiate (not "pass the object")."""
    with pytest.raises(nf.UnsupportedError) as error:
        nf.grad(squares_of_listed_items)(np.ones(3))
    message = str(error.value)
    assert "'x' is an array here" in message and "its method x.tolist" in message
    assert "list(x) for x.tolist() of a vector" in message
    assert "# the tolist line" in message


# --- functions an object holds of its own, and names rebound between calls ---------------------


class Activated:
    act = np.tanh  # (the class's default, shadowed by an instance's own)

    def __init__(self, act=None):
        if act is not None:
            self.act = act

    def loss(self, x):
        return np.sum(self.act(x) ** 2)

    @staticmethod
    def scaled(x):
        return 3.0 * x


def through_object(x, model):
    return model.loss(model.scaled(x))


@dataclasses.dataclass(frozen=True)
class Architecture:
    act: object = np.tanh
    depth: int = 2


def stacked(x, arch):
    for _ in range(arch.depth):
        x = arch.act(x)
    return np.sum(x * x)


@pytest.mark.parametrize("act", [None, np.sin, softplus])
def test_an_objects_own_function_is_the_one_called(act):
    model = Activated(act)
    derivative = nf.grad(through_object)  # (one derivative, called with each in turn)
    for obj in (model, Activated(np.cos), model):
        expected = numerical_grad(lambda x: through_object(x, obj), (X,))
        np.testing.assert_allclose(derivative(X, obj), expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(
        nf.grad(model.loss)(X), numerical_grad(model.loss, (X,)), rtol=1e-6, atol=1e-8
    )
    arch = Architecture() if act is None else Architecture(act=act, depth=3)
    np.testing.assert_allclose(
        nf.grad(stacked)(X, arch),
        numerical_grad(lambda x: stacked(x, arch), (X,)),
        rtol=1e-6,
        atol=1e-8,
    )
    value, tangent = nf.jvp(stacked, wrt=0)(X, arch, V)
    expected = numerical_grad(lambda x: stacked(x, arch), (X,)) @ V
    assert tangent == pytest.approx(expected, rel=1e-6)


def test_a_nonzero_tangent_for_an_int_field_is_refused():
    with pytest.raises(nf.ArgumentError, match=r"'arch'.depth is not zero.*an integer"):
        nf.jvp(stacked, wrt=1)(X, Architecture(), Architecture(np.tanh, 1))


ACT = np.sin
ACTS = {"a": np.sin}


def rebound_helper(z):
    return np.sin(z)


def reads_rebindable_names(x):
    return np.sum(ACT(x) * ACTS["a"](x) + rebound_helper(x))


def reads_a_scalar(x):
    return ACT(x) * x


def test_names_rebound_between_calls_are_followed(monkeypatch):
    """A global rebound after the derivative was made (a helper redefined in a notebook, an
    entry of a dict of activations replaced, a method patched) is called as f calls it."""
    import test_static_arguments as here

    gradient, value_and_grad = (
        nf.grad(reads_rebindable_names),
        nf.value_and_grad(reads_rebindable_names),
    )
    second = nf.grad(nf.grad(reads_a_scalar))
    model, derivative = Activated(), nf.grad(through_object)
    x = 0.7
    for _ in range(2):  # (once as made, once after the rebinding)
        expected = numerical_grad(reads_rebindable_names, (X,))
        np.testing.assert_allclose(gradient(X), expected, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(value_and_grad(X)[1], expected, rtol=1e-6, atol=1e-8)
        slope = numerical_grad(nf.grad(reads_a_scalar), (x,))
        assert second(x) == pytest.approx(slope, rel=1e-6)
        np.testing.assert_allclose(
            derivative(X, model), numerical_grad(through_object, (X, model)), rtol=1e-6, atol=1e-8
        )
        monkeypatch.setattr(here, "ACT", np.cos)
        monkeypatch.setitem(ACTS, "a", np.exp)
        monkeypatch.setattr(here, "rebound_helper", softplus)
        monkeypatch.setattr(Activated, "scaled", staticmethod(np.sinh))
