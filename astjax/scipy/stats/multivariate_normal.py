"""The multivariate normal distribution, as jax.scipy.stats.multivariate_normal (logpdf, pdf).

`x` has shape (..., d), `mean` (d,), `cov` (d, d); a 0-d mean means a 1-D normal
with variance `cov`. Written from jnp.linalg.solve and det (JAX uses a Cholesky
factor: the values agree for positive definite `cov`; a `cov` that is not
gives nan here, as there).
"""
import astjax.numpy as jnp

_LOG_2PI = 1.8378770664093453


def logpdf(x, mean, cov, allow_singular=None):
    if jnp.ndim(mean) == 0:
        return -0.5 * (x - mean) ** 2 / cov - 0.5 * (_LOG_2PI + jnp.log(cov))
    d = jnp.shape(mean)[-1]
    diff = x - mean
    flat = jnp.reshape(diff, (-1, d))
    solved = jnp.transpose(jnp.linalg.solve(cov, jnp.transpose(flat)))
    quadratic = jnp.reshape(jnp.sum(flat * solved, axis=-1), jnp.shape(diff)[:-1])
    return -0.5 * (d * _LOG_2PI + jnp.log(jnp.linalg.det(cov)) + quadratic)


def pdf(x, mean, cov):
    return jnp.exp(logpdf(x, mean, cov))
