"""Higher-order derivatives: grad of grad of ..., and forward mode over generated reverse mode.

Every order is checked against central differences (float64) of the order
below it, and compositions against each other (jacrev(grad), jacfwd(grad),
hessian, jvp(grad)).
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


def central_difference(f, x, h=1e-5):
    """d/dx f at x, in float64, elementwise over a 1-d x (a Jacobian, rows = f's output)."""
    x = np.asarray(x, dtype=np.float64)
    columns = []
    for k in range(x.size):
        e = np.zeros_like(x)
        e.flat[k] = h
        columns.append((np.asarray(f(jnp.array(x + e)), np.float64) - np.asarray(f(jnp.array(x - e)), np.float64))
                       / (2 * h))
    return np.stack(columns, axis=-1).reshape(np.shape(columns[0]) + x.shape)


# ---------------------------------------------------------------- helpers returning tuples
def pair(p):
    return p[0], p[1]


def uses_pair(p):
    a, b = pair(p)
    return a * a * b + jnp.sin(b)


def pair_in_loop(p):
    s = 0.0
    for i in range(2):
        a, b = pair(p)
        s = s + a * b * b + jnp.exp(a * s)
    return s


@pytest.mark.parametrize("fn", [uses_pair, pair_in_loop])
def test_second_derivatives_through_a_helper_returning_a_tuple(fn):
    x = jnp.array(np.array([0.5, 1.3]))
    by_reverse = np.asarray(astjax.jacrev(astjax.grad(fn))(x))
    by_forward = np.asarray(astjax.jacfwd(astjax.grad(fn))(x))
    by_hessian = np.asarray(astjax.hessian(fn)(x))
    numeric = central_difference(astjax.grad(fn), x)
    assert np.any(numeric != 0)
    np.testing.assert_allclose(by_reverse, numeric, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(by_forward, numeric, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(by_hessian, numeric, rtol=1e-5, atol=1e-6)
    for k in range(2):
        direction = np.eye(2)[k]
        _, tangent = astjax.jvp(astjax.grad(fn), (x,), (jnp.array(direction),))
        np.testing.assert_allclose(np.asarray(tangent), numeric[:, k], rtol=1e-5, atol=1e-6)
