"""Functions whose results carry no gradient: shapes and sizes, indices, masks and
comparisons, roundings (flat almost everywhere), constructors of constant arrays, and random
draws. A differentiated value passes through them with no error; the result is a constant.
Also the shape rules of the builtins emitted code uses (len, range, zip, ...)."""

import builtins

import gast
import numpy as np

from .. import runtime, shapes
from .registry import Primitive, Sample, constants, register
from .samples import real

# value-independent shapes: shapes.py may evaluate them on stand-ins
constants(
    np.sign,
    np.floor,
    np.ceil,
    np.round,
    np.around,
    np.rint,
    np.trunc,
    np.fix,
    np.argmax,
    np.argmin,
    np.argsort,
    np.searchsorted,
    np.isnan,
    np.isinf,
    np.isfinite,
    np.greater,
    np.greater_equal,
    np.less,
    np.less_equal,
    np.equal,
    np.not_equal,
    np.logical_and,
    np.logical_or,
    np.logical_not,
    np.logical_xor,
    np.any,
    np.all,
    np.zeros,
    np.ones,
    np.empty,
    np.eye,
    np.identity,
    np.arange,
    np.signbit,
    fresh=True,
    methods=("argmax", "argmin", "argsort", "any", "all"),
    samples=[
        Sample("x * np.sign(x) + np.floor(x) * x + np.round(x, 1) + np.argmax(x)", x=real(5)),
        Sample("np.where(np.isfinite(x) & (x > 0), x, 0.0) * np.argsort(x)", x=real(5)),
    ],
)
constants(  # (flat almost everywhere, as np.floor is)
    np.floor_divide,
    operators=(gast.FloorDiv,),
    fresh=True,
    samples=[
        Sample("x * (x // 0.5) + np.floor_divide(x, 2.0)", x=real(5)),
        Sample("x * (3.0 // x)", x=real(3)),
    ],
)
constants(
    np.argpartition,
    np.lexsort,
    np.digitize,
    np.count_nonzero,
    np.heaviside,
    np.isposinf,
    np.isneginf,
    np.isreal,
    np.iscomplex,
    np.isrealobj,
    np.iscomplexobj,
    np.isclose,
    np.allclose,
    np.array_equal,
    np.array_equiv,
    builtins.round,
    fresh=True,
    methods=("argpartition", "searchsorted", "round"),
    samples=[
        Sample(
            "x * x.round(1) * np.heaviside(x, 0.5) * np.digitize(x, [0.0]) * "
            "np.isclose(x, 0.5) * np.count_nonzero(x) * round(float(x[0])) + "
            "x[x.argpartition(2)] * x.searchsorted(0.0)",
            x=real(5),
        )
    ],
)
constants(
    np.zeros_like,
    np.ones_like,
    np.empty_like,
    fresh=True,
    shape_args={0},
    samples=[Sample("x * np.ones_like(x) + np.zeros_like(x)", x=real(3))],
)
# indices and masks read off an array's shape or values (a differentiated array in hvp, where
# the gradient reads them again)
constants(
    np.nanargmax,
    np.nanargmin,
    np.isin,
    np.triu_indices_from,
    np.tril_indices_from,
    np.diag_indices_from,
    fresh=True,
    samples=[
        Sample("x[np.nanargmax(x)] * x[np.nanargmin(x)] + x * np.isin(x, x[:2])", x=real(5)),
        Sample(
            "np.sum(x[np.triu_indices_from(x, 1)]) + x[np.tril_indices_from(x)] ** 2 + "
            "np.sum(x[np.diag_indices_from(x)] ** 3)",
            x=real(3, 3),
        ),
    ],
)
# a dict's keys (`for key in sorted(params.keys())`; sorted(params) is sorted of dict_keys)
constants(
    dict.keys,
    methods=("keys",),
    shape=None,
    samples=[Sample("x * len({'a': x, 'b': 2 * x}.keys())", x=real(3))],
)
constants(
    runtime.dict_keys,
    shape=None,
    samples=[Sample("x * len(runtime.dict_keys({'a': x, 'b': 2 * x}))", x=real(3))],
)
# whether a dict has a key (`d.get(k, default)`, read as `d[k] if k in d else default`)
constants(
    runtime.has_key,
    shape=None,
    samples=[Sample("x * runtime.has_key({'a': x}, 'a', 'd')", x=real(3))],
)
constants(
    runtime.shortest,
    shape=None,
    samples=[Sample("x * runtime.shortest([(x, x), (x, 2 * x, x)])", x=real(3))],
)
constants(
    runtime.copied_keys,
    shape=None,
    samples=[Sample("x * len(runtime.copied_keys({'a': x, 'b': 2 * x}))", x=real(3))],
)
# the position of the item xs.remove(v) takes out (list_changes.py): constant
constants(
    runtime.removed_position,
    shape=None,
    samples=[Sample("x * runtime.removed_position([1.0, np.sum(x), 2.0], 2.0)", x=real(3))],
)
# the order of a sort of differentiated values by a key (sorted(params, key=...)): constant
constants(
    runtime.sorted_positions,
    shape=None,
    samples=[Sample("x * runtime.sorted_positions([x, 2 * x], key=np.sum)[0]", x=real(3))],
)
# the elements np.put_along_axis writes (write_forms.py): constant
constants(
    runtime.along_axis_index,
    shape=None,
    samples=[
        Sample(
            "x[runtime.along_axis_index(x.shape, np.array([[1], [0]]), 1)] * 2.0",
            x=real(2, 3),
        )
    ],
)
# the elements np.lib.stride_tricks.as_strided reads (arrays.py): constant
constants(
    runtime.strided_positions,
    shape=None,
    samples=[
        Sample("np.take(x, runtime.strided_positions(x, (2, 2), x.strides * 2)) * 2.0", x=real(3))
    ],
)
# which except clause a try/except takes (try_except.py): constant
constants(
    runtime.handler_of,
    shape=None,
    samples=[Sample("x * (runtime.handler_of(lambda: np.sum(x), ValueError) is None)", x=real(3))],
)
# which item max(xs) or min(xs) returns: constant
constants(
    runtime.extremum_position,
    shape=None,
    samples=[Sample("x * runtime.extremum_position([x[0], 2 * x[1]], max)", x=real(3))],
)
constants(
    np.result_type,
    builtins.int,
    builtins.bool,
    builtins.isinstance,
    samples=[Sample("x * int(np.sum(x) > 0) + np.ones(3, dtype=np.result_type(x))", x=real(3))],
)
# (differences see through it, so the sample holds a constant; tests/test_api.py checks that
# no derivative flows through it in any mode)
constants(
    runtime.contraction_axes,
    shape=None,
    samples=[Sample("np.tensordot(x, x, runtime.contraction_axes(x, x, 1))", x=real(3))],
)
constants(
    runtime.stop_gradient,
    samples=[Sample("x * runtime.stop_gradient(y)", x=real(3), y=real(3), constant=("y",))],
)
# value-dependent shapes: as many elements as the values say
constants(
    np.nonzero,
    np.argwhere,
    np.flatnonzero,
    np.unique,
    shape=None,
    methods=("nonzero",),
    samples=[Sample("x[np.nonzero(x > 0)]", x=real(5))],
)

# random draws: their values (and so their shapes' certainty) are not to be computed twice,
# and an unused one still advances the generator
constants(
    *(getattr(np.random, name) for name in np.random.__all__ if name.islower()),
    shape=None,
    pure=False,
    samples=[Sample("x * (np.random.normal(size=3) is not None)", x=real(3))],
)


# --- sizes and dtypes: known exactly from the abstract value ----------------------------------


def _known(measure):
    """A shape rule giving measure(shape, dtype) of an array's abstract value, exactly."""

    def rule(args, kwargs):
        base = shapes.widen(args[0]) if len(args) == 1 and not kwargs else None
        if (
            not isinstance(base, (shapes.Typed, shapes.ShapeOf))
            or isinstance(base, shapes.Typed)
            and base.type in (float, int, bool)
        ):
            return shapes.UNKNOWN
        return shapes.Const(measure(base.shape, base.dtype))

    return rule


def _sizes(function, attribute, measure):
    register(
        Primitive(
            attribute,
            (function,) if function else (),
            attributes=(attribute,),
            differentiable=False,
            shape=_known(measure),
            shape_args={0},
            samples=[
                Sample(
                    f"x * np.{attribute}(x)" if function else f"x.astype(x.{attribute}) * 2",
                    x=real(3),
                ),
                Sample(f"x * x.{attribute}" if function else "x", x=real(3)),
            ],
        )
    )


_sizes(np.shape, "shape", lambda shape, dtype: shape)
_sizes(np.ndim, "ndim", lambda shape, dtype: len(shape))
_sizes(np.size, "size", lambda shape, dtype: int(np.prod(shape, dtype=np.int64)))
_sizes(None, "dtype", lambda shape, dtype: dtype)


# --- the builtins emitted code calls: Python's own rules for their results --------------------

_INT = shapes.Typed(int, (), np.dtype(int))


def _len(args, kwargs):
    value = args[0] if len(args) == 1 and not kwargs else shapes.UNKNOWN
    if isinstance(value, shapes.Items):
        return shapes.Const(len(value.items))
    if isinstance(value, (shapes.Typed, shapes.ShapeOf)) and value.shape:
        return shapes.Const(value.shape[0])
    if isinstance(value, shapes.Const):
        return shapes.evaluate(len, args, {})
    return _INT if isinstance(value, shapes.ListOf) else shapes.UNKNOWN


def _range(args, kwargs):
    ints = all(
        isinstance(shapes.widen(a), shapes.Typed) and shapes.widen(a).type is int for a in args
    )
    return shapes.ListOf(_INT) if ints and not kwargs else shapes.UNKNOWN


def _sequence(kind):
    """reversed(x), list(x), tuple(x): the same items, in a list or tuple (or reversed)."""

    def rule(args, kwargs):
        value = args[0] if len(args) == 1 and not kwargs else shapes.UNKNOWN
        out = tuple if kind is tuple else list
        if isinstance(value, shapes.Const) and isinstance(value.value, (tuple, list)):
            value = shapes.Items(
                out,
                tuple(
                    shapes.Const(v) if not isinstance(v, float) else shapes.widen(shapes.Const(v))
                    for v in value.value
                ),
            )
        if isinstance(value, shapes.Items):
            return shapes.Items(out, value.items[::-1] if kind is reversed else value.items)
        if isinstance(value, (shapes.ListOf, shapes.Typed)):
            item = shapes.element(value)
            return shapes.ListOf(item) if item is not shapes.UNKNOWN else shapes.UNKNOWN
        return shapes.UNKNOWN

    return rule


def _zip(args, kwargs):
    return shapes.ListOf(shapes.Items(tuple, tuple(shapes.element(a) for a in args)))


def _enumerate(args, kwargs):
    if len(args) != 1 or kwargs:
        return shapes.UNKNOWN
    return shapes.ListOf(shapes.Items(tuple, (_INT, shapes.element(args[0]))))


def _number_kind(value):
    """A typed value's type; an EitherScalar itself (whose type is either of two)."""
    value = shapes.widen(value)
    return value if isinstance(value, shapes.EitherScalar) else getattr(value, "type", None)


def _extremum(function):
    def rule(args, kwargs):
        if len(set(map(_number_kind, args))) != 1:
            return shapes.UNKNOWN  # max(1, 2.5) is an int or a float, by value
        return shapes.evaluate(function, args, kwargs, range(len(args)))

    return rule


# (differentiated values pass through list, tuple, zip, ... in loops and displays, which the
# transform lowers; called on one directly, these have no rule of their own)
for function, rule, differentiable, call in (
    (builtins.len, _len, False, "x * len(x)"),
    (builtins.range, _range, False, "x * len(range(1, 4))"),
    (builtins.reversed, _sequence(reversed), True, "x * list(reversed([1.0, 2.0]))[0]"),
    (builtins.list, _sequence(list), True, "x * len(list(range(3)))"),
    (builtins.tuple, _sequence(tuple), True, "x * tuple(range(3))[2]"),
    (builtins.zip, _zip, True, "x * len(list(zip(range(3), range(2))))"),
    (builtins.enumerate, _enumerate, True, "x * list(enumerate([5]))[0][1]"),
    (builtins.max, _extremum(builtins.max), True, "max(np.sum(x), np.prod(x))"),
    (builtins.min, _extremum(builtins.min), True, "min(np.sum(x), np.prod(x)) * x"),
):
    register(
        Primitive(
            function.__name__,
            (function,),
            differentiable=differentiable,
            shape=rule,
            samples=[Sample(call, x=real(3))],
        )
    )
