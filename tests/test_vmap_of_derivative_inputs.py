"""vmap of a derivative checks the arguments it differentiates as the derivative itself does.

vmap(grad(f)) runs grad's generated source, not grad's wrapper, so grad's check of its inputs was
skipped: an integer batch gave derivatives of integers (vmap(value_and_grad) even returned float32
gradients of an int64 input) where grad, and JAX, raise a TypeError.
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


def square_sum(x):
    return jnp.sum(x * x)


def scaled(x, n):
    return jnp.sum(x * n)


INTS = np.arange(6).reshape(2, 3)

TRANSFORMS = {
    "grad": lambda f: astjax.vmap(astjax.grad(f)),
    "value_and_grad": lambda f: astjax.vmap(astjax.value_and_grad(f)),
    "jacrev": lambda f: astjax.vmap(astjax.jacrev(f)),
    "jacfwd": lambda f: astjax.vmap(astjax.jacfwd(f)),
    "hessian": lambda f: astjax.vmap(astjax.hessian(f)),
    "jit_grad": lambda f: astjax.vmap(astjax.jit(astjax.grad(f))),
    "vmap_vmap_grad": lambda f: astjax.vmap(astjax.vmap(astjax.grad(f))),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_an_integer_batch_is_refused_as_the_derivative_refuses_it(name):
    args = (INTS[None],) if name == "vmap_vmap_grad" else (INTS,)
    with pytest.raises(TypeError, match="requires real-valued inputs"):
        TRANSFORMS[name](square_sum)(*args)


def test_a_complex_batch_is_refused():
    with pytest.raises(TypeError, match="complex"):
        astjax.vmap(astjax.grad(square_sum))(INTS.astype(np.complex128))


def test_integers_the_derivative_does_not_differentiate_are_accepted():
    x = np.ones((2, 3))
    np.testing.assert_array_equal(astjax.vmap(astjax.grad(scaled), in_axes=(0, None))(x, 3), np.full((2, 3), 3.0))
    np.testing.assert_array_equal(astjax.vmap(astjax.grad(scaled), in_axes=(0, 0))(x, np.arange(2)),
                                  [[0.0] * 3, [1.0] * 3])


def test_float_batches_still_batch():
    x = np.arange(6.0).reshape(2, 3).astype(np.float32)
    got = astjax.vmap(astjax.grad(square_sum))(x)
    assert np.asarray(got).dtype == np.float32
    np.testing.assert_allclose(got, 2 * x)


def sorted_weighted(xs):
    return jnp.sum(jnp.sort(xs) * jnp.arange(3.0))


@pytest.mark.parametrize("kind", [list, tuple])
def test_per_example_gradients_of_a_list_read_as_one_array(kind):
    """The adjoint of a list read as an array (`jnp.sort(xs)`) comes out as one array, the batch first: it is
    split into the items (it was refused: the split took the batch axis for the items)."""
    items = kind(np.array(v) for v in ([3.0, 1.0], [1.0, 2.0], [2.0, 0.0]))
    got = astjax.vmap(astjax.grad(sorted_weighted))(items)
    examples = [astjax.grad(sorted_weighted)(kind(np.float64(item[b]) for item in items)) for b in range(2)]
    assert type(got) is kind and len(got) == 3
    for k in range(3):
        np.testing.assert_allclose(got[k], [examples[0][k], examples[1][k]])
