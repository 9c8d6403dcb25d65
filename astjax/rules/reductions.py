"""Reductions: sum, mean, prod, max, min, var, std, trace, and the cumulative sum.

`a` is the operand, as NumPy names it. A reduction's adjoint spreads `by`
back over the reduced axes (`unreduce`); its tangent is the reduction of the
operand's tangent.
"""
import numpy as np

from .. import numpy as jnp
from . import helpers
from .nondifferentiable import PIECEWISE
from .registry import PRIMITIVES, deflowering, defjvp, defvjp, primitive

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
# product of the nonzero elements if a_i is the slice's only zero, else 0). `lone_zero` marks the slices
# with exactly one zero. Differentiating this formula again is exact where a slice holds at most one zero;
# at two or more zeros it is not (the true second derivative there is the product of the rest), so the
# derivative of `lone_zero` refuses such slices instead of answering 0.
reduction("prod", aliases=(np.prod,),
          vjp="ba += jnp.where(a == 0.0, unreduce(by * jnp.prod(jnp.where(a == 0.0, 1.0, a), axis, keepdims=keepdims)"
              " * lone_zero(a, axis, keepdims), a, axis, keepdims),"
              " unreduce(by * y, a, axis, keepdims) / jnp.where(a == 0.0, 1.0, a))",
          jvp="dy = jnp.sum(da * jnp.where(a == 0.0, unreduce(jnp.prod(jnp.where(a == 0.0, 1.0, a), axis,"
              " keepdims=keepdims) * lone_zero(a, axis, keepdims), a, axis, keepdims),"
              " unreduce(y, a, axis, keepdims) / jnp.where(a == 0.0, 1.0, a)), axis, keepdims=keepdims)",
          signature=lambda a, axis=None, dtype=None, out=None, keepdims=False: None)


_lone_zero = primitive("lone_zero", helpers.lone_zero, operands=("a",))
defvjp(_lone_zero, "ba += lone_zero_derivative(by, a, axis, keepdims, a)")
defjvp(_lone_zero, "dy = lone_zero_derivative(da, a, axis, keepdims, y)")
deflowering(_lone_zero, numba=NUMBA_CPU + "lone_zero")
_lone_zero_derivative = primitive("lone_zero_derivative", helpers.lone_zero_derivative, operands=(), differentiable=False,
                                  reason=PIECEWISE)
deflowering(_lone_zero_derivative, numba=NUMBA_CPU + "lone_zero_derivative")
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


# ================================================== issue 9: NaN-ignoring reductions, ptp, cumulative_*
# Each rule is the rule of its NaN-propagating twin with the NaN elements masked out: they get no
# derivative (as in JAX, whose nan* functions are where(isnan, identity, a) fed to the twin). No Numba
# lowerings yet: jit refuses them clearly. `where=` is left out of the signatures (a call with it is
# refused under a derivative).
from .creation import COMPOSITES as _COMPOSITES, cumprod_adjoint, cumprod_tangent  # noqa: E402
from .helpers import cumsum_adjoint  # noqa: E402

_KEPT = "jnp.logical_not(jnp.isnan(a))"          # the elements a nan-reduction reads


def _rules(prim, vjp, jvp, *, scalar_zero=True):
    defvjp(prim, vjp)
    defjvp(prim, jvp)
    prim.accepts_scalar_zero = scalar_zero
    return prim


_rules(primitive("nansum", jnp.nansum, operands=("a",), aliases=(np.nansum,),
                 signature=lambda a, axis=None, dtype=None, out=None, keepdims=False, initial=None: None),
       f"ba += unreduce(by, a, axis, keepdims, {_KEPT})",
       f"dy = jnp.sum(da, axis, keepdims=keepdims, where={_KEPT})")
# An all-NaN slice has mean NaN; its elements get no adjoint (the count is taken as at least 1).
_rules(primitive("nanmean", jnp.nanmean, operands=("a",), aliases=(np.nanmean,),
                 signature=lambda a, axis=None, dtype=None, out=None, keepdims=False: None),
       f"ba += unreduce(by, a, axis, keepdims, {_KEPT}) / jnp.maximum(reduced_size(a, axis, where={_KEPT}), 1)",
       f"dy = jnp.mean(da, axis, keepdims=keepdims, where={_KEPT})")
# As max and min: ties share the derivative equally; NaNs (and an `initial` that wins) get none.
for _name in ("nanmax", "nanmin"):
    _rules(primitive(_name, getattr(jnp, _name), operands=("a",), aliases=(getattr(np, _name),),
                     signature=lambda a, axis=None, out=None, keepdims=False, initial=None: None),
           "ba += unreduce(by, a, axis, keepdims) * extremum_mask(a, y, axis, keepdims)",
           "dy = jnp.sum(da * extremum_mask(a, y, axis, keepdims), axis, keepdims=keepdims)")
# NaN elements (and all-NaN slices, whose mean is NaN) get a zero adjoint: the outer where().
_CENTRED = "(jnp.where(jnp.isnan(a), 0.0, a) - jnp.nanmean(a, axis, keepdims=True))"
_COUNT = f"reduced_size(a, axis, ddof, None, {_KEPT})"
_rules(primitive("nanvar", jnp.nanvar, operands=("a",), aliases=(np.nanvar,),
                 signature=lambda a, axis=None, dtype=None, out=None, ddof=0, keepdims=False: None),
       f"ba += jnp.where(jnp.isnan(a), 0.0, unreduce(by, a, axis, keepdims, {_KEPT}) * 2.0 * {_CENTRED} / {_COUNT})",
       f"dy = jnp.sum(da * 2.0 * {_CENTRED} / {_COUNT}, axis, keepdims=keepdims, where={_KEPT})")
_rules(primitive("nanstd", jnp.nanstd, operands=("a",), aliases=(np.nanstd,),
                 signature=lambda a, axis=None, dtype=None, out=None, ddof=0, keepdims=False: None),
       f"ba += jnp.where(jnp.isnan(a), 0.0, unreduce(by / y, a, axis, keepdims, {_KEPT}) * {_CENTRED} / {_COUNT})",
       f"dy = jnp.sum(da * {_CENTRED} / {_COUNT}, axis, keepdims=keepdims, where={_KEPT}) / y")
# nanprod is prod with the NaNs read as ones: prod's rule (exact at zeros) with `a` so filled.
_ONES = "jnp.where(jnp.isnan(a), 1.0, a)"
_rules(primitive("nanprod", jnp.nanprod, operands=("a",), aliases=(np.nanprod,),
                 signature=lambda a, axis=None, dtype=None, out=None, keepdims=False: None),
       f"ba += jnp.where(jnp.isnan(a), 0.0, jnp.where(a == 0.0, unreduce(by * jnp.prod(jnp.where(a == 0.0, 1.0, {_ONES}),"
       f" axis, keepdims=keepdims) * (jnp.sum(a == 0.0, axis, keepdims=keepdims) == 1), a, axis, keepdims),"
       f" unreduce(by * y, a, axis, keepdims) / jnp.where(a == 0.0, 1.0, {_ONES})))",
       f"dy = jnp.sum(jnp.where(jnp.isnan(a), 0.0, da) * jnp.where(a == 0.0, unreduce(jnp.prod(jnp.where(a == 0.0, 1.0,"
       f" {_ONES}), axis, keepdims=keepdims) * (jnp.sum(a == 0.0, axis, keepdims=keepdims) == 1), a, axis, keepdims),"
       f" unreduce(y, a, axis, keepdims) / jnp.where(a == 0.0, 1.0, {_ONES})), axis, keepdims=keepdims)")
_rules(primitive("nancumsum", jnp.nancumsum, operands=("a",), aliases=(np.nancumsum,),
                 signature=lambda a, axis=None, dtype=None, out=None: None),
       "ba += jnp.where(jnp.isnan(a), 0.0, cumsum_adjoint(by, a, axis))",
       "dy = jnp.cumsum(jnp.where(jnp.isnan(a), 0.0, da), axis)", scalar_zero=False)
_rules(primitive("nancumprod", jnp.nancumprod, operands=("a",), aliases=(np.nancumprod,),
                 signature=lambda a, axis=None, dtype=None, out=None: None),
       f"ba += jnp.where(jnp.isnan(a), 0.0, cumprod_adjoint(by, {_ONES}, axis))",
       f"dy = cumprod_tangent(jnp.where(jnp.isnan(a), 0.0, da), {_ONES}, axis)", scalar_zero=False)
for _name in ("nancumsum", "nancumprod"):           # runtime/numba_running.py
    deflowering(PRIMITIVES[_name], numba=NUMBA_CPU + _name)

# ptp = max - min: each extreme's ties share its derivative equally.
_MAX_MASK = "extremum_mask(a, jnp.max(a, axis, keepdims=keepdims), axis, keepdims)"
_MIN_MASK = "extremum_mask(a, jnp.min(a, axis, keepdims=keepdims), axis, keepdims)"
_rules(primitive("ptp", jnp.ptp, operands=("a",), aliases=(np.ptp,)),
       f"ba += unreduce(by, a, axis, keepdims) * ({_MAX_MASK} - {_MIN_MASK})",
       f"dy = jnp.sum(da * ({_MAX_MASK} - {_MIN_MASK}), axis, keepdims=keepdims)")


# cumulative_sum / cumulative_prod (the Array API's names): cumsum's and cumprod's rules along `axis`
# (required beyond 1-D, so None means 0), with the leading identity of include_initial=True dropped.
def cumulative_adjoint(g, x, axis, include_initial):
    """The adjoint of `x` from `y = cumulative_sum(x, axis=axis, include_initial=...)`."""
    axis = 0 if axis is None else axis
    if include_initial:
        g = jnp.take(g, jnp.arange(1, jnp.shape(g)[axis]), axis=axis)
    return cumsum_adjoint(g, x, axis)


def cumulative_prod_adjoint(g, x, axis, include_initial):
    """The adjoint of `x` from `y = cumulative_prod(x, axis=axis, include_initial=...)`."""
    axis = 0 if axis is None else axis
    if include_initial:
        g = jnp.take(g, jnp.arange(1, jnp.shape(g)[axis]), axis=axis)
    return cumprod_adjoint(g, x, axis)


def cumulative_prod_tangent(t, x, axis, include_initial):
    """The tangent of `y = cumulative_prod(x, axis=axis, include_initial=...)` for a tangent `t` of `x`."""
    axis = 0 if axis is None else axis
    tangent = cumprod_tangent(t, x, axis)
    if include_initial:
        first = jnp.zeros_like(jnp.take(tangent, jnp.arange(0, 1), axis=axis))
        tangent = jnp.concatenate([first, tangent], axis=axis)
    return tangent


_COMPOSITES.update({f.__name__: f for f in (cumulative_adjoint, cumulative_prod_adjoint, cumulative_prod_tangent)})
_rules(primitive("cumulative_sum", jnp.cumulative_sum, operands=("x",), aliases=(np.cumulative_sum,)),
       "bx += cumulative_adjoint(by, x, axis, include_initial)",
       "dy = jnp.cumulative_sum(dx, axis=axis, dtype=dtype, include_initial=include_initial)", scalar_zero=False)
_rules(primitive("cumulative_prod", jnp.cumulative_prod, operands=("x",), aliases=(np.cumulative_prod,)),
       "bx += cumulative_prod_adjoint(by, x, axis, include_initial)",
       "dy = cumulative_prod_tangent(dx, x, axis, include_initial)", scalar_zero=False)
