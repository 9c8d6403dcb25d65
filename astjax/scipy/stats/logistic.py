"""The logistic distribution, as jax.scipy.stats.logistic: written from expit, log_expit and logit."""
import astjax.numpy as jnp
from .. import special
from ...numpy._dtypes import inexact_zero


def logpdf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    z = (x - loc) / scale
    return special.log_expit(z) + special.log_expit(-z) - jnp.log(scale)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    return special.expit((x - loc) / scale)


def logcdf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    return special.log_expit((x - loc) / scale)


def sf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    return special.expit((loc - x) / scale)


def logsf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    return special.log_expit((loc - x) / scale)


def ppf(q, loc=0, scale=1):
    zero = inexact_zero((q, loc, scale))     # JAX's promote_args_inexact
    q, loc, scale = q + zero, loc + zero, scale + zero
    return loc + scale * special.logit(q)


def isf(q, loc=0, scale=1):
    zero = inexact_zero((q, loc, scale))     # JAX's promote_args_inexact
    q, loc, scale = q + zero, loc + zero, scale + zero
    return loc - scale * special.logit(q)
