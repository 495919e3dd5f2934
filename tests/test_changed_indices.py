"""An index that a differentiated read takes (x[idx], y[idx] = v, np.take(x, idx), a user
function's x[idx]) and that f changes in place afterwards (idx[0] = i, idx.append(i), a
function that changes its argument; in a loop, also before the read, in the next iteration):
the reverse sweep read the index when it ran, changed, and the gradient was silently wrong or
raised a raw ValueError. Now the read keeps a copy of the index as it found it
(runtime.copied_index, changed_later.py). Each derivative is checked against finite
differences: reverse, forward, forward over reverse and reverse over reverse. autograd keeps
the list by reference too, and gets these wrong, so it is no oracle here."""

import inspect

import numpy as np
import pytest

import srcdiff as nf
from oracle import finite_differences, gradient_along, random_like

X = np.array([0.5, -0.7, 1.3, 0.9, -0.4])


def assert_derivatives(f, x=X):
    expected = finite_differences(f, (x,), 0)
    np.testing.assert_allclose(nf.grad(f)(x), expected, rtol=1e-6, atol=1e-8)
    v = random_like(x, seed=1)
    tangent = nf.jvp(f)(x, v)[1]
    assert tangent == pytest.approx(float(np.dot(expected, v)), rel=1e-6, abs=1e-8)
    along = gradient_along(nf.grad(f), (x,), 0, v)
    np.testing.assert_allclose(nf.hvp(f)(x, v), along, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(nf.vjp(nf.grad(f))(x)[1](v), along, rtol=1e-5, atol=1e-7)


# --- changed in a loop: each was wrong or raised on main ---------------------------------------


def item_replaced_before_the_read(x):
    idx = [0, 1]
    s = 0.0
    for i in range(3):
        idx[0] = i + 1  # (changes the index the read of the iteration before took)
        s = s + np.sum(x[idx] * (i + 1.0))
    return s


def appended_after_the_read(x):
    idx = [0]
    s = 0.0
    for i in range(3):
        s = s + np.sum(x[idx] ** 2 * (i + 1.0))
        idx.append(i + 1)
    return s


def appended_on_some_iterations(x):
    idx = [0, 1]
    s = 0.0
    for i in range(4):
        s = s + np.sum(x[idx] ** 2 * (i + 1.0))
        if i % 2 == 1:
            idx.append(i)
    return s


def deleted_from_in_a_loop(x):
    idx = [0, 1, 2]
    s = 0.0
    for i in range(2):
        s = s + np.sum(x[idx] ** 2 * (i + 1.0))
        del idx[0]
    return s


def popped_in_a_while_loop(x):
    idx = [0, 1, 2, 3]
    s = 0.0
    while len(idx) > 1:
        s = s + np.sum(x[idx] ** 2) * len(idx)
        idx.pop()
    return s


def read_through_an_alias(x):
    idx = [0, 1]
    s = 0.0
    for i in range(3):
        j = idx
        s = s + np.sum(x[j] ** 2 * (i + 1.0))
        idx[0] = i + 1
    return s


def columns_appended_to(x):
    m = np.reshape(x[:4], (2, 2))
    cols = [0]
    s = 0.0
    for i in range(2):
        s = s + np.sum(m[:, cols] ** 2 * (i + 1.0))
        cols.append(1 - i)
    return s


def rows_looped_over_and_appended_to(x):
    rows = [[0], [1]]
    s = 0.0
    for i in range(2):
        for r in rows:
            s = s + np.sum(x[r] ** 2 * (i + 1.0))
            r.append(i + 2)
    return s


def read_in_a_comprehension(x):
    idx = [0, 1]
    s = 0.0
    for i in range(2):
        ys = [x[idx] * k for k in range(2)]
        s = s + np.sum(ys[0] ** 2 + ys[1])
        idx.append(i + 2)
    return s


def squares_at(x, idx):
    return np.sum(x[idx] ** 2)


def read_by_a_function_called(x):
    idx = [0, 1]
    s = 0.0
    for i in range(3):
        s = s + squares_at(x, idx) * (i + 1.0)
        idx[0] = i + 2
    return s


def squares_at_then_appends(x, idx, i):
    y = np.sum(x[idx] ** 2)
    idx.append(i)
    return y


def read_and_appended_to_by_a_function_called(x):
    idx = [0]
    s = 0.0
    for i in range(3):
        s = s + squares_at_then_appends(x, idx, i + 1) * (i + 1.0)
    return s


def written_through_an_index_replaced_later(x):
    idx = [0, 1]
    s = 0.0
    for i in range(3):
        y = x * 1.0
        y[idx] = x[2] ** 2
        s = s + np.sum(y**2 * (i + 1.0))
        idx[0] = i + 2
    return s


def taken_by_an_index_replaced_later(x):
    idx = [0, 1]
    s = 0.0
    for i in range(3):
        s = s + np.sum(np.take(x, idx) ** 2 * (i + 1.0))
        idx[0] = i + 2
    return s


def taken_by_method_then_appended_to(x):
    idx = [0, 1]
    s = 0.0
    for i in range(3):
        s = s + np.sum(x.take(idx) ** 2 * (i + 1.0))
        idx.append(i + 2)
    return s


def array_index_written_into(x):
    idx = np.array([0, 1])
    s = 0.0
    for i in range(3):
        s = s + np.sum(x[idx] ** 2 * (i + 1.0))
        idx[0] = i + 1
    return s


def changed_in_nested_loops(x):
    idx = [0, 1]
    s = 0.0
    for i in range(2):
        for j in range(2):
            s = s + np.sum(x[idx] ** 2 * (i + 2.0 * j + 1.0))
            idx[1] = 2 + j
        idx[0] = 3 - i
    return s


def changed_by_list_methods(x):
    idx = [3, 0]
    s = 0.0
    for i in range(2):
        s = s + np.sum(x[idx] ** 2 * np.arange(1.0, len(idx) + 1.0))
        idx.insert(0, i + 1)
        idx.reverse()
        idx.extend([4])
        idx += [i]
        idx[0:2] = [2, 1]
    return s


LOOPS = [
    changed_in_nested_loops,
    changed_by_list_methods,
    item_replaced_before_the_read,
    appended_after_the_read,
    appended_on_some_iterations,
    deleted_from_in_a_loop,
    popped_in_a_while_loop,
    read_through_an_alias,
    columns_appended_to,
    rows_looped_over_and_appended_to,
    read_in_a_comprehension,
    read_by_a_function_called,
    read_and_appended_to_by_a_function_called,
    written_through_an_index_replaced_later,
    taken_by_an_index_replaced_later,
    taken_by_method_then_appended_to,
    array_index_written_into,
]


@pytest.mark.parametrize("f", LOOPS, ids=lambda f: f.__name__)
def test_an_index_changed_in_a_loop(f):
    assert_derivatives(f)


def test_the_wrong_gradient_of_an_item_replaced_before_the_read():
    """The reverse sweep read idx as the loop left it ([3, 1]) for all three reads:
    [0, 6, 0, 6, 0] where [0, 7, 2, 3, 0] is right."""
    np.testing.assert_allclose(
        nf.grad(item_replaced_before_the_read)(X), [0.0, 7.0, 2.0, 3.0, 0.0], atol=1e-12
    )


# --- straight-line code ---------------------------------------------------------------------------


def appended_to_after_the_read(x):
    idx = [0, 1]
    y = x[idx]
    idx.append(2)  # (was: ValueError: array is not broadcastable to correct shape)
    return np.sum(y**2) + np.sum(x[idx] * 2.0)


def sorted_after_the_read(x):
    idx = [2, 0, 1]
    y = x[idx]
    idx.sort()
    return np.sum(y**2 * np.array([1.0, 2.0, 3.0])) + np.sum(x[idx] * 2.0)


def taken_then_replaced(x):
    idx = [0, 1]
    y = np.take(x, idx)
    idx[0] = 3
    return np.sum(y**2)


def deleted_by_an_index_replaced_later(x):
    idx = [0, 1]
    y = np.delete(x, idx)
    idx[0] = 3
    return np.sum(y**2 * np.array([1.0, 2.0, 3.0]))


def repeated_by_counts_replaced_later(x):
    reps = [1, 2, 0, 1, 1]
    y = np.repeat(x, reps)
    reps[0] = 3
    return np.sum(y**2 * np.arange(5.0))


def bump(items, value):
    items[0] = value


def changed_by_a_function_called(x):
    idx = [0, 1]
    s = np.sum(x[idx] ** 2)
    bump(idx, 3)
    return s + np.sum(x[idx] * 2.0)


STRAIGHT = [
    appended_to_after_the_read,
    sorted_after_the_read,
    taken_then_replaced,
    deleted_by_an_index_replaced_later,
    repeated_by_counts_replaced_later,
    changed_by_a_function_called,
]


@pytest.mark.parametrize("f", STRAIGHT, ids=lambda f: f.__name__)
def test_an_index_changed_after_the_read(f):
    assert_derivatives(f)


# --- the emitted code -----------------------------------------------------------------------------


def test_the_read_keeps_a_copy_of_the_index_for_each_iteration():
    grad = nf.grad(item_replaced_before_the_read)
    source = grad.source
    assert "        _idx0 = runtime.copied_index(idx)\n        _stack_idx0.append(_idx0)\n" in (
        source
    ), source
    assert "_t0 = x[_idx0]" in source
    assert "bx = runtime.add_at(bx, x, _idx0, b_t0)" in source
    specialised = nf.grad(sorted_after_the_read).source_for(X)
    assert "    _idx0 = idx.copy()\n    y = x[_idx0]\n    idx.sort()\n" in specialised  # (of ints)


def reads_an_index_nothing_changes(x):
    idx = [0, 1]
    i = 0
    s = 0.0
    while i < 3:
        s = s + np.sum(x[idx]) * x[i]
        i += 1  # (binds i anew: changes nothing in place)
    return s


def test_no_copy_where_nothing_changes_the_index():
    assert "copied_index" not in nf.grad(reads_an_index_nothing_changes).source
    assert_derivatives(reads_an_index_nothing_changes)


def passes_an_index_to_a_function_that_keeps_it(x):
    idx = [0, 1]
    s = squares_at(x, idx)
    idx.append(3)
    return s


def test_a_function_called_gets_a_copy_only_where_it_leaves_it_as_passed():
    """squares_at neither changes idx nor keeps it: fwd_squares_at is passed a copy, which
    bwd_squares_at reads; squares_at_then_appends changes it, and is passed idx itself (it
    copies it at its own read)."""
    source = nf.grad(passes_an_index_to_a_function_that_keeps_it).source
    assert "_idx0 = runtime.copied_index(idx)" in source
    assert "fwd_squares_at(x, _idx0)" in source
    assert_derivatives(passes_an_index_to_a_function_that_keeps_it)
    source = nf.grad(read_and_appended_to_by_a_function_called).source
    assert "fwd_squares_at_then_appends(x, idx, _t0)" in source, source


# --- a slice of a differentiated list replaced --------------------------------------------------


def replaces_a_slice(x):
    a = [x[0], x[1], x[2], x[3]]
    a[1:3] = [x[0] * 2.0, 3.0]  # (was: TypeError: unhashable type: 'slice')
    return a[0] * a[1] + a[2] * a[3]


def replaces_a_slice_by_more_items(x):
    a = [x[0], x[1]]
    a[1:2] = [x[2], x[3] ** 2, 1.0]
    return a[0] * a[1] + a[2] * a[3]


def replaces_an_empty_slice(x):
    a = [x[0], x[1], x[2], x[3]]
    k = 3
    a[k:1] = [x[1] * 2.0]  # (inserts before a[3])
    return a[0] * a[1] + a[2] * a[3] + a[4]


def replaces_a_slice_in_a_loop(x):
    a = [x[0], x[1], x[2]]
    for i in range(2):
        a[0:2] = [a[1] * x[3], a[0]]
    return a[0] * a[1] + a[2]


SLICES = [
    replaces_a_slice,
    replaces_a_slice_by_more_items,
    replaces_an_empty_slice,
    replaces_a_slice_in_a_loop,
]


@pytest.mark.parametrize("f", SLICES, ids=lambda f: f.__name__)
def test_a_slice_of_a_list_replaced(f):
    """list_changes.py binds the list to a new one: a = [*a[:1], *vs, *a[3:]]."""
    assert_derivatives(f)


def replaces_a_slice_with_a_step(x):
    a = [x[0], x[1], x[2], x[3]]
    a[::2] = [x[1] * 2.0, 3.0]
    return a[0] * a[1] + a[2] * a[3]


def test_a_slice_with_a_step_is_refused_in_reverse_mode():
    with pytest.raises(nf.SrcdiffError) as caught:
        nf.grad(replaces_a_slice_with_a_step)(X)
    assert caught.value.location.line.strip() == "a[::2] = [x[1] * 2.0, 3.0]"
    _, first = inspect.getsourcelines(replaces_a_slice_with_a_step)
    assert caught.value.location.lineno == first + 2
    assert "replacing a slice of the list 'a' here cannot be differentiated" in str(caught.value)
    assert "make a new list of the items you want" in str(caught.value)
    expected = finite_differences(replaces_a_slice_with_a_step, (X,), 0)
    tangent = nf.jvp(replaces_a_slice_with_a_step)(X, np.ones(5))[1]
    assert tangent == pytest.approx(float(np.sum(expected)), rel=1e-6)
