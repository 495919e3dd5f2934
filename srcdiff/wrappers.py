"""Functions made by decorators (functools.wraps): whose source is the code that runs.

inspect reads the source of the function under a functools.wraps wrapper (it follows
`__wrapped__`). That is the code that runs only where the wrapper is transparent: its body
calls the wrapped function once, with its own arguments unchanged, and returns what that
returns, its other statements (logging, timing) touching neither. A wrapper that changes
the arguments or the result is differentiated as itself, from its own source."""

import ast
import inspect
import linecache
import textwrap
import types

from .errors import Location, UnsupportedError
from .lambda_source import lambda_source


def source_function(fn):
    """The function whose source is the code `fn` runs: fn, or the function that the
    transparent wrappers around it wrap."""
    while inspect.isfunction(fn) and inspect.isfunction(getattr(fn, "__wrapped__", None)):
        if not _transparent(fn):
            break
        fn = fn.__wrapped__
    return fn


def check_wrapper(fn):
    """Raise unless srcdiff can read `fn`'s source as the code it runs: under wrappers that
    change the arguments or the result, the first such wrapper is differentiated as itself,
    and that takes the wrapped function's parameters (what the caller's arguments bind to)."""
    function = source_function(fn)
    if not (
        inspect.isfunction(function) and inspect.isfunction(getattr(function, "__wrapped__", None))
    ):
        return
    own = inspect.signature(function, follow_wrapped=False)
    if own != inspect.signature(function.__wrapped__):
        decorated = inspect.unwrap(fn).__code__
        filename, first = decorated.co_filename, decorated.co_firstlineno
        qualname = getattr(function.__code__, "co_qualname", "")
        decorator = qualname.split(".<locals>.")[0] if ".<locals>." in qualname else "decorator"
        name, under = fn.__name__, fn.__name__ + ".__wrapped__"
        while fn is not function:
            fn, under = fn.__wrapped__, under + ".__wrapped__"
        raise UnsupportedError(
            f"{name} is wrapped by a decorator that changes its arguments or result: srcdiff "
            f"differentiates the wrapper itself then, and cannot where it takes other "
            f"parameters, {own}, than {name}",
            Location(filename, first, linecache.getline(filename, first).rstrip()),
            f"differentiate {under} (the function under the decorator), or apply the "
            f"decorator outside nf.grad: {decorator}(nf.grad({under}))",
        )


def source_lines(fn):
    """inspect.getsourcelines of the function whose source is the code `fn` runs: its code
    object where inspect would unwrap the function itself, else the function (inspect finds
    its module by its __module__ then, where for a code object it reads the file name of
    every module loaded: ~15 ms on its first call in a process)."""
    lines, first, _ = source_and_tree(fn)
    return lines, first


def as_routine(fun):
    """An object of a class of the user's defining __call__ (a loss keeping its settings)
    is differentiated as that method, bound to it; anything else is itself."""
    call = getattr(type(fun), "__call__", None)
    own = type(fun).__module__.partition(".")[0] == __name__.partition(".")[0]
    if inspect.isroutine(fun) or own or not inspect.isfunction(call):
        return fun
    return fun.__call__


def source_and_tree(fn):
    """(lines, first line, tree): source_lines(fn), and the ast Module of numbered(lines,
    first) where reading the lines off the code parsed them (to check they are the whole
    function), else None: one parse serves that check and what reads the function."""
    function = source_function(fn)
    if not inspect.isfunction(function):
        return (*inspect.getsourcelines(fn), None)
    if function.__name__ == "<lambda>":
        return (*lambda_source(function), None)
    return _spanned_lines(function) or (
        *inspect.getsourcelines(
            function.__code__ if hasattr(function, "__wrapped__") else function
        ),
        None,
    )


def numbered(lines, first):
    """The text of a function's `lines` dedented, after as many empty lines as come before
    them in their file: its parse has their line numbers, with no renumbering after."""
    return "\n" * (max(first, 1) - 1) + dedented(lines)


def dedented(lines):
    """textwrap.dedent of the text of `lines`; a function defined at the top of its module
    is its text as it is, but for its lines of blanks only, made empty (dedent's regular
    expressions cost a first transform ~0.4 ms over the texts it reads)."""
    if lines and lines[0][:1].strip():  # (a first line at the margin: dedent's is none)
        return "".join(
            line if line.strip(" \t\n") else "\n" * line.endswith("\n") for line in lines
        )
    return textwrap.dedent("".join(lines))


def _spanned_lines(function):
    """inspect.getsourcelines(function) read off the lines its code spans (3.11's positions),
    and the lines indented below it that follow (statements that compile to nothing), without
    inspect's tokenizing the whole function (a first transform reads a few dozen), and their
    parse (see source_and_tree); None where that is not the function's whole text, for
    inspect to read."""
    code = function.__code__
    lines = linecache.getlines(code.co_filename, function.__globals__)
    first, last = code.co_firstlineno, _last_line(code)
    if last is None or not 0 < first <= last <= len(lines):
        return None
    indent = _indentation(lines[first - 1])
    while last < len(lines) and (not lines[last].strip() or _indentation(lines[last]) > indent):
        last += 1  # (past statements that compile to nothing: code after a raise)
    while not lines[last - 1].strip():
        last -= 1
    spanned = lines[first - 1 : last]
    try:
        tree = ast.parse(numbered(spanned, first))
    except SyntaxError:
        return None
    return spanned, first, tree


def _indentation(line):
    return len(line) - len(line.lstrip())


def _last_line(code):
    """The last line on which an instruction of the code, or of the code defined in it,
    begins (None before Python 3.11), from its line table: a run of instructions each, where
    co_positions has one for every instruction and cache entry. (An expression's closing
    bracket or string on a line of its own, less indented than the body, is left out: the
    lines do not parse then, and inspect reads them.)"""
    if not hasattr(code, "co_positions"):
        return None
    last = max((line for _, _, line in code.co_lines() if line is not None), default=None)
    for nested in code.co_consts:
        if isinstance(nested, types.CodeType):
            inner = _last_line(nested)
            last = inner if last is None or inner is not None and inner > last else last
    return last


def _transparent(wrapper):
    """Whether `wrapper` calls its `__wrapped__` with its own arguments, unchanged, and
    returns what that returns, and does nothing else with either."""
    try:
        lines, _ = inspect.getsourcelines(wrapper.__code__)  # (its own: not __wrapped__'s)
        node = ast.parse(textwrap.dedent("".join(lines))).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return False
    if not isinstance(node, ast.FunctionDef):
        return False
    passed = _passing_call(node.args)
    calls = [
        n
        for n in _own_nodes(node.body)
        if isinstance(n, ast.Call) and _finds(wrapper, n.func, wrapper.__wrapped__)
    ]
    if passed is None or len(calls) != 1 or _arguments(calls[0]) != _arguments(passed):
        return False
    parameters = {
        a.id for a in ast.walk(passed) if isinstance(a, ast.Name) and a is not passed.func
    }
    uses = [
        n
        for s in node.body
        for n in ast.walk(s)  # (functions defined in it too)
        if isinstance(n, ast.Name) and n.id in parameters
    ]
    return len(uses) == len(parameters) and _returns_only(node.body, calls[0])


def _passing_call(arguments):
    """The call `g(a, b, *args, c=c, **kwargs)` that passes a function's parameters on as
    they came (None if one has a default: a call passing none would pass a value of the
    wrapper's own)."""
    if arguments.defaults or any(d is not None for d in arguments.kw_defaults):
        return None
    args = [ast.Name(id=a.arg, ctx=ast.Load()) for a in arguments.posonlyargs + arguments.args]
    if arguments.vararg is not None:
        args.append(ast.Starred(value=ast.Name(id=arguments.vararg.arg, ctx=ast.Load())))
    keywords = [
        ast.keyword(arg=a.arg, value=ast.Name(id=a.arg, ctx=ast.Load()))
        for a in arguments.kwonlyargs
    ]
    if arguments.kwarg is not None:
        keywords.append(
            ast.keyword(arg=None, value=ast.Name(id=arguments.kwarg.arg, ctx=ast.Load()))
        )
    return ast.Call(func=ast.Name(id="_", ctx=ast.Load()), args=args, keywords=keywords)


def _arguments(call):
    """What `call` passes, as written."""
    return ast.unparse(ast.Call(func=ast.Name(id="_"), args=call.args, keywords=call.keywords))


def _returns_only(body, call):
    """Whether each return of `body` returns `call`'s value: the call itself, or a name that
    a statement the body always runs binds it to, and nothing else changes."""
    always = _always_run(body)
    held = next(
        (
            s.targets[0].id
            for s in always
            if isinstance(s, ast.Assign)
            and s.value is call
            and len(s.targets) == 1
            and isinstance(s.targets[0], ast.Name)
        ),
        None,
    )
    direct = any(isinstance(s, ast.Return) and s.value is call for s in always)
    returns = [n for n in _own_nodes(body) if isinstance(n, ast.Return)]
    if not returns or not (direct or held is not None):
        return False
    if any(
        n.value is not call and not (isinstance(n.value, ast.Name) and n.value.id == held)
        for n in returns
    ):
        return False
    methods = {id(n.func) for n in _own_nodes(body) if isinstance(n, ast.Call)}
    changed = [  # (its binding, or a write into it, or a call of its method)
        n
        for n in _own_nodes(body)
        if held is not None
        and isinstance(n, (ast.Name, ast.Attribute, ast.Subscript))
        and held in (getattr(n, "id", None), getattr(getattr(n, "value", None), "id", None))
        and (not isinstance(n.ctx, ast.Load) or id(n) in methods)
    ]
    return len(changed) == (0 if held is None else 1)


def _always_run(body):
    """The statements of `body` that run whenever it returns: its own, and those of the
    `with` blocks and `try` bodies and `finally` blocks in them."""
    found = []
    for stmt in body:
        found.append(stmt)
        if isinstance(stmt, ast.With):
            found += _always_run(stmt.body)
        elif isinstance(stmt, ast.Try):
            found += _always_run(stmt.body) + _always_run(stmt.finalbody)
    return found


def _own_nodes(body):
    """The nodes of `body`, not those of functions or classes defined in it."""
    found = []
    pending = list(body)
    while pending:
        node = pending.pop()
        found.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            pending.extend(ast.iter_child_nodes(node))
    return found


def _finds(function, name, value):
    """Whether `name`, read in `function`, is `value` (a cell of its closure or a global)."""
    if not isinstance(name, ast.Name):
        return False
    code = function.__code__
    if name.id in code.co_freevars:
        cell = function.__closure__[code.co_freevars.index(name.id)]
        try:
            return cell.cell_contents is value
        except ValueError:  # (an empty cell)
            return False
    return function.__globals__.get(name.id) is value
