"""The normal distribution, as jax.scipy.stats.norm: written from ndtr, log_ndtr and ndtri."""
import astjax.numpy as jnp
from .. import special
from ...numpy._dtypes import inexact_zero

_HALF_LOG_2PI = 0.9189385332046727


def logpdf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    z = (x - loc) / scale
    return -0.5 * z * z - jnp.log(scale) - _HALF_LOG_2PI


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    return special.ndtr((x - loc) / scale)


def logcdf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    return special.log_ndtr((x - loc) / scale)


def sf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    return special.ndtr((loc - x) / scale)


def logsf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    return special.log_ndtr((loc - x) / scale)


def ppf(q, loc=0, scale=1):
    zero = inexact_zero((q, loc, scale))     # JAX's promote_args_inexact
    q, loc, scale = q + zero, loc + zero, scale + zero
    return loc + scale * special.ndtri(q)


def isf(q, loc=0, scale=1):
    zero = inexact_zero((q, loc, scale))     # JAX's promote_args_inexact
    q, loc, scale = q + zero, loc + zero, scale + zero
    return loc - scale * special.ndtri(q)
