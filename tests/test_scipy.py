"""SciPy support (the [scipy] extra): its primitives are declared only once the program
imports SciPy, so srcdiff costs nothing to those without it; and what only a program (not a
sample of tests/test_primitives.py) can show. Each primitive's own checks are generated from
its samples (tests/test_primitives.py); tests/test_scipy_autograd.py compares them with
autograd's."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import srcdiff as nf
from gradcheck import check_grad, numerical_grad

try:
    import scipy.linalg
    import scipy.special
    import scipy.stats
except ImportError:
    scipy = None

HERE = os.path.abspath(__file__)
NEEDS_SCIPY = pytest.mark.skipif(
    scipy is None, reason="SciPy is not installed (pip install 'srcdiff[scipy]')"
)


def line_of(snippet):
    with open(HERE) as f:
        for number, line in enumerate(f, 1):
            if snippet in line and "line_of(" not in line and "snippet" not in line:
                return number
    raise AssertionError(snippet)


def python(code):
    """What a fresh interpreter prints running `code` (with this srcdiff)."""
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ, SRCDIFF_CACHE_DIR="off"),
    ).stdout


# --- no import cost, and declared once imported -----------------------------------------------


def test_importing_srcdiff_imports_no_scipy():
    loaded = python(
        "import sys, srcdiff\nprint([m for m in sys.modules if m.split('.')[0] == 'scipy'])"
    )
    assert loaded.strip() == "[]"


@NEEDS_SCIPY
def test_scipy_primitives_are_declared_once_the_program_imports_scipy():
    found = python(
        "import srcdiff\n"
        "from srcdiff.primitives import registry\n"
        "names = lambda: {r.name for r in registry.records()}\n"
        "before = names()\n"
        "import scipy.special\n"
        "print('expit' in before, 'expit' in names(), 'norm_logpdf' in names())\n"
        "import scipy.stats\n"
        "print(registry.find(scipy.stats.norm.logpdf).name)\n"
    )
    assert found.split() == ["False", "True", "False", "norm_logpdf"]


@NEEDS_SCIPY
def test_a_derivative_cached_before_scipy_was_declared_is_not_reused_without_it(tmp_path):
    """A transform that meets SciPy's rules for the first time declares them, and is stored
    under the key that includes them: a fresh process that has not declared them yet (SciPy's
    submodule is loaded lazily, on first use) transforms anew, never reads code that needs
    names of theirs it lacks."""
    program = tmp_path / "uses_scipy.py"
    program.write_text(
        "import numpy as np\n"
        "import scipy as sp\n"
        "import srcdiff as nf\n\n"
        "def f(x):\n"
        "    return np.sum(sp.special.gammaln(x))\n\n"
        "print(nf.grad(f)(np.array([1.5, 2.5])).tolist())\n"
    )
    env = dict(os.environ, SRCDIFF_CACHE_DIR=str(tmp_path / "cache"))
    runs = [
        subprocess.run(
            [sys.executable, str(program)], capture_output=True, text=True, env=env, check=True
        ).stdout
        for _ in range(2)
    ]
    assert runs[0] == runs[1]
    np.testing.assert_allclose(json.loads(runs[0]), scipy.special.digamma([1.5, 2.5]))


# --- what samples cannot show -----------------------------------------------------------------


def logsumexp_of(x):
    return scipy.special.logsumexp(x, axis=1).sum()


@NEEDS_SCIPY
def test_logsumexp_no_longer_fails_inside_scipy():
    """The issue's first report: SciPy's logsumexp is Python, and srcdiff used to read its
    source (failing at _array_api_override.py:69)."""
    x = np.random.default_rng(0).normal(size=(3, 4))
    check_grad(logsumexp_of, x, wrt=(0,))


def logsumexp_of_a_list(t):
    return scipy.special.logsumexp([t, 2 * t, 0.0])


def logsumexp_stating_its_defaults(x):
    return scipy.special.logsumexp(x, b=None, axis=None, keepdims=False, return_sign=False)


@NEEDS_SCIPY
def test_logsumexp_given_its_defaults():
    """b=None, scipy's default, was put into the adjoint's `* b`: a TypeError."""
    x = np.array([0.1, -0.4, 1.2])
    check_grad(logsumexp_stating_its_defaults, x, wrt=(0,))
    softmax = np.exp(x) / np.sum(np.exp(x))
    np.testing.assert_allclose(nf.grad(logsumexp_stating_its_defaults)(x), softmax)


@NEEDS_SCIPY
def test_second_order_through_a_list_given_to_scipy():
    """SciPy makes an array of a list as numpy does: the list display was left in the
    adjoint (np.exp([t, _t0, 0.0] - ...)), which second order then refused, located in the
    emitted gradient's file."""
    p = np.exp([0.7, 1.4, 0.0]) / np.sum(np.exp([0.7, 1.4, 0.0]))
    slope, curvature = p @ [1.0, 2.0, 0.0], p @ [1.0, 4.0, 0.0] - (p @ [1.0, 2.0, 0.0]) ** 2
    assert nf.grad(logsumexp_of_a_list)(0.7) == pytest.approx(slope, rel=1e-12)
    assert nf.hvp(logsumexp_of_a_list)(0.7, 1.0) == pytest.approx(curvature, rel=1e-12)
    second = nf.grad(nf.grad(logsumexp_of_a_list))(0.7)
    assert second == pytest.approx(curvature, rel=1e-12)


# --- a user's rule for a distribution's method (a bound method) -------------------------------


def gumbel(x, loc):
    return np.sum(scipy.stats.gumbel_r.logpdf(x, loc))


@NEEDS_SCIPY
def test_a_user_rule_for_a_bound_method_is_found_at_every_lookup():
    """scipy.stats.gumbel_r.logpdf is a new bound method at each attribute lookup: the
    registry finds the rule by equality (same distribution, same function)."""

    @nf.adjoint(scipy.stats.gumbel_r.logpdf)
    def gumbel_logpdf_adjoint(bz, z, x, loc):  # -y - exp(-y), y = x - loc
        bx = bz * (np.exp(loc - x) - 1)
        bloc = bz * (1 - np.exp(loc - x))

    x = np.linspace(-1.0, 1.5, 5)
    check_grad(gumbel, x, 0.3, wrt=(0, 1))


def logsumexp_with_sign(x, w):
    value, sign = scipy.special.logsumexp(x, b=w, return_sign=True)
    return value * sign


@NEEDS_SCIPY
def test_logsumexp_with_return_sign():
    """log |s| and the sign of s = the sum of w exp(x), of either sign: the gradient is the
    sign times that of log |s|, and the generic code of a call without return_sign is as it
    was (the helpers reading the tuple fold away)."""
    x = np.array([0.3, -0.2, 0.5])
    for w in (np.array([2.0, -0.5, 0.3]), np.array([-2.0, 0.5, -0.3])):
        check_grad(logsumexp_with_sign, x, w, wrt=(0, 1))
    assert "runtime.first_of" in nf.grad(logsumexp_with_sign).source
    assert "runtime.first_of" not in nf.grad(logsumexp_of).source
    assert "sign_of" not in nf.jvp(logsumexp_of).source


def dirichlet_of_fewer_components(x, alpha):
    return scipy.stats.dirichlet.logpdf(x, alpha)


@NEEDS_SCIPY
def test_dirichlet_needs_every_component_of_x():
    x, alpha = np.array([0.2, 0.3]), np.array([1.5, 2.0, 2.5])  # SciPy implies the third
    with pytest.raises(nf.ArgumentError, match="all 3 components"):
        nf.grad(dirichlet_of_fewer_components)(x, alpha)


def gaussian_process(log_scale, x, y):
    """The negative log marginal likelihood of a Gaussian process, with cho_factor."""
    k = np.exp(-((x[:, None] - x[None, :]) ** 2) / np.exp(2 * log_scale)) + 0.1 * np.eye(len(x))
    c, lower = scipy.linalg.cho_factor(k, lower=True)
    alpha = scipy.linalg.cho_solve((c, lower), y)
    return 0.5 * y @ alpha + np.sum(np.log(c[np.arange(len(x)), np.arange(len(x))]))


@NEEDS_SCIPY
def test_gaussian_process_marginal_likelihood_through_cho_factor():
    x = np.linspace(0.0, 3.0, 6)
    y = np.sin(x)
    check_grad(gaussian_process, 0.3, x, y, wrt=(0,))
    assert nf.grad(nf.grad(gaussian_process))(0.3, x, y) == pytest.approx(
        (nf.grad(gaussian_process)(0.3 + 1e-5, x, y) - nf.grad(gaussian_process)(0.3 - 1e-5, x, y))
        / 2e-5,
        rel=1e-5,
    )


# --- frozen distributions: the distribution's own methods ----------------------------------


def frozen_in_the_call(x):
    return np.sum(scipy.stats.norm(loc=x[0], scale=np.exp(x[1])).logpdf(x[2:]))


def frozen_and_named(x):
    d = scipy.stats.norm(x[0], np.exp(x[1]))
    return np.sum(d.logpdf(x[2:])) + d.cdf(x[3])


def frozen_then_its_argument_changes(x):
    m = x[0]
    g = scipy.stats.gamma(np.exp(m), scale=2.0)
    m = m * 3  # (g was frozen with the first m)
    return np.sum(g.logpdf(np.abs(x[1:]) + m))


def frozen_in_a_loop(x):
    total = 0.0
    for i in range(3):
        d = scipy.stats.t(3.0, loc=x[i])
        total = total + d.logpdf(x[i + 1])
    return total


def frozen_multivariate(x):
    d = scipy.stats.multivariate_normal(x[:2], np.eye(2) * 2.0)
    return d.logpdf(x[2:]) + scipy.stats.dirichlet(np.exp(x[:3])).logpdf([0.2, 0.3, 0.5])


def frozen_discrete(x):
    return np.sum(scipy.stats.bernoulli(1 / (1 + np.exp(-x))).logpmf([0, 1, 1, 0]))


def frozen_moments(x):
    d = scipy.stats.norm(x[0], np.exp(x[1]))
    return d.mean() * d.std() + d.var() + d.median() ** 2 + scipy.stats.norm.mean(x[2], 2.0)


def moments_of_shaped_distributions(x):
    a, s = np.exp(x[0]), np.exp(x[1])
    return (
        scipy.stats.gamma(a, x[2], s).var()
        + scipy.stats.beta(a, 2.0, scale=s).std()
        + scipy.stats.t(3.0 + a, x[3], s).std()
        + scipy.stats.lognorm(s=0.5 * a, scale=s).mean()
        + scipy.stats.expon(x[2], s).median() * scipy.stats.uniform(x[3], s).var()
    )


def medians_of_shaped_distributions(x):
    s = np.exp(x[1])
    gamma = scipy.stats.gamma(2.5, x[0], s)
    beta = scipy.stats.beta(2.0, 3.0, loc=x[2], scale=s)
    return gamma.median() * beta.median() + scipy.stats.gamma.median(1.5, scale=x[3] ** 2)


def median_in_the_shape(x):
    return scipy.stats.gamma(np.exp(x[0])).median()


@NEEDS_SCIPY
def test_the_median_of_gamma_and_beta_in_loc_and_scale():
    """scipy.stats.gamma(a, loc, scale).median() (and beta's) had no rule: loc + scale q, q
    the median of the shape; in the shape itself it is an error at the line (scipy.special
    has not the cdf's slope in it that the implicit function theorem needs)."""
    x = np.array([0.3, -0.2, 0.5, 1.1])
    assert nf.grad(medians_of_shaped_distributions)(x) == pytest.approx(
        numerical_grad(medians_of_shaped_distributions, (x,), 0), rel=1e-6
    )
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(median_in_the_shape)(x)
    assert (error.value.message, error.value.hint) == (
        "scipy.stats.gamma.median has no gradient with respect to its argument 'a'",
        "make 'a' a constant",
    )
    assert error.value.location.lineno == median_in_the_shape.__code__.co_firstlineno + 1


PRIOR = scipy.stats.gamma(2.0, scale=0.5) if scipy is not None else None
JOINT = scipy.stats.multivariate_normal(np.zeros(2), np.eye(2)) if scipy is not None else None


def frozen_outside(x):
    return np.sum(PRIOR.logpdf(np.exp(x))) + PRIOR.logcdf(np.exp(x[0]))


def frozen_outside_plain(x):  # (no item, no loop: plain.py's test must not skip it)
    return np.sum(PRIOR.logpdf(np.exp(x)))


FROZEN = [
    frozen_outside,
    frozen_outside_plain,
    frozen_in_the_call,
    frozen_and_named,
    frozen_then_its_argument_changes,
    frozen_in_a_loop,
    frozen_multivariate,
    frozen_discrete,
    frozen_moments,
    moments_of_shaped_distributions,
    medians_of_shaped_distributions,
]


@NEEDS_SCIPY
@pytest.mark.parametrize("f", FROZEN, ids=[f.__name__ for f in FROZEN])
def test_a_frozen_distributions_method_is_the_distributions_own(f):
    """`st.norm(m, s).logpdf(x)` is `st.norm.logpdf(x, m, s)`, held in a name or not: reverse,
    forward and second order against differences."""
    rng = np.random.default_rng(0)
    x, v = rng.normal(size=4) * 0.5, rng.normal(size=4)
    gradient = check_grad(f, x)[0]
    _, along = nf.jvp(f)(x, v)
    assert along == pytest.approx(gradient @ v, rel=1e-9)
    eps = 1e-5
    expected = (nf.grad(f)(x + eps * v) - nf.grad(f)(x - eps * v)) / (2 * eps)
    np.testing.assert_allclose(nf.hvp(f)(x, v), expected, rtol=1e-4, atol=1e-6)


# --- scipy.linalg's options -------------------------------------------------------------------


def solve_stating_options(a, b):
    return np.sum(scipy.linalg.solve(a, b, overwrite_a=False, check_finite=False) ** 2)


@NEEDS_SCIPY
def test_options_that_change_no_value_are_taken():
    """check_finite (of any value) and a default stated (overwrite_a=False) need no parameter
    of the template; check_finite joins np.linalg.inv's record for scipy.linalg.inv too."""
    rng = np.random.default_rng(1)
    check_grad(solve_stating_options, rng.normal(size=(3, 3)) + 3 * np.eye(3), rng.normal(size=3))


def solve_banded_structure(a, b):
    return np.sum(scipy.linalg.solve(a, b, assume_a="diagonal"))


def eigh_of_a_subset(a, b):
    return np.sum(scipy.linalg.eigh(a, b, subset_by_index=[0, 1])[0])


@NEEDS_SCIPY
def test_options_srcdiff_does_not_differentiate_are_errors():
    a = np.eye(3) * 2.0
    with pytest.raises(nf.ArgumentError, match="assume_a one of"):
        nf.grad(solve_banded_structure)(a, np.ones(3))
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(eigh_of_a_subset)(a, np.eye(3))
    called = line_of("scipy.linalg.eigh(a, b, subset_by_index=[0, 1])")
    assert str(error.value).startswith(f"{HERE}:{called}: ")
    assert "only with subset_by_index at its default (None)" in str(error.value)


def test_readme_shows_lines_of_the_checked_in_ica_gradient():
    root = Path(__file__).resolve().parent.parent
    readme = (root / "README.md").read_text()
    shown = re.search(r"srcdiff emits\n\n```python\n(.*?)```", readme, re.S).group(1)
    assert shown in (root / "generated_examples" / "ica_grad.py").read_text()
