"""How many BLAS threads the trainer's matrix products use.

OpenBLAS (numpy's BLAS) starts one thread per core and spins them while it waits: on a machine
whose cores are busy with other work, or with several MPI ranks each starting its own set, the
threads fight over the cores. A ResNet-20 epoch on a loaded 2-core machine took 131 s with the
default threads and 13 s with one. So the trainer uses no more threads than there are idle cores
per process, and says when the machine is oversubscribed.

Environment variables (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS) are read once, when numpy loads
its BLAS, which `import srcdiff` has already done: from inside Python the count can be changed
only through threadpoolctl (in the [examples] and [distributed] extras).
"""
import os

THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def usable_cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS and Windows have no affinity masks
        return os.cpu_count() or 1


def busy_cores():
    """The one-minute load average: about how many cores other work keeps busy now."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return 0.0


def choose(requested, processes_here=1):
    """(threads, warnings): `requested` if given, else the idle cores' share of this process
    (at least 1, at most the cores divided among the `processes_here` on this machine)."""
    cores, load = usable_cores(), busy_cores()
    share = max(1, cores // processes_here)
    threads = requested or max(1, min(share, int((cores - load) / processes_here + 0.5)))
    warnings = []
    if threads * processes_here > cores:
        warnings.append(f"{processes_here} process(es) x {threads} BLAS threads on {cores} "
                        "cores: oversubscribed, expect it to be slow (--threads 1 avoids it)")
    elif cores - load < processes_here:  # not even a whole idle core for each process
        warnings.append(f"the machine is busy (load average {load:.1f} on {cores} cores): "
                        f"using {threads} BLAS thread(s); other work will slow training")
    return threads, warnings


def limit(threads):
    """Set numpy's BLAS to `threads` threads for the rest of the process. Returns a note on
    what was done, or raises RuntimeError when it cannot be done from here."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        fixed = {name: os.environ[name] for name in THREAD_VARIABLES if name in os.environ}
        if fixed:
            return "BLAS threads set by " + ", ".join(f"{k}={v}" for k, v in fixed.items())
        if threads >= usable_cores():
            return f"{threads} BLAS thread(s), as numpy starts"
        raise RuntimeError(
            f"cannot set {threads} BLAS thread(s): numpy has already loaded its BLAS, and only "
            "threadpoolctl can change it then. pip install threadpoolctl (it is in srcdiff's "
            f"[examples] and [distributed] extras), or start with OPENBLAS_NUM_THREADS={threads}"
            f" OMP_NUM_THREADS={threads} python -m srcdiff train ...") from None
    threadpool_limits(limits=threads, user_api="blas")
    return f"{threads} BLAS thread(s)"
