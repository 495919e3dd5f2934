"""Costs that must grow linearly (issue 17), checked by behaviour, never by the clock: large
programs go through every stage without deep recursion, and srcdiff reads its own templates
only when a transform uses them."""

import dis
import functools
import inspect
import os
import subprocess
import sys

import numpy as np
import pytest

from srcdiff.primitives import registry
from srcdiff.template import Template, _global_loads


def _templates():
    return [
        (record, template)
        for record in registry.records()
        for template in (record.adjoint, record.tangent)
        if template is not None
    ]


def test_import_reads_no_template_and_a_gradient_only_those_it_uses(tmp_path):
    (tmp_path / "lazy_probe.py").write_text(
        "import numpy as np\n\n\ndef f(x):\n    return np.sum(np.tanh(x))\n"
    )
    script = (
        "import numpy as np, srcdiff as nf, lazy_probe\n"
        "from srcdiff.primitives import registry\n"
        "def read():\n"
        "    return sorted(r.name for r in registry.records() for t in (r.adjoint, "
        "r.tangent) if t is not None and 'rules' in vars(t))\n"
        "print(read())\n"
        "nf.grad(lazy_probe.f)(np.ones(3))\n"
        "print(read())\n"
    )
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(tmp_path)] + sys.path),
        SRCDIFF_CACHE_DIR=str(tmp_path / "cache"),
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    at_import, after_gradient = done.stdout.strip().splitlines()
    assert at_import == "[]"
    assert "tanh" in after_gradient and "sum" in after_gradient
    assert len(eval(after_gradient)) < 30 < len(_templates())


def test_every_builtin_template_reads_and_finds_its_module_names_unread():
    for record, template in _templates():
        if not template.lazy:
            continue  # (a user's, read when registered)
        unread = Template(
            template.primals,
            template.fn,
            template.kind,
            template._declared_constant,
            lazy=True,
            aliases=template.aliases,
        )
        names = unread.globals  # without reading it, for template_globals()
        read = Template(
            template.primals,
            template.fn,
            template.kind,
            template._declared_constant,
            aliases=template.aliases,
        )
        assert names == read.globals, record.name
        assert unread.rules.keys() == read.rules.keys()
        assert unread.constant == read.constant


def test_global_loads_are_dis_own_even_past_an_extended_argument():
    many = "\n".join(f"    v{k} = g{k}" for k in range(300))  # (an index over 255)
    scope = {}
    exec(f"def wide():\n{many}\n    return v0", scope)
    codes = [template.fn.__code__ for _, template in _templates()] + [scope["wide"].__code__]
    for code in codes:
        expected = [i.argval for i in dis.get_instructions(code) if i.opname == "LOAD_GLOBAL"]
        assert _global_loads(code) == expected


def test_a_user_template_is_still_checked_when_registered():
    def cube(x):
        return x**3

    with pytest.raises(Exception, match="unknown name 'undefined_name'"):

        @registry.adjoint(cube)
        def cube_adjoint(bz, z, x):
            bx = bz * undefined_name  # noqa: F821, F841


_LARGE_PROGRAMS = """
import sys

import numpy as np
import srcdiff as nf

import large_programs

sys.setrecursionlimit(1000)  # Python's default, whatever the test runner set
w, x = np.linspace(0.1, 0.9, 8), np.linspace(-1.0, 1.0, 8)
h, dh = x.copy(), np.zeros(8)  # the value and its derivative in each w[i], elementwise
for _ in range(large_programs.LENGTH):
    h, dh = np.tanh(h * w + 0.1), (1 - np.tanh(h * w + 0.1) ** 2) * (dh * w + h)
derivative = nf.grad(large_programs.straight)
assert np.allclose(derivative(w, x), dh, rtol=1e-10, atol=0), "straight"
v = 0.3
for _ in range(large_programs.DEPTH):
    v = 0.9 * np.sin(v) + 0.05
slope = nf.grad(large_programs.nest_0)(0.3)
step = 1e-6
expected = (large_programs.nest_0(0.3 + step) - large_programs.nest_0(0.3 - step)) / (2 * step)
assert abs(slope - expected) < 1e-6, ("nest", slope, expected)
assert abs(large_programs.nest_0(0.3) - v) < 1e-12
print("ok")
"""


def test_a_long_function_and_a_deep_nest_of_calls_stay_under_the_recursion_limit(tmp_path):
    """3,000 statements in one function, and 50 user functions each calling the next: no
    stage recurses once per statement or once per call level (in a new process, with
    Python's default recursion limit)."""
    length, depth = 3000, 50
    lines = [
        "import numpy as np",
        "",
        f"LENGTH, DEPTH = {length}, {depth}",
        "",
        "",
        "def straight(w, x):",
        "    h = x",
    ]
    lines += ["    h = np.tanh(h * w + 0.1)"] * length + ["    return np.sum(h)", ""]
    for level in range(depth):
        inner = f"nest_{level + 1}(v)" if level + 1 < depth else "v"
        lines += ["", f"def nest_{level}(v):", f"    return 0.9 * np.sin({inner}) + 0.05", ""]
    (tmp_path / "large_programs.py").write_text("\n".join(lines))
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(tmp_path)] + sys.path),
        SRCDIFF_CACHE_DIR=str(tmp_path / "cache"),
    )
    done = subprocess.run(
        [sys.executable, "-c", _LARGE_PROGRAMS], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]


_CYCLES = """
import gc
import sys

import srcdiff as nf

import cycle_probe

gc.collect()
gc.set_debug(gc.DEBUG_SAVEALL)  # (what the collector finds in cycles, kept to count)
nf.grad(cycle_probe.straight)
gc.collect()
print(len(gc.garbage))
"""


def _cyclic_garbage(tmp_path, length):
    """How many objects the transform of a straight-line function of `length` statements
    leaves in reference cycles (in a new process, with a cache of its own)."""
    folder = tmp_path / str(length)
    folder.mkdir()
    lines = ["import numpy as np", "", "", "def straight(w, x):", "    h = x"]
    lines += ["    h = np.tanh(h * w + 0.1)"] * length + ["    return np.sum(h)", ""]
    (folder / "cycle_probe.py").write_text("\n".join(lines))
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(folder)] + sys.path),
        SRCDIFF_CACHE_DIR=str(folder / "cache"),
    )
    done = subprocess.run(
        [sys.executable, "-c", _CYCLES], env=env, capture_output=True, text=True, check=True
    )
    return int(done.stdout.strip())


def test_a_transform_leaves_no_reference_cycle_per_statement(tmp_path):
    """What a transform drops is freed as it goes, not left in cycles for the collector,
    which passes over every live object to find them: a closure calling itself made one
    cycle for each statement (84,000 objects for 3,000 statements). Four times the
    statements leave no more garbage in cycles than the shorter function does."""
    short, long = _cyclic_garbage(tmp_path, 50), _cyclic_garbage(tmp_path, 200)
    assert long <= short + 10, (short, long)


def frozen_probe(w, x):
    return np.sum(np.tanh(x * w) ** 2)


def test_a_programs_own_frozen_objects_stay_frozen():
    """The transform moves what it leaves alive to the oldest generation (gc.freeze, then
    gc.unfreeze); a program that froze its objects itself (before forking workers, say)
    finds them frozen still after a transform and a specialisation."""
    import gc

    import srcdiff as nf

    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        nf.grad(frozen_probe)(0.5, np.arange(3.0))
        assert gc.get_freeze_count() > frozen - 1000  # (less those freed since: a few)
    finally:
        gc.unfreeze()


_PLAIN_CASES = """
import numpy as np

try:
    import scipy.stats
except ImportError:
    scipy = None


def plain(w, x):
    h = x
    h = np.tanh(h * w + 0.1)
    if w > 0:
        h = -h
    return np.sum(h, axis=0)


def local_function(w, x):
    def g(v):
        return v * w
    return np.sum(g(x))


def lam(w, x):
    return np.sum((lambda v: v * w)(x))


def alias(w, x):
    act = np.tanh
    return np.sum(act(x * w))


def display(w, x):
    a, b = w, x
    return np.sum(a * b)


def item(w, x):
    return np.sum(w[0] * x)


def loop(w, x):
    for _ in range(2):
        x = x * w
    return np.sum(x)


def method(w, x):
    return (x * w).sum() + x.reshape(-1).mean()


def double(v):
    return v * 2.0


def taking(w, x, act):
    for i in range(len(x)):
        w = act(w * x[i])
    return np.sum(w)


def builtin(w, x):
    return sum(x * w)


def list_method(w, x):
    x.append(w)
    return np.sum(x[0])


def object_method(w, x):  # (a user call, as plain as a function's)
    return np.sum(PRIOR.logpdf(x * w))


def frozen(w, x):
    return np.sum(FROZEN.logpdf(x * w))


def picked(w, x, name):
    act = ACTIVATIONS[name]
    return np.sum(act(x * w))


def global_item(w, x):
    return np.sum(np.tanh(x * w) * SCALES[0])


def containers_only(w, x):
    a, b = w, [x, x]
    for v in b:
        a = a * v[0]
    return np.sum(a)


class Prior:
    def logpdf(self, x):
        return -x * x


PRIOR = Prior()
FROZEN = scipy.stats.norm(0.0, 2.0) if scipy is not None else Prior()
ACTIVATIONS = {"tanh": np.tanh}
SCALES = [2.0]
"""


def test_only_a_plain_function_skips_inlining_and_the_lowering_of_containers(tmp_path):
    """(plain.py) The stages skip a function the whitelist calls plain; anything it does not
    know, they run on."""
    import importlib.util

    from srcdiff.parse import ParsedFunction
    from srcdiff.plain import is_plain
    from srcdiff.statics import Static

    path = tmp_path / "plain_cases.py"
    path.write_text(_PLAIN_CASES)
    spec = importlib.util.spec_from_file_location("plain_cases", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    names = ("plain", "local_function", "lam", "alias", "display", "item", "loop", "method")
    names += ("builtin", "list_method", "object_method", "picked", "global_item", "containers_only")
    names += ("frozen",) if importlib.util.find_spec("scipy") else ()
    found, nothing_to_inline = {}, {}
    for name in names:
        parsed = ParsedFunction(getattr(module, name))
        found[name] = is_plain(parsed.node, parsed.resolve)
        nothing_to_inline[name] = is_plain(parsed.node, parsed.resolve, containers=False)
    assert found == {name: name in ("plain", "method", "object_method") for name in found}
    # (the inliner's question: items, displays and loops are the lowering of containers')
    # (a builtin's call is not, the inliner rewrites map's; but range's and len's are)
    alike = ("plain", "method", "object_method", "display", "item", "containers_only", "loop")
    assert nothing_to_inline == {name: name in alike for name in found}
    # a parameter the transform is made for a function as is called as that function is
    parsed = ParsedFunction(module.taking, (Static("act", "value", module.double),))
    assert is_plain(parsed.node, parsed.resolve, containers=False)
    assert not is_plain(parsed.node, parsed.resolve)
    unknown = ParsedFunction(module.taking)  # (act, a value: a call of it, a local value's)
    assert not is_plain(unknown.node, unknown.resolve, containers=False)


def _calls_to_differentiate(tmp_path, length):
    """Python function calls made by a cold transform of a `length`-statement function
    and by its first call (specialisation): a count of work, the same on any machine."""
    import cProfile
    import importlib.util
    import pstats

    import numpy as np

    import srcdiff as nf

    name = f"straight_{length}"
    lines = ["import numpy as np", "", "", "def f(w, x):", "    h = x"]
    lines += ["    h = np.tanh(h * w + 0.1)"] * length + ["    return np.sum(h)", ""]
    (tmp_path / f"{name}.py").write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location(name, tmp_path / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    nf.grad(module.f, wrt=1)(np.ones(3), np.ones(3))  # srcdiff's one-off costs, paid before
    profile = cProfile.Profile()
    profile.runcall(lambda: nf.grad(module.f)(np.ones(3), np.ones(3)))
    return pstats.Stats(profile).total_calls


def test_the_work_of_a_transform_and_its_specialisation_grows_linearly(tmp_path, monkeypatch):
    """Twice the statements, about twice the work: a stage that walks the function once
    per statement (a quadratic transform, 66 s for 3,000 statements) shows here."""
    monkeypatch.setenv("SRCDIFF_CACHE_DIR", "off")
    small, large = (_calls_to_differentiate(tmp_path, n) for n in (150, 300))
    assert large / small < 2.2, (small, large)


def _states_kept(tmp_path, monkeypatch, length):
    """Values the specialisation of a `length`-statement function, each statement adding a
    sum to an array, copies into the interpreter's states (the keep-scalar pass resumes its
    runs from them): a count of work that a copy per statement per statement shows."""
    import importlib.util

    import numpy as np

    import srcdiff as nf
    from srcdiff import inference

    name = f"summed_{length}"
    lines = ["import numpy as np", "", "", "def f(w, x):", "    h = x"]
    lines += ["    h = np.tanh(h * w + np.sum(h))"] * length + ["    return np.sum(h)", ""]
    (tmp_path / f"{name}.py").write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location(name, tmp_path / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    copied, body_from = [], inference.Interpreter._body_from

    def counted(self, start, env, marks, until=None):
        try:
            return body_from(self, start, env, marks, until)
        finally:
            copied.append(sum(len(e) + len(b) for _, e, b, _ in self.states.values()))

    monkeypatch.setattr(inference.Interpreter, "_body_from", counted)
    w, x = np.linspace(0.1, 0.9, 8), np.linspace(-1.0, 1.0, 8)
    gradient = nf.grad(module.f)(w, x)
    monkeypatch.setattr(inference.Interpreter, "_body_from", body_from)
    assert np.allclose(gradient, nf.grad(module.f, optimized=False)(w, x), rtol=1e-10, atol=0)
    return sum(copied)


def test_specialisation_keeps_states_only_where_a_check_resumes(tmp_path, monkeypatch):
    """The keep-scalar pass keeps the interpreter's state (every value bound) only at the
    broadcasts it checks, not at each of them: twice the statements, about twice the work."""
    monkeypatch.setenv("SRCDIFF_CACHE_DIR", "off")
    small, large = (_states_kept(tmp_path, monkeypatch, n) for n in (60, 120))
    assert large / small < 2.5, (small, large)


def test_a_walk_of_the_statements_finds_those_of_a_whole_walk_in_its_order():
    """ir.walk_statements, which the passes looking for statements use, skips expressions
    (their bulk, in a long function) and nothing else."""
    import gast

    from srcdiff import ir

    source = (
        "def f(x, ys):\n"
        "    g = lambda v: v + 1\n"
        "    try:\n"
        "        for y in ys:\n"
        "            if y > 0:\n"
        "                x = x + [z * 2 for z in y][0]\n"
        "            else:\n"
        "                ys.append(y)\n"
        "    except ValueError:\n"
        "        return None\n"
        "    def h(a):\n"
        "        return a * g(a)\n"
        "    with open('p') as file:\n"
        "        x += h(x)\n"
        "    return x\n"
    )
    func = gast.parse(source).body[0]
    kinds = (gast.stmt, gast.excepthandler)
    walked = [n for n in ir.walk(func) if isinstance(n, kinds)]
    found = list(ir.walk_statements(func))
    assert [id(n) for n in found if isinstance(n, kinds)] == [id(n) for n in walked]
    assert not any(isinstance(n, gast.expr) for n in found)
    assert sum(isinstance(n, gast.Return) for n in found) == 3


def _ends_in_a_call_over_lines(x):
    y = np.sum(x)
    return np.add(
        y,
        1.0,
    )


def _defines_its_own(x):
    def inner(v):
        return v * 2.0

    return inner(x)


def _raises_first(x):
    raise IndexError("list index out of range")
    return x  # (compiles to nothing: still f's)


@functools.lru_cache(maxsize=None)
def _decorated(n):
    return n


def test_a_function_source_read_off_its_code_is_what_inspect_reads():
    """wrappers.source_lines takes the lines a function's code spans, without tokenizing."""
    from programs import gmm, lstm, maml

    from srcdiff import wrappers

    functions = [_ends_in_a_call_over_lines, _defines_its_own, _raises_first]
    functions.append(_decorated.__wrapped__)
    for module in (gmm, lstm, maml):
        functions += [v for v in vars(module).values() if inspect.isfunction(v)]
    for fn in functions:
        if fn.__name__ != "<lambda>":
            assert wrappers.source_lines(fn) == inspect.getsourcelines(fn), fn.__name__
            assert sys.version_info < (3, 11) or wrappers._spanned_lines(fn) is not None
