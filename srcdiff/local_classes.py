"""The classes of the objects f makes itself, by the local names that hold them (for
parse.ParsedFunction.local_classes): methods of those objects are followed as an object
argument's are, the class found again by the name f calls it by."""

import collections
import inspect

import gast

from . import ir


def local_classes(parsed, census):
    """name -> (class, the dotted name the code calls it by), of the local names that every
    assignment binds to an object a call of one class of the user's makes (`layer =
    Dense(W, b)`, or srcdiff's runtime.replaced of one), or that loop over a list of such
    objects f makes (`for layer in [Dense(W, b) for W, b in params]`): calls of their
    methods are followed as an object argument's are. `census`: the function's nodes by
    kind (parse._Census)."""
    found, other = {}, set(parsed.statics)
    bound = set()
    lists = _lists_of_made_objects(parsed, census)
    for n in census.assigns + census.loops:
        made = _assigned_made(parsed, n, lists)
        if made is not None:
            target, cls = made
            bound.add(id(target))
            if cls is None or found.setdefault(target.id, cls)[0] is not cls[0]:
                other.add(target.id)
    for n in census.written:
        if id(n) not in bound:
            other.add(n.id)
    args = parsed.node.args
    other |= {a.id for a in args.posonlyargs + args.args + args.kwonlyargs if a is not None}
    return {name: cls for name, cls in found.items() if name not in other}


def name_made_receivers(parsed, fresh):
    """`Model(p).loss(x)`, a method called on an object made there of a class of the
    user's, always run: the object is named first (`_model0 = Model(p)`, then
    `_model0.loss(x)`), so that its method is followed as a named object's is. Whether any
    was (the caller works out the local classes again)."""
    if not any(  # (most functions have none: one plain walk to tell)
        n.value.__class__ is gast.Call for n in ir.nodes_of(parsed.node, _ATTRIBUTES)
    ):
        return False
    changed = False
    for block in _statement_lists(parsed.node.body):
        out = []
        for stmt in block:
            expression = stmt.test if isinstance(stmt, gast.If) else getattr(stmt, "value", None)
            if isinstance(stmt, _SIMPLE) and expression is not None:
                for node, always in ir.in_evaluation_order(expression):
                    made = _receiver_made(parsed, node) if always else None
                    if made is not None:
                        name = fresh("_" + made[0].__name__.lower())
                        out.append(gast.copy_location(ir.assign(name, node.func.value), stmt))
                        node.func.value = ir.name(name)
                        changed = True
            out.append(stmt)
        block[:] = out
    return changed


_SIMPLE = (gast.Assign, gast.AugAssign, gast.Return, gast.Expr, gast.If)
_ATTRIBUTES = frozenset((gast.Attribute,))


def _statement_lists(body):
    """`body` and the statement lists nested in it (of ifs, loops, with and try blocks)."""
    yield body
    for stmt in body:
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(stmt, field, None), list) and not isinstance(
                stmt, (gast.FunctionDef, gast.ClassDef)
            ):
                yield from _statement_lists(getattr(stmt, field))
        for handler in getattr(stmt, "handlers", None) or ():
            yield from _statement_lists(handler.body)


def _receiver_made(parsed, node):
    """The class whose object `node`, a method call, is called on, where the object is made
    right there (`Model(p).loss(x)`); else None."""
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute):
        return made_class(parsed, node.func.value)
    return None


def _assigned_made(parsed, node, lists):
    """(the name `node` binds, the class of what it binds it to or None), of an assignment
    to one name or a loop over a list of made objects by one name; else None."""
    if isinstance(node, gast.Assign) and len(node.targets) == 1:
        target, value = node.targets[0], node.value
        return (target, made_class(parsed, value)) if isinstance(target, gast.Name) else None
    if isinstance(node, (gast.For, gast.comprehension)) and isinstance(node.target, gast.Name):
        listed = _list_iterated(parsed, node.iter)
        if listed in lists:
            return node.target, lists[listed]
    return None


def _list_iterated(parsed, node):
    """The name of the list a loop over `node` takes its items from, in some order: `xs`,
    `reversed(xs)`, `xs[1:]`; else None."""
    while True:
        if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Slice):
            node = node.value
        elif (
            isinstance(node, gast.Call)
            and len(node.args) == 1
            and parsed.container(node.func) is reversed
        ):
            node = node.args[0]
        else:
            return node.id if isinstance(node, gast.Name) else None


def _lists_of_made_objects(parsed, census):
    """name -> (class, dotted name), of the local names bound once, to a list of objects
    made by calls of that class (a display or a comprehension), and never changed."""
    made, seen = {}, set()
    for n in census.assigns:
        if len(n.targets) == 1:
            target = n.targets[0]
            if isinstance(target, gast.Name) and target.id not in seen:
                items = (
                    [n.value.elt]
                    if isinstance(n.value, gast.ListComp)
                    else n.value.elts
                    if isinstance(n.value, (gast.List, gast.Tuple)) and n.value.elts
                    else [None]
                )
                classes = {made_class(parsed, item) for item in items}
                if len(classes) == 1 and None not in classes:
                    made[target.id] = classes.pop()
                seen.add(target.id)
    stores = collections.Counter(n.id for n in census.written if isinstance(n.ctx, gast.Store))
    return {
        name: cls for name, cls in made.items() if name not in census.changed and stores[name] == 1
    }


def made_class(parsed, value):
    """(the user's class whose call makes `value`, the dotted name called), else None."""
    if not isinstance(value, gast.Call):
        return None
    if ir.dotted(value.func) == ("runtime", "replaced") and value.args:
        return made_class(parsed, value.args[0])
    cls, path = parsed.container(value.func), ir.dotted(value.func)
    user = inspect.isclass(cls) and cls.__module__.split(".")[0] not in ("builtins", "numpy")
    return (cls, ".".join(path)) if user and path else None
