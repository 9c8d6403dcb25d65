"""The Poisson distribution, as jax.scipy.stats.poisson (logpmf, pmf, cdf): differentiable in mu."""
import astjax.numpy as jnp
from .. import special


def logpmf(k, mu, loc=0):
    j = k - loc
    valid = jnp.logical_and(j >= 0, j == jnp.floor(j))
    js = jnp.where(valid, j, 0.0)
    return jnp.where(valid, special.xlogy(js, mu) - special.gammaln(js + 1.0) - mu, -jnp.inf)


def pmf(k, mu, loc=0):
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    j = jnp.floor(k - loc)
    return jnp.where(j >= 0, special.gammaincc(jnp.maximum(j, 0.0) + 1.0, mu), 0.0)
