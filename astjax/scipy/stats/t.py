"""Student's t distribution, as jax.scipy.stats.t (logpdf, pdf)."""
import astjax.numpy as jnp
from .. import special

_LOG_PI = 1.1447298858494002


def logpdf(x, df, loc=0, scale=1):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(df), jnp.shape(loc), jnp.shape(scale)),
                     dtype=jnp.result_type(x, df, loc, scale, 0.0))
    x = x + zero
    df = df + zero
    loc = loc + zero
    scale = scale + zero
    z = (x - loc) / scale
    return (special.gammaln(0.5 * (df + 1.0)) - special.gammaln(0.5 * df) - 0.5 * (jnp.log(df) + _LOG_PI)
            - jnp.log(scale) - 0.5 * (df + 1.0) * jnp.log1p(z * z / df))


def pdf(x, df, loc=0, scale=1):
    return jnp.exp(logpdf(x, df, loc, scale))
