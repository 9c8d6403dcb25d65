"""jit and jit(grad) of losses that call astjax.nn, astjax.scipy.special and NumPy's special functions.

Each lowering (astjax/runtime/numba_special.py) is checked against the reference
backend in value and dtype, float32 and float64, on a scalar, a vector and a
broadcast matrix, with values at 0, negative and large enough to saturate.
To keep compiles few, one function applies every primitive (each term weighted
differently, so a wrong derivative helper shows in the gradient).
"""
import os

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import nn
from astjax.scipy import special
from astjax.backends.numba_cpu import JitError

pytest.importorskip("numba")

# Compiling is what costs (a gradient of 35 functions takes tens of seconds on a loaded machine): the suite
# checks the gradients in float32 and values in both dtypes (tests/test_numba_lowerings.py checks each lowering
# in float32 and float64 arrays); ASTJAX_LONG_PROPERTIES=1 runs every combination.
LONG = bool(os.environ.get("ASTJAX_LONG_PROPERTIES"))
BOTH = [np.float32, np.float64]
HEAVY_DTYPES = BOTH if LONG else [np.float32]
VALUE_CASES = [(k, d) for k in ("scalar", "vector", "broadcast") for d in BOTH] if LONG else \
    [("broadcast", np.float32)]
GRAD_CASES = [(k, d) for k in ("vector", "broadcast") for d in BOTH] if LONG else [("broadcast", np.float32)]

VALUES = np.array([0.0, -0.7, 1.3, -2.5, 4.0, -30.0, 30.0, 120.0, -120.0, 0.25])


def unary_terms(x):
    """Every newly lowered one-operand function, kept inside its domain (no infinite slopes)."""
    s = jnp.tanh(x)
    return (special.expit(x), special.log_expit(x), special.logit(0.5 + 0.4 * s), special.erf(x),
            special.erfc(x), special.ndtr(x), special.log_ndtr(x), special.gammaln(x * x + 0.5),
            special.digamma(x * x + 0.5), special.entr(0.5 + 0.4 * s), jnp.cbrt(x * x + 1.0), jnp.exp2(s),
            jnp.arcsinh(x), jnp.arccosh(x * x + 2.0), jnp.arctanh(0.9 * s), jnp.deg2rad(x), jnp.rad2deg(x),
            jnp.fabs(x), nn.sigmoid(x), nn.log_sigmoid(x), nn.softplus(x), nn.silu(x), nn.elu(x), nn.relu(x),
            nn.gelu(x), nn.gelu(x, approximate=False))


def binary_terms(x, z):
    """Every newly lowered two-operand function (z broadcasts against x)."""
    return (special.xlogy(x, z * z + 1.0), special.xlog1py(x, z * z), jnp.logaddexp(x, 0.5 * z),
            jnp.logaddexp2(x, z), jnp.hypot(x, z + 0.5), jnp.copysign(x, z), jnp.heaviside(x, z),
            jnp.fmax(x, z), jnp.fmin(x, z))


def all_terms(x, z):
    return unary_terms(x) + binary_terms(x, z)


def weighted_loss(x, z):
    """sum over the terms of k * sum(term_k): one scalar whose gradient checks every rule. (Written out: jit
    has no lowering for the adjoint of a tuple's item. digamma is left out: its slope is polygamma(1, x),
    which has no lowering; see test_the_slope_of_digamma_is_refused_clearly. gelu(x, approximate=False) is
    left out too: jit refuses its gradient, whose untaken tanh branch keeps a float64 constant in float32 code.)"""
    s = jnp.tanh(x)
    return (jnp.sum(special.expit(x)) + 2.0 * jnp.sum(special.log_expit(x))
            + 3.0 * jnp.sum(special.logit(0.5 + 0.4 * s)) + 4.0 * jnp.sum(special.erf(x))
            + 5.0 * jnp.sum(special.erfc(x)) + 6.0 * jnp.sum(special.ndtr(x)) + 7.0 * jnp.sum(special.log_ndtr(x))
            + 8.0 * jnp.sum(special.gammaln(x * x + 0.5)) + 9.0 * jnp.sum(special.gammaln(x * x + 1.5))
            + 10.0 * jnp.sum(special.entr(0.5 + 0.4 * s)) + 11.0 * jnp.sum(jnp.cbrt(x * x + 1.0))
            + 12.0 * jnp.sum(jnp.exp2(s)) + 13.0 * jnp.sum(jnp.arcsinh(x)) + 14.0 * jnp.sum(jnp.arccosh(x * x + 2.0))
            + 15.0 * jnp.sum(jnp.arctanh(0.9 * s)) + 16.0 * jnp.sum(jnp.deg2rad(x)) + 17.0 * jnp.sum(jnp.rad2deg(x))
            + 18.0 * jnp.sum(jnp.fabs(x)) + 19.0 * jnp.sum(nn.sigmoid(x)) + 20.0 * jnp.sum(nn.log_sigmoid(x))
            + 21.0 * jnp.sum(nn.softplus(x)) + 22.0 * jnp.sum(nn.silu(x)) + 23.0 * jnp.sum(nn.elu(x))
            + 24.0 * jnp.sum(nn.relu(x)) + 25.0 * jnp.sum(nn.gelu(x)) + 26.0 * jnp.sum(x * special.ndtr(x))
            + 27.0 * jnp.sum(special.xlogy(x, z * z + 1.0)) + 28.0 * jnp.sum(special.xlog1py(x, z * z))
            + 29.0 * jnp.sum(jnp.logaddexp(x, 0.5 * z)) + 30.0 * jnp.sum(jnp.logaddexp2(x, z))
            + 31.0 * jnp.sum(jnp.hypot(x, z + 0.5)) + 32.0 * jnp.sum(jnp.copysign(x, z))
            + 33.0 * jnp.sum(jnp.heaviside(x, z)) + 34.0 * jnp.sum(jnp.fmax(x, z)) + 35.0 * jnp.sum(jnp.fmin(x, z)))


def core_loss(x, z):
    """The rules that call helpers beyond arithmetic (digamma, signbit, where, exp of the result), for the
    suite's default run; weighted_loss (every function) runs in the long profile."""
    return (jnp.sum(nn.log_softmax(x)) + 2.0 * jnp.sum(special.log_expit(x)) + 3.0 * jnp.sum(special.log_ndtr(x))
            + 4.0 * jnp.sum(special.gammaln(x * x + 0.5)) + 5.0 * jnp.sum(special.xlogy(x, z * z + 1.0))
            + 6.0 * jnp.sum(jnp.logaddexp(x, 0.5 * z)) + 7.0 * jnp.sum(jnp.hypot(x, z + 0.5))
            + 8.0 * jnp.sum(jnp.copysign(x, z)) + 9.0 * jnp.sum(jnp.fmax(x, z)) + 10.0 * jnp.sum(nn.gelu(x)))


def _operands(kind, dtype):
    if kind == "scalar":
        return dtype(-0.7), dtype(1.3)
    if kind == "vector":
        return VALUES.astype(dtype), VALUES[::-1].astype(dtype)
    return VALUES.reshape(2, 5).astype(dtype), np.array([0.0, -1.0, 2.0, 50.0, -0.3], dtype=dtype)


def _close(got, expected, dtype):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape
    rtol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol, equal_nan=True)


@pytest.mark.parametrize("kind,dtype", VALUE_CASES)
def test_jit_of_every_special_function_agrees_with_the_reference(kind, dtype):
    x, z = _operands(kind, dtype)
    got = astjax.jit(all_terms)(x, z)
    expected = all_terms(x, z)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        _close(g, e, dtype)


@pytest.mark.parametrize("kind,dtype", GRAD_CASES)
def test_jit_of_grad_of_every_special_function_agrees_with_the_reference(kind, dtype):
    x, z = _operands(kind, dtype)
    grad = astjax.grad(weighted_loss if LONG else core_loss, argnums=(0, 1))
    got, expected = astjax.jit(grad)(x, z), grad(x, z)
    for g, e in zip(got, expected):
        _close(g, e, dtype)


def few_terms(x, z):
    return special.expit(x), special.log_ndtr(x), special.gammaln(x), jnp.logaddexp(x, z), special.digamma(z)


def test_jit_of_special_functions_of_float64_scalars():
    """The suite's float64 scalar check (every function on scalars runs in the long profile)."""
    for x, z in ((np.float64(-0.7), np.float64(1.3)), (np.float64(-40.0), np.float64(-2.5))):
        for g, e in zip(astjax.jit(few_terms)(x, z), few_terms(x, z)):
            _close(g, e, np.float64)


def over_axes(x):
    return (special.logsumexp(x), special.logsumexp(x, axis=1), special.logsumexp(x, axis=0, keepdims=True),
            nn.softmax(x), special.softmax(x, axis=0), nn.log_softmax(x), special.log_softmax(x, axis=None),
            nn.logsumexp(x, axis=-1))


def over_axes_loss(x):
    return (jnp.sum(special.logsumexp(x) ** 2) + 2.0 * jnp.sum(special.logsumexp(x, axis=1) ** 2)
            + 3.0 * jnp.sum(special.logsumexp(x, axis=0, keepdims=True) ** 2) + 4.0 * jnp.sum(nn.softmax(x) ** 2)
            + 5.0 * jnp.sum(special.softmax(x, axis=0) ** 2) + 6.0 * jnp.sum(nn.log_softmax(x) ** 2)
            + 7.0 * jnp.sum(special.log_softmax(x, axis=None) ** 2))


@pytest.mark.parametrize("dtype", HEAVY_DTYPES)
def test_logsumexp_softmax_log_softmax_over_axes(dtype):
    x = np.array([[0.0, -1.0, 2.0, 40.0], [-40.0, 3.0, 0.5, -0.5], [1.0, 1.0, 1.0, 1.0]], dtype=dtype)
    for g, e in zip(astjax.jit(over_axes)(x), over_axes(x)):
        _close(g, e, dtype)
    _close(astjax.jit(astjax.grad(over_axes_loss))(x), astjax.grad(over_axes_loss)(x), dtype)


def lse(x):
    return special.logsumexp(x)


def test_logsumexp_keeps_a_tiny_sum_exact_and_its_edge_values():
    # log(1 + e^-40) is 4.2e-18: a plain log(sum) would give 0 (SciPy keeps the largest term out of the sum)
    for x in ([0.0, -40.0], [-np.inf, -np.inf], [1.0, np.inf], [1.0, np.nan], [5.0, 5.0]):
        x = np.array(x)
        np.testing.assert_array_equal(np.asarray(astjax.jit(lse)(x)), np.asarray(lse(x)))


def digamma_loss(x):
    return jnp.sum(special.digamma(x))


def test_the_slope_of_digamma_is_refused_clearly():
    with pytest.raises(JitError, match="polygamma"):
        astjax.jit(astjax.grad(digamma_loss))(np.array([0.5, 2.0]))


def weighted_lse(x, b):
    return special.logsumexp(x, b=b)


def test_logsumexp_with_weights_compiles_and_agrees_with_the_reference():
    """jit lowers logsumexp's b= (it was refused); the compiled value equals the reference backend's."""
    a, b = np.array([1.0, 2.0]), np.array([1.0, 2.0])
    np.testing.assert_allclose(astjax.jit(weighted_lse)(a, b), weighted_lse(a, b), rtol=1e-12)


def mlp_loss(params, x, labels):
    w1, b1, w2, b2 = params
    hidden = nn.relu(x @ w1 + b1)
    logits = hidden @ w2 + b2
    return -jnp.mean(jnp.sum(nn.one_hot(labels, 3) * nn.log_softmax(logits), axis=-1))


@pytest.mark.parametrize("dtype", HEAVY_DTYPES)
def test_jit_of_grad_of_an_mlp_loss_with_relu_log_softmax_and_one_hot(dtype):
    rng = np.random.default_rng(3)
    params = (rng.normal(size=(4, 6)).astype(dtype), np.zeros(6, dtype), rng.normal(size=(6, 3)).astype(dtype),
              rng.normal(size=3).astype(dtype))
    x = rng.normal(size=(5, 4)).astype(dtype)
    labels = np.array([0, 2, 1, 1, 0])
    got = astjax.jit(astjax.grad(mlp_loss))(params, x, labels)
    expected = astjax.grad(mlp_loss)(params, x, labels)
    for g, e in zip(got, expected):
        _close(g, e, dtype)


def hot(labels):
    return nn.one_hot(labels, 4), nn.one_hot(labels, 3, dtype=jnp.float64)


def test_one_hot_of_ints_floats_and_out_of_range_classes():
    for labels in (np.array([0, 3, -1, 4, 2]), np.array([[0.0, 2.0], [2.5, 1.0]]), np.int64(2)):
        for g, e in zip(astjax.jit(hot)(labels), hot(labels)):
            assert np.asarray(g).dtype == np.asarray(e).dtype
            np.testing.assert_array_equal(np.asarray(g), np.asarray(e))


def test_the_digamma_series_constants_are_scipys_zetas():
    """runtime/digamma_series.py holds zeta(n + 1, root) as constants (no SciPy import, no zetas evaluated when
    the lowerings are imported): they are SciPy's values."""
    from scipy.special import zeta
    from astjax.runtime import numba_special
    from astjax.runtime.digamma_series import NEG_ROOT_ZETA, POS_ROOT_ZETA
    n = np.arange(1, 100)
    np.testing.assert_array_equal(POS_ROOT_ZETA, zeta(n + 1, numba_special._POS_ROOT))
    np.testing.assert_array_equal(NEG_ROOT_ZETA, zeta(n + 1, numba_special._NEG_ROOT))
