"""jax.scipy.linalg.fiedler_companion and jax.nn.scaled_matmul / scaled_dot_general /
get_scaled_dot_general_config: values against SciPy and their definitions, derivatives against central
differences and the other mode, vmap against a Python loop."""
import numpy as np
import pytest
import scipy.linalg as sl

import astjax
import astjax.numpy as jnp
from astjax import lax, nn
from astjax.scipy import linalg

RNG = np.random.default_rng(3)
W = RNG.normal(size=(4, 4))
COEFFICIENTS = RNG.normal(size=5)
LHS = RNG.normal(size=(1, 2, 6))
RHS = RNG.normal(size=(1, 3, 6))
LHS_SCALES = RNG.uniform(0.5, 2.0, size=(1, 2, 2))
RHS_SCALES = RNG.uniform(0.5, 2.0, size=(1, 3, 2))


def central_difference(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (float(f(x + e)) - float(f(x - e))) / (2 * eps)
    return g


def companion_loss(a):
    return jnp.sum(linalg.fiedler_companion(a) * W)


def scaled_loss(lhs_scales):
    return jnp.sum(nn.scaled_matmul(LHS, RHS, lhs_scales, RHS_SCALES, jnp.float64) ** 2)


def scaled_dot_loss(lhs):
    return jnp.sum(jnp.sin(nn.scaled_dot_general(lhs, RHS, (((2,), (2,)), ((0,), (0,))), jnp.float64)))


def test_fiedler_companion_values():
    assert linalg.fiedler_companion(np.array([2.0])).shape == (0, 0)      # JAX's shape (SciPy's is (0,))
    for n in range(2, 8):
        a = np.arange(1.0, n + 1) * (-1.0) ** np.arange(n)
        found = linalg.fiedler_companion(a)
        assert found.shape == (n - 1, n - 1)
        np.testing.assert_array_equal(found, sl.fiedler_companion(a))
    assert linalg.fiedler_companion(np.array([1, 2, 3])).dtype == np.float32
    batch = RNG.normal(size=(3, 5))
    np.testing.assert_array_equal(linalg.fiedler_companion(batch),
                                  np.stack([sl.fiedler_companion(row) for row in batch]))
    with pytest.raises(ValueError, match="nonzero length"):
        linalg.fiedler_companion(np.zeros(0))


def test_fiedler_companion_derivatives():
    g = astjax.grad(companion_loss)(COEFFICIENTS)
    np.testing.assert_allclose(g, central_difference(companion_loss, COEFFICIENTS), rtol=1e-6, atol=1e-6)
    tangent = RNG.normal(size=5)
    assert np.isclose(astjax.jvp(companion_loss, (COEFFICIENTS,), (tangent,))[1], g @ tangent, rtol=1e-12)
    batch = RNG.normal(size=(3, 5))
    np.testing.assert_allclose(astjax.vmap(astjax.grad(companion_loss))(batch),
                               np.stack([astjax.grad(companion_loss)(row) for row in batch]), rtol=1e-12)


def test_scaled_matmul():
    expected = np.einsum("bmk,bnk->bmn", LHS * np.repeat(LHS_SCALES, 3, -1), RHS * np.repeat(RHS_SCALES, 3, -1))
    found = nn.scaled_matmul(LHS, RHS, LHS_SCALES, RHS_SCALES)
    assert found.dtype == np.float32
    np.testing.assert_allclose(found, expected, rtol=1e-5)
    g = astjax.grad(scaled_loss)(LHS_SCALES)
    # computed in float32 (as JAX): the loss is quadratic in the scales, so a wide step differences exactly
    np.testing.assert_allclose(g, central_difference(scaled_loss, LHS_SCALES, eps=1e-2), rtol=1e-4)
    with pytest.raises(ValueError, match="3-dimensional"):
        nn.scaled_matmul(LHS[0], RHS, LHS_SCALES, RHS_SCALES)


def test_scaled_dot_general():
    dims = (((2,), (2,)), ((0,), (0,)))
    np.testing.assert_allclose(nn.scaled_dot_general(LHS, RHS, dims), lax.dot_general(LHS, RHS, dims), rtol=1e-6)
    g = astjax.grad(scaled_dot_loss)(LHS)
    np.testing.assert_allclose(g, central_difference(scaled_dot_loss, LHS), rtol=1e-6, atol=1e-8)
    config = nn.get_scaled_dot_general_config("mxfp8")
    assert (config.mode, config.block_size, config.global_scale) == ("mxfp8", 32, None)
    assert nn.get_scaled_dot_general_config("nvfp4").block_size == 16
    with pytest.raises(ValueError, match="Unsupported mode"):
        nn.get_scaled_dot_general_config("int8")
    with pytest.raises(NotImplementedError, match="float8"):
        nn.scaled_dot_general(LHS, RHS, dims, configs=[config] * 3)


def test_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    np.testing.assert_allclose(linalg.fiedler_companion(COEFFICIENTS),
                               jax.scipy.linalg.fiedler_companion(COEFFICIENTS), rtol=1e-12)
    expected = jax.grad(lambda a: (jax.scipy.linalg.fiedler_companion(a) * W).sum())(COEFFICIENTS)
    np.testing.assert_allclose(astjax.grad(companion_loss)(COEFFICIENTS), expected, rtol=1e-12)
