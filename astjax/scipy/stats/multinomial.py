"""The multinomial distribution, as jax.scipy.stats.multinomial (logpmf, pmf): counts x over the last
axis, n trials, probabilities p; -inf unless the counts sum to n (JAX sums all of x, as here)."""
import astjax.numpy as jnp
from .. import special


def logpmf(x, n, p):
    n = n + jnp.zeros((), dtype=jnp.result_type(p, 0.0))     # a Python n is read in p's dtype
    logprobs = special.gammaln(n + 1.0) + jnp.sum(special.xlogy(x, p) - special.gammaln(x + 1.0), axis=-1)
    return jnp.where(jnp.sum(x) == n, logprobs, -jnp.inf)


def pmf(x, n, p):
    return jnp.exp(logpmf(x, n, p))
