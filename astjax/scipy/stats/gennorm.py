"""The generalized normal distribution, as jax.scipy.stats.gennorm: logpdf = log(beta / 2) -
gammaln(1 / beta) - |x|^beta; the cdf is differentiable in x only (gammainc's shape is a constant)."""
import astjax.numpy as jnp
from .. import special


def logpdf(x, beta):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(beta)), dtype=jnp.result_type(x, beta, 0.0))
    x = x + zero
    beta = beta + zero
    return jnp.log(0.5 * beta) - special.gammaln(1.0 / beta) - jnp.abs(x) ** beta


def pdf(x, beta):
    return jnp.exp(logpdf(x, beta))


def cdf(x, beta):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(beta)), dtype=jnp.result_type(x, beta, 0.0))
    x = x + zero
    beta = beta + zero
    return 0.5 * (1.0 + jnp.sign(x) * special.gammainc(1.0 / beta, jnp.abs(x) ** beta))
