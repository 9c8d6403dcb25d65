"""astjax.nn: activations' values against NumPy formulas, derivatives against central differences
(float64, first and second order), JAX's conventions at the kinks, dtypes, and the initializers."""
import math

import numpy as np
import pytest
import scipy.special

import astjax
import astjax.numpy as jnp
from astjax import nn, random

EPS = 1e-6
POINTS = (-2.3, -0.2, 0.4, 3.1, 6.8)
SECOND_ORDER_POINTS = (-0.2, 3.1)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _softplus(x):
    return np.log1p(np.exp(x))


def _elu(x, alpha=1.0):
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


REFERENCE = {   # name -> (NumPy formula, smooth at the points: second derivative checked)
    "relu": (lambda x: np.maximum(x, 0), False),
    "relu6": (lambda x: np.minimum(np.maximum(x, 0), 6), False),
    "sigmoid": (_sigmoid, True),
    "log_sigmoid": (lambda x: -_softplus(-x), True),
    "softplus": (_softplus, True),
    "soft_sign": (lambda x: x / (np.abs(x) + 1), True),
    "silu": (lambda x: x * _sigmoid(x), True),
    "swish": (lambda x: x * _sigmoid(x), True),
    "hard_tanh": (lambda x: np.clip(x, -1, 1), False),
    "hard_sigmoid": (lambda x: np.minimum(np.maximum(x + 3, 0), 6) / 6, False),
    "hard_silu": (lambda x: x * np.minimum(np.maximum(x + 3, 0), 6) / 6, False),
    "hard_swish": (lambda x: x * np.minimum(np.maximum(x + 3, 0), 6) / 6, False),
    "elu": (_elu, True),
    "celu": (lambda x: np.maximum(x, 0) + np.expm1(np.minimum(x, 0)), True),
    "selu": (lambda x: 1.0507009873554804934193349852946 * _elu(x, 1.6732632423543772848170429916717), True),
    "leaky_relu": (lambda x: np.where(x >= 0, x, 0.01 * x), False),
    "gelu": (lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))), True),
    "mish": (lambda x: x * np.tanh(_softplus(x)), True),
    "sparse_plus": (lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4)), False),
    "squareplus": (lambda x: (x + np.sqrt(x * x + 4)) / 2, True),
    "identity": (lambda x: x, True),
}


def _f64(x):
    return jnp.asarray(np.float64(x))


def _central(fn, x):
    return (float(fn(_f64(x + EPS))) - float(fn(_f64(x - EPS)))) / (2 * EPS)


def elu_of(x):
    return nn.elu(x)


def celu_of(x):
    return nn.celu(x)


def gelu_of(x):
    return nn.gelu(x)


def squareplus_of(x):
    return nn.squareplus(x)


# grad(grad(f)) of a function with default arguments loses them (a machinery limitation, reported):
# those activations are differentiated through a one-argument wrapper.
WRAPPED = {"elu": elu_of, "celu": celu_of, "gelu": gelu_of, "squareplus": squareplus_of}


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_activation_value_and_derivatives(name):
    fn = WRAPPED.get(name, getattr(nn, name))
    formula, smooth = REFERENCE[name]
    xs = np.array(POINTS)
    np.testing.assert_allclose(np.asarray(getattr(nn, name)(jnp.asarray(xs))), formula(xs), rtol=1e-12, atol=1e-15)
    first = astjax.grad(fn)
    second = astjax.grad(first)
    for x in POINTS:
        g = first(_f64(x))
        assert np.asarray(g).dtype == np.float64
        np.testing.assert_allclose(float(g), _central(fn, x), rtol=1e-6, atol=1e-9, err_msg=f"{name}'({x})")
        if smooth and x in SECOND_ORDER_POINTS:
            np.testing.assert_allclose(float(second(_f64(x))), _central(first, x), rtol=1e-5, atol=1e-8,
                                       err_msg=f"{name}''({x})")


def test_gelu_exact():
    xs = np.array(POINTS)
    np.testing.assert_allclose(np.asarray(nn.gelu(jnp.asarray(xs), approximate=False)),
                               xs * scipy.special.ndtr(xs), rtol=1e-12)
    exact = _gelu_exact_total
    for x in POINTS:
        g = astjax.grad(exact)(_f64(x))
        np.testing.assert_allclose(float(g), _central(exact, x), rtol=1e-6, atol=1e-9)


def _gelu_exact_total(x):
    return nn.gelu(x, approximate=False)


# JAX's conventions where the function has a kink: name -> [(x, slope)].
KINKS = {
    "relu": [(0.0, 0.0)], "relu6": [(0.0, 0.0), (6.0, 0.0)], "leaky_relu": [(0.0, 1.0)],
    "hard_tanh": [(1.0, 1.0), (-1.0, 1.0)], "elu": [(0.0, 1.0)], "celu": [(0.0, 1.0)],
    "sparse_plus": [(-1.0, 0.0), (1.0, 1.0)], "soft_sign": [(0.0, 1.0)],
}


@pytest.mark.parametrize("name", sorted(KINKS))
def test_slope_at_a_kink_is_jaxs(name):
    for x, slope in KINKS[name]:
        assert float(astjax.grad(getattr(nn, name))(_f64(x))) == slope


def test_relu_keeps_nan():
    assert np.isnan(float(nn.relu(jnp.asarray(np.float64(np.nan)))))


def test_float32_stays_float32():
    x = jnp.asarray(np.array([-1.0, 0.5, 2.0], dtype=np.float32))
    for name in sorted(REFERENCE):
        assert getattr(nn, name)(x).dtype == np.float32, name
    for fn in (nn.softmax, nn.log_softmax, nn.standardize, nn.glu, nn.logsumexp):
        assert fn(jnp.reshape(jnp.concatenate([x, x]), (2, 3))).dtype == np.float32, fn.__name__
    assert astjax.grad(nn.gelu)(jnp.asarray(np.float32(0.3))).dtype == np.float32


def axis_functions_total(x, w):
    return (jnp.sum(w * nn.softmax(x)) + jnp.sum(w * nn.log_softmax(x, axis=0))
            + jnp.sum(w * nn.standardize(x)) + jnp.sum(nn.glu(x, axis=0)) + nn.logsumexp(x))


def test_axis_functions():
    x = np.array([[0.3, -1.2, 0.8, 1.5], [0.1, 0.4, -0.6, 2.0]])
    np.testing.assert_allclose(np.asarray(nn.softmax(x)), scipy.special.softmax(x, axis=-1), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(nn.log_softmax(x, axis=0)), scipy.special.log_softmax(x, axis=0),
                               rtol=1e-12)
    standardized = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(np.asarray(nn.standardize(x)), standardized, rtol=1e-10)
    np.testing.assert_allclose(np.asarray(nn.glu(x)), x[:, :2] * _sigmoid(x[:, 2:]), rtol=1e-12)
    np.testing.assert_allclose(float(nn.logsumexp(x)), scipy.special.logsumexp(x), rtol=1e-12)
    w = np.random.default_rng(0).standard_normal(x.shape)
    g = astjax.grad(axis_functions_total)(x, w)
    expected = np.zeros_like(x)
    for j in range(x.size):
        up, down = x.copy(), x.copy()
        up.flat[j] += EPS
        down.flat[j] -= EPS
        expected.flat[j] = (float(axis_functions_total(up, w)) - float(axis_functions_total(down, w))) / (2 * EPS)
    np.testing.assert_allclose(np.asarray(g), expected, rtol=1e-5, atol=1e-8)


def one_hot_weighted(x, labels):
    return jnp.sum(nn.one_hot(labels, 3) * nn.log_softmax(x))


def test_one_hot():
    out = nn.one_hot(np.array([0, 2, 1]), 3)
    np.testing.assert_array_equal(np.asarray(out), np.eye(3)[[0, 2, 1]])
    assert out.dtype == np.float32
    assert np.asarray(nn.one_hot(np.array([0, 1]), 3, axis=0)).shape == (3, 2)
    x = np.array([[0.3, -1.2, 0.8], [0.1, 0.4, -0.6]])
    labels = np.array([2, 0])
    g = astjax.grad(one_hot_weighted)(x, labels)
    expected = np.eye(3)[labels] - scipy.special.softmax(x, axis=-1)
    np.testing.assert_allclose(np.asarray(g), expected, rtol=1e-12)


# ------------------------------------------------------------------ initializers
I = nn.initializers


def test_initializers_shapes_dtypes_and_keys():
    key = random.PRNGKey(0)
    for init in (I.glorot_uniform(), I.glorot_normal(), I.xavier_uniform(), I.he_uniform(), I.he_normal(),
                 I.kaiming_normal(), I.lecun_uniform(), I.lecun_normal(), I.normal(), I.uniform(),
                 I.truncated_normal(), I.orthogonal(), I.variance_scaling(1.0, "fan_out", "normal")):
        w = init(key, (30, 20))
        assert w.shape == (30, 20) and w.dtype == np.float32
        assert init(key, (30, 20), jnp.float64).dtype == np.float64
        np.testing.assert_array_equal(np.asarray(init(key, (30, 20))), np.asarray(w))
        assert not np.array_equal(np.asarray(init(random.PRNGKey(1), (30, 20))), np.asarray(w))
    assert np.all(np.asarray(I.zeros(key, (2, 3))) == 0) and np.all(np.asarray(I.ones(key, (2, 3))) == 1)
    assert np.all(np.asarray(I.constant(0.5)(key, (2,))) == 0.5)


def test_variance_scaling_statistics():
    key = random.PRNGKey(3)
    fan_in, fan_out = 400, 300
    glorot = 2.0 / (fan_in + fan_out)
    for init, variance in ((I.glorot_uniform(), glorot), (I.glorot_normal(), glorot),
                           (I.he_normal(), 2.0 / fan_in), (I.he_uniform(), 2.0 / fan_in),
                           (I.lecun_normal(), 1.0 / fan_in), (I.lecun_uniform(), 1.0 / fan_in)):
        w = np.asarray(init(key, (fan_in, fan_out), jnp.float64))
        assert abs(w.var() / variance - 1) < 0.03
        assert abs(w.mean()) < 0.01
    bound = math.sqrt(3 * 2.0 / fan_in)
    assert np.abs(np.asarray(I.he_uniform()(key, (fan_in, fan_out)))).max() <= bound
    stddev = math.sqrt(1.0 / fan_in) / 0.87962566103423978
    assert np.abs(np.asarray(I.lecun_normal()(key, (fan_in, fan_out)))).max() <= 2 * stddev * (1 + 1e-6)
    conv = np.asarray(I.he_normal()(key, (3, 3, 16, 32), jnp.float64))   # fan_in = 3 * 3 * 16
    assert abs(conv.var() / (2.0 / 144) - 1) < 0.05


def test_uniform_and_normal_use_astjax_random():
    key = random.PRNGKey(7)
    np.testing.assert_array_equal(np.asarray(I.uniform(0.5)(key, (4,))),
                                  np.asarray(random.uniform(key, (4,))) * np.float32(0.5))
    np.testing.assert_array_equal(np.asarray(I.normal(2.0)(key, (4,))),
                                  np.asarray(random.normal(key, (4,))) * np.float32(2.0))


def test_orthogonal():
    key = random.PRNGKey(2)
    for shape in ((5, 3), (3, 5), (4, 4)):
        q = np.asarray(I.orthogonal()(key, shape, jnp.float64))
        small = q.T @ q if shape[0] >= shape[1] else q @ q.T
        np.testing.assert_allclose(small, np.eye(min(shape)), atol=1e-12)
    assert I.orthogonal(column_axis=0)(key, (4, 2, 3)).shape == (4, 2, 3)
    with pytest.raises(ValueError):
        I.orthogonal()(key, (3,))


def _log1mexp_loss(x):
    return jnp.sum(nn.log1mexp(x) * jnp.arange(5.0))


def _logmeanexp_loss(x):
    return jnp.sum(nn.logmeanexp(x, axis=1) * jnp.array([1.0, 2.0, 3.0]))


def test_log1mexp_and_logmeanexp_values_and_gradients():
    x = np.array([0.01, 0.5, 0.7, 2.0, 30.0])
    exact = np.where(x > np.log(2), np.log1p(-np.exp(-x)), np.log(-np.expm1(-x)))    # each form where it is exact
    np.testing.assert_allclose(nn.log1mexp(x), exact, rtol=1e-12)
    m = np.random.default_rng(0).standard_normal((3, 4))
    for kwargs in ({}, {"axis": 0}, {"axis": 1, "keepdims": True}, {"axis": (0, 1)}):
        np.testing.assert_allclose(nn.logmeanexp(m, **kwargs), np.log(np.mean(np.exp(m), **kwargs)), rtol=1e-12)
    assert nn.logmeanexp(m.astype(np.float32)).dtype == np.float32
    eps = 1e-6
    for fn, v in ((_log1mexp_loss, x), (_logmeanexp_loss, m)):
        fd = np.zeros_like(v)
        for i in np.ndindex(v.shape):
            e = np.zeros_like(v)
            e[i] = eps
            fd[i] = (fn(v + e) - fn(v - e)) / (2 * eps)
        np.testing.assert_allclose(astjax.grad(fn)(v), fd, rtol=1e-6, atol=1e-8)
