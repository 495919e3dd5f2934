"""The Name nodes below a node, and the names read and written there: the walk the passes
ask of every statement, some of them twice (ir re-exports these, as the passes ask ir)."""

import gast

_AST, _NAME = gast.AST, gast.Name
_BINOP, _ATTRIBUTE, _CONSTANT = gast.BinOp, gast.Attribute, gast.Constant


def name_nodes(node):
    """The Name nodes anywhere below `node` (a parameter's too), in no particular order."""
    return _names_below(node)


def names_in(node, ctx=gast.Load):
    """The ids of the names read (or stored, with ctx=gast.Store) anywhere below `node`."""
    return {name.id for name in _names_below(node) if isinstance(name.ctx, ctx)}


class NameNodes:
    """The Name nodes below each node asked about, found once: dead code's liveness and
    then copy propagation's index ask of each statement, which neither changes (a node is
    kept beside its own: its id may be another's once it is freed)."""

    def __init__(self):
        self.found = {}

    def __call__(self, node):
        found = self.found.get(id(node))
        if found is None or found[0] is not node:
            found = self.found[id(node)] = node, _names_below(node)
        return found[1]


def nodes_of(node, kinds):
    """The nodes of `kinds` (a frozenset of node classes, Name not among them) in and below
    `node`, in walk's order: the walk names_in makes, cheaper than ir.walk's for a look
    for a few kinds of node through a whole function."""
    found = []
    names_under([node], kinds, found)
    return found


def reads_and_writes(node, kinds=frozenset()):
    """(the ids of the names read, those stored or deleted) anywhere below `node`, in one
    visit; and, where `kinds` (node classes) is given, the nodes of those kinds below it."""
    read, written = set(), set()
    found = [] if kinds else None
    for name in _names_below(node, kinds, found):
        if isinstance(name.ctx, gast.Load):
            read.add(name.id)
        elif isinstance(name.ctx, (gast.Store, gast.Del)):
            written.add(name.id)
    return (read, written, found) if kinds else (read, written)


def _names_below(node, kinds=frozenset(), found=None):
    """The Name nodes below `node`; the nodes of `kinds` among them are added to `found`."""
    return names_under([node], kinds, found)


def names_under(todo, kinds=frozenset(), found=None):
    """The Name nodes in and below the nodes `todo` (a list it extends as it walks: walk's
    loop, inlined, as the passes ask this of every statement, some of them twice); the nodes
    of `kinds` among them are added to `found`. A Name's context and the like hold none:
    only a parameter's annotation is looked into, and no node without fields (a context,
    an operator). The commonest nodes of arithmetic are taken apart directly (in their
    fields' order): the generic look at each field costs most of the walk."""
    names = []
    for current in todo:
        kind = current.__class__
        if kind is _NAME:
            names.append(current)
            annotation = current.__dict__.get("annotation")
            if annotation is not None:  # (a parameter's)
                todo.append(annotation)
            continue
        if kind in kinds:
            found.append(current)
        if kind is _BINOP:
            todo.append(current.left)
            todo.append(current.right)
            continue
        if kind is _ATTRIBUTE:
            todo.append(current.value)
            continue
        if kind is _CONSTANT:
            continue
        values = current.__dict__
        for name in current._fields:
            value = values.get(name)
            if value.__class__ is list:
                todo.extend([item for item in value if isinstance(item, _AST)])
            elif isinstance(value, _AST) and value.__class__ not in FIELDLESS:
                todo.append(value)
    return names


# nodes without fields (contexts, operators): names_in need not visit them
FIELDLESS = frozenset(
    kind
    for kind in vars(gast).values()
    if isinstance(kind, type) and issubclass(kind, _AST) and kind._fields == ()
)
