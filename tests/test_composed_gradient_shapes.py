"""A gradient computed inside a transformed function has its parameter's shape, also where it is zero.

grad's wrapper turns the bare 0.0 adjoint of a parameter nothing reached into zeros shaped like it,
but jit or vmap of a function that calls grad, and code that uses such a gradient inside a transformed
function, run the generated (composed) source without the wrapper: jit gave a scalar and vmap a vector
of the batch where JAX gives zeros of the parameter's shape (per example).
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


def loss(w, u, x):
    return jnp.sum(jnp.tanh(x @ w) ** 2)      # u is not used


def loss_with_aux(w, u, x):
    return jnp.sum(jnp.tanh(x @ w) ** 2), jnp.sum(x)


def gradient_of_unused(w, u, x):
    return astjax.grad(loss, argnums=1)(w, u, x)


def value_and_gradients(w, u, x):
    return astjax.value_and_grad(loss, argnums=(0, 1))(w, u, x)


def gradient_with_aux(w, u, x):
    return astjax.grad(loss_with_aux, argnums=1, has_aux=True)(w, u, x)[0]


def size_of_the_gradient(w, u, x):
    g = astjax.grad(loss, argnums=1)(w, u, x)
    return jnp.sum(w) * g.size                # a value that reads the shape


W, U, X = np.full((3, 2), 0.2), np.ones((4, 5)), np.arange(6.0).reshape(2, 3) / 6


def _shapes(tree):
    return [np.shape(leaf) for leaf in astjax.tree_util.tree_leaves(tree)]


@pytest.mark.parametrize("fn", [gradient_of_unused, value_and_gradients, gradient_with_aux])
def test_vmap_gives_each_example_the_parameters_shape(fn):
    batched = astjax.vmap(fn, in_axes=(None, None, 0))(W, U, np.stack([X, 2 * X]))
    per_example = [fn(W, U, X), fn(W, U, 2 * X)]
    assert _shapes(batched) == [(2,) + s for s in _shapes(per_example[0])]
    for b, leaves in zip(astjax.tree_util.tree_leaves(batched),
                         zip(*[astjax.tree_util.tree_leaves(p) for p in per_example])):
        np.testing.assert_allclose(b, np.stack(leaves), rtol=1e-12)


def test_jit_gives_the_parameters_shape():
    got = astjax.jit(gradient_of_unused)(W, U, X)
    assert np.shape(got) == (4, 5) and not np.any(np.asarray(got))


def test_the_shape_read_inside_a_derivative_is_the_parameters():
    np.testing.assert_allclose(astjax.grad(size_of_the_gradient)(W, U, X), np.full((3, 2), 20.0))


def constant_in_x(x, y):
    return jnp.sum(y ** 2)


def test_a_jacobian_of_a_jacobian_where_nothing_reaches_a_row():
    """The pullback of a row nothing reaches is a bare 0.0: the Jacobian's rows (and columns) are shaped like
    the argument (the output), so jacrev(jacrev(f)) of a function constant in x is zeros, not a crash."""
    x, y = np.arange(3.0), np.ones(2)
    for outer in (astjax.jacrev, astjax.jacfwd):
        got = outer(astjax.jacrev(constant_in_x))(x, y)
        assert np.shape(got) == (3, 3) and not np.any(np.asarray(got))
    np.testing.assert_array_equal(astjax.jacrev(lambda a, b: b * 2.0)(x, y), np.zeros((2, 3)))
