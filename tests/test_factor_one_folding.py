"""Cleanup drops a factor 1.0 from grad's differentiated parameters and their items (constant_folding.py).

grad refuses an integer differentiated argument before its code runs, so there `1.0 * x[1]` is `x[1]`:

    bx = index_adjoint(x, 1, unbroadcast(1.0 * x_0, x_1))   ->   bx = index_adjoint(x, 1, unbroadcast(x_0, x_1))

Where a parameter may hold an integer (allow_int=True, a parameter reassigned, pullbacks of every
argument), the factor stays: `1.0 * n` is a float where `n` is an int.
"""
import numpy as np

import astjax
import astjax.numpy as jnp
from finite_differences import central_difference


def first_two(x):
    return x[0] * x[1]


def scaled(x, n):
    return x[0] * n * n


def reassigned(x):
    x = x.astype(jnp.int32)
    return jnp.sum(x * x) * 1.0


def copied_then_updated(x):
    y = x * 1.0
    y = y.at[0].set(3.0)
    return jnp.sum(y * x)


def test_the_items_of_a_differentiated_parameter_lose_their_factor_one():
    source = astjax.source(astjax.grad(first_two))
    assert "1.0 *" not in source and "* 1.0" not in source, source
    assert "unbroadcast(x_0, x_1)" in source, source
    x = np.array([0.7, -1.3])
    np.testing.assert_allclose(astjax.grad(first_two)(x), [-1.3, 0.7])


def test_allow_int_keeps_the_factor_and_its_own_derivation():
    assert "1.0 * n" not in astjax.source(astjax.grad(scaled, argnums=(0, 1)))
    source = astjax.source(astjax.grad(scaled, argnums=(0, 1), allow_int=True))
    assert "1.0 * n" in source, source                 # n may be an int there: 1.0 * n is its float
    bx, bn = astjax.grad(scaled, argnums=(0, 1), allow_int=True)(np.array([2.0]), 3)
    np.testing.assert_allclose(bx, [9.0])
    assert bn.dtype == astjax.dtypes.float0


def test_a_parameter_reassigned_to_an_integer_is_not_taken_for_a_float():
    x = np.array([1.4, -2.6])
    np.testing.assert_array_equal(astjax.grad(reassigned)(x), [0.0, 0.0])


def test_a_copy_made_by_a_factor_one_stays_a_copy():
    """`y = x * 1.0` becomes `y = x`: the update of y must not reach x (nor the caller's array)."""
    x = np.array([0.5, 2.0, -1.0])
    keep = x.copy()
    got = astjax.grad(copied_then_updated)(x)
    expected = central_difference(lambda v: copied_then_updated(jnp.asarray(v)), (x,), 0)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got, [3.0, 4.0, -2.0])
    np.testing.assert_array_equal(x, keep)
    np.testing.assert_allclose(astjax.vmap(astjax.grad(copied_then_updated))(np.stack([x, 2 * x])),
                               [[3.0, 4.0, -2.0], [3.0, 8.0, -4.0]])
