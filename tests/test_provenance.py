"""Differentiate the code that runs, and key the cache on everything it reaches (issue 13,
items 5 and 6)."""

import ast
import importlib
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import srcdiff as nf
from srcdiff import cache, provenance, wrappers


@pytest.fixture
def modules(tmp_path, monkeypatch):
    """Write modules into a folder on sys.path and import them (with Python's own loader: not
    pytest's, which rewrites asserts); forgets them afterwards."""
    monkeypatch.syspath_prepend(str(tmp_path))
    written = []

    def write(name, text):
        path = tmp_path / f"{name}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
        written.append(name.replace("/", "."))
        return path

    def load(name):
        importlib.invalidate_caches()
        return importlib.import_module(name)

    write.load = load
    write.folder = tmp_path
    yield write
    for name in written:
        sys.modules.pop(name, None)


EDITED = """
    import numpy as np

    def square_sum(x):
        return np.sum(x * x)
"""


def test_a_module_edited_after_import_is_refused_and_never_cached(modules):
    path = modules("edited_after_import", EDITED)
    module = modules.load("edited_after_import")
    path.write_text(path.read_text().replace("x * x", "x * x * x"))  # f still runs x * x
    transforms, entries = cache.stats["transforms"], cache.entries()
    with pytest.raises(nf.SrcdiffError) as caught:
        nf.grad(module.square_sum)
    assert str(caught.value).splitlines() == [
        f"{path}:4: the source of square_sum in {path} is not the code it runs: the file was "
        "edited after the module was imported",
        "    def square_sum(x):",
        "hint: reload the module (importlib.reload) or restart Python, then differentiate it",
    ]
    assert cache.stats["transforms"] == transforms and cache.entries() == entries
    importlib.reload(module)  # the way out the hint gives
    np.testing.assert_allclose(nf.grad(module.square_sum)(np.array([2.0])), [12.0])


def test_moving_the_function_is_an_edit_and_moving_lines_inside_it_is_not(modules):
    path = modules("moved", EDITED)
    module = modules.load("moved")
    original = path.read_text()
    path.write_text(original.replace("    return", "    # a comment\n\n    return"))
    np.testing.assert_allclose(nf.grad(module.square_sum)(np.array([2.0])), [4.0])
    path.write_text("# a line above: inspect would read from the wrong line\n" + original)
    with pytest.raises(nf.SrcdiffError, match="is not the code it runs"):
        nf.grad(module.square_sum)


def test_no_false_alarm_for_methods_closures_decorators_and_imports(modules):
    modules(
        "shapes_of_code",
        """
        from __future__ import annotations

        import functools

        import numpy as np
        from numpy import tanh


        def logged(f):
            @functools.wraps(f)
            def wrapper(*args):
                return f(*args)
            return wrapper


        class Base:
            def energy(self, x):
                return np.sum(x * x)


        class Model(Base):
            __scale = 2.0

            def energy(self, x: np.ndarray) -> float:
                assert x.ndim == 1
                return super().energy(x) * self.__scale + np.sum(tanh(x))


        def make(scale):
            def scaled(x):
                return np.sum(np.sin(x) * scale)
            return scaled


        @logged
        def decorated(x):
            return np.sum(np.exp(x))
    """,
    )
    module = modules.load("shapes_of_code")
    x = np.array([0.5, -1.0])
    np.testing.assert_allclose(nf.grad(module.make(3.0))(x), 3.0 * np.cos(x))
    np.testing.assert_allclose(nf.grad(module.decorated)(x), np.exp(x))
    for function in (
        module.Model().energy,
        module.Model.energy,
        module.make(3.0),
        module.decorated,
        module.logged,
    ):
        provenance.check_source_runs(function, None)  # raises if it would refuse them


def test_a_function_whose_source_compiles_alone_to_its_code_needs_no_module_compile(
    modules, monkeypatch
):
    """The parse that reads a function's source is compiled alone (its module's imports
    declared, its __future__ imports in force) and compared with the code that runs:
    compiling the module is left to what depends on its surroundings."""
    modules(
        "compiled_alone",
        """
        from __future__ import annotations

        import numpy as np

        def energy(x):
            return np.sum(np.tanh(x) ** 2) + np.linalg.norm(x)

        def annotated_inside(x):
            def squared(y: np.ndarray) -> np.ndarray:  # (annotations kept as text: __future__)
                return y**2

            return squared(x)

        def make(scale):
            def scaled(x):
                return np.sum(np.sin(x) * scale)
            return scaled

        class Model:
            __scale = 2.0

            def energy(self, x):
                return np.sum(x * x) * self.__scale
    """,
    )
    module = modules.load("compiled_alone")
    compiled = []
    defined = provenance._functions_defined
    monkeypatch.setattr(
        provenance, "_functions_defined", lambda text: compiled.append(text) or defined(text)
    )
    x = np.array([0.5, -1.0])
    expected = 2 * np.tanh(x) * (1 - np.tanh(x) ** 2) + x / np.linalg.norm(x)
    np.testing.assert_allclose(nf.grad(module.energy)(x), expected)
    assert compiled == []
    assert provenance._compiles_to(
        wrappers.source_and_tree(module.annotated_inside)[2], module.annotated_inside
    )
    for function in (module.make(3.0), module.Model.energy):
        _, _, tree = wrappers.source_and_tree(function)
        assert not provenance._compiles_to(tree, function)  # (a free name, a private one)
        provenance.check_source_runs(function, None, tree)  # the module's compile passes it
    assert len(compiled) == 2


def test_a_file_unchanged_since_the_process_started_is_not_compiled_to_be_checked(
    modules, monkeypatch
):
    """A module whose file was last changed before this process started runs the text on
    disk: no compile checks it. One changed since is checked as before, and refused where
    it was edited after its import."""
    path = modules("unchanged_since_start", EDITED)
    module = modules.load("unchanged_since_start")
    if provenance._process_start() is None:
        pytest.skip("this platform does not tell when the process started")
    long_ago = provenance._process_start() - 3600
    os.utime(path, (long_ago, long_ago))
    checks = []
    compiles_to = provenance._compiles_to
    monkeypatch.setattr(
        provenance, "_compiles_to", lambda *args: checks.append(args) or compiles_to(*args)
    )
    np.testing.assert_allclose(nf.grad(module.square_sum)(np.array([2.0])), [4.0])
    assert checks == []
    path.write_text(path.read_text().replace("x * x", "x * x * x"))  # changed now: checked
    with pytest.raises(nf.SrcdiffError, match="is not the code it runs"):
        nf.grad(module.square_sum, wrt=(0,))
    assert len(checks) == 1


def test_a_function_is_parsed_once_to_be_checked_and_read(modules, monkeypatch):
    """The parse that checks the lines read off a function's code are its whole text is the
    one its check against the code that runs compiles, and the one the transform reads."""
    modules(
        "parsed_once",
        """
        import numpy as np

        def energy(x):
            return np.sum(np.sin(x) * x)
    """,
    )
    module = modules.load("parsed_once")
    parsed = []
    parse = ast.parse
    monkeypatch.setattr(
        ast, "parse", lambda text, *a, **k: parsed.append(text) or parse(text, *a, **k)
    )
    x = np.array([0.5, -1.0])
    np.testing.assert_allclose(nf.grad(module.energy)(x), np.cos(x) * x + np.sin(x))
    assert len([text for text in parsed if "def energy" in text]) == 1


# Each caller unpacks a pair from its callee. Which items of a returned tuple can vary is
# decided when the caller is transformed (a constant one gets no adjoint), so a caller's
# emitted code depends on its callee's source, not only the callee's own emitted code.
CALLER = """
    import numpy as np
    import helpers_by_attribute
    import helper_pkg.sub

    def through_module(x):
        a, b = helpers_by_attribute.g(x)
        return np.sum(a * b)

    def through_submodule(x):
        a, b = helper_pkg.sub.g(x)
        return np.sum(a * b)

    def through_class(x):
        a, b = helpers_by_attribute.Helpers.g(x)
        return np.sum(a * b)

    def through_two_calls(x):
        a, b = helpers_by_attribute.calls_h(x)
        return np.sum(a * b)
"""

HELPERS = """
    import helper_pkg.sub

    def g(x):
        return x * 2.0, 3.0

    class Helpers:
        @staticmethod
        def g(x):
            return x * 2.0, 3.0

    def calls_h(x):
        a, b = helper_pkg.sub.h(x)
        return a, b
"""

SUBMODULE = """
    def g(x):
        return x * 2.0, 3.0

    def h(x):
        return x * 2.0, 3.0
"""

RUN = """
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import srcdiff as nf
import caller_by_attribute as caller
x = np.array([1.0, 2.0])
print(json.dumps({name: nf.grad(getattr(caller, name))(x).tolist() for name in
                  ("through_module", "through_submodule", "through_class",
                   "through_two_calls")}))
"""


def test_a_callee_reached_through_a_module_attribute_is_part_of_the_key(modules, tmp_path):
    """Two processes share a cache; between them the callees change, reached as `mod.g`,
    `pkg.sub.g`, `mod.Class.g` and through another callee: the second must not get the
    first's gradients back from the disk cache."""
    modules("caller_by_attribute", CALLER)
    helpers = modules("helpers_by_attribute", HELPERS)
    (modules.folder / "helper_pkg").mkdir()
    (modules.folder / "helper_pkg" / "__init__.py").write_text("")
    submodule = modules("helper_pkg/sub", SUBMODULE)
    env = dict(os.environ, SRCDIFF_CACHE_DIR=str(tmp_path / "cache"), PYTHONDONTWRITEBYTECODE="1")

    def run():
        out = subprocess.run(
            [sys.executable, "-c", RUN, str(modules.folder)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return json.loads(out.stdout.strip().splitlines()[-1])

    assert set(map(tuple, run().values())) == {(6.0, 6.0)}  # d/dx of 6x
    for path in (helpers, submodule):  # now b varies too: d/dx of 6x^2
        path.write_text(path.read_text().replace("return x * 2.0, 3.0", "return x * 2.0, x * 3.0"))
    assert set(map(tuple, run().values())) == {(12.0, 24.0)}


def test_a_method_reached_through_an_object_is_part_of_the_key(modules):
    modules(
        "with_an_object",
        """
        import numpy as np

        class Scaler:
            def apply(self, x):
                return x * 3.0

        scaler = Scaler()

        def f(x):
            return np.sum(scaler.apply(x))
    """,
    )
    module = modules.load("with_an_object")
    before = provenance.cache_key(module.f, (0,), "grad", {}, "same source")

    def apply(self, x):
        return x * 4.0

    module.Scaler.apply.__code__ = apply.__code__
    assert provenance.cache_key(module.f, (0,), "grad", {}, "same source") != before
