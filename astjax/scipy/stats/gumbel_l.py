"""The left-skewed Gumbel distribution, as jax.scipy.stats.gumbel_l: z = (x - loc) / scale,
logpdf = -log(scale) + z - exp(z) (gumbel_r mirrored). Written from primitives; nan where scale <= 0."""
import astjax.numpy as jnp
from ...numpy._dtypes import inexact_zero


def logpdf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    z = (x - loc) / scale
    return jnp.where(scale > 0, -jnp.log(jnp.abs(scale)) + z - jnp.exp(z), jnp.nan)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    return jnp.where(scale > 0, jnp.log(-jnp.expm1(-jnp.exp((x - loc) / scale))), jnp.nan)


def cdf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    return jnp.where(scale > 0, -jnp.expm1(-jnp.exp((x - loc) / scale)), jnp.nan)


def logsf(x, loc=0, scale=1):
    zero = inexact_zero((x, loc, scale))     # JAX's promote_args_inexact
    x, loc, scale = x + zero, loc + zero, scale + zero
    return jnp.where(scale > 0, -jnp.exp((x - loc) / scale), jnp.nan)


def sf(x, loc=0, scale=1):
    return jnp.exp(logsf(x, loc, scale))


def ppf(p, loc=0, scale=1):
    zero = inexact_zero((p, loc, scale))     # JAX's promote_args_inexact
    p, loc, scale = p + zero, loc + zero, scale + zero
    ok = jnp.logical_and(p > 0, p < 1)
    safe = jnp.where(ok, p, 0.5)
    return jnp.where(ok, loc + scale * jnp.log(-jnp.log1p(-safe)), jnp.nan)
