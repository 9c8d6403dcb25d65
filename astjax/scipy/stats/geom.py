"""The geometric distribution on k = 1, 2, ..., as jax.scipy.stats.geom: logpmf = (k - 1) log(1 - p) + log p."""
import astjax.numpy as jnp
from .. import special


def logpmf(k, p, loc=0):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(k), jnp.shape(p), jnp.shape(loc)),
                     dtype=jnp.result_type(k, p, loc, 0.0))
    k = k + zero
    p = p + zero
    loc = loc + zero
    x = k - loc
    inside = x > 0
    xs = jnp.where(inside, x, 1.0)
    return jnp.where(inside, special.xlog1py(xs - 1.0, -p) + jnp.log(p), -jnp.inf)


def pmf(k, p, loc=0):
    return jnp.exp(logpmf(k, p, loc))
