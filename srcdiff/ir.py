"""The normalised program the transforms work on, and small gast node builders.

After ANF every statement is one of the classes below; every operand of a differentiable
operation is a name or an inactive (non-differentiable) expression.
"""

import copy
import functools
import gc
from dataclasses import dataclass, field

import gast

from .errors import Location
from .name_walk import (  # noqa: F401  (the passes ask ir for them)
    FIELDLESS,
    NameNodes,
    name_nodes,
    names_in,
    nodes_of,
    names_under,
    reads_and_writes,
)


@dataclass
class Assign:
    """`targets = value`; `primitive` (the record of what computes it, with its templates)
    is None when the value carries no gradient."""

    targets: list
    value: gast.expr
    loc: Location
    primitive: object = None
    bound: dict = None
    unpack: bool = False
    callee: "Callee" = None


@dataclass
class Callee:
    """A call to a differentiated user function: `targets = [result, saved]`, and the adjoint
    sweep calls `backward(b_result, saved)` for the adjoints of `atoms` (its active args)."""

    backward: str
    atoms: list
    saved: str
    grads: str  # what holds the adjoints backward returns, when they are taken one by one
    # nf.checkpoint: the forward call, made again in the adjoint sweep for `saved` (then the
    # forward sweep keeps the call's arguments instead)
    recompute: gast.Call = None

    def kept(self):
        """The names the adjoint of the call reads from the forward sweep."""
        if self.recompute is None:
            return {self.saved}
        return set().union(
            *(names_in(a) for a in self.recompute.args),
            *(names_in(k.value) for k in self.recompute.keywords),
        )


@dataclass
class SetItem:
    """`target[index] = value`, writing into an array the function created."""

    target: str
    index: gast.expr
    value: gast.expr
    loc: Location


@dataclass
class Push:
    """`stack.append(value)`: lists used as stacks (as emitted gradients do) carry adjoints
    and tangents on stacks of their own."""

    stack: str
    value: gast.expr
    loc: Location


@dataclass
class Pop:
    """`target = stack.pop()`."""

    target: str
    stack: str
    loc: Location


@dataclass
class If:
    test: str  # a variable holding the recorded condition
    body: list
    orelse: list
    loc: Location


@dataclass
class For:
    target: str
    iter: gast.expr  # a range(...) call or a name holding a range or list
    body: list
    loc: Location
    counter: str = None  # counts the iterations that ran, for a loop a `break` may leave


@dataclass
class Break:
    """`break` (desugar.py leaves only the ones that end a loop's iteration)."""

    loc: Location


@dataclass
class While:
    test: gast.expr
    body: list
    loc: Location
    counter: str


@dataclass
class Return:
    value: gast.expr
    loc: Location
    active: bool = True


@dataclass
class Statement:
    """A statement kept as written in the forward sweep only (assert, raise, a bare call).
    `changes`: the names whose arrays it writes into in place (buf[:] = 0, buf.fill(0));
    `seen_by`: the names that may share their memory; `left`: (name, f's name for it) of
    those of `changes` whose values the derivative must leave as the write leaves them (the
    caller's arrays), or cannot copy and put back (not surely arrays)."""

    node: gast.stmt
    loc: Location
    changes: tuple = ()
    seen_by: tuple = ()
    left: tuple = ()


@dataclass
class Function:
    name: str
    args: gast.arguments
    body: list
    params: list
    active: set = field(default_factory=set)


class Names:
    """The names a function and the code emitted from it use: fresh ones never clash."""

    def __init__(self, node, used=None):
        """`used`: the names in and below `node`, where the caller has them already."""
        self.used = {n.id for n in names_under([node])} if used is None else used
        self.counters = {}
        self.versions = {}  # each version of a variable made -> the variable

    def version(self, original):
        """A new name `original_<n>` for a new value of the variable `original`, n the
        least not in use (names are never given back, so the search goes on from the last
        one found: versions of one name cost O(1) each)."""
        name = self.numbered(original)
        self.versions[name] = original
        return name

    def numbered(self, base):
        """A new name `base_<n>` of its own: not a version of a variable (another inlining's
        local, the saved values of a second call), whose number stays."""
        n = self.counters.get((base, "_"), 1)
        while f"{base}_{n}" in self.used:
            n += 1
        self.counters[(base, "_")] = n
        self.used.add(f"{base}_{n}")
        return f"{base}_{n}"

    def named(self, base):
        """`base` itself while no name in use is `base`, else a numbered one of its own."""
        if base not in self.used:
            self.used.add(base)
            return base
        return self.numbered(base)

    def fresh(self, prefix):
        # (t0's first is t0_0, not t00, which reads as t's hundredth)
        joined = prefix + "_" if prefix[-1:].isdigit() else prefix
        while True:
            n = self.counters.get(prefix, 0)
            self.counters[prefix] = n + 1
            candidate = f"{joined}{n}"
            if candidate not in self.used:
                self.used.add(candidate)
                return candidate


def located(stmts, loc):
    """`stmts`, each statement in them marked with the user's line `loc` unless it (a nested
    one) already is: codegen maps emitted lines back to the lines of f they come from.
    (Statements only: walking their expressions too would cost more than the sweeps.)"""
    for stmt in stmts:
        if getattr(stmt, "lineno", None) is None:
            stmt.lineno = loc.lineno
        for block in ("body", "orelse"):
            located(getattr(stmt, block, ()), loc)
    return stmts


def name(id_, store=False):
    """gast.Name(id=id_, ctx=Load() or Store(), annotation=None, type_comment=None), its
    fields set directly: the stages make one for every name they write (gast's constructor,
    which takes them as keywords, costs nearly twice as much)."""
    ctx = _STORE if store else _LOAD
    node = _NAME.__new__(_NAME)
    node.__dict__.update(id=id_, ctx=ctx.__new__(ctx), annotation=None, type_comment=None)
    return node


def const(value):
    return gast.Constant(value=value, kind=None)


def attr(value, *names):
    node = name(value) if isinstance(value, str) else value
    for n in names:
        node = gast.Attribute(value=node, attr=n, ctx=gast.Load())
    return node


def call(func, *args, **keywords):
    func = attr(*func.split(".")) if isinstance(func, str) else func
    return gast.Call(
        func=func,
        args=list(args),
        keywords=[gast.keyword(arg=k, value=v) for k, v in keywords.items()],
    )


def assign(target, value):
    target = name(target, store=True) if isinstance(target, str) else target
    return gast.Assign(targets=[target], value=value, type_comment=None)


def subscript(name_, index, store=False):
    return gast.Subscript(
        value=name(name_), slice=copy_tree(index), ctx=gast.Store() if store else gast.Load()
    )


def root_name(node):
    """The name an expression reaches an array through (buf of buf[0].T), if any."""
    while isinstance(node, (gast.Subscript, gast.Attribute, gast.Starred)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def tuple_of(elts, store=False):
    return gast.Tuple(elts=list(elts), ctx=gast.Store() if store else gast.Load())


def op_symbol(op):
    """How Python spells a binary operator (for messages)."""
    return {
        gast.Add: "+",
        gast.Sub: "-",
        gast.Mult: "*",
        gast.Div: "/",
        gast.Pow: "**",
        gast.MatMult: "@",
        gast.FloorDiv: "//",
        gast.Mod: "%",
        gast.LShift: "<<",
        gast.RShift: ">>",
        gast.BitAnd: "&",
        gast.BitOr: "|",
        gast.BitXor: "^",
    }.get(type(op), type(op).__name__)


def expr_stmt(value):
    return gast.Expr(value=value)


def if_statement(test, body, orelse):
    """`if test: body else: orelse` as a person writes it: `if not test:` for an empty body,
    and what follows a body that ends in a jump after the if, not in an else."""
    if not body and not orelse:
        return []
    if not body:
        return [
            gast.If(test=gast.UnaryOp(op=gast.Not(), operand=name(test)), body=orelse, orelse=[])
        ]
    if isinstance(body[-1], (gast.Break, gast.Continue, gast.Return)):
        return [gast.If(test=name(test), body=body, orelse=[])] + orelse
    return [gast.If(test=name(test), body=body, orelse=orelse)]


def index_value(index):
    """An index as a value to pass to a function: slices go through np.s_."""
    if any(isinstance(n, gast.Slice) for n in walk(index)):
        return gast.Subscript(value=attr("np", "s_"), slice=copy_tree(index), ctx=gast.Load())
    return copy_tree(index)


def constant_int(node):
    """The value of an int constant, `5` or `-5`, else None."""
    sign = 1
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        sign, node = -1, node.operand
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return sign * node.value
    return None


def dotted(node):
    """("np", "linalg", "norm") for the expression np.linalg.norm, else None."""
    parts = []
    while isinstance(node, gast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, gast.Name):
        return (node.id,) + tuple(reversed(parts))
    return None


# the statements holding blocks of statements (a simple statement holds none to look into)
HOLDING_BLOCKS = frozenset(
    kind
    for kind in vars(gast).values()
    if isinstance(kind, type) and issubclass(kind, gast.stmt) and "body" in kind._fields
)


def walk(node):
    """`node` and every node below it, in gast.walk's order (breadth first), at a fraction
    of its cost (which the passes pay once or more per statement: linear, but the bulk);
    but for the contexts (a Name's Load or Store: a third of the nodes, which no pass looks
    for, reading a Name's ctx instead)."""
    todo = [node]
    for current in todo:
        kind = current.__class__
        if kind is _BINOP:  # (the commonest nodes taken apart directly, in their fields' order)
            todo += (current.left, current.op, current.right)
        elif kind is _ATTRIBUTE:
            todo.append(current.value)  # (its ctx a context)
        elif kind is not _CONSTANT:  # (a Constant holds no node)
            values = current.__dict__
            for name in current._fields:
                value = values.get(name)
                if value.__class__ is list:
                    todo.extend([item for item in value if isinstance(item, _AST)])
                elif isinstance(value, _AST) and value.__class__ not in _CONTEXTS:
                    todo.append(value)
        yield current


def walk_statements(node):
    """The nodes of walk(node), in its order, but for expressions and the nodes below them
    (no statement is below an expression): for the passes that look for statements only,
    which need not visit the bulk of a function's nodes."""
    todo = [node]
    for current in todo:
        if current.__class__ in _LEAF_STATEMENTS:  # (most: no field to look through)
            yield current
            continue
        values = current.__dict__
        for name in current._fields:
            value = values.get(name)
            if value.__class__ is list:
                todo.extend([v for v in value if isinstance(v, _AST) and not isinstance(v, _EXPR)])
            elif isinstance(value, _AST) and not isinstance(value, _EXPR):
                todo.append(value)
        yield current


# the statements whose fields hold expressions and words only (no field to look through)
_LEAF_STATEMENTS = frozenset(
    (gast.Assign, gast.AnnAssign, gast.Expr, gast.Return, gast.Delete)
    + (gast.Pass, gast.Break, gast.Continue, gast.Raise, gast.Assert, gast.Global, gast.Nonlocal)
)


def fields(node):
    """(name, value) of each field `node` has, as gast.iter_fields gives them, read off its
    __dict__ directly."""
    values = node.__dict__
    return [(name, values[name]) for name in node._fields if name in values]


def children(node):
    """The nodes right below `node`, in gast.iter_child_nodes' order, read off its fields
    directly (the generic iteration costs the recursive visits that ask this most of
    their time)."""
    found = []
    values = node.__dict__
    for name in node._fields:
        value = values.get(name)
        if value.__class__ is list:
            found.extend([item for item in value if isinstance(item, _AST)])
        elif isinstance(value, _AST):
            found.append(value)
    return found


def increment_lineno(node, n):
    """gast.increment_lineno, over walk (gast.walk's generators cost as much as the parse of
    a long function): every line number below `node` moved down by `n` (a missing one is
    taken as 0, as gast does)."""
    for child in walk(node):
        attributes = child._attributes
        if "lineno" in attributes:
            child.lineno = (getattr(child, "lineno", 0) or 0) + n
        if "end_lineno" in attributes:
            child.end_lineno = (getattr(child, "end_lineno", 0) or 0) + n
    return node


def copy_tree(node, memo=None):
    """copy.deepcopy of a gast tree (nodes shared within it stay shared in the copy), without
    its generic machinery: a node's fields are copied directly, anything else by deepcopy.
    (The ids in `memo` stay unique: the nodes they are of belong to the tree being copied.)"""
    if memo is None:
        if node.__class__ is _NAME:  # (most copies are of one name: no memo to keep)
            copied = _copied_name(node)
            if copied is not None:
                return copied
        memo = {}
    if node.__class__ is list:
        return [item if item.__class__ in _ATOM_TYPES else copy_tree(item, memo) for item in node]
    if not isinstance(node, _AST):
        return node if node.__class__ in _ATOM_TYPES else copy.deepcopy(node, memo)
    done = memo.get(id(node))
    if done is not None:
        return done
    done = memo[id(node)] = node.__class__.__new__(node.__class__)
    fields = done.__dict__
    for key, value in node.__dict__.items():
        kind = value.__class__
        if kind in _ATOM_TYPES:
            fields[key] = value
        elif kind is list:  # (the commonest cases inline: this is called for every node)
            fields[key] = [
                item if item.__class__ in _ATOM_TYPES else copy_tree(item, memo) for item in value
            ]
        elif kind in _CONTEXTS:  # (no fields: made here, unless shared within the tree)
            copied = memo.get(id(value))
            if copied is None:
                copied = memo[id(value)] = kind.__new__(kind)
            fields[key] = copied
        else:
            fields[key] = copy_tree(value, memo)
    return done


def _copied_name(node):
    """copy_tree(node) of a Name whose fields are atoms and its context (a parameter's
    annotation, say, is not), else None."""
    copied = _NAME.__new__(_NAME)
    fields = copied.__dict__
    for key, value in node.__dict__.items():
        kind = value.__class__
        if kind in _ATOM_TYPES:
            fields[key] = value
        elif kind in _CONTEXTS:
            fields[key] = kind.__new__(kind)
        else:
            return None
    return copied


def pausing_gc(fn):
    """Run `fn` with Python's cyclic garbage collector paused: the stages allocate millions
    of small nodes, nearly all acyclic, and the collector's passes over the ever larger heap
    cost about as much as the stages themselves on a large function. What the stages leave
    alive (the emitted trees, kept with the cached derivative) goes to the oldest
    generation directly (gc.freeze, then gc.unfreeze): the collection of the youngest, due
    at once, would otherwise look over every one of those nodes (a twentieth of the
    transform of a long function), and the next one again. What cycles they leave are
    collected by the collector's next full collection."""

    @functools.wraps(fn)
    def paused(*args, **kwargs):
        if not gc.isenabled():
            return fn(*args, **kwargs)
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            if not gc.get_freeze_count():  # (a program's own frozen objects stay frozen)
                gc.freeze()
                gc.unfreeze()
            gc.enable()

    return paused


_AST = gast.AST
_EXPR = gast.expr
_ATOMS = (str, int, float, bool, type(None), complex, bytes, type(Ellipsis))
_ATOM_TYPES = frozenset(_ATOMS)
_CONTEXTS = frozenset({gast.Load, gast.Store, gast.Del, gast.Param})
_NAME, _BINOP, _ATTRIBUTE, _CONSTANT = gast.Name, gast.BinOp, gast.Attribute, gast.Constant
_LOAD, _STORE = gast.Load, gast.Store


def is_simple(node):
    """Cheap, side-effect-free expressions that may be repeated in the adjoint."""
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    if isinstance(node, (gast.Tuple, gast.List)):
        return all(is_simple(e) for e in node.elts)
    if isinstance(node, gast.Slice):  # slice bounds are integers: arithmetic on them is cheap
        return all(
            p is None
            or is_simple(p)
            or isinstance(p, gast.BinOp)
            and is_simple(p.left)
            and is_simple(p.right)
            for p in (node.lower, node.upper, node.step)
        )
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        return is_simple(node.operand)
    if isinstance(node, gast.Attribute):
        return is_simple(node.value)
    return False


def replace_node(root, old, new):
    """Put `new` where `old` stands below `root` (in place)."""
    for node in walk(root):
        for name, value in fields(node):
            if value is old:
                setattr(node, name, new)
            elif isinstance(value, list):
                value[:] = [new if item is old else item for item in value]


def in_evaluation_order(node):
    """[(a node at or below `node`, whether it always runs)] in the order they run: what is
    under `and`, `or`, `if`-`else`, a lambda, a comprehension or a dict display may not."""
    order = []
    _in_order(node, True, order)
    return order


def _in_order(node, always, order):
    always = always and not isinstance(node, _CONDITIONAL)
    for _, value in fields(node):
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, gast.AST):
                _in_order(child, always, order)
    order.append((node, always))


_CONDITIONAL = (
    gast.BoolOp,
    gast.IfExp,
    gast.Lambda,
    gast.ListComp,
    gast.SetComp,
    gast.DictComp,
    gast.GeneratorExp,
    gast.Dict,  # (its keys and values alternate as they run, not as its fields list them)
)


def lambda_definition(name, function, where):
    """The FunctionDef of a lambda, named `name`, placed where `where` is."""
    body = [gast.copy_location(gast.Return(value=function.body), where)]
    return gast.copy_location(function_def(name, function.args, body), where)


def function_def(name, args, body):
    """A plain def: no decorators, annotations or type parameters."""
    return gast.FunctionDef(
        name=name,
        args=args,
        body=body,
        decorator_list=[],
        returns=None,
        type_comment=None,
        type_params=[],
    )


def no_arguments():
    """The parameters of a function that takes none."""
    return gast.arguments(
        args=[],
        posonlyargs=[],
        vararg=None,
        kwonlyargs=[],
        kw_defaults=[],
        kwarg=None,
        defaults=[],
    )
