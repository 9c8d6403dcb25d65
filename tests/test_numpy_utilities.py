"""Windows, index arithmetic and shape queries: NumPy's values, JAX's dtypes, no derivative."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


@pytest.mark.parametrize("name", ["bartlett", "blackman", "hamming", "hanning"])
def test_windows_are_numpys_in_float32(name):
    out = getattr(jnp, name)(7)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, getattr(np, name)(7), rtol=1e-6, atol=1e-7)


def test_index_functions_give_numpys_indices_as_int32():
    a = np.array([3.0, 1.0, 2.0, 0.5])
    keys = [np.array([1, 0, 1, 0]), np.array([3, 2, 1, 2])]
    flat = np.array([5, 7, 11])
    cases = [(jnp.lexsort(keys), np.lexsort(keys)),
             (jnp.ravel_multi_index((np.array([1, 2]), np.array([0, 3])), (3, 4)),
              np.ravel_multi_index((np.array([1, 2]), np.array([0, 3])), (3, 4)))]
    cases += list(zip(jnp.unravel_index(flat, (3, 4)), np.unravel_index(flat, (3, 4))))
    for got, expected in cases:
        assert got.dtype == np.int32
        np.testing.assert_array_equal(got, expected)
    part = np.asarray(jnp.argpartition(a, 1))
    assert part.dtype == np.int32 and a[part[1]] == np.sort(a)[1]


def test_shape_queries():
    assert jnp.broadcast_shapes((3, 1), (1, 4)) == (3, 4)
    assert jnp.isscalar(1.0) and jnp.isscalar(np.float32(2)) and jnp.isscalar(np.array(3.0))
    assert not jnp.isscalar(np.ones(2)) and jnp.iterable([1]) and not jnp.iterable(3)


def windowed_sum(x):
    order = jnp.argpartition(x, 1)
    return jnp.sum(x * jnp.hanning(5)) + x[order[0]] ** 2


def test_they_carry_no_derivative_and_the_rest_of_the_function_does():
    x = np.array([0.3, -1.2, 2.0, 0.7, 1.1])
    expected = np.hanning(5)
    expected[1] += 2 * x[1]                     # x[order[0]] is the smallest element
    np.testing.assert_allclose(astjax.grad(windowed_sum)(x), expected, rtol=1e-6)
