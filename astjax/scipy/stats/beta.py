"""The Beta distribution, as jax.scipy.stats.beta. The cdf family is differentiable in x only (betainc)."""
import astjax.numpy as jnp
from .. import special


def logpdf(x, a, b, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(a), jnp.shape(b), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, a, b, loc, scale, 0.0))
    x = x + zero
    a = a + zero
    b = b + zero
    loc = loc + zero
    scale = scale + zero
    y = (x - loc) / scale
    inside = jnp.logical_and(y >= 0, y <= 1)
    ys = jnp.where(inside, y, 0.5)
    value = special.xlogy(a - 1.0, ys) + special.xlog1py(b - 1.0, -ys) - special.betaln(a, b) - jnp.log(scale)
    return jnp.where(inside, value, -jnp.inf)


def pdf(x, a, b, loc=0, scale=1):
    return jnp.exp(logpdf(x, a, b, loc, scale))


def cdf(x, a, b, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(a), jnp.shape(b), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, a, b, loc, scale, 0.0))
    x = x + zero
    a = a + zero
    b = b + zero
    loc = loc + zero
    scale = scale + zero
    return special.betainc(a, b, _unit((x - loc) / scale))


def logcdf(x, a, b, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(a), jnp.shape(b), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, a, b, loc, scale, 0.0))
    x = x + zero
    a = a + zero
    b = b + zero
    loc = loc + zero
    scale = scale + zero
    return jnp.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(a), jnp.shape(b), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, a, b, loc, scale, 0.0))
    x = x + zero
    a = a + zero
    b = b + zero
    loc = loc + zero
    scale = scale + zero
    return special.betainc(b, a, 1 - _unit((x - loc) / scale))


def logsf(x, a, b, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(a), jnp.shape(b), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, a, b, loc, scale, 0.0))
    x = x + zero
    a = a + zero
    b = b + zero
    loc = loc + zero
    scale = scale + zero
    return jnp.log(sf(x, a, b, loc, scale))


def _unit(y):
    """y clipped to [0, 1], with y's own slope at the ends (the cdf's one-sided derivative there)."""
    return jnp.where(y < 0, 0.0, jnp.where(y > 1, 1.0, y))
