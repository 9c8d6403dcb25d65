"""jit of array literals built from scalars and rows, and of their derivatives.

- `jnp.array([[c, -s], [s, c]])`: normalization names the rows (`_l1 = [c, -s]`), which Numba types as
  lists no array-building call takes; read only as rows, they are lowered as tuples (jit/lower/literal_rows.py).
- `R @ v` of a float32 R (grad makes a Python float argument float32, as JAX does) and a float64 v:
  Numba's `@` takes one dtype; matmul's lowering computes in their result type (jit/lower/numba_calls.py).
- `unreduce(bout, rows @ rows.T)`: the seed 1.0 takes the dtype of the array it is spread over, as the
  reference does; it was cast to float32 there, a float64 gradient then met a float32 adjoint
  (jit/lower/weak_scalars.py).
Each compiled result is checked against the same transformation without jit and central differences.
"""
import os

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from finite_differences import central_difference

LONG = bool(os.environ.get("ASTJAX_LONG_PROPERTIES"))


def rotated_energy(theta, v):
    c, s = jnp.cos(theta), jnp.sin(theta)
    R = jnp.array([[c, -s], [s, c]])
    return jnp.sum((R @ v) ** 2 * jnp.array([1.0, 2.0]))


def stacked_rows(x):
    rows = jnp.array([x * 2.0, x ** 2, jnp.sin(x)])
    return jnp.sum(rows @ rows.T)


def rotation(c, s):
    return jnp.array([[c, -s], [s, c]])


def test_jit_of_grad_of_a_rotation_built_from_scalars():
    v = np.array([1.0, 2.0])
    expected = astjax.grad(rotated_energy)(0.3, v)
    got = astjax.jit(astjax.grad(rotated_energy))(0.3, v)
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    fd = central_difference(lambda t: rotated_energy(jnp.asarray(t), jnp.asarray(v)), (np.float64(0.3),), 0)
    np.testing.assert_allclose(float(got), float(fd), rtol=1e-5)       # got is float32, as in JAX


def test_jit_of_grad_of_stacked_rows_keeps_float64():
    x = np.array([0.5, -1.0, 2.0])
    expected = np.asarray(astjax.grad(stacked_rows)(x))
    got = np.asarray(astjax.jit(astjax.grad(stacked_rows))(x))
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    np.testing.assert_allclose(got, central_difference(lambda v: stacked_rows(jnp.asarray(v)), (x,), 0), rtol=1e-6)


@pytest.mark.skipif(not LONG, reason="a Numba compile: ASTJAX_LONG_PROPERTIES=1")
def test_jit_of_a_matrix_literal_of_scalars():
    np.testing.assert_array_equal(astjax.jit(rotation)(0.6, 0.8), rotation(0.6, 0.8))
