"""The printing passes that bring the printed gradient within 1.3x of a teacher's hand derivative
(issue 10): saved_lists.py (a loop's saves as a list read back in the reverse loop's header),
doubled_sums.py, else_after_return.py, filled_items.py, returned_values.py's returns written into
each branch, cheap_temporaries.py's products, single_use_values.py's overwritten user names. Each
printed source is run on its own (`standalone=True`) and compared with grad, on the example's
arguments and on others (a specialized text is checked against the general code only on the
example's own arguments)."""
import re

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


def shrunk_until_small(a):
    while a > 1.0:
        a = jnp.sqrt(a) * a * 0.5
    return a


def triangular_loops(a, n):
    for i in range(n):
        for j in range(i):
            a = jnp.sin(a) * a
    return a


def squared_until_big(a):
    for i in range(6):
        if a > 4.0:
            break
        a = a * a + 0.5
    return a


def two_overwritten(a, b):
    for i in range(3):
        a = a * b
        b = jnp.sin(b) * a
    return a + b


def squared_under_test(a):
    for i in range(4):
        if a < 3.0:
            a = a * a + 0.25
    return a


def cubed_under_test(a):
    for i in range(4):
        if a < 3.0:
            a = a * a * a
    return a


def sin_then_squared_under_test(a):
    b = jnp.sin(a)
    for i in range(3):
        if a < 3.0:
            a = a * a
        a = a + 0.5
    return a * b


def branch_then_loop(a, n):
    if a > 0:
        a = a * a
    a = 2.0 * a
    for i in range(n):
        a = a * jnp.cos(a)
    return a


def picked_return(a):
    b = a * 2.0
    if a > 1.0:
        c = a * a
    elif a > 0.0:
        c = 3.0 * a
    else:
        c = -a
    return c * b


def summed_items(x):
    y = jnp.zeros_like(x)
    for i in range(len(x)):
        y[i] = x[i]
    return jnp.sum(y)


def cubed_loop(a):
    for i in range(3):
        a = a * a * a
    return a


def _printed(transformed, name, *args):
    text = astjax.source(transformed, *args, standalone=True)
    assert "general form" not in text, text
    namespace = {"__name__": f"printed_{name}"}
    exec(compile(text, f"<printed {name}>", "exec"), namespace)
    return namespace[re.search(r"^def (\w+)\(", text, re.M).group(1)], text


def _check(fn, example, others=(), argnums=0):
    printed, text = _printed(astjax.grad(fn, argnums=argnums), fn.__name__, *example)
    for args in [example, *others]:
        got = printed(*[np.float32(a) if isinstance(a, float) else a for a in args])
        expected = astjax.grad(fn, argnums=argnums)(*args)
        assert np.allclose(got, expected, rtol=1e-5, atol=1e-6), (args, got, expected, text)
    return text


def test_a_while_loop_with_a_data_dependent_count_reads_its_saves_in_the_header():
    text = _check(shrunk_until_small, (3.0,), [(0.5,), (3.5,), (1.5,)])
    assert "for a in reversed(a_saved):" in text and "Tape()" not in text and "pop" not in text


def test_nested_loops_whose_inner_count_reads_the_outer_index():
    text = _check(triangular_loops, (0.7, 3), [(0.4, 4), (0.9, 0), (0.9, 1)])
    assert "= None" not in text
    # the reverse nest's headers read no counter the body needs: one loop over the saved values
    assert "for a in reversed(a_saved):" in text


def test_a_loop_that_breaks():
    _check(squared_until_big, (0.5,), [(1.5,), (3.0,), (5.0,), (-0.2,)])


def test_a_loop_that_overwrites_two_variables_keeps_one_way_of_saving():
    text = _check(two_overwritten, (0.7, 0.9), [(1.1, 0.3), (-0.5, 1.2)])
    # `sin_b` is read before its restore: the tape keeps all three saves, none split off beside it
    assert "_saved" not in text and "Tape()" in text
    _check(two_overwritten, (0.7, 0.9), [(1.1, 0.3)], argnums=1)


def test_a_save_made_only_under_a_test_of_the_saved_value_is_made_inside_the_if():
    text = _check(squared_under_test, (0.5,), [(2.5,), (5.0,), (1.9,), (-3.0,)])
    # the flag the reverse sweep re-tested goes with its tape: the list holds the iterations the branch ran
    assert text.count("if a < 3.0:") == 1 and "for a in reversed(a_saved):" in text
    assert "a_lt_3" not in text and "Tape()" not in text and "ba = 2 * (ba * a)" in text
    _check(cubed_under_test, (0.5,), [(2.5,), (5.0,), (1.9,), (-3.0,)])
    # the restored `a` is read after the reverse loop (`cos(a)`): every iteration's save stays
    _check(sin_then_squared_under_test, (0.5,), [(2.5,), (5.0,), (1.2,), (-3.0,)])


def test_a_branch_save_beside_a_loop_save_is_a_name_and_a_list():
    text = _check(branch_then_loop, (0.9, 2), [(-0.7, 2), (0.3, 3)])
    assert "Tape()" not in text and "a0 = a" in text and "for a in reversed(a_saved):" in text


def test_a_return_after_an_if_is_written_in_each_branch_without_else():
    text = _check(picked_return, (1.5,), [(0.5,), (-2.0,)])
    reverse = text.split("return c * b")[1]
    assert "else:" not in reverse and reverse.count("return") == 3
    assert "return 2 * (bc * a) + bb * 2.0" in reverse          # `ba + ba + bb * 2.0` as each branch returns it


def test_a_sum_of_one_term_twice_is_twice_the_term():
    text = _check(cubed_loop, (1.1,), [(0.7,), (-1.3,)])
    assert "ba = ba * (a * a) + ba * a * a + ba * a * a" in text      # not regrouped: + is not associative
    from astjax.teaching.doubled_sums import double_sums
    from astjax.codegen.unparse import parse_printed, unparse
    node = parse_printed("def f(ba, a, flag):\n    x = ba * a + ba * a\n    y = (flag > 0) + (flag > 0)\n"
                         "    z = f(a) + f(a)\n    return x + y + z\n").body[0]
    out = unparse(double_sums(node))
    assert "x = 2 * (ba * a)" in out and "(flag > 0) + (flag > 0)" in out and "f(a) + f(a)" in out
    for x in (np.float32(3e38), np.float32(1e-45), np.float32(-0.0), np.float32(np.nan)):
        assert np.array_equal(x + x, np.float32(2) * x, equal_nan=True)


def test_a_loop_adding_ones_into_every_item_is_ones():
    x = np.array([0.3, 0.5, 0.7], np.float32)
    text = _check(summed_items, (x,), [(x * 2,)])
    assert "return jnp.ones((3,))" in text and "for " not in text


def test_second_order_reads_both_saved_lists_in_one_header():
    printed, text = _printed(astjax.grad(astjax.grad(cubed_loop)), "grad_grad_cubed_loop", 1.1)
    assert "zip(reversed(a_saved), reversed(da_saved))" in text and "Tape()" not in text
    for a in (1.1, 0.7, -1.3):
        assert np.allclose(printed(np.float32(a)), astjax.grad(astjax.grad(cubed_loop))(a), rtol=1e-5)
    printed, text = _printed(astjax.grad(astjax.grad(squared_under_test)), "grad_grad_squared_under_test", 0.5)
    for a in (0.5, 2.5, 5.0):
        assert np.allclose(printed(np.float32(a)), astjax.grad(astjax.grad(squared_under_test))(a), rtol=1e-5)


@pytest.mark.parametrize("name", ["iterpower", "superfor_iterpower", "serial_ifthenfor", "cond_iterpower1"])
def test_the_corpus_loops_print_no_tape(name):
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
    import teaching_length as L
    args, argnums = next((a, n) for f, a, n in L.CORPUS if f == name)
    text = L.printed(name, args, argnums)
    assert "Tape()" not in text and "push(" not in text and "pop(" not in text, text


def _kw_scaled(x, *, scale=2.0, shift=0.0):
    return scale * x + shift


def kw_only_loss(x):
    return jnp.sum(_kw_scaled(x, shift=1.0) ** 2)


def test_a_standalone_text_never_copies_source_that_is_not_the_called_functions():
    # generated code calls a positional copy of `_kw_scaled`; the user's keyword-only source is not it
    x = np.array([0.3, 0.5, -0.2], np.float32)
    text = astjax.source(astjax.grad(kw_only_loss), x, standalone=True)
    if text.startswith("# not standalone"):
        assert "_kw_scaled" in text.splitlines()[0]
        return
    namespace = {"__name__": "printed_kw_only_loss"}
    exec(compile(text, "<printed kw_only_loss>", "exec"), namespace)
    assert np.allclose(namespace["grad_kw_only_loss"](x), astjax.grad(kw_only_loss)(x), rtol=1e-5)


def test_explain_labels_a_list_save():
    text = str(astjax.explain(astjax.grad(cubed_loop), 1.1))
    assert "a_saved.append(a)    # saved: the reverse sweep reads a after it is overwritten" in text


def test_a_value_read_after_a_statement_it_commutes_with_is_written_there():
    from astjax.codegen.unparse import parse_printed, unparse
    from astjax.teaching.single_use_values import fold_single_use_values
    node = parse_printed("def f(ba, dba, a, da):\n    dba_a = dba * a + ba * da\n    ba = 2 * (ba * a)\n"
                         "    dba = 2 * dba_a\n    return (dba, ba)\n").body[0]
    out = unparse(fold_single_use_values(node, frozenset({"dba_a"})))
    assert "dba_a" not in out and out.index("dba = 2 * (dba * a + ba * da)") < out.index("ba = 2 * (ba * a)")
    node = parse_printed("def g(ba, a):\n    t = ba * a\n    ba = 2.0\n    c = t + ba\n    return c * ba\n").body[0]
    out = unparse(fold_single_use_values(node, frozenset({"t"})))
    assert "t = ba * a" in out                # `c = t + ba` reads the `ba` assigned between: it stays below
