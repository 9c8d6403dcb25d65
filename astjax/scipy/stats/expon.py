"""The exponential distribution, as jax.scipy.stats.expon."""
import astjax.numpy as jnp


def logpdf(x, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, loc, scale, 0.0))
    x = x + zero
    loc = loc + zero
    scale = scale + zero
    z = (x - loc) / scale
    return jnp.where(z >= 0, -z - jnp.log(scale), -jnp.inf)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, loc, scale, 0.0))
    x = x + zero
    loc = loc + zero
    scale = scale + zero
    z = (x - loc) / scale
    inside = z >= 0
    return jnp.where(inside, -jnp.expm1(-jnp.where(inside, z, 0.0)), 0.0)


def logcdf(x, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, loc, scale, 0.0))
    x = x + zero
    loc = loc + zero
    scale = scale + zero
    return jnp.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, loc, scale, 0.0))
    x = x + zero
    loc = loc + zero
    scale = scale + zero
    z = (x - loc) / scale
    inside = z >= 0
    return jnp.where(inside, jnp.exp(-jnp.where(inside, z, 0.0)), 1.0)


def logsf(x, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, loc, scale, 0.0))
    x = x + zero
    loc = loc + zero
    scale = scale + zero
    z = (x - loc) / scale
    return jnp.where(z >= 0, -z, 0.0)


def ppf(q, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(q), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(q, loc, scale, 0.0))
    q = q + zero
    loc = loc + zero
    scale = scale + zero
    return loc - scale * jnp.log1p(-q)
