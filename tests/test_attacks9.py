"""Regressions for the silent wrong results attacks9 found (tests/adversarial/attacks9.py has the corpus):
piecewise of an integer or boolean x under a derivative, eval_shape of shapes that depend on values, and
vmap of jnp.gradient's list of gradients."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import ShapeDtypeStruct


def _half(t):
    return t * 0.5


def _square(t):
    return t ** 2


def int_pieces(x, n):
    return jnp.sum(np.piecewise(n, [n < 2, n >= 2], [_half, _square]) * x)


def int_constant_pieces(x, n):
    return jnp.sum(jnp.piecewise(n, [n < 2], [_half, 2.7]) * x)


def bool_pieces(x, n):
    b = n > 2
    return jnp.sum(np.piecewise(b, [b], [1.5]) * x)


@pytest.mark.parametrize("fn", [int_pieces, int_constant_pieces, bool_pieces])
def test_piecewise_writes_each_piece_in_x_dtype_under_grad(fn):
    # NumPy and JAX write each piece into an array of x's dtype: 0.5 becomes 0 for an integer x, 1.5 True
    x, n = np.linspace(-1.0, 1.0, 6), np.arange(6)
    value, grad = astjax.value_and_grad(fn)(x, n)
    per_entry = np.asarray([fn(e, n) for e in np.eye(6)])
    np.testing.assert_allclose(value, fn(x, n))
    np.testing.assert_allclose(grad, per_entry)     # the function is linear in x: its gradient is fn(e_i, n)


def positive_part(x):
    return x[x > 0]


def nonzero_entries(x):
    return jnp.nonzero(x)[0]


def range_from_first_value(x):
    return jnp.arange(int(x[0]) + 3)


def branch_on_the_sum(x):
    return x if jnp.sum(x) > 0 else x[:1]


def distinct_values(i):
    return jnp.unique(i)


def masked(x, m):
    return x[m]


@pytest.mark.parametrize("fn, structs", [
    (positive_part, [ShapeDtypeStruct((5,), jnp.float32)]),
    (nonzero_entries, [ShapeDtypeStruct((3,), jnp.float32)]),
    (range_from_first_value, [ShapeDtypeStruct((2,), jnp.float32)]),
    (branch_on_the_sum, [ShapeDtypeStruct((3,), jnp.float32)]),
    (distinct_values, [ShapeDtypeStruct((6,), jnp.int32)]),
    (masked, [ShapeDtypeStruct((2,), jnp.float32), ShapeDtypeStruct((2,), jnp.bool_)]),
])
def test_eval_shape_refuses_shapes_that_depend_on_values(fn, structs):
    # two positive random draws agreed on these, and eval_shape returned the positive case's shape
    with pytest.raises(ValueError, match="depend on the values"):
        astjax.eval_shape(fn, *structs)


def dense(params, x):
    w, b = params
    return jnp.tanh(x @ w + b).sum(axis=0), jnp.linalg.inv(w[:2, :2]), jnp.where(x > 0, jnp.log(x), 0.0)


def test_eval_shape_of_shapes_fixed_by_shapes():
    s = lambda *shape: ShapeDtypeStruct(shape, jnp.float32)  # noqa: E731
    assert astjax.eval_shape(dense, (s(3, 2), s(2)), s(5, 3)) == (s(2), s(2, 2), s(5, 3))


def gradient_item_summed(a):
    g = jnp.gradient(a)
    return jnp.sum(g[1] ** 3)


def gradient_along_an_int_axis(a):
    return jnp.sum(jnp.gradient(a, axis=1) ** 2)


@pytest.mark.parametrize("fn", [gradient_item_summed, gradient_along_an_int_axis])
def test_vmap_of_gradient_items_against_a_loop(fn):
    a = np.random.default_rng(0).normal(size=(2, 3, 4))
    # the list of gradients was taken for an array of a's rank: jnp.sum summed one axis too few, (2, 4)
    np.testing.assert_allclose(astjax.vmap(fn)(a), [fn(v) for v in a])
