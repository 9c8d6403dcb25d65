"""The Dirichlet distribution, as jax.scipy.stats.dirichlet (logpdf, pdf).

`x` has the K categories on axis 0 (shape (K, ...)), `alpha` shape (K,); a point
off the simplex has log density -inf.
"""
import astjax.numpy as jnp
from .. import special


def logpdf(x, alpha):
    if jnp.ndim(alpha) != 1 or jnp.shape(x)[0] != jnp.shape(alpha)[0]:
        raise ValueError("dirichlet.logpdf: x must have shape (K, ...) for alpha of shape (K,)")
    a = jnp.reshape(alpha, (-1,) + (1,) * (jnp.ndim(x) - 1))
    on_simplex = jnp.logical_and(jnp.all(x >= 0, axis=0), jnp.isclose(jnp.sum(x, axis=0), 1.0))
    value = (jnp.sum(special.xlogy(a - 1.0, x), axis=0)
             + special.gammaln(jnp.sum(alpha)) - jnp.sum(special.gammaln(alpha)))
    return jnp.where(on_simplex, value, -jnp.inf)


def pdf(x, alpha):
    return jnp.exp(logpdf(x, alpha))
