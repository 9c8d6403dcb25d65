"""The truncated normal distribution, as jax.scipy.stats.truncnorm: written from ndtr and log_ndtr.

`a` and `b` are the bounds in standard units ((bound - loc) / scale), as SciPy's. The log of the normal
mass between two bounds is computed on the side of zero where it does not cancel (both bounds below
zero, both above, or one on each side), as JAX does; every case is computed and one selected (`where`), so
the derivative of the selected one is the derivative.
"""
import astjax.numpy as jnp
from .. import special
from ...numpy._dtypes import inexact_zero


def _log_diff(x, y):
    """log(exp(x) - exp(y)), for x >= y."""
    return x + jnp.log(-jnp.expm1(y - x))


def _log_gauss_mass(a, b):
    """log(ndtr(b) - ndtr(a)), the log of the standard normal mass between a and b (a <= b)."""
    left = _log_diff(special.log_ndtr(b), special.log_ndtr(a))        # a <= b <= 0
    right = _log_diff(special.log_ndtr(-a), special.log_ndtr(-b))     # 0 < a <= b
    central = jnp.log1p(-special.ndtr(a) - special.ndtr(-b))          # a <= 0 < b
    return jnp.where(b <= 0, left, jnp.where(a > 0, right, central))


def logpdf(x, a, b, loc=0, scale=1):
    zero = inexact_zero((x, a, b, loc, scale))     # JAX's promote_args_inexact
    x, a, b, loc, scale = x + zero, a + zero, b + zero, loc + zero, scale + zero
    z = (x - loc) / scale
    value = -0.5 * z * z - jnp.log(scale) - 0.9189385332046727 - _log_gauss_mass(a, b)
    value = jnp.where((z < a) | (z > b), -jnp.inf, value)
    return jnp.where(a >= b, jnp.nan, value)


def pdf(x, a, b, loc=0, scale=1):
    return jnp.exp(logpdf(x, a, b, loc, scale))


def logcdf(x, a, b, loc=0, scale=1):
    zero = inexact_zero((x, a, b, loc, scale))     # JAX's promote_args_inexact
    x, a, b, loc, scale = x + zero, a + zero, b + zero, loc + zero, scale + zero
    z = (x - loc) / scale
    value = _log_gauss_mass(a, jnp.clip(z, a, b)) - _log_gauss_mass(a, b)
    value = jnp.where(z >= b, 0.0, jnp.where(z <= a, -jnp.inf, value))
    return jnp.where(a > b, jnp.nan, value)


def cdf(x, a, b, loc=0, scale=1):
    return jnp.exp(logcdf(x, a, b, loc, scale))


def logsf(x, a, b, loc=0, scale=1):
    zero = inexact_zero((x, a, b, loc, scale))     # JAX's promote_args_inexact
    x, a, b, loc, scale = x + zero, a + zero, b + zero, loc + zero, scale + zero
    z = (x - loc) / scale
    value = _log_gauss_mass(jnp.clip(z, a, b), b) - _log_gauss_mass(a, b)
    value = jnp.where(z >= b, -jnp.inf, jnp.where(z <= a, 0.0, value))
    return jnp.where(a > b, jnp.nan, value)


def sf(x, a, b, loc=0, scale=1):
    return jnp.exp(logsf(x, a, b, loc, scale))
