"""Hessians of losses reading several items of eigh's and svd's results, against central differences of the
gradient.

The tangent of an item of an adjoint tree could be a bare 0.0 (no varying value reached that item's
adjoint: `jnp.sum(w * jnp.arange(3.0))` gives w an adjoint constant in `a`) while the rules reading it
reshape it: hessian crashed with a ValueError. The tangent is now shaped like the item.
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


def weighted_singular_values(a):
    u, s, vt = jnp.linalg.svd(a)
    return 2.0 * jnp.sum(s) + 3.0 * jnp.sum(u[:, 0] ** 2 * a[0])


def weighted_eigenvalues(a):
    w, v = jnp.linalg.eigh(a + a.T)
    return jnp.sum(w * jnp.arange(3.0)) + jnp.sum(v[0] ** 2)


A = np.array([[2.0, 0.3, 0.1], [0.2, 1.5, 0.4], [0.1, 0.2, 1.0]])


@pytest.mark.parametrize("fn", [weighted_singular_values, weighted_eigenvalues])
def test_hessian_matches_central_differences_of_the_gradient(fn):
    h = 1e-5
    gradient = astjax.grad(fn)
    expected = np.zeros(A.shape + A.shape)
    for index in np.ndindex(A.shape):
        step = np.zeros_like(A)
        step[index] = h
        expected[(Ellipsis,) + index] = (np.asarray(gradient(A + step)) - np.asarray(gradient(A - step))) / (2 * h)
    np.testing.assert_allclose(astjax.hessian(fn)(A), expected, atol=1e-7)
