"""Two oracles for srcdiff's derivatives: central finite differences in float64, and autograd
running the same source (with `np` bound to `autograd.numpy`); and a table of functions to
check against them, in which finite differences decide. Used by tests/test_oracle.py and
tests/test_found_bugs.py; arguments may be floats, arrays or lists/tuples/dicts of them."""

import functools
import sys
import types

import numpy as np
import pytest

import srcdiff as nf

from gradcheck import numerical_grad


# --- pytrees -------------------------------------------------------------------------------------


def leaves(tree):
    if isinstance(tree, dict):
        return [leaf for key in sorted(tree) for leaf in leaves(tree[key])]
    if isinstance(tree, (list, tuple)):
        return [leaf for item in tree for leaf in leaves(item)]
    return [tree]


def rebuild(tree, values):
    """`tree` with its leaves replaced, in order, by those of the iterator `values`."""
    if isinstance(tree, dict):
        return {key: rebuild(tree[key], values) for key in sorted(tree)}
    if isinstance(tree, (list, tuple)):
        return type(tree)(rebuild(item, values) for item in tree)
    return next(values)


def is_float(leaf):
    return isinstance(leaf, float) or (isinstance(leaf, np.ndarray) and leaf.dtype.kind == "f")


def random_like(tree, seed):
    """Normal draws in the structure, shapes and dtypes of tree's float leaves (0 for the
    others)."""
    draw = np.random.default_rng(seed)
    return rebuild(
        tree,
        iter(
            float(draw.normal())
            if isinstance(x, float)
            else draw.normal(size=x.shape).astype(x.dtype)
            if is_float(x)
            else 0
            for x in leaves(tree)
        ),
    )


def widened(args):
    """args with float32 leaves made float64 (finite differences of a float32 gradient are
    noise)."""
    return rebuild(
        args,
        iter(
            x.astype(np.float64) if getattr(x, "dtype", None) == np.float32 else x
            for x in leaves(args)
        ),
    )


def shifted(args, wrt, eps, v):
    """args with args[wrt] moved by eps * v (leaf by leaf)."""
    moved = rebuild(
        args[wrt],
        iter(x + eps * u if is_float(x) else x for x, u in zip(leaves(args[wrt]), leaves(v))),
    )
    return (*args[:wrt], moved, *args[wrt + 1 :])


def inner(a, b):
    return sum(
        float(np.sum(np.asarray(x, np.float64) * np.asarray(y, np.float64)))
        for x, y in zip(leaves(a), leaves(b))
        if x is not None and y is not None
    )


# --- finite differences --------------------------------------------------------------------------


def finite_differences(f, args, wrt):
    """The gradient of scalar f w.r.t. args[wrt] (a leaf or a pytree), in float64; None for
    leaves that are not floats."""
    tree, out = args[wrt], []
    for k, leaf in enumerate(leaves(tree)):
        if not is_float(leaf):
            out.append(None)
            continue

        def of_leaf(value, k=k):
            items = leaves(tree)
            items[k] = value
            return f(*args[:wrt], rebuild(tree, iter(items)), *args[wrt + 1 :])

        start = float(leaf) if isinstance(leaf, float) else leaf.astype(np.float64)
        out.append(numerical_grad(of_leaf, (start,), 0))
    return rebuild(tree, iter(out))


def gradient_along(grad_f, args, wrt, v, eps=1e-5):
    """Central differences of a gradient function along v: H v."""
    plus, minus = grad_f(*shifted(args, wrt, eps, v)), grad_f(*shifted(args, wrt, -eps, v))
    return rebuild(
        plus,
        iter(
            None if p is None else (np.asarray(p, np.float64) - m) / (2 * eps)
            for p, m in zip(leaves(plus), leaves(minus))
        ),
    )


# --- comparisons ---------------------------------------------------------------------------------


def assert_close(got, expected, rtol, atol, what):
    got_leaves, expected_leaves = leaves(got), leaves(expected)
    assert len(got_leaves) == len(expected_leaves), (what, got, expected)
    for g, e in zip(got_leaves, expected_leaves):
        if e is not None:
            np.testing.assert_allclose(
                np.asarray(g, np.float64),
                np.asarray(e, np.float64),
                rtol=rtol,
                atol=atol,
                err_msg=what,
            )


def close(got, expected, rtol, atol):
    try:
        assert_close(got, expected, rtol, atol, "")
    except AssertionError:
        return False
    return True


# --- autograd ------------------------------------------------------------------------------------


@functools.cache
def _autograd_namespace(module_name):
    """The module's globals with `np` bound to autograd.numpy (and the names its
    AUTOGRAD_NAMES gives, helpers/autograd_twins.py) and each function the module defines
    recreated there (so calls between them stay inside autograd)."""
    import autograd.numpy as anp

    module_globals = vars(sys.modules[module_name])
    namespace = {**module_globals, "np": anp, **module_globals.get("AUTOGRAD_NAMES", {})}
    for name, value in module_globals.items():
        if isinstance(value, types.FunctionType) and value.__module__ == module_name:
            namespace[name] = _twin_in(value, namespace)
    return namespace


def _twin_in(f, namespace):
    return types.FunctionType(f.__code__, namespace, f.__name__, f.__defaults__, f.__closure__)


def autograd_twin(f):
    """f's code with `np` meaning autograd.numpy."""
    return _twin_in(f, _autograd_namespace(f.__module__))


def autograd_grad(f, args, wrt):
    import autograd

    return autograd.grad(autograd_twin(f), wrt)(*args)


def autograd_jvp(f, args, wrt, v):
    import autograd

    return autograd.make_jvp(autograd_twin(f), wrt)(*args)(v)[1]


def autograd_hvp(f, args, wrt, v):
    """H v by reverse over reverse (autograd's forward mode lacks some second derivatives)."""
    import autograd

    vjp, _ = autograd.make_vjp(autograd.grad(autograd_twin(f), wrt), wrt)(*args)
    return vjp(v)


# --- a table of functions checked against both ---------------------------------------------------


class Table:
    """Rows registered with `@table.case(...)`; `table.params(mode)` makes a test of each."""

    def __init__(self):
        self.rows = []

    def case(
        self,
        *args,
        wrt=0,
        autograd=None,
        autograd_wrong=None,
        second=True,
        xfail=None,
        rtol=1e-5,
        atol=1e-7,
    ):
        """Register the decorated function as a row: its arguments, the argument `wrt`, why
        autograd cannot run it (a reason, or {mode: reason}), {mode: reason} where autograd is
        wrong (finite differences side with srcdiff), whether to check second order, and
        {mode: reason} for the modes in which srcdiff is known to be wrong (strict xfails)."""

        def register(f):
            self.rows.append(
                types.SimpleNamespace(
                    f=f,
                    args=args,
                    wrt=wrt,
                    autograd=autograd,
                    autograd_wrong=autograd_wrong or {},
                    second=second,
                    xfail=xfail or {},
                    rtol=rtol,
                    atol=atol,
                )
            )
            return f

        return register

    def params(self, mode):
        out = []
        for row in self.rows:
            if mode not in ("reverse", "forward") and not row.second:
                continue
            marks = (
                [pytest.mark.xfail(strict=True, reason=row.xfail[mode])]
                if mode in row.xfail
                else []
            )
            out.append(pytest.param(row, id=row.f.__name__, marks=marks))
        return out


def autograd_runs(row, mode):
    return row.autograd is None or isinstance(row.autograd, dict) and mode not in row.autograd


def judge(row, mode, got, expected, autograd_result, scale=1.0):
    """srcdiff must match finite differences, and so must autograd (where it runs), unless
    the row says autograd is wrong in this mode: then it must still be."""
    rtol, atol = row.rtol * scale, row.atol * scale
    if any(getattr(x, "dtype", None) == np.float32 for x in leaves(row.args)):
        rtol, atol = max(rtol, 2e-3), max(atol, 1e-4)  # float32 against float64 differences
    assert_close(got, expected, rtol, atol, f"srcdiff {mode} vs finite differences")
    if not autograd_runs(row, mode):
        return
    theirs = autograd_result()
    if mode in row.autograd_wrong:
        assert not close(theirs, expected, rtol, atol), "autograd is right here now"
        return
    assert_close(theirs, expected, rtol, atol, f"autograd {mode} vs finite differences")
    assert_close(got, theirs, max(rtol, 1e-6), max(atol, 1e-9), f"srcdiff {mode} vs autograd")


# --- the checks of a table's rows, mode by mode ---------------------------------------------------
# (`calls`: how many times the same derivative is called: a first call specialises its code,
# a later one runs what it made)


def check_reverse(row, calls=1):
    expected = finite_differences(row.f, row.args, row.wrt)
    gradient = nf.grad(row.f, wrt=row.wrt)
    for _ in range(calls):
        got = gradient(*row.args)
        judge(row, "reverse", got, expected, lambda: autograd_grad(row.f, row.args, row.wrt))
    return got


def check_forward(row, calls=1):
    v = random_like(row.args[row.wrt], seed=1)
    expected = inner(finite_differences(row.f, row.args, row.wrt), v)
    jvp = nf.jvp(row.f, wrt=row.wrt)
    for _ in range(calls):
        value, got = jvp(*row.args, v)
        assert_close(value, row.f(*row.args), 1e-12, 0, "jvp's value")
        judge(row, "forward", got, expected, lambda: autograd_jvp(row.f, row.args, row.wrt, v))


def check_hvp(row, calls=1):
    v = random_like(row.args[row.wrt], seed=2)
    expected = gradient_along(nf.grad(row.f, wrt=row.wrt), widened(row.args), row.wrt, v)
    hvp = nf.hvp(row.f, wrt=row.wrt)
    for _ in range(calls):
        got = hvp(*row.args, v)
        theirs = lambda: autograd_hvp(row.f, row.args, row.wrt, v)  # noqa: E731
        judge(row, "hvp", got, expected, theirs, scale=30)


def check_grad_of_grad(row, calls=1):
    """nf.grad(nf.grad(f)) of a float argument; of anything else the vjp of the gradient
    (reverse over reverse: H u)."""
    gradient = nf.grad(row.f, wrt=row.wrt)
    if isinstance(row.args[row.wrt], float):
        u, of_gradient = 1.0, nf.grad(gradient, wrt=row.wrt)
    else:
        u, vjp = random_like(row.args[row.wrt], seed=3), nf.vjp(gradient, wrt=row.wrt)
        of_gradient = lambda *args: vjp(*args)[1](u)  # noqa: E731
    expected = gradient_along(gradient, widened(row.args), row.wrt, u)
    for _ in range(calls):
        got = of_gradient(*row.args)
        theirs = lambda: autograd_hvp(row.f, row.args, row.wrt, u)  # noqa: E731
        judge(row, "grad_of_grad", got, expected, theirs, scale=30)
