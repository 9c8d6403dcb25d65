"""The von Mises distribution, as jax.scipy.stats.vonmises: logpdf = kappa (cos x - 1) - log(2 pi i0e(kappa))
(i0e keeps large kappa finite); nan for kappa <= 0."""
import astjax.numpy as jnp
from .. import special

_LOG_2PI = 1.8378770664093453


def logpdf(x, kappa):
    # JAX's promote_args_inexact: one inexact dtype (a Python number is weak), one shape
    zero = jnp.zeros(jnp.broadcast_shapes(jnp.shape(x), jnp.shape(kappa)),
                     dtype=jnp.result_type(x, kappa, 0.0))
    x = x + zero
    kappa = kappa + zero
    ok = kappa > 0
    k = jnp.where(ok, kappa, 1.0)
    return jnp.where(ok, k * (jnp.cos(x) - 1.0) - (_LOG_2PI + jnp.log(special.i0e(k))), jnp.nan)


def pdf(x, kappa):
    return jnp.exp(logpdf(x, kappa))
