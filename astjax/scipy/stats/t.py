"""Student's t distribution, as jax.scipy.stats.t (logpdf, pdf)."""
import astjax.numpy as jnp
from .. import special

_LOG_PI = 1.1447298858494002


def logpdf(x, df, loc=0, scale=1):
    z = (x - loc) / scale
    return (special.gammaln(0.5 * (df + 1.0)) - special.gammaln(0.5 * df) - 0.5 * (jnp.log(df) + _LOG_PI)
            - jnp.log(scale) - 0.5 * (df + 1.0) * jnp.log1p(z * z / df))


def pdf(x, df, loc=0, scale=1):
    return jnp.exp(logpdf(x, df, loc, scale))
