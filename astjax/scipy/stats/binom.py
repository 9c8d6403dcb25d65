"""The binomial distribution, as jax.scipy.stats.binom (logpmf, pmf): differentiable in p (and n, k
through gammaln, as JAX's formula)."""
import astjax.numpy as jnp
from .. import special
from ...numpy._dtypes import inexact_zero


def logpmf(k, n, p, loc=0):
    zero = inexact_zero((k, n, p, loc))     # JAX's promote_args_inexact
    k, n, p, loc = k + zero, n + zero, p + zero, loc + zero
    y = k - loc
    inside = jnp.logical_and(k >= loc, k < loc + n + 1)
    ys = jnp.where(inside, y, 0.0)
    comb = special.gammaln(n + 1.0) - (special.gammaln(ys + 1.0) + special.gammaln(n - ys + 1.0))
    linear = special.xlogy(ys, p) + special.xlog1py(n - ys, -p)
    log_probs = jnp.where(jnp.logical_or(jnp.logical_and(ys == 0, n == 0), linear == 0), 0.0, comb + linear)
    return jnp.where(inside, log_probs, -jnp.inf)


def pmf(k, n, p, loc=0):
    return jnp.exp(logpmf(k, n, p, loc))
