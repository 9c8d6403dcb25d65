"""The logistic distribution, as jax.scipy.stats.logistic: written from expit, log_expit and logit."""
import astjax.numpy as jnp
from .. import special


def logpdf(x, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, loc, scale, 0.0))
    x = x + zero
    loc = loc + zero
    scale = scale + zero
    z = (x - loc) / scale
    return special.log_expit(z) + special.log_expit(-z) - jnp.log(scale)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, loc, scale, 0.0))
    x = x + zero
    loc = loc + zero
    scale = scale + zero
    return special.expit((x - loc) / scale)


def logcdf(x, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, loc, scale, 0.0))
    x = x + zero
    loc = loc + zero
    scale = scale + zero
    return special.log_expit((x - loc) / scale)


def sf(x, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, loc, scale, 0.0))
    x = x + zero
    loc = loc + zero
    scale = scale + zero
    return special.expit((loc - x) / scale)


def logsf(x, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, loc, scale, 0.0))
    x = x + zero
    loc = loc + zero
    scale = scale + zero
    return special.log_expit((loc - x) / scale)


def ppf(q, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(q), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(q, loc, scale, 0.0))
    q = q + zero
    loc = loc + zero
    scale = scale + zero
    return loc + scale * special.logit(q)


def isf(q, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(q), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(q, loc, scale, 0.0))
    q = q + zero
    loc = loc + zero
    scale = scale + zero
    return loc - scale * special.logit(q)
