"""The Pareto distribution, as jax.scipy.stats.pareto: support x >= loc + scale, logpdf =
log(b / scale) - (b + 1) log((x - loc) / scale). Written from primitives; below the support the
logs read a safe value, so the derivative there is 0, not nan (the support test is written in each
function: a boolean returned by a helper would count as depending on the differentiated input)."""
import astjax.numpy as jnp
from ...numpy._dtypes import inexact_zero


def logpdf(x, b, loc=0, scale=1):
    zero = inexact_zero((x, b, loc, scale))     # JAX's promote_args_inexact
    x, b, loc, scale = x + zero, b + zero, loc + zero, scale + zero
    inside = x >= loc + scale
    y = jnp.where(inside, (x - loc) / scale, 1.0)
    scale = scale + jnp.zeros_like(y)
    return jnp.where(inside, jnp.log(b / scale) - (b + 1.0) * jnp.log(y), -jnp.inf)


def pdf(x, b, loc=0, scale=1):
    return jnp.exp(logpdf(x, b, loc, scale))


def cdf(x, b, loc=0, scale=1):
    zero = inexact_zero((x, b, loc, scale))     # JAX's promote_args_inexact
    x, b, loc, scale = x + zero, b + zero, loc + zero, scale + zero
    inside = x >= loc + scale
    y = jnp.where(inside, (x - loc) / scale, 1.0)
    return jnp.where(inside, 1.0 - y ** -b, 0.0)


def logcdf(x, b, loc=0, scale=1):
    zero = inexact_zero((x, b, loc, scale))     # JAX's promote_args_inexact
    x, b, loc, scale = x + zero, b + zero, loc + zero, scale + zero
    inside = x >= loc + scale
    y = jnp.where(inside, (x - loc) / scale, 1.0)
    return jnp.where(inside, jnp.log1p(-(y ** -b)), -jnp.inf)


def logsf(x, b, loc=0, scale=1):
    zero = inexact_zero((x, b, loc, scale))     # JAX's promote_args_inexact
    x, b, loc, scale = x + zero, b + zero, loc + zero, scale + zero
    inside = x >= loc + scale
    y = jnp.where(inside, (x - loc) / scale, 1.0)
    return jnp.where(inside, -b * jnp.log(y), 0.0)


def sf(x, b, loc=0, scale=1):
    return jnp.exp(logsf(x, b, loc, scale))


def ppf(q, b, loc=0, scale=1):
    zero = inexact_zero((q, b, loc, scale))     # JAX's promote_args_inexact
    q, b, loc, scale = q + zero, b + zero, loc + zero, scale + zero
    ok = jnp.logical_and(q >= 0, q <= 1)
    safe = jnp.where(ok, q, 0.5)
    return jnp.where(ok, loc + scale * (1.0 - safe) ** (-1.0 / b), jnp.nan)
