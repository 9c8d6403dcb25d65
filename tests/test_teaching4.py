"""The printing passes that bring the printed gradient near a teacher's hand derivative (issue 10):
scaling_loops.py, single_use_values.py, recomputed_flags.py, straight_line_saves.py,
recomputed_saves.py, index_adjoints.py, dead_item_resets.py. Each printed source is run on its own
(`standalone=True`) and compared with grad, on the example's arguments and on others (a specialized
text is checked against the general code only on the example's own arguments)."""
import re

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


def scaled_in_a_loop(a, n):
    for i in range(n):
        a = a * 3.0
    return a * a


def halved_while_big(a):
    while jnp.abs(a) > 0.1:
        a = a * 0.5
    return a


def squared_while_small(a):
    for i in range(3):
        if a < 20:
            a = a * a
    return a


def cubed_in_a_loop(a):
    for i in range(3):
        a = a * a * a
    return a


def item_overwritten(x):
    y = x ** 2.0
    x[0] = y[1] * y[2]
    return jnp.sum(x * y)


def copied_items(x):
    y = jnp.zeros_like(x)
    for i in range(len(x)):
        y[i] = x[i]
    return jnp.sum(y * y)


def shifted_items(h, x):
    for t in range(3):
        h[t + 1] = h[t] * x[t]
    return jnp.sum(h * h)


def accumulated_rows(inputs, W):
    h = jnp.zeros((4, 3))
    for t in range(3):
        h[t + 1] = jnp.dot(inputs[t], W) + h[t]
    return jnp.sum(h[1:] * h[1:])


def copied_items_twice(x):
    total = 0.0
    for k in range(2):
        y = jnp.zeros_like(x)
        for i in range(len(x)):
            y[i] = x[i] * (k + 1.0)
        total = total + jnp.sum(y * y)
    return total


def picked_items(x, idx):
    return jnp.sum(x[idx] * x[idx])


def squared_twice(a):
    x = a * a
    x *= x
    return x


def _printed(fn, *args, argnums=0):
    """(the standalone printed gradient as a function, its text)."""
    text = astjax.source(astjax.grad(fn, argnums=argnums), *args, standalone=True)
    assert "general form" not in text, text
    namespace = {"__name__": f"printed_{fn.__name__}"}
    exec(compile(text, f"<printed grad_{fn.__name__}>", "exec"), namespace)
    return namespace[re.search(r"^def (\w+)\(", text, re.M).group(1)], text


def _check(fn, example, others=(), argnums=0):
    printed, text = _printed(fn, *example, argnums=argnums)
    for args in [example, *others]:
        copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        got = printed(*[np.float32(a) if isinstance(a, float) else a for a in copies])
        expected = astjax.grad(fn, argnums=argnums)(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        assert np.allclose(got, expected, rtol=1e-5, atol=1e-6), (args, got, expected, text)
    return text


def test_a_loop_scaling_the_adjoint_prints_one_power():
    text = _check(scaled_in_a_loop, (1.5, 2), [(0.5, 0), (1.2, 4), (1.2, -3)])
    assert "3.0 ** max(n, 0)" in text and "reversed(range(n))" not in text
    text = _check(halved_while_big, (3.0,), [(0.05,), (-7.0,)])
    assert "return 0.5 ** _n1" in text and "for _k1" not in text


def test_a_branch_flag_is_recomputed_from_the_restored_value():
    text = _check(squared_while_small, (1.5,), [(30.0,), (3.0,), (-5.0,)])
    assert "push(_tape, a_lt_20)" not in text and "a_lt_20" not in text
    # and the save under the test is one list of the values the reverse loop walks (saved_lists.py)
    assert text.count("if a < 20:") == 1 and "for a in reversed(a_saved):" in text


def test_a_value_computed_from_a_restored_save_is_recomputed():
    text = _check(cubed_in_a_loop, (1.1,), [(0.7,)])
    assert "push(_tape, aa)" not in text and "append(aa)" not in text and "a = a * a * a" in text
    assert "ba * (a * a)" in text          # computed again after the restore, written where it is read


def test_a_straight_line_save_is_a_new_name():
    x = np.array([0.3, 0.5, 0.7], np.float32)
    text = _check(item_overwritten, (x,), [(x[::-1].copy(),)])
    assert "_tape" not in text and "x1 = at_set(x, 0, y[1] * y[2])" in text


def test_item_adjoints_add_into_the_item():
    x = np.array([0.3, 0.5, 0.7], np.float32)
    text = _check(copied_items, (x,), [(x * 2,)])
    assert "bx = bx.at[i].add(" in text and ".set(0.0)" not in text and "bx = 0.0" not in text


def test_a_reset_of_the_item_an_iteration_reads_goes_whatever_its_offset():
    inputs = np.array([[0.3, 0.5], [0.7, 0.2], [0.4, 0.9]], np.float32)
    W = np.array([[0.2, 0.6, 0.1], [0.8, 0.3, 0.5]], np.float32)
    text = _check(accumulated_rows, (inputs, W), [(inputs * 2, W[::-1].copy())], argnums=1)
    assert ".set(0.0)" not in text and "bh = bh.at[t].add(" in text


def test_a_reset_whose_array_is_read_after_the_loop_stays():
    x = np.array([0.3, 0.5, 0.7], np.float32)
    h = np.array([0.9, 0.1, 0.2, 0.4], np.float32)
    text = _check(shifted_items, (h, x), [(h * 2, x)])           # the gradient is bh: its resets count
    assert ".set(0.0)" in text
    _check(copied_items_twice, (x,), [(x * 2,)])         # inside another loop: the resets stay


def test_repeated_indices_add_once_per_read():
    x = np.array([0.3, 0.5, 0.7], np.float32)
    _check(picked_items, (x, np.array([0, 0, 2])), argnums=0)


def test_an_adjoint_read_once_is_written_where_it_is_read():
    text = _check(squared_twice, (1.5,), [(-0.5,)])
    assert "return 2 * (2 * x * a)" in text and "bx" not in text


def scaled_a_computed_number_of_times(a, n):
    m = n - 3
    for i in range(m):
        a = a * 3.0
    return a * a


def test_a_count_that_may_be_negative_is_clamped():
    text = _check(scaled_a_computed_number_of_times, (1.5, 5), [(1.5, 2), (0.5, 7)])
    assert "3.0 ** max(m, 0)" in text and "for i in range(m):" in text     # the forward loop stays


def indexed_triple_loop(x):
    s = 0.0
    for i in range(3):
        for j in range(i, 3):
            for k in range(j - i + 1):
                s = s + x[i] * x[j] + x[k] ** 2
    return s


def zipped_columns(x):
    M = jnp.reshape(x, (2, 3))
    cols = list(zip(*M))
    return sum(a * b for a, b in cols)


def test_a_value_an_earlier_assignment_does_not_cover_is_not_folded():
    # `x_k = None` before the loops does not keep the loop's own `x_k = x[k]` from the reverse sweep's
    # read of it (single_use_values._covered_reads): the printed form must stay specialized and right
    x = np.array([0.3, 0.5, 0.7], np.float64)
    _check(indexed_triple_loop, (x,), [(x[::-1].copy(),)])


def test_a_list_filled_after_it_is_computed_is_saved_not_recomputed():
    x = np.linspace(0.1, 0.6, 6)
    _check(zipped_columns, (x,), [(x * 3,)])
