"""The printing passes that make a specialized derivative shorter (teaching/inline_callees.py,
fused_branches.py, propagated_constants.py, same_branches.py, returned_values.py, and while loops in
loop_saves.py): each keeps the printed code right, in the branches the example did not take too.

A specialized text is checked against the general code only on the example's own arguments
(specialize.py), so these tests run the printed source on arguments that take the other branches."""
import os
import re
import sys
import textwrap

import numpy as np
import pytest

import astjax
from astjax.codegen.unparse import parse_printed, unparse
from astjax.teaching.fused_branches import fuse_branches
from astjax.teaching.propagated_constants import propagate_constants
from astjax.teaching.returned_values import return_assigned_values
from astjax.teaching.same_branches import merge_same_branches

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))

import teaching_functions as F  # noqa: E402
import teaching_length as L  # noqa: E402


def _printed_function(name, args, argnums=0):
    """The standalone specialized text of grad(F.name) for `args`, as a callable."""
    text = L.printed(name, args, argnums, standalone=True)
    assert "general form" not in text, text
    namespace = {"__name__": f"printed_{name}"}
    exec(compile(text, f"<printed grad_{name}>", "exec"), namespace)
    return namespace[re.search(r"^def (\w+)\(", text, re.M).group(1)], text


# (function, the example printed for, arguments taking the branches the example did not)
OTHER_BRANCHES = [
    ("overwrite_if", (1.5,), [(-1.0,), (0.5,)]),
    ("nested_if", (1.5,), [(-1.0,), (20.0,), (5.0,)]),
    ("multiarg_if", (1.5,), [(0.1,), (-2.0,), (3.0,)]),
    ("if_mul_with_call", (1.5, 2.0), [(3.0, 2.0), (0.5, 0.25)]),
    ("cond_iterpower1", (1.5,), [(30.0,), (3.0,)]),
    ("serial_ifthenfor", (0.9, 2), [(-0.9, 2), (0.5, 3)]),
]


@pytest.mark.parametrize("name, example, others", OTHER_BRANCHES, ids=[c[0] for c in OTHER_BRANCHES])
def test_printed_derivative_is_right_in_branches_the_example_did_not_take(name, example, others):
    printed, _ = _printed_function(name, example)
    for args in others:
        expected = astjax.grad(getattr(F, name))(*args)
        got = printed(*[np.float32(a) if isinstance(a, float) else a for a in args])
        assert np.allclose(got, expected, rtol=1e-5, atol=1e-6), (name, args, got, expected)


def test_straight_line_callees_are_written_where_they_are_called():
    for name, args in [("mul_with_call", (1.5, 2.0)), ("nested_call", (1.5, 2.0)),
                       ("if_mul_with_call", (1.5, 2.0))]:
        _, text = _printed_function(name, args)
        assert "vjp_" not in text and "return b\n" in text, text
    _, text = _printed_function("gradgrad_chain_of_multcalls", (1.1,))
    assert "_b1" not in text and "vjp_mul" not in text and "return 2 * (2 * (2 * c * b) * a)" in text
    assert "# via line 113: return a * b" in text             # the callee's line is still named


def test_a_recursive_derivative_stays_one_function():
    from teaching import fact_pow
    text = astjax.source(astjax.grad(fact_pow), 2.0, 3)
    assert text.count("def vjp_fact_pow(") == 1 and "general form" not in text


def test_a_branch_prints_as_one_if_and_its_tape_goes():
    _, text = _printed_function("multiarg_if", (1.5,))
    assert "_tape" not in text and text.count("if a < b - a * b:") == 1 and "_t1" not in text
    _, text = _printed_function("nested_if", (1.5,))
    assert text.count("if a > 0:") == 1 and text.count("if a < 10:") == 1 and "a_gt_0" not in text


def test_overwrite_if_reads_like_the_hand_written_derivative():
    _, text = _printed_function("overwrite_if", (1.5,))
    assert "return 3.0" in text and "return 2.0" in text and "ba" not in text.split("def ")[1].split(":", 1)[1]


def test_a_while_loop_temporary_is_saved_after_it_is_computed():
    from teaching import newton_sqrt
    text = astjax.source(astjax.grad(newton_sqrt), 2.0)
    assert "= None" not in text and "general form" not in text and "while i < 20:" in text
    forward = text.split("for a_over_x, x in zip(reversed(a_over_x_saved), reversed(x_saved)):")[0]
    assert forward.index("a_over_x = a / x") < forward.index("a_over_x_saved.append(a_over_x)")
    assert "_n1" not in text          # the iteration count nothing reads once the saves are in the header


def _function(source):
    return parse_printed(textwrap.dedent(source)).body[0]


def _body(node):
    return unparse(node).split("\n", 1)[1]


def test_branches_do_not_fuse_across_a_statement_that_reads_what_the_first_writes():
    node = fuse_branches(_function("""
        def f(c, x):
            if c:
                x = x + 1.0
            y = x * 2.0
            if c:
                y = y + 1.0
            return y
        """))
    assert _body(node).count("if c:") == 2


def test_branches_fuse_across_a_statement_that_commutes():
    node = fuse_branches(_function("""
        def f(c, x):
            if c:
                t = x + 1.0
            by = 1.0
            if c:
                by = by * t
            return by
        """))
    assert _body(node).count("if c:") == 1 and _body(node).index("by = 1.0") < _body(node).index("if c:")


def test_branches_do_not_fuse_when_a_test_name_changes_between():
    node = fuse_branches(_function("""
        def f(c, x):
            if c:
                t = x + 1.0
            c = x > 2.0
            if c:
                x = t
            return x
        """))
    assert _body(node).count("if c:") == 2


def test_a_number_reaching_a_loop_through_its_back_edge_is_not_propagated():
    node = propagate_constants(_function("""
        def f(n):
            b = 1.0
            for i in range(n):
                b = b * 2.0
            return b
        """))
    assert "b = b * 2.0" in _body(node)


def test_a_number_is_propagated_into_both_branches_and_an_accumulation():
    node = propagate_constants(_function("""
        def f(a):
            b = 1.0
            c = 0.0
            if a > 0:
                b = b * 3.0
            else:
                c += a
            return b + c
        """))
    body = _body(node)
    assert "b = 1.0 * 3.0" in body and "c = a" in body and "return b + c" in body


def test_a_number_is_not_propagated_where_another_assignment_may_reach():
    node = propagate_constants(_function("""
        def f(a):
            b = 1.0
            if a > 0:
                b = a
            return b * 2.0
        """))
    assert "return b * 2.0" in _body(node)


def test_equal_branches_merge_but_different_ones_do_not():
    node = merge_same_branches(_function("""
        def f(a, b):
            if a > b:
                r = b
            else:
                r = b
            if a > 0:
                s = a
            else:
                s = b
            return r + s
        """))
    body = _body(node)
    assert "if a > b" not in body and "if a > 0:" in body


def test_a_return_folds_into_every_branch_only_when_each_ends_assigning_it():
    node = return_assigned_values(_function("""
        def f(a):
            if a > 0:
                r = 3.0
            else:
                r = 2.0
            return r
        """))
    assert _body(node).count("return") == 2 and "r =" not in _body(node)
    # a branch that does not assign r: the branches that do return there, and r's number is returned
    # after the `if` (returned_values._partial_branches) ...
    node = return_assigned_values(_function("""
        def f(a):
            r = 1.0
            if a > 0:
                r = 3.0
            return r
        """))
    assert _body(node) == "    if a > 0:\n        return 3.0\n    return 1.0\n"
    # ... only where r starts as a number and nothing else reads it
    for start, branch in [("r = a * 2.0", "r = 3.0"), ("r = 1.0", "r = r * 3.0")]:
        node = return_assigned_values(_function(f"""
            def f(a):
                {start}
                if a > 0:
                    {branch}
                return r
            """))
        assert "return r" in _body(node), _body(node)


SECOND_ORDER = [("iterpower", (1.1, 3), [(0.9, 2)]), ("overwrite_if", (1.5,), [(-1.0,)]),
                ("mul_with_call", (1.5, 2.0), [(0.5, 3.0)]), ("nested_if", (1.5,), [(-1.0,), (20.0,)])]


@pytest.mark.parametrize("name, example, others", SECOND_ORDER, ids=[c[0] for c in SECOND_ORDER])
def test_second_order_prints_without_shape_helpers_and_runs_right(name, example, others):
    gg = astjax.grad(astjax.grad(getattr(F, name)))
    text = astjax.source(gg, *example, standalone=True)
    assert "general form" not in text and "broadcast_like" not in text and "zeros_like" not in text, text
    assert "b_tape" not in text and not re.search(r"^\s*(\w+) = \1$", text, re.M)     # no self-assignments
    namespace = {"__name__": f"printed_second_{name}"}
    exec(compile(text, "<printed>", "exec"), namespace)
    printed = namespace[re.search(r"^def (\w+)\(", text, re.M).group(1)]
    for args in [example] + others:
        expected = gg(*args)
        got = printed(*[np.float32(a) if isinstance(a, float) else a for a in args])
        assert np.allclose(got, expected, rtol=1e-5, atol=1e-6), (name, args, got, expected)


def test_a_second_derivative_that_is_zero_prints_as_zero():
    text = astjax.source(astjax.grad(astjax.grad(F.mul_with_call)), 1.5, 2.0)
    assert "return 0.0" in text and "jvp_vjp" not in text


def test_a_temporary_read_once_in_a_for_header_is_written_there():
    _, text = _printed_function("serial_for", (1.1, 2))
    # the loop of `ba = ba * 3.0` is one power since scaling_loops.py; its count is still written `n + 1`,
    # guarded: the printed source serves every n, and range(n + 1) is empty for n < -1
    assert "3.0 ** max(n + 1, 0)" in text and "n_plus_1" not in text
    printed, _ = _printed_function("serial_for", (1.1, 2))
    for args in [(1.1, 2), (0.9, 4)]:
        assert np.allclose(printed(np.float32(args[0]), args[1]), astjax.grad(F.serial_for)(*args), rtol=1e-5)


def test_branches_do_not_fuse_when_the_first_jumps():
    node = fuse_branches(_function("""
        def f(c, xs):
            for x in xs:
                if c:
                    break
                y = x * 2.0
                if c:
                    y = y + 1.0
            return y
        """))
    assert _body(node).count("if c:") == 2


def test_a_number_is_not_propagated_past_a_continue():
    node = propagate_constants(_function("""
        def f(xs):
            b = 1.0
            for x in xs:
                b = x
                if x > 0:
                    continue
                b = 1.0
            return b * 2.0
        """))
    assert "return b * 2.0" in _body(node)


import astjax.scipy.stats.norm as _norm  # noqa: E402


def _put_like(S, K=100.0, T=1.0):
    return _norm.cdf((S - K) / T) * S


def test_standalone_source_keeps_each_functions_own_defaults():
    """`_put_like`'s default `K=100.0` and `norm.cdf`'s `loc=0.0` were both `_default1`: the
    standalone text used 100.0 for `loc` too (a silently wrong derivative). Each gets its own name."""
    g = astjax.grad(_put_like)
    for args in [(), (np.float64(97.8),)]:
        text = astjax.source(g, *args, standalone=True) if args else astjax.source(g, standalone=True)
        namespace = {"__name__": "printed_put_like"}
        exec(compile(text, "<printed>", "exec"), namespace)
        printed = namespace[re.search(r"^def (\w+)\(", text, re.M).group(1)]
        assert np.allclose(printed(np.float64(97.8)), g(np.float64(97.8)), rtol=1e-9), text


def test_explain_puts_a_fused_branchs_header_beside_the_lines_it_governs():
    text = str(astjax.explain(astjax.grad(F.multiarg_if), 1.5))
    forward, reverse = text.split("# reverse sweep")
    right = [line.split(" | ")[1].strip() for line in forward.splitlines() if " | " in line]
    assert "if a < b - a * b:" not in right
    rows = [line for line in reverse.splitlines() if " | " in line]
    at = next(i for i, line in enumerate(rows) if line.split(" | ")[0].strip().endswith("a = a * a"))
    assert rows[at].split(" | ")[1].strip() == "if a < b - a * b:"
    assert rows[at + 1].split(" | ")[1].strip() == "return 2 * a * b"


def test_a_branch_that_only_picks_a_value_is_a_conditional_expression():
    _, text = _printed_function("multiarg_if", (1.5,))
    assert "b = 3.0 if a * a / 3.0 > 0 else 4.0" in text
    from astjax.teaching.conditional_assignments import conditional_assignments
    node = conditional_assignments(_function("""
        def f(a):
            if a > 0:
                # from line 3: b = a
                b = a
            else:
                b = 2.0
            if a > 1:
                c = a
            else:
                d = a
            return b
        """))
    assert _body(node).count("if a >") == 2           # a branch with a comment, or two names, stays an `if`


def test_an_accumulation_past_an_independent_statement_is_one_sum():
    from teaching import newton_sqrt
    text = astjax.source(astjax.grad(newton_sqrt), 4.0)
    assert "bx = b_t1 - b_t1 * a_over_x / x" in text and "bx +=" not in text
    from astjax.teaching.sum_accumulations import sum_accumulations
    node = sum_accumulations(_function("""
        def f(a, x):
            b = a
            x = x * 2.0
            b += x
            return b
        """))
    # the added x is written between: the sum may not move up, it moves down to where x is new
    assert _body(node) == "    x = x * 2.0\n    b = a + x\n    return b\n"


def weighted_by_extra_args(x, *args):
    return np.sum(x * args[0]) + args[1] * 2.0


def scaled_by_keyword(x, *args, scale=2.0):
    return np.sum(x * args[0]) * scale


def test_a_function_with_star_args_prints_with_the_users_signature():
    """Transformed, `*args` is one ordinary parameter holding a tuple; printed, the main function takes the
    arguments as grad does, so a reader who calls it as they call grad gets grad's answer (not a packed tuple
    read item by item)."""
    x, a = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    grad = astjax.grad(weighted_by_extra_args)
    assert "def grad_weighted_by_extra_args(x, *args):" in astjax.source(grad)
    namespace = {}
    exec(compile(astjax.source(grad, x, a, 5.0, standalone=True), "<printed>", "exec"), namespace)
    np.testing.assert_allclose(namespace["grad_weighted_by_extra_args"](x, a, 5.0), grad(x, a, 5.0))
    keyword = astjax.grad(scaled_by_keyword)
    assert "def grad_scaled_by_keyword(x, *args, scale):" in astjax.source(keyword, x, a, scale=3.0)
