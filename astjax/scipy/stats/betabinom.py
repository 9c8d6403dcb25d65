"""The beta-binomial distribution, as jax.scipy.stats.betabinom (logpmf, pmf): -log1p(n) -
betaln(n - y + 1, y + 1) + betaln(y + a, n - y + b) - betaln(a, b); nan for n < 0, a <= 0 or b <= 0."""
import astjax.numpy as jnp
from .. import special
from ...numpy._dtypes import inexact_zero


def logpmf(k, n, a, b, loc=0):
    zero = inexact_zero((k, n, a, b, loc))     # JAX's promote_args_inexact
    k, n, a, b, loc = k + zero, n + zero, a + zero, b + zero, loc + zero
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
