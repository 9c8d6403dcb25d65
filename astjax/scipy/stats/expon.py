"""The exponential distribution, as jax.scipy.stats.expon."""
import astjax.numpy as jnp
from ...numpy._dtypes import inexact_zero


def logpdf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    z = (x - loc) / scale
    return jnp.where(z >= 0, -z - jnp.log(scale), -jnp.inf)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    z = (x - loc) / scale
    inside = z >= 0
    return jnp.where(inside, -jnp.expm1(-jnp.where(inside, z, 0.0)), 0.0)


def logcdf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    return jnp.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    z = (x - loc) / scale
    inside = z >= 0
    return jnp.where(inside, jnp.exp(-jnp.where(inside, z, 0.0)), 1.0)


def logsf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    z = (x - loc) / scale
    return jnp.where(z >= 0, -z, 0.0)


def ppf(q, loc=0, scale=1):
    zero = inexact_zero((q, loc, scale))     # JAX's promote_args_inexact
    q, loc, scale = q + zero, loc + zero, scale + zero
    return loc - scale * jnp.log1p(-q)
