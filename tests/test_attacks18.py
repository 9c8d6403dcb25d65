"""Regressions for what the eighteenth red team fixed (tests/adversarial/attacks18.py has its corpus).

`np.asarray(x) is x` is True for the program's ndarray and was False for astjax's Array, so grad and jvp took the
other branch (a silently wrong value and derivative); `y = x * 1.0; y is x` took the first branch under grad (the
derivative's code held x itself); a helper testing identity, `id`, `.base`, `.__class__` or `hasattr` on a value no
tangent goes into was called as written by forward mode (silently wrong under jvp); grad of a chain of 24 helpers
ending in an item write crashed ("astjax arrays are immutable", naming no line of the user's); such a helper
called through a local name (`f = helper; f(v)`) or a list ran as written; `repr(v)` read "Array(" where the
program's array reads "array("."""
import numpy as np
import pytest

import astjax
from astjax.errors import AstjaxError

from adversarial.attacks18 import helpers_24_deep

X = np.array([0.3, -0.7, 1.1, 0.5])


def asarray_is_the_argument(x):
    if np.asarray(x) is x:
        return np.sum(x ** 2)
    return np.sum(3 * x ** 2)


def product_by_one_is_new(x):
    y = x * 1.0
    if y is x:
        return np.sum(x ** 2)
    return np.sum(3 * x ** 2)


def _two_or_three(y):
    return 2.0 if np.asarray(y) is y else 3.0


def helper_is_on_a_constant_of_x(x):
    return np.sum(x ** 2) * _two_or_three(np.floor(x))


def _same_object(y):
    return 2.0 if id(y) == id(np.asarray(y)) else 3.0


def helper_compares_ids(x):
    return np.sum(x ** 2) * _same_object(np.floor(x))


def _by_class(y):
    return 2.0 if y.__class__ is np.ndarray else 3.0


def helper_reads_class_of_a_constant(x):
    return np.sum(x ** 2) * _by_class(np.floor(x))


def helper_through_a_local_name(x):
    f = _by_class
    return np.sum(x ** 2) * f(np.floor(x))


def repr_of_an_array(x):
    return np.sum(x ** 2) * (2.0 if repr(np.floor(x)).startswith("array") else 3.0)


_IDENTITY_PROGRAMS = [asarray_is_the_argument, product_by_one_is_new, helper_is_on_a_constant_of_x,
                      helper_compares_ids, helper_reads_class_of_a_constant, helper_through_a_local_name,
                      repr_of_an_array]


@pytest.mark.parametrize("fn", _IDENTITY_PROGRAMS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_identity_tests_on_arrays_are_refused_at_the_users_line(fn, mode):
    """Each gave a silently wrong value and derivative (under grad, jvp or both): now a refusal naming this file."""
    with pytest.raises(AstjaxError) as info:
        if mode == "grad":
            astjax.value_and_grad(fn)(X.copy())
        else:
            astjax.jvp(fn, (X.copy(),), (np.ones(4),))
    assert "test_attacks18.py" in str(info.value)


def none_default_and_a_list(x, scale=None, names=("a", "b")):
    if scale is None:
        scale = 2.0
    order = list(names)
    return np.sum(x ** 2) * scale * (1.0 if order is not names else 5.0)


def _square(v):
    return v * v


def plain_helper_through_a_local_name(x):
    f = _square
    return np.sum(x * f(np.floor(x)))


def test_is_none_and_is_between_non_arrays_stay_as_written():
    """`v is None` and `a is b` where one side is no array answer as Python does (not refused); a helper without
    item writes or type tests called through a local name runs as before."""
    np.testing.assert_allclose(astjax.grad(plain_helper_through_a_local_name)(X.copy()), np.floor(X) ** 2)
    value, g = astjax.value_and_grad(none_default_and_a_list)(X.copy())
    np.testing.assert_allclose(value, none_default_and_a_list(X.copy()))
    np.testing.assert_allclose(g, 4.0 * X)
    _, tangent = astjax.jvp(none_default_and_a_list, (X.copy(),), (np.ones(4),))
    np.testing.assert_allclose(tangent, 4.0 * X.sum())


def test_a_chain_of_24_helpers_ending_in_an_item_write():
    """grad crashed ("astjax arrays are immutable"): primal_calls.py looked 20 functions deep and called the
    rest as written on astjax Arrays (the corpus's program, tests/adversarial/attacks18.py)."""
    value, g = astjax.value_and_grad(helpers_24_deep)(X.copy())
    np.testing.assert_allclose(value, helpers_24_deep(X.copy()))
    np.testing.assert_allclose(g, np.array([0.0, *(2 * X[1:])]))
    _, tangent = astjax.jvp(helpers_24_deep, (X.copy(),), (np.ones(4),))
    np.testing.assert_allclose(tangent, 2 * X[1:].sum())
