"""The printed second derivative (issue 10): comments at the user's lines, no tape bookkeeping a teacher
would not write, and every printed text still computes the transformation's number.

The passes are checked on small trees (cheap); a few corpus functions are printed and run end to end.
ASTJAX_LONG_PROPERTIES=1 runs the whole second-order measurement of benchmarks/teaching_length.py.
"""
import linecache
import os
import re
import sys
import textwrap

import gast
import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))

import teaching_functions as F  # noqa: E402
import teaching_length as L  # noqa: E402
from astjax.codegen.unparse import parse_printed, unparse  # noqa: E402
from astjax.teaching.cheap_temporaries import substitute_cheap_temporaries  # noqa: E402
from astjax.teaching.constant_branches import take_constant_branches  # noqa: E402
from astjax.teaching.dead_loops import drop_dead_loops  # noqa: E402
from astjax.teaching.loop_indices import name_loop_indices  # noqa: E402
from astjax.teaching.tuple_items import split_tuple_items  # noqa: E402
from astjax.teaching.unread_saves import drop_idle_saves  # noqa: E402

LONG = bool(os.environ.get("ASTJAX_LONG_PROPERTIES"))
ARGS = {name: (args, argnums) for name, args, argnums in L.CORPUS}


def _function(text):
    return parse_printed(textwrap.dedent(text)).body[0]


def _code(node):
    return [line.strip() for line in unparse(node).splitlines()[1:] if line.strip()]


# ------------------------------------------------------------------ the passes on small trees
def test_constant_tests_fold_to_the_branch_that_runs():
    node = _function("""
        def f(g, a):
            ndim_a_eq_0 = False
            _t1 = ndim_a_eq_0 if ndim_a_eq_0 else False
            if _t1:
                r = g * a
            elif True:
                r = g @ a
            else:
                r = g
            return r
        """)
    assert _code(take_constant_branches(node)) == ["r = g @ a", "return r"]


def test_boolean_operators_fold_as_python_evaluates_them():
    node = _function("""
        def f(x, y):
            a = True and x
            b = False or y
            c = True or x
            d = False and x
            e = x and True
            return (a, b, c, d, e)
        """)
    code = _code(take_constant_branches(node))
    # `c` and `d` are constants, written where they are read; a literal after a name decides nothing
    assert code == ["a = x", "b = y", "e = x and True", "return (a, b, True, False, e)"]


def test_a_name_assigned_a_flag_in_one_branch_only_is_not_folded():
    node = _function("""
        def f(x):
            flag = False
            if x > 0:
                flag = x
            if flag:
                return 1.0
            return 2.0
        """)
    assert "if flag:" in _code(take_constant_branches(node))


def test_a_tuple_read_only_by_items_is_its_items():
    node = _function("""
        def f(c, dc):
            _b1 = (c * 2.0, c)
            _b1_0 = 3.0
            d_b1 = (dc, dc)
            return _b1[0] + _b1[1] + d_b1[1] + _b1_0
        """)
    names = split_tuple_items(node)
    code = _code(node)
    assert names == {"_b1_0_", "_b1_1", "d_b1_0", "d_b1_1"}
    assert code[:2] == ["_b1_0_ = c * 2.0", "_b1_1 = c"]      # an existing name is never reused
    assert code[-1] == "return _b1_0_ + _b1_1 + d_b1_1 + _b1_0"


def test_a_tuple_read_whole_stays():
    node = _function("""
        def f(c):
            _b1 = (c, c)
            g(_b1)
            return _b1[0]
        """)
    assert split_tuple_items(node) == set() and "_b1 = (c, c)" in _code(node)


def test_a_loop_nothing_reads_from_goes_with_its_comment():
    node = _function("""
        def f(a):
            __comment__('from line 3: while abs(a) > 0.1:')
            while abs(a) > 0.1:
                a = a * 0.5
            return 0.0
        """)
    assert _code(drop_dead_loops(node)) == ["return 0.0"]


@pytest.mark.parametrize("body", [
    "for i in range(3):\n        a = a * 0.5\n    return a",               # read after the loop
    "for i in range(3):\n        push(_tape, a)\n    return 0.0",          # the tape
    "for i in range(3):\n        a[i] = 0.0\n    return 0.0",              # an item store (a may be the caller's)
    "for i in range(3):\n        xs.append(a)\n    return 0.0",            # an effect
])
def test_a_loop_with_a_reader_or_an_effect_stays(body):
    node = _function(f"def f(a, xs, _tape):\n    {body}\n")
    assert any(isinstance(s, gast.For) for s in drop_dead_loops(node).body)


def test_a_tangent_tape_pairs_its_own_saves():
    node = _function("""
        def f(a, da):
            _tape = Tape()
            d_tape = Tape()
            push(_tape, a)
            push(d_tape, da)
            a = pop(_tape)
            da = pop(d_tape)
            return a * da
        """)
    assert _code(drop_idle_saves(node)) == ["return a * da"]


def test_a_pop_from_another_tape_is_no_pair():
    node = _function("""
        def f(a, da):
            push(_tape, a)
            push(d_tape, da)
            a = pop(d_tape)
            da = pop(_tape)
            return a * da
        """)
    assert len(_code(drop_idle_saves(node))) == 5


def test_a_cheap_temporary_is_written_where_it_is_read():
    node = _function("""
        def f(bh, t, inputs, _t1):
            t_plus_1 = t + 1
            inputs_t = inputs[t]
            _t2 = 1.0 + _t1
            b = bh[t_plus_1] * inputs_t
            c = bh.at[t_plus_1].set(0.0)
            return b + c + _t2 / _t2 + 1.0 / _t2
        """)
    substitute_cheap_temporaries(node, {"t_plus_1", "inputs_t"})
    assert _code(node) == ["_t2 = 1.0 + _t1", "b = bh[t + 1] * inputs[t]", "c = bh.at[t + 1].set(0.0)",
                           "return b + c + _t2 / _t2 + 1.0 / _t2"]     # not a user's name, nor read 3 times


def test_a_cheap_temporary_whose_inputs_change_before_a_read_stays():
    node = _function("""
        def f(bh, t):
            t_plus_1 = t + 1
            b = bh[t_plus_1]
            t = t * 2
            return b + t_plus_1
        """)
    substitute_cheap_temporaries(node, {"t_plus_1"})
    assert _code(node)[0] == "t_plus_1 = t + 1"


def test_a_reverse_loop_counts_with_the_users_index():
    node = _function("""
        def f(by, x):
            for _k2 in reversed(range(3)):
                i = _k2
                x = by[_k2] + x * i
            return x
        """)
    name_loop_indices(node)
    assert _code(node) == ["for i in reversed(range(3)):", "x = by[i] + x * i", "return x"]


def test_a_counter_read_after_its_loop_keeps_its_name():
    node = _function("""
        def f(by, x):
            for _k2 in reversed(range(3)):
                x = x * _k2
                i = _k2
            return x + _k2
        """)
    assert not name_loop_indices(node)


def test_a_seed_of_ones_times_a_value_of_its_shape_is_that_value():
    from astjax.teaching.ones_factors import MARK, fold_ones_factors
    node = _function("""
        def f(y, p, e):
            by = jnp.ones((4,))
            by = by * (1.0 - y * y)
            bp = jnp.full((2, 4), -1.0) / p
            bq = jnp.ones((2, 4)) / 8 * 2 * e
            bz = jnp.ones((3,)) * e
            return (by, bp, bq, bz)
        """)
    body = node.body
    setattr(body[1].value, MARK, (4,))
    setattr(body[2].value, MARK, (2, 4))
    setattr(body[3].value, MARK, (2, 4))
    setattr(body[4].value, MARK, (4,))          # the run saw other shapes: the ones stay
    assert _code(fold_ones_factors(node)) == ["by = 1.0 - y * y", "bp = -1.0 / p", "bq = 2.0 * e / 8",
                                              "bz = jnp.ones((3,)) * e", "return (by, bp, bq, bz)"]


def test_textbook_seeds_in_printed_gradients():
    text = L.printed("bilinear", *ARGS["bilinear"])
    # the seed of tanh's derivative, written where it is read once (single_use_values.py)
    assert "W @ (1.0 - y * y)" in text and "jnp.ones" not in text
    text = L.printed("logistic_regression", *ARGS["logistic_regression"])
    assert "blabel_probabilities = -1.0 / label_probabilities" in text and "jnp.full" not in text


def test_the_name_normalization_gives_a_return_is_written_out():
    text = L.printed("numpy_exp2", *ARGS["numpy_exp2"])
    assert "return jnp.exp(jnp.exp(a)) * jnp.exp(a)" in text and "out" not in text


# ------------------------------------------------------------------ printed second derivatives, end to end
def _second(name):
    args, argnums = ARGS[name]
    return L.printed_second(name, args, argnums), args, argnums


def _assert_reads_like_a_teacher(text):
    assert "general form" not in text
    body = "\n".join(L.code_lines(text))
    assert not re.search(r"^\s*(\w+) = \1\s*$", body, re.M), text          # no self-assignments
    assert "b_tape" not in body and "= None" not in body, text
    assert "if True" not in body and "if False" not in body and "elif True" not in body, text


def _assert_comments_name_the_users_lines(text):
    """Every bare `# from line N: code` names line N of teaching_functions.py, and that line is `code`."""
    for line_number, code in re.findall(r"# (?:from|via) line (\d+): (.*)", text):
        assert linecache.getline(F.__file__, int(line_number)).strip() == code.strip(), (line_number, code)


def test_a_callee_returning_a_value_and_its_tangent_is_written_out_in_order():
    """`a, da = jvp__inner_fn(a, a, da, da)`: `da = da * a + a * da` first, then `a = a * a`."""
    text, args, argnums = _second("iterpower_with_call")
    assert "def jvp__inner_fn" not in text
    assert text.index("da = da * a + a * da") < text.index("a = a * a")
    got, expected = L.run_second_standalone("iterpower_with_call", args, argnums)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["while_big", "super_iterpower", "gradgrad_chain_of_multcalls", "multiarg_if"])
def test_printed_second_derivative_of_numbers(name):
    text, args, argnums = _second(name)
    _assert_reads_like_a_teacher(text)
    _assert_comments_name_the_users_lines(text)
    assert L.defects(text, args) == {"opaque adjoints": 0, "= None": 0, "pushes never read": 0,
                                     "shape helpers on scalars": 0}
    got, expected = L.run_second_standalone(name, args, argnums)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_while_big_second_derivative_is_zero_without_the_loop():
    text, _, _ = _second("while_big")
    assert L.code_lines(text) == ["def grad_grad_while_big(a):", "    return 0.0"]


def _assert_gradient_and_hessian_times_v(name):
    """The printed hessian text (`jvp_grad_f(..., x, ..., dx)`, standalone) run on a tangent v gives
    grad(f) and the derivative of grad(f) along v, here by central differences in float64 (cheaper than
    the whole Hessian the benchmark compares with)."""
    import astjax
    args, argnums = ARGS[name]
    text = L.printed_second(name, args, argnums, standalone=True)
    namespace = {"__name__": f"printed_{name}"}
    exec(compile(text, f"<printed {name}>", "exec"), namespace)
    main = re.search(r"^def (\w+)\(", text, re.M).group(1)
    x = np.asarray(args[argnums])
    v = np.linspace(0.5, 1.5, x.size).reshape(x.shape).astype(np.float32)
    gradient, tangent = namespace[main](*[np.array(a) for a in args], v)
    grad = astjax.grad(getattr(F, name), argnums=argnums)

    def along(t):
        moved = [np.array(a, np.float64) for a in args]
        moved[argnums] = moved[argnums] + t * v
        return np.asarray(grad(*moved))
    np.testing.assert_allclose(gradient, along(0.0), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(tangent, (along(1e-4) - along(-1e-4)) / 2e-4, rtol=1e-3, atol=1e-4)
    return text[text.index("\ndef ") + 1:], args            # the derivative, without the imports


def test_hessian_of_bilinear_writes_the_rule_out_with_the_users_comments():
    """The derivative of astjax's own `dot` rule is written where it is called: no `jvp_dot_lhs_adjoint`,
    no comment pointing into astjax's files, no constant branch."""
    text, args = _assert_gradient_and_hessian_times_v("bilinear")
    _assert_reads_like_a_teacher(text)
    _assert_comments_name_the_users_lines(text)
    assert "def jvp_dot_lhs_adjoint" not in text and "via line" not in text


def test_hessian_of_rnn_prints_no_tangent_tape():
    """The tangent tape's slots of constants go with their pushes; the saved `t + 1` and `inputs[t]`
    are computed again where they are restored, so the forward loop and the tape go."""
    text, args = _assert_gradient_and_hessian_times_v("rnn")
    _assert_reads_like_a_teacher(text)
    assert "Tape()" not in text and L.defects(text, args)["pushes never read"] == 0
    assert "for t in reversed(range(3)):" in text and "bh[t + 1]" in text and "_k" not in text
    assert "jnp.outer(inputs[t], bh_item)" in text and "expand_dims" not in text    # the rule's outer product
    assert "dbW = broadcast_like(dbW, bW, _t2)\n" in text                # `+ jnp.zeros((2, 3))` goes


def test_rule_derivative_comments_name_astjax_files():
    """A derivative made from astjax's own source labels its comments with that file; a user's stays bare."""
    import types
    import astjax.rules.helpers as helpers
    from astjax.teaching.library_comments import is_library_comment, label_library_comments
    rule = _function("""
        def jvp_matmul_lhs_adjoint(g, x1, x2):
            __comment__('from line 26: return unbroadcast(g, x1)')
            return g
        """)
    user = _function("""
        def grad_f(x):
            __comment__('from line 3: y = x * x')
            return x + x
        """)

    def made_from(filename):
        fn = types.SimpleNamespace(__astjax_function_source__=types.SimpleNamespace(filename=filename))
        return fn
    namespaces = {"grad_f": {"jvp_matmul_lhs_adjoint": made_from(helpers.__file__), "grad_f": made_from(F.__file__)}}
    label_library_comments([user, rule], namespaces)
    assert "# from astjax/rules/helpers.py line 26: return unbroadcast(g, x1)" in unparse(rule)
    assert "# from line 3: y = x * x" in unparse(user)
    assert is_library_comment(rule.body[0]) and not is_library_comment(user.body[0])


@pytest.mark.skipif(not LONG, reason="the whole second-order measurement: ASTJAX_LONG_PROPERTIES=1")
def test_whole_second_order_measurement():
    rows = L.measure(second=True)
    assert all(r["second_right"] for r in rows), L.table(rows)
    assert sum(r["second"] for r in rows) <= 344, L.table(rows)
    totals = {k: sum(r["second_defects"][k] for r in rows) for k in rows[0]["second_defects"]}
    assert not any(totals.values()), L.table(rows)


def test_explain_of_a_second_derivative_lays_the_users_function_beside_it():
    import astjax
    text = str(astjax.explain(astjax.grad(astjax.grad(F.while_big)), 3.0))
    assert "teaching_functions.py:142" in text and "def while_big(a):" in text
    assert "<astjax:" not in text and "_tape" not in text
