"""Rewrite the tables of expected failures in tests/test_programs.py (BLOCKED) and
tests/test_python_constructs.py (TODAY) from what srcdiff does now: an entry for each check
that fails with a SrcdiffError (its message and line), none for one that passes. A raw
exception or a wrong number is printed, and left to fail the test.

    python tools/refresh_xfails.py            # prints the changes, then writes the files
"""

import ast
import os
import pprint
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..", "tests")
sys.path.insert(0, TESTS)

import numpy as np  # noqa: E402

import srcdiff as nf  # noqa: E402
from srcdiff.errors import SrcdiffError  # noqa: E402

CHECKS = ("grad", "jvp", "hvp")


def reason(error, with_file):
    where = error.location
    text = error.message.splitlines()[0]
    if where is not None and with_file:
        name = os.path.basename(where.filename)
        name = name if os.path.exists(os.path.join(TESTS, "programs", name)) else "<emitted>"
        text = f"{name}:{where.lineno}: {text}"
    if where is not None and where.line:
        text += f" [{where.line.strip()}]"
    return text


def outcomes(run, names, with_file):
    """{(name, check): reason} of the checks that fail with a SrcdiffError."""
    found = {}
    for name in names:
        for check in CHECKS:
            try:
                run(name, check)
            except SrcdiffError as error:
                found[name, check] = reason(error, with_file)
            except AssertionError as error:
                print(f"WRONG NUMBERS {name} {check}: {str(error)[:200]}")
            except Exception as error:  # noqa: BLE001
                print(f"RAW {type(error).__name__} {name} {check}: {str(error)[:200]}")
    return found


def table(found):
    """Per name when every check fails alike, else per (name, check)."""
    out = {}
    for name in dict.fromkeys(n for n, _ in found):
        reasons = [found.get((name, c)) for c in CHECKS]
        if len(set(reasons)) == 1:
            out[name] = reasons[0]
        else:
            out.update({(name, c): r for c, r in zip(CHECKS, reasons) if r is not None})
    return out


def rewrite(path, variable, entries):
    with open(path) as f:
        text = f.read()
    node = next(
        n
        for n in ast.parse(text).body
        if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", None) == variable
    )
    lines = text.splitlines(keepends=True)
    body = pprint.pformat(entries, width=96, sort_dicts=False)
    lines[node.lineno - 1 : node.end_lineno] = [f"{variable} = {body}\n"]
    with open(path, "w") as f:
        f.write("".join(lines))


def main():
    import test_programs as programs_test
    import test_python_constructs as constructs_test

    def run_program(name, check):
        test = {
            "grad": programs_test.test_gradient_agrees_with_autograd_and_finite_differences,
            "jvp": programs_test.test_forward_mode_agrees_with_autograd,
            "hvp": programs_test.test_hessian_vector_product_agrees_with_autograd,
        }[check]
        test(name)

    def run_construct(name, check):
        test = {
            "grad": constructs_test.test_gradient_matches_finite_differences,
            "jvp": constructs_test.test_tangent_matches_finite_differences,
            "hvp": constructs_test.test_hessian_vector_product_matches_differences_of_the_gradient,
        }[check]
        test(*constructs_test.CASES[name])

    nf.config(specialize="check")
    blocked = table(outcomes(run_program, programs_test.programs.NAMES, True))
    today = table(outcomes(run_construct, constructs_test.CASES, False))
    rewrite(os.path.join(TESTS, "test_programs.py"), "BLOCKED", blocked)
    rewrite(os.path.join(TESTS, "test_python_constructs.py"), "TODAY", today)
    print(f"{len(blocked)} program entries, {len(today)} construct entries")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
