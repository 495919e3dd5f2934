"""Benchmark srcdiff's emitted gradients against hand-written numpy, autograd and PyTorch.

    python tools/bench.py [--quick] [--layers] [--threads N] [--cpu-time]
    python tools/bench.py --scaling [--sizes 10,100,1000] [--rounds 3]

The second form measures how srcdiff's own costs grow with the program (tools/scaling.py).

Every number is a median of repeated runs measured side by side in this one process (the
contenders of a case take turns, round after round), and
every ratio compares two such medians (these machines are noisy: compare ratios, not times).
autograd and PyTorch columns need `pip install -e '.[bench]'`; a missing one is skipped.
PyTorch runs in a process of its own (see torch_times), with as many threads as numpy's BLAS:
--threads N, else the idle cores (srcdiff.threads, as the trainer chooses them).
"""

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

import handwritten  # noqa: E402
import scaling  # noqa: E402
import srcdiff as nf  # noqa: E402
from numpy.lib.stride_tricks import sliding_window_view  # noqa: E402
from srcdiff import nn, resnet, threads  # noqa: E402
from srcdiff.train import flatten  # noqa: E402


CLOCK = time.perf_counter  # (main's --cpu-time: time.process_time)


def side_by_side(contenders, rounds, sample_seconds=0.005, clock=None):
    """Median milliseconds per call of each contender. Each round times every contender in
    turn, so a slow spell of this noisy machine falls on all of them alike; a sample is as
    many calls as take about `sample_seconds`, so the timer's resolution does not matter.
    (clock=time.process_time counts only this process's CPU time: with one BLAS thread, the
    work itself, whatever else the machine is doing.)"""
    clock = clock or CLOCK
    calls = {}
    for name, fn in contenders.items():
        fn()
        start = clock()
        fn()
        calls[name] = max(1, int(sample_seconds / max(clock() - start, 1e-9)))
    samples = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, fn in contenders.items():
            start = clock()
            for _ in range(calls[name]):
                fn()
            samples[name].append((clock() - start) / calls[name])
    return {name: 1e3 * float(np.median(times)) for name, times in samples.items()}


def peak_mb(fn):
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


# --- the functions ----------------------------------------------------------------------------


def rnn(w, b, h, xs):
    for t in range(xs.shape[0]):
        h = np.tanh(w @ h + xs[t] + b)
    return np.sum(h**2)


def polynomial(x, coefficients):
    total = 0.0
    for c in coefficients:
        total = total * x + c
    return total


def mlp(w1, b1, w2, b2, x, y):
    h = np.tanh(x @ w1 + b1)
    return np.mean((h @ w2 + b2 - y) ** 2)


# the ResNet's blocks computed again in the backward sweep instead of kept (nf.checkpoint)
RECOMPUTED_BLOCK = nf.checkpoint(resnet.basic_block)


def close(a, b):
    fa, fb = flatten(a), flatten(b)
    return fa.keys() == fb.keys() and all(
        np.allclose(fa[k], fb[k], rtol=2e-3, atol=1e-5) for k in fa
    )


def optional(name):
    try:
        return __import__(name)
    except ImportError:
        return None


def installed(name):
    return importlib.util.find_spec(name) is not None


def cases(rng, quick):
    w = rng.normal(size=(8, 8)) * 0.3
    rnn_args = (w, rng.normal(size=8), rng.normal(size=8), rng.normal(size=(60, 8)))
    coefficients = rng.normal(size=40).tolist()
    mlp_args = (
        rng.normal(size=(32, 64)) * 0.2,
        np.zeros(64),
        rng.normal(size=(64, 10)) * 0.2,
        np.zeros(10),
        rng.normal(size=(128, 32)),
        rng.normal(size=(128, 10)),
    )
    params = resnet.init(rng, depth=20, width=16)
    x = rng.normal(size=(32, 3, 32, 32)).astype(np.float32)
    y = rng.integers(0, 10, size=32)
    out = [
        (
            "(a) RNN, 60 steps, 8x8",
            rnn,
            rnn_args,
            (0, 1),
            lambda: handwritten.rnn_grad(*rnn_args),
            30,
        ),
        (
            "(a) polynomial loop, 40 terms",
            polynomial,
            (0.3, coefficients),
            0,
            lambda: handwritten.polynomial_grad(0.3, coefficients),
            30,
        ),
        (
            "(b) MLP 32-64-10, batch 128",
            mlp,
            mlp_args,
            (0, 1, 2, 3),
            lambda: handwritten.mlp_grad(*mlp_args),
            30,
        ),
    ]
    if not quick:
        out.append(
            (
                "(c) ResNet-20, batch 32, float32",
                resnet.loss,
                (params, x, y),
                0,
                lambda: handwritten.resnet_loss_and_grad(params, x, y)[1],
                7,
            )
        )
    return out


def autograd_fn(name, fn, wrt):
    ag = optional("autograd")
    if ag is None or name.startswith("(c)"):
        return None
    import autograd.numpy as anp

    namespace = dict(fn.__globals__, np=anp)
    rebound = type(fn)(fn.__code__, namespace)
    return ag.grad(rebound, wrt)


def torch_fn(name, args, thread_count):
    torch = optional("torch")
    if torch is None:
        return None
    torch.set_num_threads(thread_count)
    if name.startswith("(a) RNN"):
        w, b, h, xs = (torch.tensor(a, requires_grad=i < 2) for i, a in enumerate(args))

        def step():
            hh = h
            for t in range(xs.shape[0]):
                hh = torch.tanh(w @ hh + xs[t] + b)
            (hh**2).sum().backward()
            w.grad = b.grad = None

        return step
    if name.startswith("(b)"):
        ts = [torch.tensor(a, requires_grad=i < 4) for i, a in enumerate(args)]

        def step():
            w1, b1, w2, b2, x, y = ts
            ((torch.tanh(x @ w1 + b1) @ w2 + b2 - y) ** 2).mean().backward()
            for t in ts[:4]:
                t.grad = None

        return step
    if name.startswith("(c)"):
        return torch_resnet(torch, *args)
    return None


def torch_resnet(torch, params, x, y):
    F = torch.nn.functional
    tp = {k: torch.tensor(v, requires_grad=True) for k, v in flatten(params).items()}
    xt, yt = torch.tensor(x), torch.tensor(y)

    def bn(h, g, b):
        return F.batch_norm(h, None, None, tp[g], tp[b], training=True)

    def step():
        h = F.relu(bn(F.conv2d(xt, tp["stem.w"], padding=1), "stem.gamma", "stem.beta"))
        for i in range(len(params["blocks"])):
            p = f"blocks.{i}."
            stride = 1 if h.shape[1] == tp[p + "w1"].shape[0] else 2
            a = F.relu(bn(F.conv2d(h, tp[p + "w1"], stride=stride, padding=1), p + "g1", p + "b1"))
            a = bn(F.conv2d(a, tp[p + "w2"], padding=1), p + "g2", p + "b2")
            shortcut = h
            if stride == 2:
                shortcut = h[:, :, ::2, ::2]
                shortcut = torch.cat([shortcut, torch.zeros_like(shortcut)], dim=1)
            h = F.relu(a + shortcut)
        logits = h.mean(dim=(2, 3)) @ tp["head.w"] + tp["head.b"]
        F.cross_entropy(logits, yt).backward()
        for t in tp.values():
            t.grad = None

    return step


# --- one layer at a time ----------------------------------------------------------------------

RESNET20_LAYERS = [
    (16, 16, 32, 1),
    (16, 32, 32, 2),
    (32, 32, 16, 1),
    (32, 64, 16, 2),
    (64, 64, 8, 1),
]  # (in channels, out channels, input size, stride)


def conv2d_derived(x, w, stride, padding):
    """nn.conv2d's lines, with no template: srcdiff derives its adjoint."""
    padded = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    k = w.shape[2]
    windows = sliding_window_view(padded, (k, k), axis=(2, 3))[:, :, ::stride, ::stride]
    n, c, height, width = windows.shape[:4]
    columns = windows.transpose(0, 1, 4, 5, 2, 3).reshape(n, -1, height * width)
    return (w.reshape(w.shape[0], -1) @ columns).reshape(n, w.shape[0], height, width)


def conv_loss(x, w, g, stride):
    return np.sum(nn.conv2d(x, w, stride, 1) * g)


def conv_loss_derived(x, w, g, stride):
    return np.sum(conv2d_derived(x, w, stride, 1) * g)


def layer_table(rounds=15):
    """Each kind of ResNet-20 convolution (batch 32, float32): forward and backward with nn's
    template against the adjoint srcdiff derives without it."""
    rng = np.random.default_rng(0)
    print(
        f"\nconvolution forward + backward, batch 32, float32, median ms:\n{'layer':26} "
        f"{'template':>9} {'derived':>9} {'derived/template':>17}"
    )
    for c, o, size, stride in RESNET20_LAYERS:
        x = rng.normal(size=(32, c, size, size)).astype(np.float32)
        w = (rng.normal(size=(o, c, 3, 3)) * 0.1).astype(np.float32)
        g = rng.normal(size=(32, o, size // stride, size // stride)).astype(np.float32)
        template = nf.grad(conv_loss, wrt=(0, 1))
        derived = nf.grad(conv_loss_derived, wrt=(0, 1))
        if not all(
            np.allclose(a, b, rtol=1e-3, atol=1e-5 * np.abs(b).max())
            for a, b in zip(template(x, w, g, stride), derived(x, w, g, stride))
        ):  # (float32 sums)
            raise SystemExit(f"conv {c}->{o}: the template and the derived adjoint disagree")
        times = side_by_side(
            {
                "template": lambda: template(x, w, g, stride),
                "derived": lambda: derived(x, w, g, stride),
            },
            rounds,
        )
        name = f"{c}->{o} at {size}x{size}" + (f" stride {stride}" if stride > 1 else "")
        print(
            f"{name:26} {times['template']:9.2f} {times['derived']:9.2f} "
            f"{times['derived'] / times['template']:17.2f}"
        )


# --- transform and cache timings --------------------------------------------------------------

CACHE_SCRIPT = """
import json, sys, time
t = time.perf_counter()
import srcdiff as nf
from srcdiff import resnet, cache
nf.grad(resnet.loss)
print(json.dumps({"ms": 1e3 * (time.perf_counter() - t), "transforms": cache.stats["transforms"]}))
"""


def transform_timings():
    from srcdiff import cache

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["SRCDIFF_CACHE_DIR"] = tmp
        cache.clear()
        start = time.perf_counter()
        nf.grad(resnet.loss)
        cold = 1e3 * (time.perf_counter() - start)
        hit = side_by_side({"hit": lambda: nf.grad(resnet.loss)}, 20)["hit"]
    with tempfile.TemporaryDirectory() as tmp:  # new processes: an empty cache, then a warm one
        env = dict(os.environ, SRCDIFF_CACHE_DIR=tmp)
        first = json.loads(
            subprocess.run(
                [sys.executable, "-c", CACHE_SCRIPT], env=env, capture_output=True, text=True
            ).stdout
        )
        again = json.loads(
            subprocess.run(
                [sys.executable, "-c", CACHE_SCRIPT], env=env, capture_output=True, text=True
            ).stdout
        )
    return cold, hit, first, again


def torch_times(quick, thread_count):
    """PyTorch's medians, measured in a process of their own: a process that has imported
    torch runs numpy about a third slower (two thread pools on two cores), which would tilt
    every other column."""
    if not installed("torch"):
        return {}
    command = (
        [sys.executable, __file__, "--torch-only", "--threads", str(thread_count)]
        + (["--quick"] if quick else [])
        + (["--cpu-time"] if CLOCK is time.process_time else [])
    )
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def torch_only(quick, thread_count):
    times = {}
    for name, fn, fargs, wrt, by_hand, repeat in cases(np.random.default_rng(0), quick):
        step = torch_fn(name, fargs, thread_count)
        if step is not None:
            times[name] = side_by_side({"torch": step}, repeat)["torch"]
    print(json.dumps(times))


def _parser():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="skip the ResNet")
    parser.add_argument(
        "--layers",
        action="store_true",
        help="also time each kind of ResNet-20 layer, kernel by kernel",
    )
    parser.add_argument(
        "--threads",
        type=int,
        help="BLAS (and PyTorch) threads; default: the idle cores, as the trainer chooses them",
    )
    parser.add_argument(
        "--cpu-time",
        action="store_true",
        help="time each process's own CPU "
        "time, not the wall clock: steadier on a machine other work keeps busy "
        "(use it with --threads 1: BLAS threads that spin would count too)",
    )
    parser.add_argument("--torch-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--scaling",
        action="store_true",
        help="time transform and specialisation against program size",
    )
    parser.add_argument(
        "--sizes",
        default=",".join(map(str, scaling.SIZES)),
        help="straight-line sizes for --scaling (default: %(default)s)",
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds for --scaling")
    return parser


def print_resnet_costs(times, ours, by_hand, fargs, derivative):
    """The ResNet row's second line: forward time, peak memory, and nf.checkpoint's cost."""
    t_ours, t_hand, t_fwd = times["srcdiff"], times["hand"], times["forward"]
    mem_ours, mem_hand = peak_mb(ours), peak_mb(by_hand)
    mem_recomputed = peak_mb(lambda: derivative(*fargs, RECOMPUTED_BLOCK))
    print(
        f"{'':34} forward alone {t_fwd:.1f} ms; gradient/forward "
        f"{t_ours / t_fwd:.2f}x (by hand {t_hand / t_fwd:.2f}x); peak memory "
        f"{mem_ours:.0f} MiB vs {mem_hand:.0f} MiB by hand ({mem_ours / mem_hand:.2f}x)"
        f"\n{'':34} each block under nf.checkpoint: peak memory {mem_recomputed:.0f} "
        f"MiB ({mem_recomputed / mem_ours:.2f}x), time "
        f"{times['recomputed'] / t_ours:.2f}x"
    )


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    if args.scaling:
        return scaling.main(tuple(int(n) for n in args.sizes.split(",")), args.rounds)
    thread_count, warnings = threads.choose(args.threads)
    global CLOCK
    CLOCK = time.process_time if args.cpu_time else time.perf_counter
    if args.torch_only:
        return torch_only(args.quick, thread_count)
    note = threads.limit(thread_count, restart=argv is None)  # (sets numpy's, see there)
    print("; ".join([note] + warnings))
    missing = [n for n in ("autograd", "torch") if not installed(n)]
    if missing:
        print(
            f"(skipping columns for missing packages: {', '.join(missing)}; "
            "pip install -e '.[bench]')"
        )
    torch_ms = torch_times(args.quick, thread_count)
    header = (
        f"{'case':34} {'srcdiff':>9} {'by hand':>9} {'autograd':>9} {'torch':>9}"
        f" {'srcdiff/hand':>13} {'autograd/srcdiff':>17} {'srcdiff/torch':>14}"
    )
    print("median milliseconds per gradient (forward + backward)\n" + header)
    for name, fn, fargs, wrt, by_hand, repeat in cases(np.random.default_rng(0), args.quick):
        derivative = nf.grad(fn, wrt=wrt)
        ours = derivative(*fargs)
        if not close(ours, by_hand()):
            raise SystemExit(f"{name}: srcdiff and the hand-written gradient disagree")
        contenders = {"srcdiff": lambda: derivative(*fargs), "hand": by_hand}
        ag = autograd_fn(name, fn, wrt)
        if ag:
            contenders["autograd"] = lambda: ag(*fargs)
        if name.startswith("(c)"):
            contenders["forward"] = lambda: resnet.loss(*fargs)
            contenders["recomputed"] = lambda: derivative(*fargs, RECOMPUTED_BLOCK)
        times = side_by_side(contenders, repeat)
        t_ours, t_hand = times["srcdiff"], times["hand"]
        t_ag, t_torch = times.get("autograd", float("nan")), torch_ms.get(name, float("nan"))
        print(
            f"{name:34} {t_ours:9.3f} {t_hand:9.3f} {t_ag:9.3f} {t_torch:9.3f}"
            f" {t_ours / t_hand:13.2f} {t_ag / t_ours:17.2f} {t_ours / t_torch:14.2f}"
        )
        if name.startswith("(c)"):
            print_resnet_costs(times, lambda: derivative(*fargs), by_hand, fargs, derivative)
    if args.layers:
        layer_table()
    cold, hit, first, again = transform_timings()
    print(
        f"\ntransform of resnet.loss: cold {cold:.0f} ms, in-process cache hit {hit:.3f} ms;"
        f"\na new process (import + nf.grad): {first['ms']:.0f} ms running "
        f"{first['transforms']} transforms on an empty disk cache, {again['ms']:.0f} ms with "
        f"{again['transforms']} once the disk cache is warm"
    )


if __name__ == "__main__":
    main()
