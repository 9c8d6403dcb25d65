"""lax.reduce (add, mul, max, min; astjax/lax_reduce_sort.py) and lax.sort of several operands: values against
NumPy, gradients against central differences, and the refusals (an unreadable computation, an add or mul from an
init value that is not its identity, a lambda written inside the transformed function). More programs, a max
above a floor and an add from a non-zero start among them, are in tests/adversarial/scilinalg.py."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.errors import AstjaxError

X = np.array([[1.0, 3.0, 3.0], [2.0, -1.0, 0.5]])
K = np.array([3.0, 1.0, 2.0, 1.0])
V = np.array([10.0, 20.0, 30.0, 40.0])
plus = lambda a, b: a + b       # noqa: E731 (a module-level lambda is a computation astjax reads)


def smaller(a, b):
    return lax.min(b, a)


def numerical_gradient(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        g[i] = (float(f(x + step)) - float(f(x - step))) / (2 * eps)
    return g


def sum_rows_squared(x):
    return jnp.sum(lax.reduce(x, 0.0, lax.add, (1,)) ** 2)


def sum_with_lambda(x):
    return jnp.sum(lax.reduce(x, 0.0, plus, (0, 1)) * x)


def product_of_columns(x):
    return jnp.sum(lax.reduce(x, 1.0, lax.mul, (0,)) * jnp.arange(3.0))


def min_with_def(x):
    return jnp.sum(lax.reduce(x, jnp.inf, smaller, (1,)) * jnp.arange(1.0, 3.0))


@pytest.mark.parametrize("fn,want", [
    (sum_rows_squared, np.sum(X.sum(1) ** 2)),
    (sum_with_lambda, np.sum(X.sum() * X)),
    (product_of_columns, np.sum(X.prod(0) * np.arange(3.0))),
    (min_with_def, np.sum(X.min(1) * np.arange(1.0, 3.0))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_reduce_value_and_gradient(fn, want):
    value, grad = astjax.value_and_grad(fn)(X)
    np.testing.assert_allclose(float(value), want, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(grad), numerical_gradient(fn, X), rtol=1e-6, atol=1e-8)


def init_carrying_a_derivative(y):
    """The init value is zero here but moves with y: it is combined once (its natural meaning), never dropped."""
    return jnp.sum(lax.reduce(X * y, y - 2.0, lax.add, (1,)))


def test_an_array_init_keeps_its_derivative():
    np.testing.assert_allclose(float(astjax.grad(init_carrying_a_derivative)(2.0)), X.sum() + 2.0)


def test_reduce_ties_share_the_derivative_and_dtypes_stay():
    grad = astjax.grad(lambda x: jnp.sum(lax.reduce(x, -jnp.inf, lax.max, (0,))))(np.array([1.0, 3.0, 3.0]))
    np.testing.assert_allclose(np.asarray(grad), [0.0, 0.5, 0.5])       # as JAX's reduce_max
    ints = np.array([1, 2, 3], dtype=np.int32)
    assert lax.reduce(ints, 0, lax.add, (0,)).dtype == np.int32
    assert int(lax.reduce(ints, np.iinfo(np.int32).min, lax.max, (0,))) == 3
    np.testing.assert_allclose(np.asarray(astjax.vmap(lambda r: lax.reduce(r, 0.0, lax.add, (0,)))(X)), X.sum(1))


def subtracting(x):
    return jnp.sum(lax.reduce(x, 0.0, lax.sub, (1,)))


def lambda_inside(x):
    return jnp.sum(lax.reduce(x, 0.0, lambda a, b: a * b, (1,)))


@pytest.mark.parametrize("fn,words", [
    (subtracting, "cannot read"), (lambda_inside, "lambda"),
], ids=["unknown_computation", "lambda_in_function"])
def test_reduce_refusals_are_clear(fn, words):
    with pytest.raises(AstjaxError, match=words):
        astjax.grad(fn)(X)


def sorted_by_keys(k, v):
    ks, vs = lax.sort((k, v), num_keys=1)
    return jnp.sum(vs * jnp.arange(4.0)) + jnp.sum(ks * ks * jnp.arange(4.0))


def test_multi_operand_sort_values_and_gradient():
    ks, vs = lax.sort((K, V))
    order = np.lexsort((K,))
    np.testing.assert_array_equal(np.asarray(ks), K[order])
    np.testing.assert_array_equal(np.asarray(vs), V[order])
    _, both = lax.sort((K, -V), num_keys=2)                 # ties of the first key broken by the second
    np.testing.assert_array_equal(np.asarray(both), -V[np.lexsort((-V, K))])
    distinct = K + np.array([0.0, 0.0, 0.0, 0.25])          # away from a tie, where the keys' derivative exists
    gk, gv = astjax.grad(sorted_by_keys, argnums=(0, 1))(distinct, V)
    np.testing.assert_allclose(np.asarray(gk), numerical_gradient(lambda k: sorted_by_keys(k, V), distinct), atol=1e-6)
    np.testing.assert_allclose(np.asarray(gv), numerical_gradient(lambda v: sorted_by_keys(distinct, v), V), atol=1e-6)
    batched = astjax.vmap(lambda a, b: lax.sort((a, b))[1])(np.stack([K, -K]), np.stack([V, V]))
    np.testing.assert_array_equal(np.asarray(batched), np.stack([V[np.argsort(K, kind="stable")],
                                                                  V[np.argsort(-K, kind="stable")]]))
