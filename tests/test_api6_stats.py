"""jax.scipy.stats's sem, rankdata, mode, poisson.entropy and gaussian_kde (issue 9's last names).

Values against SciPy (and JAX when installed); derivatives against central differences; vmap against a
Python loop."""
import numpy as np
import pytest
import scipy.stats as ss

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError
from astjax.scipy import stats

RNG = np.random.default_rng(7)
X = RNG.normal(size=(4, 5))
DATA = RNG.normal(size=(2, 12))
POINTS = RNG.normal(size=(2, 3))
KDE = stats.gaussian_kde(DATA)
KDE1 = stats.gaussian_kde(DATA[0], bw_method="silverman", weights=np.arange(1.0, 13.0))


def central_difference(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (float(f(x + e)) - float(f(x - e))) / (2 * eps)
    return g


def sem_loss(x):
    return jnp.sum(stats.sem(x, 1) ** 2) + jnp.sum(stats.rankdata(x, axis=1) * x)


def kde_loss(points):
    return jnp.sum(KDE.logpdf(points)) + jnp.sum(KDE(points))


def kde_box(low):
    return KDE1.integrate_box_1d(low, 1.0) + KDE1.integrate_gaussian(low, 0.5)


def entropy_loss(mu):
    return jnp.sum(stats.poisson.entropy(mu))


def modal(x):
    return jnp.sum(stats.mode(x).mode)


def test_sem_rankdata_mode_values():
    np.testing.assert_allclose(stats.sem(X), ss.sem(X), rtol=1e-12)
    np.testing.assert_allclose(stats.sem(X, axis=None, ddof=0), ss.sem(X, axis=None, ddof=0), rtol=1e-12)
    with_nan = X.copy()
    with_nan[1, 2] = np.nan
    np.testing.assert_allclose(stats.sem(with_nan, nan_policy="omit"), ss.sem(with_nan, nan_policy="omit"), rtol=1e-12)
    ties = np.array([[3, 1, 3, 2, 1, 3], [1, 2, 2, 3, 1, 2]])
    for method in ("average", "min", "max", "dense", "ordinal"):
        np.testing.assert_array_equal(stats.rankdata(ties, method), ss.rankdata(ties, method))
        np.testing.assert_array_equal(stats.rankdata(ties, method, axis=1), ss.rankdata(ties, method, axis=1))
    assert stats.rankdata(ties).dtype == np.float32
    assert np.isnan(stats.rankdata(np.array([1.0, np.nan]))).all()
    found, expected = stats.mode(ties, axis=1, keepdims=True), ss.mode(ties, axis=1, keepdims=True)
    np.testing.assert_array_equal(found.mode, expected.mode)
    np.testing.assert_array_equal(found.count, expected.count)
    assert found.count.dtype == np.int32 and stats.mode(ties, axis=None).mode.shape == ()
    with pytest.raises(NotImplementedError):
        stats.rankdata(ties, nan_policy="omit")


def test_sem_and_rankdata_derivatives():
    g = astjax.grad(sem_loss)(X)
    np.testing.assert_allclose(g, central_difference(sem_loss, X), rtol=1e-6, atol=1e-7)
    looped = np.stack([astjax.grad(sem_loss)(x[None]) for x in X])[:, 0]
    np.testing.assert_allclose(astjax.vmap(astjax.grad(sem_loss))(X[:, None]), looped[:, None], rtol=1e-12)


def test_mode_is_refused_under_a_derivative():
    assert modal(X) is not None
    with pytest.raises(AstjaxError, match="(?s)test_api6_stats.py.*`mode`.*most common value"):
        astjax.grad(modal)(X)


def test_poisson_entropy():
    mu = np.array([0.0, 0.5, 3.3, 12.5, 42.4, 99.5])   # not where JAX's regimes and sum bounds switch
    np.testing.assert_allclose(stats.poisson.entropy(mu), ss.poisson.entropy(mu), rtol=1e-10, atol=1e-12)
    assert np.isclose(stats.poisson.entropy(200.0), 0.5 * np.log(2 * np.pi * np.e * 200.0) - 1 / 2400, rtol=1e-6)
    assert np.isnan(stats.poisson.entropy(-1.0))
    assert stats.poisson.entropy(np.ones(3), np.zeros((2, 1))).shape == (2, 3)
    inner = mu[1:]
    np.testing.assert_allclose(astjax.grad(entropy_loss)(inner), central_difference(entropy_loss, inner),
                               rtol=1e-5, atol=1e-8)


def test_gaussian_kde_values():
    plain = ss.gaussian_kde(DATA)
    np.testing.assert_allclose(KDE(POINTS), plain(POINTS), rtol=1e-10)
    np.testing.assert_allclose(KDE.logpdf(POINTS), plain.logpdf(POINTS), rtol=1e-10)
    np.testing.assert_allclose(KDE.pdf(POINTS[:, 0]), plain.pdf(POINTS[:, 0]), rtol=1e-10)
    np.testing.assert_allclose(KDE.integrate_gaussian(np.zeros(2), np.eye(2)),
                               plain.integrate_gaussian(np.zeros(2), np.eye(2)), rtol=1e-10)
    other = stats.gaussian_kde(DATA[:, :5] * 2.0)
    np.testing.assert_allclose(KDE.integrate_kde(other), plain.integrate_kde(ss.gaussian_kde(DATA[:, :5] * 2.0)),
                               rtol=1e-10)
    plain1 = ss.gaussian_kde(DATA[0], bw_method="silverman", weights=np.arange(1.0, 13.0))
    np.testing.assert_allclose(KDE1.integrate_box_1d(-0.5, 1.0), plain1.integrate_box_1d(-0.5, 1.0), rtol=1e-10)
    np.testing.assert_allclose(KDE1.covariance, plain1.covariance, rtol=1e-10)
    assert KDE1.resample(astjax.random.PRNGKey(0), (4,)).shape == (1, 4) and (KDE.d, KDE.n) == (2, 12)
    with pytest.raises(NotImplementedError):
        KDE.integrate_box([0, 0], [1, 1])
    with pytest.raises(ValueError, match="dimension"):
        KDE(np.ones((3, 2)))


def test_gaussian_kde_derivatives_and_batching():
    g = astjax.grad(kde_loss)(POINTS)
    np.testing.assert_allclose(g, central_difference(kde_loss, POINTS), rtol=1e-6, atol=1e-8)
    low = np.float64(-0.3)
    assert np.isclose(astjax.grad(kde_box)(low), central_difference(kde_box, np.array(low)), rtol=1e-6)
    batched = astjax.vmap(KDE.logpdf, in_axes=1)(POINTS)
    np.testing.assert_allclose(batched[:, 0], [KDE.logpdf(p)[0] for p in POINTS.T], rtol=1e-12)


def test_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.scipy.stats as js
    np.testing.assert_allclose(stats.sem(X, axis=1), js.sem(X, axis=1), rtol=1e-12)
    np.testing.assert_allclose(stats.rankdata(X[0]), js.rankdata(X[0]), rtol=1e-6)
    np.testing.assert_allclose(stats.poisson.entropy(np.array([0.5, 30.0, 150.0])),
                               js.poisson.entropy(np.array([0.5, 30.0, 150.0])), rtol=1e-10)
    np.testing.assert_allclose(KDE.logpdf(POINTS), js.gaussian_kde(DATA).logpdf(POINTS), rtol=1e-10)


def kde_of_the_data(data):
    return jnp.sum(stats.gaussian_kde(data).logpdf(np.zeros(1)))


def test_a_kde_built_from_a_differentiated_value_is_refused():
    with pytest.raises(AstjaxError, match="(?s)test_api6_stats.py.*`gaussian_kde`.*build the kde outside"):
        astjax.grad(kde_of_the_data)(DATA[:1])
