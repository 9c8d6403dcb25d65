"""The Laplace distribution, as jax.scipy.stats.laplace (logpdf, pdf, cdf). Slope 0 at the kink x == loc."""
import astjax.numpy as jnp

_LOG_2 = 0.6931471805599453


def logpdf(x, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, loc, scale, 0.0))
    x = x + zero
    loc = loc + zero
    scale = scale + zero
    return -_LOG_2 - jnp.log(scale) - jnp.abs(x - loc) / scale


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
    below = z < 0
    return jnp.where(below, 0.5 * jnp.exp(jnp.where(below, z, 0.0)), 1.0 - 0.5 * jnp.exp(-jnp.where(below, 0.0, z)))
