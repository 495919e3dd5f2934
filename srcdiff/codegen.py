"""Stage 4: gast -> ast -> Python source (astor), then compile with a real filename."""
import linecache

import astor
import gast

IMPORTS = "import numpy as np\nfrom srcdiff import runtime\n"


def to_source(funcs, docstring):
    defs = []
    for func in funcs:
        module = gast.gast_to_ast(gast.Module(body=[func], type_ignores=[]))
        defs.append(astor.to_source(module))
    return f'"""{docstring}"""\n{IMPORTS}\n\n' + "\n\n".join(defs)


def definitions(source):
    """The function definitions of an emitted module, without its docstring and imports."""
    return source.split(IMPORTS, 1)[1].lstrip("\n")


def compile_module(source, filename, scope, first_line=1):
    """Execute emitted source in `scope` (its globals from then on) and return it.

    The source is registered with linecache, so tracebacks and pdb show emitted lines even when
    no file with that name exists."""
    text = "\n" * (first_line - 1) + source
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    exec(compile(text, filename, "exec"), scope)
    return scope
