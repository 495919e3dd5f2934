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
import textwrap
import time
from pathlib import Path

import numpy as np

# elementwise: "{0}" is the operand, which keeps its shape
UNARY = [
    "np.sin({0})",
    "np.cos({0})",
    "np.tanh({0})",
    "np.arctan({0})",
    "-({0})",
    "np.exp(np.tanh({0}))",
    "np.sqrt(1.0 + ({0}) ** 2)",
    "np.log1p(({0}) ** 2)",
    "np.square(np.tanh({0}))",
    "np.expm1(np.sin({0}))",
    "np.transpose(np.transpose({0}))",
    "np.abs({0}) * 0 + ({0})",
    "np.clip({0}, -0.7, 0.7)",
    "np.cosh(np.tanh({0}))",
    "np.sinh(np.tanh({0}))",
    "({0}) ** 2",
    "np.log(1.5 + np.sin({0}))",
    "np.log2(2.0 + np.cos({0}))",
    "np.log10(1.0 + ({0}) ** 2)",
    "np.reciprocal(2.0 + np.sin({0}))",
    "np.arcsin(0.9 * np.tanh({0}))",
    "np.arccos(0.5 * np.sin({0}))",
    "np.abs({0})",
    "np.sign({0}) * ({0}) ** 2",
    "np.logaddexp({0}, 0.0)",
    "np.minimum({0}, 0.3)",
    "np.copy({0}) * 0.5",
    "np.asarray({0}) + 1.0",
    "np.zeros_like({0}) + ({0}) * np.ones_like({0})",
    "(2.0 + np.cos({0})) ** ({0})",
    "abs({0})",
    "({0}) / (1.5 + np.cos({0}))",
    "np.tan(0.5 * np.tanh({0}))",
    "np.sqrt(np.square({0}) + 0.5)",
    "({0}).clip(-1.0, 0.8)",
    "({0}).astype(np.float64)",
    "({0}).copy()",
]
FUNCTIONS = [t for t in UNARY if not t.startswith("({0}).")]  # for Python floats too
# (template, operand shape or None for (3,) and (2, 3), result shape or None for the same)
SHAPED = [
    ("np.cumsum({0}, axis=-1)", None, None),
    ("np.flip({0}, axis=-1)", None, None),
    ("np.stack([{0}, np.sin({0})])[1]", None, None),
    ("({0}).T.T", None, None),
    ("np.expand_dims({0}, 0)[0]", None, None),
    ("np.squeeze(np.expand_dims({0}, -1), -1)", None, None),
    ("np.tensordot({0}, np.eye(3) * 0.3, axes=1)", None, None),
    ("({0}) @ (np.eye(3) * 0.5 + 0.1)", None, None),
    ("np.array([{0}, ({0}) * 2])[1]", None, None),
    ("np.pad({0}, 1)[1:-1]", (3,), (3,)),
    ("np.concatenate([{0}, 2 * {0}])[1:4]", (3,), (3,)),
    ("np.broadcast_to({0}, (2, 3))", (3,), (2, 3)),
    ("np.outer({0}, {0})[1]", (3,), (3,)),
    ("np.dot({0}, np.arange(9.0).reshape(3, 3) / 9)", (3,), (3,)),
    ("({0}).dot(np.eye(3) - 0.3)", (3,), (3,)),
    ("({0}).flatten()", (3,), (3,)),
    ("({0})[::-1]", (3,), (3,)),
    ("({0})[-1] * ({0})", (3,), (3,)),
    ("np.linalg.inv(np.eye(3) * 2.0 + 0.1 * np.outer({0}, {0}))[0]", (3,), (3,)),
    ("np.lib.stride_tricks.sliding_window_view(np.pad({0}, 1), 3).sum(axis=-1)", (3,), (3,)),
    ("np.reshape({0}, (3, 2)).T", (2, 3), (2, 3)),
    ("np.swapaxes({0}, 0, 1).T", (2, 3), (2, 3)),
    ("({0}).swapaxes(0, 1).transpose()", (2, 3), (2, 3)),
    ("({0}).ravel().reshape(2, 3)", (2, 3), (2, 3)),
    ("np.einsum('ij,jk->ik', {0}, np.eye(3) - 0.2)", (2, 3), (2, 3)),
    ("({0})[:, ::-1] * ({0})[-1]", (2, 3), (2, 3)),
]
BINARY = [
    "({0}) + ({1})",
    "({0}) - ({1})",
    "({0}) * ({1})",
    "({0}) / (1.0 + ({1}) ** 2)",
    "np.arctan(({0}) * ({1}))",
    "np.maximum({0}, {1})",
    "np.minimum({0}, {1})",
    "np.logaddexp({0}, {1})",
    "np.where(({0}) {cmp} ({1}), {0}, {1})",
    "np.where(({0}) {cmp} 0.1, ({0}) * ({1}), np.sin({1}))",
    "np.where((({0}) > 0) & (({1}) < 0.5), {1}, -({0}))",
    "sum([{0}, {1}, 0.5])",
]
COMPARE = [">", "<", ">=", "<=", "!="]
REDUCE_2D = [
    "np.sum({0}, axis=0)",
    "np.max({0}, axis=0)",
    "np.var({0}, axis=0)",
    "np.linalg.norm({0}, axis=0)",
    "np.einsum('ij->j', {0})",
    "np.mean({0}, axis=0)",
    "np.min({0}, axis=-2)",
    "np.std({0} + np.array([[0.0], [1.0]]), axis=0, ddof=1)",
    "np.prod(1.0 + 0.1 * {0}, axis=0)",
    "({0}).sum(axis=0)",
    "({0}).mean(0)",
    "({0}).max(axis=0)",
    "({0}).min(axis=0)",
    "(1.0 + 0.1 * ({0})).prod(axis=0)",
    "({0})[-1] * ({0})[0]",
    "({0}).var(axis=0)",
    "np.sum({0} * np.sum({0}, axis=-1, keepdims=True), axis=0)",
]
REDUCE_1D = [
    "np.mean({0}, keepdims=True)",
    "np.max({0}, keepdims=True)",
    "np.linalg.norm({0}, keepdims=True)",
    "np.prod(1.0 + 0.1 * ({0}), keepdims=True)",
]
# to a Python float (autograd cannot take float() of its values: rarely)
TO_FLOAT = ["max(np.sum({0}), 0.2)", "min(np.mean({0}), 0.5)", "float(np.sum({0}))"]
ACTIVATIONS = [
    "np.tanh({0})",
    "np.sin({0})",
    "np.maximum({0}, 0.1 * ({0}))",
    "np.logaddexp(0.0, {0})",
    "({0}) / (1.0 + np.abs({0}))",
]
SHAPES = {"x": (3,), "y": (2, 3)}
# constructs whose bugs are still open: generated only with --open-bugs
OPEN_BUGS = {}  # (none now: issue 13's were fixed, and their constructs are generated always)
# once open bugs (issue 13), fixed: generated always
FIXED_SHAPED = [
    ("np.transpose(np.transpose({0}, (-1, 0)), (-1, -2))", (2, 3), (2, 3)),
    ("np.split({0}, 3, axis=-1)[1] * np.ones(3)", None, None),
]
HELPERS = """

def helper(a, b):
    return np.tanh(a) * b + np.sin(b)


def nested(a, b):
    return helper(helper(a, b), a) * 0.5 + helper(b, 0.3)


def pair(a, b):
    return a * b, np.cos(a) - b


def scaled(a, scale=1.0, shift=0.0):
    return a * scale + shift


def looped(a):
    for i in range(2):
        a = np.tanh(a) * 0.9 + 0.1
    return a
"""


class Program:
    """A random program, as source text, with the shapes of its inputs and its layer widths."""

    def __init__(self, rng, open_bugs=False):
        self.rng, self.open_bugs = rng, open_bugs
        self.names = dict(SHAPES)
        self.widths = [3] + [rng.choice([2, 4, 5]) for _ in range(rng.randint(1, 2))] + [3]
        lines = []
        for k in range(rng.randint(1, 3)):
            expr, shape = self.expr(rng.randint(1, 3))
            lines.append(f"v{k} = {expr}")
            self.names[f"v{k}"] = shape
        lines += self.layers()
        cond, _ = self.expr(1)
        then, then_shape = self.expr(2)
        target = self.pick()
        if self.names[target] == then_shape or then_shape == (3,):
            lines += [
                f"if np.sum({cond}) > 0:",
                f"    {target} = {target} * 0.5 + {then}",
                "else:",
                f"    {target} = np.sin({target})",
            ]
        lines += self.calls()
        if rng.random() < 0.3:  # a while loop overwriting an argument
            lines += ["k = 0", "while k < 2:", "    x = np.sin(x) * 0.9 + 0.1", "    k = k + 1"]
        lines += self.early_returns()
        lines += self.accumulating_loop()
        final, shape = self.expr(2)
        reduce = "np.sum" if rng.random() < 0.7 else "np.mean"
        lines.append(f"return {reduce}({final}) + acc + np.sum(buf ** 2)")
        self.source = (
            "import numpy as np\n"
            + HELPERS
            + "\n\ndef program(x, y, params):\n"
            + textwrap.indent("\n".join(lines), "    ")
            + "\n"
        )

    def early_returns(self):
        """Maybe an early return, then maybe an elif or a loop returning too."""
        lines = []
        if self.rng.random() < 0.3:  # an early return, then maybe an elif or a loop returning
            lines += [
                f"if np.sum({self.expr(1)[0]}) > 4.0:",
                f"    return np.sum({self.expr(1)[0]}) * 0.5",
            ]
            form = self.rng.random()
            if form < 0.4:
                lines += [
                    f"elif np.sum({self.expr(1)[0]}) > 1.0:",
                    f"    return np.sum({self.expr(1)[0]}) * 0.3",
                ]
            elif form < 0.6:
                lines += [
                    "else:",
                    "    for j in range(2):",
                    f"        if np.sum({self.expr(1)[0]}) > 0.5 * j:",
                    f"            return np.sum({self.expr(1)[0]}) * 0.2",
                ]
        return lines

    def accumulating_loop(self):
        """A loop accumulating a scalar, maybe writing into an array and jumping."""
        lines = []
        body, _ = self.expr(1, only=("acc",))
        lines += [
            "acc = 0.0",
            "buf = np.zeros(3)",
            f"for i in range({self.rng.randint(1, 4)}):",
            f"    acc = acc * 0.5 + np.sum({self.expr(2)[0]}) * 0.1",
            f"    acc = np.tanh(acc) + np.sum({body}) * 0.01",
        ]
        if self.rng.random() < 0.5:  # writes into a preallocated array (which autograd cannot)
            lines.append(f"    buf[i % 3] = buf[i % 3] + np.sum({self.expr(1)[0]}) * 0.2")
        if self.rng.random() < 0.3:
            lines += ["    if acc > 0.8:", "        break"]
            if self.rng.random() < 0.5:  # an elif that jumps too, with something left to skip
                lines += [
                    f"    elif acc < {self.rng.choice(['-0.5', '0.2'])}:",
                    f"        {self.rng.choice(['continue', 'break'])}",
                    "    acc = acc * 0.9 + 0.01",
                ]
        return lines

    def pick(self, only=None):
        return self.rng.choice(sorted(only or self.names))

    def layers(self):
        """A pass of a (3,) or (2, 3) value through the layers; its result is h (same shape)."""
        rng, n = self.rng, len(self.widths) - 1
        start, shape = self.expr(1)
        if shape not in ((3,), (2, 3)):
            start, shape = f"({start}) * np.ones(3)", (3,)
        act = rng.choice(ACTIVATIONS)
        step = [f"    h = {act.format('h @ W + b')}"]
        kinds = ["range", "explicit", "while", "negative", "slice"]
        kind = rng.choice(kinds)
        lines = [f"h = {start}"]
        if kind == "range":
            lines += ["for i in range(len(params)):", "    W, b = params[i]"] + step
        elif kind == "while":
            lines += (
                ["i = 0", "while i < len(params):", "    W, b = params[i]"]
                + step
                + ["    i = i + 1"]
            )
        elif kind == "explicit":
            for i in range(n):
                lines += [
                    f"W, b = params[{i}]"
                    if rng.random() < 0.5
                    else f"W = params[{i}][0]\nb = params[{i}][1]"
                ]
                lines += [line[4:] for line in step]
        elif kind == "negative":  # issue 13 item 1
            lines += ["for i in range(len(params) - 1):", "    W, b = params[i]"] + step
            lines += ["W, b = params[-1]", step[0][4:]]
        else:  # a slice: issue 13 item 1
            lines += ["for layer in params[:-1]:", "    W, b = layer"] + step
            lines += [f"W, b = params[{rng.choice([-1, n - 1])}]", step[0][4:]]
        self.names["h"] = shape
        return lines

    def calls(self):
        """Calls to the helper functions: one, nested, one with a keyword argument, one with
        a loop, and one returning a tuple."""
        rng, lines = self.rng, []
        if rng.random() < 0.5:
            (a, sa), (b, sb) = self.expr(1), self.expr(1)
            call = rng.choice(
                ["helper({}, {})", "nested({}, {})", "scaled({}, shift={})", "looped({}) * ({})"]
            )
            lines.append(f"h0 = {call.format(a, b)}")
            self.names["h0"] = np.broadcast_shapes(sa, sb)
        if rng.random() < 0.3:
            (a, sa), (b, sb) = self.expr(1), self.expr(1)
            lines.append(f"p0, p1 = pair({a}, {b})")
            self.names["p0"] = self.names["p1"] = np.broadcast_shapes(sa, sb)
        whole, shape = self.expr(1)
        if rng.random() < 0.3 and shape in ((3,), (2, 3)):
            pieces = "s0, s1, s2" if shape == (3,) else "s0, s1"
            lines.append(f"{pieces} = np.split({whole}, {len(pieces.split())})")
            self.names["s0"] = self.names["s1"] = (1,) + shape[1:]
        return lines

    def expr(self, depth, only=None):
        """(source, shape) of a random expression of the given depth."""
        rng = self.rng
        if depth == 0:
            if rng.random() < 0.15:
                return repr(round(rng.uniform(-2, 2), 2)), ()
            name = self.pick(only) if only else self.pick()
            return name, self.names.get(name, ())
        choice = rng.random()
        if choice < 0.3:
            inner, shape = self.expr(depth - 1, only)
            return rng.choice(UNARY if shape else FUNCTIONS).format(inner), shape
        if choice < 0.45:
            inner, shape = self.expr(depth - 1, only)
            fits = [
                (t, out)
                for t, needs, out in SHAPED + FIXED_SHAPED
                if (needs == shape) or (needs is None and shape in ((3,), (2, 3)))
            ]
            if fits:
                template, out = rng.choice(fits)
                return template.format(inner), out or shape
            return f"np.sin({inner})", shape
        if choice < 0.85:
            (a, sa), (b, sb) = self.expr(depth - 1, only), self.expr(depth - 1, only)
            return (
                rng.choice(BINARY).format(a, b, cmp=rng.choice(COMPARE)),
                np.broadcast_shapes(sa, sb),
            )
        inner, shape = self.expr(depth - 1, only)
        if rng.random() < 0.1:
            return rng.choice(TO_FLOAT).format(inner), ()
        if len(shape) == 2:
            return rng.choice(REDUCE_2D).format(inner), (3,)
        if shape == (3,) and rng.random() < 0.3:  # (np.std of constant data: issue 13 item 3)
            return rng.choice(
                [
                    "np.std({0} + np.arange(3.0), keepdims=True)",
                    "np.var({0}, ddof=1, keepdims=True)",
                ]
            ).format(inner), (1,)
        return rng.choice(REDUCE_1D).format(inner), (1,) if shape else ()


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
