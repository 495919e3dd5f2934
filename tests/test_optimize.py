"""The optimisation passes: each keeps every gradient as it is, and does what it says."""

import re
import tracemalloc

import numpy as np

import srcdiff as nf
from gradcheck import check_grad
from pytree_oracle import assert_leaves_close, finite_differences, leaves


def chain(x):
    a = np.sin(x)
    unused = np.arctan(x) * 3  # noqa: F841  (dead: the pass drops it)
    b = a * x
    return np.sum(b)


def test_dead_code_elimination(rng):
    optimized, raw = nf.grad(chain).source, nf.grad(chain, optimized=False).source
    assert "np.arctan" not in optimized and "np.arctan" in raw
    x = rng.normal(size=5)
    np.testing.assert_allclose(nf.grad(chain)(x), nf.grad(chain, optimized=False)(x))


def heavy_layer(x, w):
    h = np.tanh(x * w)
    h2 = np.exp(h) * h
    return np.sin(h2) + h


def heavy(x, w):
    return np.sum(heavy_layer(heavy_layer(x, w), w))


def peak(fn, *args):
    tracemalloc.start()
    fn(*args)
    top = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return top


def test_backward_functions_free_saved_values_early(rng):
    source = nf.grad(heavy).source
    assert "saved.clear()" in source and "\n    del " in source
    x, w = rng.normal(size=(200, 200)), rng.normal(size=(200, 200))
    check_grad(heavy, rng.normal(size=(3, 4)), rng.normal(size=(3, 4)))
    optimized, raw = nf.grad(heavy), nf.grad(heavy, optimized=False)
    np.testing.assert_allclose(optimized(x, w), raw(x, w))
    assert peak(optimized, x, w) < 0.9 * peak(raw, x, w)


def test_values_read_only_for_their_shape_are_not_kept(rng):
    def loop(x, b):
        for i in range(4):
            x = np.tanh(np.sin(x) + b)  # the adjoint of + reads sin(x)'s shape only
        return np.sum(x)

    source = nf.grad(loop).source
    assert "runtime.shape_of(" in source
    check_grad(loop, rng.normal(size=(70, 70)), rng.normal(size=70))


def test_each_version_of_a_name_is_kept_as_far_as_its_adjoint_reads_it(rng):
    def padded_sine(x, w, padding):
        if padding > 0:
            x = np.pad(x, padding)  # the adjoint reads the x before only for its shape
        return np.sin(x) * w  # and this x for its value

    def f(x, w):
        return np.sum(padded_sine(x, w, 1))

    source = nf.grad(f, wrt=(0, 1)).source
    assert "_stack_x.append(runtime.shape_of(x))" in source
    assert "np.cos(x)" in source
    check_grad(f, rng.normal(size=(70, 70)), rng.normal(size=(72, 72)), wrt=(0, 1))

    def rnn(w, h):
        for _ in range(3):
            h = np.tanh(w @ h)  # each h before is read (w's adjoint) for its value
        return np.sum(h)

    assert "_stack_h.append(h)" in nf.grad(rnn).source
    check_grad(rnn, rng.normal(size=(70, 70)) * 0.1, rng.normal(size=70))


def test_accumulation_in_place_only_into_buffers_nothing_else_sees(rng):
    def loop(w, h):
        for _ in range(5):
            h = np.tanh(w @ h)
        return np.sum(h)

    source = nf.grad(loop).source
    assert "bw += runtime.matmul_grad(" in source  # bw starts as zeros and only accumulates
    assert "bh +=" not in source  # bh is read each iteration: never in place
    check_grad(loop, rng.normal(size=(4, 4)) * 0.5, rng.normal(size=4))

    def shared(x):
        y = x * 1.0
        z = y * 2.0 + y * 3.0  # by gets two contributions, then flows into bx
        return np.sum(z * x + y)

    raw, optimized = nf.grad(shared, optimized=False), nf.grad(shared)
    x = rng.normal(size=4)
    np.testing.assert_array_equal(raw(x), optimized(x))
    check_grad(shared, x)


def _add_pair(u, v):
    return u + v  # (its backward pass hands the caller its seed for both)


def _shared_first_values(x, y):
    z = x + y  # bx's first value, runtime.unbroadcast(b_t6, x), may be b_t6 itself
    w = np.sin(z) * x + x * 3.0
    s = _add_pair(x * 1.5 + w, y)
    return np.sum(s * z + x) + np.sum(np.cos(y) * y + y * w)


def _tuple_first_values(x, y):
    a = np.sin(x) * y + x * 2.0
    b = np.cos(y) * x + y * 3.0
    s = _add_pair(x * 1.5 + a, y)  # by's first value is an item of the callee's result
    return np.sum(s * s) + np.sum(a * b)


def _mixed(source):
    """The names some accumulation adds into in place and another rebinds."""
    return {
        name
        for name in re.findall(r"^\s*(\w+) \+= ", source, re.M)
        if re.search(rf"^\s*{name} = {name} \+ ", source, re.M)
    }


def test_each_adjoint_accumulates_one_way_and_never_into_a_shared_buffer(rng):
    """A first value that may be another's buffer is added to where the next contribution
    is (a new array), or else every contribution rebinds: `+=` never writes into a seed,
    a callee's result or unbroadcast's argument, for arrays of float64 and float32, 0-d
    arrays and Python floats alike."""
    for f in (_shared_first_values, _tuple_first_values):
        _check_one_way(f, rng)
    folded = nf.grad(_shared_first_values, wrt=(0, 1)).source
    assert re.search(r"^ *bx = runtime.unbroadcast\(\w+, x\) \+ ", folded, re.M), folded
    rebound = nf.grad(_tuple_first_values, wrt=(0, 1)).source
    assert re.search(r"^ *\w+, by = bwd__add_pair\(", rebound, re.M), rebound
    assert "by += " not in rebound and "by = by + " in rebound, rebound


def _check_one_way(f, rng):
    both = nf.grad(f, wrt=(0, 1))
    assert not _mixed(both.source), both.source
    raw = nf.grad(f, wrt=(0, 1), optimized=False)
    for make in (
        lambda: rng.normal(size=4),
        lambda: rng.normal(size=4).astype(np.float32),
        lambda: np.array(rng.normal()),
        lambda: float(rng.normal()),
    ):
        args = (make(), make())
        kept = [np.array(a, copy=True) for a in args]
        got, expected = both(*args), raw(*args)
        for a, k in zip(args, kept):
            np.testing.assert_array_equal(a, k)
        for g, e in zip(got, expected):
            np.testing.assert_allclose(
                g, e, rtol=1e-5 if np.asarray(g).dtype == np.float32 else 1e-13
            )
    check_grad(f, rng.normal(size=4), rng.normal(size=4))


def test_copies_are_propagated(rng):
    def f(x):
        y = x
        z = np.sin(y)
        w = z
        return np.sum(w * y)

    optimized, raw = nf.grad(f).source, nf.grad(f, optimized=False).source
    assert "w = z" in raw and "w = z" not in optimized and "y = x" not in optimized
    x = rng.normal(size=4)
    np.testing.assert_allclose(nf.grad(f)(x), nf.grad(f, optimized=False)(x))
    check_grad(f, x)


def _parsed(source):
    """The functions `source` defines, as gast FunctionDefs."""
    import textwrap

    import gast

    return gast.parse(textwrap.dedent(source)).body


def _source_of(*funcs):
    import astor
    import gast

    return astor.to_source(gast.gast_to_ast(gast.Module(body=list(funcs), type_ignores=[])))


def _pass_on(pass_, source):
    (func,) = _parsed(source)
    pass_(func)
    return _source_of(func)


def test_copies_are_propagated_inside_loops_only_when_the_value_is_the_same():
    from srcdiff.optimize import propagate_copies

    out = _pass_on(
        propagate_copies,
        """
        def f(g, n):
            for i in range(n):
                a = g
                b = a * 2
                g = b + a
            return g
        """,
    )
    assert "a = g" not in out and "b = g * 2" in out and "g = b + g" in out
    out = _pass_on(
        propagate_copies,
        """
        def f(g, n):
            for i in range(n):
                a = g
                g = g + 1
                b = a * 2       # a is the old g here
            return b
        """,
    )
    assert "a = g" in out and "b = a * 2" in out
    out = _pass_on(
        propagate_copies,
        """
        def f(g, n):
            a = 0.0
            for i in range(n):
                b = a + 1       # the previous iteration's a
                a = g
            return b
        """,
    )
    assert "a = g" in out


def test_a_copy_and_its_copy_back_both_go():
    """`b = a; ...; a = b` (left where specialisation drops an unbroadcast) gives a the value
    it holds: both copies go when a is not otherwise written before b's last read."""
    from srcdiff.optimize import propagate_copies

    out = _pass_on(
        propagate_copies,
        """
        def f(bx, bv, n, stack):
            for i in range(n):
                b_t6 = bx
                x = stack.pop()
                bx = b_t6
                bv = bv + b_t6 * x
            return bx, bv
        """,
    )
    assert "b_t6" not in out and "bv = bv + bx * x" in out and "bx = bx" not in out
    out = _pass_on(
        propagate_copies,
        """
        def f(bx, bv, n):
            for i in range(n):
                b_t6 = bx
                bx = bx * 2
                bx = b_t6       # restores the old bx
                bv = bv + b_t6
            return bx, bv
        """,
    )
    assert "b_t6 = bx" in out and "bx = b_t6" in out


def test_a_temporary_copied_at_once_into_a_name_is_that_name():
    """`_t6 = total + _t5; total = _t6` is `total = total + _t5`; a name of f's keeps its
    value's name, and a temporary read again keeps its own."""
    from srcdiff.optimize import propagate_copies

    out = _pass_on(
        propagate_copies,
        """
        def f(x, n):
            total = 0.0
            for i in range(n):
                _t6 = total + x
                total = _t6
                h = total * 2
                y = h
                _t7 = y * 3
                z = _t7
            return total + z + _t7
        """,
    )
    assert "total = total + x" in out and "_t6" not in out
    assert "h = total * 2" in out and "_t7 = h * 3" in out and "z = _t7" in out


def test_dead_stacks_go_and_read_ones_stay():
    from srcdiff.optimize import eliminate_dead_stacks

    source = """
        def f(x, n):
            _stack_s = []
            _stack_h = []
            for i in range(n):
                s = x * i
                _stack_s.append(s)
                _stack_h.append(x)
                x = x + s
            for i in reversed(range(n)):
                s = _stack_s.pop()
                x = _stack_h.pop()
            return x
        """
    out = _pass_on(eliminate_dead_stacks, source)
    assert "_stack_s" not in out and "_stack_h.pop()" in out and "s = x * i" in out


def test_a_value_overwritten_on_every_path_before_it_is_read_is_dropped():
    from srcdiff.optimize import eliminate_dead_code

    out = _pass_on(
        eliminate_dead_code,
        """
        def f(x, flag):
            a = None
            b = None
            if flag:
                a = x + 1
                b = x * 2
            else:
                a = x - 1
            return a, b
        """,
    )
    assert "a = None" not in out and "b = None" in out


def test_a_branch_left_with_nothing_to_do_goes():
    from srcdiff.optimize import eliminate_dead_code

    out = _pass_on(
        eliminate_dead_code,
        """
        def f(x, flag, other):
            if flag:
                unused = x + 1
            else:
                y = x * 2
                if other:
                    unused = x - 1
            if other:
                unused = x
            else:
                pass
            return y
        """,
    )
    assert out == "def f(x, flag, other):\n    if not flag:\n        y = x * 2\n    return y\n"


def piecewise(x):
    if np.sum(x) > 0:
        z = x * 2.0
    else:
        z = np.sin(x)
    return np.sum(z)


def test_a_specialised_forward_sweep_keeps_no_branch_with_nothing_to_do(rng):
    x = rng.normal(size=3) + 1.0
    source = nf.grad(piecewise).source_for(x)
    assert "pass" not in source and "if _cond0:" in source  # (the adjoint sweep's if stays)
    check_grad(piecewise, x)


def dict_layer(p, x):
    h = np.tanh(x @ p["w"] + p["b"])
    return np.sum(h * p["w"][0]) + np.sum(h**2)


def test_a_dict_adjoint_is_one_dict_display(rng):
    """Built key by key by the reverse sweep, written as a person would: one dict display
    (the key read twice gets both adjoints summed); keys that got none are zeros."""
    source = nf.grad(dict_layer).source
    assert "add_at(bp" not in source and ", p, '" not in source  # no key by key
    assert "bp = {'w': " in source and "'b': " in source
    p = {"w": rng.normal(size=(3, 3)), "b": rng.normal(size=3), "unused": rng.normal(size=2)}
    x = rng.normal(size=(4, 3))
    got, raw = nf.grad(dict_layer)(p, x), nf.grad(dict_layer, optimized=False)(p, x)
    assert sorted(got) == sorted(p)
    for key in p:
        np.testing.assert_allclose(got[key], raw[key], rtol=1e-12, atol=1e-14)
    assert_leaves_close(got, finite_differences(dict_layer, (p, x), 0), 1e-5, 1e-7, "bp")
    np.testing.assert_array_equal(got["unused"], np.zeros(2))


def running_total(x):
    total = 0.0
    for i in range(4):
        total = total + float(np.sum(np.sin(x * i))) * (i + 1.0)
    return total * 2


def test_no_unbroadcast_between_sure_real_scalars(rng):
    # total and each term are real scalars (a literal, float(), a number): their adjoints
    # need no runtime.unbroadcast, nor stacks of shapes
    source = nf.grad(running_total).source
    assert "b_t3 = btotal * _t4" in source and "unbroadcast" not in source
    assert "_stack_total" not in source and "_stack_t3" not in source
    check_grad(running_total, rng.normal(size=5))


def complex_then_real(x, c):
    s = np.sum(c * x)  # complex: c is not differentiated, and may be complex
    t = float(np.sum(x**2))
    return np.real(s + t * 3.0) + np.abs(s)


def step(a):
    return a * 2.0 + 1.0


def complex_through_a_callee(x):
    return np.real(step(np.sum(x) * (1 + 2j))) + np.sum(x)


def test_scalars_that_may_be_complex_keep_their_unbroadcast(rng):
    x, c = rng.normal(size=4), rng.normal(size=4) + 1j * rng.normal(size=4)
    assert_leaves_close(
        nf.grad(complex_then_real)(x, c),
        finite_differences(complex_then_real, (x, c)),
        1e-6,
        1e-8,
        "srcdiff against finite differences",
    )
    check_grad(complex_through_a_callee, rng.normal(size=4))


def dict_block(p, x):  # 'w' read twice (once: nothing between changes p); its backward
    # returns p's adjoint to the caller
    return np.tanh(x @ p["w"] + p["b"]) * p["w"][0]


def dict_model(params, x):
    h = dict_block(params, x)
    return np.sum(h**2) + np.sum(params["b"] * params["w"][1])


def test_a_dict_adjoint_returned_to_a_caller_is_one_sparse_display(rng):
    """A callee's backward function hands the caller its dict's adjoint as one
    runtime.Sparse display (which the caller adds to its own, a key that got none reading as
    0.0), and no longer saves the dict it added the keys at."""
    source = nf.grad(dict_model).source
    backward = source[source.index("def bwd_dict_block") :]
    assert "_t0 = p['w']" in source and source.count("p['w']") == 1
    assert "bp = runtime.Sparse({'w': b_t0, 'b': b_t2})" in backward, backward
    assert "add_at(" not in source and "getitem_grad(b_t4, _t3, 1)" in source
    assert "shape_of(p)" not in source and ", p" not in backward.split("saved.clear()")[0]
    p = {"w": rng.normal(size=(3, 3)), "b": rng.normal(size=3), "unused": rng.normal(size=2)}
    x = rng.normal(size=(4, 3))
    got, raw = nf.grad(dict_model)(p, x), nf.grad(dict_model, optimized=False)(p, x)
    assert list(got) == list(p)
    for key in p:
        np.testing.assert_allclose(got[key], raw[key], rtol=1e-12, atol=1e-14)
    assert_leaves_close(got, finite_differences(dict_model, (p, x), 0), 1e-5, 1e-7, "bparams")
    np.testing.assert_array_equal(got["unused"], np.zeros(2))


def test_a_dict_adjoint_chain_stops_where_something_else_reads_it():
    """The display replaces only the statements nothing else reads between: a value the
    chain adds that is its own partial sum, or one written in between, keeps it a chain."""
    from srcdiff.optimize import gather_dict_adjoints

    out = _pass_on(
        gather_dict_adjoints,
        """
        def f(p, a, b, c):
            bp = runtime.getitem_grad(a, p, 'w')
            bp = runtime.add_at(bp, p, 'b', b)
            for i in range(3):
                bp = runtime.add_at(bp, p, 'w', c)
                c = c * bp['w']
            bq = runtime.getitem_grad(a, p, 'w')
            bq = runtime.add_at(bq, p, 'b', bq)
            br = runtime.getitem_grad(a, p, 'w')
            a = a * 2
            br = runtime.add_at(br, p, 'b', a)
            return runtime.as_grad(bp, p), bq, br
        """,
    )
    assert "bp = runtime.Sparse({'b': b, 'w': a})" in out, out
    assert out.count("add_at(") == 3 and "bq = runtime.add_at(bq, p, 'b', bq)" in out
    assert "br = runtime.Sparse({'w': a})" in out and "br = runtime.add_at(br, p, 'b', a)" in out


def test_saved_values_the_backward_function_no_longer_reads_are_not_saved():
    from srcdiff.optimize import drop_unread_saved, eliminate_dead_code

    forward = """
        def fwd_g(p, x):
            t = p['a'] * x
            s = np.sin(x)
            return t, [runtime.shape_of(p), s, x]
        """
    backward = """
        def bwd_g(bt, saved):
            p, s, x = saved
            saved.clear()
            return runtime.Sparse({'a': %s}),
        """
    pair = _parsed(forward + backward % "bt * x")
    assert drop_unread_saved(*pair) and not drop_unread_saved(*pair)
    eliminate_dead_code(pair[0])  # (s was computed only to be saved)
    out = _source_of(*pair)
    assert "np.sin" not in out and "return t, [x]" in out and "    x, = saved" in out, out
    pair = _parsed(forward + backward % "bt")
    assert drop_unread_saved(*pair)
    out = _source_of(*pair)
    assert "return t, []" in out and "saved" not in out.split("def bwd_g(bt, saved):")[1], out


def rows_read(p, x):  # p[0] and p[2] read twice
    return np.sum(np.sin(p[0] * x) * p[1]) + p[2] ** 2 + p[0] * p[2]


def test_an_array_adjoint_built_row_by_row_is_one_array_where_the_rows_are_known(rng):
    """Specialised for a float array p whose every row is read at a constant position (and
    whose rows' adjoints are known to be floats like p's), p's adjoint is one np.array; the
    generic code, not knowing that p is no list, keeps the chain. Numbers as the chain's."""
    p, x = rng.normal(size=3), rng.normal(size=4)
    gradient = nf.grad(rows_read)
    assert gradient.source.count("runtime.add_at(bp, p,") == 4
    specialised = gradient.source_for(p, x)
    assert "bp = np.array([b_t9 + b_t0, b_t3, b_t10 + b_t6])" in specialised, specialised
    assert "add_at" not in specialised and "getitem_grad" not in specialised
    check_grad(rows_read, p, x, wrt=0)  # (each call checked against the generic code too)
    longer = np.append(p, 1.0)  # (its row 3 read by none: its adjoint's zeros stay a chain's)
    assert "np.array" not in gradient.source_for(longer, x)
    check_grad(rows_read, longer, x, wrt=0)
    assert "np.array" not in gradient.source_for(np.array([p, p, p]), x)  # (rows not known)


def test_what_is_live_after_each_statement_through_branches_loops_and_renames():
    """passes/liveness.LiveAfter, which keeps each name's history instead of a set per
    statement, answers as those sets would, also after a rename merges two names."""
    import ast

    from srcdiff import conversion
    from srcdiff.passes.liveness import LiveAfter, live_before

    source = (
        "def f(a, b):\n"
        "    c = a + 1\n"  # 0
        "    if b:\n"  # 1
        "        d = c * 2\n"  # 1.0
        "    else:\n"
        "        d = a\n"  # 1.1
        "    for i in range(3):\n"  # 2
        "        e = d + i\n"  # 2.0
        "        d = e\n"  # 2.1
        "    g = c\n"  # 3
        "    return d + g\n"  # 4
    )
    func = conversion.ast_to_gast(ast.parse(source)).body[0]
    body = func.body
    after = LiveAfter()
    entry = live_before(body, set(), None, after=after)
    statements = {
        "0": body[0],
        "1": body[1],
        "1.0": body[1].body[0],
        "1.1": body[1].orelse[0],
        "2": body[2],
        "2.0": body[2].body[0],
        "2.1": body[2].body[1],
        "3": body[3],
        "4": body[4],
    }
    expected = {
        "0": {"a", "b", "c"},
        "1": {"c", "d"},
        "1.0": {"c", "d"},
        "1.1": {"c", "d"},
        "2": {"c", "d"},
        "2.0": {"c", "e"},
        "2.1": {"c", "d"},
        "3": {"d", "g"},
        "4": set(),
    }
    names = {"a", "b", "c", "d", "e", "g", "i"}
    assert entry == {"a", "b", "range"}
    for key, stmt in statements.items():
        assert after.among(names, id(stmt)) == expected[key], key
    after.rename("g", "e")  # e and g never live at once: e is live where either was
    for key, stmt in statements.items():
        renamed = {"e" if n == "g" else n for n in expected[key]}
        assert after.among(names - {"g"}, id(stmt)) == renamed, key
    assert not after.knows(id(func))


def _same_as_unoptimised_and_differences(function, args):
    got, raw = nf.grad(function)(*args), nf.grad(function, optimized=False)(*args)
    assert_leaves_close(got, leaves(raw), 1e-12, 1e-14, "against the unoptimised gradient")
    assert_leaves_close(got, finite_differences(function, args), 1e-5, 1e-7, function.__name__)
    arrays = [leaf for leaf in leaves(got) if isinstance(leaf, np.ndarray)]
    for k, leaf in enumerate(arrays):  # (each leaf its own: `+=` into one changes no other)
        assert leaf.flags.writeable
        assert not any(np.shares_memory(leaf, other) for other in arrays[k + 1 :])
    return got


def test_a_dict_of_dicts_adjoint_is_one_nested_display(rng):
    """params['hidden']['W'] read twice and params['head'] read twice: each read once (nothing
    between can change params), one display, the items' adjoints nested in it (not a sum of
    one-key dicts), and no dict saved for it."""
    from container_constructs import dict_of_dicts, dicts_of_layers

    source = nf.grad(dict_of_dicts).source
    assert (
        "bparams = {'hidden': {'W': b_t1, 'b': b_t3}, 'head': {'W': b_t6, 'b': b_t8}}"
    ) in source, source
    assert source.count("params['hidden']") == source.count("params['head']") == 1
    assert source.count("_t0['W']") == 1 and "b_t1 += runtime.matmul_grad(" in source
    assert "getitem_grad(" not in source and "add_at(" not in source
    _same_as_unoptimised_and_differences(dict_of_dicts, dicts_of_layers())


def test_a_loop_sums_what_it_adds_at_an_item_of_a_list_read_once_before_it(rng):
    """A loop over a list of dicts reads the list once, before it (`params_blocks`: the same
    in every iteration, and read by range(len(...)) anyway), adds each block's adjoint into
    its adjoint `bparams_blocks` (a loop that runs no times leaves zeros), and params'
    adjoint is built once after it, as the callee's adjoint (a Sparse) is; an inner loop's
    additions go on in the outer one's sum."""
    import container_constructs as made

    source = nf.grad(made.list_of_dicts_in_a_loop).source
    assert "    params_blocks = params['blocks']\n    for i in range(len(params_blocks)):\n" in (
        source
    ), source
    assert "bparams_blocks = runtime.zeros_like(params_blocks)\n    for i in reversed(" in source
    assert "_t6 = params_blocks[i]\n        _t7 = _t6['W']\n" in source
    assert source.count("params_blocks[i]") == 1 and "_stack_t5" not in source
    assert (
        "bparams_blocks = runtime.add_at(bparams_blocks, params_blocks, i, b_t6)" in source
    ) and "b_t6 = runtime.Sparse({'W': b_t7, 'b': b_t9})" in source
    written = " ".join(source.split())  # (however the line breaks)
    assert "bparams = {'hidden': {'W': b_t1, 'b': b_t3}, 'blocks': bparams_blocks, 'head':" in (
        written
    )
    assert source.count("bparams ") == 1 and source.count("(bparams,") == 1  # (built once)
    for make in (made.dicts_of_layers, made.dicts_of_layers_without_blocks):
        _same_as_unoptimised_and_differences(made.list_of_dicts_in_a_loop, make())
    source = nf.grad(made.dict_blocks_through_a_callee_twice).source
    assert "    bparams_blocks = runtime.zeros_like(params_blocks)\n    for i in reversed(" in (
        source
    )
    assert (
        "            bparams_blocks = runtime.add_at(bparams_blocks, params_blocks, i, b_t6)"
    ) in source
    assert "bp = runtime.Sparse({'W': b_t0, 'b': b_t2})" in source
    for make in (made.dicts_of_layers, made.dicts_of_layers_without_blocks):
        _same_as_unoptimised_and_differences(made.dict_blocks_through_a_callee_twice, make())


def test_a_key_read_in_and_outside_a_loop_sums_both(rng):
    import container_constructs as made

    """params['W'], read before the loop, is read once (the loop reads that value, and adds
    to its adjoint); params['b'], read only after it, is read in each iteration (a loop that
    may run no times reads it nowhere before), its additions summed in `bb`."""
    source = nf.grad(made.key_read_in_and_outside_a_loop).source
    assert source.count("params['W']") == 1 and "_t5 = _t0 * k" in source, source
    assert "    b_t0 = runtime.zeros_like(_t0)\n    bb = 0.0\n" in source
    assert "        bb += b_t6\n        b_t0 = b_t0 + b_t5 * k\n" in source
    assert "bparams = {'W': b_t0, 'b': b_t11 + bb}" in source
    for make in (made.dict_params, made.dict_params_three_rows):  # (twice; no times)
        _same_as_unoptimised_and_differences(made.key_read_in_and_outside_a_loop, make())


def test_nested_dict_adjoints_hold_in_second_order(rng):
    """The Hessian-vector products (forward over these reverse sweeps) against autograd."""
    import pytest

    pytest.importorskip("autograd")
    import container_constructs as made
    from pytree_oracle import autograd_hvp, checked_hvp, module_for_autograd

    twin = module_for_autograd(made)
    for function, make in [
        (made.dict_of_dicts, made.dicts_of_layers),
        (made.list_of_dicts_in_a_loop, made.dicts_of_layers),
        (made.dict_blocks_through_a_callee_twice, made.dicts_of_layers_without_blocks),
        (made.key_read_in_and_outside_a_loop, made.dict_params),
    ]:
        args = make()
        product, direction = checked_hvp(function, args)
        expected = autograd_hvp(getattr(twin, function.__name__), args, direction)
        assert_leaves_close(product, expected, 1e-8, 1e-10, f"{function.__name__}: autograd")


def test_a_loops_additions_leave_it_only_where_it_touches_nothing_else():
    """Taken out of a loop: additions to an adjoint the loop neither reads nor writes
    otherwise, of a dict it does not write, both bound before it (else a loop that runs no
    times would read them unbound after it)."""
    from srcdiff.optimize import gather_dict_adjoints

    out = _pass_on(
        gather_dict_adjoints,
        """
        def f(p, q, a, c, flag):
            bp = runtime.getitem_grad(a, p, 'w')
            if flag:
                bq = runtime.zeros_like(q)
            for i in range(3):
                bp = runtime.add_at(bp, p, 'w', c)
                b_t1 = runtime.getitem_grad(c, a, 'u')
                b_t0 = runtime.getitem_grad(b_t1, q, i)
                bp = runtime.add_at(bp, p, 'v', b_t0)
                bq = runtime.add_at(bq, q, 'w', c)
            for i in range(2):
                bp = runtime.add_at(bp, p, 'b', c)
                p = c
            return runtime.as_grad(bp, p), bq
        """,
    )
    assert "    bw = 0.0\n    bv = 0.0\n    for i in range(3):\n" in out, out
    assert "        bw = bw + c\n        bv = runtime.add_at(bv, q, i, {'u': c})\n" in out
    assert "bq = runtime.add_at(bq, q, 'w', c)" in out and "b_t" not in out
    assert "bp = runtime.Sparse({'v': bv, 'w': a + bw})\n    for i in range(2):" in out
    assert "bp = runtime.add_at(bp, p, 'b', c)" in out


def test_a_sparse_display_nests_and_add_at_starts_from_zero():
    from srcdiff import runtime

    g, row = np.arange(3.0), np.ones(2)
    nested = runtime.Sparse({"head": {"w": g}, "none": 0.0})
    assert type(nested["head"]) is runtime.Sparse and "none" not in nested
    total = nested + runtime.Sparse({"head": {"w": g, "b": g}})
    np.testing.assert_array_equal(total["head"]["w"], 2 * g)
    np.testing.assert_array_equal(total["head"]["b"], g)
    assert runtime.add_at(0.0, {"k": g}, "k", g) == {"k": g}
    np.testing.assert_array_equal(runtime.add_at(0.0, np.zeros((2, 2)), 1, row), [[0, 0], row])


def written_between(p, x):
    d = {"w": p["w"], "c": p["c"]}
    a = np.sum(d["w"] * x)
    d["w"] = d["c"] * 2.0
    return a + np.sum(d["w"] * x) * d["c"]


def rebound_between(p, x):
    q = p
    t = 0.0
    for _ in range(2):
        t = t + np.sum(q["a"] * x)
        q = q["inner"]
        t = t + np.sum(q["a"] ** 2)
    return t


def doubled(d):
    return d["a"] * 2.0


def called_between(p, x):
    return np.sum(p["a"] * doubled(p) * p["a"] * x) + np.sum(p["a"] * p["a"]) * p["b"]


def index_changed_between(x, w):
    t = 0.0
    i = 0
    for _ in range(3):
        a = x[i] * w
        i = i + 1
        t = t + np.sum(a * x[i])
    return t


def test_an_item_is_read_once_only_where_nothing_between_can_change_it(rng):
    """d[k] read again is the value read before where only pure primitives computing new
    names ran between (`p['a'] * p['a']`); not after a write into d, d or k bound anew, or a
    call of the user's (which might change d)."""
    p = {"w": rng.normal(size=3), "c": 0.7}
    assert nf.grad(written_between).source.count("d['w']") == 2
    _same_as_unoptimised_and_differences(written_between, (p, rng.normal(size=3)))
    p = {"a": rng.normal(size=3), "inner": {"a": rng.normal(size=3), "inner": {}}}
    p["inner"]["inner"] = {"a": rng.normal(size=3)}
    assert nf.grad(rebound_between).source.count("q['a']") == 2
    _same_as_unoptimised_and_differences(rebound_between, (p, rng.normal(size=3)))
    source = nf.grad(called_between).source
    called = source[source.index("def dcalled_between") : source.index("def fwd_doubled")]
    assert called.count("p['a']") == 2 and called.count("p['b']") == 1, called
    p = {"a": rng.normal(size=3), "b": 1.3}
    _same_as_unoptimised_and_differences(called_between, (p, rng.normal(size=3)))
    assert nf.grad(index_changed_between).source.count("x[i]") == 2
    check_grad(index_changed_between, rng.normal(size=(4, 3)), rng.normal(size=3))
