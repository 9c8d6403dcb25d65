"""The geometric distribution on k = 1, 2, ..., as jax.scipy.stats.geom: logpmf = (k - 1) log(1 - p) + log p."""
import astjax.numpy as jnp
from .. import special
from ...numpy._dtypes import inexact_zero


def logpmf(k, p, loc=0):
    zero = inexact_zero((k, p, loc))     # JAX's promote_args_inexact
    k, p, loc = k + zero, p + zero, loc + zero
    x = k - loc
    inside = x > 0
    xs = jnp.where(inside, x, 1.0)
    return jnp.where(inside, special.xlog1py(xs - 1.0, -p) + jnp.log(p), -jnp.inf)


def pmf(k, p, loc=0):
    return jnp.exp(logpmf(k, p, loc))
