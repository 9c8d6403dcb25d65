"""The negative binomial distribution, as jax.scipy.stats.nbinom (logpmf, pmf): k failures before the
n-th success with success probability p."""
import astjax.numpy as jnp
from .. import special
from ...numpy._dtypes import inexact_zero


def logpmf(k, n, p, loc=0):
    zero = inexact_zero((k, n, p, loc))     # JAX's promote_args_inexact
    k, n, p, loc = k + zero, n + zero, p + zero, loc + zero
    inside = k >= loc
    y = jnp.where(inside, k - loc, 0.0)
    comb = special.gammaln(y + n) - special.gammaln(n) - special.gammaln(y + 1.0)
    return jnp.where(inside, comb + special.xlogy(n, p) + special.xlogy(y, 1.0 - p), -jnp.inf)


def pmf(k, n, p, loc=0):
    return jnp.exp(logpmf(k, n, p, loc))
