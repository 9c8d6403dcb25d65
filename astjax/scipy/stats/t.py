"""Student's t distribution, as jax.scipy.stats.t (logpdf, pdf)."""
import astjax.numpy as jnp
from .. import special
from ...numpy._dtypes import inexact_zero

_LOG_PI = 1.1447298858494002


def logpdf(x, df, loc=0, scale=1):
    zero = inexact_zero((x, df, loc, scale))     # JAX's promote_args_inexact
    x, df, loc, scale = x + zero, df + zero, loc + zero, scale + zero
    z = (x - loc) / scale
    return (special.gammaln(0.5 * (df + 1.0)) - special.gammaln(0.5 * df) - 0.5 * (jnp.log(df) + _LOG_PI)
            - jnp.log(scale) - 0.5 * (df + 1.0) * jnp.log1p(z * z / df))


def pdf(x, df, loc=0, scale=1):
    return jnp.exp(logpdf(x, df, loc, scale))
