"""Which values the forward sweep saves for the adjoint sweep, and how (reverse.py's
analysis): every site that assigns a variable is numbered and placed in the blocks and loops
around it; a value the adjoint reads is saved NONE (it still holds it), AFTER (pushed after its
assignment, popped before the reversed one) or BEFORE (pushed before it is overwritten); or
not at all, LISTED, when the loop appends it to a list that keeps it (see _listed)."""

import gast

from . import ir
from .errors import UnsupportedError
from .passes.liveness import live_before
from .primitives import registry

NONE, AFTER, BEFORE = "none", "after", "before"
LISTED = "listed"  # (as AFTER, but read back from the list it was appended to: see _listed)


class _Site:
    """Where a statement stands: its pre-order number, its (block, index) path and the loops
    around it, outermost first."""

    def __init__(self, stmt, order, path, loops):
        self.stmt, self.order, self.path, self.loops = stmt, order, path, loops


class SavingAnalysis:
    """Reverse's analysis half: reads self.fn and self.stacks, fills self.sites, self.reads,
    self.site_of, self.strategy and self.needs_init."""

    def _scan(self, block, path, loops):
        for index, stmt in enumerate(block):
            here = path + [(id(block), index)]
            self.order += 1
            site = _Site(stmt, self.order, here, list(loops))
            self.site_of[id(stmt)] = site
            if isinstance(stmt, ir.Assign):
                read = ir.names_in(stmt.value)
                self._read(read, site)
                if any(t in self.fn.active for t in stmt.targets):  # (what gets adjoints)
                    self.adjoint_reads |= read
                for target in stmt.targets:
                    self.sites.setdefault(target, []).append(site)
                if stmt.callee is not None:  # the adjoint of the call reads what it saved
                    self._read(
                        stmt.callee.kept(),
                        _Site(stmt, site.order, path + [(id(block), index + 0.5)], list(loops)),
                    )
            elif isinstance(stmt, ir.Push):
                self._read(ir.names_in(stmt.value) | {stmt.stack}, site)
                self.stacks.add(stmt.stack)
            elif isinstance(stmt, ir.Pop):
                self._read({stmt.stack}, site)
                self.sites.setdefault(stmt.target, []).append(site)
                self.stacks.add(stmt.stack)
                self.popped_stacks.add(stmt.stack)
            elif isinstance(stmt, ir.SetItem):
                self._read(ir.names_in(stmt.index) | ir.names_in(stmt.value) | {stmt.target}, site)
                self.sites.setdefault(stmt.target, []).append(site)
            elif isinstance(stmt, ir.If):
                self._read({stmt.test}, site)
                self._scan(stmt.body, here, loops)
                self._scan(stmt.orelse, here, loops)
            elif isinstance(stmt, ir.For):
                self._read(ir.names_in(stmt.iter), site)
                self.sites.setdefault(stmt.target, []).append(site)
                self._scan(stmt.body, here, loops + [stmt])
            elif isinstance(stmt, ir.While):
                self._read(ir.names_in(stmt.test), site)
                self._scan(stmt.body, here, loops + [stmt])
            if isinstance(stmt, (ir.For, ir.While)) and stmt.counter is not None:
                self.sites.setdefault(stmt.counter, []).append(site)
                # the reversed loop reads the counter right after the loop
                after = _Site(stmt, site.order, path + [(id(block), index + 0.5)], list(loops))
                self._read({stmt.counter}, after)
            if isinstance(stmt, ir.Return):
                self._read(ir.names_in(stmt.value), site)
            elif isinstance(stmt, ir.Statement):
                self._read(ir.names_in(stmt.node), site)
                for root in stmt.changes:  # (written into in place: as if assigned)
                    self.sites.setdefault(root, []).append(site)

    def _read(self, names, site):
        for n in names:
            self.reads.setdefault(n, []).append(site)

    def _decide(self, var, site, needed):
        """How the forward sweep saves `var` at assignment `site` (NONE, AFTER or BEFORE)."""
        if isinstance(site.stmt, ir.Statement):
            return self._decide_kept_write(var, site, needed)
        if var not in needed or isinstance(site.stmt, ir.For) and var == site.stmt.target:
            return NONE  # a loop target is set again by the reversed loop itself
        if isinstance(site.stmt, ir.SetItem):
            return BEFORE  # the write changes the array in place for every later reader
        others = [s for s in self.sites[var] if s is not site]
        if not site.loops:
            if len(site.path) == 1:
                return NONE
            overwrites = var in self.fn.params or any(_precedes(s, site) for s in others)
            read_before = any(not _precedes(site, r) for r in self.reads.get(var, []))
            return BEFORE if overwrites and read_before else NONE
        outer = site.loops[0]
        start = self.site_of[id(outer)].order  # where the outermost loop begins
        if any(id(loop) in self.reset_in.get(var, ()) for loop in site.loops):
            # the reversed loop zeroes var's adjoint in the shape of var's previous value
            if not (var in self.fn.params or any(s.order < start for s in others)):
                self.needs_init.setdefault(id(outer), set()).add(var)
            return BEFORE
        block, index = site.path[-1]
        prefix = site.path[:-1]

        def later_sibling(read):
            if read.path[: len(prefix)] != prefix or len(read.path) <= len(prefix):
                return False
            rblock, rindex = read.path[len(prefix)]
            return rblock == block and rindex > index

        reads = self.reads.get(var, [])
        inside = [r for r in reads if outer in r.loops]
        if not inside and not any(r.order < start for r in reads):
            return NONE  # read only after the loop, where it holds its final value
        if not others and all(later_sibling(r) for r in inside):
            return AFTER
        defined_before = var in self.fn.params or any(s.order < start for s in others)
        if not defined_before:
            self.needs_init.setdefault(id(outer), set()).add(var)
        return BEFORE

    def _decide_kept_write(self, var, site, needed):
        """How the forward sweep saves the array of `var` that a statement kept as written
        changes in place (buf[:] = x[t]): BEFORE, copied, where the adjoint sweep may read
        it, or a name sharing its memory, as it was before the write (read earlier, or in
        the loop around it); NONE where every read follows the write. What it cannot put
        back (the caller's array: an argument's) is refused."""
        stmt = site.stmt
        names = self._viewing({var, *stmt.seen_by})
        if not names & needed:
            return NONE
        reads = [r for n in names for r in self.reads.get(n, []) if _has_adjoint(r.stmt)]
        if site.loops:
            start = self.site_of[id(site.loops[0])].order
            read_before = any(site.loops[0] in r.loops or r.order < start for r in reads)
        else:
            read_before = any(not _precedes(site, r) for r in reads)
        if not read_before:
            return NONE
        name = dict(stmt.left).get(var)
        if name is not None:
            raise UnsupportedError(
                f"this line writes into {name!r} in place, and the derivative reads what it "
                "held before the write: srcdiff puts back only an array f makes itself (not "
                "an argument's, a global's, or a list's)",
                stmt.loc,
                f"write into a copy with a name of its own ({name} = {name}.copy() first), or "
                "read what the write leaves only after it",
            )
        return BEFORE

    def _viewing(self, names):
        """`names` and the names bound to what may be a view of one of them (the rows and
        temporaries of r = c[0], t = c.T, v = np.transpose(c)), of a view at any depth."""
        found, more = set(names), True
        while more:
            more = False
            for var, sites in self.sites.items():
                if var not in found and any(
                    isinstance(s.stmt, ir.Assign)
                    and (
                        _may_view(s.stmt.value, found)
                        or s.stmt.callee is not None  # (what fwd_g saves may be its arguments)
                        and ir.names_in(s.stmt.value) & found
                    )
                    for s in sites
                ):
                    found.add(var)
                    more = True
        return found

    def _plan(self, needed):
        self.strategy, self.needs_init, self.listed = {}, {}, {}
        for var, sites in self.sites.items():
            for site in sites:
                strategy = self._decide(var, site, needed)
                listed = self._listed(var, site) if strategy == AFTER else None
                if listed is not None:
                    strategy, self.listed[(var, site.order)] = LISTED, listed
                self.strategy[(var, site.order)] = strategy

    def _listed(self, var, site):
        """`xs[i]` when, in an iteration of a loop `for i in ...` whose body assigns `var`
        once at its top level, `var` is also xs[i] and still will be when the adjoint sweep
        runs: xs is a list made empty by the function itself and changed by appends alone
        (see _only_appended), and either `var = xs[i]` or the loop is `for i in range(n)`,
        at the top level of the function, and appends `var` to xs, the only append to it.
        Else None. Pushing it on a stack of its own as well would keep every value twice."""
        loop = site.loops[-1]
        here = self.site_of[id(loop)]
        if not (
            isinstance(loop, ir.For)
            and site.path[-1][0] == id(loop.body)
            and not any(loop in s.loops for s in self.sites.get(loop.target, ()))
        ):
            return None  # (the reversed loop sets i again, as the forward one: no other)
        value = site.stmt.value if isinstance(site.stmt, ir.Assign) else None
        if (
            isinstance(value, gast.Subscript)
            and isinstance(value.value, gast.Name)
            and isinstance(value.slice, gast.Name)
            and value.slice.id == loop.target
            and site.stmt.targets == [var]
            and self._only_appended(value.value.id)
        ):
            return ir.subscript(value.value.id, ir.name(loop.target))
        if loop.counter is not None or len(here.path) != 1 or not _counts_from_zero(loop.iter):
            return None  # (not each iteration appends once, from the list's first item)
        for stmt in loop.body[site.path[-1][1] + 1 :]:
            if (
                isinstance(stmt, ir.Push)
                and isinstance(stmt.value, gast.Name)
                and stmt.value.id == var
                and self._only_appended(stmt.stack, stmt, here)
            ):
                return ir.subscript(stmt.stack, ir.name(loop.target))
        return None

    def _only_appended(self, xs, push=None, loop=None):
        """Whether list `xs` is bound once, to `[]`, at the top level (before the loop at
        site `loop`, if given), and nothing changes it but appends (`push` alone, if given):
        every other statement reading it only indexes it or takes its len (a call, an
        alias, a return or a pop might change an item before the adjoint sweep reads it)."""
        sites = self.sites.get(xs, [])
        if xs in self.fn.params or xs in self.popped_stacks or len(sites) != 1:
            return False
        init = sites[0].stmt
        if not (
            len(sites[0].path) == 1
            and (loop is None or sites[0].order < loop.order)
            and isinstance(init, ir.Assign)
            and init.callee is None
            and isinstance(init.value, gast.List)
            and not init.value.elts
        ):
            return False
        for read in self.reads.get(xs, []):
            stmt = read.stmt
            if stmt is push or push is None and isinstance(stmt, ir.Push) and stmt.stack == xs:
                continue
            if isinstance(stmt, ir.Assign) and stmt.callee is None:
                looked_at = stmt.value
            elif isinstance(stmt, ir.For) and read.path == self.site_of[id(stmt)].path:
                looked_at = stmt.iter
            else:
                return False
            if not _only_looked_into(looked_at, xs):
                return False
        return True

    def may_save(self, stmt):
        """Whether the forward sweep may save a value `stmt` assigns (never at the top
        level of the function, outside loops and branches: see _decide)."""
        site = self.site_of[id(stmt)]
        return bool(site.loops) or len(site.path) > 1 or isinstance(stmt, ir.SetItem)

    def _saved(self, var, stmt, kind):
        return self.strategy.get((var, self.site_of[id(stmt)].order)) == kind

    def _after(self, var, stmt):
        """Whether the reversed block starts by giving `var` back its value of `stmt`."""
        return self.strategy.get((var, self.site_of[id(stmt)].order)) in (AFTER, LISTED)

    def _restored(self, var, stmt):
        """The statement doing so: a pop off var's stack, or `var = xs[i]` (_listed)."""
        listed = self.listed.get((var, self.site_of[id(stmt)].order))
        return self._pop(var) if listed is None else ir.assign(var, ir.copy_tree(listed))


class Later:
    """Statements of the adjoint sweep that depend on what the forward sweep saves: the pops
    restoring saved values, and the ifs and loops around them. The sweep is made before that
    is decided; `make()` writes them once it is (see finished). `real`: whether they hold
    more than pops."""

    lineno = None  # (ir.located marks it as a statement, for what make() returns)

    def __init__(self, make, real=False):
        self.make, self.real = make, real


def finished(block):
    """`block` with each Later in it made, as the saving decisions now stand."""
    out = []
    for stmt in block:
        if stmt.__class__ is Later:
            made = stmt.make()
            out += made if stmt.lineno is None else ir.located(made, stmt)
        else:
            out.append(stmt)
    return out


def holds_code(block):
    """Whether `block` holds any statement but the pops restoring saved values."""
    return any(stmt.__class__ is not Later or stmt.real for stmt in block)


def _counts_from_zero(iterable):
    """Whether a loop over `iterable` numbers its iterations: range(n)."""
    return (
        isinstance(iterable, gast.Call)
        and ir.dotted(iterable.func) == ("range",)
        and len(iterable.args) == 1
        and not iterable.keywords
    )


def _only_looked_into(expr, xs):
    """Whether `expr` reads list `xs` only as `xs[...]` or `len(xs)`."""
    allowed = set()
    for node in ir.walk(expr):
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name):
            allowed.add(id(node.value))
        elif (
            isinstance(node, gast.Call)
            and ir.dotted(node.func) == ("len",)
            and len(node.args) == 1
            and not node.keywords
        ):
            allowed.add(id(node.args[0]))
    return all(
        id(node) in allowed
        for node in ir.walk(expr)
        if isinstance(node, gast.Name) and node.id == xs
    )


def _has_adjoint(stmt):
    """Whether the adjoint sweep may read what `stmt` reads: not for a statement kept as
    written (a check, a print), nor an assignment of a value that carries no gradient."""
    if isinstance(stmt, ir.Statement):
        return False
    return not isinstance(stmt, ir.Assign) or stmt.primitive is not None or stmt.callee is not None


def _may_view(value, names):
    """Whether `value` may be a view of (or be) an array of `names`: a name, an item or
    attribute of one, a call whose record says it returns a view of its first argument."""
    if isinstance(value, gast.Name):
        return value.id in names
    if isinstance(value, (gast.Subscript, gast.Attribute)):
        return _may_view(value.value, names)
    if not isinstance(value, gast.Call):
        return False
    func = value.func
    if isinstance(func, gast.Attribute) and _may_view(func.value, names):
        return getattr(registry.method(func.attr), "view", False)  # (x.reshape(...))
    path = ir.dotted(func)
    record = registry.at(path) if path else None
    return bool(value.args) and getattr(record, "view", False) and _may_view(value.args[0], names)


def _precedes(first, second):
    """Whether `first` can run before `second`: earlier, and not in another branch of an if."""
    if first.order >= second.order:
        return False
    for (block_a, index_a), (block_b, index_b) in zip(first.path, second.path):
        if block_a != block_b:
            return False
        if index_a != index_b:
            return True
    return True


def reading(adjoint, grads):
    """The adjoint sweep and what returns its gradients, as statements to analyse."""
    return adjoint + [ir.expr_stmt(gast.Tuple(elts=list(grads), ctx=gast.Load()))]


def read_for_shape_only(adjoint, names, stacks):
    """Two sets of `names`: those whose value when the adjoint sweep starts, and those whose
    values popped off their stack in it, the sweep reads only as shape arguments
    (runtime.unbroadcast(g, x), np.shape(x), np.zeros_like(x), ...). Each version of a name
    is judged apart, so `x = np.pad(x, ...)` keeps the padded x, and only the shape of the x
    before it, when that is all its adjoint reads."""
    popped_unread = set()  # ids of the pops whose value is not read (but for its shape)
    reads = _Reads()
    value_live = live_before(adjoint, set(), popped_unread, reads=reads.for_values)
    read_at_start = live_before(adjoint, set(), None, reads=reads.at_all) & names
    pops = {}
    for node in _statements(adjoint):
        if (
            isinstance(node, gast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], gast.Name)
            and _is_pop(node.value, stacks.get(node.targets[0].id))
        ):
            pops.setdefault(node.targets[0].id, []).append(id(node))
    popped_value = {var for var, ids in pops.items() if set(ids) - popped_unread}
    return read_at_start - value_live, names - popped_value


def _statements(body):
    """The statements of `body` and of the blocks in them (not the expressions: no pop
    is in one)."""
    for stmt in body:
        yield stmt
        values = stmt.__dict__
        for field in ("body", "orelse"):
            if values.get(field):  # (most statements hold none: no generator for each)
                yield from _statements(values[field])


def _is_pop(expr, stack):
    return (
        stack is not None
        and isinstance(expr, gast.Call)
        and not expr.args
        and isinstance(expr.func, gast.Attribute)
        and expr.func.attr == "pop"
        and isinstance(expr.func.value, gast.Name)
        and expr.func.value.id == stack
    )


class _Reads:
    """What each statement or expression reads, found in one visit for both liveness
    analyses: the names it reads at all, and those it reads for their value."""

    def __init__(self):
        self._found = {}  # id(node) -> (names read for their value, for their shape only)

    def for_values(self, node):
        return self._of(node)[0]

    def at_all(self, node):
        values, shapes = self._of(node)
        return values | shapes

    def _of(self, node):
        found = self._found.get(id(node))
        if found is None:
            found = self._found[id(node)] = _reads_by_use(node)
        return found


def _reads_by_use(node):
    """The names `node` reads other than as an argument a primitive reads only for its
    shape (its record's shape_args), and those it reads only so."""
    reads, shape_reads = set(), set()
    _visit_reads(node, False, reads, shape_reads)
    return reads, shape_reads - reads


def _visit_reads(node, shape_position, reads, shape_reads):
    """_reads_by_use's walk, adding to `reads` and `shape_reads` (a function of the module,
    not a closure calling itself: such a closure is a reference cycle, left for the cyclic
    collector, for every statement the analysis looks at)."""
    kind = node.__class__
    if kind is gast.Name and isinstance(node.ctx, gast.Load):
        (shape_reads if shape_position else reads).add(node.id)
        return
    if kind is gast.Constant:  # (the commonest after names: nothing read)
        return
    if kind is gast.BinOp:
        _visit_reads(node.left, False, reads, shape_reads)
        _visit_reads(node.right, False, reads, shape_reads)
        return
    path = ir.dotted(node.func) if kind is gast.Call else None
    if path is not None and len(path) > 1:
        record = registry.at(path)
        positions = record.shape_args if record is not None else ()
        _visit_reads(node.func, False, reads, shape_reads)
        for k, arg in enumerate(node.args):
            _visit_reads(arg, k in positions, reads, shape_reads)
        for kw in node.keywords:
            _visit_reads(kw.value, False, reads, shape_reads)
        return
    if isinstance(node, (gast.List, gast.Tuple)) and shape_position:
        for e in node.elts:
            _visit_reads(e, True, reads, shape_reads)
        return
    fields = node.__dict__  # (gast.iter_child_nodes' order, without its generators)
    for field in node._fields:
        child = fields.get(field)
        if isinstance(child, gast.AST):
            if child.__class__ not in ir.FIELDLESS:  # (a context, an operator: no names)
                _visit_reads(child, False, reads, shape_reads)
        elif child.__class__ is list:
            for item in child:
                if isinstance(item, gast.AST):
                    _visit_reads(item, False, reads, shape_reads)
