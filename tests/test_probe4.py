"""Regressions found by the fourth probe (srcdiff vs central differences and autograd on
small functions written as published numpy code is): each asserts numbers or an error's
message and location."""

import dataclasses
import functools
import inspect
import typing

import numpy as np
import pytest

import srcdiff as nf
from oracle import finite_differences, gradient_along


def second_order_checks(f, x, v):
    """f's gradient, hvp and reverse-over-reverse against central differences."""
    gradient = nf.grad(f)
    np.testing.assert_allclose(gradient(x), finite_differences(f, (x,), 0), rtol=1e-6, atol=1e-8)
    expected = gradient_along(gradient, (x,), 0, v)
    np.testing.assert_allclose(nf.hvp(f)(x, v), expected, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(nf.vjp(gradient)(x)[1](v), expected, rtol=1e-5, atol=1e-7)


def rows_made_an_array_and_summed_as_lists(x):
    rows = [[x[0], x[1]], [x[2], x[3]]]
    return np.sum(np.array(rows) ** 3) + sum(sum(row) ** 2 for row in rows)


def test_an_array_made_of_a_list_read_as_a_list_too_has_a_second_derivative():
    """The list's adjoint is a Sparse of rows and np.array(rows)'s an array: the second
    order's adjoint of that array reached runtime.cast_grad as a Sparse (a raw TypeError)."""
    x, v = np.array([0.3, -1.2, 0.7, 2.0]), np.array([1.0, -0.5, 2.0, 0.25])
    second_order_checks(rows_made_an_array_and_summed_as_lists, x, v)


def rows_made_an_array_and_one_read_as_a_list(x):
    rows = [[x[0], x[1]], [x[2], x[3]]]
    return np.sum(np.array(rows) ** 3) + sum(rows[0]) * x[3]


def test_an_array_made_of_a_list_with_a_row_read_has_a_second_derivative():
    x, v = np.array([0.3, -1.2, 0.7, 2.0]), np.array([1.0, -0.5, 2.0, 0.25])
    second_order_checks(rows_made_an_array_and_one_read_as_a_list, x, v)


def entries_chosen_by_indices_of_x(x):
    upper = x[np.triu_indices_from(x, 1)]
    return np.sum(upper**2) + np.sum(x[np.diag_indices_from(x)] ** 3) + x.ravel()[np.nanargmax(x)]


def test_indices_read_off_a_differentiated_array_are_constants_in_second_order():
    """np.triu_indices_from(x) and np.nanargmax(x) had no record: the gradient, which reads
    them again, was refused in hvp and grad of grad (no adjoint for a function of x)."""
    x = np.array([[0.3, -1.2, 0.5], [0.7, 2.0, -0.4], [1.1, 0.2, -0.8]])
    v = np.array([[1.0, -0.5, 0.2], [2.0, 0.25, 0.1], [-0.3, 0.6, 1.5]])
    second_order_checks(entries_chosen_by_indices_of_x, x, v)


@dataclasses.dataclass
class Layer:
    w: np.ndarray
    shift: float = 0.5

    @property
    def scale(self):
        return np.sum(self.w**2)

    @functools.cached_property
    def shifted(self):
        return self.w + self.shift

    def __call__(self, x):
        return np.tanh(x @ self.w + self.shift) * self.scale


def properties_of_an_object_made_here(w, x):
    layer = Layer(w, 0.3)
    return np.sum(layer.scale * x) + np.sum(layer.shifted**2) + np.sum(layer(np.outer(x, x)) ** 2)


def properties_of_an_object_argument(layer, x):
    return np.sum(layer.shifted * x) * layer.scale


def test_a_property_of_an_object_made_in_f_is_its_getter_called():
    """Read as a field, layer.scale got a gradient no field holds: the gradient was zeros
    (with no error), and the tangent the property of the tangents."""
    w, x, v = np.array([0.3, -1.2, 0.7]), np.array([0.5, 0.25, -1.0]), np.array([1.0, 0.5, 2.0])
    f = properties_of_an_object_made_here
    expected = finite_differences(f, (w, x), 0)
    np.testing.assert_allclose(nf.grad(f)(w, x), expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(nf.jvp(f)(w, x, v)[1], expected @ v, rtol=1e-6)
    hv = gradient_along(nf.grad(f), (w, x), 0, v)
    np.testing.assert_allclose(nf.hvp(f)(w, x, v), hv, rtol=1e-5, atol=1e-7)


def test_a_property_of_an_object_argument_is_its_getter_called():
    layer, x = Layer(np.array([0.3, -1.2, 0.7]), 0.2), np.array([0.5, 0.25, -1.0])
    got = nf.grad(properties_of_an_object_argument)(layer, x)
    expected = finite_differences(
        lambda w: properties_of_an_object_argument(Layer(w, 0.2), x), (layer.w,), 0
    )
    np.testing.assert_allclose(got.w, expected, rtol=1e-6, atol=1e-8)


def make_layer(w):
    return Layer(w * 1.0)


def property_of_an_object_a_function_made(w, x):
    layer = make_layer(w)
    return np.sum(layer.scale * x)


def property_of_an_object_in_a_list(w, x):
    layers = [Layer(w)]
    return np.sum(layers[0].scale * x)


@pytest.mark.parametrize(
    "f", [property_of_an_object_a_function_made, property_of_an_object_in_a_list]
)
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_property_of_an_object_of_a_class_not_known_is_refused_at_its_line(f, mode):
    """There the gradient was zeros, silently: the property was taken for a constant of
    the class."""
    w, x = np.array([0.3, -1.2]), np.array([0.5, 0.25])
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(f)(w, x) if mode == "grad" else nf.jvp(f)(w, x, w)
    message = str(error.value)
    assert "cannot differentiate .scale of the Layer: it is a property" in message
    line = inspect.getsourcelines(f)[1] + 2
    assert f"test_probe4.py:{line}" in message and "layer" in message.splitlines()[1]


class Affine(typing.NamedTuple):
    w: np.ndarray
    b: float

    @property
    def scaled(self):
        return self.w * self.b

    def total(self):
        return np.sum(self.w) + self.b


def property_of_a_namedtuple_argument(affine):
    return np.sum(affine.scaled**2) + affine.total()


def property_alone_of_a_namedtuple_argument(affine):
    return np.sum(affine.scaled**2)


def test_a_property_of_a_namedtuple_argument_is_its_getter_called():
    """Taken for a constant of the class, its gradient was dropped (b got 1.0, not 7.06).
    (The code is made for the namedtuple's class where it calls a method of it.)"""
    affine = Affine(np.array([0.3, -1.2, 0.7]), 1.5)
    got = nf.grad(property_of_a_namedtuple_argument)(affine)
    f = property_of_a_namedtuple_argument
    np.testing.assert_allclose(
        got.w, finite_differences(lambda w: f(Affine(w, 1.5)), (affine.w,), 0), rtol=1e-6
    )
    np.testing.assert_allclose(
        got.b, finite_differences(lambda b: f(Affine(affine.w, b)), (1.5,), 0)
    )
    with pytest.raises(
        nf.SrcdiffError,
        match=r"(?s)\.scaled of the Affine: it is a property.*"
        r"return np.sum\(affine.scaled",
    ):
        nf.grad(property_alone_of_a_namedtuple_argument)(affine)


class Squared:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return np.sum((self.w * x) ** 2)


class Cubed(Squared):
    def __call__(self, x):
        return np.sum((self.w * x) ** 3)


def objects_of_two_classes_called_in_a_loop(w, x):
    return sum(layer(x) for layer in [Squared(w), Cubed(w)])


def objects_of_a_dict_called(w, x):
    layers = {"a": Squared(w), "b": Squared(2 * w)}
    return sum(layer(x) for layer in layers.values())


@pytest.mark.parametrize("f", [objects_of_two_classes_called_in_a_loop, objects_of_a_dict_called])
def test_a_call_of_an_object_srcdiff_cannot_tell_names_it_as_the_user_wrote_it(f):
    """The error named srcdiff's own loop variable (`_layer0(...)`) and said only that it
    did not know what that was."""
    w, x = np.array([0.3, -1.2]), np.array([0.5, 0.25])
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(f)(w, x)
    message = str(error.value)
    assert "cannot differentiate through layer(...): srcdiff cannot tell before the call" in (
        message
    )
    assert "objects of several classes in one list, of a dict's values" in message
    line = inspect.getsourcelines(f)[1] + len(inspect.getsourcelines(f)[0]) - 1
    assert f"test_probe4.py:{line}:" in message
    assert "hint: call a function by its name, and an object on a name bound" in message


def item_popped_from_a_dict(x):
    d = {"a": x[0], "b": x[1]}
    a = d.pop("a")
    return a * d["b"]


def item_taken_out_of_a_dict_as_the_hint_says(x):
    d = {"a": x[0], "b": x[1]}
    a = d["a"]
    d = {key: u for key, u in d.items() if key != "a"}
    return a * d["b"] + sum(d.values())


def test_a_dicts_pop_is_refused_with_a_rewrite_that_works():
    """The error spoke of lists only, and of a statement of its own, which it was."""
    x = np.array([0.5, 2.0, 3.0])
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(item_popped_from_a_dict)(x)
    message = str(error.value)
    assert "(not a dict's pop)" in message and 'a = d.pop("a")' in message
    assert "for v = d.pop(k): v = d[k] and d = {key: u for key, u in d.items() if key != k}" in (
        message
    )
    np.testing.assert_allclose(nf.grad(item_taken_out_of_a_dict_as_the_hint_says)(x), [2, 1.5, 0])


def subtracted_at_repeated_indices(x, v):
    y = x * 1.0
    np.subtract.at(y, np.array([2, 2, 0]), v**2)
    return np.sum(y**3)


@pytest.mark.parametrize("wrt", [0, 1])
def test_np_subtract_at_is_followed_as_np_add_at_is(wrt):
    """It was refused as a change in place, where np.add.at is followed."""
    x, v = np.array([0.3, -1.2, 0.7, 2.0]), np.array([0.5, -0.25, 1.5])
    f = subtracted_at_repeated_indices
    expected = finite_differences(f, (x, v), wrt)
    np.testing.assert_allclose(nf.grad(f, wrt=wrt)(x, v), expected, rtol=1e-6)
    u = np.ones_like((x, v)[wrt])
    np.testing.assert_allclose(nf.jvp(f, wrt=wrt)(x, v, u)[1], np.sum(expected * u), rtol=1e-6)
    hu = gradient_along(nf.grad(f, wrt=wrt), (x, v), wrt, u)
    np.testing.assert_allclose(nf.hvp(f, wrt=wrt)(x, v, u), hu, rtol=1e-5, atol=1e-7)


def written_along_an_axis(x, v):
    y = x * 1.0
    np.put_along_axis(y, np.argmax(x, axis=0)[None, :], v**2, 0)
    np.put_along_axis(y, np.array([[0], [2], [3]]), v[:, :1] * 3, axis=-1)
    return np.sum(y**3)


@pytest.mark.parametrize("wrt", [0, 1])
def test_np_put_along_axis_is_an_item_write(wrt):
    """It was refused as a change in place."""
    x = np.array([[0.3, -1.2, 0.7, 2.0], [1.1, 0.4, -0.6, 0.9], [-0.2, 1.5, 0.8, -1.3]])
    v = np.array([[0.5, -0.25, 1.5, 0.75]])
    f = written_along_an_axis
    expected = finite_differences(f, (x, v), wrt)
    np.testing.assert_allclose(nf.grad(f, wrt=wrt)(x, v), expected, rtol=1e-6, atol=1e-9)
    u = np.ones_like((x, v)[wrt])
    np.testing.assert_allclose(nf.jvp(f, wrt=wrt)(x, v, u)[1], np.sum(expected * u), rtol=1e-6)
    hu = gradient_along(nf.grad(f, wrt=wrt), (x, v), wrt, u)
    np.testing.assert_allclose(nf.hvp(f, wrt=wrt)(x, v, u), hu, rtol=1e-5, atol=1e-7)


def reductions_given_out_by_position(x):
    kept = np.sum(x, 0, None, None, True)  # (a, axis, dtype, out, keepdims)
    centred = x - np.mean(x, 1, None, None, True) - x.mean(0, None, None, True)
    return (
        np.sum(kept**2)
        + np.sum(centred**2)
        + np.sum(np.max(x, 1, None, True) ** 2)
        + np.sum(np.cumsum(x, 1, None, None) ** 2)
        + np.sum(np.clip(x, -0.5, 0.5, None) ** 3)
    )


def test_a_reductions_arguments_after_out_by_position_bind_as_numpy_binds_them():
    """The templates take no `out`: the None passed for it was bound as keepdims (a raw
    TypeError in forward mode), or refused as too many arguments."""
    x = np.array([[0.3, -1.2, 0.7, 2.0], [1.1, 0.4, -0.6, 0.9], [-0.2, 1.5, 0.8, -1.3]])
    v = np.array([[1.0, -0.5, 0.2, 0.3], [2.0, 0.25, 0.1, -1.0], [-0.3, 0.6, 1.5, 0.4]])
    f = reductions_given_out_by_position
    expected = finite_differences(f, (x,), 0)
    np.testing.assert_allclose(nf.grad(f)(x), expected, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(nf.jvp(f)(x, v)[1], np.sum(expected * v), rtol=1e-6)
    second_order_checks(f, x, v)


def mean_over_a_mask(x):
    return np.sum(np.mean(x, axis=0, where=x > -0.5))


def mean_over_a_mask_as_the_hint_writes_it(x):
    m = x > -0.5
    return np.sum(np.sum(x, 0, where=m) / np.sum(m, 0))


def test_where_given_to_a_mean_is_followed_as_the_mean_over_the_mask():
    """It was refused (its error said "only with where at its default (<no value>)", then
    pointed to the rewrite below): both forms now give the same gradient."""
    x = np.array([[0.3, -1.2, 0.7], [1.1, 0.4, -0.6], [-0.2, 1.5, 0.8]])
    expected = finite_differences(mean_over_a_mask, (x,), 0)
    np.testing.assert_allclose(nf.grad(mean_over_a_mask)(x), expected, rtol=1e-6)
    f = mean_over_a_mask_as_the_hint_writes_it
    np.testing.assert_allclose(nf.grad(f)(x), expected, rtol=1e-6)


def quantiles_of_every_method_that_reads_order_statistics(x):
    q = [0.125, 0.375, 0.6]  # (positions 0.5, 1.5, 2.4 of 5: nearest rounds halves to even)
    return (
        np.sum(np.quantile(x, q, method="nearest") * [1.0, 2.0, 3.0])
        + np.percentile(x, 60, method="lower") * 2
        + np.sum(np.quantile(x.reshape(1, 5), 0.6, axis=1, method="higher") ** 2)
        + np.quantile(x, 0.6, method="midpoint") * 5
        + np.quantile(x, 0.6) ** 2
    )


def test_quantiles_of_the_methods_that_pick_order_statistics_are_differentiated():
    """Only numpy's default method='linear' was followed."""
    x, v = np.array([0.3, -1.2, 0.7, 2.0, 1.1]), np.array([1.0, -0.5, 2.0, 0.25, 0.5])
    f = quantiles_of_every_method_that_reads_order_statistics
    expected = finite_differences(f, (x,), 0)
    np.testing.assert_allclose(nf.grad(f)(x), expected, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(nf.jvp(f)(x, v)[1], expected @ v, rtol=1e-6)
    second_order_checks(f, x, v)


def arithmetic_of_arrays_and_lists(x):
    weighted = np.sum(np.sin(x) * [1.0, 2.0, 3.0]) + np.sum([0.5, 1.5, 2.5] / (x**2 + 1))
    active = np.sum(x * [x[1], x[2] ** 2, 1.0]) + np.sum((x[0], x[1] * 3, x[2]) - x)
    return weighted + active + np.sum(np.abs(x) ** [1, 2, 3])


def test_an_array_times_a_list_display_is_numpys_product():
    """x * [1.0, 2.0, 3.0] was refused as repeating a list by a count not in the code (or
    as joining lists with *): a list display beside an array under any operator but + is
    the array numpy makes of it."""
    x, v = np.array([0.3, -1.2, 0.7]), np.array([1.0, -0.5, 2.0])
    f = arithmetic_of_arrays_and_lists
    expected = finite_differences(f, (x,), 0)
    np.testing.assert_allclose(nf.grad(f)(x), expected, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(nf.jvp(f)(x, v)[1], expected @ v, rtol=1e-6)
    second_order_checks(f, x, v)


class Doubling:
    def __init__(self, items):
        self.items = items

    def __getitem__(self, k):
        return self.items[k] * 2

    def __iter__(self):
        return iter(self.items)


def items_of_an_object_made_here(x):
    s = Doubling([x[0], x[1], x[2] ** 2])
    return s[1] * 3 + s.items[0] + s[2] * s[-3]


def items_of_an_object_argument(s):
    return s[1] * 3 + s.items[0] + s[2] * s[-3]


def test_an_item_of_an_object_whose_class_defines_getitem_is_its_method_called():
    """s[1] was read as an item of the object: its adjoint, keyed by 1, was found under no
    field (a raw TypeError), where s.items[0] was read too its gradient was dropped."""
    x, v = np.array([0.3, -1.2, 0.7]), np.array([1.0, -0.5, 2.0])
    f = items_of_an_object_made_here
    expected = finite_differences(f, (x,), 0)
    np.testing.assert_allclose(nf.grad(f)(x), expected, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(nf.jvp(f)(x, v)[1], expected @ v, rtol=1e-6)
    second_order_checks(f, x, v)
    got = nf.grad(items_of_an_object_argument)(Doubling(x))
    np.testing.assert_allclose(got.items, [2.0 * 2 * x[2] + 1, 6.0, 2.0 * 2 * x[0]], rtol=1e-12)


def loop_over_an_object_by_name(x):
    s = Doubling([x[0], x[1] * 2])
    total = 0.0
    for v in s:
        total = total + v**2
    return total


def test_a_loop_over_an_object_whose_class_defines_iter_is_refused_at_its_line():
    """srcdiff went over it by index as over a list: a raw TypeError as it ran."""
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(loop_over_an_object_by_name)(np.array([0.3, -1.2]))
    message = str(error.value)
    assert "the loop goes over s, a Doubling whose __iter__ srcdiff does not follow" in message
    assert "for v in s:" in message and "hint: go over what it holds" in message


def products_in_nested_lists_made_an_array(x):
    m = [[a * b for b in x] for a in x]
    return np.sum(np.array(m) ** 2)


def test_an_array_made_of_a_list_of_lists_has_a_second_derivative():
    """The second order's adjoint of np.array(m) had rows that are Sparse adjoints of
    lists: runtime.items_like made arrays of them with np.asarray (a raw TypeError)."""
    x, v = np.array([0.3, -1.2, 0.7]), np.array([1.0, -0.5, 2.0])
    second_order_checks(products_in_nested_lists_made_an_array, x, v)


def zipped_strictly(x):
    total = 0.0
    for a, b in zip(x, [1.0, 2.0, 3.0], strict=True):
        total += a * b
    return total


def test_zip_with_strict_says_it_is_the_form_that_is_refused():
    """The error said zip(...) of differentiated values cannot be differentiated, and
    that srcdiff follows zip."""
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(zipped_strictly)(np.array([0.3, -1.2, 0.7]))
    message = str(error.value)
    assert "zip(...) of differentiated values cannot be differentiated in this form" in message
    assert "zip (without strict=)" in message
