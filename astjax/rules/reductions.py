"""Reductions: sum, mean, prod, max, min, var, std, trace, and the cumulative sum.

`a` is the operand, as NumPy names it. A reduction's adjoint spreads `by`
back over the reduced axes (`unreduce`); its tangent is the reduction of the
operand's tangent.
"""
import numpy as np

from .. import numpy as jnp
from . import helpers
from .registry import deflowering, defjvp, defvjp, primitive

NUMBA_CPU = "astjax.runtime.numba_cpu:"


def reduction(name, *, aliases=(), vjp, jvp, signature=None):
    prim = primitive(name, getattr(jnp, name), operands=("a",), aliases=aliases, signature=signature)
    defvjp(prim, vjp)
    defjvp(prim, jvp)
    deflowering(prim, numba=NUMBA_CPU + name)
    prim.accepts_scalar_zero = True      # unreduce broadcasts a bare 0.0 back to the operand
    return prim


# sum, mean, var and std honour a `where` mask (unreduce zeroes the adjoint outside it and
# reduced_size counts per slice); prod, max and min do not, so their signatures leave `where`
# out: such a call is an error rather than a silently wrong derivative.
reduction("sum", aliases=(np.sum,),
          vjp="ba += unreduce(by, a, axis, keepdims, where)",
          jvp="dy = jnp.sum(da, axis, keepdims=keepdims, where=where)")
reduction("mean", aliases=(np.mean,),
          vjp="ba += unreduce(by, a, axis, keepdims, where) / reduced_size(a, axis, where=where)",
          jvp="dy = jnp.mean(da, axis, keepdims=keepdims, where=where)")
# d prod / d a_i is the product of the other elements: y / a_i, except where a_i is zero (then it is the
# product of the nonzero elements if a_i is the slice's only zero, else 0). Exact to first order
# everywhere; a second derivative at a slice with two or more zeros comes out 0.
reduction("prod", aliases=(np.prod,),
          vjp="ba += jnp.where(a == 0.0, unreduce(by * jnp.prod(jnp.where(a == 0.0, 1.0, a), axis, keepdims=keepdims)"
              " * (jnp.sum(a == 0.0, axis, keepdims=keepdims) == 1), a, axis, keepdims),"
              " unreduce(by * y, a, axis, keepdims) / jnp.where(a == 0.0, 1.0, a))",
          jvp="dy = jnp.sum(da * jnp.where(a == 0.0, unreduce(jnp.prod(jnp.where(a == 0.0, 1.0, a), axis,"
              " keepdims=keepdims) * (jnp.sum(a == 0.0, axis, keepdims=keepdims) == 1), a, axis, keepdims),"
              " unreduce(y, a, axis, keepdims) / jnp.where(a == 0.0, 1.0, a)), axis, keepdims=keepdims)",
          signature=lambda a, axis=None, dtype=None, out=None, keepdims=False: None)
reduction("max", aliases=(np.max, np.amax, jnp.amax),
          vjp="ba += unreduce(by, a, axis, keepdims) * extremum_mask(a, y, axis, keepdims)",
          jvp="dy = jnp.sum(da * extremum_mask(a, y, axis, keepdims), axis, keepdims=keepdims)",
          signature=lambda a, axis=None, out=None, keepdims=False, initial=None: None)
reduction("min", aliases=(np.min, np.amin, jnp.amin),
          vjp="ba += unreduce(by, a, axis, keepdims) * extremum_mask(a, y, axis, keepdims)",
          jvp="dy = jnp.sum(da * extremum_mask(a, y, axis, keepdims), axis, keepdims=keepdims)",
          signature=lambda a, axis=None, out=None, keepdims=False, initial=None: None)
reduction("var", aliases=(np.var,),
          vjp="ba += unreduce(by, a, axis, keepdims, where) * 2.0 * (a - jnp.mean(a, axis, keepdims=True, where=where))"
              " / reduced_size(a, axis, ddof, correction, where)",
          jvp="dy = jnp.sum(da * 2.0 * (a - jnp.mean(a, axis, keepdims=True, where=where))"
              " / reduced_size(a, axis, ddof, correction, where), axis, keepdims=keepdims, where=where)")
reduction("std", aliases=(np.std,),
          vjp="ba += unreduce(by / y, a, axis, keepdims, where) * (a - jnp.mean(a, axis, keepdims=True, where=where))"
              " / reduced_size(a, axis, ddof, correction, where)",
          jvp="dy = jnp.sum(da * (a - jnp.mean(a, axis, keepdims=True, where=where))"
              " / reduced_size(a, axis, ddof, correction, where), axis, keepdims=keepdims, where=where) / y")

cumsum = primitive("cumsum", jnp.cumsum, operands=("a",), aliases=(np.cumsum,))
defvjp(cumsum, "ba += cumsum_adjoint(by, a, axis)")
defjvp(cumsum, "dy = jnp.cumsum(da, axis)")
deflowering(cumsum, numba=NUMBA_CPU + "cumsum")
cumsum_adjoint = primitive("cumsum_adjoint", helpers.cumsum_adjoint, operands=("g",))
defvjp(cumsum_adjoint, "bg += jnp.reshape(jnp.cumsum(by, axis), jnp.shape(g))")
defjvp(cumsum_adjoint, "dy = cumsum_adjoint(dg, a, axis)")
deflowering(cumsum_adjoint, numba=NUMBA_CPU + "cumsum_adjoint")

trace = primitive("trace", jnp.trace, operands=("a",), aliases=(np.trace,))
defvjp(trace, "ba += trace_adjoint(by, a, offset, axis1, axis2)")
defjvp(trace, "dy = jnp.trace(da, offset, axis1, axis2)")
deflowering(trace, numba=NUMBA_CPU + "trace")
trace_adjoint = primitive("trace_adjoint", helpers.trace_adjoint, operands=("g",))
defvjp(trace_adjoint, "bg += jnp.trace(by, offset, axis1, axis2)")
defjvp(trace_adjoint, "dy = trace_adjoint(dg, a, offset, axis1, axis2)")
deflowering(trace_adjoint, numba=NUMBA_CPU + "trace_adjoint")

# These helpers read `a` for its shape only.
cumsum_adjoint.shape_params = cumsum_adjoint.shape_params | frozenset({"a"})
trace_adjoint.shape_params = trace_adjoint.shape_params | frozenset({"a"})
