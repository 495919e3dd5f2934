"""Differentiate random small numpy programs and compare with finite differences.

    python tools/fuzz.py [--examples 500] [--seed 0]

A program has two inputs x (3,) and y (2, 3), a few assignments of random expression trees
over the primitive table (with broadcasting and reductions), an `if` on a data-dependent
condition, a `for` loop, and sometimes a call to a helper function, a `while` loop that
overwrites an argument, an early `return`, writes into a preallocated array and a `break`;
it returns a scalar. tests/test_fuzz.py runs a bounded number
of them under hypothesis; this runs many more and prints every program that fails.
"""
import argparse
import importlib.util
import random
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np

UNARY = ["np.sin({})", "np.cos({})", "np.tanh({})", "np.arctan({})", "-({})",
         "np.exp(np.tanh({}))", "np.sqrt(1.0 + ({}) ** 2)", "np.log1p(({}) ** 2)",
         "np.square(np.tanh({}))", "np.expm1(np.sin({}))", "np.transpose(np.transpose({}))",
         "np.abs({0}) * 0 + ({0})", "({}) @ (np.eye(3) * 0.5 + 0.1)", "np.clip({}, -0.7, 0.7)",
         "np.cosh(np.tanh({}))", "np.sinh(np.tanh({}))", "({}) ** 2"]
BINARY = ["({}) + ({})", "({}) - ({})", "({}) * ({})", "({}) / (1.0 + ({}) ** 2)",
          "np.where(({0}) > 0.2, {0}, {1})", "np.arctan(({}) * ({}))", "np.maximum({}, {})"]
REDUCE_2D = ["np.sum({}, axis=0)", "np.max({}, axis=0)", "np.var({}, axis=0)",
             "np.linalg.norm({}, axis=0)", "np.einsum('ij->j', {})", "np.mean({}, axis=0)"]
SHAPES = {"x": (3,), "y": (2, 3)}


class Program:
    """A random program, as source text, with the shapes of its inputs."""

    def __init__(self, rng):
        self.rng = rng
        self.names = dict(SHAPES)
        lines = []
        for k in range(rng.randint(1, 3)):
            expr, shape = self.expr(rng.randint(1, 3))
            lines.append(f"v{k} = {expr}")
            self.names[f"v{k}"] = shape
        cond, _ = self.expr(1)
        then, then_shape = self.expr(2)
        target = self.pick()
        if self.names[target] == then_shape or then_shape == (3,):
            lines += [f"if np.sum({cond}) > 0:", f"    {target} = {target} * 0.5 + {then}",
                      "else:", f"    {target} = np.sin({target})"]
        if rng.random() < 0.5:  # a call to a helper function in the same module
            (a, sa), (b, sb) = self.expr(1), self.expr(1)
            lines.append(f"h0 = helper({a}, {b})")
            self.names["h0"] = max(sa, sb, key=len)
        if rng.random() < 0.3:  # a while loop overwriting an argument
            lines += ["k = 0", "while k < 2:", "    x = np.sin(x) * 0.9 + 0.1", "    k = k + 1"]
        if rng.random() < 0.3:  # an early return
            lines += [f"if np.sum({self.expr(1)[0]}) > 4.0:",
                      f"    return np.sum({self.expr(1)[0]}) * 0.5"]
        body, _ = self.expr(1, only=("acc",))
        lines += ["acc = 0.0", "buf = np.zeros(3)", f"for i in range({rng.randint(1, 4)}):",
                  f"    acc = acc * 0.5 + np.sum({self.expr(2)[0]}) * 0.1",
                  f"    acc = np.tanh(acc) + np.sum({body}) * 0.01"]
        if rng.random() < 0.5:  # writes into a preallocated array
            lines.append(f"    buf[i % 3] = buf[i % 3] + np.sum({self.expr(1)[0]}) * 0.2")
        if rng.random() < 0.3:
            lines += ["    if acc > 0.8:", "        break"]
        final, shape = self.expr(2)
        reduce = "np.sum" if rng.random() < 0.7 else "np.mean"
        lines.append(f"return {reduce}({final}) + acc + np.sum(buf ** 2)")
        self.source = ("import numpy as np\n\n\ndef helper(a, b):\n"
                       "    return np.tanh(a) * b + np.sin(b)\n\n\ndef program(x, y):\n"
                       + textwrap.indent("\n".join(lines), "    ") + "\n")

    def pick(self, only=None):
        return self.rng.choice(sorted(only or self.names))

    def expr(self, depth, only=None):
        """(source, shape) of a random expression of the given depth."""
        rng = self.rng
        if depth == 0:
            if rng.random() < 0.15:
                return repr(round(rng.uniform(-2, 2), 2)), ()
            name = self.pick(only) if only else self.pick()
            return name, self.names.get(name, ())
        choice = rng.random()
        if choice < 0.4:
            inner, shape = self.expr(depth - 1, only)
            template = rng.choice(UNARY if shape and shape[-1] == 3 else
                                  [u for u in UNARY if "@" not in u])
            return template.format(inner, inner) if "{0}" in template else template.format(
                inner), shape
        if choice < 0.85:
            (a, sa), (b, sb) = self.expr(depth - 1, only), self.expr(depth - 1, only)
            shape = max(sa, sb, key=len)
            return rng.choice(BINARY).format(a, b), shape
        inner, shape = self.expr(depth - 1, only)
        if len(shape) == 2:
            return rng.choice(REDUCE_2D).format(inner), (3,)
        return f"np.mean({inner}, keepdims=True)", (1,) if shape else ()


def load(source, directory):
    path = Path(directory) / f"fuzz_{abs(hash(source))}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.program


def check(seed, directory):
    """None when the program's gradients check out, else a description of the failure."""
    import srcdiff as nf
    from srcdiff.check import numerical_grad

    program = Program(random.Random(seed))
    f = load(program.source, directory)
    data = np.random.default_rng(seed)
    x, y = data.normal(size=3), data.normal(size=(2, 3))
    gx, gy = nf.grad(f, wrt=(0, 1))(x, y)
    for got, i in ((gx, 0), (gy, 1)):
        expected = numerical_grad(f, (x, y), i)
        if not np.allclose(got, expected, rtol=1e-4, atol=1e-6):
            return f"reverse mode, argument {i}:\n{program.source}\ngot {got}\nexpected {expected}"
    # in float32 too: under config(specialize="check") the float32 variant must agree with
    # the generic code element for element
    nf.grad(f, wrt=(0, 1))(x.astype(np.float32), y.astype(np.float32))
    vx, vy = data.normal(size=3), data.normal(size=(2, 3))
    _, tangent = nf.jvp(f, wrt=(0, 1))(x, y, (vx, vy))
    if not np.isclose(tangent, np.sum(gx * vx) + np.sum(gy * vy), rtol=1e-6, atol=1e-9):
        return f"forward mode:\n{program.source}\ngot {tangent}"
    return None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    import srcdiff as nf
    nf.config(specialize="check")  # compare each shape-specialised variant with generic code
    failures = 0
    with tempfile.TemporaryDirectory() as directory:
        sys.path.insert(0, directory)
        for seed in range(args.seed, args.seed + args.examples):
            try:
                problem = check(seed, directory)
            except Exception as exc:  # noqa: BLE001  (a crash is a failure to report)
                problem = f"{type(exc).__name__}: {exc}"
            if problem:
                failures += 1
                print(f"--- seed {seed}: {problem}\n")
    print(f"{args.examples - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
