"""The chi-squared distribution, as jax.scipy.stats.chi2. The cdf family is differentiable in x only."""
import astjax.numpy as jnp
from .. import special
from ...numpy._dtypes import inexact_zero

_LOG_2 = 0.6931471805599453


def logpdf(x, df, loc=0, scale=1):
    zero = inexact_zero((x, df, loc, scale))     # JAX's promote_args_inexact
    x, df, loc, scale = x + zero, df + zero, loc + zero, scale + zero
    y = (x - loc) / scale
    inside = y >= 0
    ys = jnp.where(inside, y, 1.0)
    k = 0.5 * df
    value = special.xlogy(k - 1.0, ys) - 0.5 * ys - special.gammaln(k) - k * _LOG_2 - jnp.log(scale)
    return jnp.where(inside, value, -jnp.inf)


def pdf(x, df, loc=0, scale=1):
    return jnp.exp(logpdf(x, df, loc, scale))


def cdf(x, df, loc=0, scale=1):
    zero = inexact_zero((x, df, loc, scale))     # JAX's promote_args_inexact
    x, df, loc, scale = x + zero, df + zero, loc + zero, scale + zero
    return special.gammainc(0.5 * df, 0.5 * _nonnegative((x - loc) / scale))


def logcdf(x, df, loc=0, scale=1):
    zero = inexact_zero((x, df, loc, scale))     # JAX's promote_args_inexact
    x, df, loc, scale = x + zero, df + zero, loc + zero, scale + zero
    return jnp.log(cdf(x, df, loc, scale))


def sf(x, df, loc=0, scale=1):
    zero = inexact_zero((x, df, loc, scale))     # JAX's promote_args_inexact
    x, df, loc, scale = x + zero, df + zero, loc + zero, scale + zero
    return special.gammaincc(0.5 * df, 0.5 * _nonnegative((x - loc) / scale))


def logsf(x, df, loc=0, scale=1):
    zero = inexact_zero((x, df, loc, scale))     # JAX's promote_args_inexact
    x, df, loc, scale = x + zero, df + zero, loc + zero, scale + zero
    return jnp.log(sf(x, df, loc, scale))


def _nonnegative(y):
    """max(y, 0), with y's own slope at 0 (the cdf's right derivative there)."""
    return jnp.where(y >= 0, y, 0.0)
