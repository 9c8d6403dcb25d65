"""The Cauchy distribution, as jax.scipy.stats.cauchy."""
import astjax.numpy as jnp
from ...numpy._dtypes import inexact_zero

_LOG_PI = 1.1447298858494002
_PI = 3.141592653589793


def logpdf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    z = (x - loc) / scale
    return -_LOG_PI - jnp.log(scale) - jnp.log1p(z * z)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    return 0.5 + jnp.arctan((x - loc) / scale) / _PI


def logcdf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    return jnp.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    return 0.5 - jnp.arctan((x - loc) / scale) / _PI


def logsf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    return jnp.log(sf(x, loc, scale))


def ppf(q, loc=0, scale=1):
    zero = inexact_zero((q, loc, scale))     # JAX's promote_args_inexact
    q, loc, scale = q + zero, loc + zero, scale + zero
    return loc + scale * jnp.tan(_PI * (q - 0.5))


def isf(q, loc=0, scale=1):
    zero = inexact_zero((q, loc, scale))     # JAX's promote_args_inexact
    q, loc, scale = q + zero, loc + zero, scale + zero
    return loc - scale * jnp.tan(_PI * (q - 0.5))
