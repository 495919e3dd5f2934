"""codegen reads the tokens of a long emitted line (to find where to break it) with a pattern
of its own, not tokenize: the tokens must be tokenize's, or lines would break elsewhere."""

import ast
import io
import tokenize
from pathlib import Path

import pytest

from srcdiff import codegen

ROOT = Path(__file__).resolve().parent.parent


def tokenize_line(text):
    tokens = tokenize.generate_tokens(io.StringIO(text + "\n").readline)
    return [(t.type, t.string, t.start, t.end) for t in tokens if t.start[0] == 1]


def read_line(text):
    return [(t.type, t.string, t.start, t.end) for t in codegen._line_tokens(text)]


def is_statement(text):
    """Whether `text` is a whole statement (or a block's first line), as emitted lines are."""
    for code in (text.strip(), text.strip() + " pass"):
        try:
            ast.parse(code)
            return True
        except SyntaxError:
            pass
    return False


def test_every_line_of_the_examples_and_the_templates_gives_tokenizes_tokens():
    # (emitted code, and code written by hand in the same style)
    # (the templates of the srcdiff imported: CI runs the tests against an installed wheel)
    files = sorted((ROOT / "generated_examples").glob("*.py")) + sorted(
        (Path(codegen.__file__).parent / "primitives").glob("*.py")
    )
    compared = 0
    for path in files:
        for text in path.read_text(encoding="utf-8").splitlines():
            if not is_statement(text):
                continue  # (a line of one that spans several, or of a docstring's prose)
            assert read_line(text) == tokenize_line(text), (path.name, text)
            compared += 1
    assert compared > 10_000


@pytest.mark.parametrize(
    "text",
    [
        "    x = f(a, 'b, c', b'\\x00', r\"\\d\") + 1_000.5e-3j  # note",
        "return (0x_ff, 0o17, 0b1, .5, 1., 1.__class__, x ** -2 // 3 @ y)",
        '    y = \'\'\'a, b\'\'\' + """c " d""" and not z >= w != v -> u',
        "    # a comment alone",
        "",
        "del a, b[1:2], c.d; lambda q: q",
    ],
)
def test_lines_of_each_kind_of_token(text):
    assert read_line(text) == tokenize_line(text)


def test_an_f_string_is_one_string():
    text = "    s = f'{a + b}, {c[1]}' + g(x, y)"
    assert [t.string for t in codegen._line_tokens(text)] == [
        "    ",
        "s",
        "=",
        "f'{a + b}, {c[1]}'",
        "+",
        "g",
        "(",
        "x",
        ",",
        "y",
        ")",
        "\n",
    ]
