"""Items of zip(a, b, ...) or enumerate(a) read only by constant index, as the names of their
parts: a loop over them unpacks them (and a lambda functools.reduce calls takes them), so that
a function an item holds is called by a name a loop binds, as srcdiff follows it:

    for lp in zip(layers, params):        ->    for lp0, lp1 in zip(layers, params):
        h = lp[0](h, lp[1])                         h = lp0(h, lp1)
"""

import builtins

import gast

from . import ir


def item_width(items, resolve):
    """How many parts each item of `items` has: of zip(a, b, ...) or enumerate(a); else None."""
    if not isinstance(items, gast.Call) or any(isinstance(a, gast.Starred) for a in items.args):
        return None
    maker = resolve(items.func)
    if maker is builtins.zip and not items.keywords:
        return len(items.args) or None
    return 2 if maker is builtins.enumerate else None


def indexed_reads(name, roots, width):
    """The reads of `name` below `roots` (`lp[0]`, `lp[-1]`), if it is read only so, by a
    constant index below `width`, and no function or comprehension below may rebind it;
    else None."""
    nodes = [n for root in roots for n in ir.walk(root)]
    reads = [n for n in nodes if isinstance(n, gast.Name) and n.id == name]
    indexed = {
        id(n.value): n
        for n in nodes
        if isinstance(n, gast.Subscript)
        and isinstance(n.ctx, gast.Load)
        and isinstance(n.value, gast.Name)
        and n.value.id == name
        and ir.constant_int(n.slice) in range(-width, width)
    }
    nested = any(isinstance(n, (gast.Lambda, gast.FunctionDef, gast.comprehension)) for n in nodes)
    if not reads or nested or any(id(n) not in indexed for n in reads):
        return None
    return list(indexed.values())


def named_parts(name, reads, width, fresh, roots):
    """Fresh names of the parts, put in place of the `reads` below `roots` (in place; a root
    that is a read itself is replaced in the list)."""
    parts = [fresh(f"{name}{k}") for k in range(width)]
    for read in reads:
        part = ir.name(parts[ir.constant_int(read.slice) % width])
        for k, root in enumerate(roots):
            if root is read:
                roots[k] = part
            else:
                ir.replace_node(root, read, part)
    return parts


def unpack_indexed_loop_targets(func, resolve, fresh):
    """`for lp in zip(...)` whose body reads lp only by constant index, and nothing else
    reads it: `for lp0, lp1 in zip(...)` (in place). Whether any was."""
    loops = [n for n in ir.walk_statements(func) if isinstance(n, gast.For)]
    changed = False
    for loop in loops:
        width = item_width(loop.iter, resolve)
        if not (width and isinstance(loop.target, gast.Name)):
            continue
        name = loop.target.id
        roots = loop.body + loop.orelse
        reads = indexed_reads(name, roots, width)
        named = sum(isinstance(n, gast.Name) and n.id == name for n in ir.walk(func))
        if reads is None or named != len(reads) + 1:  # (the target, and its reads here)
            continue
        parts = named_parts(name, reads, width, fresh, roots)
        loop.target = ir.tuple_of([ir.name(part, store=True) for part in parts], store=True)
        changed = True
    return changed
