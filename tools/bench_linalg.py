"""How srcdiff's Cholesky and QR adjoints should solve with a triangle, numpy having no
triangular solve: np.linalg.solve (LU of the triangle) against a back-substitution written in
numpy (a Python loop over rows), and scipy.linalg.solve_triangular where scipy is installed.
Prints medians of rounds taken in turn, and ratios to np.linalg.solve.

    python tools/bench_linalg.py
"""

import time

import numpy as np


def back_substitution(lower, b):
    """lower^-1 b by forward substitution, one row of the triangle at a time."""
    x = np.zeros_like(b)
    for i in range(lower.shape[0]):
        x[i] = (b[i] - lower[i, :i] @ x[:i]) / lower[i, i]
    return x


def contenders():
    found = {"np.linalg.solve": np.linalg.solve, "back-substitution": back_substitution}
    try:
        from scipy.linalg import solve_triangular

        found["scipy solve_triangular"] = lambda a, b: solve_triangular(a, b, lower=True)
    except ImportError:
        pass
    return found


def main(rounds=7):
    rng = np.random.default_rng(0)
    print(f"{'n':>5} {'contender':>24} {'median ms':>10} {'/ np.linalg.solve':>18}")
    for n in (10, 50, 200, 800):
        m = rng.normal(size=(n, n))
        lower = np.linalg.cholesky(m @ m.T + n * np.eye(n))
        b = rng.normal(size=(n, n))
        times = {name: [] for name in contenders()}
        for _ in range(rounds):
            for name, solve in contenders().items():
                start = time.perf_counter()
                solve(lower, b)
                times[name].append(time.perf_counter() - start)
        base = np.median(times["np.linalg.solve"])
        for name, spent in times.items():
            print(
                f"{n:>5} {name:>24} {1e3 * np.median(spent):>10.3f} "
                f"{np.median(spent) / base:>18.2f}"
            )


if __name__ == "__main__":
    main()
