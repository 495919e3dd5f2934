"""generated_examples/: the checked-in emitted files are current, and they run correctly."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from gradcheck import numerical_grad
from pytree_oracle import assert_leaves_close, finite_differences

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location(
    "regen_examples", ROOT / "tools" / "regen_examples.py"
)
regen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(regen)
NAMES = regen.names()


def test_gallery_is_large_enough():
    assert len(NAMES) >= 10


def load_or_skip(name):
    """The example's module, or a skip if it needs an optional package that is not installed
    (SciPy, for the examples of its functions)."""
    try:
        return regen.load(name)
    except ModuleNotFoundError as exc:
        pytest.skip(f"{name} needs {exc.name}, which is not installed")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("suffix", [regen.SUFFIX, regen.SPECIALISED])
def test_checked_in_file_is_current(name, suffix):
    load_or_skip(name)
    target = regen.EXAMPLES / f"{name}{suffix}.py"
    assert target.exists(), f"run python tools/regen_examples.py to create {target.name}"
    fresh = (regen.emitted if suffix == regen.SUFFIX else regen.specialised)(name)
    if target.read_text() != fresh:
        import difflib

        diff = "".join(
            difflib.unified_diff(
                target.read_text().splitlines(True),
                fresh.splitlines(True),
                target.name,
                "regenerated",
            )
        )
        pytest.fail(f"{target.name} is stale; run python tools/regen_examples.py\n{diff}")


def check_jvp_file(jvp_fn, fn, args, wrt):
    rng = np.random.default_rng(1)
    tangents = [rng.normal(size=np.shape(args[i])) for i in wrt]
    out, tangent = jvp_fn(*tangents, *args)
    assert out == pytest.approx(fn(*args))

    def along(s):
        shifted = list(args)
        for i, t in zip(wrt, tangents):
            shifted[i] = args[i] + s * t
        return fn(*shifted)

    assert tangent == pytest.approx(numerical_grad(along, (0.0,), 0), rel=1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_emitted_file_runs_and_matches_finite_differences(name):
    source_module = load_or_skip(name)
    fn = getattr(source_module, name)
    emitted = regen.load(name, regen.EXAMPLES / f"{name}{regen.SUFFIX}.py")
    sys.modules.pop(emitted.__name__, None)
    args = source_module.example(np.random.default_rng(0))
    mode = getattr(source_module, "MODE", "grad")
    if mode == "jvp":
        check_jvp_file(getattr(emitted, f"jvp_{fn.__name__}"), fn, args, source_module.WRT)
        return
    if mode == "grad2":
        import srcdiff as nf

        second = getattr(emitted, f"dd{fn.__name__}")(*args)
        assert second == pytest.approx(numerical_grad(nf.grad(fn), args, 0), rel=1e-6)
        return
    gradient_fn = getattr(emitted, f"d{fn.__name__}")
    grads = gradient_fn(*args)
    if len(source_module.WRT) == 1:
        grads = (grads,)
    for position, grad in zip(source_module.WRT, grads):
        assert_leaves_close(
            grad,
            finite_differences(fn, args, position),
            1e-5,
            1e-7,
            f"{name}: gradient w.r.t. argument {position}",
        )


@pytest.mark.parametrize("name", NAMES)
def test_specialised_file_runs_and_agrees_with_the_generic_one(name):
    source_module = load_or_skip(name)
    args = source_module.example(np.random.default_rng(0))
    mode = getattr(source_module, "MODE", "grad")
    prefix = {"jvp": "jvp_", "grad2": "dd"}.get(mode, "d")
    if mode == "jvp":
        args = (*(np.ones_like(args[k]) for k in source_module.WRT), *args)
    results = []
    for suffix in (regen.SUFFIX, regen.SPECIALISED):
        emitted = regen.load(name, regen.EXAMPLES / f"{name}{suffix}.py")
        sys.modules.pop(emitted.__name__, None)
        results.append(getattr(emitted, prefix + getattr(source_module, name).__name__)(*args))
    from pytree_oracle import leaves

    assert_leaves_close(
        results[1], [np.asarray(leaf) for leaf in leaves(results[0])], 1e-10, 1e-12, name
    )


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("suffix", [regen.SUFFIX, regen.SPECIALISED])
def test_each_function_is_defined_once(name, suffix):
    """A copy of a callee that several calls share is shown once (the specialised code listed
    a backward copy once for each call of a pair that read all its list)."""
    import ast
    from collections import Counter

    tree = ast.parse((regen.EXAMPLES / f"{name}{suffix}.py").read_text())
    defined = Counter(node.name for node in tree.body if isinstance(node, ast.FunctionDef))
    assert [name for name, count in defined.items() if count > 1] == []


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("suffix", [regen.SUFFIX, regen.SPECIALISED])
def test_lines_break_only_where_a_person_would(name, suffix):
    """Inside brackets after a comma or before an operator, never inside a dotted name or
    between a function and its call's bracket (astor's own breaking did both); longer than
    99 characters only where there is no such place."""
    from srcdiff import codegen

    target = regen.EXAMPLES / f"{name}{suffix}.py"
    code = target.read_text().split('"""', 2)[2]  # after the docstring
    lines = code.splitlines()
    for number, (before, line) in enumerate(zip([""] + lines, lines), 1):
        assert not line.rstrip().endswith("."), (number, line)
        assert not line.lstrip().startswith(".") and not (
            line.lstrip().startswith(("(", "[")) and before.rstrip()[-1:].isidentifier()
        ), (number, before, line)
        assert (
            len(line) <= 99
            or line.startswith("#")
            or not any(codegen._break_points(codegen._line_tokens(line)))
        ), (number, line)


def test_wrap_breaks_a_long_call_at_its_outermost_bracket():
    from srcdiff import codegen

    line = "        " + "_stack_hiddens_to_output.append(runtime.shape_of(hiddens_to_output_1))\n"
    wrapped = codegen.wrap(line, codegen._line_tokens(line.rstrip("\n")), limit=60)
    assert wrapped == (
        "        _stack_hiddens_to_output.append(\n"
        "            runtime.shape_of(hiddens_to_output_1))\n"
    )


def _handed_lists(source):
    """[(forward copy, backward copy)] for each saved list that a call of a forward copy
    fwd_g_sN makes and a call of a copy bwd_g_sM is given: in one function, through a stack,
    or through the saved list of a caller's pair (fwd_f_sK saves it, bwd_f_sK unpacks it;
    either way under the one name)."""
    import ast
    import re

    made, given = {}, []
    for func in ast.parse(source).body:
        if not isinstance(func, ast.FunctionDef):
            continue
        pair = re.sub(r"^(fwd|bwd)_", "", func.name)  # (the key a caller's pair shares)
        for node in ast.walk(func):
            call = node.value if isinstance(node, ast.Assign) else None
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
                target = node.targets[0]
                if call.func.id.startswith("fwd_") and isinstance(target, ast.Tuple):
                    made[pair, target.elts[-1].id] = call.func.id
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id.startswith("bwd_") and isinstance(node.args[-1], ast.Name):
                    given.append(((pair, node.args[-1].id), node.func.id))
    return [(made[key], backward) for key, backward in given if key in made]


@pytest.mark.parametrize("name", NAMES)
def test_a_pair_of_copies_shares_its_number(name):
    """The backward copy bwd_g_sN given the saved list of a forward copy made with it is
    numbered as that forward copy fwd_g_sN: their numbers were counted apart, and
    fwd_squash_s1 handed its list to bwd_squash_s2. (A forward copy whose backward function
    could not be specialised hands its list to the generic one; one two calls share, whose
    lists go to two backward copies, shares its number with one of them at most, as does a
    backward copy the same code as another, given the lists of two forward copies.)"""
    import collections
    import re

    source = (regen.EXAMPLES / f"{name}{regen.SPECIALISED}.py").read_text()
    copy = re.compile(r"^(?:fwd|bwd)_(\w+)_s(\d+)$")
    handed = _handed_lists(source)
    partners = collections.Counter(forward for forward, _ in set(handed))
    partners.update(backward for _, backward in set(handed))
    for forward, backward in handed:
        alone = partners[forward] == partners[backward] == 1
        if copy.match(forward) and copy.match(backward) and alone:
            assert copy.match(forward).groups() == copy.match(backward).groups()


def test_pairs_are_found_in_one_function_through_stacks_and_through_a_callers_list():
    """(The test above would pass finding none.)"""
    source = (regen.EXAMPLES / f"program_gmm{regen.SPECIALISED}.py").read_text()
    handed = _handed_lists(source)
    assert ("fwd_gmm_log_likelihood_s1", "bwd_gmm_log_likelihood_s1") in handed  # (in dloss)
    assert ("fwd_diag_gaussian_logpdf_s1", "bwd_diag_gaussian_logpdf_s1") in handed  # (a stack)
    assert ("fwd_log_normalize_s1", "bwd_log_normalize_s1") in handed  # (unpack_params' list)
    assert len(handed) == 6


def test_a_backward_function_given_a_slice_constant_is_specialised():
    """hmm's backward function is handed a slice among its saved values: the copy key of a
    slice constant is hashed by its bounds (a slice has no hash before Python 3.12), so the
    function is specialised, not left generic."""
    source = (regen.EXAMPLES / f"program_hmm{regen.SPECIALISED}.py").read_text()
    assert "bwd_hmm_log_likelihood_s1(b_t0, hmm_log_likelihood_saved)" in source
