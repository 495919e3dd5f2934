"""How srcdiff's costs grow with the size of the program: `python tools/bench.py --scaling`.

Each case runs in a new process with an empty cache, as a new user meets it: the import, the
cold transform (`nf.grad`), the specialisation for the shapes of the arguments of a first call
(the time that call spends in Variants._variant_for, which checks them and makes the code
for their signature: not the gradient the call then runs, most of resnet.loss's first call),
then, in another new process, the transform again under tracemalloc for its peak memory.
The cases are straight-line functions of N statements `h = np.tanh(h * w + 0.1)`, loops
nested 1-3 deep around 100 such statements, and resnet.loss (ResNet-20, batch 32); the
exponent is the least-squares slope of log(time) against log(N) for N >= 100 (below, fixed
costs dominate). Rounds take the cases in turn, so a busy spell of the machine falls on all
alike; the table gives the median and the range over rounds. Last, the call overhead of a
derivative of a tiny function over the specialised code it runs, measured side by side.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZES = (10, 100, 1000, 3000, 10000)
DEPTHS = (1, 2, 3)
LOOP_BODY = 100
STATEMENT = "h = np.tanh(h * w + 0.1)"


# --- the programs -------------------------------------------------------------------------------


def straight_line(n):
    lines = ["import numpy as np", "", "", "def f(w, x):", "    h = x"]
    lines += ["    " + STATEMENT] * n
    return "\n".join(lines + ["    return np.sum(h)", ""])


def nested_loops(depth, body=LOOP_BODY):
    lines = ["import numpy as np", "", "", "def f(w, x):", "    h = x"]
    for level in range(depth):
        lines.append("    " * (level + 1) + f"for i{level} in range(2):")
    lines += ["    " * (depth + 1) + STATEMENT] * body
    return "\n".join(lines + ["    return np.sum(h)", ""])


def _load(source):
    """f from a module holding `source` (srcdiff reads a function's source from its file)."""
    import importlib.util

    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "generated.py")
    with open(path, "w") as file:
        file.write(source)
    spec = importlib.util.spec_from_file_location("generated", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


def _case(kind, size):
    """(function, arguments) of one case."""
    import numpy as np

    if kind == "resnet":
        from srcdiff import resnet

        rng = np.random.default_rng(0)
        params = resnet.init(rng, depth=20, width=16)
        x = rng.normal(size=(32, 3, 32, 32)).astype(np.float32)
        return resnet.loss, (params, x, rng.integers(0, 10, size=32))
    source = straight_line(size) if kind == "straight" else nested_loops(size)
    w = np.linspace(0.1, 0.9, 8)
    return _load(source), (w, np.linspace(-1.0, 1.0, 8))


def measure_case(kind, size, memory):
    """Run one case in this (new) process; prints a JSON line of its timings."""
    os.environ["SRCDIFF_CACHE_DIR"] = tempfile.mkdtemp()
    sys.setrecursionlimit(1000)  # Python's default, whatever the caller set
    start = time.perf_counter()
    import srcdiff as nf

    imported = time.perf_counter()
    fn, args = _case(kind, size)
    if memory:
        import tracemalloc

        tracemalloc.start()
        nf.grad(fn)
        print(json.dumps({"peak_mib": tracemalloc.get_traced_memory()[1] / 2**20}))
        return
    begin, begin_cpu = time.perf_counter(), time.process_time()
    derivative = nf.grad(fn)
    transformed, transformed_cpu = time.perf_counter(), time.process_time()
    from srcdiff.variants import Variants

    spent = _time_spent_in(Variants, "_variant_for")
    derivative(*args)
    print(
        json.dumps(
            {
                "import_ms": 1e3 * (imported - start),
                "transform_ms": 1e3 * (transformed - begin),
                "specialise_ms": 1e3 * spent[0],
                "transform_cpu_ms": 1e3 * (transformed_cpu - begin_cpu),
                "specialise_cpu_ms": 1e3 * spent[1],
            }
        )
    )


def _time_spent_in(cls, name):
    """[wall-clock, CPU] seconds spent in method `name` of `cls` from now on."""
    method, spent = getattr(cls, name), [0.0, 0.0]

    def timed(*args, **kwargs):
        begin, begin_cpu = time.perf_counter(), time.process_time()
        try:
            return method(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - begin
            spent[1] += time.process_time() - begin_cpu

    setattr(cls, name, timed)
    return spent


def _environment():
    """For the new processes: this checkout's srcdiff, one BLAS thread, and compiled
    bytecode kept (in a folder of its own) as an installed package has it."""
    env = dict(
        os.environ,
        PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
        OPENBLAS_NUM_THREADS="1",
        PYTHONPYCACHEPREFIX=tempfile.mkdtemp(),
    )
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-c", "import srcdiff"], env=env, check=True)
    return env


def _run(kind, size, memory, timeout, env):
    command = [sys.executable, os.path.abspath(__file__), "--case", kind, str(size)]
    try:
        done = subprocess.run(
            command + (["--memory"] if memory else []),
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0:
        raise SystemExit(f"{kind} {size} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- the report ---------------------------------------------------------------------------------


def exponent(points):
    """Least-squares slope of log(time) against log(N) over (N, time) points."""
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(t) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def _median(values):
    values = sorted(values)
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


def _cell(values, per=None):
    if not values:
        return f"{'(timed out)':>22}"
    med = _median(values)
    text = f"{med:,.0f} ({min(values):,.0f}-{max(values):,.0f})"
    if per:
        text += f" {med / per:.2f}/st"
    return f"{text:>22}"


def call_overhead():
    """Microseconds per call: a tiny function, its derivative, and the specialised code the
    derivative runs (called directly), for a float and for a small array."""
    import numpy as np

    sys.path.insert(0, os.path.join(ROOT, "tools"))
    from bench import side_by_side

    import srcdiff as nf

    rows = []
    for label, source, arg in (
        ("float: x * x + 1", "def f(x):\n    return x * x + 1\n", 0.3),
        (
            "array(3): np.sum(x * x + 1)",
            "import numpy as np\n\n\ndef f(x):\n    return np.sum(x * x + 1)\n",
            np.ones(3),
        ),
    ):
        fn = _load(source)
        derivative = nf.grad(fn)
        derivative(arg)
        ((variant, _),) = derivative._variants.values()
        times = side_by_side(
            {
                "plain": lambda: fn(arg),
                "derivative": lambda: derivative(arg),
                "specialised": lambda: variant(arg),
            },
            30,
            0.02,
        )
        rows.append((label, {k: 1e3 * v for k, v in times.items()}))
    return rows


def main(sizes=SIZES, rounds=3, timeout=600.0, memory=True):
    cases = [("straight", n) for n in sizes] + [("loops", d) for d in DEPTHS] + [("resnet", 20)]
    results = {case: [] for case in cases}
    skipped, env = set(), _environment()
    for round_ in range(rounds):
        for case in cases:
            if case in skipped:
                continue
            measured = _run(*case, memory=False, timeout=timeout, env=env)
            if measured is None:  # too slow: the larger sizes of its kind would be too
                skipped.update(c for c in cases if c[0] == case[0] and c[1] >= case[1])
                continue
            results[case].append(measured)
        print(f"(round {round_ + 1} of {rounds} done)", file=sys.stderr)
    peaks = {
        case: _run(*case, memory=True, timeout=timeout, env=env)
        for case in cases
        if memory and case not in skipped
    }
    _report(cases, results, peaks)
    print("\ncall overhead, median microseconds per call (side by side, 30 rounds)")
    print(f"{'':30} {'plain f':>9} {'derivative':>11} {'specialised':>12} {'overhead':>9}")
    for label, t in call_overhead():
        print(
            f"{label:30} {t['plain']:9.3f} {t['derivative']:11.3f} {t['specialised']:12.3f}"
            f" {t['derivative'] - t['specialised']:9.3f}"
        )


def _report(cases, results, peaks):
    imports = [r["import_ms"] for runs in results.values() for r in runs]
    print(
        f"import srcdiff: {_median(imports):.0f} ms (range {min(imports):.0f}-"
        f"{max(imports):.0f}) in a new process\n"
    )
    print("milliseconds, median (range) over rounds; /st: per statement")
    print("*: making the code for the first call's signature, not running it")
    _table(cases, results, peaks, "")
    print("\nthe same in CPU time of the process (what a busy machine inflates less)")
    _table(cases, results, {}, "_cpu")
    straight_peaks = [
        (n, peaks[("straight", n)]["peak_mib"])
        for kind, n in cases
        if kind == "straight" and n >= 100 and peaks.get(("straight", n))
    ]
    if len(straight_peaks) >= 2:
        print(f"fitted exponent of peak memory, N >= 100: {exponent(straight_peaks):.2f}")


def _table(cases, results, peaks, clock):
    """The table of times (`clock`: "" for wall-clock, "_cpu" for CPU time), exponents after."""
    print(f"{'case':22} {'transform (cold)':>22} {'specialisation*':>22} {'peak MiB':>9}")
    for case in cases:
        kind, size = case
        label = {
            "straight": f"straight N={size:,}",
            "loops": f"loops {size} deep x {LOOP_BODY}",
            "resnet": "resnet.loss (ResNet-20)",
        }[kind]
        per = size if kind == "straight" else LOOP_BODY if kind == "loops" else None
        transform = [r[f"transform{clock}_ms"] for r in results[case]]
        special = [r[f"specialise{clock}_ms"] for r in results[case]]
        peak = peaks.get(case)
        peak_text = f"{peak['peak_mib']:9.1f}" if peak else f"{'':>9}"
        print(f"{label:22} {_cell(transform, per)} {_cell(special, per)} {peak_text}")
    for stage in (f"transform{clock}_ms", f"specialise{clock}_ms"):
        points = [
            (n, _median([r[stage] for r in results[("straight", n)]]))
            for kind, n in cases
            if kind == "straight" and n >= 100 and results[("straight", n)]
        ]
        if len(points) >= 2:
            local = ", ".join(
                f"{a[0]:,}->{b[0]:,}: {exponent([a, b]):.2f}" for a, b in zip(points, points[1:])
            )
            print(
                f"fitted exponent of {stage[:-3]}, N >= 100: {exponent(points):.2f} "
                f"(between sizes {local})"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--case", nargs=2)
    parser.add_argument("--memory", action="store_true")
    options = parser.parse_args()
    measure_case(options.case[0], int(options.case[1]), options.memory)
