"""Bugs found by probing srcdiff with code a new user writes (numpy idioms from tutorials,
scipy.special and scipy.stats calls, Python idioms), each checked against finite differences
and autograd: wrong numbers, raw Python errors escaping, and refusals of common code."""

import collections
import dataclasses
from typing import NamedTuple

import numpy as np
import pytest

import srcdiff as nf
from oracle import (
    assert_close,
    autograd_grad,
    close,
    finite_differences,
    gradient_along,
    inner,
    random_like,
)


def assert_derivatives(f, *args, wrt=0, autograd=True):
    """Reverse, forward, forward over reverse and reverse over reverse against finite
    differences (the second order: differences of the checked gradient), and the gradient
    against autograd's."""
    gradient, v = nf.grad(f, wrt=wrt), random_like(args[wrt], seed=1)
    expected = finite_differences(f, args, wrt)
    assert_close(gradient(*args), expected, 1e-6, 1e-8, "reverse vs finite differences")
    tangent = nf.jvp(f, wrt=wrt)(*args, v)[1]
    assert_close(tangent, inner(expected, v), 1e-6, 1e-8, "forward vs finite differences")
    along = gradient_along(gradient, args, wrt, v)
    assert_close(nf.hvp(f, wrt=wrt)(*args, v), along, 1e-5, 1e-7, "hvp vs finite differences")
    of_gradient = nf.vjp(gradient, wrt=wrt)(*args)[1](v)
    assert_close(of_gradient, along, 1e-5, 1e-7, "grad of grad vs finite differences")
    if autograd:
        assert close(autograd_grad(f, args, wrt), expected, 1e-6, 1e-8)


X = np.array([0.3, -1.2, 0.7, 2.1, -0.4, 0.55])


class Slotted:
    __slots__ = ("w", "b")

    def __init__(self, w, b):
        self.w, self.b = w, b


def loss_of_a_slotted_object(m, x):
    return np.sum((x * m.w + m.b) ** 2)


def test_the_gradient_of_an_object_with_slots():
    """An object of a class with __slots__ has no __dict__, so it had no fields that
    gradients follow: its gradient was a copy of the object itself (w and b its values)."""
    m, x = Slotted(np.array([0.5, -1.2, 0.8]), 0.5), np.array([[0.3, 1.1, -0.7], [1.0, 0.2, 0.4]])
    gradient = nf.grad(loss_of_a_slotted_object)(m, x)
    np.testing.assert_allclose(gradient.w, np.sum(2 * (x * m.w + m.b) * x, axis=0))
    assert gradient.b == pytest.approx(np.sum(2 * (x * m.w + m.b)))
    hv = nf.hvp(loss_of_a_slotted_object)(m, x, Slotted(np.zeros(3), 1.0))
    np.testing.assert_allclose(hv.w, np.sum(2 * x, axis=0))
    assert hv.b == pytest.approx(2 * x.size)


# --- raw Python errors ---------------------------------------------------------------------------


def polyval_of_a_list_of_coefficients(x):
    return np.sum(np.polyval([1.0, 2.0, 3.0], x)) + np.sum(np.polyval([1, -2], x))


def polyval_of_a_list_holding_a_differentiated_value(x):
    return np.sum(np.polyval([x[0], 2.0, x[1]], np.array([0.3, 0.5])))


@pytest.mark.parametrize(
    "f", [polyval_of_a_list_of_coefficients, polyval_of_a_list_holding_a_differentiated_value]
)
def test_polyval_of_a_list_of_coefficients(f):
    """np.polyval takes its coefficients as a list: the derivative's coefficients
    (runtime.polyder) raised a TypeError from np.result_type of a list. (autograd has no
    gradient of np.polyval.)"""
    assert_derivatives(f, X, autograd=False)


def weighted_sum(x, y):
    return np.sum(x * y**2)


def test_a_tangent_of_none_stands_for_zeros():
    """None for a tangent (zeros, as check_shaped_like takes it) reached the emitted code:
    a raw TypeError (unsupported operand type(s) for *: 'NoneType' and 'float')."""
    x, y, v = np.array([1.0, 2.0]), np.array([3.0, -1.0]), np.array([0.5, 2.0])
    assert nf.jvp(weighted_sum)(x, y, None)[1] == 0.0
    assert nf.jvp(weighted_sum, wrt=(0, 1))(x, y, (None, v))[1] == pytest.approx(2 * x * y @ v)
    np.testing.assert_array_equal(nf.hvp(weighted_sum, wrt=1)(x, y, None), np.zeros(2))


class Affine:
    def __init__(self, w, b):
        self.w, self.b = w, b

    def __call__(self, x):
        return np.tanh(x @ self.w + self.b)


def loss_of_a_layer(layer, x):
    return np.sum(layer(x) ** 2)


def test_a_tangent_of_an_object_given_as_another_type_is_refused():
    """A dict or a number for the tangent of an object argument was a raw AttributeError
    from the emitted code ('dict' object has no attribute 'w')."""
    layer, x = Affine(np.ones((2, 2)), np.zeros(2)), np.array([[0.5, -1.0]])
    for tangent in ({"w": np.ones((2, 2)), "b": np.ones(2)}, 0.0):
        with pytest.raises(nf.ArgumentError, match="but the value it goes with is a Affine"):
            nf.jvp(loss_of_a_layer)(layer, x, tangent)
    tangent = Affine(np.ones((2, 2)), np.ones(2))
    along = nf.jvp(loss_of_a_layer)(layer, x, tangent)[1]
    gradient = nf.grad(loss_of_a_layer)(layer, x)
    assert along == pytest.approx(np.sum(gradient.w) + np.sum(gradient.b))
    along_b = nf.jvp(loss_of_a_layer)(layer, x, Affine(None, np.ones(2)))[1]
    assert along_b == pytest.approx(np.sum(gradient.b))


def params_read_by_key(p, x):
    return np.sum(p["w"] * x) + p["b"] ** 2 + p["c"][0] * 2


def square_and_items(x):
    return x[0] ** 2, {"a": x[1] * x[2], "b": [x[0], x[2] ** 3]}


def test_none_inside_a_tangent_or_cotangent_stands_for_zeros():
    """None for an item of a pytree's tangent, or of a cotangent, was a raw TypeError from
    the emitted code."""
    p, x = {"w": np.array([1.0, 2.0]), "b": 1.5, "c": [0.5, 1.0]}, np.array([3.0, -1.0])
    tangent = {"w": np.array([1.0, 1.0]), "b": None, "c": [None, None]}
    assert nf.jvp(params_read_by_key)(p, x, tangent)[1] == pytest.approx(2.0)
    assert nf.jvp(params_read_by_key)(p, x, {"w": None, "b": 1.0, "c": None})[1] == 3.0
    y = np.array([0.3, -1.2, 0.7])
    pullback = nf.vjp(square_and_items)(y)[1]
    np.testing.assert_allclose(pullback((1.0, {"a": None, "b": [None, 1.0]})), [0.6, 0, 1.47])


def test_an_error_located_at_a_lambda_names_its_line():
    """An error located at f's definition named line 1 of the module (`import numpy as
    np`) for a lambda: its def was made after the parsed tree's lines were moved."""
    with pytest.raises(nf.ArgumentError, match="is int") as error:
        nf.grad(lambda a: a**2)(3)
    assert error.value.location.line.strip() == "nf.grad(lambda a: a**2)(3)"
    with pytest.raises(nf.ArgumentError, match="not a tuple") as error:
        nf.jacobian(lambda t: (t * 2, t[0]))(np.ones(2))
    assert error.value.location.line.strip().startswith("nf.jacobian(lambda t:")


@dataclasses.dataclass(frozen=True)
class Repeated:
    w: np.ndarray
    times: int = 2

    def apply(self, x):
        for _ in range(self.times):
            x = np.sin(x * self.w)
        return x


def loss_of_a_repeated_layer(layer, x):
    return np.sum(layer.apply(x) ** 2)


def test_a_tangent_made_by_tree_map_keeps_an_objects_count():
    """nf.tree_map (or nf.unravel, or a copy) of a dataclass leaves its int fields as they
    are, so a tangent made so held times=2: jvp and hvp refused it ("the tangent of
    argument 'layer'.times is not zero"). It stands for no tangent."""
    layer, x = Repeated(np.array([0.5, -1.2, 0.8])), np.array([0.3, 1.1, -0.7])
    v = nf.tree_map(np.ones_like, layer)
    gradient = nf.grad(loss_of_a_repeated_layer)(layer, x)
    along = nf.jvp(loss_of_a_repeated_layer)(layer, x, v)[1]
    assert along == pytest.approx(np.sum(gradient.w))
    eps = 1e-6
    moved = [nf.grad(loss_of_a_repeated_layer)(Repeated(layer.w + s * eps), x).w for s in (1, -1)]
    hv = nf.hvp(loss_of_a_repeated_layer)(layer, x, v)
    np.testing.assert_allclose(hv.w, (moved[0] - moved[1]) / (2 * eps), rtol=1e-5)
    with pytest.raises(nf.ArgumentError, match="'layer'.times is not zero"):
        nf.jvp(loss_of_a_repeated_layer)(layer, x, Repeated(np.ones(3), 3))


def test_too_many_arguments_or_no_v_are_refused_at_the_call():
    """grad(f) called with more arguments than f takes was a raw TypeError naming the
    emitted function ('dweighted_sum() takes 2 positional arguments'); hvp(f) called without
    v said 'jvp of dweighted_sum needs ...' at a line of the emitted code."""
    x, y = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    with pytest.raises(nf.ArgumentError, match="cannot call weighted_sum: too many") as error:
        nf.grad(weighted_sum)(x, y, 3.0)
    assert error.value.location.line.strip().startswith("nf.grad(weighted_sum)(x, y, 3.0)")
    with pytest.raises(nf.ArgumentError, match="hvp of weighted_sum needs") as error:
        nf.hvp(weighted_sum)(x, y)
    assert error.value.location.line.strip() == "nf.hvp(weighted_sum)(x, y)"
    assert nf.hvp(weighted_sum, wrt=1)(x, y, np.array([1.0, 0.0])) == pytest.approx([2.0, 0.0])


# --- refusals of common code ---------------------------------------------------------------------


def scaled(a, **options):
    return a * options.get("gain", 1.0) + options.get("shift", 0.5)


def options_read_with_get(x):
    return np.sum(scaled(x, gain=x[0]) ** 2)


def options_read_with_get_in_a_local_function(x):
    def shifted(a, **kw):
        return a + kw.get("shift", 1.0) * kw.get("missing", 2.0)

    return np.sum(shifted(x, shift=x[1]) ** 2)


def affine(a, scale=1.0, shift=0.0):
    return a * scale + shift


def passes_its_options_on(a, **kw):
    return affine(a, **kw)


def options_passed_on(x):
    return np.sum(passes_its_options_on(x, scale=x[1]) ** 2)


def options_passed_on_in_a_local_function(x):
    def passes_on(a, **kw):
        return affine(a, shift=0.5, **kw) * affine(a, **kw)

    return np.sum(passes_on(x, scale=x[1]) ** 2)


@pytest.mark.parametrize(
    "f",
    [
        options_read_with_get,
        options_read_with_get_in_a_local_function,
        options_passed_on,
        options_passed_on_in_a_local_function,
    ],
)
def test_keyword_options_read_with_get_or_passed_on(f):
    """A function's **kwargs, inlined as a dict display of what the call passes, was refused
    read by `.get(key, default)` ("cannot differentiate through {'gain': ...}.get(...)") and
    passed on as `**kw` to another call."""
    assert_derivatives(f, X)


def passes_an_option_twice(x):
    def passes_on(a, **kw):
        return affine(a, scale=2.0, **kw)

    return np.sum(passes_on(x, scale=x[1]) ** 2)


def test_an_option_passed_on_twice_is_still_refused():
    """Python raises a TypeError (scale given twice): srcdiff must not pick one of them."""
    with pytest.raises(nf.SrcdiffError, match=r"\*\*kwargs"):
        nf.grad(passes_an_option_twice)(X)


def extends_a_list_then_replaces_an_item(x):
    items = list(x)
    items.extend([x[1], x[2]])
    items[2] = items[2] * 2
    return sum(v**2 for v in items)


def test_an_item_replaced_in_a_list_extended_before():
    """`items.extend(...)` is made a new list bound to `items` again, so `items` is
    assigned `[]` and that list's name: the write was refused as into "an argument, or a
    view or alias of one", for `[]` did not count as a new value there."""
    assert_derivatives(extends_a_list_then_replaces_an_item, X)


class Scaler:
    @classmethod
    def gained(cls, z):
        return np.tanh(z) * cls.GAIN

    GAIN = 3.0


def calls_a_classmethod_on_its_class(w, x):
    return np.sum(Scaler.gained(x @ w) ** 2)


def test_a_classmethod_called_on_its_class():
    """`Scaler.gained(z)` resolves to a method bound to the class: it was called without
    its class ("cannot call Scaler.gained: missing a required argument: 'z'")."""
    w, x = np.array([0.5, -0.3, 0.8]), np.array([[1.0, 0.2, -0.4], [0.3, -1.1, 0.6]])
    assert_derivatives(calls_a_classmethod_on_its_class, w, x)


def reduces_along_rows(x):
    return (
        np.sum(np.add.reduce(x) ** 2)
        + np.multiply.reduce(x, axis=1).sum()
        + np.sum(np.maximum.reduce(x, axis=1, keepdims=True) * x)
        + np.minimum.reduce(x, axis=None)
    )


def accumulates(x):
    wealth = np.add.accumulate(x[0])
    drawdown = np.max(np.maximum.accumulate(wealth) - wealth)
    return (
        drawdown
        + np.sum(np.multiply.accumulate(x, axis=1) ** 2)
        + np.sum(np.minimum.accumulate(x, axis=1) * x)
    )


def outer_products(x):
    return (
        np.sum(np.multiply.outer(x[0], x[1]) ** 2)
        + np.sum(np.exp(-(np.subtract.outer(x[0], x[2, :2]) ** 2)))
        + np.sum(np.sin(np.add.outer(x, x[1, 0])))
        + np.sum(np.divide.outer(x[2], x[0, :2] + 3.0))
    )


@pytest.mark.parametrize("f", [reduces_along_rows, accumulates, outer_products])
def test_ufunc_methods_reduce_accumulate_and_outer(f):
    """np.maximum.reduce, np.maximum.accumulate (a running maximum), np.subtract.outer and
    the others were refused: 'no adjoint is registered for np.maximum.reduce'. (autograd's
    ufuncs have no methods.)"""
    x = np.array([[0.3, -1.2, 0.7, 2.1], [-0.4, 0.55, 1.3, -0.8], [0.9, 0.1, -1.5, 0.25]])
    assert_derivatives(f, x, autograd=False)


def pads_in_the_modes_copying_elements(x):
    image = x.reshape(2, 3)
    reflected = np.pad(image, ((2, 1), (0, 3)), mode="reflect")
    return (
        np.sum(reflected**2 * np.arange(30.0).reshape(5, 6))
        + np.sum(np.sin(np.pad(x, 2, "edge")))
        + np.sum(np.pad(x, (4, 1), mode="wrap") * np.arange(11.0))
        + np.sum(np.pad(image, 1, mode="symmetric") ** 3)
    )


def test_pad_by_the_edge_reflected_symmetric_or_wrapped():
    """np.pad's edge, reflect, symmetric and wrap modes copy elements, so their derivative
    pads alike and their adjoint adds each padded element's back: they were refused.
    (autograd pads in constant mode only.)"""
    assert_derivatives(pads_in_the_modes_copying_elements, X, autograd=False)


def sums_by_segment(x):
    segments = np.array([0, 0, 1, 3, 3, 3])
    sums = np.bincount(segments, weights=x**2, minlength=5)
    counts = np.bincount(segments, minlength=5)
    return np.sum(sums / np.maximum(counts, 1) * np.arange(1, 6)) + np.sum(
        np.bincount(np.array([2, 1, 1]), x[:3]) ** 2
    )


def test_bincount_of_weights():
    """np.bincount(segments, weights=w), a sum by segment, was refused: 'no adjoint is
    registered for numpy.bincount'. (autograd has no rule for it.)"""
    assert_derivatives(sums_by_segment, X, autograd=False)


def bessel_functions(x):
    import scipy.special as special

    orders = np.array([0.5, 2.0, 1.0, 3.0, 1.5, 0.0])
    return np.sum(
        special.jv(1.0, x) * special.jv(orders, x)
        + special.j0(x)
        + special.j1(x) ** 2
        + special.y0(x)
        + special.y1(x)
        + special.yv(0.5, x)
        + special.k0(x)
        + special.k1(x) * special.kv(1.5, x)
        + special.erfcx(x - 1)
    )


def test_bessel_functions_and_erfcx():
    """scipy.special's j0, j1, jv, y0, y1, yv, k0, k1, kv and erfcx were refused ('no
    adjoint is registered for sp.jv'); autograd has j0, j1, jv, y0, y1, yv."""
    assert_derivatives(bessel_functions, np.abs(X) + 0.2, autograd=False)


@dataclasses.dataclass
class Dense:
    w: np.ndarray
    b: np.ndarray

    def __call__(self, x):
        return np.tanh(x @ self.w + self.b)


def calls_a_layer_it_makes(w, x):
    return np.sum(Dense(w, np.ones(2))(x) ** 2)


def calls_a_layer_it_names(w, x):
    layer = Dense(w, np.ones(2))
    return np.sum(layer(x) ** 2)


def test_an_object_made_and_called_on_one_line_says_to_name_it():
    """Dense(w, b)(x) was refused as "runtime.replaced(Dense(None, np.ones(2)), 'w', w)(...)
    calls the function that ... returns": srcdiff's own rewriting, and no way out."""
    w, x = np.array([[0.5, -0.3], [0.8, 0.1]]), np.array([[1.0, 0.2], [0.3, -1.1]])
    with pytest.raises(nf.UnsupportedError, match="calls an object it makes") as error:
        nf.grad(calls_a_layer_it_makes)(w, x)
    assert "Dense(w, np.ones(2))(x)" in error.value.location.line
    assert "layer(x)" in error.value.hint
    assert_derivatives(calls_a_layer_it_names, w, x, autograd=False)


def reads_fields_by_getattr(layer, x):
    scale = getattr(layer, "scale", 2.0)  # (Dense has none: the default)
    return np.sum(np.tanh(x @ getattr(layer, "w") + layer.b) * scale) + np.sum(
        getattr(layer, "b", 0.0) ** 2
    )


def test_getattr_of_a_constant_name():
    """getattr(layer, "w") and getattr(layer, "scale", 2.0) were refused: 'getattr(...) of
    differentiated values cannot be differentiated'."""
    layer = Dense(np.array([[0.5, -0.3], [0.8, 0.1]]), np.array([0.2, -0.4]))
    x = np.array([[1.0, 0.2], [0.3, -1.1]])
    gradient = nf.grad(reads_fields_by_getattr)(layer, x)
    eps, f = 1e-6, reads_fields_by_getattr
    moved = [f(Dense(layer.w, layer.b + s * eps * np.array([1.0, 0.0])), x) for s in (1, -1)]
    assert gradient.b[0] == pytest.approx((moved[0] - moved[1]) / (2 * eps), rel=1e-6)
    expected = 2.0 * x.T @ (1 - np.tanh(x @ layer.w + layer.b) ** 2)
    np.testing.assert_allclose(gradient.w, expected)
    v = Dense(np.ones((2, 2)), np.zeros(2))
    assert nf.jvp(f)(layer, x, v)[1] == pytest.approx(np.sum(expected))


# --- silently wrong numbers ----------------------------------------------------------------------


class Network:
    scale = 2.5  # (a class attribute: no object holds it)

    def __init__(self, w):
        self.w = w

    def forward(self, x):
        return np.tanh(x @ self.w) * self.scale


def reads_a_class_attribute_through_an_object_it_makes(w, x):
    return np.sum(Network(w).forward(x) ** 2)


def test_a_class_attribute_read_through_an_object_has_no_tangent():
    """The tangent of an object is a copy of it with its fields' tangents, so
    runtime.field(dself, 'scale') read the class's 2.5 as the tangent of self.scale: forward
    mode gave 12.74 where -2.39 is right, and hvp was wrong too."""
    w, x = np.array([[0.5, -0.3], [0.8, 0.1]]), np.array([[1.0, 0.2], [0.3, -1.1], [0.6, 0.4]])
    assert_derivatives(reads_a_class_attribute_through_an_object_it_makes, w, x)


class Settings:
    GAIN = 2.0


def scaled_by_a_setting(z, settings):
    return np.tanh(z) * settings.GAIN


def passes_a_class_to_a_function(x):
    return np.sum(scaled_by_a_setting(x, Settings) ** 2)


def test_a_class_passed_to_a_function_reading_its_attribute():
    """A class (passed as a namespace of settings) kept for the backward sweep had None for
    a tangent: hvp raised AttributeError ('NoneType' object has no attribute 'GAIN'), and
    grad of grad "cannot differentiate the attribute .GAIN of a type"."""
    assert_derivatives(passes_a_class_to_a_function, X)


def sums_a_sliding_window(x):
    window = collections.deque(maxlen=2)
    total = 0.0
    for v in x:
        window.append(v)  # (drops the oldest item once two are held)
        total = total + sum(window) ** 2
    return total


def sums_an_unbounded_deque(x):
    items = collections.deque()
    for v in x:
        items.append(v * 2)
    return sum(items) * items[0]


def test_a_deque_with_a_maxlen_is_a_list_that_drops_its_first_item():
    """The backward sweep took window.append for a list's append, and read the window as
    it was at the end: the gradient was [-1.2, -1.8, 4.6, 5.6, 3.7, 0.3] where [-1.2, -2.8,
    4.6, 9.0, 3.7, 0.3] is right (hvp wrong too); then it was refused. A deque f makes and
    uses as a list is one now (deques.py), its maxlen an item popped after each append."""
    assert nf.grad(sums_a_sliding_window)(X) == pytest.approx([-1.2, -2.8, 4.6, 9.0, 3.7, 0.3])
    assert_derivatives(sums_a_sliding_window, X, autograd=False)
    assert_derivatives(sums_an_unbounded_deque, X, autograd=False)


class Delegating:
    def __init__(self, params):
        self._params = params

    def __getattr__(self, name):
        try:
            return self.__dict__["_params"][name]
        except KeyError:
            raise AttributeError(name) from None


def loss_of_a_delegating_object(m, x):
    return np.sum(np.tanh(x @ m.W) + m.b)


def test_an_attribute_a_getattr_gives_is_refused():
    """`m.W` of an object whose __getattr__ reads it from a dict it holds: the gradient
    went under .W, which the object does not hold, and was dropped: zeros, silently."""
    m = Delegating({"W": np.array([[0.5], [-1.2]]), "b": 0.3})
    with pytest.raises(nf.ArgumentError, match=r"cannot differentiate \.b of the Delegating"):
        nf.grad(loss_of_a_delegating_object)(m, np.array([[0.3, 1.1]]))


class Affinity(NamedTuple):
    w: np.ndarray
    b: float
    SCALE = 2.5  # (a class attribute: no field)

    def apply(self, x):
        return np.tanh(x @ self.w + self.b) * self.SCALE


def loss_of_a_namedtuple_reading_a_constant(p, x):
    return np.sum(p.apply(x) ** 2)


def test_a_namedtuples_class_constant_has_no_tangent_and_no_adjoint():
    """self.SCALE of a NamedTuple: forward mode read the tangent's SCALE, the class's 2.5
    (21.67 where -8.54 is right), and reverse mode raised a raw ValueError ('tuple.index(x):
    x not in tuple')."""
    p, x = Affinity(np.array([0.5, -1.2, 0.8]), 0.3), np.array([[0.3, 1.1, -0.7], [1.0, 0.2, 0.4]])
    v = Affinity(np.array([1.0, 0.0, -1.0]), 1.0)
    f = loss_of_a_namedtuple_reading_a_constant
    gradient, eps = nf.grad(f)(p, x), 1e-6
    moved = [f(Affinity(p.w + s * eps * v.w, p.b + s * eps), x) for s in (1, -1)]
    along = (moved[0] - moved[1]) / (2 * eps)
    assert gradient.w @ v.w + gradient.b == pytest.approx(along, rel=1e-6)
    assert nf.jvp(f)(p, x, v)[1] == pytest.approx(along, rel=1e-6)
    grads = [nf.grad(f)(Affinity(p.w + s * eps * v.w, p.b + s * eps), x) for s in (1, -1)]
    hv = nf.hvp(f)(p, x, v)
    np.testing.assert_allclose(hv.w, (grads[0].w - grads[1].w) / (2 * eps), rtol=1e-5)


class Linear:
    def __init__(self, w):
        self.w = w

    def forward(self, x):
        return x @ self.w


class Squashed(Linear):
    def forward(self, x):
        return np.tanh(super().forward(x)) * 2


class Shifted(Linear):
    def forward(self, x):
        return super(Shifted, self).forward(x) + 1.0


class Both(Squashed, Shifted):  # (Squashed's super() is Shifted here, then Linear)
    pass


def loss_of_a_subclass_made_here(w, x):
    return np.sum(Squashed(w).forward(x) ** 2)


def loss_of_a_subclass_argument(w, x, layer):
    return np.sum(layer.forward(x) ** 2) * np.sum(w)


@pytest.mark.parametrize("kind", [Squashed, Shifted, Both])
def test_super_in_a_method(kind):
    """super().forward(x) in a method raised RuntimeError ('super(): __class__ cell not
    found') from the emitted code, which has no __class__ cell; super(Shifted, self) was
    refused."""
    w, x = np.array([[0.5, -0.3], [0.8, 0.1]]), np.array([[1.0, 0.2], [0.3, -1.1]])
    assert_derivatives(loss_of_a_subclass_made_here, w, x, autograd=False)
    layer, eps = kind(w * 1.5), 1e-6
    gradient = nf.grad(loss_of_a_subclass_argument, wrt=2)(w, x, layer)
    f = loss_of_a_subclass_argument
    moved = [f(w, x, kind(layer.w + s * eps * np.eye(2))) for s in (1, -1)]
    expected = (moved[0] - moved[1]) / (2 * eps)
    assert np.trace(gradient.w) == pytest.approx(expected, rel=1e-6)


def normal_quantiles(theta):
    import scipy.stats as stats

    levels = 1 / (1 + np.exp(-theta[:3]))
    return np.sum(stats.norm.ppf(levels, theta[3], np.exp(theta[4])) ** 2) + np.sum(
        stats.norm.isf(levels * 0.5)
    )


def test_the_normal_quantile_functions():
    """scipy.stats.norm.ppf and isf were refused: 'no adjoint is registered for
    st.norm.ppf' (autograd has no rule for them)."""
    assert_derivatives(normal_quantiles, np.array([0.3, -1.2, 0.7, 0.4, -0.3]), autograd=False)
