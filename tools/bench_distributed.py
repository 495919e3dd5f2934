"""Training throughput (images/s) of ResNet-20 at 1 and 2 MPI ranks, side by side.

    python tools/bench_distributed.py [--ranks 1,2] [--rounds 3] [--steps 6] [--batch 128]

Needs srcdiff[distributed]. Each round runs `mpiexec -n R` for every R in turn (rounds
interleaved, so a change in the machine's load hits every rank count alike); each run times
`--steps` SGD steps on one global batch of CIFAR-shaped random images after one untimed step,
with one BLAS thread per rank. Prints the median images/s per rank count and the speed-up.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def worker(steps, batch, depth):
    import numpy as np

    import srcdiff as nf
    from srcdiff import optim, resnet, threads
    from srcdiff.distributed import MPIWorld
    from srcdiff.train import Config, Run, train_step

    world = MPIWorld()
    threads.limit(1)
    rng = np.random.default_rng(0)
    params = resnet.init(rng, depth=depth)
    x = rng.normal(size=(batch, 3, 32, 32)).astype(np.float32)
    y = rng.integers(0, 10, size=batch)
    grad = nf.grad(resnet.train_loss, has_aux=True, preserve_result=True)
    run, config = Run(params, optim.momentum_init(params)), Config(weight_decay=1e-4)
    mine = world.shard(np.arange(batch))
    train_step(run, grad, (x[mine], y[mine]), 0.1, config, world)  # warm-up
    world.comm.Barrier()
    started = time.perf_counter()
    for _ in range(steps):
        train_step(run, grad, (x[mine], y[mine]), 0.1, config, world)
    seconds = world.comm.allreduce(time.perf_counter() - started, op=world.MPI.MAX)
    if world.is_root:
        print(json.dumps({"ranks": world.size, "images_per_s": steps * batch / seconds}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ranks", default="1,2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--depth", type=int, default=20)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.steps, args.batch, args.depth)
    mpiexec = Path(sys.executable).parent / "mpiexec"
    mpiexec = str(mpiexec) if mpiexec.exists() else shutil.which("mpiexec")
    if mpiexec is None:
        sys.exit("no mpiexec: pip install -e '.[distributed]'")
    counts = [int(r) for r in args.ranks.split(",")]
    rates = {r: [] for r in counts}
    paths = [str(ROOT), os.environ.get("PYTHONPATH")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))}
    for round_number in range(args.rounds):
        for ranks in counts:
            out = subprocess.run(
                [
                    mpiexec,
                    "-n",
                    str(ranks),
                    sys.executable,
                    __file__,
                    "--worker",
                    "--steps",
                    str(args.steps),
                    "--batch",
                    str(args.batch),
                    "--depth",
                    str(args.depth),
                ],
                capture_output=True,
                text=True,
                env=env,
                check=True,
            )
            rates[ranks].append(json.loads(out.stdout.strip().splitlines()[-1])["images_per_s"])
            print(
                f"round {round_number + 1}, {ranks} rank(s): {rates[ranks][-1]:.1f} images/s",
                flush=True,
            )
    median = {r: sorted(v)[len(v) // 2] for r, v in rates.items()}
    print(
        f"\nResNet-{args.depth}, global batch {args.batch}, one BLAS thread per rank, "
        f"median of {args.rounds} rounds (load average {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} cores):"
    )
    for ranks in counts:
        print(
            f"  {ranks} rank(s): {median[ranks]:7.1f} images/s   "
            f"{median[ranks] / median[counts[0]]:.2f}x  (range {min(rates[ranks]):.1f}-"
            f"{max(rates[ranks]):.1f})"
        )


if __name__ == "__main__":
    main()
