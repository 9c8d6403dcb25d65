"""The further special functions (erfcx, dawsn, loggamma, boxcox, boxcox1p, comb, hyp1f1, hyp2f1,
owens_t): values against SciPy, gradients in every differentiable argument against JAX when
installed, and the arguments without a derivative refused. (tests/rule_cases_special.py checks
each rule against finite differences, forward against reverse, and second order.)"""
import numpy as np
import pytest
import scipy.special as ss

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError
from astjax.scipy import special

X = np.array([0.3, 1.7, 4.0])

VALUES = [("erfcx", (X,)), ("dawsn", (-X,)), ("loggamma", (X,)), ("boxcox", (X, 0.5)), ("boxcox", (X, 0.0)),
          ("boxcox1p", (X, -0.5)), ("comb", (5.5, 2.0)), ("hyp1f1", (1.5, 2.5, X)),
          ("hyp2f1", (1.5, 0.5, 2.5, X / 5)), ("owens_t", (X, 0.7))]


@pytest.mark.parametrize("name, args", VALUES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(VALUES)])
def test_values_match_scipy(name, args):
    np.testing.assert_allclose(getattr(special, name)(*args), getattr(ss, name)(*args), rtol=1e-12)


def _owens_in_a(a):
    return jnp.sum(special.owens_t(X, a))


def _boxcox_in_lambda(lmbda):
    return jnp.sum(special.boxcox(X, lmbda))


def _comb_in_both(n):
    return jnp.sum(special.comb(n, n / 3.0))


@pytest.mark.parametrize("fn, jax_fn, at", [
    (_owens_in_a, lambda js, jnp_, a: jnp_.sum(js.owens_t(X, a)), 0.7),
    (_boxcox_in_lambda, lambda js, jnp_, l: jnp_.sum(js.boxcox(X, l)), 0.5),
    (_comb_in_both, lambda js, jnp_, n: jnp_.sum(js.comb(n, n / 3.0)), 6.5),
])
def test_gradients_match_jax(fn, jax_fn, at):
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jjnp
    import jax.scipy.special as js
    want = jax.grad(lambda v: jax_fn(js, jjnp, v))(at)
    np.testing.assert_allclose(astjax.grad(fn)(np.float64(at)), np.asarray(want), rtol=1e-9)   # float64 in, as JAX x64


def _comb_of(n, k):
    return special.comb(n, k)


def test_comb_gradients_are_jaxs():
    """comb(N, k) is differentiable in N and k through gammaln, as in JAX (JAX 0.10's numbers), and has a
    zero derivative where it is the constant 0 (k > N)."""
    np.testing.assert_allclose(astjax.grad(_comb_of, argnums=(0, 1))(np.float64(5.0), np.float64(2.0)), (4.5, 10.0 / 3.0), rtol=1e-12)
    np.testing.assert_allclose(astjax.grad(_comb_of, argnums=(0, 1))(np.float64(5.0), np.float64(7.0)), (0.0, 0.0))


def test_boxcox_lambda_derivative_at_zero_is_the_limit():
    np.testing.assert_allclose(astjax.grad(_boxcox_in_lambda)(np.float64(0.0)), np.sum(np.log(X) ** 2 / 2), rtol=1e-12)


def _hyp1f1_in_a(a):
    return jnp.sum(special.hyp1f1(a, 2.5, X))


def test_a_parameter_without_a_derivative_is_refused():
    with pytest.raises(AstjaxError, match="derivative"):
        astjax.grad(_hyp1f1_in_a)(np.float64(1.5))
