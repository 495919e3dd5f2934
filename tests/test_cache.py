"""The in-memory and on-disk caches (CONVENTIONS.md, "Cache")."""

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import srcdiff as nf
from srcdiff import cache

MODULE = textwrap.dedent("""
    import numpy as np

    def model(w, x):
        return np.sum(np.tanh(x @ w) ** 2)
""")

SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    sys.path.insert(0, sys.argv[1])
    import srcdiff as nf
    from srcdiff import cache
    import cached_model
    g = nf.grad(cached_model.model)(np.ones(3), np.arange(6.0).reshape(2, 3))
    print(json.dumps({"stats": cache.stats, "grad": g.tolist()}))
""")


def run_process(module_dir, cache_dir):
    env = dict(os.environ, SRCDIFF_CACHE_DIR=str(cache_dir))
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(module_dir)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture
def module_dir(tmp_path):
    (tmp_path / "cached_model.py").write_text(MODULE)
    return tmp_path


def test_second_process_does_not_transform(module_dir, tmp_path):
    cache_dir = tmp_path / "cache"
    first = run_process(module_dir, cache_dir)
    second = run_process(module_dir, cache_dir)
    assert first["stats"]["transforms"] == 1 and first["stats"]["disk_hits"] == 0
    assert second["stats"]["transforms"] == 0 and second["stats"]["disk_hits"] == 1
    assert first["grad"] == second["grad"]
    assert stat.S_IMODE(os.stat(cache_dir).st_mode) == 0o700
    entries = list(cache_dir.glob("*.py"))
    assert len(entries) == 1 and stat.S_IMODE(os.stat(entries[0]).st_mode) == 0o600


def test_corrupt_entry_is_regenerated(module_dir, tmp_path):
    cache_dir = tmp_path / "cache"
    good = run_process(module_dir, cache_dir)
    (entry,) = cache_dir.glob("*.py")
    entry.write_text(entry.read_text().replace("return", "return 0 *"))
    again = run_process(module_dir, cache_dir)
    assert again["stats"]["transforms"] == 1 and again["stats"]["disk_rejects"] == 1
    assert again["grad"] == good["grad"]
    entry.write_text("garbage")
    assert run_process(module_dir, cache_dir)["stats"]["transforms"] == 1


def test_cache_off_writes_nothing(module_dir, tmp_path, monkeypatch):
    cache_dir = tmp_path / "never"
    env_off = dict(os.environ, SRCDIFF_CACHE_DIR="off")
    subprocess.run(
        [sys.executable, "-c", SCRIPT, str(module_dir)],
        env=env_off,
        check=True,
        capture_output=True,
    )
    assert not cache_dir.exists()
    monkeypatch.setenv("SRCDIFF_CACHE_DIR", str(cache_dir))
    nf.config(cache=False)
    try:
        assert cache.directory() is None
    finally:
        nf.config(cache=True)
    assert cache.directory() == cache_dir


def test_memory_cache_hits_in_process(rng):
    def f(x):
        return np.sum(np.cos(x))

    before = cache.stats["transforms"]
    nf.grad(f)
    nf.grad(f)
    assert cache.stats["transforms"] == before + 1


PICKED = {"act": np.tanh}


def picks_by_a_constant_key(x):
    return np.sum(PICKED["act"](x))


def test_a_function_picked_from_a_global_dict_is_in_the_key(monkeypatch):
    x = np.array([0.5, 1.0])
    np.testing.assert_allclose(nf.grad(picks_by_a_constant_key)(x), 1 - np.tanh(x) ** 2)
    monkeypatch.setitem(PICKED, "act", np.sin)
    np.testing.assert_allclose(nf.grad(picks_by_a_constant_key)(x), np.cos(x))


def test_functions_of_one_source_with_their_own_defaults():
    """`def fk(x, k=k)` made in a loop: one source, three defaults. The first function's
    emitted code (and its defaults) served all three: gradients [1, 1, 1] for [1, 2, 3]."""
    made = []
    for k in range(3):

        def fk(x, k=k):
            return x**2 * (k + 1)

        made.append(fk)
    assert [nf.grad(f)(0.5) for f in made] == [1.0, 2.0, 3.0]
    assert [nf.hvp(f)(0.5, 1.0) for f in made] == [2.0, 4.0, 6.0]


def power(x, p=2):
    return np.sum(x**p)


def power_by_keyword(x, *, p=2):
    return np.sum(x**p)


def test_defaults_replaced_after_the_derivative_was_made(monkeypatch):
    """f.__defaults__ assigned after nf.grad(f): the old code with the old defaults ran
    (0.5 ** 2's slope 1.0 for 0.5 ** 3's 0.75), even in a fresh nf.grad(f)."""
    x = np.array([0.5])
    gradient = nf.grad(power)
    assert gradient(x) == [1.0] and nf.hvp(power)(x, x * 0 + 1) == [2.0]
    monkeypatch.setattr(power, "__defaults__", (3,))
    assert gradient(x) == [0.75] and nf.grad(power)(x) == [0.75]
    assert nf.hvp(power)(x, x * 0 + 1) == [3.0]
    by_keyword = nf.grad(power_by_keyword)
    assert by_keyword(x) == [1.0]
    monkeypatch.setattr(power_by_keyword, "__kwdefaults__", {"p": 3})
    assert by_keyword(x) == [0.75]


SCALE = 2.0


def scaled(z, k=SCALE):  # (k is 2.0 whatever SCALE is later)
    return z * k


def loss_of_scaled(x):
    return np.sum(scaled(x) ** 2)


def test_a_callee_takes_the_defaults_bound_when_it_was_defined(monkeypatch):
    """A called function's default was its expression evaluated again in the emitted module
    (SCALE rebound to 5.0: gradient [25, -50] for [4, -8]), and stale once replaced."""
    monkeypatch.setitem(globals(), "SCALE", 5.0)
    x = np.array([0.5, -1.0])
    gradient = nf.grad(loss_of_scaled)
    np.testing.assert_allclose(gradient(x), 8 * x)
    monkeypatch.setattr(scaled, "__defaults__", (3.0,))
    np.testing.assert_allclose(gradient(x), 18 * x)
    np.testing.assert_allclose(nf.hvp(loss_of_scaled)(x, np.ones(2)), [18.0, 18.0])


def made_with(c):
    def times(z, c=c):
        return z * c

    return times


ONCE, FIVE_TIMES = made_with(1.0), made_with(5.0)


def loss_of_made_callees(x):
    return np.sum(ONCE(x) + FIVE_TIMES(x) ** 2)


def test_callees_whose_defaults_are_an_enclosing_function_locals():
    """NameError 'c' from the emitted module of each callee."""
    x = np.array([0.5, -1.0])
    np.testing.assert_allclose(nf.grad(loss_of_made_callees)(x), 1.0 + 50.0 * x)


def test_a_default_read_from_the_enclosing_function():
    """The emitted `def dfk(x, k=k)` evaluated `k` in the emitted module: NameError."""

    def make(k):
        def fk(x, k=k):
            return x**2 * (k + 1)

        return fk

    assert nf.grad(make(1))(0.5) == 2.0
    assert nf.grad(make(2))(0.5) == 3.0


def test_changed_source_is_retransformed(tmp_path, monkeypatch):
    monkeypatch.setenv("SRCDIFF_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "editable.py"
    grads = []
    for body in ("np.sum(x * x)", "np.sum(x * x * x)"):
        path.write_text(f"import numpy as np\n\ndef f(x):\n    return {body}\n")
        scope = {}
        exec(compile(path.read_text(), str(path), "exec"), scope)
        import linecache

        linecache.checkcache(str(path))
        grads.append(nf.grad(scope["f"])(np.array([2.0])))
    np.testing.assert_allclose(grads, [[4.0], [12.0]])


def test_symlinked_entry_is_refused(module_dir, tmp_path):
    cache_dir = tmp_path / "cache"
    run_process(module_dir, cache_dir)
    (entry,) = cache_dir.glob("*.py")
    target = tmp_path / "elsewhere.py"
    target.write_text(entry.read_text())
    entry.unlink()
    entry.symlink_to(target)
    assert run_process(module_dir, cache_dir)["stats"]["disk_rejects"] == 1


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX owners")
def test_rejected_entries_warn_and_say_why(tmp_path, monkeypatch):
    monkeypatch.setenv("SRCDIFF_CACHE_DIR", str(tmp_path))
    key = "k" * 64
    cache.store(key, "def f():\n    return 1\n", {"names": ["f"]})
    assert cache.load(key)[0].startswith("def f")
    path = tmp_path / f"{key}.py"
    path.write_text(path.read_text().replace("return 1", "return 2"))
    with pytest.warns(UserWarning, match="do not match its recorded hash"):
        assert cache.load(key) is None
    cache.store(key, "def f():\n    return 1\n", {"names": ["f"]})
    monkeypatch.setattr(os, "geteuid", lambda: os.stat(path).st_uid + 1)
    with pytest.warns(UserWarning, match=r"another user \(uid \d+\) owns it"):
        assert cache.load(key) is None
    monkeypatch.undo()
    monkeypatch.setenv("SRCDIFF_CACHE_DIR", str(tmp_path))
    other = "o" * 64
    (tmp_path / f"{other}.py").write_text(path.read_text())  # a valid entry under a wrong name
    with pytest.warns(UserWarning, match="belongs to another key"):
        assert cache.load(other) is None


RACE = textwrap.dedent("""
    import sys
    import numpy as np
    sys.path.insert(0, sys.argv[1])
    import srcdiff as nf
    import cached_model
    for _ in range(20):
        nf.grad(cached_model.model)(np.ones(3), np.arange(6.0).reshape(2, 3))
        from srcdiff import cache
        cache._memory.clear()
    print("ok")
""")


def test_concurrent_processes_never_tear_an_entry(module_dir, tmp_path):
    cache_dir = tmp_path / "cache"
    env = dict(os.environ, SRCDIFF_CACHE_DIR=str(cache_dir))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", RACE, str(module_dir)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    results = [p.communicate() for p in procs]
    for (out, err), p in zip(results, procs):
        assert p.returncode == 0 and out.strip() == "ok", err
        assert "ignoring cache entry" not in err  # no process ever read a torn file
    assert len(list(cache_dir.glob("*.py"))) == 1 and not list(cache_dir.glob(".tmp-*"))
    assert run_process(module_dir, cache_dir)["stats"]["transforms"] == 0


def test_concurrent_threads(tmp_path, monkeypatch):
    import threading

    monkeypatch.setenv("SRCDIFF_CACHE_DIR", str(tmp_path))

    def f(x):
        return np.sum(np.sin(x) * np.cos(x))

    results, errors = [], []

    def work():
        try:
            results.append(nf.grad(f)(np.linspace(0, 1, 5)))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 8
    for r in results:
        np.testing.assert_allclose(r, np.cos(2 * np.linspace(0, 1, 5)))


def test_editing_the_transformer_changes_the_key_and_the_showcase_does_not(tmp_path, monkeypatch):
    """Editing any module of the transformer invalidates every entry; editing a showcase
    module (nn.py, train.py, ...) must not: the functions a key reaches are digested anyway."""
    import shutil

    from srcdiff import provenance

    copy = tmp_path / "srcdiff"
    shutil.copytree(
        Path(provenance.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__")
    )
    monkeypatch.setattr(provenance, "_PACKAGE", str(copy))
    provenance.implementation_digest.cache_clear()

    def digest_after_editing(name):
        before = provenance.implementation_digest()
        with open(copy / name, "a") as f:
            f.write("\n# an edit\n")
        provenance.implementation_digest.cache_clear()
        return before, provenance.implementation_digest()

    try:
        before, after = digest_after_editing(Path("passes") / "copies.py")
        assert after != before
        for showcase in (
            "nn.py",
            "resnet.py",
            "train.py",
            "demo.py",
            "data.py",
            "optim.py",
            "tree.py",
            "checkpoint_file.py",
        ):
            before, after = digest_after_editing(showcase)
            assert after == before, showcase
    finally:
        provenance.implementation_digest.cache_clear()


@pytest.mark.skipif(not hasattr(Exception, "add_note"), reason="notes are Python 3.11+")
def test_an_entry_for_a_function_that_moved_names_where_it_is_now(tmp_path, monkeypatch):
    """The key is the source, so an entry made for f serves f moved down its file (or the
    same source in another file): its lines must be where f is now."""
    monkeypatch.setenv("SRCDIFF_CACHE_DIR", str(tmp_path / "cache"))
    body = "def f(w):\n    return np.sum(np.linalg.inv(w))\n"
    for name, above in (("first.py", ""), ("moved.py", "\n# two lines\n# added above\n")):
        path = tmp_path / name
        path.write_text(f"import numpy as np\n{above}\n{body}")
        scope = {}
        exec(compile(path.read_text(), str(path), "exec"), scope)
        hits = cache.stats["disk_hits"]
        df = nf.grad(scope["f"])
        with pytest.raises(np.linalg.LinAlgError) as error:
            df(np.zeros((2, 2)))
        line = path.read_text().splitlines().index("    return np.sum(np.linalg.inv(w))") + 1
        assert f"{path}:{line}: return np.sum(np.linalg.inv(w))" in error.value.__notes__[0]
        assert df._location("defined").lineno == line - 1
    assert cache.stats["disk_hits"] == hits + 1  # the second came from the first's entry


USER_RULE = textwrap.dedent("""
    import json
    import numpy as np
    from srcdiff.primitives import registry

    tokens = [registry.token()]
    import scipy.special  # (its primitives are declared once it is imported)

    tokens.append(registry.token())
    import srcdiff as nf

    @nf.adjoint(np.arcsinh)
    def arcsinh_adjoint(bz, z, x):
        bx = bz / np.sqrt(x * x + 1)

    tokens.append(registry.token())
    described = [record.name for record in registry._records if not record.own]
    print(json.dumps({"tokens": tokens, "described": described}))
""")


def test_the_key_follows_the_libraries_declared_and_each_rule_a_user_registers(tmp_path):
    """srcdiff's own records count in cache keys by its files' digest and what declared them;
    a rule a user registers, here replacing a built-in one, is described in full."""
    pytest.importorskip("scipy")
    (tmp_path / "user_rule.py").write_text(USER_RULE)
    out = subprocess.run(
        [sys.executable, str(tmp_path / "user_rule.py")], capture_output=True, text=True, check=True
    )
    found = json.loads(out.stdout)
    assert len(set(found["tokens"])) == 3
    assert found["described"] == ["arcsinh"]


def test_a_transform_opens_the_cache_directory_once_for_all_its_modules(tmp_path, monkeypatch):
    """resnet.loss makes a dozen modules, each looked up and stored: the directory is opened
    and checked once, and every entry lands in it; a second process finds them all."""
    from srcdiff import resnet

    monkeypatch.setenv("SRCDIFF_CACHE_DIR", str(tmp_path))
    opened = []
    checked = cache._checked_directory
    monkeypatch.setattr(
        cache, "_checked_directory", lambda root: opened.append(root) or checked(root)
    )
    cache.clear_memory()
    nf.grad(resnet.loss)
    entries = list(tmp_path.glob("*.py"))
    assert len(opened) == 1 and len(entries) > 10
    assert all(stat.S_IMODE(os.stat(entry).st_mode) == 0o600 for entry in entries)
    loads = [cache.load(entry.stem) for entry in entries]
    assert all(loaded is not None for loaded in loads)
