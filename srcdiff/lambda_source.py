"""The source of a lambda: of the lambda expressions its first line holds, the one its code
was compiled from (inspect gives the whole line, `act = lambda z: ...`, or a part of a
statement that does not parse alone), parenthesised so it parses alone."""

import ast
import functools
import inspect
import linecache
import sys


def lambda_source(fn):
    """(lines, first line) of the lambda function fn's own text, as inspect.getsourcelines
    gives a def's; OSError where it cannot be told apart from another on its line."""
    code = fn.__code__
    filename = inspect.getsourcefile(fn) or code.co_filename
    text = "".join(linecache.getlines(filename, fn.__globals__))
    if not text:
        raise OSError("could not get source code")
    written = [n for n in _lambdas(text) if n.lineno == code.co_firstlineno]
    if sys.version_info >= (3, 11):  # (before, a code object holds no columns)
        # (of nested lambdas, the innermost holding all of the code is the one)
        written = [n for n in written if _compiled_from(code, n.body)][-1:]
    if len(written) != 1:
        raise AmbiguousLambda(f"{len(written)} lambdas on line {code.co_firstlineno}")
    segment = "(" + ast.get_source_segment(text, written[0]) + ")\n"
    return segment.splitlines(True), code.co_firstlineno


class AmbiguousLambda(OSError):
    """A lambda's line holds others it cannot be told apart from."""


@functools.lru_cache(maxsize=16)
def _lambdas(text):
    """The lambdas of a module's source text, in the order of where they start."""
    try:
        found = [n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Lambda)]
    except (SyntaxError, ValueError):
        return []
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def _compiled_from(code, body):
    """Whether every instruction of `code` with a place in the source lies in `body`."""
    start, end = (body.lineno, body.col_offset), (body.end_lineno, body.end_col_offset)
    spans = [
        ((line, column), (end_line, end_column))
        for line, end_line, column, end_column in code.co_positions()
        if None not in (line, end_line, column, end_column)
        and (line, column) != (end_line, end_column)  # (RESUME: nowhere)
    ]
    return bool(spans) and all(start <= first and last <= end for first, last in spans)
