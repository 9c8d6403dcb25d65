"""Defects found by running the same programs through astjax and JAX (JAX 0.10, x64) side by side.

- `jnp.meshgrid(a, b)[1]` under grad crashed in generated code (the adjoint of the grid never read
  was a bare zero, and the rule summed it over axes it does not have);
- `jnp.unique(x, size=...)` raised TypeError (JAX's `size`/`fill_value` keywords).
The expected values below are JAX's.
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


@pytest.mark.parametrize("indexing", ["ij", "xy"])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("k", [0, 1])
def test_grad_of_one_meshgrid_grid(indexing, sparse, k):
    weights = jnp.arange(1.0, 7.0).reshape((2, 3) if indexing == "ij" else (3, 2))

    def f(x):
        return jnp.sum(jnp.sin(jnp.meshgrid(x[:2], x[2:5] ** 2, indexing=indexing, sparse=sparse)[k]) * weights)

    x = jnp.asarray(np.arange(5.0) * 0.3 + 0.1)
    h = 1e-6
    fd = np.array([(float(f(x + h * e)) - float(f(x - h * e))) / (2 * h) for e in np.eye(5)])
    np.testing.assert_allclose(astjax.grad(f)(x), fd, atol=1e-5)


def test_hessian_of_a_meshgrid_grid_forward_equals_reverse():
    def f(x):
        return jnp.sum(jnp.sin(jnp.meshgrid(x[:2], x[2:5] ** 2, indexing="ij")[1]))

    x = jnp.asarray(np.arange(5.0) * 0.3 + 0.1)
    np.testing.assert_allclose(astjax.jacfwd(astjax.grad(f))(x), astjax.hessian(f)(x), atol=1e-6)


def test_unique_with_size_matches_jax():
    x = jnp.array([3.0, 1.0, 3.0, 2.0, 1.0, 7.0])
    np.testing.assert_array_equal(jnp.unique(x, size=3), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(jnp.unique(x, size=6), [1.0, 2.0, 3.0, 7.0, 1.0, 1.0])
    np.testing.assert_array_equal(jnp.unique(x, size=6, fill_value=-1.0), [1.0, 2.0, 3.0, 7.0, -1.0, -1.0])
    values, index, inverse, counts = jnp.unique(x, size=6, return_index=True, return_inverse=True,
                                                return_counts=True)
    np.testing.assert_array_equal(index, [1, 3, 0, 5, 1, 1])
    np.testing.assert_array_equal(inverse, [2, 0, 2, 1, 0, 3])
    np.testing.assert_array_equal(counts, [2, 1, 2, 1, 0, 0])
    m = jnp.array([[1.0, 2.0], [1.0, 2.0], [0.0, 5.0]])
    np.testing.assert_array_equal(jnp.unique(m, axis=0, size=3), [[0.0, 5.0], [1.0, 2.0], [0.0, 5.0]])
    with pytest.raises(ValueError, match="fill_value"):
        jnp.unique(jnp.zeros(0), size=2)


def test_nonzero_family_with_static_size_matches_jax():
    a = jnp.array([0, 3, 0, 5])
    np.testing.assert_array_equal(jnp.nonzero(a, size=3)[0], [1, 3, 0])
    np.testing.assert_array_equal(jnp.nonzero(a, size=1)[0], [1])
    np.testing.assert_array_equal(jnp.where(a, size=3, fill_value=-1)[0], [1, 3, -1])
    np.testing.assert_array_equal(jnp.flatnonzero(a, size=4, fill_value=9), [1, 3, 9, 9])
    m = jnp.array([[0, 1], [2, 0]])
    rows, cols = jnp.nonzero(m, size=3, fill_value=(7, 8))
    np.testing.assert_array_equal(rows, [0, 1, 7])
    np.testing.assert_array_equal(cols, [1, 0, 8])
    np.testing.assert_array_equal(jnp.argwhere(m, size=3), [[0, 1], [1, 0], [0, 0]])
    assert jnp.nonzero(a, size=3)[0].dtype == np.int32
    with pytest.raises(TypeError, match="one-argument"):
        jnp.where(a > 0, 1.0, 0.0, size=2)
