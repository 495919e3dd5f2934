"""SciPy's rules against autograd's (autograd.scipy), the second oracle, wherever autograd has
one: srcdiff's gradient, its forward mode (against autograd's gradient along a direction) and
its Hessian-vector product (against autograd's reverse over reverse)."""

import importlib.util
import os
import tempfile

import numpy as np
import pytest

import srcdiff as nf

pytest.importorskip("autograd")
pytest.importorskip("scipy")
import autograd  # noqa: E402
import autograd.numpy as anp  # noqa: E402
import autograd.scipy.linalg  # noqa: E402,F401
import autograd.scipy.special  # noqa: E402,F401
import autograd.scipy.stats  # noqa: E402,F401
import scipy.linalg  # noqa: E402,F401
import scipy.special  # noqa: E402,F401
import scipy.stats  # noqa: E402,F401


def _values(rng, kind, shape):
    if kind == "real":
        return rng.normal(size=shape)
    if kind == "positive":
        return rng.uniform(0.5, 2.0, size=shape)
    if kind == "unit":  # (0, 1)
        return rng.uniform(0.2, 0.8, size=shape)
    if kind == "lower":  # a well-conditioned lower triangular matrix
        return np.tril(rng.normal(size=shape)) + 3 * np.eye(shape[0])
    if kind == "conditioned":  # a square matrix with a dominant diagonal
        return rng.normal(size=shape) + 3 * np.eye(shape[0])
    if kind == "signed":  # rows of weights of either sign, each led by one larger than the rest
        weights = rng.uniform(-0.3, 0.3, size=shape)
        weights[:, 0] = 3.0
        return weights * np.where(np.arange(shape[0]) % 2, -1.0, 1.0)[:, None]
    raise ValueError(kind)


_SPD = "a @ a.T + 3 * np.eye(3)"
_SIMPLEX = "np.exp(u) / np.sum(np.exp(u))"

# name: (expression, {argument: (kind, shape)}, the arguments autograd differentiates), and
# where autograd lacks the function but has the same math otherwise, the expression it runs
CASES = {
    "expit": ("scipy.special.expit(x)", {"x": ("real", (5,))}, ("x",)),
    "logit": ("scipy.special.logit(x)", {"x": ("unit", (5,))}, ("x",)),
    "erf": ("scipy.special.erf(x)", {"x": ("real", (5,))}, ("x",)),
    "erfc": ("scipy.special.erfc(x)", {"x": ("real", (5,))}, ("x",)),
    "erfinv": ("scipy.special.erfinv(x - 0.5)", {"x": ("unit", (5,))}, ("x",)),
    "erfcinv": ("scipy.special.erfcinv(x)", {"x": ("unit", (5,))}, ("x",)),
    "gammaln": ("scipy.special.gammaln(x)", {"x": ("positive", (5,))}, ("x",)),
    "gamma": ("scipy.special.gamma(x)", {"x": ("positive", (5,))}, ("x",)),
    "digamma": ("scipy.special.digamma(x)", {"x": ("positive", (5,))}, ("x",)),
    "psi": ("scipy.special.psi(x)", {"x": ("positive", (5,))}, ("x",)),
    "polygamma": ("scipy.special.polygamma(2, x)", {"x": ("positive", (5,))}, ("x",)),
    "beta": (
        "scipy.special.beta(x, y)",
        {"x": ("positive", (4,)), "y": ("positive", (4,))},
        ("x", "y"),
    ),
    "betaln": (
        "scipy.special.betaln(x, y)",
        {"x": ("positive", (4,)), "y": ("positive", (4,))},
        ("x", "y"),
    ),
    "logsumexp": (
        "scipy.special.logsumexp(x, axis=1, b=w)",  # (autograd: not in b)
        {"x": ("real", (3, 4)), "w": ("positive", (3, 4))},
        ("x",),
    ),
    "logsumexp_all": ("scipy.special.logsumexp(x)", {"x": ("real", (3, 4))}, ("x",)),
    "logsumexp_return_sign": (  # (autograd's has no return_sign: log |s| and the sign of s)
        "np.prod(scipy.special.logsumexp(x, axis=1, b=w, return_sign=True), axis=0)",
        {"x": ("unit", (4, 3)), "w": ("signed", (4, 3))},
        ("x", "w"),
        "np.log(np.abs(np.sum(w * np.exp(x), axis=1))) * np.sign(np.sum(w * np.exp(x), axis=1))",
    ),
    "i0": ("scipy.special.i0(x)", {"x": ("real", (5,))}, ("x",)),
    "i1": ("scipy.special.i1(x)", {"x": ("real", (5,))}, ("x",)),
    "iv": ("scipy.special.iv(1.5, x)", {"x": ("positive", (5,))}, ("x",)),
    "ive": ("scipy.special.ive(1.5, x)", {"x": ("positive", (5,))}, ("x",)),
    **{
        f"norm.{m}": (
            f"scipy.stats.norm.{m}(x, m, s)",
            {"x": ("real", (4,)), "m": ("real", (4,)), "s": ("positive", (4,))},
            ("x", "m", "s"),
        )
        for m in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
    },
    **{
        f"t.{m}": (
            f"scipy.stats.t.{m}(x, df, m, s)",
            {
                "x": ("real", (4,)),
                "df": ("positive", (4,)),
                "m": ("real", (4,)),
                "s": ("positive", (4,)),
            },
            wrt,
        )
        for m, wrt in (
            ("logpdf", ("x", "df", "m", "s")),
            ("pdf", ("x", "df", "m", "s")),
            ("cdf", ("x", "m")),
            ("logcdf", ("x", "m")),
        )
    },
    **{
        f"gamma.{m}": (
            f"scipy.stats.gamma.{m}(x, a)",
            {"x": ("positive", (4,)), "a": ("positive", (4,))},
            wrt,
        )
        for m, wrt in (("logpdf", ("x", "a")), ("pdf", ("x", "a")), ("cdf", ("x",)))
    },
    **{
        f"beta.{m}": (
            f"scipy.stats.beta.{m}(x, a, b)",
            {"x": ("unit", (4,)), "a": ("positive", (4,)), "b": ("positive", (4,))},
            wrt,
        )
        for m, wrt in (("logpdf", ("x", "a", "b")), ("pdf", ("x", "a", "b")), ("cdf", ("x",)))
    },
    **{
        f"poisson.{m}": (
            f"scipy.stats.poisson.{m}(k, mu)",
            {"k": ("counts", (4,)), "mu": ("positive", (4,))},
            ("mu",),
        )
        for m in ("logpmf", "pmf", "cdf")
    },
    **{
        f"dirichlet.{m}": (
            f"scipy.stats.dirichlet.{m}({_SIMPLEX}, alpha)",
            {"u": ("real", (3,)), "alpha": ("positive", (3,))},
            ("u", "alpha"),
        )
        for m in ("logpdf", "pdf")
    },
    **{
        f"multivariate_normal.{m}": (
            f"scipy.stats.multivariate_normal.{m}(x, m, {_SPD})",
            {"x": ("real", (3,)), "m": ("real", (3,)), "a": ("real", (3, 3))},
            ("x", "m", "a"),
        )
        for m in ("logpdf", "pdf")
    },
    "solve_triangular": (
        "scipy.linalg.solve_triangular(a, b, lower=True)",
        {"a": ("lower", (3, 3)), "b": ("real", (3, 2))},
        ("a", "b"),
    ),
    "solve_triangular_trans": (
        "scipy.linalg.solve_triangular(a, b, trans='T', lower=True)",
        {"a": ("lower", (3, 3)), "b": ("real", (3,))},
        ("a", "b"),
    ),
    "sqrtm": (f"scipy.linalg.sqrtm({_SPD})", {"a": ("real", (3, 3))}, ("a",)),
    **{
        f"linalg.{name}": (expression, {"a": ("real", (3, 3))}, ("a",), autograd_expression)
        for name, expression, autograd_expression in (
            (
                "cholesky",
                f"scipy.linalg.cholesky({_SPD}, lower=True)",
                f"np.linalg.cholesky({_SPD})",
            ),
            ("cholesky_upper", f"scipy.linalg.cholesky({_SPD})", f"np.linalg.cholesky({_SPD}).T"),
            ("eigh", f"scipy.linalg.eigh({_SPD})[0]", f"np.linalg.eigh({_SPD})[0]"),
            ("eigvalsh", f"scipy.linalg.eigvalsh({_SPD})", f"np.linalg.eigh({_SPD})[0]"),
            ("inv", "scipy.linalg.inv(a + 3 * np.eye(3))", "np.linalg.inv(a + 3 * np.eye(3))"),
            ("det", "scipy.linalg.det(a + 3 * np.eye(3))", "np.linalg.det(a + 3 * np.eye(3))"),
            ("norm", "scipy.linalg.norm(a, axis=0)", "np.linalg.norm(a, axis=0)"),
        )
    },
    **{
        f"linalg.solve_{assume_a}": (
            f"scipy.linalg.solve({_SPD}, b, assume_a='{assume_a}')",
            {"a": ("real", (3, 3)), "b": ("real", (3, 2))},
            ("a", "b"),
            f"np.linalg.solve({_SPD}, b)",
        )
        for assume_a in ("gen", "sym", "pos")
    },
    "linalg.solve_continuous_lyapunov": (
        "scipy.linalg.solve_continuous_lyapunov(a, q)",
        {"a": ("conditioned", (3, 3)), "q": ("real", (3, 3))},
        ("a", "q"),
        "scipy.linalg.solve_sylvester(a, a.T, q)",
    ),
    **{
        f"frozen.{name}": (
            expression,
            {"x": ("real", (4,)), "m": ("real", (4,)), "s": ("positive", (4,))},
            ("x", "m", "s"),
            "scipy.stats.norm.logpdf(x, m, s)",
        )
        for name, expression in (
            ("norm", "scipy.stats.norm(m, s).logpdf(x)"),
            ("norm_keywords", "scipy.stats.norm(loc=m, scale=s).logpdf(x)"),
        )
    },
}
NAMES = sorted(CASES)


def _source(name, for_autograd=False):
    expression, args, _, *autograd_expression = CASES[name]
    if for_autograd and autograd_expression:
        expression = autograd_expression[0]
    return f"def {_identifier(name)}({', '.join(args)}):\n    return np.sum(np.sin({expression}))\n"


def _identifier(name):
    return "f_" + name.replace(".", "_")


def _srcdiff_module():
    """The cases as functions of a file (srcdiff reads their source) using numpy and SciPy."""
    text = "import numpy as np\nimport scipy.linalg\nimport scipy.special\nimport scipy.stats\n\n"
    text += "\n\n".join(_source(name) for name in NAMES)
    path = os.path.join(tempfile.mkdtemp(prefix="srcdiff-autograd-"), "scipy_cases.py")
    with open(path, "w") as f:
        f.write(text)
    spec = importlib.util.spec_from_file_location("scipy_cases", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SRCDIFF = _srcdiff_module()


def _autograd_function(name):
    """The same source, run with autograd's numpy and SciPy wrappers."""
    namespace = {"np": anp, "scipy": autograd.scipy}
    exec(_source(name, for_autograd=True), namespace)
    return namespace[_identifier(name)]


def _arguments(name):
    rng = np.random.default_rng(sum(map(ord, name)))
    return [
        np.array([0.0, 1.0, 3.0, 6.0])[: shape[0]]
        if kind == "counts"
        else _values(rng, kind, shape)
        for kind, shape in CASES[name][1].values()
    ]


@pytest.mark.parametrize("name", NAMES)
def test_srcdiff_agrees_with_autograd(name):
    f, g, args = getattr(SRCDIFF, _identifier(name)), _autograd_function(name), _arguments(name)
    params = list(CASES[name][1])
    wrt = [params.index(p) for p in CASES[name][2]]
    rng = np.random.default_rng(0)
    for i in wrt:
        expected = autograd.grad(g, i)(*args)
        np.testing.assert_allclose(nf.grad(f, wrt=i)(*args), expected, rtol=1e-7, atol=1e-10)
        v = rng.normal(size=np.shape(args[i]))
        _, along = nf.jvp(f, wrt=i)(*args, v)
        np.testing.assert_allclose(along, np.sum(expected * v), rtol=1e-7, atol=1e-10)
    i = wrt[0]  # one second derivative per function: enough, and the tests stay fast
    v = rng.normal(size=np.shape(args[i]))
    np.testing.assert_allclose(
        nf.hvp(f, wrt=i)(*args, v),
        autograd.hessian_vector_product(g, i)(*args, v),
        rtol=1e-6,
        atol=1e-9,
    )
