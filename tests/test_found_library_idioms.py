"""Python library idioms a prober found refused inside f (copy, itertools, a sort in place,
collections.deque, np.einsum's interleaved form): each now differentiated, checked against
finite differences and autograd, or refused at the user's line with the way out."""

import collections
import copy
import inspect
import itertools
import signal

import numpy as np
import pytest

import srcdiff as nf
from test_found_idioms import assert_derivatives

X = np.array([0.3, -1.2, 0.7, 2.1, -0.4, 0.55])


# --- copy.copy and copy.deepcopy ------------------------------------------------------------------


def loss_of_deep_copied_parameters(x):
    params = {"w": x, "b": [x[0], x[1]], "t": (x[2], x[3:])}
    p = copy.deepcopy(params)
    p["w"] = p["w"] * 2.0  # (a change to the copy, not to params)
    return np.sum(p["w"] ** 2 * params["w"]) + p["b"][0] * p["b"][1] + np.sum(p["t"][1]) * p["t"][0]


def loss_of_shallow_copies(x):
    xs = copy.copy([x[0], x[1], x[2]])
    return np.sum(copy.copy(x) ** 3) + xs[0] * xs[1] + xs[2] * copy.copy(x[4])


def test_copies_pass_the_gradient_to_each_leaf():
    """copy.deepcopy(params) and copy.copy(x) had no adjoint: a copy is the identity on
    each of its leaves. (autograd's deepcopy of its boxes cuts them off from x: its
    gradient is wrong.)"""
    assert_derivatives(loss_of_deep_copied_parameters, X, autograd=False)
    assert_derivatives(loss_of_shallow_copies, X)
    assert (
        loss_of_deep_copied_parameters(X) == nf.value_and_grad(loss_of_deep_copied_parameters)(X)[0]
    )


# --- itertools ------------------------------------------------------------------------------------


def loss_of_chained_lists(x):
    a, b = [x[0], x[1]], [x[2] * x[3]]
    total = 0.0
    for v in itertools.chain(a, b, [x[4]]):
        total = total + v**2
    rows = [a, b]
    return total + sum([v * x[5] for v in itertools.chain(a, b)]) + sum(itertools.chain(*rows))


def loss_of_a_sliced_iterator(x):
    xs = [x[k] for k in range(6)]
    firsts = sum(v**3 for v in itertools.islice(xs, 3))
    return firsts + sum([np.sin(v) for v in itertools.islice(xs, 1, None, 2)])


def loss_of_pairs(x):
    xs = [x[k] for k in range(5)]
    total = 0.0
    for a, b in itertools.pairwise(xs):
        total = total + a * np.cos(b)
    return total + sum([(b - a) ** 2 for a, b in itertools.pairwise(xs[::-1])])


def loss_of_combinations(x):
    rows = [x[:2], x[2:4], x[4:]]
    return sum([np.sum((a - b) ** 2) for a, b in itertools.combinations(rows, 2)]) + sum(
        a * b * c for a, b, c in itertools.combinations([x[0], x[2], x[3], x[5]], 3)
    )


def loss_of_indices_from_itertools(x):
    total = 0.0
    for k in itertools.islice(itertools.count(), 3):  # (nothing differentiated in it)
        total = total + x[k] ** 2
    return total


@pytest.mark.parametrize(
    "f",
    [
        loss_of_chained_lists,
        loss_of_a_sliced_iterator,
        loss_of_pairs,
        loss_of_combinations,
        loss_of_indices_from_itertools,
    ],
)
def test_itertools_over_lists_of_differentiated_values(f):
    """itertools.chain, islice, pairwise and combinations of differentiated values were
    refused ('itertools.chain(...) of differentiated values cannot be differentiated'):
    srcdiff follows them as Python that makes the list of what they yield."""
    assert_derivatives(f, X)


def loss_of_an_endless_slice(x):
    total = 0.0
    for k in itertools.islice(itertools.count(), 2, None):
        if k > 4:
            break
        total = total + x[k] ** 2 * x[0]
    return total


def loss_of_an_endless_count(x):
    total, items = 0.0, iter([0.5, 1.5, 2.5, 3.5])
    for k in itertools.count(1):
        if total > 3.0:
            break
        total = total + np.sin(x[k]) * x[0] + next(items)
    return total + next(items) * x[1]  # (the loop read no further than f's)


def loss_of_a_stopped_slice_of_an_endless_count(x):
    return sum([x[k] * x[k + 1] for k in itertools.islice(itertools.count(), 1, 5, 2)])


def within_seconds(seconds, run):
    """run() or a failure when it takes longer than `seconds` (it would hang, not just be slow)."""

    def stop(*_):
        raise TimeoutError(f"still running after {seconds} s: it never ends")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        return run()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize(
    "f",
    [
        loss_of_an_endless_slice,
        loss_of_an_endless_count,
        loss_of_a_stopped_slice_of_an_endless_count,
    ],
)
def test_a_loop_a_break_leaves_over_an_endless_iterator(f):
    """itertools.islice(itertools.count(), 2, None) listed the whole count first, and a
    loop over a constant iterable that a break leaves was copied into a list before it ran:
    either never ended. Now the loop takes its items as f's does."""
    within_seconds(120, lambda: assert_derivatives(f, X))


def endless(x):
    v = x[0]
    while True:
        yield v
        v = v * x[1]


def loss_of_an_endless_generator(x):
    total = 0.0
    for v in endless(x):
        total = total + v
        if total > 3.0:
            break
    return total


def test_an_endless_generator_is_refused_at_its_loop():
    """A generator srcdiff follows is the list of all it yields: an endless one is refused
    (not run for ever), at its `while True`."""
    for derivative in (nf.grad, lambda f: lambda x: nf.jvp(f)(x, x)):
        assert_refused(
            lambda: within_seconds(60, lambda: derivative(loss_of_an_endless_generator)(X)),
            endless,
            "while True",
            "a generator that yields in a `while True` loop (its items may never end)",
            "loop over a range, or yield from a finite loop",
        )


def line_of(f, text):
    """The line number in this file of f's line holding `text`."""
    lines, first = inspect.getsourcelines(f)
    [at] = [first + k for k, line in enumerate(lines) if text in line]
    return at


def assert_refused(derivative, f, text, message, hint):
    with pytest.raises(nf.SrcdiffError) as error:
        derivative()
    assert (error.value.message, error.value.hint) == (message, hint)
    assert error.value.location.lineno == line_of(f, text)


# --- a sort in place ------------------------------------------------------------------------------


def loss_of_a_sorted_copy(x, axis):
    y = x.copy()
    y.sort(axis=axis)
    return np.sum(y * np.arange(6.0).reshape(x.shape))


def loss_of_a_sorted_copy_of_an_array(x):
    y = x.copy()
    y.sort()
    return np.sum(y * np.arange(6.0).reshape(x.shape)) + np.sum(np.sin(y[0]))


def test_a_sort_in_place_of_an_array():
    """y = x.copy(); y.sort(axis=axis) was refused, saying to assign np.sort(y): it is
    that (list.sort takes no axis), and y.sort() too, y checked to be an array as it runs.
    (autograd's boxes have no copy nor sort in place: finite differences decide.)"""
    x = X.reshape(2, 3)
    for axis in (0, 1, -1):
        assert_derivatives(loss_of_a_sorted_copy, x, axis, autograd=False)
    assert_derivatives(loss_of_a_sorted_copy_of_an_array, x, autograd=False)
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(loss_of_a_sorted_copy_of_an_array)([[0.3, 0.1, 0.2], [1.0, 0.5, 0.7]])
    assert (error.value.message, error.value.hint) == (
        "srcdiff took y.sort() for the sort of an array, but y is of type list",
        "assign the sorted values instead: y = sorted(y) of a list",
    )
    assert error.value.location.lineno == line_of(loss_of_a_sorted_copy_of_an_array, "y.sort(")


# --- np.einsum's interleaved form -----------------------------------------------------------------


def loss_of_interleaved_einsums(x):
    a, b = np.reshape(x, (2, 3)), np.reshape(x[::-1], (3, 2))
    product = np.einsum(a, [0, 1], b, (1, 2), [0, 2])
    implicit = np.einsum(a, [1, 0], a, [1, 0])  # (no output: its own subscripts' ordering)
    return np.sum(product**2) + implicit * np.einsum(x, [0], x, [0], [])


def test_the_interleaved_form_of_einsum():
    """np.einsum(a, [0, 1], b, [1, 2], [0, 2]) was refused: 'np.einsum has no gradient
    with respect to its argument 'subscripts'', hint 'make 'subscripts' a constant'. It is
    np.einsum('ab,bc->ac', a, b). (autograd takes the form only with an output sublist:
    'Need sublistout argument'.)"""
    assert_derivatives(loss_of_interleaved_einsums, X, autograd=False)
    value = nf.value_and_grad(loss_of_interleaved_einsums)(X)[0]
    assert value == loss_of_interleaved_einsums(X)


def loss_of_an_einsum_of_named_sublists(x):
    a, rows = np.reshape(x, (2, 3)), [0, 1]
    return np.sum(np.einsum(a, rows, a, rows, [0]) ** 2)


def test_the_interleaved_form_with_sublists_not_written_in_the_call():
    """Sublists held in names said to make 'subscripts' (an array here) a constant."""
    assert_refused(
        lambda: nf.grad(loss_of_an_einsum_of_named_sublists)(X),
        loss_of_an_einsum_of_named_sublists,
        "np.einsum(",
        "np.einsum(operand, sublist, ...) is followed only with each sublist written in the "
        "call as a list of numbers",
        "write them in the call (np.einsum(a, [0, 1], b, [1, 2], [0, 2])), or give the "
        "subscripts string (np.einsum('ab,bc->ac', a, b))",
    )


# --- collections.deque ----------------------------------------------------------------------------


def loss_of_a_deque_of_items(x):
    queue = collections.deque([x[0], x[1] * 2.0])
    return queue[0] * queue[1]


def loss_of_a_queue(x):
    queue = collections.deque()
    queue.append(x[0])
    queue.append(x[1] * 2.0)
    total = 0.0
    while queue:
        v = queue.popleft()
        total = total + v * v * x[3]
    return total


def loss_of_a_queue_kept_as_a_list(x):
    queue, k, total = [x[0], x[1] * 2.0, x[2]], 0, 0.0
    while k < len(queue):
        v = queue[k]
        k += 1
        total = total + v * v * x[3]
        if k < 3:
            queue.append(v * 0.5)
    return total


def loss_of_a_sliding_window(x):
    window = collections.deque()
    total = 0.0
    for k in range(6):
        window.append(x[k] * 2.0)
        if len(window) > 3:
            window.popleft()
        total = total + sum(window) * x[k]
    return total


def loss_of_a_window_of_fixed_length(x):
    window = collections.deque(maxlen=3)
    total = 0.0
    for k in range(6):
        window.append(np.sin(x[k]))
        total = total + window[0] * window[-1]
    window.appendleft(x[5] ** 2)  # (drops the last)
    return total + window[0] * window[2]


def loss_of_items_added_at_the_front(x):
    queue = collections.deque([x[0], x[1]])
    queue.appendleft(x[2] ** 2)
    total = 0.0
    while queue:
        v = queue.popleft()
        total = total + v * v * x[3]
    return total


@pytest.mark.parametrize(
    "f",
    [
        loss_of_a_deque_of_items,
        loss_of_a_queue,
        loss_of_a_queue_kept_as_a_list,
        loss_of_a_window_of_fixed_length,
        loss_of_items_added_at_the_front,
    ],
)
def test_a_deque_used_as_a_queue(f):
    """collections.deque(items) of differentiated values, and popleft and appendleft, were
    refused ('changes a deque at its front'), a maxlen too: a deque f makes and uses as a
    list is one (deques.py), its popleft pop(0), its appendleft insert(0, v), and past
    maxlen the item at the other end dropped."""
    assert_derivatives(f, X)


def test_a_sliding_window_summed():
    """As above, in reverse over reverse too (see test_found_bugs'
    test_grad_of_grad_of_a_sum_of_a_list_popped_at_its_front)."""
    assert_derivatives(loss_of_a_sliding_window, X)


def loss_of_a_rotated_deque(x):
    queue = collections.deque([x[0], x[1] * 2.0])
    queue.rotate(1)
    return queue[0] * x[2]


def test_a_deque_used_otherwise_is_refused_at_its_line():
    """A deque whose methods a list has not (rotate) stays one, which srcdiff refuses."""
    assert_refused(
        lambda: nf.grad(loss_of_a_rotated_deque)(X),
        loss_of_a_rotated_deque,
        "collections.deque(",
        "collections.deque(...) of differentiated values: srcdiff follows a deque made "
        "empty, collections.deque(), then changed by append and pop as a stack",
        "make it empty and append the items one by one, or keep a list and read it in "
        "order by a count (v = items[k]; k += 1)",
    )
