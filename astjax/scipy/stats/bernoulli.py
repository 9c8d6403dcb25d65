"""The Bernoulli distribution, as jax.scipy.stats.bernoulli (logpmf, pmf, cdf, ppf): differentiable in p."""
import astjax.numpy as jnp
from .. import special


def logpmf(k, p, loc=0):
    j = k - loc
    valid = jnp.logical_or(j == 0, j == 1)
    js = jnp.where(valid, j, 0.0)
    return jnp.where(valid, special.xlogy(js, p) + special.xlog1py(1.0 - js, -p), -jnp.inf)


def pmf(k, p, loc=0):
    return jnp.exp(logpmf(k, p, loc))


def cdf(k, p):
    return jnp.where(k < 0, 0.0, jnp.where(k < 1, 1.0 - p, 1.0))


def ppf(q, p):
    """The smallest k in {0, 1} with cdf(k) >= q (piecewise constant: its derivative is zero)."""
    invalid = jnp.logical_or(jnp.logical_or(q < 0, q > 1), jnp.logical_or(p < 0, p > 1))
    return jnp.where(invalid, jnp.nan, jnp.where(q <= 1.0 - p, 0.0, 1.0))
