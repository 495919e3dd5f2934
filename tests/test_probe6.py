"""Regressions found by the sixth probe (published numpy programs nobody on srcdiff wrote,
run by srcdiff against central differences and autograd in reverse mode, forward mode, hvp
and reverse over reverse): rows checked as tests/test_oracle.py checks its rows, and the
refusals with their messages and locations."""

import collections

import numpy as np
import pytest

import srcdiff as nf

from oracle import Table, check_forward, check_grad_of_grad, check_hvp, check_reverse

pytest.importorskip("autograd")

TABLE = Table()
case = TABLE.case
rng = np.random.default_rng(20261205)
NO_COPY = "autograd has no derivative of np.copy"


# --- dicts bound together (min-char-rnn) ---------------------------------------------------------

VOCABULARY, HIDDEN = 5, 4
INPUTS, TARGETS = [0, 2, 1, 3], [2, 1, 3, 4]


def min_char_rnn_loss(params, hprev):
    """Karpathy's min-char-rnn forward pass as published: four dicts bound by one statement,
    keyed by the step (and -1 for the state before the first)."""
    Wxh, Whh, Why, bh, by = params
    xs, hs, ys, ps = {}, {}, {}, {}
    hs[-1] = np.copy(hprev)
    loss = 0
    for t in range(len(INPUTS)):
        xs[t] = np.zeros((VOCABULARY, 1))
        xs[t][INPUTS[t]] = 1
        hs[t] = np.tanh(np.dot(Wxh, xs[t]) + np.dot(Whh, hs[t - 1]) + bh)
        ys[t] = np.dot(Why, hs[t]) + by
        ps[t] = np.exp(ys[t]) / np.sum(np.exp(ys[t]))
        loss += -np.log(ps[t][TARGETS[t], 0])
    return loss


RNN_PARAMS = (
    0.3 * rng.normal(size=(HIDDEN, VOCABULARY)),
    0.3 * rng.normal(size=(HIDDEN, HIDDEN)),
    0.3 * rng.normal(size=(VOCABULARY, HIDDEN)),
    0.1 * rng.normal(size=(HIDDEN, 1)),
    0.1 * rng.normal(size=(VOCABULARY, 1)),
)
case(RNN_PARAMS, rng.normal(size=(HIDDEN, 1)))(min_char_rnn_loss)
case(RNN_PARAMS, rng.normal(size=(HIDDEN, 1)), wrt=1, autograd=NO_COPY)(min_char_rnn_loss)


def dicts_keyed_by_str_bound_together(x):
    """(`p, q = {}, {}` once took p and q for arrays: `p['a'] = ...` saved p['a'], which
    was not there yet, a KeyError)."""
    p, q = {}, {}
    p["a"] = x**2
    q["b"] = p["a"] * 3
    return np.sum(q["b"] * x)


case(rng.normal(size=3))(dicts_keyed_by_str_bound_together)


def recurrence_in_one_dict(Whh, hprev):
    """The state before the first step a constant, kept in the dict the loop writes: the
    gradient's own loop left a bare pop of that constant's adjoint (refused in second order),
    and its forward mode read the dict's items as 0.0 (np.dot(W, 0.0) is a matrix)."""
    hs = {}
    hs[-1] = np.copy(hprev)
    loss = 0
    for t in range(3):
        hs[t] = np.tanh(np.dot(Whh, hs[t - 1]))
        loss += np.sum(hs[t] ** 2)
    return loss


case(0.5 * rng.normal(size=(3, 3)), rng.normal(size=3))(recurrence_in_one_dict)
case(0.5 * rng.normal(size=(3, 3)), rng.normal(size=3), wrt=1, autograd=NO_COPY)(
    recurrence_in_one_dict
)


# --- writes through .flat (scikit-learn's kernel jitter) ---------------------------------------


def log_det_with_jitter_on_the_flat_diagonal(noise, x):
    """`K.flat[::n + 1] += noise`, as scikit-learn's GaussianProcessRegressor adds alpha
    (once refused as a change of what an object holds, with a hint that was no way out)."""
    K = np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2)
    K.flat[:: len(x) + 1] += noise
    return np.linalg.slogdet(K)[1]


NO_FLAT = "autograd's arrays have no .flat"
case(0.3, rng.normal(size=4), autograd=NO_FLAT)(log_det_with_jitter_on_the_flat_diagonal)
case(0.3, rng.normal(size=4), wrt=1, autograd=NO_FLAT)(log_det_with_jitter_on_the_flat_diagonal)


def flat_items_written(x):
    """.flat written by a list of positions, a position and a slice (in place, *=)."""
    A = np.zeros((2, 3))
    A.flat[[0, 4]] = x[:2] ** 2
    A.flat[5] = x[2] * x[0]
    A.flat[1:3] *= 2.0
    A.flat[1:3] += x[1:]
    return np.sum(A**2 * np.arange(6).reshape(2, 3))


case(rng.normal(size=3), autograd=NO_FLAT)(flat_items_written)


# --- writes into an array with no name of its own: refused with a hint that works ----------------


def written_through_ravel(x):
    A = np.zeros((2, 2))
    A.ravel()[:] = x  # refused: A.ravel() has no name
    return np.sum(A**2)


def written_through_the_transpose(x):
    A = np.ones((2, 3))
    A.T[0] = x[:2]  # refused: A.T has no name
    return np.sum(A * A)


def written_into_a_lists_item(x):
    t = [np.zeros(3), np.zeros(3)]
    t[0][1] = x[0]  # refused: t[0] has no name
    return np.sum(t[0] * x[:3])


@pytest.mark.parametrize(
    "f, line, hint",
    [
        (written_through_ravel, "A.ravel()[:] = x", "part = A.ravel().copy(); part[:] = ..."),
        (written_through_the_transpose, "A.T[0] = x[:2]", "part = A.T.copy(); part[0] = ..."),
        (written_into_a_lists_item, "t[0][1] = x[0]", "item = t[0].copy(); item[1] = ..."),
    ],
)
def test_a_write_into_an_array_with_no_name_says_how_to_write_it(f, line, hint):
    """The hint named the refused form itself (index it once: A.ravel()[:] = ...), t[0, 1]
    for a list, or took A.T for an object's field (return it with has_aux=True)."""
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(f)(np.arange(4.0))
    message = str(error.value)
    assert f"{__file__}:{line_of(line + '  # refused')}" in message
    assert "srcdiff follows writes only into" in message
    assert hint in message


def ravel_written_as_the_hint_says(x):
    A = np.zeros((2, 2))
    part = A.ravel().copy()
    part[:] = x
    A = part.reshape(A.shape)
    return np.sum(A**2 * np.arange(4).reshape(2, 2))


def transpose_written_as_the_hint_says(x):
    A = np.ones((2, 3))
    part = A.T.copy()
    part[0] = x[:2]
    A = part.T
    return np.sum(A * A * np.arange(6).reshape(2, 3))


def lists_item_written_as_the_hint_says(x):
    t = [np.zeros(3), np.zeros(3)]
    item = t[0].copy()
    item[1] = x[0]
    t[0] = item
    return np.sum(t[0] * x[:3])


NO_ITEM_WRITES = "autograd does not follow item writes"
case(rng.normal(size=4), autograd=NO_ITEM_WRITES)(ravel_written_as_the_hint_says)
case(rng.normal(size=4), autograd=NO_ITEM_WRITES)(transpose_written_as_the_hint_says)
case(rng.normal(size=4), autograd=NO_ITEM_WRITES)(lists_item_written_as_the_hint_says)


# --- match statements of values -----------------------------------------------------------------


def penalty_by_match(x, kind):
    """A match of values, alternatives, None with a guard and `_` (once refused: Match
    statements cannot be differentiated, with no hint)."""
    match kind:
        case "l2" | "sq":
            return np.sum(x**2)
        case "l1":
            return np.sum(np.abs(x))
        case None if x.ndim > 0:
            return np.sum(np.sin(x))
        case _:
            return np.sum(x)


for kind in ("l2", "sq", "l1", None, "other"):
    case(rng.normal(size=3), kind)(penalty_by_match)


def matched_in_a_loop(x, kinds):
    """The subject an expression (evaluated once), the last case a name bound to it."""
    total = 0.0
    for k in range(2):
        match kinds[k]:
            case 1:
                total = total + np.sum(x**3)
            case scale:
                total = total + scale * np.sum(np.exp(x))
    return total


case(rng.normal(size=3), (1, 2.5))(matched_in_a_loop)


def matched_by_shape(x, spec):
    match spec:  # refused: a sequence pattern
        case (a, b):
            return a * np.sum(x**b)
    return np.sum(x)


def test_a_match_of_other_patterns_is_refused_at_its_line_with_a_hint():
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(matched_by_shape)(np.ones(2), (2.0, 2))
    message = str(error.value)
    assert f"{__file__}:{line_of('match spec:  # refused')}" in message
    assert "match statements of patterns other than values" in message
    assert "hint: write the match as if/elif of the tests it makes" in message


# --- dicts counted into: get with a computed key, setdefault, a defaultdict -----------------------


def counted_by_get(x):
    """`d.get(i % 2, 0.0)`: a key computed from names (once refused as a call srcdiff could
    not tell; a name or a constant key was followed)."""
    d = {}
    for i in range(3):
        d[i % 2] = d.get(i % 2, 0.0) + np.sum(x ** (i + 1))
    return d[0] * d[1]


case(rng.normal(size=3))(counted_by_get)


def started_by_setdefault(x):
    """`d.setdefault(k, v)` as a statement: `if k not in d: d[k] = v` (once refused as a
    change in place)."""
    d = {"b": x}
    key = "a"
    for i in range(3):
        d.setdefault(key, 0.0)
        d.setdefault("b", 5.0)  # (there: no change)
        d[key] = d[key] + np.sum(np.sin(x * i))
    return np.sum(d[key] * d["b"] ** 2)


case(rng.normal(size=3))(started_by_setdefault)


def setdefault_into_an_empty_dict(x):
    """(a differentiated default: its gradient was zeros once, then refused)"""
    d = {}
    d.setdefault("a", x**2)
    return np.sum(d["a"] * x)


case(rng.normal(size=3))(setdefault_into_an_empty_dict)


def counted_in_a_defaultdict(x):
    d = collections.defaultdict(float)
    for i in range(3):
        d[i % 2] += np.sum(x ** (i + 1))  # refused: d holds what a call returned
    return d[0] * d[1]


def test_a_write_into_what_a_call_returned_says_a_copy_of_its_own_works():
    """The message said d was an argument, and the hint (d = d.copy() first) was refused the
    same way: every value a name is bound to counts."""
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(counted_in_a_defaultdict)(np.ones(3))
    message = str(error.value)
    assert f"{__file__}:{line_of('d[i % 2] += np.sum(x ** (i + 1))  # refused')}" in message
    assert "'d' may hold an argument, what a call returned, or a view or alias" in message
    assert "hint: write into a copy of it with a name of its own: new = d.copy()" in message


def counted_in_a_copy_of_a_defaultdict(x):
    d = collections.defaultdict(float)
    new = d.copy()
    for i in range(3):
        new[i % 2] += np.sum(x ** (i + 1))
    return new[0] * new[1]


case(rng.normal(size=3), autograd="autograd does not follow item writes")(
    counted_in_a_copy_of_a_defaultdict
)


# --- a count of calls kept across them ----------------------------------------------------------

EVALUATIONS = 0
CALLS = [0]


def counted_by_a_global(x):
    global EVALUATIONS  # refused: the emitted code cannot rebind f's global
    EVALUATIONS += 1
    return np.sum(x**2)


def counted_in_a_global_list(x):
    CALLS[0] += 1
    return np.sum(np.sin(x) * x)


def test_a_global_count_is_refused_with_the_form_that_counts():
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(counted_by_a_global)(np.ones(2))
    message = str(error.value)
    assert f"{__file__}:{line_of('global EVALUATIONS  # refused')}" in message
    assert "in a global list or dict changed in place (CALLS[0] += 1)" in message
    before, x = CALLS[0], rng.normal(size=3)
    np.testing.assert_allclose(
        nf.grad(counted_in_a_global_list)(x), np.cos(x) * x + np.sin(x), rtol=1e-12
    )
    assert CALLS[0] == before + 1


# --- a generator made in a function, looped over (autograd's Bayesian neural net) ----------------


def make_nn_funs(layer_sizes, noise_variance, nonlinearity=np.tanh):
    """autograd's examples/bayesian_neural_net.py as published: the weights of many networks
    in one matrix, cut into layers by a generator that a loop takes all the items of, closed
    over `shapes` (a closure, which srcdiff once refused as a generator it could not follow)."""
    shapes = list(zip(layer_sizes[:-1], layer_sizes[1:]))
    num_weights = sum((m + 1) * n for m, n in shapes)

    def unpack_layers(weights):
        num_weight_sets = len(weights)
        for m, n in shapes:
            yield (
                weights[:, : m * n].reshape((num_weight_sets, m, n)),
                weights[:, m * n : m * n + n].reshape((num_weight_sets, 1, n)),
            )
            weights = weights[:, (m + 1) * n :]

    def predictions(weights, inputs):
        inputs = np.expand_dims(inputs, 0)
        for W, b in unpack_layers(weights):
            outputs = np.einsum("mnd,mdo->mno", inputs, W) + b
            inputs = nonlinearity(outputs)
        return outputs

    def logprob(weights, inputs, targets):
        preds = predictions(weights, inputs)
        return -np.sum((preds - targets) ** 2, axis=1)[:, 0] / noise_variance

    return num_weights, predictions, logprob, unpack_layers


NUM_WEIGHTS, PREDICTIONS, LOGPROB, UNPACK_LAYERS = make_nn_funs([1, 4, 1], 0.1)
BNN_INPUTS = np.linspace(-1, 1, 5).reshape(-1, 1)
BNN_EPS = rng.normal(size=(3, NUM_WEIGHTS))


def bnn_elbo(params, targets):
    """The black-box variational objective over it, the noise drawn once."""
    mean, log_std = params[:NUM_WEIGHTS], params[NUM_WEIGHTS:]
    samples = BNN_EPS * np.exp(log_std) + mean
    entropy = 0.5 * NUM_WEIGHTS * (1.0 + np.log(2 * np.pi)) + np.sum(log_std)
    return -(entropy + np.mean(LOGPROB(samples, BNN_INPUTS, targets)))


TANH_BOUND = "the nonlinearity is numpy's tanh, bound as a default, which autograd cannot trace"
case(0.3 * rng.normal(size=2 * NUM_WEIGHTS), np.cos(BNN_INPUTS), autograd=TANH_BOUND)(bnn_elbo)
case(0.3 * rng.normal(size=2 * NUM_WEIGHTS), np.cos(BNN_INPUTS), wrt=1, autograd=TANH_BOUND)(
    bnn_elbo
)


def first_layer_only(weights):
    """(next() takes one item: the generator is not followed as a list, and the error says
    so at the call)"""
    W, b = next(UNPACK_LAYERS(weights))
    return np.sum(W**2) + np.sum(b)


def test_a_generator_not_looped_over_whole_is_refused_at_its_call():
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(first_layer_only)(rng.normal(size=(2, NUM_WEIGHTS)))
    message = str(error.value)
    assert f"{__file__}:{line_of('W, b = next(UNPACK_LAYERS(weights))')}" in message
    assert "next(...) of differentiated values cannot be differentiated" in message


def yields_its_loss(x):
    yield np.sum(x**2)  # refused: f itself a generator


def test_a_generator_differentiated_itself_is_refused_at_its_yield():
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(yields_its_loss)(np.ones(2))
    assert f"{__file__}:{line_of('yield np.sum(x**2)  # refused')}" in str(error.value)
    assert "generators and coroutines cannot be differentiated" in str(error.value)


def line_of(text):
    return next(k for k, line in enumerate(open(__file__), 1) if text in line)


# --- a tuple of parameters spread into a model: model(x, *params) ---------------------------------


def two_layer_model(x, W1, b1, W2, b2):
    h = np.tanh(x @ W1 + b1)
    return h @ W2 + b2


def mean_squared_error(params, x, y):
    """`model(x, *params)`, as examples pass a tuple of parameters (once refused: *args in a
    differentiated call, with the hint to pass them one by one)."""
    return np.mean((two_layer_model(x, *params) - y) ** 2)


MLP_PARAMS = (
    rng.normal(size=(3, 4)),
    rng.normal(size=4),
    rng.normal(size=(4, 1)),
    rng.normal(size=1),
)
MLP_DATA = (rng.normal(size=(5, 3)), rng.normal(size=(5, 1)))
case(MLP_PARAMS, *MLP_DATA)(mean_squared_error)
case(list(MLP_PARAMS), *MLP_DATA)(mean_squared_error)
case(MLP_PARAMS, *MLP_DATA, wrt=1)(mean_squared_error)


def test_a_tuple_spread_into_a_model_is_checked_for_its_length():
    with pytest.raises(ValueError, match="cannot unpack 3 values into 4 names"):
        nf.grad(mean_squared_error)(MLP_PARAMS[:3], *MLP_DATA)


def scaled_model(x, W, b, scale=2.0):
    return scale * np.tanh(x @ W + b)


def spread_into_a_model_with_a_default(params, x):
    return np.sum(scaled_model(x, *params) ** 2)  # refused: params may hold 2 or 3


def test_a_spread_whose_count_the_callee_does_not_say_is_refused_with_a_hint():
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(spread_into_a_model_with_a_default)(MLP_PARAMS[:2], MLP_DATA[0])
    message = str(error.value)
    line = line_of("return np.sum(scaled_model(x, *params) ** 2)  # refused")
    assert f"{__file__}:{line}" in message
    assert "pass arguments one by one (g(x, parts[0], parts[1]))" in message


# --- SciPy's pairwise distances in a Gaussian process's kernel -----------------------------------

scipy_distance = pytest.importorskip("scipy.spatial.distance")
NO_SCIPY_DISTANCES = "autograd has no scipy.spatial.distance"


def rbf_log_det_as_scikit_learn_writes_it(log_length_scale, X):
    """scikit-learn's RBF kernel: pdist of X / length_scale, its exp, squareform, and the
    diagonal filled (pdist, cdist and squareform had no adjoint: refused)."""
    dists = scipy_distance.pdist(X / np.exp(log_length_scale), metric="sqeuclidean")
    K = np.exp(-0.5 * dists)
    K = scipy_distance.squareform(K)
    np.fill_diagonal(K, 1)
    K.flat[:: len(X) + 1] += 0.1
    return np.linalg.slogdet(K)[1]


GP_POINTS = rng.normal(size=(5, 2))
case(np.array([0.2, -0.1]), GP_POINTS, autograd=NO_SCIPY_DISTANCES)(
    rbf_log_det_as_scikit_learn_writes_it
)
case(np.array([0.2, -0.1]), GP_POINTS, wrt=1, autograd=NO_SCIPY_DISTANCES)(
    rbf_log_det_as_scikit_learn_writes_it
)


def matern_cross_covariance(log_length_scale, X, Y):
    """cdist, 'euclidean' (its derivative 1 / d) and 'sqeuclidean', of two sets of points."""
    d = scipy_distance.cdist(X / np.exp(log_length_scale), Y / np.exp(log_length_scale))
    K = (1 + np.sqrt(3) * d) * np.exp(-np.sqrt(3) * d)
    return np.sum(K**2) + np.sum(np.tanh(scipy_distance.cdist(X, Y, "sqeuclidean")))


for k in range(3):
    case(0.3, GP_POINTS, rng.normal(size=(3, 2)), wrt=k, autograd=NO_SCIPY_DISTANCES)(
        matern_cross_covariance
    )


def manhattan_distances(X):
    return np.sum(scipy_distance.pdist(X, "cityblock") ** 2)


def test_a_distance_of_another_metric_is_refused_as_its_gradient_runs():
    with pytest.raises(nf.ArgumentError, match="metrics 'euclidean' and 'sqeuclidean', not "):
        nf.grad(manhattan_distances)(GP_POINTS)


# --- Jacobians and Hessians with respect to a dict of parameters ---------------------------------

PARAMS = {"W": rng.normal(size=(3, 2)), "b": rng.normal(size=2)}
BATCH = rng.normal(size=(4, 3))


def activations(params, x):
    return np.tanh(x @ params["W"] + params["b"]).ravel()


def cubed_activations(params, x):
    return np.sum(activations(params, x) ** 3)


def jacobian_by_differences(f, params, x):
    """{key: d f / d params[key]}, shaped f's output shape + the leaf's, by central
    differences."""
    out = {}
    for key, leaf in params.items():
        columns = []
        for index in np.ndindex(leaf.shape):
            moved = []
            for eps in (1e-6, -1e-6):
                shifted = {k: v.copy() for k, v in params.items()}
                shifted[key][index] += eps
                moved.append(np.asarray(f(shifted, x)))
            columns.append((moved[0] - moved[1]) / 2e-6)
        out[key] = np.stack(columns, axis=-1).reshape(np.shape(f(params, x)) + leaf.shape)
    return out


@pytest.mark.parametrize("jacobian", [nf.jacrev, nf.jacfwd, nf.jacobian])
def test_the_jacobian_with_respect_to_a_dict_is_a_dict_of_blocks(jacobian):
    """(jacrev gave an object array of the rows' dicts; jacfwd and jacobian refused the
    dict with an error about a tangent the caller never gave)"""
    got = jacobian(activations)(PARAMS, BATCH)
    expected = jacobian_by_differences(activations, PARAMS, BATCH)
    assert sorted(got) == ["W", "b"]
    for key in PARAMS:
        assert got[key].shape == (8,) + PARAMS[key].shape
        np.testing.assert_allclose(got[key], expected[key], rtol=1e-6, atol=1e-8)


def test_the_hessian_with_respect_to_a_dict_is_a_dict_of_dicts_of_blocks():
    """As JAX's: H[m][l] of shape params[m].shape + params[l].shape (it was refused with an
    error about a tangent the caller never gave, located in the emitted code)."""
    hessian = nf.hessian(cubed_activations)(PARAMS, BATCH)
    gradient = nf.grad(cubed_activations)
    for m in PARAMS:
        expected = jacobian_by_differences(lambda p, x: gradient(p, x)[m], PARAMS, BATCH)
        for key in PARAMS:
            assert hessian[m][key].shape == PARAMS[m].shape + PARAMS[key].shape
            np.testing.assert_allclose(hessian[m][key], expected[key], rtol=1e-5, atol=1e-7)


def test_hessian_blocks_of_a_dict_and_an_array_take_each_ones_structure():
    blocks = nf.hessian(cubed_activations, wrt=(0, 1))(PARAMS, BATCH)
    assert {k: v.shape for k, v in blocks[0][1].items()} == {"W": (3, 2, 4, 3), "b": (2, 4, 3)}
    assert {k: v.shape for k, v in blocks[1][0].items()} == {"W": (4, 3, 3, 2), "b": (4, 3, 2)}
    for key in PARAMS:
        np.testing.assert_allclose(
            blocks[0][1][key], np.moveaxis(blocks[1][0][key], (0, 1), (-2, -1)), atol=1e-10
        )


# --- srcdiff's own pytree functions inside a differentiated function -----------------------------

TREE = {"W": rng.normal(size=(3, 2)), "b": rng.normal(size=2)}


def doubled_by_tree_map(params, x):
    doubled = nf.tree_map(lambda p: p * 2.0, params)  # refused
    return np.sum(np.tanh(x @ doubled["W"] + doubled["b"]))


def penalty_of_tree_leaves(params, x):
    return sum(np.sum(leaf**2) for leaf in nf.tree_leaves(params)) + np.sum(x)  # refused


def loss_of_a_flat_vector(vector, x):
    params = nf.unravel(vector, TREE)  # refused
    return np.sum(np.tanh(x @ params["W"] + params["b"]))


@pytest.mark.parametrize(
    "f, line",
    [
        (doubled_by_tree_map, "doubled = nf.tree_map(lambda p: p * 2.0, params)"),
        (penalty_of_tree_leaves, "return sum(np.sum(leaf**2) for leaf in nf.tree_leaves"),
        (loss_of_a_flat_vector, "params = nf.unravel(vector, TREE)"),
    ],
)
def test_srcdiffs_tree_functions_in_f_are_refused_at_the_users_line(f, line):
    """(the error was located in srcdiff/tree.py: its walk's recursion, with a hint to pass
    the depth as a constant there)"""
    first = nf.ravel(TREE) if f is loss_of_a_flat_vector else TREE
    with pytest.raises(nf.SrcdiffError) as error:
        nf.grad(f)(first, BATCH)
    message = str(error.value)
    assert f"{__file__}:{line_of(line)}:" in message
    assert "walks a tree of any depth" in message
    assert "write the walk over your parameters' structure itself" in message


def doubled_as_the_hint_says(params, x):
    doubled = {k: v * 2.0 for k, v in params.items()}
    return np.sum(np.tanh(x @ doubled["W"] + doubled["b"]))


def flat_as_the_hint_says(params, x):
    flat = np.concatenate([np.ravel(params["W"]), np.ravel(params["b"])])
    return np.sum(flat**2) * np.sum(x)


case(TREE, BATCH)(doubled_as_the_hint_says)
case(TREE, BATCH)(flat_as_the_hint_says)


# --- im2col by as_strided ------------------------------------------------------------------------


def conv2d_by_as_strided(image, kernel):
    """A valid 2-d convolution as numpy CNN tutorials write it: the windows a view of the
    image's memory by shape and strides (as_strided had no adjoint: refused)."""
    H, W = image.shape
    kh, kw = kernel.shape
    s0, s1 = image.strides
    windows = np.lib.stride_tricks.as_strided(
        image, shape=(H - kh + 1, W - kw + 1, kh, kw), strides=(s0, s1, s0, s1)
    )
    return np.sum(np.einsum("ijkl,kl->ij", windows, kernel) ** 2)


NO_AS_STRIDED = "autograd has no as_strided"
case(rng.normal(size=(5, 5)), rng.normal(size=(2, 3)), autograd=NO_AS_STRIDED)(conv2d_by_as_strided)
case(rng.normal(size=(5, 5)), rng.normal(size=(2, 3)), wrt=1, autograd=NO_AS_STRIDED)(
    conv2d_by_as_strided
)


def test_as_strided_of_an_array_not_in_order_is_refused_as_its_gradient_runs():
    with pytest.raises(nf.ArgumentError, match="C-contiguous"):
        nf.grad(conv2d_by_as_strided)(rng.normal(size=(5, 5)).T, rng.normal(size=(2, 3)))


# --- np.interp in its knots ------------------------------------------------------------------------


def interpolated_through_moving_knots(knots, x, values):
    """A piecewise-linear curve fitted by moving its knots (np.interp had no gradient in xp:
    an error at the call)."""
    xp = np.cumsum(np.exp(knots))
    return np.sum(np.interp(x, xp, values) ** 2)


NO_INTERP_XP = "autograd's np.interp has no gradient in xp"
case(
    rng.normal(size=4) * 0.1,
    np.array([1.5, 2.2, 3.3, 0.2, 5.0]),
    rng.normal(size=4),
    autograd=NO_INTERP_XP,
)(interpolated_through_moving_knots)


# --- the checks ----------------------------------------------------------------------------------


@pytest.mark.parametrize("row", TABLE.params("reverse"))
def test_reverse(row):
    check_reverse(row)


@pytest.mark.parametrize("row", TABLE.params("forward"))
def test_forward(row):
    check_forward(row)


@pytest.mark.parametrize("row", TABLE.params("hvp"))
def test_hvp(row):
    check_hvp(row)


@pytest.mark.parametrize("row", TABLE.params("grad_of_grad"))
def test_grad_of_grad(row):
    """The vjp of the gradient (reverse over reverse: H u)."""
    check_grad_of_grad(row)
