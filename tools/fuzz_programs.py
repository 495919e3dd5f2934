"""The random programs tools/fuzz.py differentiates: the vocabulary they are drawn from
(primitives, shapes, helper functions) and Program, which writes one as source text."""

import textwrap

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
