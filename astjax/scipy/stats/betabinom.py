"""The beta-binomial distribution, as jax.scipy.stats.betabinom (logpmf, pmf): -log1p(n) -
betaln(n - y + 1, y + 1) + betaln(y + a, n - y + b) - betaln(a, b); nan for n < 0, a <= 0 or b <= 0."""
import astjax.numpy as jnp
from .. import special


def logpmf(k, n, a, b, loc=0):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(k), jnp.shape(n), jnp.shape(a), jnp.shape(b), jnp.shape(loc)),
                     dtype=jnp.result_type(k, n, a, b, loc, 0.0))
    k = k + zero
    n = n + zero
    a = a + zero
    b = b + zero
    loc = loc + zero
    y = jnp.floor(k) - loc
    outside = jnp.logical_or(jnp.logical_or(y < -loc, y > n), y + a <= 0)
    ys = jnp.where(outside, 0.0, y)
    comb = -(jnp.log1p(n) + special.betaln(n - ys + 1.0, ys + 1.0))
    log_probs = comb + special.betaln(ys + a, n - ys + b) - special.betaln(a, b)
    log_probs = jnp.where(jnp.logical_and(ys == 0, n == 0), 0.0, log_probs)
    log_probs = jnp.where(outside, -jnp.inf, log_probs)
    return jnp.where(jnp.logical_or(jnp.logical_or(n < 0, a <= 0), b <= 0), jnp.nan, log_probs)


def pmf(k, n, a, b, loc=0):
    return jnp.exp(logpmf(k, n, a, b, loc))
