"""srcdiff.conversion gives what gast's own converters give, node for node."""

import ast
from pathlib import Path

import gast
import pytest

from srcdiff import conversion

ROOT = Path(__file__).resolve().parent.parent
CONSTRUCTS = '''
import numpy as np
from os import path as p


@decorator(1)
def f(a, b: int = 2, *args, c, d=3, **kwargs) -> float:
    """Doc."""
    global g
    x = lambda u, v=1, *w, z=2, **k: u + v
    try:
        y = a[1:2, ::3, ...] @ b ** -1.5e-3
    except (ValueError, KeyError) as error:
        raise RuntimeError(f"{error!r:>10}") from error
    except Exception:
        pass
    else:
        y = None
    finally:
        del x
    while not (a < b <= c) and y is not None or c in d:
        a += 1
        if a:
            break
        continue
    for i, (j, *k) in enumerate(zip(a, b)):
        y = [q for q in k if q], {q: 1 for q in k}, {q for q in k}, (q for q in k)
    with open(p) as handle, open(p):
        s = b"bytes" if handle else 1j
    if (n := len(args)) > 1:
        assert n, "message"
    match n:
        case [1, *rest] | {"key": 2}:
            pass
        case _:
            pass
    return -x(*args, **kwargs)[0].real


async def h():
    async for item in source():
        await item
    async with lock:
        yield item


class C(Base, metaclass=Meta):
    field: int = 1
'''


def _sources():
    yield "constructs", CONSTRUCTS
    for path in sorted((ROOT / "srcdiff").glob("*.py")):
        yield path.name, path.read_text()


@pytest.mark.parametrize("name, source", list(_sources()), ids=lambda v: v[:30])
def test_conversions_agree_with_gast(name, source):
    expected = gast.ast_to_gast(ast.parse(source))
    converted = conversion.ast_to_gast(ast.parse(source))
    assert gast.dump(converted, include_attributes=True) == gast.dump(
        expected, include_attributes=True
    )
    for ours, theirs in zip(gast.walk(converted), gast.walk(expected)):
        assert type(ours) is type(theirs) and set(vars(ours)) == set(vars(theirs))
    assert ast.dump(conversion.gast_to_ast(expected), include_attributes=True) == ast.dump(
        gast.gast_to_ast(expected), include_attributes=True
    )


def test_the_parser_s_shared_nodes_stay_as_they_are():
    conversion.ast_to_gast(ast.parse("a = b + c"))
    assign = ast.parse("a = b + c").body[0]
    assert type(assign.targets[0].ctx) is ast.Store and type(assign.value.op) is ast.Add
