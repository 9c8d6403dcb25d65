"""Regression tests for what redteam7 (issue 6, round VII: functional Python and compositions) fixed; the
corpus cases are tests/adversarial/attacks7.py."""
import functools
import operator
import statistics

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError

X = np.array([0.5, 1.0, 2.0])


# ------------------------------------------------------------ (a) builtin sum concatenating lists
def _flatten_literal_start(x):
    flat = sum([[x[0]], [x[1], x[2]]], [])
    return flat[0] * flat[2] + flat[1]


def _flatten_tuples(x):
    flat = sum([(x[0],), (x[1], x[2])], ())
    return flat[0] * flat[2] + flat[1] * flat[-1]


def _flatten_variable_start(x):
    start = []
    flat = sum([[x[0]], [x[1], x[2]]], start)
    return flat[0] * flat[2] + flat[1]


def test_sum_with_a_literal_list_start_flattens_with_exact_adjoints():
    """sum(parts, []) gave every part the whole flattened list's adjoint: [2, 2, 1] for truth [2, 1, 0.5]."""
    np.testing.assert_allclose(astjax.grad(_flatten_literal_start)(X), [2.0, 1.0, 0.5])
    np.testing.assert_allclose(astjax.grad(_flatten_tuples)(X), [2.0, 2.0, 1.5])
    _, t = astjax.jvp(_flatten_literal_start, (X,), (np.array([0.0, 0.0, 1.0]),))
    np.testing.assert_allclose(t, 0.5)


def test_sum_concatenating_lists_with_any_other_start_is_refused():
    with pytest.raises(AstjaxError, match="concatenates lists or tuples"):
        astjax.grad(_flatten_variable_start)(X)


# ------------------------------------------------------------ (b) in-place list sorts, list arguments
def _sort_through_alias(x):
    xs = [x[0], x[1], x[2]]
    ys = xs
    ys.sort()
    return xs[0] * 3 + xs[2]


def test_a_list_sorted_through_another_name_is_refused():
    """The gradient kept xs's old order ([3, 0, 1] for truth [0, 3, 1])."""
    with pytest.raises(AstjaxError, match="ys"):
        astjax.grad(_sort_through_alias)(np.array([0.5, -0.3, 1.2]))


def _sorted_list_argument(xs):
    xs.sort()
    return xs[0] * 3 + xs[2]


def _cumsum_of_list(xs):
    return jnp.sum(jnp.cumsum(xs) ** 2)


def test_a_list_argument_read_as_an_array_gets_its_rows_as_gradient():
    """jnp functions of a list argument gave a gradient of zeros (the array adjoint was dropped)."""
    xs = [np.float64(0.5), np.float64(-0.3), np.float64(1.2)]
    np.testing.assert_allclose(astjax.grad(_sorted_list_argument)(list(xs)), [0.0, 3.0, 1.0])
    g = astjax.grad(_cumsum_of_list)(tuple(xs))
    assert isinstance(g, tuple)
    np.testing.assert_allclose(g, [4.2, 3.2, 2.8])


# ------------------------------------------------------------ (c) `+` and `*` joining lists of unseen type
def _join(a):
    return a + a


def _joined_by_helper(x):
    b = _join([x[0], x[1]])
    return b[0] * 3.0


def _joined_by_reduce(x):
    flat = functools.reduce(operator.add, [[x[0]], [x[1], x[2]]])
    return flat[0] * flat[2] + flat[1]


def _doubled_arrays(x):
    rows = [x, x * 2.0]
    total = rows[0]
    total = total + rows[1]
    return jnp.sum(_join(x) ** 2) + jnp.sum(total * x)


def test_plus_joining_lists_refuses_where_each_list_got_the_whole_adjoint():
    """`a + a` of a list (in a helper, a reduce, an accumulate) gave each operand the joined list's adjoint:
    [2, 0] for _joined_by_helper (truth [3, 0]); the reverse sweep now keeps the `unbroadcast` of a `+`
    whose operands may be lists, and a list adjoint of another length than its operand refuses."""
    for fn in (_joined_by_helper, _joined_by_reduce):
        with pytest.raises(AstjaxError, match="joins, repeats or compares"):
            astjax.grad(fn)(X)
    _, t = astjax.jvp(_joined_by_helper, (X,), (np.array([1.0, 0.0, 0.0]),))
    np.testing.assert_allclose(t, 3.0)       # forward mode joins the tangent lists as the primal does


def test_plus_of_arrays_of_one_shape_class_still_differentiates():
    np.testing.assert_allclose(astjax.grad(_doubled_arrays)(X), 8.0 * X + 6.0 * X)


def _array_rows_with_list_start(x):
    flat = sum([x[:2], x[2:]], [])
    return flat[0] * flat[1]


def test_sum_of_arrays_with_a_list_start_is_refused_as_python_refuses_it():
    """Python's `[] + array` raises; the flattening comprehension must not quietly iterate the arrays."""
    with pytest.raises(AstjaxError, match="adds a value of type"):
        astjax.grad(_array_rows_with_list_start)(np.arange(4.0))


# ------------------------------------------------------------ (d) standard-library Python functions
def _median_of_values(x):
    return statistics.median([x[0], x[1], x[2]]) * 2


def test_a_standard_library_function_is_refused_at_the_users_line():
    """statistics.median was transformed as the user's code: its refusal named a line of statistics.py."""
    with pytest.raises(AstjaxError) as info:
        astjax.grad(_median_of_values)(X)
    assert "test_attacks7.py" in str(info.value) and "statistics.py" not in str(info.value)
    assert "median" in str(info.value)
