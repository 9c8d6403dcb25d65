"""The wrapped Cauchy distribution on [0, 2 pi], as jax.scipy.stats.wrapcauchy:
logpdf = log(1 - c^2) - log(2 pi) - log(1 + c^2 - 2 c cos x); nan unless 0 < c < 1."""
import astjax.numpy as jnp
from ...numpy._dtypes import inexact_zero

_LOG_2PI = 1.8378770664093453


def logpdf(x, c):
    zero = inexact_zero((x, c))     # JAX's promote_args_inexact
    x, c = x + zero, c + zero
    ok = jnp.logical_and(c > 0, c < 1)
    cs = jnp.where(ok, c, 0.5)
    inside = jnp.logical_and(x >= 0, x <= 2.0 * jnp.pi)
    value = jnp.log(1.0 - cs * cs) - _LOG_2PI - jnp.log(1.0 + cs * cs - 2.0 * cs * jnp.cos(x))
    return jnp.where(ok, jnp.where(inside, value, -jnp.inf), jnp.nan)


def pdf(x, c):
    return jnp.exp(logpdf(x, c))
