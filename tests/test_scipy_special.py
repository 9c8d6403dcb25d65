"""astjax.scipy.special: values and dtypes against SciPy, SciPy's spelling resolving to the same primitive,
logsumexp's options, and the refusals where JAX has no derivative either.

The derivative rules themselves are checked against finite differences (first and
second order, forward and reverse) by tests/test_rules.py with the cases of
tests/rule_cases_special.py.
"""
import numpy as np
import pytest
import scipy.special as sc

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError
from astjax.rules import lookup_callable
from astjax.scipy import special

X = np.array([0.35, 0.8, 1.7, 2.9])        # inside every unary function's domain (erfinv, logit, ndtri need < 1)
P = np.array([0.05, 0.3, 0.5, 0.93])
Y = np.array([0.6, 1.1, 2.4, 0.9])

UNARY = ["expit", "logit", "log_expit", "erf", "erfc", "erfinv", "ndtr", "ndtri", "log_ndtr", "gammaln", "gamma",
         "gammasgn", "digamma", "expi", "exp1", "spence", "i0", "i0e", "i1", "i1e", "entr", "factorial"]
BINARY = ["betaln", "beta", "poch", "xlogy", "xlog1py", "rel_entr", "kl_div", "gammainc", "gammaincc", "zeta"]
_IN_UNIT = {"logit", "erfinv", "ndtri"}


def _unary_input(name):
    return P if name in _IN_UNIT else X


@pytest.mark.parametrize("name", UNARY)
def test_unary_value_dtype_and_alias(name):
    fn = getattr(special, name)
    x = _unary_input(name)
    np.testing.assert_allclose(np.asarray(fn(x)), getattr(sc, name)(x), rtol=1e-13)
    assert fn(x).dtype == np.float64
    assert fn(x.astype(np.float32)).dtype == np.float32
    assert fn(0.5).dtype == np.float32                    # Python scalars are float32, as in JAX
    assert lookup_callable(getattr(sc, name)) is lookup_callable(fn) is not None


@pytest.mark.parametrize("name", BINARY)
def test_binary_value_dtype_and_alias(name):
    fn = getattr(special, name)
    a, b = (X + 1.5, Y) if name == "zeta" else (X, Y)
    np.testing.assert_allclose(np.asarray(fn(a, b)), getattr(sc, name)(a, b), rtol=1e-13)
    assert fn(a.astype(np.float32), b.astype(np.float32)).dtype == np.float32
    assert fn(a.astype(np.float32), 2.0).dtype == np.float32      # a Python scalar stays weak
    assert lookup_callable(getattr(sc, name)) is lookup_callable(fn) is not None


def test_other_signatures():
    np.testing.assert_allclose(np.asarray(special.polygamma(2, X)), sc.polygamma(2, X), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(special.expn(3, X)), sc.expn(3, X), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(special.betainc(X, Y, P)), sc.betainc(X, Y, P), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(special.zeta(X + 1.5)), sc.zeta(X + 1.5), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(special.multigammaln(X + 2.0, 3)),
                               [sc.multigammaln(v, 3) for v in X + 2.0], rtol=1e-13)
    np.testing.assert_allclose(np.asarray(special.bernoulli(6)), sc.bernoulli(6), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(special.factorial(np.array([-1.0, 0.0, 3.0, 2.5]))),
                               sc.factorial(np.array([-1.0, 0.0, 3.0, 2.5])), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(special.softmax(Y)), sc.softmax(Y), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(special.log_softmax(Y)), sc.log_softmax(Y), rtol=1e-13)


def test_logsumexp_options():
    a = np.array([[0.3, -1.2, 800.0], [0.1, 0.4, -0.6]])
    b = np.array([0.5, 2.0, 1.0])
    for kwargs in ({}, {"axis": 1}, {"axis": 0, "keepdims": True}, {"axis": -1, "b": b}):
        np.testing.assert_allclose(np.asarray(special.logsumexp(a, **kwargs)), sc.logsumexp(a, **kwargs), rtol=1e-13)
    value, sign = special.logsumexp(np.array([0.0, 1.0]), b=np.array([1.0, -2.0]), return_sign=True)
    expected = sc.logsumexp(np.array([0.0, 1.0]), b=np.array([1.0, -2.0]), return_sign=True)
    np.testing.assert_allclose([float(value), float(sign)], expected, rtol=1e-13)
    assert np.isnan(float(special.logsumexp(np.array([0.0, 1.0]), b=np.array([1.0, -2.0]))))
    assert special.logsumexp(a.astype(np.float32)).dtype == np.float32
    assert lookup_callable(sc.logsumexp) is lookup_callable(special.logsumexp)


def scipy_spelled(x, a):
    return jnp.sum(sc.gammaln(x) + sc.logsumexp(a, axis=0) * sc.expit(x) + sc.xlogy(x, x))


def astjax_spelled(x, a):
    return jnp.sum(special.gammaln(x) + special.logsumexp(a, axis=0) * special.expit(x) + special.xlogy(x, x))


def test_scipy_spelling_differentiates_as_astjax_spelling():
    a = np.array([[0.3, -1.2, 0.8, 1.5], [0.1, 0.4, -0.6, 2.0]])
    got = astjax.grad(scipy_spelled, argnums=(0, 1))(X, a)
    expected = astjax.grad(astjax_spelled, argnums=(0, 1))(X, a)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(e))


def logsumexp_signed(a):
    value, sign = special.logsumexp(a, return_sign=True)
    return value


def gammainc_in_a(a):
    return special.gammainc(a, 1.5)


def zeta_in_x(x):
    return special.zeta(x, 1.5)


def polygamma_in_n(n):
    return special.polygamma(n, 1.5)


@pytest.mark.parametrize("fn,arg,match", [
    (logsumexp_signed, np.array([0.3, 0.5]), "return_sign"),
    (gammainc_in_a, np.float64(2.0), "no derivative with respect to its argument `a`"),
    (zeta_in_x, np.float64(3.0), "no derivative with respect to its argument `x`"),
    (polygamma_in_n, np.float64(2.0), "no derivative with respect to its argument `n`"),
], ids=["logsumexp_return_sign", "gammainc_a", "zeta_x", "polygamma_n"])
def test_derivatives_jax_does_not_have_are_refused(fn, arg, match):
    with pytest.raises(AstjaxError, match=match):
        astjax.grad(fn)(arg)


def per_row(x):
    return jnp.sum(special.gammaln(x) + special.logsumexp(x) + special.softmax(x) * special.erf(x))


def test_vmap_of_grad():
    xs = np.array([[0.4, 1.2, 2.5], [0.9, 1.6, 0.7]])
    got = astjax.vmap(astjax.grad(per_row))(xs)
    for row, g in zip(xs, np.asarray(got)):
        np.testing.assert_allclose(g, np.asarray(astjax.grad(per_row)(row)), rtol=1e-13)


def multigammaln_total(a):
    return jnp.sum(special.multigammaln(a, 3))


def test_multigammaln_gradient():
    a = X + 2.0
    g = astjax.grad(multigammaln_total)(a)
    expected = [sum(sc.digamma(v - j / 2.0) for j in range(3)) for v in a]
    np.testing.assert_allclose(np.asarray(g), expected, rtol=1e-12)


def test_log_ndtr_tail_gradient_is_finite_and_right():
    # d/dx log ndtr(x) ~ -x for x -> -inf: the ratio pdf / cdf with both underflowing must not be nan.
    g = astjax.grad(special.log_ndtr)(np.float64(-40.0))
    assert abs(float(g) - 40.0248) < 1e-3
    assert float(astjax.grad(special.log_ndtr)(np.float64(40.0))) == 0.0


def test_xlogy_at_zero():
    with np.errstate(divide="ignore"):      # the slope in x is log(0) = -inf there, as in JAX
        g = astjax.grad(special.xlogy, argnums=(0, 1))(np.float64(0.0), np.float64(0.0))
    assert float(special.xlogy(0.0, 0.0)) == 0.0 and float(g[1]) == 0.0
