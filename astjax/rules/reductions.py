"""Reductions: sum, mean, prod, max, min, var, std (and the cumulative sum).

`a` is the operand, as NumPy names it. A reduction's adjoint spreads `by`
back over the reduced axes (`unreduce`); its tangent is the reduction of the
operand's tangent.
"""
import numpy as np

from .. import numpy as jnp
from .registry import defjvp, defvjp, primitive


def reduction(name, *, aliases=(), vjp, jvp):
    prim = primitive(name, getattr(jnp, name), operands=("a",), aliases=aliases)
    defvjp(prim, vjp)
    defjvp(prim, jvp)
    return prim


reduction("sum", aliases=(np.sum,),
          vjp="ba += unreduce(by, a, axis, keepdims)",
          jvp="dy = jnp.sum(da, axis, keepdims=keepdims)")
reduction("mean", aliases=(np.mean,),
          vjp="ba += unreduce(by, a, axis, keepdims) / reduced_size(a, axis)",
          jvp="dy = jnp.mean(da, axis, keepdims=keepdims)")
reduction("prod", aliases=(np.prod,),
          vjp="ba += unreduce(by * y, a, axis, keepdims) / a",
          jvp="dy = jnp.sum(da * unreduce(y, a, axis, keepdims) / a, axis, keepdims=keepdims)")
reduction("max", aliases=(np.max, np.amax, jnp.amax),
          vjp="ba += unreduce(by, a, axis, keepdims) * extremum_mask(a, y, axis, keepdims)",
          jvp="dy = jnp.sum(da * extremum_mask(a, y, axis, keepdims), axis, keepdims=keepdims)")
reduction("min", aliases=(np.min, np.amin, jnp.amin),
          vjp="ba += unreduce(by, a, axis, keepdims) * extremum_mask(a, y, axis, keepdims)",
          jvp="dy = jnp.sum(da * extremum_mask(a, y, axis, keepdims), axis, keepdims=keepdims)")
reduction("var", aliases=(np.var,),
          vjp="ba += unreduce(by, a, axis, keepdims) * 2.0 * (a - jnp.mean(a, axis, keepdims=True))"
              " / (reduced_size(a, axis) - ddof)",
          jvp="dy = jnp.sum(da * 2.0 * (a - jnp.mean(a, axis, keepdims=True)), axis, keepdims=keepdims)"
              " / (reduced_size(a, axis) - ddof)")
reduction("std", aliases=(np.std,),
          vjp="ba += unreduce(by / y, a, axis, keepdims) * (a - jnp.mean(a, axis, keepdims=True))"
              " / (reduced_size(a, axis) - ddof)",
          jvp="dy = jnp.sum(da * (a - jnp.mean(a, axis, keepdims=True)), axis, keepdims=keepdims)"
              " / ((reduced_size(a, axis) - ddof) * y)")
