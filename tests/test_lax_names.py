"""lax's further names: aliases of astjax.numpy / astjax.scipy.special functions and functions written
in Python from primitives (astjax/lax_composites.py). Values against NumPy/SciPy (and JAX when
installed), derivatives against central finite differences, and lax.scan's keywords."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax

from adversarial.harness import fd_grad

EPS = 1e-6
X = np.array([[0.3, -1.2, 0.8], [1.5, 0.1, -0.4]])


def _fd(fn, x):
    return fd_grad(fn, (x,), 0)[0]


def _reduce_max(x):
    return jnp.sum(lax.reduce_max(x * x, (1,)) * jnp.array([1.0, 2.0])) + lax.reduce_sum(x, (0, 1))


def _reduce_prod_min(x):
    return jnp.sum(lax.reduce_prod(x, (0,))) + jnp.sum(lax.reduce_min(jnp.sin(x), [0]))


def _dot_and_batch(x):
    m = lax.dot(x, x.T)
    b = lax.batch_matmul(jnp.stack([m, m * 2.0]), jnp.stack([m, m]))
    return jnp.sum(b * jnp.arange(8.0).reshape(2, 2, 2))


def _shapes(x):
    parts = lax.split(x, (1, 2), axis=1)
    wide = lax.collapse(lax.broadcast(x, (2,)), 0, 2)
    return (jnp.sum(parts[0] ** 2) + jnp.sum(parts[1] * 3.0) + jnp.sum(wide * lax.tile(x, (2, 1)))
            + jnp.sum(lax.full((2,), x[0, 0]) * jnp.array([1.0, -2.0])))


def _cumlogsumexp(x):
    return jnp.sum(lax.cumlogsumexp(x, axis=1) * X) + jnp.sum(lax.cumlogsumexp(x, axis=0, reverse=True) ** 2)


def _sort_key_val(x):
    keys, vals = lax.sort_key_val(x[0], x[1] * x[1])
    return jnp.sum(keys * jnp.array([1.0, 2.0, 3.0])) + jnp.sum(vals * jnp.array([3.0, -1.0, 0.5]))


def _special_aliases(x):
    y = jnp.abs(x) * 0.3 + 0.2
    return jnp.sum(lax.erf_inv(y) + lax.lgamma(y + 1.0) + lax.digamma(y + 1.0) + lax.igamma(2.0, y)
                   + lax.bessel_i0e(x) + lax.bessel_i1e(x) + lax.asinh(x) + lax.reciprocal(y) + lax.erfc(x))


def _convert(x):
    return jnp.sum(lax.convert_element_type(x, jnp.float32) * 2.0) + jnp.sum(
        lax.convert_element_type(x, jnp.int32))


FUNCTIONS = [_reduce_max, _reduce_prod_min, _dot_and_batch, _shapes, _cumlogsumexp, _sort_key_val,
             _special_aliases]


@pytest.mark.parametrize("fn", FUNCTIONS, ids=[f.__name__ for f in FUNCTIONS])
def test_gradient_matches_finite_differences(fn):
    np.testing.assert_allclose(astjax.grad(fn)(X), _fd(lambda v: float(fn(v)), X), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("fn", FUNCTIONS, ids=[f.__name__ for f in FUNCTIONS])
def test_forward_mode_agrees_with_reverse(fn):
    t = np.linspace(-1.0, 1.0, X.size).reshape(X.shape)
    _, tangent = astjax.jvp(fn, (X,), (t,))
    np.testing.assert_allclose(tangent, np.sum(astjax.grad(fn)(X) * t), rtol=1e-9, atol=1e-10)


def test_conversion_to_an_integer_type_has_a_zero_derivative():
    np.testing.assert_allclose(astjax.grad(_convert)(X), np.full(X.shape, 2.0), rtol=1e-6)


def test_values_match_numpy_and_scipy():
    from scipy import special
    np.testing.assert_allclose(lax.reduce_max(X, (1,)), X.max(axis=1))
    np.testing.assert_array_equal(lax.argmax(X, 1, np.int32), np.argmax(X, axis=1))
    assert lax.argmin(X, 0, np.int32).dtype == np.int32
    np.testing.assert_array_equal(lax.iota(np.int32, 4), np.arange(4))
    np.testing.assert_array_equal(lax.broadcasted_iota(np.int32, (2, 3), 1), np.tile(np.arange(3), (2, 1)))
    np.testing.assert_allclose(lax.cumlogsumexp(X, axis=1), np.log(np.cumsum(np.exp(X), axis=1)))
    np.testing.assert_allclose(lax.cumlogsumexp(X, axis=1, reverse=True),
                               np.log(np.cumsum(np.exp(X)[:, ::-1], axis=1))[:, ::-1])
    keys, vals = lax.sort_key_val(X[0], X[1])
    np.testing.assert_allclose(keys, np.sort(X[0]))
    np.testing.assert_allclose(vals, X[1][np.argsort(X[0])])
    np.testing.assert_allclose(lax.erf_inv(np.array([0.1, -0.5])), special.erfinv([0.1, -0.5]))
    np.testing.assert_allclose(lax.igamma(2.0, np.array([0.5, 1.5])), special.gammainc(2.0, [0.5, 1.5]))
    assert [p.shape for p in lax.split(X, (1, 2), axis=1)] == [(2, 1), (2, 2)]
    assert lax.collapse(np.zeros((2, 3, 4)), 1).shape == (2, 12)


def test_values_match_jax():
    jax = pytest.importorskip("jax")
    from jax import lax as jlax
    jax.config.update("jax_enable_x64", True)
    for name, args in [("reduce_sum", (X, (0,))), ("reduce_prod", (X, (1,))), ("cumlogsumexp", (X, 1, True)),
                       ("collapse", (np.zeros((2, 3, 4)), 0, 2)), ("broadcast", (X, (3,))),
                       ("lgamma", (np.abs(X) + 0.5,)), ("bessel_i1e", (X,)), ("erf_inv", (X * 0.5,))]:
        np.testing.assert_allclose(np.asarray(getattr(lax, name)(*args)), np.asarray(getattr(jlax, name)(*args)),
                                   rtol=1e-12, err_msg=name)


# ------------------------------------------------------------ lax.scan's keywords
def _scan_reverse(x):
    def step(c, xi):
        c = c * xi + 1.0
        return c, c * c
    c, ys = lax.scan(step, 1.0, x, reverse=True)
    return jnp.sum(ys * jnp.arange(3.0)) + c


def _scan_reverse_python(x):
    c, ys = 1.0, [None] * 3
    for i in (2, 1, 0):
        c = c * x[i] + 1.0
        ys[i] = c * c
    return sum(y * k for y, k in zip(ys, range(3))) + c


def _scan_length(x):
    def step(c, _):
        return c * x[0] + x[1], c
    c, ys = lax.scan(step, x[2], None, length=4)
    return c + jnp.sum(ys ** 2)


def _scan_length_python(x):
    c, total = x[2], 0.0
    for _ in range(4):
        c, y = c * x[0] + x[1], c
        total = total + y ** 2
    return c + total


@pytest.mark.parametrize("fn, python", [(_scan_reverse, _scan_reverse_python), (_scan_length, _scan_length_python)])
def test_scan_reverse_and_length(fn, python):
    x = np.array([0.3, -0.5, 0.8])
    np.testing.assert_allclose(fn(x), python(x), rtol=1e-12)
    np.testing.assert_allclose(astjax.grad(fn)(x), _fd(python, x), rtol=1e-6)
    np.testing.assert_allclose(astjax.hessian(fn)(x), astjax.jacrev(astjax.grad(fn))(x), rtol=1e-9, atol=1e-12)


def _scan_wrong_length(x):
    return lax.scan(lambda c, xi: (c + xi, c), 0.0, x, length=5)[0]


def test_scan_length_that_does_not_match_xs_raises():
    with pytest.raises((AssertionError, ValueError), match="length"):
        astjax.grad(_scan_wrong_length)(np.ones(3))
    with pytest.raises(ValueError, match="length"):
        _scan_wrong_length(np.ones(3))
