"""jax.scipy.stats.sem: the standard error of the mean, written from primitives (differentiable)."""
import astjax.numpy as jnp
from ...numpy._dtypes import inexact_zero


def sem(a, axis=0, ddof=1, nan_policy="propagate", keepdims=False):
    """std(a, ddof) / sqrt(n) along `axis` (None: all of `a`); nan_policy "omit" counts only the non-NaN.
    (keepdims is keyword-only in JAX; here it may be passed by position too: the transformations read
    only plain parameters.)"""
    b = a + inexact_zero((a,))           # JAX's promote_args_inexact
    if nan_policy == "propagate":
        size = jnp.size(b) if axis is None else jnp.shape(b)[axis]
        return jnp.std(b, axis=axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(jnp.asarray(size, dtype=b.dtype))
    if nan_policy == "omit":
        count = jnp.sum(jnp.logical_not(jnp.isnan(b)), axis=axis, keepdims=keepdims)
        return jnp.nanstd(b, axis=axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(jnp.astype(count, b.dtype))
    raise ValueError(f"{nan_policy} is not supported")
