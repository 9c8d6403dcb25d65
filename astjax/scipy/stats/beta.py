"""The Beta distribution, as jax.scipy.stats.beta. The cdf family is differentiable in x only (betainc)."""
import astjax.numpy as jnp
from .. import special
from ...numpy._dtypes import inexact_zero


def logpdf(x, a, b, loc=0, scale=1):
    zero = inexact_zero((x, a, b, loc, scale))     # JAX's promote_args_inexact
    x, a, b, loc, scale = x + zero, a + zero, b + zero, loc + zero, scale + zero
    y = (x - loc) / scale
    inside = jnp.logical_and(y >= 0, y <= 1)
    ys = jnp.where(inside, y, 0.5)
    value = special.xlogy(a - 1.0, ys) + special.xlog1py(b - 1.0, -ys) - special.betaln(a, b) - jnp.log(scale)
    return jnp.where(inside, value, -jnp.inf)


def pdf(x, a, b, loc=0, scale=1):
    return jnp.exp(logpdf(x, a, b, loc, scale))


def cdf(x, a, b, loc=0, scale=1):
    zero = inexact_zero((x, a, b, loc, scale))     # JAX's promote_args_inexact
    x, a, b, loc, scale = x + zero, a + zero, b + zero, loc + zero, scale + zero
    return special.betainc(a, b, _unit((x - loc) / scale))


def logcdf(x, a, b, loc=0, scale=1):
    zero = inexact_zero((x, a, b, loc, scale))     # JAX's promote_args_inexact
    x, a, b, loc, scale = x + zero, a + zero, b + zero, loc + zero, scale + zero
    return jnp.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
    zero = inexact_zero((x, a, b, loc, scale))     # JAX's promote_args_inexact
    x, a, b, loc, scale = x + zero, a + zero, b + zero, loc + zero, scale + zero
    return special.betainc(b, a, 1 - _unit((x - loc) / scale))


def logsf(x, a, b, loc=0, scale=1):
    zero = inexact_zero((x, a, b, loc, scale))     # JAX's promote_args_inexact
    x, a, b, loc, scale = x + zero, a + zero, b + zero, loc + zero, scale + zero
    return jnp.log(sf(x, a, b, loc, scale))


def _unit(y):
    """y clipped to [0, 1], with y's own slope at the ends (the cdf's one-sided derivative there)."""
    return jnp.where(y < 0, 0.0, jnp.where(y > 1, 1.0, y))
