"""API fill (issue 9): jax.numpy's remaining type names and frompyfunc, custom_jvp.defjvps,
and the last jax.scipy.special functions; values against NumPy/SciPy (JAX when installed)."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError

from tests.adversarial.harness import fd_grad


def _fd(fn, args, i):
    """Central differences of scalar fn with respect to the array args[i]."""
    return fd_grad(fn, args, i)[0]


# ------------------------------------------------------------------ jax.numpy type names, frompyfunc

@pytest.mark.parametrize("name, numpy_type", [
    ("double", np.float64), ("single", np.float32), ("float_", np.float64), ("cdouble", np.complex128),
    ("csingle", np.complex64), ("complex_", np.complex128), ("int_", np.int64), ("uint", np.uint64),
    ("character", np.character), ("flexible", np.flexible), ("object_", np.object_)])
def test_type_names_are_numpys_scalar_types(name, numpy_type):
    assert getattr(jnp, name) is numpy_type
    if issubclass(numpy_type, np.number):
        assert jnp.zeros(2, dtype=getattr(jnp, name)).dtype == numpy_type


def test_type_names_match_jaxs():
    jax_numpy = pytest.importorskip("jax.numpy")
    for name in ["double", "single", "float_", "cdouble", "csingle", "complex_", "int_", "uint"]:
        assert np.dtype(getattr(jnp, name)) == np.dtype(getattr(jax_numpy, name)), name
    assert issubclass(jnp.ComplexWarning, Warning)


def _scalar_hypot(a, b):
    return (a * a + b * b) ** 0.5


HYPOT = jnp.frompyfunc(_scalar_hypot, 2, 1)


def _hypot_elementwise(x):
    return jnp.sum(HYPOT(x, x))


def _hypot_made_inside(x):
    return jnp.sum(jnp.frompyfunc(_scalar_hypot, 2, 1)(x, x))


def test_frompyfunc_calls_outer_reduce_accumulate():
    add = jnp.frompyfunc(lambda a, b: a + b, 2, 1, identity=0)
    x = np.array([1.0, 2.0, 3.5])
    out = add(x, 1.0)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, x + 1)
    np.testing.assert_array_equal(add.outer(x, np.arange(2.0)), np.add.outer(x, np.arange(2.0)))
    assert float(add.reduce(x)) == 6.5
    np.testing.assert_array_equal(add.accumulate(x), np.cumsum(x))
    assert add.reduce(np.zeros((0,))).shape == ()
    two = jnp.frompyfunc(lambda a: (a, -a), 1, 2)
    p, n = two(np.arange(3))
    np.testing.assert_array_equal(n, -np.arange(3))
    with pytest.raises(ValueError, match="binary"):
        two.reduce(x)


def test_frompyfunc_is_refused_under_a_derivative():
    with pytest.raises(AstjaxError, match="element by element"):
        astjax.grad(_hypot_elementwise)(np.array([1.0, 2.0]))
    with pytest.raises(AstjaxError):
        astjax.grad(_hypot_made_inside)(np.array([1.0, 2.0]))


# ------------------------------------------------------------------ custom_jvp.defjvps

@astjax.custom_jvp
def _scaled_sin(x, y):
    return jnp.sin(x) * y


_scaled_sin.defjvps(lambda tx, out, x, y: jnp.cos(x) * y * tx, lambda ty, out, x, y: jnp.sin(x) * ty)


@astjax.custom_jvp
def _second_only(x, y):
    return x * y


def _second_only_jvp(ty, out, x, y):
    return x * ty


_second_only.defjvps(None, _second_only_jvp)       # x gets no tangent: a rule that stops x's derivative


def _loss_two(x, y):
    return jnp.sum(_scaled_sin(x, y) ** 2)


def _loss_one(x):
    return jnp.sum(_scaled_sin(x, 2.0 * x) * x)


def _loss_stopped(x, y):
    return jnp.sum(_second_only(x, y))


X, Y = np.array([0.3, 1.1, -0.7]), np.array([2.0, -1.0, 0.5])


def test_defjvps_under_grad_match_differences():
    for argnum in (0, 1):
        np.testing.assert_allclose(astjax.grad(_loss_two, argnums=argnum)(X, Y), _fd(_loss_two, (X, Y), argnum),
                                   rtol=1e-6)
    np.testing.assert_allclose(astjax.grad(_loss_one)(X), _fd(_loss_one, (X,), 0), rtol=1e-6)


def test_defjvps_under_jvp_match_differences():
    tx, ty = np.array([1.0, -0.5, 0.2]), np.array([0.3, 0.1, -1.0])
    value, tangent = astjax.jvp(_loss_two, (X, Y), (tx, ty))
    want = _fd(_loss_two, (X, Y), 0) @ tx + _fd(_loss_two, (X, Y), 1) @ ty
    np.testing.assert_allclose(value, _loss_two(X, Y))
    np.testing.assert_allclose(tangent, want, rtol=1e-6)


def test_defjvps_second_derivative_by_forward_over_forward():
    got = astjax.jacfwd(astjax.jacfwd(_loss_one))(X)
    fd = np.array([_fd(lambda v: float(astjax.grad(_loss_one)(v)[i]), (X,), 0) for i in range(3)])
    np.testing.assert_allclose(got, fd, rtol=1e-5, atol=1e-7)


def test_defjvps_hessian_gives_the_right_number_or_refuses():
    try:
        got = astjax.hessian(_loss_one)(X)
    except AstjaxError:
        return
    fd = np.array([_fd(lambda v: float(astjax.grad(_loss_one)(v)[i]), (X,), 0) for i in range(3)])
    np.testing.assert_allclose(got, fd, rtol=1e-5, atol=1e-7)


def test_defjvps_none_means_no_tangent_from_that_argument():
    np.testing.assert_allclose(astjax.grad(_loss_stopped)(X, Y), np.zeros(3))
    np.testing.assert_allclose(astjax.grad(_loss_stopped, argnums=1)(X, Y), X)


def test_defjvps_argument_errors():
    with pytest.raises(TypeError, match="2 arguments, got 1"):
        astjax.custom_jvp(lambda x, y: x * y).defjvps(None)
    pair = astjax.custom_jvp(lambda x, y: (x, y))
    pair.defjvps(lambda t, out, x, y: t, lambda t, out, x, y: t)
    with pytest.raises(TypeError, match="one array"):
        pair.jvp((1.0, 2.0), (1.0, 1.0))


# ------------------------------------------------------------------ the last jax.scipy.special functions
import scipy.special as scipy_special  # noqa: E402

from astjax.scipy import special  # noqa: E402

XS = np.array([-3.5, -0.2, 0.0, 0.3, 1.5, 7.0, 40.0])


def test_sici_and_fresnel_values_match_scipy():
    for name in ("sici", "fresnel"):
        got = getattr(special, name)(XS)
        want = getattr(scipy_special, name)(XS)
        for g, w in zip(got, want):
            assert g.dtype == np.float64
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=0)
        assert all(r.dtype == np.float32 for r in getattr(special, name)(1.5))     # a Python scalar: float32


def test_bessel_jn_values_and_shape():
    z = np.array([[0.0, 0.4], [-2.5, 9.0]])
    got = special.bessel_jn(z, v=4)
    assert got.shape == (5, 2, 2) and got.dtype == np.float64
    for n in range(5):
        np.testing.assert_allclose(got[n], scipy_special.jv(n, z), rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError, match="non-negative int"):
        special.bessel_jn(z, v=-1)


def test_wofz_and_sph_harm_y_values_match_scipy():
    z = np.array([1 + 1j, 0.5 - 2j, -3.0 + 0.1j])
    np.testing.assert_allclose(special.wofz(z), scipy_special.wofz(z), rtol=1e-12)
    assert special.wofz(np.float32(1.0)).dtype == np.complex64
    n, m = np.array([0, 2, 3, 5]), np.array([0, 1, -2, 5])
    theta, phi = np.array([0.3, 1.1, 2.0, 0.7]), np.array([0.7, 2.0, -1.0, 3.0])
    np.testing.assert_allclose(special.sph_harm_y(n, m, theta, phi), scipy_special.sph_harm_y(n, m, theta, phi),
                               rtol=1e-12)
    with pytest.raises(ValueError, match="n_max"):
        special.sph_harm_y(n, m, theta, phi, n_max=3)


def test_the_last_special_functions_match_jax_in_float32():
    jax = pytest.importorskip("jax")
    js = jax.scipy.special
    x = XS.astype(np.float32)
    for name in ("sici", "fresnel"):
        for g, w in zip(getattr(special, name)(x), getattr(js, name)(x)):
            assert g.dtype == w.dtype
            np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-7)
    z = np.array([1 + 1j, 0.5 - 2j], np.complex64)
    np.testing.assert_allclose(special.wofz(z), js.wofz(z), rtol=2e-6)
    n, m = np.array([2, 3]), np.array([1, -2])
    theta, phi = np.array([0.3, 1.1], np.float32), np.array([0.7, 2.0], np.float32)
    got, want = special.sph_harm_y(n, m, theta, phi), js.sph_harm_y(n, m, theta, phi)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=2e-6)
    # bessel_jn: JAX's float32 recurrence (n_iter=50) gives nan for small |z|; astjax gives SciPy's values
    z = np.array([12.0, 20.0], np.float32)
    np.testing.assert_allclose(special.bessel_jn(z, v=3), js.bessel_jn(z, v=3), rtol=1e-4, atol=1e-6)


def _si_loss(x):
    si, ci = scipy_special.sici(x)           # plain SciPy in user code: resolved to astjax's primitive
    return jnp.sum(si * si)


def _fresnel_loss(x):
    s, c = special.fresnel(x)
    return jnp.sum(s * c)


def _bessel_loss(z):
    return jnp.sum(special.bessel_jn(z, v=2) * jnp.array([[1.0], [-2.0], [3.0]]))


def _wofz_loss(x):
    return jnp.sum(jnp.real(special.wofz(x)))


@pytest.mark.parametrize("fn", [_si_loss, _fresnel_loss, _bessel_loss])
def test_special_derivatives_match_differences(fn):
    x = np.array([0.0, 0.7, -1.3, 3.0])
    np.testing.assert_allclose(astjax.grad(fn)(x), _fd(fn, (x,), 0), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(astjax.jvp(fn, (x,), (np.ones(4),))[1], _fd(fn, (x,), 0).sum(), rtol=1e-6)
    fd_hess = np.array([_fd(lambda v: float(astjax.grad(fn)(v)[i]), (x,), 0) for i in range(4)])
    np.testing.assert_allclose(astjax.hessian(fn)(x), fd_hess, rtol=1e-5, atol=1e-6)


def _ci_only(x):
    return jnp.sum(special.sici(x)[1])


def test_ci_slope_at_zero_is_infinite_and_si_alone_is_finite_there():
    g = np.asarray(astjax.grad(_ci_only)(np.array([0.0, 1.0])))
    assert g[0] == np.inf and np.isclose(g[1], np.cos(1.0))
    assert np.asarray(astjax.grad(_si_loss)(np.array([0.0])))[0] == 0.0


def test_complex_special_functions_are_refused_under_a_derivative():
    with pytest.raises(AstjaxError, match="complex"):
        astjax.grad(_wofz_loss)(np.array([0.5]))


# ------------------------------------------------------------------ the missing jax.scipy.stats distributions
from scipy import stats as scipy_stats  # noqa: E402

from astjax.scipy import stats as astats  # noqa: E402

_X = np.array([-1.5, 0.2, 1.3, 2.5, 4.0])
_K = np.array([0.0, 1.0, 2.0, 5.0, 9.0])
_Q = np.array([0.05, 0.3, 0.5, 0.9])
STATS_VALUES = [  # (distribution, method, args for astjax and SciPy)
    *[("gumbel_r", m, (_X, 0.3, 1.7)) for m in ("logpdf", "pdf", "logcdf", "cdf", "sf", "logsf")],
    ("gumbel_r", "ppf", (_Q, 0.3, 1.7)),
    *[("gumbel_l", m, (_X, 0.3, 1.7)) for m in ("logpdf", "pdf", "logcdf", "cdf", "sf", "logsf")],
    ("gumbel_l", "ppf", (_Q, 0.3, 1.7)),
    *[("pareto", m, (_X + 1.0, 2.5, 0.2, 1.1)) for m in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")],
    ("pareto", "ppf", (_Q, 2.5, 0.2, 1.1)),
    ("geom", "logpmf", (_K, 0.3)), ("geom", "pmf", (_K, 0.3, -1.0)),
    ("binom", "logpmf", (_K, 9.0, 0.35)), ("binom", "pmf", (_K, 8.0, 0.6, 1.0)),
    ("nbinom", "logpmf", (_K, 3.0, 0.4)), ("nbinom", "pmf", (_K, 2.5, 0.7, 1.0)),
    ("betabinom", "logpmf", (_K, 9.0, 1.5, 2.5)), ("betabinom", "pmf", (_K, 9.0, 0.7, 3.0, 1.0)),
    ("vonmises", "logpdf", (_X, 2.5)), ("vonmises", "pdf", (_X, 40.0)),
    ("wrapcauchy", "logpdf", (np.abs(_X), 0.4)), ("wrapcauchy", "pdf", (np.abs(_X), 0.8)),
    ("gennorm", "logpdf", (_X, 1.5)), ("gennorm", "pdf", (_X, 0.8)), ("gennorm", "cdf", (_X, 2.5)),
]


@pytest.mark.parametrize("dist, method, args", STATS_VALUES,
                         ids=[f"{d}.{m}-{i}" for i, (d, m, _) in enumerate(STATS_VALUES)])
def test_new_stats_distributions_match_scipy(dist, method, args):
    got = np.asarray(getattr(getattr(astats, dist), method)(*args))
    want = getattr(getattr(scipy_stats, dist), method)(*args)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-300)


def test_new_stats_distributions_match_jax():
    jax = pytest.importorskip("jax")
    for dist, method, args in STATS_VALUES:
        f32 = tuple(np.asarray(a, np.float32) for a in args)
        got = np.asarray(getattr(getattr(astats, dist), method)(*f32))
        want = np.asarray(getattr(getattr(jax.scipy.stats, dist), method)(*f32))
        np.testing.assert_allclose(got, want, rtol=3e-5, atol=1e-6, err_msg=f"{dist}.{method}")


def _gumbel_fit(params):
    return jnp.sum(scipy_stats.gumbel_r.logpdf(_X, params[0], params[1]))    # plain SciPy: astjax's own


def _pareto_fit(b):
    return jnp.sum(astats.pareto.logpdf(_X + 1.0, b, 0.2, 1.1) + astats.pareto.logcdf(_X + 1.5, b, 0.2, 1.1))


def _binom_fit(p):
    return jnp.sum(astats.binom.logpmf(_K, 9.0, p) + astats.nbinom.logpmf(_K, 3.0, p) + astats.geom.logpmf(_K + 1.0, p))


def _betabinom_fit(ab):
    return jnp.sum(astats.betabinom.logpmf(_K, 9.0, ab[0], ab[1]))


def _circular_fit(kc):
    return jnp.sum(astats.vonmises.logpdf(_X, kc[0]) + astats.wrapcauchy.logpdf(np.abs(_X), kc[1]))


def _gennorm_fit(xb):
    return jnp.sum(astats.gennorm.logpdf(_X * xb[0], xb[1]) + astats.gennorm.cdf(_X + xb[0], 1.5))


def _multinomial_fit(p):
    counts = jnp.array([[2.0, 3.0, 5.0], [4.0, 4.0, 2.0]])
    return jnp.sum(astats.multinomial.logpmf(counts[0], 10, p / jnp.sum(p)))


def test_multinomial_matches_scipy_and_jax():
    x, p = np.array([2.0, 3.0, 5.0]), np.array([0.2, 0.3, 0.5])
    np.testing.assert_allclose(astats.multinomial.logpmf(x, 10, p), scipy_stats.multinomial.logpmf(x, 10, p),
                               rtol=1e-12)
    assert astats.multinomial.pmf(x, 9, p) == 0.0
    jax = pytest.importorskip("jax")
    want = jax.scipy.stats.multinomial.logpmf(x.astype(np.int32), 10, p.astype(np.float32))
    np.testing.assert_allclose(astats.multinomial.logpmf(x, 10, p.astype(np.float32)), want, rtol=2e-6)


def _gumbel_l_tails(x):
    return jnp.sum(astats.gumbel_l.logcdf(x, 0.3, 1.7) + astats.gumbel_l.logsf(x, 0.3, 1.7)
                   + astats.gumbel_r.logsf(x, 0.3, 1.7))


@pytest.mark.parametrize("fn, x", [(_gumbel_fit, np.array([0.3, 1.7])), (_pareto_fit, np.array(2.5)), (_binom_fit, np.array(0.35)),
                                   (_betabinom_fit, np.array([1.5, 2.5])), (_circular_fit, np.array([2.5, 0.4])),
                                   (_gumbel_l_tails, _X), (_gennorm_fit, np.array([1.1, 1.7])),
                                   (_multinomial_fit, np.array([0.2, 0.3, 0.5]))])
def test_new_stats_gradients_match_differences(fn, x):
    got = np.asarray(astjax.grad(fn)(x))
    np.testing.assert_allclose(got, np.reshape(_fd(fn, (x,), 0), np.shape(got)), rtol=1e-6, atol=1e-8)


PRECISION = [("norm", (0.3, 1.7)), ("t", (4.3, 0.3, 1.7)), ("cauchy", (0.3, 1.7)), ("laplace", (0.3, 1.7)),
             ("logistic", (0.3, 1.7)), ("expon", (-2.0, 1.7)), ("gamma", (2.3, -2.0, 1.7)), ("chi2", (3.3, -2.0, 1.7)),
             ("beta", (2.3, 1.7, -2.0, 5.0)), ("uniform", (-2.0, 5.3))]


@pytest.mark.parametrize("dist, params", PRECISION, ids=[d for d, _ in PRECISION])
def test_python_number_parameters_keep_float64_precision(dist, params):
    """A Python scale beside float64 data is read as float64 (JAX's weak promotion): these logpdfs were
    float32 logarithms, wrong in the eighth digit (uniform's was a float32 result)."""
    x = np.array([-1.5, 0.2, 1.3, 2.5])
    for method in [m for m in ("logpdf", "cdf") if hasattr(getattr(astats, dist), m)]:
        got = getattr(getattr(astats, dist), method)(x, *params)
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, getattr(getattr(scipy_stats, dist), method)(x, *params), rtol=1e-12)
