"""Styles of loss function found in published numpy programs (helpers with many parameters,
layer classes, array-module parameters): each minimised to a reproduction of our own and
checked against finite differences and autograd, or refused at the user's line with a way
out."""

import inspect
import warnings

import numpy as np
import pytest

import srcdiff as nf
from srcdiff import codegen
from oracle import finite_differences
from test_found_idioms import assert_derivatives

# --- a helper taking many parameters -------------------------------------------------------------


def gate_of_many_parameters(
    x,
    hidden,
    weight_of_hidden_state,
    bias_of_hidden_state,
    weight_of_input,
    bias_of_input,
    scale,
    shift,
):
    pre_activation = weight_of_hidden_state * hidden + bias_of_hidden_state + weight_of_input * x
    return np.tanh(pre_activation + bias_of_input) * scale + shift


def loss_through_a_gate_of_many_parameters(params, x):
    return np.sum(gate_of_many_parameters(x, 0.5, *params) ** 2)


def test_a_helper_whose_gradient_returns_a_long_tuple():
    """The backward half of a helper of eight parameters returns their adjoints in one line
    longer than a line may be: it was wrapped as `(return bhidden, bweight_of_hidden_state, ...)`, a
    SyntaxError in the emitted code."""
    params = [np.array([0.1, -0.4]), 0.2, np.array([0.7, 0.3]), -0.1, 1.5, 0.25]
    assert_derivatives(loss_through_a_gate_of_many_parameters, params, np.array([0.3, -0.8]))


def test_wrap_keeps_return_outside_the_parentheses_of_its_tuple():
    line = "    return " + ", ".join(f"adjoint_of_parameter_{k}" for k in range(5)) + "\n"
    wrapped = codegen.wrap(line, codegen._line_tokens(line.rstrip("\n")))
    assert wrapped.startswith("    return (adjoint_of_parameter_0, ")
    compile("def f():\n" + wrapped, "<wrapped>", "exec")


# --- an array-module parameter (xp=numpy) --------------------------------------------------------


def scaled_tanh(x, xp=np):
    return xp.tanh(x * 0.5) * 0.5 + 0.5


def loss_through_a_default_module(x):
    return np.sum(scaled_tanh(x) * x)


def loss_passing_the_module(x):
    return np.sum(scaled_tanh(x, np) ** 2)


def loss_of_its_own_module(x, xp=np):
    return xp.sum(xp.exp(xp.sin(x)))


def test_an_array_module_parameter_is_the_module_its_call_passes():
    """`def sigmoid(x, xp=numpy): return xp.tanh(x * half) * half + half` (as chainer's LSTM
    writes it) was refused, `xp.tanh(...)` a call of a parameter known only when the call
    runs, with a hint to give the parameter the default it had; a module passed for it was
    refused as a function chosen at run time. A module, as a function, is what the code is
    made for."""
    x = np.array([0.3, -1.2, 0.7, 2.1])
    assert_derivatives(loss_through_a_default_module, x, autograd=False)
    assert_derivatives(loss_passing_the_module, x, autograd=False)
    assert_derivatives(loss_of_its_own_module, x, autograd=False)
    expected = np.cos(x) * np.exp(np.sin(x))
    np.testing.assert_allclose(nf.grad(loss_of_its_own_module)(x, np), expected)


# --- a layer keeping its input for a hand-written backward pass ---------------------------------


class CachingLayer:
    def __init__(self, weight):
        self.weight = weight

    def forward(self, x):
        self.x = x  # (what its own backward method would read)
        return np.tanh(x @ self.weight)


def loss_of_a_caching_layer(layer, x):
    return np.sum(layer.forward(x) ** 2)


def test_a_layer_keeping_its_input_is_refused_with_a_way_out():
    """`self.x = x` in a layer's forward method was refused as 'not supported' with the hint
    'assign to plain names': the error says srcdiff does not follow a change to an object,
    and that a value kept for a hand-written backward pass can go."""
    layer, x = CachingLayer(np.ones((3, 2))), np.ones((4, 3))
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(loss_of_a_caching_layer)(layer, x)
    text = str(error.value)
    lines, first = inspect.getsourcelines(CachingLayer.forward)
    assert f"{__file__}:{first + 1}:" in text and "self.x = x" in text, text
    assert "does not follow a change" in text and "hand-written backward pass" in text, text
    assert "delete it" in text.split("hint:")[1], text


# --- a method returning a tuple (an LSTM cell's (h, c)) ------------------------------------------


class Cell:
    def __init__(self, weight, bias):
        self.params = [weight, bias]

    def forward(self, x, h, c):
        weight, bias = self.params
        gate = np.tanh(x @ weight + h * bias)
        c_next = c * 0.5 + gate
        return np.tanh(c_next) * gate, c_next


def loss_of_a_cell_run_over_steps(cell, xs):
    h, c = np.zeros(2), np.zeros(2)
    for x in xs:
        h, c = cell.forward(x, h, c)
    return np.sum(h**2) + np.sum(c)


GLOBAL_CELL = Cell(np.array([[0.5, -0.3], [0.1, 0.4]]), np.array([0.8, 0.2]))


def loss_of_a_global_cell(xs):
    h, c = GLOBAL_CELL.forward(xs[0], np.zeros(2), xs[1])
    return np.sum(h * c)


def test_what_a_method_returns_in_a_tuple_varies_with_its_object():
    """`h, c = cell.forward(x, h, c)` (a method returning a tuple display, as an LSTM layer
    class's does): which of its items vary was worked out from the call's arguments alone,
    counted from the method's `self`. With the object differentiated and x constant, none
    did: the gradient was 0 (its loop over steps, some other wrong number)."""
    weight, bias = np.array([[0.5, -0.3], [0.1, 0.4]]), np.array([0.8, 0.2])
    xs = np.array([[0.3, 1.0], [-0.5, 0.7], [1.2, 0.1]])

    def of_parameters(flat):
        cell = Cell(flat[:4].reshape(2, 2), flat[4:])
        return loss_of_a_cell_run_over_steps(cell, xs)

    flat = np.concatenate([weight.ravel(), bias])
    expected = finite_differences(of_parameters, (flat,), 0)
    cell = Cell(weight, bias)
    gradient = nf.grad(loss_of_a_cell_run_over_steps)(cell, xs)
    got = np.concatenate([gradient.params[0].ravel(), gradient.params[1]])
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)
    v = np.linspace(-1.0, 1.0, 6)
    tangent = nf.jvp(loss_of_a_cell_run_over_steps)(cell, xs, Cell(v[:4].reshape(2, 2), v[4:]))
    np.testing.assert_allclose(tangent[1], expected @ v, rtol=1e-6)
    assert_derivatives(loss_of_a_global_cell, xs, autograd=False)


# --- an object made where it is passed (a kernel of hyperparameters) -----------------------------


class ScaledSquare:
    def __init__(self, log_scale, offset):
        self.log_scale = log_scale
        self.offset = offset

    def __call__(self, x):
        return np.exp(self.log_scale) * (x - self.offset) ** 2


def summed_by(kernel, x):
    return np.sum(kernel(x))


def loss_of_a_kernel_made_where_it_is_passed(theta, x):
    return summed_by(ScaledSquare(theta[0], theta[1]), x) + theta[0] ** 2


def test_an_object_made_where_it_is_passed_is_followed_as_a_named_one():
    """nlml(RBF(theta[0], theta[1]), X, y), nlml calling kernel(X, X): refused, saying
    that nlml calls a function or object the RBF holds (it holds arrays; nlml calls the
    object), where `k = RBF(...)` then nlml(k, X, y) was followed. An object made in the
    call's own argument list is of a class known as well."""
    x = np.array([0.5, -1.0, 2.0])
    assert_derivatives(loss_of_a_kernel_made_where_it_is_passed, np.array([0.3, -0.2]), x)


# --- layer keys made with str() ------------------------------------------------------------------


def loss_of_layers_keyed_by_number(parameters, x):
    a = x
    for layer in range(1, len(parameters) // 2 + 1):
        a = np.tanh(parameters["W" + str(layer)] @ a + parameters["b" + str(layer)])
    return np.sum(a**2)


def test_str_in_f_raises_no_warning_of_numpy():
    """`parameters['W' + str(l)]` (a deeplearning.ai course's layer keys): srcdiff looked
    `str` up as np.str to spell it, and numpy's FutureWarning about np.str reached the user."""
    parameters = {"W1": np.eye(2) * 0.5, "b1": np.array([0.1, -0.2]), "W2": np.ones((2, 2))}
    parameters["b2"] = np.zeros(2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_derivatives(loss_of_layers_keyed_by_number, parameters, np.array([0.3, -0.7]))


# --- np.matrix ------------------------------------------------------------------------------------


def loss_of_a_matrix_port(theta, x):
    theta = np.matrix(theta)
    return np.sum(np.multiply(x * theta.T, 2.0))


def test_np_matrix_is_refused_with_the_array_way_to_write_it():
    """`theta = np.matrix(theta)` (a classic course's port to numpy) was refused with the
    hint to register an adjoint for np.matrix: the error says srcdiff differentiates arrays,
    and how to write the matrix's products with them."""
    with pytest.raises(nf.NoAdjointError) as error:
        nf.grad(loss_of_a_matrix_port)(np.ones(3), np.ones((2, 3)))
    text = str(error.value)
    lines, first = inspect.getsourcelines(loss_of_a_matrix_port)
    assert f"{__file__}:{first + 1}:" in text and "theta = np.matrix(theta)" in text, text
    assert "numpy's class matrix" in text and "np.matrix's * as @" in text, text
