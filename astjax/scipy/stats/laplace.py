"""The Laplace distribution, as jax.scipy.stats.laplace (logpdf, pdf, cdf). Slope 0 at the kink x == loc."""
import astjax.numpy as jnp
from ...numpy._dtypes import inexact_zero

_LOG_2 = 0.6931471805599453


def logpdf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    return -_LOG_2 - jnp.log(scale) - jnp.abs(x - loc) / scale


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    z = (x - loc) / scale
    below = z < 0
    return jnp.where(below, 0.5 * jnp.exp(jnp.where(below, z, 0.0)), 1.0 - 0.5 * jnp.exp(-jnp.where(below, 0.0, z)))
