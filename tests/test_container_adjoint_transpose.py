"""The transpose of `unbroadcast` / `unbroadcast_to` on the adjoint of a container (rules/structural.py).

Both pass a container's adjoint (a TreeAdjoint) through as it is; their transpose was
`jnp.broadcast_to(by, jnp.shape(g))`, which made a 0-d object array of such an adjoint, so
`jacrev(grad(f))` of a function iterating over `zip(*M)` (tuples) crashed inside its generated code.
It is `broadcast_like(by, g)`, which passes containers through too.
"""
import numpy as np

import astjax


def pairs_from_columns(x):
    M = x.reshape(2, 3)
    cols = list(zip(*M))
    return sum(a * b for a, b in cols)


def test_reverse_over_reverse_through_tuples_of_a_zip():
    x = np.linspace(-1.0, 1.0, 6) + 0.1
    reverse = np.asarray(astjax.jacrev(astjax.grad(pairs_from_columns))(x))
    forward = np.asarray(astjax.jacfwd(astjax.grad(pairs_from_columns))(x))
    grad = astjax.grad(pairs_from_columns)
    eps = 1e-6
    differences = np.stack([(np.asarray(grad(x + eps * e)) - np.asarray(grad(x - eps * e))) / (2 * eps)
                            for e in np.eye(6)])
    np.testing.assert_allclose(reverse, forward, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(reverse, differences, rtol=1e-6, atol=1e-6)
    expected = np.zeros((6, 6))               # sum over columns j of M[0, j] * M[1, j] = x[j] * x[j + 3]
    for j in range(3):
        expected[j, j + 3] = expected[j + 3, j] = 1.0
    np.testing.assert_allclose(reverse, expected, atol=1e-12)
