"""The negative binomial distribution, as jax.scipy.stats.nbinom (logpmf, pmf): k failures before the
n-th success with success probability p."""
import astjax.numpy as jnp
from .. import special


def logpmf(k, n, p, loc=0):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(k), jnp.shape(n), jnp.shape(p), jnp.shape(loc)),
                     dtype=jnp.result_type(k, n, p, loc, 0.0))
    k = k + zero
    n = n + zero
    p = p + zero
    loc = loc + zero
    inside = k >= loc
    y = jnp.where(inside, k - loc, 0.0)
    comb = special.gammaln(y + n) - special.gammaln(n) - special.gammaln(y + 1.0)
    return jnp.where(inside, comb + special.xlogy(n, p) + special.xlogy(y, 1.0 - p), -jnp.inf)


def pmf(k, n, p, loc=0):
    return jnp.exp(logpmf(k, n, p, loc))
