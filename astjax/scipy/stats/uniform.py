"""The uniform distribution on [loc, loc + scale], as jax.scipy.stats.uniform."""
import astjax.numpy as jnp


def logpdf(x, loc=0, scale=1):
    inside = jnp.logical_and(x >= loc, x <= loc + scale)
    return jnp.where(inside, -jnp.log(scale), -jnp.inf)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    return jnp.clip((x - loc) / scale, 0, 1)


def ppf(q, loc=0, scale=1):
    return jnp.where(jnp.logical_and(q >= 0, q <= 1), loc + q * scale, jnp.nan)
