"""What container lowering (containers.py) reads off the code: the lengths of displays, the
lists a name copies, how a call or a target is shaped, and small tree edits."""

import ast
import builtins
import inspect
import textwrap

import gast

from . import ir, runtime
from .errors import UnsupportedError
from .sources import source_lines
from .statics import MISSING
from .primitives import registry


def display_lengths(func):
    """name -> (List or Tuple, length) for each name bound once, to a list or tuple display,
    that nothing changes afterwards (no method call on it, no item written)."""
    if not _assigns(func, (gast.List, gast.Tuple)):
        return {}
    stores, displays, changed = {}, {}, set()  # (one walk)
    for node in ir.walk(func):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif (
            isinstance(node, gast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], gast.Name)
            and isinstance(node.value, (gast.List, gast.Tuple))
            and not any(isinstance(e, gast.Starred) for e in node.value.elts)
        ):
            displays[node.targets[0].id] = (type(node.value), len(node.value.elts))
        elif (
            isinstance(node, (gast.Attribute, gast.Subscript))
            and isinstance(node.value, gast.Name)
            and (isinstance(node, gast.Attribute) or not isinstance(node.ctx, gast.Load))
        ):
            changed.add(node.value.id)
    return {
        name: held
        for name, held in displays.items()
        if stores.get(name) == 1 and (held[0] is gast.Tuple or name not in changed)
    }


def tuple_item_lengths(func, lengths):
    """(name, k) -> length for item k of a name `display_lengths` tells, bound to a display
    whose item k is a tuple display (params = [(W, b), (V, c)]: ("params", 0) -> 2); a
    tuple's items are never written, so a read of params[0] always has them."""
    found = {}
    for node in ir.walk_statements(func) if lengths else ():
        if (
            isinstance(node, gast.Assign)
            and len(node.targets) == 1
            and getattr(node.targets[0], "id", None) in lengths
            and isinstance(node.value, (gast.List, gast.Tuple))
        ):
            for k, item in enumerate(node.value.elts):
                if isinstance(item, gast.Tuple) and not any(
                    isinstance(e, gast.Starred) for e in item.elts
                ):
                    found[node.targets[0].id, k] = len(item.elts)
    return found


def _assigns(func, kinds):
    """Whether a statement of `func` assigns a value of `kinds` (node classes): a look at
    its statements alone, before a walk of all its nodes that looks for more."""
    return any(
        node.__class__ is gast.Assign and isinstance(node.value, kinds)
        for node in ir.walk_statements(func)
    )


def dict_names(func):
    """The names the code shows to hold a dict: bound to a dict display, comprehension or
    dict(...) call, indexed by a str, or asked for its keys, values, items or get."""
    names = set()
    for n in ir.walk(func):
        if isinstance(n, gast.Assign) and len(n.targets) == 1 and _makes_dict(n.value):
            names.add(getattr(n.targets[0], "id", None))
        elif (
            isinstance(n, gast.Subscript)
            and isinstance(n.slice, gast.Constant)
            and isinstance(n.slice.value, str)
        ):
            names.add(getattr(n.value, "id", None))
        elif isinstance(n, gast.Attribute) and n.attr in ("keys", "values", "items", "get"):
            names.add(getattr(n.value, "id", None))
    return names - {None}


def _makes_dict(value):
    return isinstance(value, (gast.Dict, gast.DictComp)) or (
        isinstance(value, gast.Call)
        and isinstance(value.func, gast.Name)
        and value.func.id == "dict"
    )


def copies_of_appended_lists(func):
    """name -> the list built with append that each of its assignments binds it to
    (`result = items`, as an inlined generator returns its items), through copies."""
    if not _assigns(func, gast.Name):
        return {}
    stores, copied, appended = {}, {}, set()  # (one walk)
    for node in ir.walk(func):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif (
            isinstance(node, gast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], gast.Name)
            and isinstance(node.value, gast.Name)
        ):
            copied.setdefault(node.targets[0].id, []).append(node.value.id)
        elif (
            isinstance(node, gast.Call)
            and isinstance(node.func, gast.Attribute)
            and node.func.attr == "append"
            and isinstance(node.func.value, gast.Name)
        ):
            appended.add(node.func.value.id)

    def source(name, seen):
        if name in appended or name in seen or len(copied.get(name, ())) != stores.get(name):
            return name
        found = {source(s, seen | {name}) for s in copied[name]}
        return found.pop() if len(found) == 1 else name

    return {
        name: held for name in copied if (held := source(name, set())) != name and held in appended
    }


def zip_star_error(where):
    return UnsupportedError(
        "this zip(*pieces) of differentiated values cannot be differentiated: srcdiff follows "
        "zip(*pieces) alone (its columns counted as it runs, columns = list(zip(*pieces))), "
        "and where the code says how many pieces there are (for a, b in zip(*pieces), A, B = "
        "zip(*pieces))",
        where,
        "write one of those, or index the pieces: zip(pieces[0], pieces[1], more)",
    )


def unpacks_zip_star(node):
    """Whether `node` is zip(*pieces) (pieces one starred argument)."""
    return (
        isinstance(node, gast.Call)
        and isinstance(node.func, gast.Name)
        and node.func.id == "zip"
        and len(node.args) == 1
        and isinstance(node.args[0], gast.Starred)
        and not node.keywords
    )


def is_call(node, builtin, resolve):
    return isinstance(node, gast.Call) and resolve(node.func) is getattr(builtins, builtin)


def names_taking(target, it, taken, resolve):
    """The names of loop target `target` that take the items of what `taken(...)` says is
    the sequence looped over: `it` itself, or one of the sequences of an enumerate, zip or
    reversed of it (`for k, key in enumerate(keys)`, `for key, v in zip(keys, values)`)."""
    if taken(it):
        return [target.id] if isinstance(target, gast.Name) else []
    if not isinstance(it, gast.Call) or it.keywords or not it.args:
        return []
    if is_call(it, "reversed", resolve) and len(it.args) == 1:
        return names_taking(target, it.args[0], taken, resolve)
    if not isinstance(target, gast.Tuple):
        return []
    if is_call(it, "enumerate", resolve) and len(it.args) == 1 and len(target.elts) == 2:
        return names_taking(target.elts[1], it.args[0], taken, resolve)
    if is_call(it, "zip", resolve) and len(it.args) == len(target.elts):
        return [
            name
            for elt, piece in zip(target.elts, it.args)
            for name in names_taking(elt, piece, taken, resolve)
        ]
    return []


def bound_to(node, stmt):
    """The name `stmt` binds `node` to (`keys = node`, `keys, names = node, other`)."""
    if not isinstance(stmt, gast.Assign) or len(stmt.targets) != 1:
        return None
    pairs = [(stmt.targets[0], stmt.value)]
    if (
        isinstance(stmt.value, gast.Tuple)
        and isinstance(stmt.targets[0], gast.Tuple)
        and len(stmt.value.elts) == len(stmt.targets[0].elts)
    ):
        pairs = zip(stmt.targets[0].elts, stmt.value.elts)
    return next((t.id for t, v in pairs if v is node and isinstance(t, gast.Name)), None)


def dict_view(node):
    """ "items" or "values" for d.items() / d.values() (or sorted(...) of one), else None."""
    if (
        isinstance(node, gast.Call)
        and isinstance(node.func, gast.Name)
        and node.func.id == "sorted"
        and len(node.args) == 1
        and not node.keywords
    ):
        node = node.args[0]
    if (
        isinstance(node, gast.Call)
        and isinstance(node.func, gast.Attribute)
        and node.func.attr in ("items", "values")
        and not node.args
        and not node.keywords
    ):
        return node.func.attr
    return None


def nested(target):
    """Whether an assignment target unpacks below one level, or has a starred part."""
    return isinstance(target, (gast.Tuple, gast.List)) and any(
        isinstance(e, (gast.Starred, gast.Tuple, gast.List)) for e in target.elts
    )


def label(target):
    return "_".join(n.id.lstrip("_") for n in ir.walk(target) if isinstance(n, gast.Name))


def as_store(target):
    """A copy of `target` (an expression) to assign to."""
    node = ir.copy_tree(target)
    parts = [node]
    while parts:
        part = parts.pop()
        part.ctx = gast.Store()
        if isinstance(part, (gast.Tuple, gast.List)):
            parts += part.elts
        elif isinstance(part, gast.Starred):
            parts.append(part.value)
    return node


def evaluation_order(stmt):
    """The nodes of a statement's own expressions (not of nested blocks), inner first."""

    def visit(node):
        for child in ir.children(node):
            if not isinstance(child, gast.stmt):
                yield from visit(child)
        yield node

    for field in ("value", "test", "iter", "targets", "target"):
        part = getattr(stmt, field, None)
        for node in part if isinstance(part, list) else [part] if part is not None else []:
            yield from visit(node)


# builtins whose result holds no argument itself (a copy, a count, a sum, a str)
_HOLDING_NOTHING = (len, sum, min, max, sorted, list, tuple, dict, set, print, isinstance, repr)


def may_return_what_it_is_passed(func, called):
    """Whether the callee `func` (what it resolves to: `called`, MISSING for a method of a
    local object) is a function or class of the user's, a method that is not numpy's (not a
    primitive, nor a runtime helper), or a primitive keeping what it is passed: its call may
    return a view of an array it is passed, or an object keeping one, which only the call
    can tell."""
    record = registry.find(called) if called is not MISSING else None
    if record is not None and record.keeps:
        return True
    if called is MISSING:
        return isinstance(func, gast.Attribute) and registry.method(func.attr) is None
    if inspect.isclass(called):
        return called.__module__.partition(".")[0] not in ("builtins", "numpy", "scipy")
    return inspect.isfunction(called) and record is None and not runtime.is_helper(called)


def keeps_no_argument(fn):
    """Whether a call of `fn` can leave nothing holding a container passed to it whole, so
    that a later write into the container may rebind it instead (containers.py): a builtin
    that copies or counts, a numpy function, or a Python function none of whose returns
    can be, or hold, what it was passed (read off its source)."""
    if any(fn is builtin for builtin in _HOLDING_NOTHING):
        return True
    if registry.find(fn) is not None or runtime.is_helper(fn):
        return True  # (a runtime helper returns new values: srcdiff/runtime's doc)
    if not inspect.isfunction(fn) or fn.__code__.co_flags & inspect.CO_GENERATOR:
        return False
    try:
        tree = ast.parse(textwrap.dedent("".join(source_lines(fn)[0])))
    except (OSError, TypeError, SyntaxError):
        return False
    func = tree.body[0]
    nested = [n for n in ast.walk(func) if n is not func]
    if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) for n in nested):
        return False  # (a closure may keep what it was passed)
    held = {a.arg for a in ast.walk(func.args) if isinstance(a, ast.arg)}
    while True:  # the names bound to what may hold an argument, to a fixed point
        more = {
            target.id
            for n in nested
            if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.NamedExpr))
            and _holds(getattr(n, "value", None) or getattr(n, "iter", None), held)
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
            for target in ast.walk(t)
            if isinstance(target, ast.Name)
        }
        if more <= held:
            break
        held |= more
    return not any(isinstance(n, ast.Return) and _holds(n.value, held) for n in nested)


def _holds(value, held):
    """Whether a Python expression's value may be, or hold, a value of the names `held`
    (an item, an attribute or arithmetic of one is not; a call may return what it is
    passed)."""
    if value is None or isinstance(
        value, (ast.Subscript, ast.Attribute, ast.BinOp, ast.UnaryOp, ast.Compare, ast.Constant)
    ):
        return False
    if isinstance(value, ast.Name):
        return value.id in held
    if isinstance(value, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return _holds(value.elt, held)
    if isinstance(value, ast.DictComp):
        return _holds(value.value, held)
    if isinstance(value, ast.Call):
        parts = value.args + [k.value for k in value.keywords]
        return any(_holds(part, held) for part in parts)
    return any(_holds(child, held) for child in ast.iter_child_nodes(value))


def spread_keyword_displays(keywords):
    """`keywords` with each `**{'a': u}` of a display of constant str keys (as the **kwargs
    of an inlined function becomes, passed on: `h(x, **kw)`) spread into `a=u`; as they are
    if a name would then be passed twice (a TypeError in Python)."""
    out = []
    for keyword in keywords:
        mapping = keyword.value
        if (
            keyword.arg is None
            and isinstance(mapping, gast.Dict)
            and all(isinstance(k, gast.Constant) and isinstance(k.value, str) for k in mapping.keys)
        ):
            out += [
                gast.keyword(arg=k.value, value=v) for k, v in zip(mapping.keys, mapping.values)
            ]
        else:
            out.append(keyword)
    names = [k.arg for k in out if k.arg is not None]
    return out if len(names) == len(set(names)) else keywords
