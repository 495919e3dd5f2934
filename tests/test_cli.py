"""python -m srcdiff show / cache."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "srcdiff", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )


def test_show_prints_the_emitted_source():
    out = run("show", "generated_examples.rnn:rnn", "--wrt", "0,1")
    assert out.returncode == 0, out.stderr
    expected = (ROOT / "generated_examples" / "rnn_grad.py").read_text().split("\n", 3)[3]
    assert out.stdout == expected
    assert "\033[" not in out.stdout  # not a terminal: plain


def test_show_colours_when_asked_and_raw_skips_optimisation():
    coloured = run("show", "generated_examples.polynomial:polynomial", "--color", "always")
    assert "\033[1;34mdef\033[0m dpolynomial" in coloured.stdout
    raw = run("show", "generated_examples.polynomial:polynomial", "--raw")
    assert raw.returncode == 0 and "def dpolynomial" in raw.stdout


def test_show_reports_missing_module_and_function():
    missing = run("show", "no_such_module:f")
    assert missing.returncode != 0 and "cannot import module 'no_such_module'" in missing.stderr
    absent = run("show", "srcdiff.resnet:no_such_function")
    assert absent.returncode != 0 and "has no function 'no_such_function'" in absent.stderr
    bad = run("show", "srcdiff.resnet")
    assert bad.returncode != 0 and "MODULE:FUNCTION" in bad.stderr


def test_cache_info_and_clear(tmp_path):
    env = {"SRCDIFF_CACHE_DIR": str(tmp_path)}
    assert run("show", "generated_examples.piecewise:piecewise", env=env).returncode == 0
    info = run("cache", "info", env=env)
    assert str(tmp_path) in info.stdout and "entries: 1" in info.stdout
    cleared = run("cache", "clear", env=env)
    assert "removed 1" in cleared.stdout and not list(tmp_path.glob("*.py"))
    off = run("cache", "info", env={"SRCDIFF_CACHE_DIR": "off"})
    assert "off" in off.stdout


def test_show_forward_mode():
    out = run("show", "generated_examples.rnn:rnn", "--mode", "forward")
    assert out.returncode == 0, out.stderr
    assert "def jvp_rnn(dw, w, b, h, xs):" in out.stdout and "_stack" not in out.stdout


def test_show_the_code_a_call_with_given_shapes_runs():
    out = run(
        "show",
        "generated_examples.rnn:rnn",
        "--wrt",
        "0,1",
        "--args",
        "float64[4,4] float64[4] float64[4] float64[10,4]",
    )
    assert out.returncode == 0, out.stderr
    assert "bw += np.outer(b_t3, h)" in out.stdout and "runtime." not in out.stdout
    scalar = run("show", "generated_examples.polynomial:polynomial", "--args", "float floats")
    assert scalar.returncode == 0, scalar.stderr
    assert "d_t0 = dtotal * x + total" in scalar.stdout and "_stack" not in scalar.stdout
    bad = run("show", "generated_examples.rnn:rnn", "--args", "float64[4,x]")
    assert bad.returncode != 0 and "cannot read argument 'float64[4,x]'" in bad.stderr


AS_CONSOLE_SCRIPT = (
    "import sys; sys.argv[0] = '/venv/bin/srcdiff'; "
    "from srcdiff.__main__ import main; sys.exit(main())"
)


def test_version_is_written_once_and_shown_by_both_ways_of_running_srcdiff():
    import srcdiff
    from srcdiff import transform

    assert transform.VERSION == srcdiff.__version__
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in pyproject and '"srcdiff.__version__"' in pyproject
    module = run("--version")
    assert module.returncode == 0 and module.stdout == f"srcdiff {srcdiff.__version__}\n"
    script = subprocess.run(
        [sys.executable, "-c", AS_CONSOLE_SCRIPT, "--version"], capture_output=True, text=True
    )
    assert script.stdout == module.stdout


def test_usage_lines_say_how_srcdiff_was_run():
    module = run()
    assert module.returncode == 2 and module.stderr.startswith("usage: python -m srcdiff ")
    script = subprocess.run(
        [sys.executable, "-c", AS_CONSOLE_SCRIPT], capture_output=True, text=True
    )
    assert script.returncode == 2 and script.stderr.startswith("usage: srcdiff ")
    installed = Path(sys.executable).parent / "srcdiff"  # the console script, where installed
    if installed.exists():
        real = subprocess.run([str(installed), "cache", "nonsense"], capture_output=True, text=True)
        assert real.returncode == 2 and real.stderr.startswith("usage: srcdiff cache ")
