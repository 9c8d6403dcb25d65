"""The Gamma distribution, as jax.scipy.stats.gamma. The cdf family is differentiable in x only (gammainc)."""
import astjax.numpy as jnp
from .. import special
from ...numpy._dtypes import inexact_zero


def logpdf(x, a, loc=0, scale=1):
    zero = inexact_zero((x, a, loc, scale))     # JAX's promote_args_inexact
    x, a, loc, scale = x + zero, a + zero, loc + zero, scale + zero
    y = (x - loc) / scale
    inside = y >= 0
    ys = jnp.where(inside, y, 1.0)
    value = special.xlogy(a - 1.0, ys) - ys - special.gammaln(a) - jnp.log(scale)
    return jnp.where(inside, value, -jnp.inf)


def pdf(x, a, loc=0, scale=1):
    return jnp.exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0, scale=1):
    zero = inexact_zero((x, a, loc, scale))     # JAX's promote_args_inexact
    x, a, loc, scale = x + zero, a + zero, loc + zero, scale + zero
    return special.gammainc(a, _nonnegative((x - loc) / scale))


def logcdf(x, a, loc=0, scale=1):
    zero = inexact_zero((x, a, loc, scale))     # JAX's promote_args_inexact
    x, a, loc, scale = x + zero, a + zero, loc + zero, scale + zero
    return jnp.log(cdf(x, a, loc, scale))


def sf(x, a, loc=0, scale=1):
    zero = inexact_zero((x, a, loc, scale))     # JAX's promote_args_inexact
    x, a, loc, scale = x + zero, a + zero, loc + zero, scale + zero
    return special.gammaincc(a, _nonnegative((x - loc) / scale))


def logsf(x, a, loc=0, scale=1):
    zero = inexact_zero((x, a, loc, scale))     # JAX's promote_args_inexact
    x, a, loc, scale = x + zero, a + zero, loc + zero, scale + zero
    return jnp.log(sf(x, a, loc, scale))


def _nonnegative(y):
    """max(y, 0), with y's own slope at 0 (the cdf's right derivative there)."""
    return jnp.where(y >= 0, y, 0.0)
