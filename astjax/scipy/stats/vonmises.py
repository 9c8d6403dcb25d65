"""The von Mises distribution, as jax.scipy.stats.vonmises: logpdf = kappa (cos x - 1) - log(2 pi i0e(kappa))
(i0e keeps large kappa finite); nan for kappa <= 0."""
import astjax.numpy as jnp
from .. import special
from ...numpy._dtypes import inexact_zero

_LOG_2PI = 1.8378770664093453


def logpdf(x, kappa):
    zero = inexact_zero((x, kappa))     # JAX's promote_args_inexact
    x, kappa = x + zero, kappa + zero
    ok = kappa > 0
    k = jnp.where(ok, kappa, 1.0)
    return jnp.where(ok, k * (jnp.cos(x) - 1.0) - (_LOG_2PI + jnp.log(special.i0e(k))), jnp.nan)


def pdf(x, kappa):
    return jnp.exp(logpdf(x, kappa))
