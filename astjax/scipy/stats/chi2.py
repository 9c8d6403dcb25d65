"""The chi-squared distribution, as jax.scipy.stats.chi2. The cdf family is differentiable in x only."""
import astjax.numpy as jnp
from .. import special

_LOG_2 = 0.6931471805599453


def logpdf(x, df, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(df), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, df, loc, scale, 0.0))
    x = x + zero
    df = df + zero
    loc = loc + zero
    scale = scale + zero
    y = (x - loc) / scale
    inside = y >= 0
    ys = jnp.where(inside, y, 1.0)
    k = 0.5 * df
    value = special.xlogy(k - 1.0, ys) - 0.5 * ys - special.gammaln(k) - k * _LOG_2 - jnp.log(scale)
    return jnp.where(inside, value, -jnp.inf)


def pdf(x, df, loc=0, scale=1):
    return jnp.exp(logpdf(x, df, loc, scale))


def cdf(x, df, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(df), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, df, loc, scale, 0.0))
    x = x + zero
    df = df + zero
    loc = loc + zero
    scale = scale + zero
    return special.gammainc(0.5 * df, 0.5 * _nonnegative((x - loc) / scale))


def logcdf(x, df, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(df), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, df, loc, scale, 0.0))
    x = x + zero
    df = df + zero
    loc = loc + zero
    scale = scale + zero
    return jnp.log(cdf(x, df, loc, scale))


def sf(x, df, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(df), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, df, loc, scale, 0.0))
    x = x + zero
    df = df + zero
    loc = loc + zero
    scale = scale + zero
    return special.gammaincc(0.5 * df, 0.5 * _nonnegative((x - loc) / scale))


def logsf(x, df, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(df), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, df, loc, scale, 0.0))
    x = x + zero
    df = df + zero
    loc = loc + zero
    scale = scale + zero
    return jnp.log(sf(x, df, loc, scale))


def _nonnegative(y):
    """max(y, 0), with y's own slope at 0 (the cdf's right derivative there)."""
    return jnp.where(y >= 0, y, 0.0)
