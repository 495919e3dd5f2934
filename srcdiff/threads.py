"""How many BLAS threads the trainer's matrix products use.

OpenBLAS (numpy's BLAS) starts one thread per core and spins them while it waits: on a machine
whose cores are busy with other work, or with several MPI ranks each starting its own set, the
threads fight over the cores. A ResNet-20 epoch on a loaded 2-core machine took 131 s with the
default threads and 13 s with one. So the trainer uses no more threads than there are idle cores
per process, and says when the machine is oversubscribed.

Environment variables (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS) are read once, when numpy loads
its BLAS, which `import srcdiff` has already done (the package imports numpy, and `python -m
srcdiff` imports the package before its command line runs): from inside Python the count can be
changed only through threadpoolctl (an optional dependency). Without it, a command-line run
starts itself again at once, with those variables set, before it has done any work.
"""

import os
import sys

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
        warnings.append(
            f"{processes_here} process(es) x {threads} BLAS threads on {cores} "
            "cores: oversubscribed, expect it to be slow (--threads 1 avoids it)"
        )
    elif cores - load < processes_here:  # not even a whole idle core for each process
        warnings.append(
            f"the machine is busy (load average {load:.1f} on {cores} cores): "
            f"using {threads} BLAS thread(s); other work will slow training"
        )
    return threads, warnings


def launcher_processes():
    """How many processes an MPI launcher (Open MPI's, MPICH's) started on this machine, read
    from what it sets in their environment before MPI starts; 1 when there is none."""
    for name in ("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"):
        if os.environ.get(name, "").isdigit():
            return max(1, int(os.environ[name]))
    return 1


def restart_command(threads):
    """(argv, environment) that run this command line again with `threads` BLAS threads."""
    environment = dict(os.environ, **{name: str(threads) for name in THREAD_VARIABLES})
    return [sys.executable, *sys.orig_argv[1:]], environment


def limit(threads, restart=False):
    """Set numpy's BLAS to `threads` threads for the rest of the process. Returns a note on
    what was done, or raises RuntimeError when it cannot be done from here. With `restart`
    (a command-line run that has done nothing yet), a process that can set them no other way
    is replaced by the same command with OPENBLAS_NUM_THREADS and the others set."""
    fixed = {name: os.environ[name] for name in THREAD_VARIABLES if name in os.environ}
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        if fixed:
            return "BLAS threads set by " + ", ".join(f"{k}={v}" for k, v in fixed.items())
        if threads >= usable_cores():
            return f"{threads} BLAS thread(s), as numpy starts"
        if restart:
            argv, environment = restart_command(threads)
            sys.stdout.flush()
            sys.stderr.flush()
            os.execve(argv[0], argv, environment)
        raise RuntimeError(
            f"cannot set {threads} BLAS thread(s): numpy has already loaded its BLAS, and only "
            "threadpoolctl can change it then. pip install threadpoolctl (it is in srcdiff's "
            f"[examples] and [distributed] extras), or start with OPENBLAS_NUM_THREADS={threads}"
            f" OMP_NUM_THREADS={threads} python -m srcdiff train ..."
        ) from None
    threadpool_limits(limits=threads, user_api="blas")
    return f"{threads} BLAS thread(s)"
