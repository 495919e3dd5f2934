"""Stage 4: gast -> Python source (unparse.py, or astor from ast), then compile with a real
filename."""

import ast
import functools
import io
import linecache
import math
import re
import tokenize

import astor
import gast

from . import conversion, ir, python_versions, unparse
from .errors import Location, SrcdiffError

IMPORTS = "import numpy as np\nfrom srcdiff import runtime\n"
LINE_LIMIT = 99
_OPERATORS = {"+", "-", "*", "/", "//", "%", "@", "**", "and", "or", "if", "else"}
_ASSIGNING = {"=", "+=", "-=", "*=", "/=", "//=", "%=", "@=", "**="}


def source_of(module):
    """Python source of an ast Module, one line per statement, wrapped where a person would."""
    return source_and_lines(module)[0]


def source_and_lines(module):
    """source_of(module), and {row of it: the `lineno` its statement carries} (the line of f
    it comes from: ir.located; rows of statements without one are left out)."""
    _number_statements(module.body)
    return _lines_of(astor.to_source(module, add_line_information=True, pretty_source="".join))


def _lines_of(marked):
    """source_and_lines' answer from astor's text with its `# line: N` marks."""
    plain, origins, line = [], [], 0
    for text in marked.splitlines(True):
        number = _marked_line(text)
        if number is not None:
            line = number
            continue
        plain.append(text)
        origins.append(line)
        line = 0
    return _joined(plain, origins)


def _joined(plain, origins):
    """(the rows `plain` as one text, those longer than a line broken, and {row of it: line
    of f} for those whose `origins` is not 0)."""
    # (tokens are needed only to break a long line: most functions have none)
    long_rows = {number for number, text in enumerate(plain, 1) if len(text) > LINE_LIMIT + 1}
    by_row = _tokens_of_rows(plain, sorted(long_rows)) if long_rows else {}
    pieces, rows, row = [], {}, 0
    for number, (text, origin) in enumerate(zip(plain, origins), 1):
        if number in long_rows:
            text = wrap(text, by_row.get(number) or [])
        count = text.count("\n")
        if origin:
            for k in range(row + 1, row + count + 1):
                rows[k] = origin
        pieces.append(text)
        row += count
    return "".join(pieces), rows


def _marked_line(text):
    """N for a line that is a `# line: N` mark (`[ \\t]*# line: (\\d+)\\n`, without a
    regex's cost: half the lines are marks), else None."""
    mark = text.lstrip(" \t")
    if mark.startswith("# line: ") and mark.endswith("\n") and mark[8:-1].isdecimal():
        return int(mark[8:-1])
    return None


def _number_statements(body):
    """Give each statement in `body` and in the blocks in it that has no line number 0
    (expressions hold no statements: no need to visit them)."""
    for stmt in body:
        if getattr(stmt, "lineno", None) is None:
            stmt.lineno = 0
        for field in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(stmt, field, None)
            if block.__class__ is list:
                _number_statements(block)


def _tokens_of_rows(plain, rows):
    """{row: its tokens} for `rows` of the lines `plain`. Each line astor writes is a whole
    statement, which tokenizes alone as in the whole text (but for the indents and dedents
    before it, which no break point depends on), unless a string spans lines: only a
    triple-quoted one can, and then the whole text is tokenized."""
    text = "".join(plain)
    if '"""' in text or "'''" in text:
        return _tokens_by_row(text)
    return {row: _line_tokens(plain[row - 1].rstrip("\n")) for row in rows}


def _tokens_by_row(text):
    """{row: its tokens}; None for the rows of a string that spans several (never broken)."""
    by_row = {}
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.start[0] == token.end[0]:
            by_row.setdefault(token.start[0], []).append(token)
        else:
            for row in range(token.start[0], token.end[0] + 1):
                by_row[row] = None
    return by_row


def wrap(line, tokens, limit=LINE_LIMIT):
    """`line` broken inside brackets (after a comma, before an operator, or else after an
    opening bracket) into lines of at most `limit` characters where it can be."""
    text = line.rstrip("\n")
    if len(text) <= limit:
        return line
    parenthesised = _bare_sequence(tokens) or _bare_operation(tokens)
    if parenthesised:
        text = parenthesised(text)
        return wrap(text, _line_tokens(text), limit) + line[len(line.rstrip("\n")) :]
    good, fallback = _break_points(tokens)
    indent = text[: len(text) - len(text.lstrip())]
    prefix = indent + (" " * 8 if text.endswith(":") else " " * 4)
    lines, start, room = [], 0, limit
    while len(text) - start > room:
        cut = _cut(good, fallback, start, room)
        if cut is None:
            break
        lines.append(text[start:cut].rstrip())
        start, room = cut, limit - len(prefix)
        while text[start] == " ":
            start += 1
    lines.append(text[start:])
    return ("\n" + prefix).join(lines) + line[len(text) :]


def _cut(good, fallback, start, room):
    """Where to end a line that begins at `start`: the last good point that fits among the
    outermost ones that do, else the outermost opening bracket that does, else the first
    point of all."""
    fitting = [(depth, -column) for column, depth in good if start < column <= start + room]
    if fitting:
        outermost = min(depth for depth, _ in fitting)
        return max(-c for depth, c in fitting if depth == outermost)
    fitting = [(depth, -column) for column, depth in fallback if start < column <= start + room]
    if fitting:
        return -min(fitting)[1]
    later = [column for column, _ in good + fallback if column > start]
    return min(later) if later else None


def _break_points(tokens):
    """Columns where a line of `tokens` may break: ([(after a comma or before a binary
    operator inside brackets, its depth)], [(after an opening bracket, its depth)])."""
    good, fallback, depth, previous = [], [], 0, None
    for token, following in zip(tokens, tokens[1:] + [None]):
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
            if following is not None and following.string not in ")]}":  # not in `f()`
                fallback.append((token.end[1], depth))
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        elif depth and token.string == ",":
            good.append((token.end[1], depth))
        elif depth and token.string in _OPERATORS and _ends_operand(previous):
            good.append((token.start[1], depth))
        previous = token
    return good, fallback


def _ends_operand(token):
    return token is not None and (
        token.type in (tokenize.NAME, tokenize.NUMBER, tokenize.STRING)
        or token.string in (")", "]", "}")
    )


def _bare_operation(tokens):
    """For `x = a + b`, `x += a * b` or `return a - b` whose value's outermost operation is
    an operator: what puts the value in parentheses (so the line can break before its
    operator, the outermost place), else None."""
    words = [t for t in tokens if t.type not in (tokenize.INDENT, tokenize.DEDENT)]
    if not words or any(t.type == tokenize.COMMENT for t in words):
        return None
    begin, depth = (1 if words[0].string == "return" else None), 0
    for k, token in enumerate(words):
        depth += token.string in "([{" and token.type == tokenize.OP
        depth -= token.string in ")]}" and token.type == tokenize.OP
        if begin is None and depth == 0 and token.string in _ASSIGNING:
            begin = k + 1
    if begin is None or begin >= len(words):
        return None
    depth, previous, top = 0, None, False
    for token in words[begin:]:
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        elif depth == 0 and token.string in _OPERATORS and _ends_operand(previous):
            top = True
        elif depth == 0 and (token.string in (",", "lambda", "==") or token.string in _ASSIGNING):
            return None  # (a tuple, `a = b = v`, or what reads differently in parentheses)
        previous = token
    if not top:
        return None
    first = words[begin].start[1]
    return lambda text: f"{text[:first]}({text[first:].rstrip()})"


def _bare_sequence(tokens):
    """For `a, b, c = value`, `del a, b, c` or `return a, b, c`: what puts the names in
    parentheses (so the line can break between them), else None. The keyword stays
    outside them: `(return a, b)` is no statement."""
    words = [t for t in tokens if t.type not in (tokenize.INDENT, tokenize.DEDENT)]
    if not words or any(t.string in "([{" for t in words if t.type == tokenize.OP):
        return None
    first = 1 if words[0].string in ("del", "return") else 0
    assigned = [t for t in words if t.string == "="]
    ends = assigned or [
        t for t in words if t.type in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER)
    ]
    if not ends or not any(t.string == "," for t in words):
        return None
    begin, end = words[first].start[1], ends[0].start[1]
    return lambda text: (
        f"{text[:begin]}({text[begin:end].rstrip()}){' ' if assigned else ''}{text[end:]}"
    )


def _line_tokens(text):
    """The tokens of `text`, one line of emitted code holding a whole statement, as tokenize
    gives them for the line alone (an INDENT first, a NEWLINE or NL last), but an f-string
    is one STRING on every Python (its parts are no places to break). Read with a pattern
    of their own: tokenize's covers every string prefix, and compiling it cost a first
    transform ~2 ms."""
    line, tokens = text + "\n", []
    code = text.lstrip(" \t\f")
    position = len(text) - len(code)
    if position and code and not code.startswith("#"):
        tokens.append(_token(tokenize.INDENT, line, 0, position))
    match = _token_pattern().match
    while position < len(text):
        found = match(text, position)
        if found is None:  # (a character that begins no token: prose, not emitted code)
            kind, end = tokenize.ERRORTOKEN, position + 1
        else:
            kind, end = _TOKEN_KINDS[found.lastgroup], found.end()
        if kind is not None:
            tokens.append(_token(kind, line, position, end))
        position = end
    code_read = any(t.type != tokenize.COMMENT for t in tokens)
    tokens.append(_token(tokenize.NEWLINE if code_read else tokenize.NL, line, len(text)))
    return tokens


def _token(kind, line, start, end=None):
    end = len(line) if end is None else end
    return tokenize.TokenInfo(kind, line[start:end], (1, start), (1, end), line)


@functools.cache
def _token_pattern():
    """A token of a line of code, or the blanks between two: a group each, named as in
    _TOKEN_KINDS (a string with any prefix, a triple-quoted one as a whole)."""
    strings = [
        "'''(?:[^'\\\\]|\\\\.|'(?!''))*'''",
        '"""(?:[^"\\\\]|\\\\.|"(?!""))*"""',
        "'(?:[^'\\\\]|\\\\.)*'",
        '"(?:[^"\\\\]|\\\\.)*"',
    ]
    kinds = {
        "blank": r"[ \t\f]+",
        "comment": r"#.*",
        "string": "[rRbBuUfF]{0,2}(?:" + "|".join(strings) + ")",
        "number": r"0[xXoObB](?:_?[0-9a-fA-F])+|(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?"
        r"|\.\d(?:_?\d)*)(?:[eE][-+]?\d(?:_?\d)*)?[jJ]?",
        "name": r"\w+",
        "operator": r"\*\*=?|//=?|>>=?|<<=?|\.\.\.|->|:=|[-+*/%@&|^=!<>]="
        r"|[-+*/%@&|^~<>()\[\]{},:;.=]",
    }
    return re.compile("|".join(f"(?P<{kind}>{pattern})" for kind, pattern in kinds.items()))


_TOKEN_KINDS = {
    "blank": None,
    "comment": tokenize.COMMENT,
    "string": tokenize.STRING,
    "number": tokenize.NUMBER,
    "name": tokenize.NAME,
    "operator": tokenize.OP,
}


def to_source(funcs, docstring, imports=()):
    """The emitted module's source, and [[row, line of f]] for its rows that come from one;
    `imports`: those f makes in its body (imports.py), after srcdiff's own."""
    own = "".join(line + "\n" for line in imports if line + "\n" not in IMPORTS)
    source, lines = f'"""{docstring}"""\n{IMPORTS}{own}\n\n', []
    for func in funcs:
        text, rows = function_source(func)
        source += "\n\n" if func is not funcs[0] else ""
        offset = source.count("\n")
        lines += [[offset + row, line] for row, line in sorted(rows.items())]
        source += text
    return source, lines


def function_source(func):
    """A gast FunctionDef's text and {row of it: line of f}, as source_and_lines gives them:
    written by unparse.py, or by astor for the statements unparse.py does not write."""
    try:
        return _joined(*unparse.rows(func))
    except unparse.Unsupported:
        return source_and_lines(ast.Module(body=[conversion.gast_to_ast(func)], type_ignores=[]))


def as_printed(funcs):
    """Make the gast FunctionDefs `funcs` (in place) the trees the parse of their printed
    source gives, but for line numbers (their statements keep those of f): a number printed
    with a sign or in brackets becomes what it prints as (`-1` is -(1)), a `del` of several
    names that is broken over lines (`del (a, ...)`) a `del` of one tuple, and each node
    found again after its first place a copy of it (the parse has a node for each place)."""
    seen = set()
    for func in funcs:
        _printed_block([func], 0, seen)


def _printed_block(body, depth, seen):
    for index, stmt in enumerate(body):
        body[index] = _printed(stmt, depth, seen)


def _printed(node, depth, seen):
    """`node` as printed at indent `depth` (a statement's), its children made so."""
    if id(node) in seen:
        node = ir.copy_tree(node)
    seen.add(id(node))
    kind = node.__class__
    if kind is gast.Name and node.__dict__.get("annotation") is None:
        return node  # (the commonest nodes first: a Name holds nothing printed otherwise)
    if kind is gast.BinOp:
        node.left = _printed(node.left, depth, seen)
        node.right = _printed(node.right, depth, seen)
        return node
    if kind is gast.Constant:
        return _printed_number(node)
    if kind is gast.Delete and len(node.targets) > 1:
        _bracketed_del(node, depth)
    fields = node.__dict__
    for field in node._fields:
        value = fields.get(field)
        if value.__class__ is list:
            if field in _BLOCKS and value and isinstance(value[0], gast.stmt):
                elif_ = kind is gast.If and field == "orelse" and len(value) == 1
                elif_ = elif_ and value[0].__class__ is gast.If  # (printed at the if's indent)
                _printed_block(value, depth if elif_ else depth + 1, seen)
                continue
            for index, item in enumerate(value):
                if isinstance(item, gast.AST) and item._fields:
                    value[index] = _printed(item, depth, seen)
        elif isinstance(value, gast.AST) and value._fields:  # (not a context or operator)
            fields[field] = _printed(value, depth, seen)
    return node


_BLOCKS = frozenset({"body", "orelse", "finalbody", "handlers"})


def _printed_number(node):
    """A Constant as its printed text parses: a negative number, a complex one with a real
    part, nan (`(1e1000-1e1000)`) become the operations they print as."""
    value = node.value
    kind = value.__class__
    if kind is int:
        plain = value >= 0
    elif kind is float:
        plain = value > 0 or value == 0 and math.copysign(1.0, value) > 0
    else:
        plain = kind is not complex
    if plain:
        return node
    text = unparse.number(value)
    return conversion.ast_to_gast(ast.parse(text, mode="eval")).body


def _bracketed_del(node, depth):
    """`del a, b` printed longer than a line is `del (a, b)`, broken in the brackets
    (wrap, _bare_sequence): a del of one tuple."""
    if not all(t.__class__ is gast.Name for t in node.targets):
        return
    text = f"{unparse.INDENT * depth}del {', '.join(t.id for t in node.targets)}"
    if len(text) > LINE_LIMIT:
        node.targets = [gast.Tuple(elts=node.targets, ctx=gast.Del())]


def definitions(source):
    """The function definitions of an emitted module, without its docstring and imports."""
    return source.split(IMPORTS, 1)[1].lstrip("\n")


def compile_module(source, filename, scope, first_line=1, origin=None, bare=None):
    """Execute emitted source in `scope` (its globals from then on) and return it (the
    source compiled by `compiled`)."""
    exec(compiled(source, filename, first_line, origin, bare)[0], scope)
    return scope


def compiled(source, filename, first_line=1, origin=None, bare=None):
    """The code object of emitted source, to run as a module, and (with `bare`) the code
    of the default values it leaves out (what names they read: provenance.global_reads).

    The source is registered with linecache, so tracebacks and pdb show emitted lines even when
    no file with that name exists; `origin`, (f's file, {row: line of f}), lets an error
    raised in it name the line of f it comes from (user_line). `bare`, (a function's name,
    f's parameters): the defaults of that function, if it takes them, are not evaluated
    (they are f's, given after: their expressions may name what this scope lacks, an
    enclosing function's local)."""
    text = "\n" * (first_line - 1) + source
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    if origin is not None:
        _ORIGINS[filename] = (
            origin[0],
            {row + first_line - 1: line for row, line in origin[1].items()},
        )
    if bare is None:
        return (compile(text, filename, "exec"),)
    module, left_out = _without_defaults(ast.parse(text, filename), *bare)
    values = ast.fix_missing_locations(ast.Expression(ast.Tuple(elts=left_out, ctx=ast.Load())))
    return compile(module, filename, "exec"), compile(values, filename, "eval")


def takes_parameters(parameters, of):
    """Whether a function of these parameters, (positional names, keyword-only names), takes
    those of f last (a JVP's tangents come first)."""
    (positional, keyword), (f_positional, f_keyword) = parameters, of
    return (
        keyword == f_keyword and positional[len(positional) - len(f_positional) :] == f_positional
    )


def _without_defaults(module, name, parameters):
    """(`module` with the defaults of function `name` taking f's `parameters` made None,
    the expressions left out)."""
    left_out = []
    for node in module.body:
        args = node.args if isinstance(node, ast.FunctionDef) else None
        if (
            args is not None
            and node.name == name
            and takes_parameters(
                (
                    tuple(a.arg for a in args.posonlyargs + args.args),
                    tuple(a.arg for a in args.kwonlyargs),
                ),
                parameters,
            )
        ):
            left_out += args.defaults + [d for d in args.kw_defaults if d is not None]
            args.defaults = [ast.copy_location(ast.Constant(None), d) for d in args.defaults]
            args.kw_defaults = [
                d and ast.copy_location(ast.Constant(None), d) for d in args.kw_defaults
            ]
    return module, left_out


# emitted file -> (the user's file, {emitted row: its line}), for every module compiled
_ORIGINS = {}


def is_emitted(filename):
    """Whether `filename` names a module of emitted code."""
    return filename in _ORIGINS


def original_line(filename, lineno):
    """(file, line) that line `lineno` of `filename` comes from: of emitted code, the line of
    f it was made from, and so on down to code no srcdiff emitted (a derivative of a
    derivative maps to the first derivative's code, and that to f's); unchanged if none."""
    while filename in _ORIGINS and lineno in _ORIGINS[filename][1]:
        filename, lineno = _ORIGINS[filename][0], _ORIGINS[filename][1][lineno]
    return filename, lineno


def user_line(traceback):
    """(file, line) of f that the innermost emitted line in `traceback` comes from, or None;
    the line calling a library function srcdiff follows as Python, not that Python's."""
    found = None
    while traceback is not None:
        origin = _ORIGINS.get(traceback.tb_frame.f_code.co_filename)
        if origin is not None and traceback.tb_lineno in origin[1]:
            line = original_line(traceback.tb_frame.f_code.co_filename, traceback.tb_lineno)
            found = found if line[0] == python_versions.__file__ else line
        traceback = traceback.tb_next
    return found


def user_location(filename, lineno):
    """The errors.Location of line `lineno` of `filename`, or of emitted code, of the line
    of f it comes from."""
    filename, lineno = original_line(filename, lineno)
    return Location(filename, lineno, linecache.getline(filename, lineno).rstrip())


def name_user_line(exc):
    """Add to an error raised in emitted code the line of the user's function it comes from."""
    found = user_line(exc.__traceback__)
    if found is not None and hasattr(exc, "add_note"):  # (Python 3.11+)
        filename, lineno = found
        exc.add_note(
            f"srcdiff: raised by the code emitted for {filename}:{lineno}: "
            f"{linecache.getline(filename, lineno).strip()}"
        )


def located_in_user_code(transformer):
    """An error met transforming emitted code (a derivative differentiated again) names the
    line of f that code was made from, not the emitted file's."""

    @functools.wraps(transformer)
    def located(*args, **kwargs):
        try:
            return transformer(*args, **kwargs)
        except SrcdiffError as exc:
            emitted = exc.location
            if emitted is not None and is_emitted(emitted.filename):
                exc.message += (
                    f" (in the code srcdiff emitted for this line: {emitted.line.strip()})"
                )
                exc.locate(user_location(emitted.filename, emitted.lineno))
            raise

    return located
