"""Differentiate random small numpy programs; compare with finite differences (and autograd).

    python tools/fuzz.py [--examples 500 | --minutes 30] [--seed 0] [--oracle autograd]
                         [--open-bugs]

A program takes x (3,), y (2, 3) and params, a list of (W, b) layers of different widths. It
has a few assignments of random expression trees over the primitive table (broadcasting,
reductions with axis=/keepdims=, comparisons inside np.where), a pass through the layers
(`W, b = params[i]` in a loop, or read one by one), an `if` on a data-dependent condition, a
`for` loop, and sometimes calls to helper functions (nested, with a keyword argument, with a
loop, or returning a tuple), negative indexes and slices of the list of layers, a `while`
loop that overwrites an argument, an early `return` (sometimes followed by an `elif` that
returns, or by an `else` holding a loop that returns), writes into a preallocated array and a
`break` (sometimes with an `elif` that continues or breaks); it returns a scalar.

Checked: the gradient w.r.t. x, y and params against central finite differences, forward mode
against it, the float32 variant, and the Hessian-vector product (forward over reverse, and
the vjp of the gradient, reverse over reverse) against differences of the gradient. With `--oracle autograd` the same source also runs under autograd (np bound to
autograd.numpy): srcdiff and autograd must agree to rounding, and where they do not, finite
differences decide (a program autograd cannot run, say one writing into an array, is checked
against finite differences alone). Constructs of bugs still open (OPEN_BUGS) are generated
only with --open-bugs. tests/test_fuzz.py runs a bounded number of programs under hypothesis;
this runs many more and prints every program that fails.
"""

import argparse
import importlib.util
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzz_programs import OPEN_BUGS, Program  # noqa: E402


# np for the autograd twin of a program: autograd.numpy, and what it lacks written in what it has
AUTOGRAD_NUMPY = """import types
import autograd.numpy as anp


class Numpy:
    def __getattr__(self, name):
        return getattr(anp, name)

    asarray = copy = staticmethod(lambda a, dtype=None: a * 1.0)
    broadcast_to = staticmethod(lambda a, shape: a + anp.zeros(shape))

    @staticmethod
    def flip(a, axis):
        return a[(slice(None),) * (axis % anp.ndim(a)) + (slice(None, None, -1),)]

    @staticmethod
    def pad(a, width):  # constant padding of a vector
        return anp.concatenate([anp.zeros(width), a, anp.zeros(width)])

    lib = types.SimpleNamespace(stride_tricks=types.SimpleNamespace(
        sliding_window_view=lambda a, n: anp.stack([a[i:i + n] for i in range(len(a) - n + 1)])))


np = Numpy()
"""


def load(source, directory, autograd=False):
    """The program, from a module file (srcdiff reads its source); with autograd=True the
    same source with np bound to autograd.numpy (AUTOGRAD_NUMPY)."""
    if autograd:
        source = source.replace("import numpy as np\n", AUTOGRAD_NUMPY, 1)
    path = Path(directory) / f"fuzz_{'ag_' if autograd else ''}{abs(hash(source))}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.program


def inputs(seed, widths):
    data = np.random.default_rng(seed)
    params = [
        (data.normal(size=(m, n)) * 0.7, data.normal(size=n) * 0.5)
        for m, n in zip(widths, widths[1:])
    ]
    return data, (data.normal(size=3), data.normal(size=(2, 3)), params)


def leaves(tree):
    if isinstance(tree, (list, tuple)):
        return [leaf for item in tree for leaf in leaves(item)]
    return [tree]


def rebuild(tree, values):
    if isinstance(tree, (list, tuple)):
        return type(tree)(rebuild(item, values) for item in tree)
    return next(values)


def numerical_gradients(f, args, eps=1e-6):
    """Central differences of f w.r.t. every leaf of args, in float64, as a flat list."""
    flat, out = leaves(list(args)), []
    for k, leaf in enumerate(flat):
        grad = np.zeros_like(leaf)
        for index in np.ndindex(leaf.shape):
            for sign in (1.0, -1.0):
                moved = [x.copy() for x in flat]
                moved[k][index] += sign * eps
                grad[index] += sign * float(f(*rebuild(list(args), iter(moved)))) / (2 * eps)
        out.append(grad)
    return out


def differs(a, b, rtol, atol):
    return any(not np.allclose(x, y, rtol=rtol, atol=atol) for x, y in zip(a, b))


def describe(what, source, got, expected, third=None):
    text = f"{what}:\n{source}\ngot      {got}\nexpected {expected}"
    return text + (f"\nautograd {third}" if third is not None else "")


def check(seed, directory, oracle=None, open_bugs=False, stats=None, second_order=None):
    """None when the program's derivatives check out, else a description of the failure.
    Second order is checked when `second_order`, by default for one seed in four (it costs
    more than the rest); `stats` (a dict) counts the programs autograd could and could not
    run, and those where it was wrong."""
    import srcdiff as nf

    program = Program(random.Random(seed), open_bugs)
    f = load(program.source, directory)
    data, args = inputs(seed, program.widths)
    got = leaves(list(nf.grad(f, wrt=(0, 1, 2))(*args)))
    expected = numerical_gradients(f, args)
    # central differences of f lose about 1e-16 |f| / 1e-6 to rounding: f reaches 1e10
    atol = 1e-6 + 1e-9 * abs(float(f(*args)))
    if differs(got, expected, 1e-4, atol):
        # where f turns within a step of 1e-6 (a power of a cosine of a square, say) the
        # differences miss it: each element must agree at that step or at a finer one
        finer = numerical_gradients(f, args, eps=1e-8)
        if any(
            not np.all(np.isclose(g, e, 1e-4, atol) | np.isclose(g, e2, 1e-4, 100 * atol))
            for g, e, e2 in zip(got, expected, finer)
        ):
            return describe("reverse mode", program.source, got, expected)
    # in float32 too: under config(specialize="check") the float32 variant must agree with
    # the generic code element for element
    nf.grad(f, wrt=(0, 1, 2))(
        *rebuild(list(args), iter(x.astype(np.float32) for x in leaves(list(args))))
    )
    tangents = rebuild(list(args), iter(data.normal(size=x.shape) for x in leaves(list(args))))
    _, tangent = nf.jvp(f, wrt=(0, 1, 2))(*args, tuple(tangents))
    along = sum(float(np.sum(g * v)) for g, v in zip(got, leaves(tangents)))
    if not np.isclose(tangent, along, rtol=1e-6, atol=1e-9):
        return describe("forward mode", program.source, tangent, along)
    ours, references, wrt = [got], [expected], seed // 4 % 2  # second order w.r.t. x or y
    if seed % 4 == 0 if second_order is None else second_order:
        failure, hv, hv_expected = check_second_order(f, args, wrt, tangents[wrt], program)
        if failure:
            return failure
        ours.append([hv])
        references.append([hv_expected])
    if oracle == "autograd":
        return against_autograd(
            program,
            directory,
            args,
            (wrt, tangents[wrt]),
            ours,
            references,
            atol,
            {} if stats is None else stats,
        )
    return None


def check_second_order(f, args, wrt, v, program):
    """(a description of the failure or None, H v, its estimate by differences)."""
    import srcdiff as nf

    hv = nf.hvp(f, wrt=wrt)(*args, v)
    estimates = gradient_along(nf.grad(f, wrt=wrt), args, wrt, v)
    hv_expected = min(estimates, key=lambda e: np.max(np.abs(e - hv)))
    if differs([hv], [hv_expected], 1e-3, 1e-5):
        what = f"Hessian-vector product w.r.t. {'xy'[wrt]}"
        return describe(what, program.source, hv, estimates), hv, hv_expected
    # reverse over reverse: H is symmetric, so the vjp of the gradient is H v too
    uh = nf.vjp(nf.grad(f, wrt=wrt), wrt=wrt)(*args)[1](v)
    if differs([uh], [hv_expected], 1e-3, 1e-5):
        what = f"vjp of the gradient w.r.t. {'xy'[wrt]}"
        return describe(what, program.source, uh, estimates), hv, hv_expected
    return None, hv, hv_expected


def gradient_along(gradient, args, wrt, v):
    """Two estimates of H v by central differences of the gradient w.r.t. args[wrt] along v:
    steps 1e-4 and 5e-5 combined (Richardson, error O(step ** 4): second derivatives of these
    programs reach 1e7), and a plain step of 1e-6 (for where a kink of abs or max is near)."""

    def central(step):
        plus, minus = list(args), list(args)
        plus[wrt], minus[wrt] = args[wrt] + step * v, args[wrt] - step * v
        return (gradient(*plus) - gradient(*minus)) / (2 * step)

    return [(4 * central(5e-5) - central(1e-4)) / 3, central(1e-6)]


def against_autograd(program, directory, args, direction, ours, references, atol, stats):
    """srcdiff and autograd must agree to rounding; where they do not, finite differences
    (`references`) decide: srcdiff fails if it is the further of the two from them.
    `direction` is the (argument, vector) of the Hessian-vector product, if `ours` holds one."""
    import autograd

    f = load(program.source, directory, autograd=True)
    (wrt, v) = direction
    try:
        theirs = [leaves(list(autograd.grad(f, (0, 1, 2))(*args)))]
        if len(ours) > 1:
            theirs.append([autograd.make_vjp(autograd.grad(f, wrt), wrt)(*args)[0](v)])
    except Exception:  # noqa: BLE001  (autograd cannot run every program: writes, say)
        stats["autograd could not run"] = stats.get("autograd could not run", 0) + 1
        return None
    stats["autograd ran"] = stats.get("autograd ran", 0) + 1
    for what, mine, their, reference in zip(
        ("reverse mode", "Hessian-vector product"), ours, theirs, references
    ):
        if not differs(mine, their, 1e-6, atol * 1e-3):
            continue
        if distance(their, reference) > distance(mine, reference):  # autograd is further off
            stats["autograd wrong"] = stats.get("autograd wrong", 0) + 1
            continue
        return describe(f"{what} differs from autograd", program.source, mine, reference, their)
    return None


def distance(a, b):
    """How far the arrays of a are from those of b, relative to b's size."""

    def largest(x):
        return float(np.max(np.abs(x), initial=0.0))

    return max(largest(x - y) / (1.0 + largest(y)) for x, y in zip(a, b))


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--examples", type=int, default=500)
    parser.add_argument("--minutes", type=float, help="run for this long instead")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--oracle", choices=["autograd"], help="a second oracle")
    parser.add_argument(
        "--open-bugs",
        action="store_true",
        help="also generate: " + ("; ".join(OPEN_BUGS) or "(none open now)"),
    )
    args = parser.parse_args(argv)
    import srcdiff as nf

    nf.config(specialize="check")  # compare each shape-specialised variant with generic code
    failures, stats, seed = 0, {}, args.seed
    deadline = time.monotonic() + 60 * args.minutes if args.minutes else None
    with tempfile.TemporaryDirectory() as directory:
        sys.path.insert(0, directory)
        while (time.monotonic() < deadline) if deadline else seed < args.seed + args.examples:
            try:
                problem = check(seed, directory, args.oracle, args.open_bugs, stats, True)
            except Exception as exc:  # noqa: BLE001  (a crash is a failure to report)
                program = Program(random.Random(seed), args.open_bugs)
                problem = f"{type(exc).__name__}: {exc}\n{program.source}"
            if problem:
                failures += 1
                print(f"--- seed {seed}: {problem}\n", flush=True)
            seed += 1
    counts = "".join(f", {name} {n}" for name, n in sorted(stats.items()))
    print(f"{seed - args.seed - failures} passed, {failures} failed{counts}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
