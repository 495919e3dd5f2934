"""Benchmark srcdiff's emitted gradients against hand-written numpy, autograd and PyTorch.

    python tools/bench.py [--quick]
    python tools/bench.py --scaling [--sizes 10,100,1000] [--rounds 3]

The second form measures how srcdiff's own costs grow with the program (tools/scaling.py).

Every number is a median of repeated runs measured side by side in this one process (the
contenders of a case take turns, round after round), and
every ratio compares two such medians (these machines are noisy: compare ratios, not times).
autograd and PyTorch columns need `pip install -e '.[bench]'`; a missing one is skipped.
PyTorch runs in a process of its own (see torch_times).
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
from srcdiff import resnet  # noqa: E402
from srcdiff.train import flatten  # noqa: E402


def side_by_side(contenders, rounds, sample_seconds=0.005):
    """Median milliseconds per call of each contender. Each round times every contender in
    turn, so a slow spell of this noisy machine falls on all of them alike; a sample is as
    many calls as take about `sample_seconds`, so the timer's resolution does not matter."""
    calls = {}
    for name, fn in contenders.items():
        fn()
        start = time.perf_counter()
        fn()
        calls[name] = max(1, int(sample_seconds / max(time.perf_counter() - start, 1e-9)))
    samples = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, fn in contenders.items():
            start = time.perf_counter()
            for _ in range(calls[name]):
                fn()
            samples[name].append((time.perf_counter() - start) / calls[name])
    return {name: 1e3 * float(np.median(times)) for name, times in samples.items()}


def peak_mb(fn):
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2 ** 20


# --- the functions ----------------------------------------------------------------------------

def rnn(w, b, h, xs):
    for t in range(xs.shape[0]):
        h = np.tanh(w @ h + xs[t] + b)
    return np.sum(h ** 2)


def polynomial(x, coefficients):
    total = 0.0
    for c in coefficients:
        total = total * x + c
    return total


def mlp(w1, b1, w2, b2, x, y):
    h = np.tanh(x @ w1 + b1)
    return np.mean((h @ w2 + b2 - y) ** 2)


def close(a, b):
    fa, fb = flatten(a), flatten(b)
    return fa.keys() == fb.keys() and all(
        np.allclose(fa[k], fb[k], rtol=2e-3, atol=1e-5) for k in fa)


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
    mlp_args = (rng.normal(size=(32, 64)) * 0.2, np.zeros(64), rng.normal(size=(64, 10)) * 0.2,
                np.zeros(10), rng.normal(size=(128, 32)), rng.normal(size=(128, 10)))
    params = resnet.init(rng, depth=20, width=16)
    x = rng.normal(size=(32, 3, 32, 32)).astype(np.float32)
    y = rng.integers(0, 10, size=32)
    out = [
        ("(a) RNN, 60 steps, 8x8", rnn, rnn_args, (0, 1),
         lambda: handwritten.rnn_grad(*rnn_args), 30),
        ("(a) polynomial loop, 40 terms", polynomial, (0.3, coefficients), 0,
         lambda: handwritten.polynomial_grad(0.3, coefficients), 30),
        ("(b) MLP 32-64-10, batch 128", mlp, mlp_args, (0, 1, 2, 3),
         lambda: handwritten.mlp_grad(*mlp_args), 30),
    ]
    if not quick:
        out.append(("(c) ResNet-20, batch 32, float32", resnet.loss, (params, x, y), 0,
                    lambda: handwritten.resnet_loss_and_grad(params, x, y)[1], 7))
    return out


def autograd_fn(name, fn, wrt):
    ag = optional("autograd")
    if ag is None or name.startswith("(c)"):
        return None
    import autograd.numpy as anp

    namespace = dict(fn.__globals__, np=anp)
    rebound = type(fn)(fn.__code__, namespace)
    return ag.grad(rebound, wrt)


def torch_fn(name, args):
    torch = optional("torch")
    if torch is None:
        return None
    torch.set_num_threads(os.cpu_count() or 1)
    if name.startswith("(a) RNN"):
        w, b, h, xs = (torch.tensor(a, requires_grad=i < 2) for i, a in enumerate(args))

        def step():
            hh = h
            for t in range(xs.shape[0]):
                hh = torch.tanh(w @ hh + xs[t] + b)
            (hh ** 2).sum().backward()
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
            a = F.relu(bn(F.conv2d(h, tp[p + "w1"], stride=stride, padding=1), p + "g1",
                          p + "b1"))
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
        first = json.loads(subprocess.run([sys.executable, "-c", CACHE_SCRIPT], env=env,
                                          capture_output=True, text=True).stdout)
        again = json.loads(subprocess.run([sys.executable, "-c", CACHE_SCRIPT], env=env,
                                          capture_output=True, text=True).stdout)
    return cold, hit, first, again


def torch_times(quick):
    """PyTorch's medians, measured in a process of their own: a process that has imported
    torch runs numpy about a third slower (two thread pools on two cores), which would tilt
    every other column."""
    if not installed("torch"):
        return {}
    command = [sys.executable, __file__, "--torch-only"] + (["--quick"] if quick else [])
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def torch_only(quick):
    times = {}
    for name, fn, fargs, wrt, by_hand, repeat in cases(np.random.default_rng(0), quick):
        step = torch_fn(name, fargs)
        if step is not None:
            times[name] = side_by_side({"torch": step}, repeat)["torch"]
    print(json.dumps(times))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="skip the ResNet")
    parser.add_argument("--torch-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--scaling", action="store_true",
                        help="time transform and specialisation against program size")
    parser.add_argument("--sizes", default=",".join(map(str, scaling.SIZES)),
                        help="straight-line sizes for --scaling (default: %(default)s)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds for --scaling")
    args = parser.parse_args(argv)
    if args.scaling:
        return scaling.main(tuple(int(n) for n in args.sizes.split(",")), args.rounds)
    if args.torch_only:
        return torch_only(args.quick)
    missing = [n for n in ("autograd", "torch") if not installed(n)]
    if missing:
        print(f"(skipping columns for missing packages: {', '.join(missing)}; "
              "pip install -e '.[bench]')")
    torch_ms = torch_times(args.quick)
    header = (f"{'case':34} {'srcdiff':>9} {'by hand':>9} {'autograd':>9} {'torch':>9}"
              f" {'srcdiff/hand':>13} {'autograd/srcdiff':>17} {'srcdiff/torch':>14}")
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
        times = side_by_side(contenders, repeat)
        t_ours, t_hand = times["srcdiff"], times["hand"]
        t_ag, t_torch = times.get("autograd", float("nan")), torch_ms.get(name, float("nan"))
        print(f"{name:34} {t_ours:9.3f} {t_hand:9.3f} {t_ag:9.3f} {t_torch:9.3f}"
              f" {t_ours / t_hand:13.2f} {t_ag / t_ours:17.2f} {t_ours / t_torch:14.2f}")
        if name.startswith("(c)"):
            t_fwd = times["forward"]
            mem_ours = peak_mb(lambda: derivative(*fargs))
            mem_hand = peak_mb(by_hand)
            print(f"{'':34} forward alone {t_fwd:.1f} ms; gradient/forward "
                  f"{t_ours / t_fwd:.2f}x (by hand {t_hand / t_fwd:.2f}x); peak memory "
                  f"{mem_ours:.0f} MiB vs {mem_hand:.0f} MiB by hand ({mem_ours / mem_hand:.2f}x)")
    cold, hit, first, again = transform_timings()
    print(f"\ntransform of resnet.loss: cold {cold:.0f} ms, in-process cache hit {hit:.3f} ms;"
          f"\na new process (import + nf.grad): {first['ms']:.0f} ms running "
          f"{first['transforms']} transforms on an empty disk cache, {again['ms']:.0f} ms with "
          f"{again['transforms']} once the disk cache is warm")


if __name__ == "__main__":
    main()
