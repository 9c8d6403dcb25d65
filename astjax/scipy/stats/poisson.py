"""The Poisson distribution, as jax.scipy.stats.poisson (logpmf, pmf, cdf, entropy): differentiable in mu."""
import numpy as np

import astjax.numpy as jnp
from ...numpy._dtypes import inexact_zero
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


def entropy(mu, loc=0):
    """-sum_k p(k) log p(k), as JAX's poisson.entropy: a direct sum over k < 250 for mu < 100 (the terms
    past mu + 20 (mu < 10) or mu + 10 sqrt(mu) + 20 are masked out), 0.5 log(2 pi e mu) - 1 / (12 mu) beyond;
    0 at mu = 0, NaN for mu < 0.
    `loc` only shifts the distribution (it takes part in the result's shape)."""
    zero = inexact_zero((mu, loc))
    mu = mu + zero
    k = jnp.expand_dims(jnp.arange(250, dtype=mu.dtype), -1)
    flat = jnp.ravel(mu)
    positive = jnp.where(flat > 0, flat, 1.0)
    small = jnp.where(positive < 10, positive, 1.0)
    cutoff = jnp.where(small < 10, jnp.ceil(small + 20), 0.0)
    medium = jnp.where(positive < 100, positive, 1.0)
    bound = jnp.minimum(jnp.where(medium < 10, cutoff, jnp.ceil(medium + 10 * jnp.sqrt(medium) + 20)), 250.0)
    log_p = logpmf(k, medium)
    terms = jnp.where(k < bound, -jnp.exp(log_p) * log_p, 0.0)
    summed = jnp.sum(terms, axis=0)
    large = jnp.where(positive >= 100, positive, 100.0)
    asymptotic = 0.5 * jnp.log(2 * np.pi * np.e * large) - 1.0 / (12 * large)
    result = jnp.where(flat == 0, 0.0, jnp.where(flat < 0, jnp.nan, jnp.where(positive < 100, summed, asymptotic)))
    return jnp.reshape(result, jnp.shape(mu))
