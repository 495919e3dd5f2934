"""Oracles for derivatives with respect to a pytree argument (tests/test_programs.py, and
the constructs of python_constructs.py, container_constructs.py and function_values.py):
central finite differences leaf by leaf, and autograd, which differentiates the function of
the list of leaves. A pytree is a dict, list, tuple, namedtuple or dataclass of float arrays
(or floats)."""

import contextlib
import dataclasses
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from gradcheck import numerical_grad
import srcdiff as nf
from srcdiff import SrcdiffError


class brief_srcdiff_errors(contextlib.AbstractContextManager):
    """A SrcdiffError raised inside loses srcdiff's frames (its message names the file and
    line): pytest renders every frame of an expected failure too, about 1 s through srcdiff."""

    def __exit__(self, kind, error, traceback):
        if isinstance(error, SrcdiffError):
            raise error.with_traceback(None) from None


def leaves(tree):
    if isinstance(tree, dict):
        return [leaf for key in sorted(tree) for leaf in leaves(tree[key])]
    if isinstance(tree, (list, tuple)):
        return [leaf for item in tree for leaf in leaves(item)]
    if dataclasses.is_dataclass(tree) and not isinstance(tree, type):
        return [
            leaf for field in dataclasses.fields(tree) for leaf in leaves(getattr(tree, field.name))
        ]
    return [tree]


def rebuild(tree, values):
    """`tree` with its leaves replaced, in order, by the items of the iterator `values`."""
    if isinstance(tree, dict):
        rebuilt = {key: rebuild(tree[key], values) for key in sorted(tree)}
        return {key: rebuilt[key] for key in tree}
    if isinstance(tree, tuple) and hasattr(tree, "_fields"):
        return type(tree)(*(rebuild(item, values) for item in tree))
    if isinstance(tree, (list, tuple)):
        return type(tree)(rebuild(item, values) for item in tree)
    if dataclasses.is_dataclass(tree) and not isinstance(tree, type):
        return dataclasses.replace(
            tree,
            **{
                field.name: rebuild(getattr(tree, field.name), values)
                for field in dataclasses.fields(tree)
            },
        )
    return next(values)


def structure(tree):
    """The containers' types and the leaves' shapes: what a gradient must share with its
    argument."""
    return rebuild(tree, iter([np.shape(leaf) for leaf in leaves(tree)]))


def random_like(tree, seed):
    draw = np.random.default_rng(seed)
    return rebuild(
        tree,
        iter(
            [
                float(draw.normal())
                if isinstance(leaf, float)
                else draw.normal(size=np.shape(leaf))
                for leaf in leaves(tree)
            ]
        ),
    )


def inner(a, b):
    return sum(float(np.sum(np.asarray(x) * np.asarray(y))) for x, y in zip(leaves(a), leaves(b)))


def _of_leaves(f, args, wrt):
    """f as a function of the list of args[wrt]'s leaves, the other arguments held."""

    def of_leaves(values):
        return f(*args[:wrt], rebuild(args[wrt], iter(values)), *args[wrt + 1 :])

    return of_leaves


def finite_differences(f, args, wrt=0):
    """The gradient of scalar f with respect to each leaf of args[wrt], as a list."""
    of_leaves, values = _of_leaves(f, args, wrt), leaves(args[wrt])
    gradients = []
    for k in range(len(values)):

        def of_leaf(value, k=k):
            return of_leaves(values[:k] + [value] + values[k + 1 :])

        gradients.append(numerical_grad(of_leaf, (values[k],), 0))
    return gradients


def gradient_differences(gradient, args, v, wrt=0, eps=1e-5):
    """H v by central differences of the function `gradient` (of the same arguments) along
    the pytree v, leaf by leaf."""

    def at(sign):
        moved = rebuild(
            args[wrt], iter([x + sign * eps * d for x, d in zip(leaves(args[wrt]), leaves(v))])
        )
        return leaves(gradient(*args[:wrt], moved, *args[wrt + 1 :]))

    return [(plus - minus) / (2 * eps) for plus, minus in zip(at(1.0), at(-1.0))]


def autograd_grad(f, args, wrt=0):
    """autograd's gradient with respect to each leaf of args[wrt] (f written with `np` bound
    to autograd.numpy), as a list."""
    import autograd

    return autograd.grad(_of_leaves(f, args, wrt))(leaves(args[wrt]))


def autograd_hvp(f, args, v, wrt=0):
    """The Hessian of f with respect to args[wrt] times the pytree v, leaf by leaf, by reverse
    over reverse (autograd's forward mode lacks some second derivatives)."""
    import autograd

    of_leaves = _of_leaves(f, args, wrt)
    directions = leaves(v)

    def along_v(values):
        return sum(
            autograd.numpy.sum(g * d) for g, d in zip(autograd.grad(of_leaves)(values), directions)
        )

    return autograd.grad(along_v)(leaves(args[wrt]))


def assert_leaves_close(got, expected, rtol, atol, what):
    """The leaves of the pytree `got` are close to the list `expected`."""
    got = leaves(got)
    assert len(got) == len(expected), f"{what}: {len(got)} leaves, expected {len(expected)}"
    for k, (g, e) in enumerate(zip(got, expected)):
        np.testing.assert_allclose(
            np.asarray(g, dtype=np.float64), e, rtol=rtol, atol=atol, err_msg=f"{what}, leaf {k}"
        )


def module_for_autograd(module):
    """`module` made anew from its source with `np` bound to autograd.numpy (its classes and
    globals made from the same seeds): the autograd twins of its functions."""
    path = Path(module.__file__)
    twin = types.ModuleType(f"{module.__name__}_autograd")
    twin.__file__ = f"{path} (autograd.numpy)"
    sys.modules[twin.__name__] = twin
    source = path.read_text().replace("import numpy as np\n", "import autograd.numpy as np\n")
    exec(compile(source, twin.__file__, "exec"), vars(twin))
    return twin


def checked_gradient(function, args):
    """srcdiff's gradient w.r.t. the first argument, checked against central differences."""
    with brief_srcdiff_errors():
        gradient = nf.grad(function)(*args)
    assert structure(gradient) == structure(args[0])
    assert_leaves_close(
        gradient,
        finite_differences(function, args),
        1e-5,
        1e-7,
        "srcdiff against finite differences",
    )
    return gradient


def check_tangent(function, args):
    """srcdiff's value and tangent along a random direction against f's value and central
    differences."""
    direction = random_like(args[0], seed=1)
    with brief_srcdiff_errors():
        value, tangent = nf.jvp(function, wrt=0)(*args, direction)
    assert value == pytest.approx(function(*args), rel=1e-12)
    expected = inner(finite_differences(function, args), direction)
    assert tangent == pytest.approx(expected, rel=1e-6, abs=1e-8)


def checked_hvp(function, args):
    """(srcdiff's Hessian-vector product, its direction), checked against differences of its
    gradient."""
    direction = random_like(args[0], seed=1)
    with brief_srcdiff_errors():
        product = nf.hvp(function)(*args, direction)
    assert structure(product) == structure(args[0])
    assert_leaves_close(
        product,
        gradient_differences(nf.grad(function), args, direction),
        1e-5,
        1e-7,
        "srcdiff's hvp against differences of its gradient",
    )
    return product, direction
