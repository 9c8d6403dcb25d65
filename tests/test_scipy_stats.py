"""astjax.scipy.stats: values against scipy.stats, gradients against central differences (float64).

Each distribution function is differentiated directly (`grad(norm.logpdf, argnums=...)`) at
scalar points inside its support, in every argument JAX differentiates.
"""
import os

import numpy as np
import pytest
import scipy.stats

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError
from astjax.scipy import stats

EPS = 1e-6


def f64(*values):
    return tuple(jnp.asarray(np.float64(v)) for v in values)


# (distribution, method, args, argnums differentiated); pdf = exp(logpdf) and sf = 1 - cdf are sampled, not all
CASES = [
    ("norm", "logpdf", (0.3, -0.2, 1.7), (0, 1, 2)), ("norm", "cdf", (0.3, -0.2, 1.7), (0, 1, 2)),
    ("norm", "logcdf", (-9.0, 0.5, 1.2), (0, 1, 2)), ("norm", "logsf", (9.0, 0.5, 1.2), (0, 1, 2)),
    ("norm", "ppf", (0.3, -0.2, 1.7), (0, 1, 2)), ("t", "logpdf", (0.7, 3.5, 0.2, 1.4), (0, 1, 2, 3)),
    ("beta", "logpdf", (0.3, 2.5, 1.5), (0, 1, 2)), ("beta", "cdf", (0.3, 2.5, 1.5), (0,)),
    ("beta", "sf", (0.3, 2.5, 1.5), (0,)), ("beta", "logsf", (0.3, 2.5, 1.5), (0,)),
    ("gamma", "logpdf", (1.3, 2.5, 0.1, 0.8), (0, 1, 2, 3)), ("gamma", "cdf", (1.3, 2.5), (0,)),
    ("gamma", "sf", (1.3, 2.5), (0,)), ("chi2", "logpdf", (1.3, 3.5, 0.1, 0.8), (0, 1, 2, 3)),
    ("chi2", "cdf", (1.3, 3.5), (0,)), ("chi2", "sf", (1.3, 3.5), (0,)),
    ("poisson", "logpmf", (3.0, 2.5), (1,)), ("poisson", "cdf", (3.0, 2.5), (1,)),
    ("bernoulli", "logpmf", (1.0, 0.3), (1,)), ("bernoulli", "logpmf", (0.0, 0.3), (1,)),
    ("bernoulli", "cdf", (0.0, 0.3), (1,)), ("laplace", "logpdf", (0.7, 0.2, 1.5), (0, 1, 2)),
    ("laplace", "cdf", (0.7, 0.2, 1.5), (0, 1, 2)), ("laplace", "cdf", (-0.7, 0.2, 1.5), (0, 1, 2)),
    ("logistic", "logpdf", (0.7, 0.2, 1.5), (0, 1, 2)), ("logistic", "cdf", (0.7, 0.2, 1.5), (0, 1, 2)),
    ("logistic", "logcdf", (-30.0, 0.2, 1.5), (0, 1, 2)), ("logistic", "logsf", (0.7, 0.2, 1.5), (0, 1, 2)),
    ("logistic", "ppf", (0.3, 0.2, 1.5), (0, 1, 2)), ("uniform", "logpdf", (0.7, 0.2, 1.5), (2,)),
    ("uniform", "cdf", (0.7, 0.2, 1.5), (0, 1, 2)), ("uniform", "ppf", (0.3, 0.2, 1.5), (0, 1, 2)),
    ("expon", "logpdf", (0.7, 0.2, 1.5), (0, 1, 2)), ("expon", "cdf", (0.7, 0.2, 1.5), (0, 1, 2)),
    ("expon", "logcdf", (0.7, 0.2, 1.5), (0, 1, 2)), ("expon", "logsf", (0.7, 0.2, 1.5), (0, 1, 2)),
    ("expon", "ppf", (0.3, 0.2, 1.5), (0, 1, 2)), ("cauchy", "logpdf", (0.7, 0.2, 1.5), (0, 1, 2)),
    ("cauchy", "cdf", (0.7, 0.2, 1.5), (0, 1, 2)), ("cauchy", "logcdf", (0.7, 0.2, 1.5), (0, 1, 2)),
    ("cauchy", "ppf", (0.3, 0.2, 1.5), (0, 1, 2)),
    # truncnorm: between bounds on each side of zero, both below it (the left tail), both above it
    ("truncnorm", "logpdf", (0.4, -1.0, 2.0, 0.3, 1.5), (0, 1, 2, 3, 4)),
    ("truncnorm", "logsf", (-11.8, -9.0, -4.0, 0.7, 2.5), (0, 1, 2, 3, 4)),
    ("truncnorm", "logcdf", (8.2, 2.0, 9.0, 0.7, 2.5), (0, 1, 2, 3, 4)),
]


def _scipy(dist, method, args):
    return getattr(getattr(scipy.stats, dist), method)(*args)


def _central(fn, args, i):
    up = list(args)
    down = list(args)
    up[i] = jnp.asarray(np.float64(args[i]) + EPS)
    down[i] = jnp.asarray(np.float64(args[i]) - EPS)
    return (float(fn(*up)) - float(fn(*down))) / (2 * EPS)


@pytest.mark.parametrize("dist,method,args,argnums", CASES, ids=[f"{c[0]}.{c[1]}-{c[2][0]}" for c in CASES])
def test_value_and_gradient(dist, method, args, argnums):
    fn = getattr(getattr(stats, dist), method)
    x = f64(*args)
    np.testing.assert_allclose(float(fn(*x)), _scipy(dist, method, args), rtol=1e-10, atol=1e-300)
    grads = astjax.grad(fn, argnums=argnums)(*x)
    for i, g in zip(argnums, grads):
        assert np.asarray(g).dtype == np.float64
        np.testing.assert_allclose(float(g), _central(fn, x, i), rtol=1e-5, atol=1e-8,
                                   err_msg=f"{dist}.{method}: d/d(argument {i})")


# distribution -> (arguments at a point x, arguments at a probability q)
POINTS = {"norm": ((0.3, -0.2, 1.7), (0.3, -0.2, 1.7)), "t": ((0.7, 3.5, 0.2, 1.4), None),
          "beta": ((0.3, 2.5, 1.5), None), "gamma": ((1.3, 2.5, 0.1, 0.8), None), "chi2": ((1.3, 3.5, 0.1, 0.8), None),
          "poisson": ((3.0, 2.5), None), "bernoulli": ((1.0, 0.3), (0.8, 0.3)), "laplace": ((0.7, 0.2, 1.5), None),
          "logistic": ((0.7, 0.2, 1.5), (0.3, 0.2, 1.5)), "uniform": ((0.7, 0.2, 1.5), (0.3, 0.2, 1.5)),
          "expon": ((0.7, 0.2, 1.5), (0.3, 0.2, 1.5)), "cauchy": ((0.7, 0.2, 1.5), (0.3, 0.2, 1.5)),
          "truncnorm": ((0.4, -1.0, 2.0, 0.3, 1.5), None)}


@pytest.mark.parametrize("dist", sorted(POINTS))
def test_every_function_matches_scipy(dist):
    module = getattr(stats, dist)
    names = [n for n in dir(module) if not n.startswith("_") and callable(getattr(module, n))
             and getattr(getattr(module, n), "__module__", None) == module.__name__]
    assert names
    x_args, q_args = POINTS[dist]
    for method in names:
        args = q_args if method in ("ppf", "isf") else x_args
        np.testing.assert_allclose(float(getattr(module, method)(*f64(*args))), _scipy(dist, method, args),
                                   rtol=1e-10, err_msg=f"{dist}.{method}")


def test_outside_the_support():
    assert float(stats.beta.logpdf(1.5, 2.0, 3.0)) == -np.inf
    assert float(stats.gamma.logpdf(-0.5, 2.0)) == -np.inf
    assert float(stats.expon.logpdf(-0.5)) == -np.inf
    assert float(stats.uniform.logpdf(1.5)) == -np.inf
    assert float(stats.poisson.logpmf(2.5, 1.0)) == -np.inf
    assert float(stats.bernoulli.logpmf(2.0, 0.3)) == -np.inf
    assert float(stats.expon.cdf(-0.5)) == 0.0
    assert float(stats.bernoulli.ppf(0.8, 0.3)) == 1.0


def test_gradient_outside_the_support_is_finite():
    g = astjax.grad(stats.gamma.logpdf, argnums=(0, 1))(*f64(-0.5, 2.0))
    assert all(float(v) == 0.0 for v in g)


def test_float32_in_float32_out():
    x = jnp.asarray(np.float32(0.3))
    assert stats.norm.logpdf(x).dtype == np.float32
    assert stats.t.logpdf(x, 3.0).dtype == np.float32
    assert stats.gamma.cdf(x, 2.0).dtype == np.float32
    assert astjax.grad(stats.norm.logpdf)(x).dtype == np.float32


def test_shape_parameter_of_a_cdf_is_refused():
    """gammainc has no derivative in `a` (as in JAX): an error, never a zero."""
    with pytest.raises(AstjaxError):
        astjax.grad(stats.gamma.cdf, argnums=1)(*f64(1.3, 2.5))


def mvn_total(x, mean, cov):
    return jnp.sum(stats.multivariate_normal.logpdf(x, mean, cov))


_MVN_X = np.array([[0.3, -0.5, 1.1], [1.2, 0.4, -0.7]])
_MVN_MEAN = np.array([0.1, -0.2, 0.3])
_MVN_COV = np.array([[1.5, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.8]])


def test_multivariate_normal():
    for x in (_MVN_X, _MVN_X[0]):
        np.testing.assert_allclose(np.asarray(stats.multivariate_normal.logpdf(x, _MVN_MEAN, _MVN_COV)),
                                   scipy.stats.multivariate_normal.logpdf(x, _MVN_MEAN, _MVN_COV), rtol=1e-12)
    args = (_MVN_X, _MVN_MEAN, _MVN_COV)
    grads = astjax.grad(mvn_total, argnums=(0, 1, 2))(*args)
    for i, g in enumerate(grads):
        expected = np.zeros_like(args[i])
        for j in range(args[i].size):
            up = [np.array(a) for a in args]
            down = [np.array(a) for a in args]
            up[i].flat[j] += EPS
            down[i].flat[j] -= EPS
            expected.flat[j] = (float(mvn_total(*up)) - float(mvn_total(*down))) / (2 * EPS)
        np.testing.assert_allclose(np.asarray(g), expected, rtol=1e-5, atol=1e-8, err_msg=f"argument {i}")


def dirichlet_total(x, alpha):
    return jnp.sum(stats.dirichlet.logpdf(x, alpha))


def test_dirichlet():
    x = np.array([0.2, 0.5, 0.3])
    alpha = np.array([1.5, 2.0, 3.5])
    np.testing.assert_allclose(float(stats.dirichlet.logpdf(x, alpha)), scipy.stats.dirichlet.logpdf(x, alpha),
                               rtol=1e-12)
    g = astjax.grad(dirichlet_total, argnums=1)(x, alpha)
    expected = [(float(dirichlet_total(x, alpha + EPS * e)) - float(dirichlet_total(x, alpha - EPS * e))) / (2 * EPS)
                for e in np.eye(3)]
    np.testing.assert_allclose(np.asarray(g), expected, rtol=1e-5)
    assert float(stats.dirichlet.logpdf(np.array([0.2, 0.5, 0.4]), alpha)) == -np.inf


def scipy_spelled(x, m):
    return jnp.sum(scipy.stats.norm.logpdf(x, m, 2.0)) + jnp.sum(scipy.stats.norm.cdf(x)) + scipy.stats.t.logpdf(m, 3.0)


def astjax_spelled(x, m):
    return jnp.sum(stats.norm.logpdf(x, m, 2.0)) + jnp.sum(stats.norm.cdf(x)) + stats.t.logpdf(m, 3.0)


def test_scipy_stats_spelling_differentiates_as_astjax_spelling():
    x, m = np.array([0.3, -1.0]), np.float64(0.2)
    got = astjax.grad(scipy_spelled, argnums=(0, 1))(x, m)
    expected = astjax.grad(astjax_spelled, argnums=(0, 1))(x, m)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(e))
    np.testing.assert_allclose(np.asarray(got[0]), -(x - m) / 4.0 + scipy.stats.norm.pdf(x), rtol=1e-12)


def scipy_norm_rvs(x):
    return jnp.sum(scipy.stats.norm.rvs(x))


def test_scipy_stats_without_an_astjax_version_is_refused_not_a_constant():
    with pytest.raises(AstjaxError, match="no derivative rule"):
        astjax.grad(scipy_norm_rvs)(np.array([0.3, 0.4]))


def _summed(fn, arity):
    """jnp.sum of fn over x (the transformed function lists its parameters: no *args)."""
    def total2(x, a):
        return jnp.sum(fn(x, a))

    def total3(x, a, b):
        return jnp.sum(fn(x, a, b))

    def total4(x, a, b, c):
        return jnp.sum(fn(x, a, b, c))
    return {2: total2, 3: total3, 4: total4}[arity]


# Each compiles a distribution and its gradient (seconds each): every fourth by default, all in the long profile.
JIT_CASES = CASES if os.environ.get("ASTJAX_LONG_PROPERTIES") else CASES[::4]


@pytest.mark.parametrize("dist,method,args,argnums", JIT_CASES, ids=[f"{c[0]}.{c[1]}-{c[2][0]}" for c in JIT_CASES])
def test_jit_compiles_the_distribution_or_refuses_clearly(dist, method, args, argnums):
    """Under jit a distribution is compiled like the user's own code (its promotion zero has a Numba lowering):
    the compiled value and gradient equal the reference backend's, or jit refuses with an astjax error."""
    from astjax.backends.numba_cpu import JitError
    total = _summed(getattr(getattr(stats, dist), method), len(args))
    x = (np.linspace(0.9, 1.1, 3) * np.float64(args[0]),) + f64(*args[1:])
    try:
        value = astjax.jit(total)(*x)
        grads = astjax.jit(astjax.grad(total, argnums=argnums))(*x)
    except JitError as exc:
        assert "test_scipy_stats.py" in str(exc) or "astjax/scipy/stats" in str(exc)
        return
    np.testing.assert_allclose(float(value), float(total(*x)), rtol=1e-12)
    for g, expected in zip(grads, astjax.grad(total, argnums=argnums)(*x)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(expected), rtol=1e-10, atol=1e-12)


def test_jit_of_a_loss_calling_norm_logpdf_compiles():
    def loss(mu, x):
        return -jnp.sum(stats.norm.logpdf(x, mu, 1.5))
    x = np.linspace(-1.0, 2.0, 7).astype(np.float32)
    compiled = astjax.jit(astjax.value_and_grad(loss))
    value, g = compiled(np.float32(0.3), x)
    ref_value, ref_g = astjax.value_and_grad(loss)(np.float32(0.3), x)
    assert np.asarray(g).dtype == np.float32
    np.testing.assert_allclose(float(value), float(ref_value), rtol=1e-6)
    np.testing.assert_allclose(float(g), float(ref_g), rtol=1e-5)
