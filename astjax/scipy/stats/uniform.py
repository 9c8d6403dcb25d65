"""The uniform distribution on [loc, loc + scale], as jax.scipy.stats.uniform."""
import astjax.numpy as jnp
from ...numpy._dtypes import inexact_zero


def logpdf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    inside = jnp.logical_and(x >= loc, x <= loc + scale)
    return jnp.where(inside, -jnp.log(scale), -jnp.inf)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    return jnp.clip((x - loc) / scale, 0, 1)


def ppf(q, loc=0, scale=1):
    zero = inexact_zero((q, loc, scale))     # JAX's promote_args_inexact
    q, loc, scale = q + zero, loc + zero, scale + zero
    return jnp.where(jnp.logical_and(q >= 0, q <= 1), loc + q * scale, jnp.nan)
