"""jit of the derivative of `.at[i]` updates at integer positions (runtime/numba_adjoints.py).

The reverse sweep of `y = y.at[i].add(v)` reads the adjoint of v with `part_at(by, y, i)`, and of
`.at[i].set(v)` clears y's with `cleared_at(by, y, i)`. Their Numba lowerings took slices only, so
`jit(grad(f))` of an update in a loop was refused; integer positions (an element, or a row of a matrix)
now compile, with JAX's drop for a position out of range (its value gets no adjoint).
Each is checked against grad without jit and against central differences.
"""
import os

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from finite_differences import central_difference

LONG = bool(os.environ.get("ASTJAX_LONG_PROPERTIES"))


def add_in_a_loop(x):
    y = x * 2.0
    for i in range(3):
        y = y.at[i].add(x[i] * y[i + 1])
    return jnp.sum(y ** 2)


def set_and_multiply_from_the_end(x):
    y = x * 1.5
    for i in range(1, 4):
        y = y.at[i].set(jnp.sin(y[i - 1]) * x[i])
    for i in range(4):
        y = y.at[-i].multiply(x[i])
    return jnp.sum(y * y)


def out_of_range_positions(x):
    y = x * 2.0
    y = y.at[7].set(x[0] * 3.0)         # dropped, as JAX drops it
    y = y.at[-9].add(x[1])              # dropped
    y = y.at[-1].add(x[2] * x[0])
    return jnp.sum(y * x)


def rows_of_a_matrix(A):
    B = A * 1.0
    for i in range(2):
        B = B.at[i].set(B[i + 1] * A[i, 0])
    B = B.at[5].set(A[0] * 2.0)         # dropped
    return jnp.sum(B ** 2)


VECTOR = np.array([0.3, -0.5, 0.8, 1.1])
MATRIX = np.arange(9.0).reshape(3, 3) / 10 + 0.2
CASES = [(add_in_a_loop, VECTOR), (rows_of_a_matrix, MATRIX)]      # one Numba compile each
if LONG:
    CASES += [(out_of_range_positions, VECTOR), (set_and_multiply_from_the_end, VECTOR)]


@pytest.mark.parametrize("f, x", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_jit_of_grad_agrees_with_grad_and_finite_differences(f, x):
    plain = np.asarray(astjax.grad(f)(x))
    np.testing.assert_allclose(plain, central_difference(lambda v: f(jnp.asarray(v)), (x,), 0), rtol=1e-6, atol=1e-7)
    keep = x.copy()
    np.testing.assert_allclose(np.asarray(astjax.jit(astjax.grad(f))(x)), plain, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(x, keep)


@pytest.mark.skipif(not LONG, reason="Numba compiles: ASTJAX_LONG_PROPERTIES=1")
@pytest.mark.parametrize("f, x", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_jit_of_the_other_derivatives_agrees(f, x):
    np.testing.assert_allclose(np.asarray(astjax.jit(astjax.jacrev(f))(x)), np.asarray(astjax.grad(f)(x)), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(astjax.jit(astjax.jacfwd(f))(x)), np.asarray(astjax.grad(f)(x)), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(astjax.jit(astjax.hessian(f))(x)), np.asarray(astjax.hessian(f)(x)),
                               rtol=1e-10, atol=1e-12)
