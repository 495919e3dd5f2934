"""A gast function written as astor writes its ast, with the line of f each row comes from
(what codegen.py reads off astor's `# line: N` marks), for the statements and expressions
emitted code is made of, at a fraction of astor's cost (its generic visitor, precedence
attributes set on every node, and the gast -> ast conversion before it cost a long
function's transform as much as its reverse sweep). Anything else raises Unsupported, and
astor writes it."""

import math

import gast
from astor.op_util import op_data

_PRECEDENCE = {name: precedence for name, _, precedence in op_data}
_SYMBOL = {name: symbol for name, symbol, _ in op_data}
_HIGHEST = max(_PRECEDENCE.values()) + 2  # (astor's, for a node no parent gave one)
_COMMA, _ONE_ARGUMENT = _PRECEDENCE["Comma"], _PRECEDENCE["call_one_arg"]
INDENT = "    "


class Unsupported(Exception):
    """A node this module does not write (astor does)."""


def rows(func):
    """The rows of the gast FunctionDef `func` as astor writes its ast, each ending in a
    newline, and for each the line of f its statement comes from: that statement's line
    number (0 if none), and 0 for a row that starts no statement (`else:`)."""
    lines = []
    _function(func, 0, lines)
    texts, origins, origin = [], [], 0
    for line in lines:
        if line.__class__ is int:  # (a statement's line, given before its first row)
            origin = line
            continue
        texts.append(line + "\n")
        origins.append(origin)
        origin = 0
    return texts, origins


def _mark(stmt):
    return getattr(stmt, "lineno", None) or 0


def _function(node, depth, lines):
    if node.decorator_list or node.returns is not None or getattr(node, "type_params", None):
        raise Unsupported(node)
    if depth:
        lines.append("")  # (astor's blank line before a nested def, none after it)
    lines.append(_mark(node))
    lines.append(f"{INDENT * depth}def {node.name}({_arguments(node.args)}):")
    _block(node.body, depth + 1, lines)


def _arguments(args):
    parts = []

    def each(names, defaults):
        padding = [None] * (len(names) - len(defaults))
        for name, default in zip(names, padding + defaults):
            if not isinstance(name, gast.Name) or name.annotation is not None:
                raise Unsupported(name)
            parts.append(name.id if default is None else f"{name.id}={_expr(default, _COMMA)}")

    offset = 0
    if args.posonlyargs:
        offset = len(args.defaults) - len(args.args)
        each(args.posonlyargs, args.defaults[:offset])
        parts.append("/")
    each(args.args, args.defaults[offset:])
    if args.vararg is not None:
        parts.append("*" + _parameter(args.vararg))
    if args.kwonlyargs:
        if args.vararg is None:
            parts.append("*")
        each(args.kwonlyargs, args.kw_defaults)
    if args.kwarg is not None:
        parts.append("**" + _parameter(args.kwarg))
    return ", ".join(parts)


def _parameter(name):
    if name.annotation is not None:
        raise Unsupported(name)
    return name.id


def _block(body, depth, lines):
    for stmt in body:
        _STATEMENTS.get(stmt.__class__, _unsupported)(stmt, depth, lines)


def _simple(stmt, depth, lines, text):
    lines.append(_mark(stmt))
    lines.append(INDENT * depth + text)


def _assign(stmt, depth, lines):
    p = _PRECEDENCE["Assign"]
    targets = "".join(_expr(t, p) + " = " for t in stmt.targets)
    _simple(stmt, depth, lines, targets + _expr(stmt.value, p))


def _aug_assign(stmt, depth, lines):
    p = _PRECEDENCE["AugAssign"]
    symbol = _SYMBOL[stmt.op.__class__.__name__]
    _simple(stmt, depth, lines, f"{_expr(stmt.target, p)} {symbol}= {_expr(stmt.value, p)}")


def _return(stmt, depth, lines):
    value = "" if stmt.value is None else " " + _expr(stmt.value, _PRECEDENCE["Return"])
    _simple(stmt, depth, lines, "return" + value)


def _expression(stmt, depth, lines):
    _simple(stmt, depth, lines, _expr(stmt.value, _PRECEDENCE["Expr"]))


def _delete(stmt, depth, lines):
    _simple(stmt, depth, lines, "del " + ", ".join(_expr(t, _COMMA) for t in stmt.targets))


def _keyword_statement(word):
    return lambda stmt, depth, lines: _simple(stmt, depth, lines, word)


def _if(stmt, depth, lines):
    _simple(stmt, depth, lines, f"if {_expr(stmt.test, _PRECEDENCE['If'])}:")
    _block(stmt.body, depth + 1, lines)
    while len(stmt.orelse) == 1 and stmt.orelse[0].__class__ is gast.If:
        stmt = stmt.orelse[0]  # (astor marks no line for an elif)
        lines.append(f"{INDENT * depth}elif {_expr(stmt.test, _PRECEDENCE['If'])}:")
        _block(stmt.body, depth + 1, lines)
    _else(stmt.orelse, depth, lines)


def _else(orelse, depth, lines):
    if orelse:
        lines.append(INDENT * depth + "else:")
        _block(orelse, depth + 1, lines)


def _for(stmt, depth, lines):
    if stmt.type_comment is not None:
        raise Unsupported(stmt)
    target = _expr(stmt.target, _PRECEDENCE["For"])
    iterated = _expr(stmt.iter, _PRECEDENCE["comprehension"])  # (`for x in xs * 2:`)
    _simple(stmt, depth, lines, f"for {target} in {iterated}:")
    _block(stmt.body, depth + 1, lines)
    _else(stmt.orelse, depth, lines)


def _while(stmt, depth, lines):
    _simple(stmt, depth, lines, f"while {_expr(stmt.test, _PRECEDENCE['While'])}:")
    _block(stmt.body, depth + 1, lines)
    _else(stmt.orelse, depth, lines)


def first_row(stmt, depth):
    """The row `stmt` starts with (a compound statement's header) at `depth`, as written;
    None if this module does not write it."""
    lines = []
    try:
        _STATEMENTS.get(stmt.__class__, _unsupported)(stmt, depth, lines)
    except Unsupported:
        return None
    return lines[1]


def _unsupported(node, *_):
    raise Unsupported(node)


_STATEMENTS = {
    gast.Assign: _assign,
    gast.AugAssign: _aug_assign,
    gast.Return: _return,
    gast.Expr: _expression,
    gast.Delete: _delete,
    gast.Pass: _keyword_statement("pass"),
    gast.Break: _keyword_statement("break"),
    gast.Continue: _keyword_statement("continue"),
    gast.If: _if,
    gast.For: _for,
    gast.While: _while,
    gast.FunctionDef: _function,
}


# --- expressions: astor's precedence rules (a node is bracketed when its own precedence is
# below the one its parent gives it) --------------------------------------------------------


def expression(node):
    """The text of the expression `node` (as gast.unparse writes it, but for redundant
    brackets): for the paths the transform keeps, without the ~6 ms gast's unparser costs
    to import on a first transform."""
    try:
        return _expr(node, _PRECEDENCE["Expr"])
    except Unsupported:
        return gast.unparse(node)


def _expr(node, given):
    return _EXPRESSIONS.get(node.__class__, _unsupported)(node, given)


def _bracketed(text, precedence, given):
    return text if precedence >= given else f"({text})"


def _name(node, given):
    return node.id


def _constant(node, given):
    value = node.value
    if isinstance(value, (int, float, complex)):
        return _bracketed(number(value), _PRECEDENCE["Constant"], given)
    if isinstance(value, str):
        # astor writes a string on one line inside an expression as its repr
        if "\n" in value or node.kind or given <= _PRECEDENCE["Expr"]:
            raise Unsupported(node)
        return repr(value)
    return "..." if value is Ellipsis else repr(value)


def number(value):
    if isinstance(value, complex):
        real, imaginary = _real_part(value.real, ""), _real_part(value.imag, "j")
        if value.real == 0:
            return imaginary
        if value.imag == 0:
            return f"({real}+0j)"
        return f"({real}{'' if imaginary.startswith('-') else '+'}{imaginary})"
    return _real_part(value, "")


def _real_part(value, suffix):
    if isinstance(value, float) and math.isinf(value):
        return ("-1e1000" if value < 0 else "1e1000") + suffix
    if isinstance(value, float) and math.isnan(value):
        return f"(1e1000{suffix}-1e1000{suffix})"
    return repr(value) + suffix


def _attribute(node, given):
    return f"{_expr(node.value, _HIGHEST)}.{node.attr}"


def _call(node, given):
    count = len(node.args) + len(node.keywords)
    p = _COMMA if count > 1 else _ONE_ARGUMENT
    parts = [_expr(a, p) for a in node.args]
    for keyword in node.keywords:
        value = _expr(keyword.value, _COMMA)
        parts.append(f"{keyword.arg}={value}" if keyword.arg else "**" + value)
    return f"{_expr(node.func, _HIGHEST)}({', '.join(parts)})"


def _starred(node, given):
    return "*" + _expr(node.value, _HIGHEST)


def _binop(node, given):
    name = node.op.__class__.__name__
    p = _PRECEDENCE[name]
    power = name == "Pow"
    left = _expr(node.left, _PRECEDENCE["Pow"] + 1 if power else p + _mixed(node.left, node.op))
    right = _expr(node.right, _PRECEDENCE["PowRHS"] if power else p + 1)
    return _bracketed(f"{left} {_SYMBOL[name]} {right}", p, given)


def _mixed(left, op):
    """1 when `left` is a product of matrices under an elementwise one (`(x @ w) * y`) or the
    other way about (`(x * y) @ w`): brackets no rule needs, but a reader does."""
    if left.__class__ is not gast.BinOp:
        return 0
    kinds = left.op.__class__.__name__, op.__class__.__name__
    same = _PRECEDENCE[kinds[0]] == _PRECEDENCE[kinds[1]]
    return int(same and (kinds[0] == "MatMult") is not (kinds[1] == "MatMult"))


def _boolop(node, given):
    name = node.op.__class__.__name__
    p = _PRECEDENCE[name]
    text = f" {_SYMBOL[name]} ".join(_expr(v, p + 1) for v in node.values)
    return _bracketed(text, p, given)


def _compare(node, given):
    p = _PRECEDENCE[node.ops[0].__class__.__name__]
    text = _expr(node.left, p + 1) + "".join(
        f" {_SYMBOL[op.__class__.__name__]} {_expr(right, p + 1)}"
        for op, right in zip(node.ops, node.comparators)
    )
    return _bracketed(text, p, given)


def _unaryop(node, given):
    name = node.op.__class__.__name__
    p, symbol = _PRECEDENCE[name], _SYMBOL[name]
    text = symbol + (" " if symbol.isalpha() else "") + _expr(node.operand, p)
    return _bracketed(text, p, given)


def _ifexp(node, given):
    p = _PRECEDENCE["IfExp"]
    body, test = _expr(node.body, p + 1), _expr(node.test, p + 1)
    return _bracketed(f"{body} if {test} else {_expr(node.orelse, p)}", p, given)


def _lambda(node, given):
    args = node.args
    if args.posonlyargs or args.vararg or args.kwonlyargs or args.kwarg or args.defaults:
        raise Unsupported(node)
    p = _PRECEDENCE["Lambda"]
    names = ", ".join(a.id for a in args.args)
    return _bracketed(f"lambda{' ' if names else ''}{names}: {_expr(node.body, p)}", p, given)


def _tuple(node, given):
    items = [_expr(e, _COMMA) for e in node.elts]
    text = ", ".join(items) + ("," if len(items) == 1 else "")
    return text if items and _PRECEDENCE["Tuple"] >= given else f"({text})"


def _list(node, given):
    return "[" + ", ".join(_expr(e, _COMMA) for e in node.elts) + "]"


def _dict(node, given):
    items = [
        ("**" if key is None else _expr(key, _HIGHEST) + ": ") + _expr(value, _COMMA)
        for key, value in zip(node.keys, node.values)
    ]
    return "{" + ", ".join(items) + "}"


def _set(node, given):
    return (
        "{" + ", ".join(_expr(e, _COMMA) for e in node.elts) + "}"
        if node.elts
        else "{1}.__class__()"
    )


def _subscript(node, given):
    return f"{_expr(node.value, _HIGHEST)}[{_expr(node.slice, _PRECEDENCE['Subscript'])}]"


def _slice(node, given):
    p = _PRECEDENCE["Slice"]
    text = ("" if node.lower is None else _expr(node.lower, p)) + ":"
    text += "" if node.upper is None else _expr(node.upper, p)
    if node.step is not None:
        step = node.step
        text += ":" + ("" if step.__class__ is gast.Name and step.id == "None" else _expr(step, p))
    return text


def _comprehensions(generators):
    text = ""
    for generator in generators:
        if generator.is_async:
            raise Unsupported(generator)
        p = _PRECEDENCE["comprehension"]
        target = _expr(generator.target, _PRECEDENCE["comprehension_target"])
        text += f" for {target} in {_expr(generator.iter, p)}"
        text += "".join(f" if {_expr(condition, p)}" for condition in generator.ifs)
    return text


def _list_comprehension(node, given):
    return f"[{_expr(node.elt, _HIGHEST)}{_comprehensions(node.generators)}]"


def _set_comprehension(node, given):
    return f"{{{_expr(node.elt, _HIGHEST)}{_comprehensions(node.generators)}}}"


def _dict_comprehension(node, given):
    key, value = _expr(node.key, _HIGHEST), _expr(node.value, _HIGHEST)
    return f"{{{key}: {value}{_comprehensions(node.generators)}}}"


def _generator(node, given):
    text = _expr(node.elt, _COMMA) + _comprehensions(node.generators)
    p = _PRECEDENCE["GeneratorExp"]
    return text if p >= given or given == _ONE_ARGUMENT else f"({text})"


_EXPRESSIONS = {
    gast.Name: _name,
    gast.Constant: _constant,
    gast.Attribute: _attribute,
    gast.Call: _call,
    gast.Starred: _starred,
    gast.BinOp: _binop,
    gast.BoolOp: _boolop,
    gast.Compare: _compare,
    gast.UnaryOp: _unaryop,
    gast.IfExp: _ifexp,
    gast.Lambda: _lambda,
    gast.Tuple: _tuple,
    gast.List: _list,
    gast.Dict: _dict,
    gast.Set: _set,
    gast.Subscript: _subscript,
    gast.Slice: _slice,
    gast.ListComp: _list_comprehension,
    gast.SetComp: _set_comprehension,
    gast.DictComp: _dict_comprehension,
    gast.GeneratorExp: _generator,
}
