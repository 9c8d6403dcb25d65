"""The normal distribution, as jax.scipy.stats.norm: written from ndtr, log_ndtr and ndtri."""
import astjax.numpy as jnp
from .. import special

_HALF_LOG_2PI = 0.9189385332046727


def logpdf(x, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, loc, scale, 0.0))
    x = x + zero
    loc = loc + zero
    scale = scale + zero
    z = (x - loc) / scale
    return -0.5 * z * z - jnp.log(scale) - _HALF_LOG_2PI


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, loc, scale, 0.0))
    x = x + zero
    loc = loc + zero
    scale = scale + zero
    return special.ndtr((x - loc) / scale)


def logcdf(x, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, loc, scale, 0.0))
    x = x + zero
    loc = loc + zero
    scale = scale + zero
    return special.log_ndtr((x - loc) / scale)


def sf(x, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, loc, scale, 0.0))
    x = x + zero
    loc = loc + zero
    scale = scale + zero
    return special.ndtr((loc - x) / scale)


def logsf(x, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, loc, scale, 0.0))
    x = x + zero
    loc = loc + zero
    scale = scale + zero
    return special.log_ndtr((loc - x) / scale)


def ppf(q, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(q), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(q, loc, scale, 0.0))
    q = q + zero
    loc = loc + zero
    scale = scale + zero
    return loc + scale * special.ndtri(q)


def isf(q, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(q), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(q, loc, scale, 0.0))
    q = q + zero
    loc = loc + zero
    scale = scale + zero
    return loc - scale * special.ndtri(q)
