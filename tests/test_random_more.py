"""astjax.random's gamma family, counts, vectors, closed-form samplers and key helpers
(astjax/random_gamma.py, astjax/random_more.py): JAX's numbers for the same key (JAX as oracle when
installed), moments and KS tests on large samples with fixed keys (no JAX needed), and a derivative
that reaches a sampler's parameters refused at the user's line."""
import numpy as np
import pytest
from scipy import stats

import astjax
import astjax.numpy as jnp
import astjax.random as ar
from astjax.errors import AstjaxError

KEY = ar.PRNGKey(5)
COV = np.array([[2.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 0.7]], np.float32)
F32 = np.float32

SAME_AS_JAX = [
    ("gamma", (np.array([0.3, 1.0, 2.5, 7.0, 0.05], F32),), {}), ("gamma", (1.5, (1000,)), {}),
    ("gamma", (0.5, (300,)), {}), ("loggamma", (np.array([0.3, 1.0, 2.5, 0.01], F32),), {}),
    ("beta", (0.5, 2.0, (200,)), {}), ("dirichlet", (np.array([0.5, 1.0, 3.0], F32), (50,)), {}),
    ("chisquare", (3.0, (200,)), {}), ("t", (4.0, (200,)), {}), ("f", (3.0, 5.0, (200,)), {}),
    ("generalized_normal", (1.5, (200,)), {}), ("ball", (3, 2, (50,)), {}),
    ("poisson", (np.array([0.0, 0.5, 3.0, 9.9, 10.0, 50.0, 1000.0], F32),), {}), ("poisson", (4.0, (500,)), {}),
    ("poisson", (40.0, (500,)), {}),
    ("binomial", (np.array([5., 20., 100., 1000., 7.], F32), np.array([0.3, 0.6, 0.5, 0.02, 0.9], F32)), {}),
    ("binomial", (50.0, 0.4, (400,)), {}), ("binomial", (10.0, 0.3, (400,)), {}),
    ("multinomial", (20.0, np.array([0.2, 0.5, 0.3], F32)), {"shape": (30, 3)}),
    ("geometric", (0.3, (100,)), {}),
    ("multivariate_normal", (np.zeros(3, F32), COV, (20,)), {}),
    ("multivariate_normal", (np.ones(3, F32), COV, (20,)), {"method": "eigh"}),
    ("multivariate_normal", (np.ones(3, F32), COV, (20,)), {"method": "svd"}),
    ("orthogonal", (4,), {}), ("orthogonal", (3, (2,)), {"m": 5}),
    ("pareto", (3.0, (50,)), {}), ("weibull_min", (2.0, 1.5, (50,)), {}),
    ("double_sided_maxwell", (1.0, 2.0, (20,)), {}), ("wald", (1.5, (50,)), {}),
    ("triangular", (0.0, 0.3, 2.0, (50,)), {}), ("clone", (), {}), ("key_data", (), {}),
]


@pytest.mark.parametrize("name, args, kwargs", SAME_AS_JAX, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(SAME_AS_JAX)])
def test_the_same_numbers_as_jax(name, args, kwargs):
    jax = pytest.importorskip("jax")
    got = np.asarray(getattr(ar, name)(KEY, *args, **kwargs))
    want = np.asarray(getattr(jax.random, name)(jax.random.PRNGKey(5), *args, **kwargs))
    assert got.shape == want.shape and got.dtype == want.dtype
    # float32 rounding of XLA's log/linear algebra; eigh's eigenvectors carry a few float32 ulps more
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6 if kwargs.get("method") == "eigh" else 0)


def test_float64_gamma_matches_jax_with_x64():
    jax = pytest.importorskip("jax")
    a = np.array([0.3, 1.0, 2.5, 40.0])
    got = np.asarray(ar.gamma(KEY, a, dtype=np.float64))
    jax.config.update("jax_enable_x64", True)
    try:
        want = np.asarray(jax.random.gamma(jax.random.PRNGKey(5), a, dtype=np.float64))
    finally:
        jax.config.update("jax_enable_x64", False)
    np.testing.assert_allclose(got, want, rtol=1e-13)


N = 40_000
CONTINUOUS = [  # (sampler call, scipy frozen distribution): a KS test at a fixed key
    (lambda k: ar.gamma(k, 0.4, (N,), np.float64), stats.gamma(0.4)),
    (lambda k: ar.gamma(k, 3.0, (N,), np.float64), stats.gamma(3.0)),
    (lambda k: np.exp(np.asarray(ar.loggamma(k, 0.2, (N,), np.float64))), stats.gamma(0.2)),
    (lambda k: ar.beta(k, 0.5, 2.0, (N,), np.float64), stats.beta(0.5, 2.0)),
    (lambda k: ar.chisquare(k, 3.0, (N,), np.float64), stats.chi2(3.0)),
    (lambda k: ar.t(k, 4.0, (N,), np.float64), stats.t(4.0)),
    (lambda k: ar.f(k, 3.0, 7.0, (N,), np.float64), stats.f(3.0, 7.0)),
    (lambda k: ar.pareto(k, 3.0, (N,), np.float64), stats.pareto(3.0)),
    (lambda k: ar.weibull_min(k, 2.0, 1.5, (N,), np.float64), stats.weibull_min(1.5, scale=2.0)),
    (lambda k: ar.wald(k, 1.5, (N,), np.float64), stats.invgauss(1.5)),
    (lambda k: ar.triangular(k, 0.0, 0.3, 2.0, (N,), np.float64), stats.triang(0.15, scale=2.0)),
    (lambda k: ar.generalized_normal(k, 1.5, (N,), np.float64), stats.gennorm(1.5)),
    (lambda k: np.abs(np.asarray(ar.double_sided_maxwell(k, 0.0, 1.0, (N,), np.float64))), stats.maxwell()),
]


@pytest.mark.parametrize("i", range(len(CONTINUOUS)))
def test_continuous_samplers_pass_a_ks_test(i):
    draw, dist = CONTINUOUS[i]
    x = np.asarray(draw(KEY))
    assert stats.kstest(x, dist.cdf).pvalue > 1e-3


def test_count_samplers_have_their_moments():
    for lam in (0.7, 6.0, 35.0, 400.0):
        x = np.asarray(ar.poisson(KEY, lam, (N,)))
        assert abs(x.mean() - lam) < 0.03 * lam + 0.02 and abs(x.var() - lam) < 0.06 * lam + 0.05
    for n, p in ((8, 0.3), (300, 0.4), (60, 0.9)):
        x = np.asarray(ar.binomial(KEY, n, p, (N,)))
        assert abs(x.mean() - n * p) < 0.02 * n * p and abs(x.var() - n * p * (1 - p)) < 0.06 * n * p * (1 - p)
    x = np.asarray(ar.geometric(KEY, 0.25, (N,)))
    assert x.min() >= 1 and abs(x.mean() - 4.0) < 0.1
    counts = np.asarray(ar.multinomial(KEY, 30.0, np.array([0.2, 0.5, 0.3]), shape=(N, 3)))
    assert (counts.sum(-1) == 30).all()
    np.testing.assert_allclose(counts.mean(0), [6.0, 15.0, 9.0], rtol=0.02)


def test_dirichlet_ball_orthogonal_and_multivariate_normal_shapes_and_laws():
    d = np.asarray(ar.dirichlet(KEY, np.array([0.5, 1.0, 3.0]), (N,), np.float64))
    np.testing.assert_allclose(d.sum(-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(d.mean(0), np.array([0.5, 1.0, 3.0]) / 4.5, atol=0.01)
    b = np.asarray(ar.ball(KEY, 3, 2, (N,), np.float64))
    r = np.linalg.norm(b, axis=-1)
    assert r.max() <= 1 and stats.kstest(r ** 3, "uniform").pvalue > 1e-3     # uniform in the ball
    q = np.asarray(ar.orthogonal(KEY, 5, (3,), np.float64))
    np.testing.assert_allclose(q @ np.swapaxes(q, -1, -2), np.broadcast_to(np.eye(5), (3, 5, 5)), atol=1e-12)
    wide = np.asarray(ar.orthogonal(KEY, 2, (), np.float64, m=4))
    assert wide.shape == (2, 4)
    np.testing.assert_allclose(wide @ wide.T, np.eye(2), atol=1e-12)
    for method in ("cholesky", "eigh", "svd"):
        x = np.asarray(ar.multivariate_normal(KEY, np.ones(3), COV.astype(np.float64), (N,), method=method))
        np.testing.assert_allclose(np.cov(x.T), COV, atol=0.05)


def test_key_helpers():
    assert np.array_equal(ar.key(7), ar.PRNGKey(7))
    keys = ar.split(ar.key(0), 3)
    assert np.array_equal(ar.wrap_key_data(ar.key_data(keys)), keys) and ar.key_impl(keys) == "threefry2x32"
    assert np.array_equal(ar.clone(KEY), KEY) and ar.key_dtype() == np.uint32
    with pytest.raises(TypeError, match="uint32 key words"):
        ar.key_data(np.zeros(3))
    with pytest.raises(ValueError, match="threefry2x32"):
        ar.key(0, impl="rbg")


def test_argument_errors():
    with pytest.raises(ValueError, match="alpha.ndim"):
        ar.dirichlet(KEY, 1.0)
    with pytest.raises(ValueError, match="cov.shape"):
        ar.multivariate_normal(KEY, np.zeros(2), np.eye(3))
    with pytest.raises(ValueError, match="method"):
        ar.multivariate_normal(KEY, np.zeros(2), np.eye(2), method="qr")
    with pytest.raises(ValueError, match="int dtype"):
        ar.poisson(KEY, 1.0, dtype=np.float32)
    with pytest.raises(ValueError, match="broadcast"):
        ar.gamma(KEY, np.ones(3), (2,))


def _gamma_in_parameter(a):
    return jnp.sum(ar.gamma(KEY, a, (4,)))


def _lognormal_in_parameter(s):
    return jnp.sum(ar.lognormal(KEY, s, (4,)))


def _mvn_in_mean(mu):
    return jnp.sum(ar.multivariate_normal(KEY, mu, jnp.eye(2)))


def _gamma_sample_times_x(x):
    return jnp.sum(ar.gamma(KEY, 2.0, (3,), dtype=jnp.float64) * x)


@pytest.mark.parametrize("fn, x", [(_gamma_in_parameter, 1.5), (_lognormal_in_parameter, 0.5),
                                   (_mvn_in_mean, np.zeros(2))])
def test_a_derivative_reaching_a_samplers_parameters_is_refused_at_the_users_line(fn, x):
    for transform in (astjax.grad, astjax.jacfwd):
        with pytest.raises(AstjaxError, match="with respect to its parameters") as info:
            transform(fn)(x)
        assert "test_random_more.py" in str(info.value)


def test_a_sample_drawn_from_constant_parameters_is_a_constant():
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(astjax.grad(_gamma_sample_times_x)(x), ar.gamma(KEY, 2.0, (3,), np.float64))
