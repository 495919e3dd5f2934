"""Regenerate generated_examples/NAME_grad.py (the generic emitted code) and
NAME_grad_specialised.py (the code a call with the example's arguments runs: specialised to
their types and shapes) from each generated_examples/NAME.py.

    python tools/regen_examples.py          # rewrite the emitted files
    python tools/regen_examples.py --check  # exit 1 and show a diff if any is stale

Each NAME.py defines the function NAME (or imports it under that name), WRT, example(rng)
returning arguments, and optionally MODE: "grad" (default), "jvp" (forward mode) or "grad2"
(the gradient of the emitted gradient); tests/test_generated_examples.py runs the files.
The programs of tests/programs/ named in PROGRAMS join them as program_NAME: the gradient of
their `loss` with respect to its first argument, in program_NAME_grad.py.
"""

import argparse
import difflib
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "generated_examples"
SUFFIX = "_grad"
SPECIALISED = "_grad_specialised"
PROGRAMS_DIR = ROOT / "tests" / "programs"
PROGRAM_PREFIX = "program_"
# The programs of issue 16 (tests/programs/) in the gallery: each that tests/test_programs.py
# passes without an expected failure.
PROGRAMS = (
    "dataclass_model",
    "flatten",
    "fluid",
    "gmm",
    "hmm",
    "lstm",
    "mlp",
    "mlp_activation",
    "neural_ode",
    "rnn",
    "svi",
    "vae",
)


def names():
    return sorted(
        [
            p.stem
            for p in EXAMPLES.glob("*.py")
            if not p.stem.endswith((SUFFIX, SPECIALISED)) and not p.stem.startswith("_")
        ]
        + [PROGRAM_PREFIX + program for program in PROGRAMS]
    )


def source_path(name):
    if name.startswith(PROGRAM_PREFIX):
        return PROGRAMS_DIR / f"{name[len(PROGRAM_PREFIX) :]}.py"
    return EXAMPLES / f"{name}.py"


def load(name, path=None):
    """The example NAME (or the file at path). A program is shown as an example: its loss,
    differentiated with respect to its first argument."""
    path = path or source_path(name)
    spec = importlib.util.spec_from_file_location(f"generated_examples.{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    if path.parent == PROGRAMS_DIR:
        setattr(module, name, module.loss)
        module.WRT = (0,)
    return module


def derivative(name, module=None):
    import srcdiff as nf

    module = module or load(name)
    fn, mode = getattr(module, name), getattr(module, "MODE", "grad")
    if mode == "jvp":
        return nf.jvp(fn, wrt=module.WRT)
    if mode == "grad2":
        return nf.grad(nf.grad(fn, wrt=module.WRT[0]), wrt=module.WRT[0])
    return nf.grad(fn, wrt=module.WRT)


def emitted(name):
    """The generic emitted code, as NAME_grad.py holds it."""
    module = load(name)
    variant = derivative(name, module)
    return _header(name, module, variant) + standalone(
        variant._emitted_for(list(_arguments(module)))
    )


def specialised(name):
    """The code a call with the example's arguments runs, as NAME_grad_specialised.py
    holds it."""
    import numpy as np

    from srcdiff import cache

    cache.clear_memory()  # (the copies of callees it makes are numbered from 1, as in a new process)
    module = load(name)
    arguments = _arguments(module)
    variant = derivative(name, module)
    tangents = ()
    if getattr(module, "MODE", "grad") == "jvp":
        tangents = (tuple(np.zeros_like(arguments[k]) for k in variant.wrt),)
    source = variant.source_for(*arguments, *tangents)
    return (
        _header(name, module, variant) + f"# Specialised for the example's arguments: "
        f"{', '.join(map(_kind, arguments))}\n"
        + standalone(variant._emitted_for(list(arguments)), source)
    )


def _header(name, module, variant):
    mode = getattr(module, "MODE", "grad")
    function = "loss" if name.startswith(PROGRAM_PREFIX) else name
    return (
        f"# Emitted by srcdiff from {source_path(name).relative_to(ROOT)} "
        f"(function {function}, mode {mode}, wrt={variant.wrt}):\n"
        "#     python tools/regen_examples.py\n"
        "# Do not edit: tests/test_generated_examples.py fails when this file is stale.\n"
    )


def _kind(value):
    """`value`'s type and shape as the specialised code depends on them: float64[8, 2]."""
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return f"{value.dtype}[{', '.join(map(str, value.shape))}]"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(map(_kind, value))
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_kind(v)}" for k, v in value.items()) + "}"
    if isinstance(value, float):
        return "float"
    return getattr(value, "__name__", None) or repr(value)[:40]


def _arguments(module):
    """The example's arguments (for a function or an object passed, the code depends on
    which)."""
    import numpy as np

    return module.example(np.random.default_rng(0))


def standalone(emitted, source=None):
    """The emitted source (or `source`, emitted's specialised to some arguments), importing the functions it calls from the differentiated code's
    modules (a primitive with a template of its own): srcdiff's own copy finds them in the
    namespace it runs in instead, so that rebinding one is seen."""
    import ast
    import builtins

    from srcdiff.codegen import IMPORTS

    if source is None:
        source = emitted.full_source()
    else:
        source = (
            f'"""{emitted.source.split(chr(34) * 3)[1]}"""\n{IMPORTS}\n\n'
            + _with_generic_parts(source, emitted.full_source())
        )
    tree = ast.parse(source)
    bound = set(dir(builtins)) | {"np", "runtime"}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            bound.add(node.name)
            bound.update(a.arg for a in node.args.args + node.args.kwonlyargs)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
    free = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id not in bound}
    imports, stack = set(), [emitted]
    while stack:
        emitted = stack.pop()
        stack.extend(emitted.callees)
        for global_name in free & set(emitted.scope):
            value = emitted.scope[global_name]
            if isinstance(value, type(sys)):  # scipy, in scipy.stats.norm.logpdf
                imports.update(_module_imports(tree, global_name, value))
                continue
            home = getattr(value, "__module__", None)
            if home and getattr(sys.modules.get(home), global_name, None) is value:
                imports.add(f"from {home} import {global_name}\n")
            elif type(value) in (int, float, bool, str):  # a number a closure holds
                imports.add(f"{global_name} = {value!r}  # (held by a closure cell)\n")
    return source.replace(IMPORTS, IMPORTS + "".join(sorted(imports)), 1)


def _with_generic_parts(specialised, generic):
    """The specialised functions, with the generic code's defaults in their headers (the
    specialised ones take theirs at run time) and the generic functions they still call."""
    import ast
    import re

    generic_lines = generic.splitlines(True)
    generic_defs = {
        node.name: node for node in ast.parse(generic).body if isinstance(node, ast.FunctionDef)
    }
    lines = specialised.splitlines(True)
    defined = [node for node in ast.parse(specialised).body if isinstance(node, ast.FunctionDef)]
    for node in reversed(defined):
        original = generic_defs.get(re.sub(r"_s\d+$", "", node.name))
        if original is not None:
            header = "".join(generic_lines[original.lineno - 1 : original.body[0].lineno - 1])
            lines[node.lineno - 1 : node.body[0].lineno - 1] = [
                header.replace(f"def {original.name}(", f"def {node.name}(", 1)
            ]
    text = "".join(lines)
    names = {node.name for node in defined}
    while True:
        called = {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}
        missing = sorted((called & set(generic_defs)) - names)
        if not missing:
            return text
        for name in missing:
            node = generic_defs[name]
            text = (
                text.rstrip("\n")
                + "\n\n\n"
                + "".join(generic_lines[node.lineno - 1 : node.end_lineno])
            )
            names.add(name)


def _module_imports(tree, name, module):
    """The imports that bind `name` to `module` and load the submodules the source reads
    through it (`import scipy.stats` for scipy.stats.norm.logpdf)."""
    import ast

    if module.__name__ != name:
        return {f"import {module.__name__} as {name}\n"}
    found = {
        f"import {name}.{node.attr}\n"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == name
        and f"{name}.{node.attr}" in sys.modules
    }
    return found or {f"import {name}\n"}


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    stale = 0
    for name, make, suffix in [
        (n, m, x) for n in names() for m, x in ((emitted, SUFFIX), (specialised, SPECIALISED))
    ]:
        target = EXAMPLES / f"{name}{suffix}.py"
        try:
            text = make(name)
        except ModuleNotFoundError as exc:  # an example of an optional package's functions
            print(f"skipped {name}: it needs {exc.name}, which is not installed")
            continue
        old = target.read_text() if target.exists() else ""
        if old == text:
            continue
        if args.check:
            stale += 1
            sys.stdout.writelines(
                difflib.unified_diff(
                    old.splitlines(True), text.splitlines(True), str(target), "regenerated"
                )
            )
        else:
            target.write_text(text)
            print(f"wrote {target.relative_to(ROOT)}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
