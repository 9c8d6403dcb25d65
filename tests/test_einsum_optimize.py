"""einsum's `optimize=` argument (a contraction order, not a change of the result) under the derivatives.

vmap writes a batched einsum of three or more operands with the contraction path one example takes
(`optimize=_path1`, rules/batching_seventh.py); grad of that batched function refused it ("no derivative
rule for `einsum`") because einsum's signature had no `optimize`. A user's own `optimize=True` was refused
the same way. The derivative rules contract in NumPy's default order; the primal keeps the given one.
"""
import numpy as np

import astjax
import astjax.numpy as jnp

from finite_differences import central_difference


def chain_of_three(x):
    A = x.reshape(2, 2)
    return jnp.einsum("ij,jk,ki->", A, A, A) + jnp.einsum("ij,ij->", A, jnp.sin(A))


def batch_total(xs):
    return jnp.sum(astjax.vmap(chain_of_three)(xs))


def optimized_by_the_user(x, w):
    A = x.reshape(2, 2)
    return jnp.einsum("ij,jk,k->", A, A, w, optimize=True)


def test_grad_of_a_batched_einsum_of_three_operands_is_a_loop_of_grads():
    xs = np.random.default_rng(0).normal(size=(3, 4))
    got = np.asarray(astjax.grad(batch_total)(xs))
    np.testing.assert_allclose(got, np.stack([np.asarray(astjax.grad(chain_of_three)(x)) for x in xs]), rtol=1e-12)
    np.testing.assert_allclose(got, central_difference(batch_total, (xs,), 0), rtol=1e-6, atol=1e-8)


def test_a_users_optimize_argument_is_differentiated_in_both_modes():
    x, w = np.random.default_rng(1).normal(size=4), np.array([0.3, -1.2])
    gx, gw = astjax.grad(optimized_by_the_user, argnums=(0, 1))(x, w)
    np.testing.assert_allclose(gx, central_difference(optimized_by_the_user, (x, w), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gw, central_difference(optimized_by_the_user, (x, w), 1), rtol=1e-6, atol=1e-8)
    tx, tw = np.ones(4), np.array([0.5, -2.0])
    _, tangent = astjax.jvp(optimized_by_the_user, (x, w), (tx, tw))
    np.testing.assert_allclose(tangent, np.vdot(gx, tx) + np.vdot(gw, tw), rtol=1e-10)
