"""The Cauchy distribution, as jax.scipy.stats.cauchy."""
import astjax.numpy as jnp

_LOG_PI = 1.1447298858494002
_PI = 3.141592653589793


def logpdf(x, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, loc, scale, 0.0))
    x = x + zero
    loc = loc + zero
    scale = scale + zero
    z = (x - loc) / scale
    return -_LOG_PI - jnp.log(scale) - jnp.log1p(z * z)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, loc, scale, 0.0))
    x = x + zero
    loc = loc + zero
    scale = scale + zero
    return 0.5 + jnp.arctan((x - loc) / scale) / _PI


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
    return 0.5 - jnp.arctan((x - loc) / scale) / _PI


def logsf(x, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, loc, scale, 0.0))
    x = x + zero
    loc = loc + zero
    scale = scale + zero
    return jnp.log(sf(x, loc, scale))


def ppf(q, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(q), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(q, loc, scale, 0.0))
    q = q + zero
    loc = loc + zero
    scale = scale + zero
    return loc + scale * jnp.tan(_PI * (q - 0.5))


def isf(q, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(q), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(q, loc, scale, 0.0))
    q = q + zero
    loc = loc + zero
    scale = scale + zero
    return loc - scale * jnp.tan(_PI * (q - 0.5))
