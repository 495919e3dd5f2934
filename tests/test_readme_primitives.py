"""The README's list of primitives is the registry's: every function, method, attribute,
builtin and operator it names has a record (with templates, or none for the constants), and
every record of a public numpy function, ndarray method or attribute, builtin or operator is
named there."""

import builtins
import re
from pathlib import Path

import gast
import numpy as np
import pytest

import srcdiff  # noqa: F401  (registers the built-in primitives)
from srcdiff.primitives import registry

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()
SECTION = re.search(r"### Primitives\n(.*?)\n#", README, re.S).group(1)
DIFFERENTIATED, CONSTANTS = SECTION.split("\nConstants")
OPERATORS = {
    "+": gast.Add,
    "-": gast.Sub,
    "*": gast.Mult,
    "/": gast.Div,
    "//": gast.FloorDiv,
    "**": gast.Pow,
    "%": gast.Mod,
    "@": gast.MatMult,
}
# max(a, b) and min(a, b) of two values are np.maximum's and np.minimum's, pow(a, b) is a ** b
# (expressions.py)
BUILTIN_FORMS = {
    "max": lambda: registry.find(np.maximum),
    "min": lambda: registry.find(np.minimum),
    "pow": lambda: registry.operator(gast.Pow),
}
NAMESPACES = {
    "np.": np,
    "np.linalg.": np.linalg,
    "np.fft.": np.fft,
    "np.random.": np.random,
    "np.lib.stride_tricks.": np.lib.stride_tricks,
}


def _bullets(text):
    """The bullet items of `text`, each on one line."""
    return [
        " ".join(item.split()) for item in re.findall(r"^- (.*?)(?=^- |\n\n|\Z)", text, re.S | re.M)
    ]


def named(text):
    """What a part of the section names, by kind: numpy functions (dotted paths), methods,
    attributes, builtins and operators."""
    found = {
        "functions": set(),
        "methods": set(),
        "attributes": set(),
        "builtins": set(),
        "operators": set(),
    }
    for item in _bullets(text):
        for span in re.findall(r"`([^`]*)`", item):
            tokens = span.split()
            if tokens[0].startswith("np.") and "[" not in span:
                module = tokens[0].rsplit(".", 1)[0] + "."  # np.linalg.inv det: np.linalg.det
                found["functions"] |= {tokens[0]} | {module + t for t in tokens[1:]}
            elif re.fullmatch(r"\.\w+(\(\))?", tokens[0]):
                for t in tokens:
                    found["methods" if t.endswith("()") else "attributes"].add(t.strip(".()"))
            elif all(t in OPERATORS for t in tokens):
                found["operators"] |= set(tokens)
            else:
                found["builtins"] |= set(re.findall(r"(\w+)\(", span))
    return found


def _public_names():
    """Each public numpy function's dotted names (np.abs and np.absolute are one object)."""
    names = {}
    for prefix, module in NAMESPACES.items():
        for name in dir(module):
            value = getattr(module, name, None)
            if not name.startswith("_") and callable(value) and not isinstance(value, type):
                names.setdefault(id(value), set()).add(prefix + name)
    return names


PUBLIC = _public_names()


def _kind(record):
    """'differentiated', 'constant', or None for a record that is a fact only (a view's,
    or a builtin the transform lowers itself)."""
    if record.adjoint is not None or record.tangent is not None:
        return "differentiated"
    return "constant" if not record.differentiable else None


def registered(kind):
    """What the registry declares of that kind, in the terms of named(): each function as the
    set of its public names."""
    found = {
        "functions": [],
        "methods": set(),
        "attributes": set(),
        "builtins": set(),
        "operators": set(),
    }
    symbols = {op: symbol for symbol, op in OPERATORS.items()}
    for record in registry.records():
        if _kind(record) != kind:
            continue
        for function in record.functions:
            if getattr(builtins, getattr(function, "__name__", ""), None) is function:
                found["builtins"].add(function.__name__)
            elif id(function) in PUBLIC:
                found["functions"].append(PUBLIC[id(function)])
        found["methods"] |= set(record.methods)
        found["attributes"] |= set(record.attributes)
        found["operators"] |= {symbols[op] for op in record.operators}
    return found


PARTS = pytest.mark.parametrize(
    "kind, text",
    [("differentiated", DIFFERENTIATED), ("constant", CONSTANTS)],
    ids=["differentiated", "constants"],
)


@PARTS
def test_every_primitive_named_has_its_record(kind, text):
    listed = named(text)
    for path in listed["functions"] - {"np.random.*"}:
        record = registry.find(eval(path, {"np": np}))  # noqa: S307  (a dotted path)
        assert record is not None and _kind(record) == kind, path
    for name in listed["methods"]:
        record = registry.method(name)
        assert record is not None and _kind(record) == kind, name
    for name in listed["attributes"]:
        record = registry.attribute(name)
        assert record is not None and _kind(record) == kind, name
    for name in listed["builtins"]:
        record = BUILTIN_FORMS.get(name, lambda: registry.find(getattr(builtins, name)))()
        assert record is not None and _kind(record) == kind, name
    for symbol in listed["operators"]:
        assert _kind(registry.operator(OPERATORS[symbol])) == kind, symbol


@PARTS
def test_every_public_primitive_is_named(kind, text):
    listed, declared = named(text), registered(kind)
    random = "np.random.*" in listed["functions"]
    missing = sorted(
        min(names)
        for names in declared["functions"]
        if not names & listed["functions"]
        and not (random and all(n.startswith("np.random.") for n in names))
    )
    assert missing == []
    for what in ("methods", "attributes", "builtins", "operators"):
        assert sorted(declared[what] - listed[what]) == [], what
