"""The generalized normal distribution, as jax.scipy.stats.gennorm: logpdf = log(beta / 2) -
gammaln(1 / beta) - |x|^beta; the cdf is differentiable in x only (gammainc's shape is a constant)."""
import astjax.numpy as jnp
from .. import special
from ...numpy._dtypes import inexact_zero


def logpdf(x, beta):
    zero = inexact_zero((x, beta))     # JAX's promote_args_inexact
    x, beta = x + zero, beta + zero
    return jnp.log(0.5 * beta) - special.gammaln(1.0 / beta) - jnp.abs(x) ** beta


def pdf(x, beta):
    return jnp.exp(logpdf(x, beta))


def cdf(x, beta):
    zero = inexact_zero((x, beta))     # JAX's promote_args_inexact
    x, beta = x + zero, beta + zero
    return 0.5 * (1.0 + jnp.sign(x) * special.gammainc(1.0 / beta, jnp.abs(x) ** beta))
