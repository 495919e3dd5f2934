"""The on-disk cache against another user on the same machine (issue 20, "Cache security").

Entries are code that will run, so each attack here is one a second user could mount. The tests
that need a second user run as root and act as uid OTHER in a forked child (os.setuid); they are
skipped, saying so, where the test cannot be root."""

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import traceback
import warnings
from pathlib import Path

import numpy as np
import pytest

import srcdiff as nf
from srcdiff import cache

OTHER = 54321  # a uid and gid no one on the machine uses

needs_root = pytest.mark.skipif(
    not hasattr(os, "fork") or not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="acting as a second user needs root (setuid in a forked child)",
)
posix = pytest.mark.skipif(os.name != "posix", reason="POSIX owners and modes")

MODULE = textwrap.dedent("""
    import numpy as np

    def model(w):
        return np.sum(w * w)
""")

SCRIPT = textwrap.dedent("""
    import json, sys, warnings
    import numpy as np
    sys.path.insert(0, sys.argv[1])
    import srcdiff as nf
    from srcdiff import cache
    import victim
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g = nf.grad(victim.model)(np.array([1.0, 2.0]))
        nf.grad(victim.model, preserve_result=True)(np.array([1.0, 2.0]))
    print(json.dumps({"stats": cache.stats, "grad": g.tolist(),
                      "warnings": [str(w.message) for w in caught]}))
""")


def as_other_user(action):
    """Run action() in a forked child whose uid and gid are OTHER; returns the child's pid
    (the caller waits for it, or kills it)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            os.setgroups([])
            os.setgid(OTHER)
            os.setuid(OTHER)
            action()
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)
    return pid


def run_as_other_user(action):
    _, status = os.waitpid(as_other_user(action), 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the second user's action failed"


@pytest.fixture
def shared(tmp_path):
    """A folder every user can reach (but not write): pytest's own tmp_path is private."""
    base = Path(tempfile.mkdtemp(prefix="srcdiff-shared-"))
    os.chmod(base, 0o711)
    (base / "victim.py").write_text(MODULE)
    os.chmod(base / "victim.py", 0o644)
    yield base
    shutil.rmtree(base, ignore_errors=True)


def run_victim(module_dir, cache_dir):
    env = dict(os.environ, SRCDIFF_CACHE_DIR=str(cache_dir))
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(module_dir)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def grad_entry(cache_dir):
    """The entry of the plain gradient (not the preserve_result one) the victim wrote."""
    (entry,) = [
        p
        for p in cache_dir.glob("*.py")
        if '"preserve_result": false' in p.read_text().split("\n", 1)[0]
    ]
    return entry


def forged(path, source):
    """An entry for the key named by `path` whose header a second user recomputed."""
    key = Path(path).stem
    record = {
        "key": key,
        "sha256": cache.digest(key, source),
        "meta": json.loads(Path(path).read_text().split("\n", 1)[0][len(cache.MAGIC) :])["meta"],
    }
    return cache.MAGIC + json.dumps(record, sort_keys=True) + "\n" + source


def forge_gradient(entry):
    """The source of `entry` with every gradient made 42: what an attacker would plant."""
    body = entry.read_text().split("\n", 1)[1]
    return forged(entry, body.replace("return ", "return 42 + 0 * ", 1))


@posix
@needs_root
def test_a_writable_entry_rewritten_by_another_user_is_refused(shared):
    cache_dir = shared / "cache"
    run_victim(shared, cache_dir)
    entry = grad_entry(cache_dir)
    os.chmod(cache_dir, 0o711)  # still the user's own, and no one else may write into it
    os.chmod(entry, 0o666)  # but the entry is: say, a umask of 0
    text = forge_gradient(entry)
    run_as_other_user(lambda: entry.write_text(text))
    assert "42 + 0 *" in entry.read_text()
    again = run_victim(shared, cache_dir)
    assert again["grad"] == [2.0, 4.0]
    assert again["stats"]["transforms"] == 1 and again["stats"]["disk_rejects"] == 1
    assert any("other users can write it (mode 666)" in w for w in again["warnings"])


@posix
def test_a_group_writable_entry_is_refused_even_with_a_valid_hash(tmp_path, monkeypatch):
    monkeypatch.setenv("SRCDIFF_CACHE_DIR", str(tmp_path / "cache"))
    key = "a" * 64
    cache.store(key, "def f():\n    return 1\n", {"names": ["f"]})
    path = tmp_path / "cache" / f"{key}.py"
    os.chmod(path, 0o620)
    path.write_text(forged(path, "def f():\n    return 'forged'\n"))
    with pytest.warns(UserWarning, match=r"other users can write it \(mode 620\)"):
        assert cache.load(key) is None


@posix
@needs_root
def test_swapping_entries_in_a_directory_others_can_write_never_runs_a_forged_one(shared):
    """The old loader checked the entry with lstat and opened it again by name: swapping
    files in between got a forged entry run. Now the directory itself is refused, and the
    entry reader checks the very descriptor it reads, so the swap cannot win either."""
    cache_dir = shared / "cache"
    run_victim(shared, cache_dir)
    entry = grad_entry(cache_dir)
    os.chmod(cache_dir, 0o777)  # a directory another user can write into
    forgery = cache_dir / "forgery"
    forgery.write_text(forge_gradient(entry))
    os.chown(forgery, OTHER, OTHER)

    refused = run_victim(shared, cache_dir)  # the directory is not used at all
    assert refused["grad"] == [2.0, 4.0] and refused["stats"]["disk_hits"] == 0
    assert (
        sum("other users can write into it (mode 777)" in w for w in refused["warnings"]) == 1
    )  # one warning, though two transforms
    assert len(list(cache_dir.iterdir())) == 3  # nothing written: the two entries, the forgery

    def swap_forever():
        hold = cache_dir / "hold"
        while True:
            os.rename(entry, hold)
            os.rename(forgery, entry)
            os.rename(entry, forgery)
            os.rename(hold, entry)

    # the entry reader alone, as if the directory had passed its checks
    fd = os.open(cache_dir, os.O_RDONLY)
    seen = {"genuine": 0, "refused": 0, "missing": 0}
    pid = as_other_user(swap_forever)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for attempt in range(50_000):
                loaded = cache._load_entry(cache_dir, fd if cache._AT else None, entry.stem)
                assert loaded is None or "42 + 0 *" not in loaded[0], "a forged entry was read"
                kind = (
                    "missing"
                    if loaded is None and not entry.exists()
                    else "refused"
                    if loaded is None
                    else "genuine"
                )
                seen[kind] += 1
                if attempt > 2000 and seen["genuine"] > 20 and seen["refused"] > 20:
                    break
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)
    assert seen["genuine"] and seen["refused"], seen  # the swap really raced the reader


@posix
def test_a_symlinked_entry_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("SRCDIFF_CACHE_DIR", str(tmp_path / "cache"))
    key = "b" * 64
    cache.store(key, "def f():\n    return 1\n", {"names": ["f"]})
    path = tmp_path / "cache" / f"{key}.py"
    elsewhere = tmp_path / "elsewhere.py"
    elsewhere.write_text(path.read_text())
    os.chmod(elsewhere, 0o600)
    path.unlink()
    path.symlink_to(elsewhere)
    with pytest.warns(UserWarning, match="is a symbolic link"):
        assert cache.load(key) is None


@posix
@needs_root
def test_a_directory_another_user_owns_is_not_used(shared):
    cache_dir = shared / "theirs"
    cache_dir.mkdir(mode=0o755)
    os.chown(cache_dir, OTHER, OTHER)
    result = run_victim(shared, cache_dir)
    assert result["grad"] == [2.0, 4.0]
    assert result["stats"]["transforms"] == 2 and result["stats"]["disk_hits"] == 0
    assert [w for w in result["warnings"] if "not using the cache directory" in w] == [
        f"srcdiff: not using the cache directory {cache_dir}: another user (uid {OTHER}) "
        "owns it; running uncached (set SRCDIFF_CACHE_DIR to a directory of your own that "
        "only you can write, or to 'off')"
    ]
    assert not list(cache_dir.iterdir())


@posix
@needs_root
def test_a_symlink_to_another_users_directory_is_not_used(shared):
    theirs = shared / "theirs"
    theirs.mkdir(mode=0o777)
    os.chown(theirs, OTHER, OTHER)
    link = shared / "cache"
    link.symlink_to(theirs)
    result = run_victim(shared, link)
    assert result["grad"] == [2.0, 4.0] and result["stats"]["disk_hits"] == 0
    assert any("is a symbolic link" in w for w in result["warnings"])
    assert not list(theirs.iterdir())


@posix
def test_a_world_writable_or_symlinked_directory_of_ones_own_is_not_used(tmp_path):
    (tmp_path / "victim.py").write_text(MODULE)
    open_dir = tmp_path / "open"
    open_dir.mkdir()
    os.chmod(open_dir, 0o777)
    result = run_victim(tmp_path, open_dir)
    assert result["stats"]["transforms"] == 2 and not list(open_dir.iterdir())
    assert any("other users can write into it (mode 777)" in w for w in result["warnings"])
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(private)
    result = run_victim(tmp_path, link)
    assert result["stats"]["transforms"] == 2 and not list(private.iterdir())


@posix
def test_the_directory_is_created_private_whatever_the_umask(tmp_path, monkeypatch):
    monkeypatch.setenv("SRCDIFF_CACHE_DIR", str(tmp_path / "new" / "cache"))
    old = os.umask(0)
    try:
        assert cache.store("c" * 64, "def f():\n    return 1\n", {"names": ["f"]})
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "new" / "cache").st_mode) == 0o700
    (entry,) = (tmp_path / "new" / "cache").iterdir()
    assert stat.S_IMODE(os.stat(entry).st_mode) == 0o600


@posix
def test_a_directory_removed_while_running_is_made_again_private(tmp_path, monkeypatch):
    """The directory is created when a store finds it missing, not only at the first one."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("SRCDIFF_CACHE_DIR", str(folder))
    source, meta = "def f():\n    return 1\n", {"names": ["f"]}
    assert cache.store("d" * 64, source, meta) == folder / f"{'d' * 64}.py"
    shutil.rmtree(folder)
    assert cache.load("d" * 64) is None  # (missing: nothing made by a load)
    assert not folder.exists()
    assert cache.store("e" * 64, source, meta) == folder / f"{'e' * 64}.py"
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    assert cache.load("e" * 64) == (source, meta)


def test_clear_deletes_only_entries(tmp_path):
    """`SRCDIFF_CACHE_DIR=$PWD python -m srcdiff cache clear` used to delete every .py file."""
    own = {
        "train.py": "print('mine')\n",
        "notes.py": "# srcdiff-cache is not a header here\n",
        "a" * 64 + ".py": "# a file of the user's named like a key\n",
    }
    for name, text in own.items():
        (tmp_path / name).write_text(text)
    env = dict(os.environ, SRCDIFF_CACHE_DIR=str(tmp_path))
    key = "d" * 64
    subprocess.run(
        [
            sys.executable,
            "-c",
            f"from srcdiff import cache; cache.store('{key}', 'def f():\\n    return 1\\n', {{}})",
        ],
        env=env,
        check=True,
    )
    assert (tmp_path / f"{key}.py").exists()
    out = subprocess.run(
        [sys.executable, "-m", "srcdiff", "cache", "clear"],
        env=env,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"removed 1 cached entries from {tmp_path}"
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == own


def test_default_directory_follows_each_platform(monkeypatch, tmp_path):
    monkeypatch.delenv("SRCDIFF_CACHE_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.directory() == tmp_path / "xdg" / "srcdiff"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/is/ignored")
    assert cache.directory() == tmp_path / ".cache" / "srcdiff"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache.directory() == tmp_path / ".cache" / "srcdiff"
    monkeypatch.setattr(sys, "platform", "darwin")
    assert cache.directory() == tmp_path / "Library" / "Caches" / "srcdiff"
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "Local"))
    assert cache.directory() == tmp_path / "Local" / "srcdiff" / "Cache"
    monkeypatch.setenv("SRCDIFF_CACHE_DIR", str(tmp_path / "mine"))
    assert cache.directory() == tmp_path / "mine"


def test_a_refused_directory_still_gives_gradients_in_process(tmp_path, monkeypatch):
    open_dir = tmp_path / "open"
    open_dir.mkdir()
    os.chmod(open_dir, 0o777)
    monkeypatch.setenv("SRCDIFF_CACHE_DIR", str(open_dir))

    def f(x):
        return np.sum(np.sin(x))

    with pytest.warns(UserWarning, match="not using the cache directory"):
        g = nf.grad(f)(np.array([0.0, 1.0]))
    np.testing.assert_allclose(g, np.cos([0.0, 1.0]))
    out = subprocess.run(
        [sys.executable, "-m", "srcdiff", "cache", "info"],
        env=dict(os.environ, SRCDIFF_CACHE_DIR=str(open_dir)),
        capture_output=True,
        text=True,
    )
    assert out.returncode == 1
    assert f"{open_dir} is not used: other users can write into it (mode 777)" in out.stderr
