"""Python as people write it (issue 16), one small function per construct (python_constructs.py):
srcdiff's gradient and tangent against central finite differences, and its Hessian-vector
product against central differences of its gradient.

A construct srcdiff cannot differentiate yet is an expected failure (strict: the mark must go
the moment it works) whose reason is what happens today: the first line of the SrcdiffError
(raises=SrcdiffError), or, worse, a raw exception (raises=its type)."""
import pytest

import srcdiff as nf
from python_constructs import CASES, callee_default_left_out, w_and_x
from pytree_oracle import (assert_leaves_close, brief_srcdiff_errors, finite_differences,
                           gradient_differences, inner, random_like, structure)
from srcdiff import SrcdiffError

# What happens today: construct -> in every mode, (construct, mode) -> in that mode; the first
# line of srcdiff's error [and the line it names], or (a raw exception's message, its type)
TODAY = {
    "inner def closing over parameters":
        "nested function definitions cannot be differentiated [def predict(inputs):]",
    "inner defs calling each other":
        "nested function definitions cannot be differentiated [def hidden(inputs):]",
    "inner def called in a loop":
        "nested function definitions cannot be differentiated [def step(h):]",
    "inner def of parameters and argument":
        "nested function definitions cannot be differentiated [def dense(W, inputs):]",
    "lambda assigned to a name":
        "cannot differentiate through act(...) [return np.sum(act(x @ w))]",
    "lambda closing over parameters":
        "a lambda that reads a differentiated value cannot be differentiated [predict = lambda "
        "inputs: np.tanh(inputs @ w)  # noqa: E731]",
    "closure made by a module function":
        "nested function definitions cannot be differentiated [def dense(inputs):]",
    "closure made inside":
        "nested function definitions cannot be differentiated [def make_scaled(scale):]",
    "user function as an argument":
        "cannot differentiate through activation(...) [return np.sum(activation(x @ w))]",
    "numpy function as an argument":
        "cannot differentiate through activation(...) [return np.sum(activation(x @ w))]",
    "function default used":
        "cannot differentiate through activation(...) [return np.sum(activation(x @ w))]",
    "function default unused":
        "cannot differentiate through np.sin(...) [return np.sum(np.sin(x @ w))]",
    "map over parameters":
        "no adjoint is registered for map [return sum(map(squared_norm, [w, x @ w]))]",
    "map a numpy function":
        "no adjoint is registered for list [return np.sum(np.stack(list(map(np.tanh, [w, 2.0 * "
        "w]))))]",
    "functools.partial":
        "cannot differentiate through act(...) [return np.sum(act(x @ w))]",
    "function from a dict":
        "cannot differentiate through act(...) [return np.sum(act(x @ w))]",
    "functions from a list":
        "cannot differentiate through act(...) [h = act(h)]",
    "for W, b in params":
        "this loop target cannot be differentiated [for W, b in params:]",
    "for W, b in params[:-1]; params[-1]":
        "this loop target cannot be differentiated [for W, b in params[:-1]:]",
    "for W, b in reversed(params)":
        "this loop target cannot be differentiated [for W, b in reversed(params):]",
    "zip(*pairs)":
        "no adjoint is registered for zip [Ws, bs = zip(*params)]",
    "*hidden, last = params":
        "assignment to '(*hidden, (W_out, b_out))' is not supported [*hidden, (W_out, b_out) = "
        "params]",
    "list(params)":
        "no adjoint is registered for list [layers = list(params)]",
    "iter and next":
        "no adjoint is registered for iter [layers = iter(params)]",
    "sorted(d)":
        "no adjoint is registered for sorted [for key in sorted(params):]",
    "dict(zip(keys, values))":
        "no adjoint is registered for dict [named = dict(zip(keys, params))]",
    "dict(w=..., b=...)":
        "no adjoint is registered for dict [named = dict(w=params[0], b=params[1])]",
    ("list from a helper, read by index", "grad"):
        ("pop from empty list", IndexError),
    ("list from a helper, read by index", "hvp"):
        "<emitted>:29: cannot differentiate through bhiddens.pop(...) [bh = bh + bhiddens.pop()]",
    ("list of a constant and differentiated values, stacked", "jvp"):
        ("'Sparse' object has no attribute 'append'", AttributeError),
    ("list of a constant and differentiated values, stacked", "hvp"):
        "<emitted>:22: srcdiff.runtime.core.add_items has no tangent template, so this "
        "higher-order derivative is not supported [bvalues = runtime.add_items(bvalues, "
        "[runtime.unstack(b_t2, _k) for _k in]",
    ("np.concatenate(tuple + tuple)", "grad"):
        "np.concatenate needs a list literal of arrays, or a list built with append, to be "
        "differentiated [return np.sum(np.concatenate(parts + (np.ones((x.shape[0], 1)),), "
        "axis=1) ** 2)]",
    ("np.concatenate(tuple + tuple)", "jvp"):
        ("setting an array element with a sequence. The requested array has an inhomogeneous "
         "shape after 2 dimensions. The detected shape was (3, 4) + inhomogeneous part.",
         ValueError),
    ("np.concatenate(tuple + tuple)", "hvp"):
        "np.concatenate needs a list literal of arrays, or a list built with append, to be "
        "differentiated [return np.sum(np.concatenate(parts + (np.ones((x.shape[0], 1)),), "
        "axis=1) ** 2)]",
    ("sum of a generator over zip", "hvp"):
        "<emitted>:33: srcdiff.runtime.core.add_items has no tangent template, so this "
        "higher-order derivative is not supported [b_items0 = runtime.add_items(b_items0, "
        "[runtime.unbroadcast(b_t6,]",
    "user generator of parameter pieces":
        "generators and coroutines cannot be differentiated [yield piece]",
    "collections.namedtuple argument":
        "Attribute expressions on differentiated values are not supported [return "
        "np.sum(np.tanh(x @ layer.W + layer.b))]",
    "typing.NamedTuple argument":
        "Attribute expressions on differentiated values are not supported [return "
        "np.sum(np.tanh(x @ layer.W + layer.b))]",
    "dataclass argument":
        "Attribute expressions on differentiated values are not supported [return "
        "np.sum(np.tanh(x @ layer.W + layer.b))]",
    "method of a constant object":
        "no adjoint is registered for python_constructs.Model.predict [return "
        "np.sum(MODEL.predict(w, x) ** 2)]",
    ("callee loops over an int array, indexing", "hvp"):
        "<emitted>:39: np.s_ is indexed by a differentiated value, which has no derivative [bB = "
        "runtime.add_at(bB, B, np.s_[:, c], b_t0)]",
    "*args callee":
        "*args and **kwargs parameters are not supported [def total_of(*values):]",
    "**kwargs callee":
        "*args and **kwargs parameters are not supported [def weighted(a, **weights):]",
    "f(*pair)":
        "*args/**kwargs in a differentiated call are not supported [return np.sum(dense(*pair))]",
    "print":
        "a bare expression on a differentiated value has no effect on the result or mutates it in"
        ' place, which srcdiff cannot differentiate [print("y is", np.sum(y))]',
    "print under an if":
        "a bare expression on a differentiated value has no effect on the result or mutates it in"
        ' place, which srcdiff cannot differentiate [print("large:", np.sum(y))]',
    "logging":
        "a bare expression on a differentiated value has no effect on the result or mutates it in"
        ' place, which srcdiff cannot differentiate [log.debug("sum of y: %s", np.sum(y))]',
    "with np.errstate":
        'with blocks cannot be differentiated [with np.errstate(divide="ignore", '
        'invalid="ignore"):]',
    "with warnings.catch_warnings":
        "with blocks cannot be differentiated [with warnings.catch_warnings():]",
    "with contextlib.nullcontext":
        "with blocks cannot be differentiated [with contextlib.nullcontext():]",
    "try/finally":
        "try/except cannot be differentiated [try:]",
}


def cases(mode):
    params = []
    for name, (function, make_args) in CASES.items():
        today = TODAY.get((name, mode), TODAY.get(name))
        reason, raises = today if isinstance(today, tuple) else (today, SrcdiffError)
        marks = () if today is None else pytest.mark.xfail(strict=True, raises=raises,
                                                           reason=reason)
        params.append(pytest.param(function, make_args, marks=marks, id=name))
    return params


@pytest.mark.parametrize("function, make_args", cases("grad"))
def test_gradient_matches_finite_differences(function, make_args):
    args = make_args()
    with brief_srcdiff_errors():
        gradient = nf.grad(function)(*args)
    assert structure(gradient) == structure(args[0])
    assert_leaves_close(gradient, finite_differences(function, args), 1e-5, 1e-7,
                        "srcdiff against finite differences")


@pytest.mark.parametrize("function, make_args", cases("jvp"))
def test_tangent_matches_finite_differences(function, make_args):
    args = make_args()
    direction = random_like(args[0], seed=1)
    with brief_srcdiff_errors():
        value, tangent = nf.jvp(function, wrt=0)(*args, direction)
    assert value == pytest.approx(function(*args), rel=1e-12)
    expected = inner(finite_differences(function, args), direction)
    assert tangent == pytest.approx(expected, rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("function, make_args", cases("hvp"))
def test_hessian_vector_product_matches_differences_of_the_gradient(function, make_args):
    args = make_args()
    direction = random_like(args[0], seed=1)
    with brief_srcdiff_errors():
        product = nf.hvp(function)(*args, direction)
    assert structure(product) == structure(args[0])
    assert_leaves_close(product, gradient_differences(nf.grad(function), args, direction),
                        1e-5, 1e-7, "srcdiff's hvp against differences of its gradient")


@pytest.mark.xfail(strict=True, raises=SrcdiffError,
                   reason="wrt must be an int or a non-empty tuple of ints, not 'w'")
def test_wrt_by_parameter_name():
    w, x = w_and_x()
    with brief_srcdiff_errors():
        gradient = nf.grad(callee_default_left_out, wrt="w")(w, x)
    assert_leaves_close(gradient, finite_differences(callee_default_left_out, (w, x)), 1e-5,
                        1e-7, "wrt='w' against finite differences")
