"""Emitted code's runtime: the adjoints and tangents of containers (a returned tuple's items,
dicts built from keys and values, lists built with append)."""

import numpy as np

from ..errors import ArgumentError
from .core import Sparse, is_record, rebuilt, record_fields, zeros_like
from .core import _rows_of  # (a list of lists' adjoint as rows, as cast_grad makes it)


def unpack_adjoint(g, outputs):
    """The adjoints of a returned tuple's items, from a tuple, a Sparse or None (zeros for
    the items that got none)."""
    if isinstance(g, Sparse) or g is None:
        g = g or {}
        return [_item_adjoint(g.get(k), v) for k, v in enumerate(outputs)]
    return [_item_adjoint(b, v) for b, v in zip(g, outputs)]


def _item_adjoint(b, item):
    """The adjoint b of an item, zeros shaped like it where b is none: None, or the number 0
    (what a Sparse reads for an item that got none) for an array item, which its adjoint's
    readers may transpose or slice."""
    if b is None or type(b) in (int, float) and b == 0 and isinstance(item, np.ndarray):
        return zeros_like(item)
    return b


# --- the pair a flag asks for: scipy.special.logsumexp's (log |s|, sign) for return_sign=True,
# np.average's (average, sum of weights) for returned=True. Their templates read the items, and
# make the pair's tangents, through these, which are the value itself without the flag (and
# fold away where the call leaves it out: registry fold).


def first_of(z, flag):
    """The first item of the pair z (a value, an adjoint: 0.0 where it got none), or z
    itself without the flag."""
    if not flag:
        return z
    return 0.0 if z is None else z[0]


def second_of(z, flag):
    """The second item of the pair z (0.0 where it got none), or 0.0 without the flag."""
    if not flag or z is None:
        return 0.0
    return z[1]


def as_pair(first, second, flag):
    """The tangent (or adjoint) of a pair with these items' as the array numpy makes of the
    pair (so that two such add item by item, and numpy reads it where it reads the pair), or
    `first` without the flag."""
    if not flag:
        return first
    dtype = np.result_type(first, second)  # (a 0.0 for an item that has none keeps float32)
    return np.stack(np.broadcast_arrays(first, second), dtype=dtype)


def flagged(x, flag):
    """x with the flag, else 0.0."""
    return x if flag else 0.0


def pack_adjoint(b, g, outputs):
    """The adjoint of unpack_adjoint(g, outputs) given that of its items (a Sparse or a
    list): an array of rows when g was one, else a Sparse."""
    items = unpack_adjoint(b, outputs)
    if type(g) is np.ndarray:
        return np.stack([_row(item, g.shape[1:]) for item in items])
    return Sparse(enumerate(items))


def _kept(keys):
    """The positions of a dict display's keys whose value the dict keeps (the last of each)."""
    last = {key: k for k, key in enumerate(keys)}
    return [last[key] == k for k, key in enumerate(keys)]


def dict_values_adjoint(g, keys, values):
    """The adjoints of the values of dict(zip(keys, values)) given the dict's adjoint g (a
    Sparse or a dict by key, or None): one per value, zeros for a value no key kept."""
    g = g or {}
    return [
        g[key] if kept and key in g else zeros_like(value)
        for key, value, kept in zip(keys, values, _kept(keys))
    ]


def dict_keys(x):
    """The keys of dict x, where the code sorts or lists x and shows it to be a dict
    (`sorted(params)` read as `params[k]`, `params['W']`) or loops over x indexing it by each
    item (`for key in params: ... params[key]`): srcdiff takes x for a dict there (its keys
    carry no derivative), and this checks that it is one."""
    if not isinstance(x, dict):
        raise ArgumentError(
            f"srcdiff took a differentiated value for a dict's keys (the code indexes it by "
            f"the items of sorted(d), list(d) or for key in d), but it is a "
            f"{type(x).__name__}",
            hint="a loop over a list or array reads its items as it goes (for v in d: ...); "
            "np.sort or np.argsort sort an array",
        )
    return x.keys()


def has_key(x, key, name):
    """Whether dict x has `key`, where the code reads an item of x by x.get(key): srcdiff
    takes x for a dict there, and this checks that it is one."""
    if not isinstance(x, dict):
        raise ArgumentError(
            f"srcdiff took {name}.get(...) for a dict's get, but {name} is a "
            f"{type(x).__name__}: srcdiff follows a differentiated value's items read by "
            "index, and methods of its own only through its class",
            hint=f"read the item: {name}[k]",
        )
    return key in x


def listed(x, name):
    """x, a side of `x + [...]` that the code does not say is a list or tuple: srcdiff took
    the + for joining lists there, and this checks that x is one (for an array, numpy adds
    elementwise)."""
    if not isinstance(x, (list, tuple)):
        raise ArgumentError(
            f"srcdiff took {name} + [...] for joining lists, but {name} is of "
            f"type {type(x).__name__}: + of an array and a list adds "
            "elementwise",
            hint=f"make the list an array first: {name} + np.array([...])",
        )
    return x


class taken_items:  # noqa: N801  (emitted code calls it as a function)
    """The items of a for loop's iterable that a break may leave, listed as the loop takes
    them, to go through again backwards: none read past the one the loop stopped at (the
    iterable may be endless, or read on after the loop), as in f. (Not a list: what copies
    a list would iterate it, and read on.)"""

    def __init__(self, iterable):
        self.taken, self._rest = [], iter(iterable)

    def __iter__(self):
        for item in self._rest:
            self.taken.append(item)
            yield item

    def __getitem__(self, index):
        return self.taken[index]

    def __len__(self):
        return len(self.taken)


def an_array(x, name):
    """x, whose `x.sort()` srcdiff took for an array's (np.sort), checked to be one."""
    if not isinstance(x, np.ndarray):
        raise ArgumentError(
            f"srcdiff took {name}.sort() for the sort of an array, but {name} is of type "
            f"{type(x).__name__}",
            hint=f"assign the sorted values instead: {name} = sorted({name}) of a list",
        )
    return x


def shortest(pieces):
    """How many items zip(*pieces) makes: the length of the shortest piece."""
    return min((len(piece) for piece in pieces), default=0)


def copied_keys(x):
    """The keys of dict x, where the code copies its items into another dict ({**x, ...},
    dict(x, k=v), dict(x)): srcdiff takes x for a dict there, and this checks that it is
    one."""
    if not isinstance(x, dict):
        raise ArgumentError(
            f"srcdiff took a differentiated value copied into a dict ({{**d}}, "
            f"dict(d)) for a dict, but it is a {type(x).__name__}: dict(pairs) "
            "of differentiated values needs its keys in the code",
            hint="write the dict out, {'w': w, 'b': b}, or dict(zip(keys, values))",
        )
    return x.keys()


def sorted_positions(x, key=None, reverse=False):
    """The positions of the items of list, tuple or array x in the order sorted(x, key=key,
    reverse=reverse) puts them: `sorted(params, key=f)` is `[params[k] for k in
    sorted_positions(params, f)]`, the items themselves, each with its own adjoint. (Where
    the code does not show x to be a dict, srcdiff takes sorted(x) for this.)"""
    if isinstance(x, dict):
        raise ArgumentError(
            "srcdiff took sorted(d) for a sort of the items of a list or array, but d "
            "is a dict (nothing in the code says so)",
            hint="sort its keys as sorted(d.keys())",
        )
    items = list(x)
    return sorted(
        range(len(items)), key=lambda k: items[k] if key is None else key(items[k]), reverse=reverse
    )


def copied_index(index):
    """`index` (of a read x[index]) as it is now, for the reverse sweep to read later: its
    lists and arrays copied (a list of indices, a tuple or a list of lists holding one),
    since f may change them in place after the read; ints and slices as they are."""
    if isinstance(index, list):
        return [copied_index(item) for item in index]
    if isinstance(index, tuple):
        return tuple(copied_index(item) for item in index)
    if isinstance(index, np.ndarray):
        return index.copy()
    return index


def held_items(items):
    """The items of a list as they are now, for the adjoint of a call reading it whole
    (np.stack(hs)) to read when the reverse sweep runs, after f appends to or pops from
    the list."""
    return list(items)


def unconsumed(saved):
    """The values a forward sweep saved, for a backward function to consume (it pops its
    stacks and clears its lists): every list copied, the arrays shared (never written), so
    that the lists stay as they were for whatever else holds them."""
    return [unconsumed(v) for v in saved] if isinstance(saved, list) else saved


def removed_position(items, value):
    """The position of the item `items.remove(value)` takes: the first that is `value`, or
    equals it (as list.remove compares, raising as it does where none does)."""
    for k, item in enumerate(items):
        if item is value or item == value:
            return k
    raise ValueError("list.remove(x): x not in list")


def extremum_position(x, which, key=None):
    """The position of the item of list, tuple or array x that which(x, key=key) (max or min)
    returns, the first of the greatest: `max(xs)` is `xs[extremum_position(xs, max)]`."""
    items = list(x)
    if not items:
        raise ValueError(f"{which.__name__}() iterable argument is empty")
    return which(range(len(items)), key=lambda k: items[k] if key is None else key(items[k]))


def dict_of(keys, values):
    """dict(zip(keys, values)) whose keys the code does not count (keys = sorted(params))."""
    keys, values = list(keys), list(values)
    if len(keys) != len(values):  # (zip would drop the extra ones: their gradient is zero)
        keys, values = keys[: len(values)], values[: len(keys)]
    return dict(zip(keys, values))


def dict_adjoint(b, keys, values):
    """The adjoint of the dict dict(zip(keys, values)) given the adjoints of its values (a
    list, tuple or Sparse by position): a Sparse by key."""
    items = unpack_adjoint(b, values)
    return Sparse((key, item) for key, item, kept in zip(keys, items, _kept(keys)) if kept)


def _row(adjoint, shape):
    """An item's adjoint as a row of `shape` (a Sparse, a list item's, as rows of its own)."""
    if isinstance(adjoint, dict):
        return np.stack([_row(adjoint.get(k, 0.0), shape[1:]) for k in range(shape[0])])
    return np.broadcast_to(adjoint, shape)


def add_items(adjoints, more, items=None):
    """The adjoint of list `items` built with append (one adjoint per item, in order; empty
    before any is added, or a zero Sparse) with `more` added, item by item: a list, or a
    Sparse from index reads or pops (items it names nothing of get their zero), or None: the
    adjoint of a list not made on the path taken (zeros_like(None))."""
    if more is None:
        return adjoints
    if type(more) is np.ndarray:  # np.array(items)'s adjoint: a row each
        more = item_adjoints(more, items)
    elif isinstance(more, Sparse):
        more = _listed(more, items)[: more.length]
    if isinstance(adjoints, Sparse):
        if not adjoints:  # (a zero adjoint: of as many items as it counts, where it does)
            return list(more)[: adjoints.length]
        adjoints = _listed(adjoints, items)[: adjoints.length]
    if not adjoints:
        return list(more)
    return [a + b for a, b in zip(adjoints, more)]


def _listed(adjoint, items):
    """A Sparse adjoint of a list as a list, an adjoint per item of `items` (None: as many
    as the Sparse knows of, 0.0 for those that got none). (Where the Sparse counts fewer,
    the list was popped since `items` was made: add_items keeps as many as it counts.)"""
    if not all(type(k) is int for k in adjoint):
        raise ArgumentError(
            "srcdiff can follow a list built with append read by single indices, not slices",
            hint="index its items one by one",
        )
    if not isinstance(items, (list, tuple, np.ndarray)) or len(items) == 0:
        # (no items at hand: a zero adjoint stands for the list, or a list of saved values
        # that the code it was saved for has emptied since)
        n = max(_counted(adjoint), _counted(items) if isinstance(items, Sparse) else 0)
        return [adjoint[k] for k in range(n)]
    n = len(items)
    dense = [None] * n
    for k, g in adjoint.items():
        dense[k % n] = g if dense[k % n] is None else dense[k % n] + g
    # (an item read by none gets its zero: a Sparse for a tuple, which 0.0 is not)
    return [zeros_like(item) if g is None else g for g, item in zip(dense, items)]


def _counted(adjoint):
    """How many items the list a Sparse is the adjoint of has, as far as it tells."""
    return max(adjoint, default=-1) + 1 if adjoint.length is None else adjoint.length


def items_like(adjoints, like):
    """A list of item adjoints in the form of `like`: an array of rows where `like` is an
    array (np.array(items)'s adjoint), else the list (the adjoint of add_items' `more`;
    a Sparse as it is: `like` may be one, which does not count the items)."""
    # (the items of `like` past the shorter of add_items' two lists, which it passed over,
    # add nothing: their adjoints are zeros)
    longer = isinstance(like, list) and len(like) > _counted_items(adjoints)
    if type(like) is not np.ndarray and isinstance(adjoints, Sparse):
        return Sparse(adjoints).sized(len(like)) if longer else adjoints
    adjoints = add_items([], adjoints, like)  # (a Sparse of index reads, made a list)
    if longer:
        adjoints = adjoints + [0.0] * (len(like) - len(adjoints))
    if type(like) is np.ndarray:  # (in like's dtype: a missing item's adjoint is 0.0)
        return np.stack(
            [
                _rows_of(a, row)  # (a row's, of a list of lists: a Sparse of its items)
                if isinstance(a, Sparse)
                else np.broadcast_to(np.asarray(a, np.result_type(a, like)), like.shape[1:])
                for a, row in zip(adjoints, like)
            ]
        )
    return adjoints


def _counted_items(adjoints):
    """How many items a list adjoint is of (a Sparse of unknown length: as many as any)."""
    if isinstance(adjoints, Sparse):
        return float("inf") if adjoints.length is None else adjoints.length
    return len(adjoints) if isinstance(adjoints, (list, tuple)) else float("inf")


def add_tangents(a, b):
    """The sum of two parts of a tangent: item by item for lists of items' tangents, field
    by field for a namedtuple's or another record's (None: a field with no tangent)."""
    if a is None or b is None:
        return b if a is None else a
    if isinstance(a, list) and isinstance(b, list):  # ([] is the list with no items yet)
        return [x + y for x, y in zip(a, b)] if a and b else list(a or b)
    if isinstance(a, tuple) and hasattr(a, "_fields"):
        return type(a)(*(add_tangents(x, y) for x, y in zip(a, b)))
    if is_record(a):
        return rebuilt(
            a, {name: add_tangents(getattr(a, name), getattr(b, name)) for name in record_fields(a)}
        )
    return a + b


def item_adjoints(g, items):
    """The adjoints of the items of list `items` given the adjoint `g` of the array numpy
    made of it: a row each (a list of rows for an item that is a list itself)."""
    return [item_adjoints(row, item) if type(item) is list else row for row, item in zip(g, items)]
