"""Imports written inside the differentiated function (`import numpy as np`, `from
scipy.special import logsumexp`), of modules srcdiff knows: taken out of its body and made
module-level imports of the emitted module (the header codegen.to_source writes), which is
what they do in f (bind a name to the module's object, the same at every call); the names
they bind resolve as f's globals do while it is transformed."""

import importlib

import gast

from .errors import UnsupportedError

# (the packages whose functions srcdiff differentiates or follows: importing one again
# runs no code of the user's)
KNOWN = frozenset(
    ("numpy", "scipy", "math", "functools", "operator", "itertools", "collections", "srcdiff")
)


def hoisted_imports(parsed):
    """Take the imports of known modules out of the top level of f's body, binding their
    names in parsed.namespace; their source lines (for the emitted module's header)."""
    lines, body = [], []
    for stmt in parsed.node.body:
        if isinstance(stmt, (gast.Import, gast.ImportFrom)):
            parsed.namespace.update(_bound(stmt, parsed.location(stmt)))
            lines.append(gast.unparse(stmt).strip())
        else:
            body.append(stmt)
    if len(body) < len(parsed.node.body):
        parsed.node.body[:] = body or [gast.Pass()]
    return tuple(dict.fromkeys(lines))


def _bound(stmt, loc):
    """name -> object, of the names an import of a known module binds."""
    module = stmt.module if isinstance(stmt, gast.ImportFrom) else None
    for alias in stmt.names:
        path = module or alias.name
        if getattr(stmt, "level", 0) or alias.name == "*" or path.split(".")[0] not in KNOWN:
            raise UnsupportedError(
                "an import inside the function, of a module srcdiff does not know "
                f"({path if alias.name != '*' else path + ' *'})",
                loc,
                "import it at module level (srcdiff takes imports of numpy, scipy, math, "
                "functools, operator, itertools and collections inside f)",
            )
    return bound_by_import(stmt)


def bound_by_import(stmt):
    """name -> object, of the names an import of known modules binds."""
    module = stmt.module if isinstance(stmt, gast.ImportFrom) else None
    found = {}
    for alias in stmt.names:
        if module is None:
            importlib.import_module(alias.name)
            top = alias.asname or alias.name.split(".")[0]
            found[top] = importlib.import_module(alias.name if alias.asname else top)
        else:
            held = importlib.import_module(module)
            found[alias.asname or alias.name] = (
                getattr(held, alias.name)
                if hasattr(held, alias.name)
                else importlib.import_module(f"{module}.{alias.name}")  # (a submodule)
            )
    return found
