"""The normal distribution, as jax.scipy.stats.norm: written from ndtr, log_ndtr and ndtri."""
import astjax.numpy as jnp
from .. import special

_HALF_LOG_2PI = 0.9189385332046727


def logpdf(x, loc=0, scale=1):
    z = (x - loc) / scale
    return -0.5 * z * z - jnp.log(scale) - _HALF_LOG_2PI


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    return special.ndtr((x - loc) / scale)


def logcdf(x, loc=0, scale=1):
    return special.log_ndtr((x - loc) / scale)


def sf(x, loc=0, scale=1):
    return special.ndtr((loc - x) / scale)


def logsf(x, loc=0, scale=1):
    return special.log_ndtr((loc - x) / scale)


def ppf(q, loc=0, scale=1):
    return loc + scale * special.ndtri(q)


def isf(q, loc=0, scale=1):
    return loc - scale * special.ndtri(q)
