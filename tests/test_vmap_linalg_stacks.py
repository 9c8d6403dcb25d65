"""vmap of the linalg functions that read stacks of matrices (astjax/rules/batching.py STACKED_MATRICES):
the batch axis is one more stack axis and the same call batches it. Each is checked against a Python loop
over the batch, value and gradient (vmap(grad)), with the batched matrix and with an unbatched one beside a
batched scale."""
import numpy as np
import pytest
import scipy.linalg

import astjax
import astjax.numpy as jnp
import astjax.scipy.linalg as jsl
from astjax.rules.batching import STACKED_MATRICES, generic_rule, _stacked_matrices_rule
from astjax.rules.registry import PRIMITIVES

RNG = np.random.default_rng(11)


def _spd(batch, n=3):
    a = RNG.normal(size=(batch, n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


FUNCTIONS = {
    "inv": lambda a: jnp.linalg.inv(a),
    "det": lambda a: jnp.linalg.det(a),
    "pinv": lambda a: jnp.linalg.pinv(a),
    "matrix_power": lambda a: jnp.linalg.matrix_power(a, 3),
    "expm": lambda a: jsl.expm(a / 8.0),
    "cholesky": lambda a: jnp.linalg.cholesky(a),
    "eigvalsh": lambda a: jnp.linalg.eigvalsh(a),
    "numpy_cholesky": lambda a: np.linalg.cholesky(a),
    "numpy_eigvalsh": lambda a: np.linalg.eigvalsh(a),
}


def _loop(f, xs):
    return np.stack([np.asarray(f(x)) for x in xs])


def test_every_listed_primitive_has_the_rule_and_a_check_here():
    assert set(FUNCTIONS) == set(STACKED_MATRICES)
    for name in STACKED_MATRICES:
        assert generic_rule(PRIMITIVES[name]) is _stacked_matrices_rule, name


def _loss(f):
    def loss(a):
        y = f(a)
        return jnp.sum(y * y)
    return loss


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_vmap_matches_a_loop_value_and_gradient(name):
    f = FUNCTIONS[name]
    stack = _spd(4)
    np.testing.assert_allclose(astjax.vmap(f)(stack), _loop(f, stack), rtol=1e-10, atol=1e-12)
    g = astjax.grad(_loss(f))
    np.testing.assert_allclose(astjax.vmap(g)(stack), _loop(g, stack), rtol=1e-9, atol=1e-12)


def test_an_unbatched_matrix_beside_a_batched_scale_loops_or_batches_correctly():
    a = _spd(1)[0]
    scales = np.array([0.5, 1.0, 2.0])

    def f(s, a):
        return jnp.linalg.inv(a * s)
    np.testing.assert_allclose(astjax.vmap(f, in_axes=(0, None))(scales, a),
                               np.stack([np.linalg.inv(a * s) for s in scales]), rtol=1e-12)
