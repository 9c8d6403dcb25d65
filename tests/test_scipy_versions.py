"""Plain SciPy calls follow the installed SciPy, where its versions differ.

SciPy 1.18 wrote zeros where cho_factor's unused triangle held a's entries up to 1.17. astjax asks
SciPy once (`scipy_cho_factor_keeps_a`) and gives that SciPy's value and its derivative: both
conventions are checked here, whichever SciPy is installed, the other by a stand-in.
"""
import numpy as np
import pytest
import scipy.linalg

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError
from astjax.scipy import linalg as sla

A = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
W = np.arange(1.0, 10.0).reshape(3, 3) / 7.0


def weighted_upper(a):
    return jnp.sum(W * scipy.linalg.cho_factor(a)[0])


def weighted_lower(a):
    return jnp.sum(W * scipy.linalg.cho_factor(a, lower=True)[0])


def central_differences(f, a, h=1e-6):
    g = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[i] = h
        g[i] = (f(a + e) - f(a - e)) / (2 * h)
    return g


def zeroing_cho_factor(real):
    def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
        c, low = real(a, lower=lower)
        return (np.tril(c) if low else np.triu(c)), low
    return cho_factor


def _check_value_and_gradients():
    for f in (weighted_upper, weighted_lower):
        value, grad = astjax.value_and_grad(f)(A)
        np.testing.assert_allclose(float(value), float(f(A)), rtol=1e-12)
        np.testing.assert_allclose(np.asarray(grad), central_differences(f, A), rtol=1e-6, atol=1e-8)
        tangent = np.asarray(astjax.jvp(f, (A,), (W.T,))[1])
        np.testing.assert_allclose(tangent, np.sum(np.asarray(grad) * W.T), rtol=1e-10)


@pytest.fixture
def fresh_probe():
    sla.scipy_cho_factor_keeps_a.cache_clear()
    yield
    sla.scipy_cho_factor_keeps_a.cache_clear()


def test_the_installed_scipys_cho_factor(fresh_probe):
    _check_value_and_gradients()


def test_a_scipy_that_writes_zeros_in_the_unused_triangle(fresh_probe, monkeypatch):
    real = scipy.linalg.cho_factor
    if not sla.scipy_cho_factor_keeps_a():
        pytest.skip("the installed SciPy writes zeros already: the test above covers it")
    sla.scipy_cho_factor_keeps_a.cache_clear()
    monkeypatch.setattr(scipy.linalg, "cho_factor", zeroing_cho_factor(real))
    assert not sla.scipy_cho_factor_keeps_a()
    c, _ = sla.scipy_cho_factor(A)
    np.testing.assert_array_equal(np.asarray(c), np.triu(np.asarray(c)))
    _check_value_and_gradients()        # the user's calls run the stand-in: values and derivatives follow it


def test_a_scipy_that_leaves_something_else_is_refused(fresh_probe, monkeypatch):
    def odd(a, lower=False, overwrite_a=False, check_finite=True):
        c = np.linalg.cholesky(a).T.copy()
        c[np.tril_indices(len(a), -1)] = 7.0
        return c, lower
    monkeypatch.setattr(scipy.linalg, "cho_factor", odd)
    with pytest.raises(AstjaxError, match="neither a's entries nor zeros"):
        sla.scipy_cho_factor(A)
