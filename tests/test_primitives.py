"""Every built-in primitive, checked from its record's samples (srcdiff/primitives/): reverse
and forward mode against central differences in float64, second order (forward over reverse
against finite differences of the gradient, and reverse over reverse against it), float32 in
giving float32 out. The tests are generated from the registry, as JAX's are from its tables."""

import importlib.util
import os
import tempfile
import zlib

import numpy as np
import pytest

import srcdiff as nf
from gradcheck import check_grad, numerical_grad
from srcdiff import runtime
from srcdiff.primitives import registry

try:  # SciPy's primitives are declared once its modules are imported: checked where it is
    import scipy.linalg
    import scipy.signal
    import scipy.spatial.distance
    import scipy.special
    import scipy.stats  # noqa: F401

    SCIPY = [
        "import scipy.linalg",
        "import scipy.signal",
        "import scipy.spatial.distance",
        "import scipy.special",
        "import scipy.stats",
    ]
except ImportError:
    SCIPY = []

_BUILT_IN = (
    "math",
    "numpy",
    "builtins",
    "copy",
    "_operator",
    "operator",
    "srcdiff.runtime",
    "srcdiff.primitives",
    "scipy",
)


def _built_in(record):
    modules = [getattr(f, "__module__", None) or "numpy" for f in record.functions]
    return any(m.startswith(_BUILT_IN) for m in modules) or not record.functions


RECORDS = [r for r in registry.records() if _built_in(r)]
SAMPLES = [(record, k, sample) for record in RECORDS for k, sample in enumerate(record.samples)]
IDS = [f"{record.name}-{k}" for record, k, _ in SAMPLES]
_WRAPS = {"sin": "np.sum(np.sin({}))", "abs2": "np.sum(np.abs({}) ** 2)", None: "{}"}


def _module():
    """One module with a function per sample (srcdiff reads functions' source from files)."""
    lines = [
        "import copy",
        "import math",
        "import numpy as np",
        "from srcdiff import runtime",
        *SCIPY,
        "",
    ]
    for number, (_, _, sample) in enumerate(SAMPLES):
        lines.append(f"def sample_{number}({', '.join(sample.args)}):")
        if sample.setup:
            lines.append(f"    {sample.setup}")
        lines += [f"    return {_WRAPS[sample.wrap].format(sample.call)}", ""]
    path = os.path.join(tempfile.mkdtemp(prefix="srcdiff-samples-"), "primitive_samples.py")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    spec = importlib.util.spec_from_file_location("primitive_samples", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MODULE = _module()


def case(index):
    """(f, its arguments, the positions to differentiate) for sample number `index`."""
    record, k, sample = SAMPLES[index]
    rng = np.random.default_rng(zlib.crc32(IDS[index].encode()))
    args = [make(rng) for make in sample.args.values()]
    with np.errstate(all="raise"):  # a sample outside its function's domain checks nothing
        assert np.isfinite(getattr(MODULE, f"sample_{index}")(*args))
    wrt = tuple(
        i
        for i, (name, a) in enumerate(zip(sample.args, args))
        if name not in sample.constant
        and (type(a) is float or isinstance(a, np.ndarray) and a.dtype.kind == "f")
    )
    return getattr(MODULE, f"sample_{index}"), args, wrt


def test_every_primitive_has_a_sample():
    assert [r.name for r in RECORDS if not r.samples] == []


@pytest.mark.parametrize("index", range(len(SAMPLES)), ids=IDS)
def test_reverse_mode(index):
    f, args, wrt = case(index)
    if wrt:
        check_grad(f, *args, wrt=wrt, rtol=1e-5, atol=1e-6)
    else:
        f(*args)


@pytest.mark.parametrize("index", range(len(SAMPLES)), ids=IDS)
def test_forward_mode(index):
    f, args, wrt = case(index)
    if not wrt:
        pytest.skip("nothing to differentiate")
    rng = np.random.default_rng(index)
    tangents = [
        float(rng.normal()) if type(args[i]) is float else rng.normal(size=np.shape(args[i]))
        for i in wrt
    ]
    _, tangent = nf.jvp(f, wrt=wrt)(*args, tangents)
    expected = sum(np.sum(numerical_grad(f, args, i) * t) for i, t in zip(wrt, tangents))
    np.testing.assert_allclose(tangent, expected, rtol=1e-5, atol=1e-6)


def _tuple_adjoint_through_source(record):
    """Whether the record's runtime function takes a tuple's adjoint and srcdiff
    differentiates it through its source (runtime/linalg.py): its second derivatives are
    the decompositions' adjoints differentiated, with some items' adjoints constant."""
    module = getattr(record.function, "__module__", "") if record.functions else ""
    return (
        bool(record.tuple_adjoints)
        and module.startswith("srcdiff.runtime.")
        and not runtime.is_helper(record.function)
    )


def _second_order(index):
    record, _, sample = SAMPLES[index]
    f, args, wrt = case(index)
    templated = record.adjoint and record.tangent or _tuple_adjoint_through_source(record)
    if not (wrt and sample.second_order and templated):
        pytest.skip("no second derivative to check")
    return f, args, wrt[0]


@pytest.mark.parametrize("index", range(len(SAMPLES)), ids=IDS)
def test_hvp_matches_finite_differences_of_the_gradient(index):
    f, args, w = _second_order(index)
    v = np.random.default_rng(index).normal(size=np.shape(args[w]))
    v = float(v) if type(args[w]) is float else v
    gradient = nf.grad(f, wrt=w)
    eps = 1e-5
    plus, minus = list(args), list(args)
    plus[w], minus[w] = args[w] + eps * v, args[w] - eps * v
    expected = (gradient(*plus) - gradient(*minus)) / (2 * eps)
    np.testing.assert_allclose(nf.hvp(f, wrt=w)(*args, v), expected, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("index", range(len(SAMPLES)), ids=IDS)
def test_reverse_over_reverse_matches_forward_over_reverse(index):
    """A vjp of the gradient is H u, as the hvp is (H is symmetric)."""
    f, args, w = _second_order(index)
    if type(args[w]) is float:
        pytest.skip("a float argument: grad of grad runs forward mode there")
    u = np.random.default_rng(index).normal(size=np.shape(args[w]))
    _, pullback = nf.vjp(nf.grad(f, wrt=w), wrt=w)(*args)
    np.testing.assert_allclose(pullback(u), nf.hvp(f, wrt=w)(*args, u), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("index", range(len(SAMPLES)), ids=IDS)
def test_float32_in_float32_out(index, monkeypatch):
    """No float64 creeps into the adjoint sweep of float32 inputs (as_grad would hide it)."""
    f, args, wrt = case(index)
    args = [
        a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.float64 else a
        for a in args
    ]
    wrt = tuple(i for i in wrt if isinstance(args[i], np.ndarray))
    if not wrt or np.result_type(f(*args)) != np.float32:
        pytest.skip("no float32 array argument, or f itself computes in another dtype")
    seen, real = [], runtime.as_grad

    def spy(g, x):
        if isinstance(x, np.ndarray) and not np.isscalar(g):
            seen.append(np.result_type(g))
        return real(g, x)

    monkeypatch.setattr(runtime, "as_grad", spy)
    grads = nf.grad(f, wrt=wrt)(*args)
    grads = grads if isinstance(grads, tuple) else (grads,)
    assert all(g.dtype == np.float32 for g in grads) and all(d == np.float32 for d in seen)


def _autograd_module():
    """The samples' module again with `np` bound to autograd.numpy (None without autograd)."""
    try:
        import autograd.numpy
    except ImportError:
        return None
    module = type(MODULE)("primitive_samples_autograd")
    module.__dict__.update(vars(MODULE))
    for name, value in vars(MODULE).items():
        if callable(value) and getattr(value, "__module__", None) == MODULE.__name__:
            module.__dict__[name] = type(value)(value.__code__, module.__dict__, name)
    module.np = autograd.numpy
    return module


AUTOGRAD = _autograd_module()


@pytest.mark.parametrize("index", range(len(SAMPLES)), ids=IDS)
def test_reverse_mode_agrees_with_autograd(index):
    """srcdiff's gradient is autograd's, for each sample autograd can differentiate (numpy's
    functions only: the runtime helpers are srcdiff's own)."""
    record, _, sample = SAMPLES[index]
    f, args, wrt = case(index)
    if AUTOGRAD is None or not wrt or "runtime." in sample.call + sample.setup:
        pytest.skip("autograd is not installed, or nothing it can differentiate")
    if "scipy.spatial." in sample.call:  # (its C code takes autograd's boxes: a segfault)
        pytest.skip("autograd has no pairwise distances")
    import autograd

    twin = getattr(AUTOGRAD, f.__name__)
    try:
        expected = [autograd.grad(twin, i)(*args) for i in wrt]
    except Exception as exc:  # noqa: BLE001  (autograd lacks this function or rule)
        pytest.skip(f"autograd cannot: {type(exc).__name__}: {exc}")
    got = nf.grad(f, wrt=wrt)(*args)
    for i, g, e in zip(wrt, got, expected):
        if np.shape(e) != np.shape(args[i]) or not np.allclose(
            e, numerical_grad(f, args, i), rtol=1e-5, atol=1e-6
        ):
            continue  # autograd is off here (its known defects): differences decide
        np.testing.assert_allclose(
            g, e, rtol=1e-7, atol=1e-9, err_msg=f"{record.name}: srcdiff against autograd"
        )


# --- behaviour the samples cannot show --------------------------------------------------------


def test_max_ties_split_evenly():
    def f(x):
        return np.max(x)

    g = nf.grad(f)(np.array([1.0, 3.0, 3.0, 2.0]))
    np.testing.assert_allclose(g, [0, 0.5, 0.5, 0])


def test_maximum_ties_split_evenly():
    def f(x, y):
        return np.sum(np.maximum(x, y))

    gx, gy = nf.grad(f, wrt=(0, 1))(np.array([1.0, 2.0]), np.array([1.0, 3.0]))
    np.testing.assert_allclose(gx, [0.5, 0.0])
    np.testing.assert_allclose(gy, [0.5, 1.0])


def test_prod_with_a_zero_is_exact():
    def f(x):
        return np.prod(x)

    g = nf.grad(f)(np.array([2.0, 0.0, 3.0]))
    np.testing.assert_allclose(g, [0.0, 6.0, 0.0])


def test_pad_in_another_mode_is_an_error():
    def f(x):
        return np.sum(np.pad(x, 1, mode="maximum"))

    with pytest.raises(nf.SrcdiffError, match="mode='maximum'"):
        nf.grad(f)(np.ones(3))


def f_containers(x):
    pair = [np.sin(x), x * 2]  # a list display of differentiated values
    first, second = pair
    both = (first, second * x)  # and a tuple display
    a, b = both
    return np.sum(a * b) + np.sum(pair[1] ** 2)


def test_list_and_tuple_displays_of_differentiated_values(rng):
    x = rng.normal(size=4)
    check_grad(f_containers, x)
    v = rng.normal(size=4)
    _, tangent = nf.jvp(f_containers)(x, v)
    assert tangent == pytest.approx(np.sum(nf.grad(f_containers)(x) * v), rel=1e-10)
