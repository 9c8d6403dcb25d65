"""Differences, Kronecker and cross products, convolution, interpolation and polynomials.

Most are linear or bilinear: a tangent rule applies the function to the
tangent, an adjoint rule applies its transpose. The transposes are composites
below (plain astjax code over primitives that have rules), so a second
derivative transforms them like user code; the helpers they call compute only
shapes, pad widths, index sets or constant factors (rules/signal_helpers.py).
`trapezoid` is differentiable in the samples and their points. `interp` is differentiable in x (the slope of the segment x lies in; at a knot,
the segment to its right) and in fp; its knots xp, like every static argument,
must not depend on the differentiated input (refused otherwise).
"""
import numpy as np

from .. import numpy as jnp
from . import signal_helpers as _h
from .helpers import take_adjoint
from .linalg import COMPOSITES
from .nondifferentiable import BOOLEAN, INTEGER, SHAPES, nondifferentiable
from .registry import PRIMITIVES, defjvp, deflowering, defvjp, primitive


def _rules(name, impl, operands, vjp, jvp, **kwargs):
    prim = primitive(name, impl, operands=operands, **kwargs)
    defvjp(prim, *(vjp if isinstance(vjp, tuple) else (vjp,)))
    defjvp(prim, *(jvp if isinstance(jvp, tuple) else (jvp,)))
    return prim


def _static_default(**defaults):
    """A static_check refusing non-default values of static arguments the rules do not cover."""
    def check(bound):
        for param, default in defaults.items():
            node = bound.get(param)
            if node is not None and getattr(node, "value", object()) != default:
                return (f"`{param}` other than {default!r} is not supported under a derivative",
                        f"leave `{param}` at its default")
        return None
    return check


for _name, _reason in (("axis_pad", SHAPES), ("diff_pad", SHAPES), ("diff_kept", SHAPES), ("ediff1d_span", SHAPES),
                       ("zeroed", SHAPES), ("kron_blocks", SHAPES), ("kron_spread", SHAPES), ("kron_axes", SHAPES),
                       ("conv_pad", SHAPES), ("interp_index", INTEGER), ("interp_below", BOOLEAN),
                       ("interp_above", BOOLEAN), ("polyder_factors", SHAPES), ("polyint_factors", SHAPES),
                       ("leading", SHAPES), ("poly_tail_span", SHAPES), ("poly_lead", SHAPES)):
    nondifferentiable(_name, getattr(_h, _name), _reason)
for _name in ("axis_pad", "diff_kept"):             # runtime/numba_batch_indices.py
    deflowering(PRIMITIVES[_name], numba=f"astjax.runtime.numba_cpu:{_name}")


# ------------------------------------------------------------ composites (adjoints)
def diff_adjoint(g, a, n, axis, prepend, append):
    """The adjoint of `a` from `y = diff(a, n, axis, prepend, append)`: n transposed differences, cropped to a.

    One difference's transpose is `-diff(pad(g, (1, 1)))`, so n of them are (-1)**n diff(pad(g, (n, n)), n).
    """
    full = jnp.diff(jnp.pad(g, axis_pad(g, axis, n, n)), n, axis)
    return (-1.0) ** n * jnp.take(full, diff_kept(a, axis, prepend), axis)


def kron_lhs_adjoint(g, a, b):
    """The adjoint of `a` from `y = kron(a, b)`: each block of g contracted with b."""
    blocks = jnp.reshape(g, kron_blocks(a, b))
    spread = jnp.reshape(b, kron_spread(a, b, "b"))
    return jnp.reshape(jnp.sum(blocks * spread, axis=kron_axes(a, b, "b")), jnp.shape(a))


def kron_rhs_adjoint(g, a, b):
    """The adjoint of `b` from `y = kron(a, b)`: the blocks of g weighted by a's entries, summed."""
    blocks = jnp.reshape(g, kron_blocks(a, b))
    spread = jnp.reshape(a, kron_spread(a, b, "a"))
    return jnp.reshape(jnp.sum(blocks * spread, axis=kron_axes(a, b, "a")), jnp.shape(b))


def conv_lhs_adjoint(g, a, v, mode, flipped):
    """The adjoint of `a` from `y = conv_general(a, v, mode, flipped)`: g placed in the full range, correlated."""
    full = jnp.pad(g, conv_pad(a, v, mode, flipped))
    if flipped:
        return conv_general(full, jnp.flip(v), "valid", True)
    return conv_general(full, v, "valid", True)


def conv_rhs_adjoint(g, a, v, mode, flipped):
    """The adjoint of `v` from `y = conv_general(a, v, mode, flipped)`."""
    full = jnp.pad(g, conv_pad(a, v, mode, flipped))
    moved = conv_general(full, a, "valid", True)
    if flipped:
        return jnp.flip(moved)
    return moved


def interp_slope(x, xp, c):
    """The slope of the piecewise linear interpolant of c at x (0 outside the knots)."""
    i = interp_index(x, xp)
    outside = jnp.logical_or(interp_below(x, xp), interp_above(x, xp))
    rise = jnp.take(c, i + 1) - jnp.take(c, i)
    run = jnp.take(xp, i + 1) - jnp.take(xp, i)
    return jnp.where(outside, 0.0, rise / run)


def interp_fp_adjoint(g, x, xp, fp, left, right):
    """The adjoint of fp from `y = interp(x, xp, fp, left, right)`: g shared by the two knots around each x."""
    i = interp_index(x, xp)
    below = interp_below(x, xp)
    above = interp_above(x, xp)
    outside = jnp.logical_or(below, above)
    t = (x - jnp.take(xp, i)) / (jnp.take(xp, i + 1) - jnp.take(xp, i))
    inner = jnp.where(outside, 0.0, g * (1.0 - t))
    upper = jnp.where(outside, 0.0, g * t)
    out = take_adjoint(inner, fp, i, None) + take_adjoint(upper, fp, i + 1, None)
    if left is None:
        out = out + take_adjoint(jnp.where(below, g, 0.0), fp, jnp.zeros_like(i), None)
    if right is None:
        out = out + take_adjoint(jnp.where(above, g, 0.0), fp, jnp.zeros_like(i) + (jnp.size(fp) - 1), None)
    return out


def polyval_coefficient_adjoint(g, p, x):
    """The adjoint of the coefficients p from `y = polyval(p, x)`: g times the powers of x, summed."""
    powers = jnp.arange(jnp.size(p) - 1, -1, -1)
    columns = jnp.reshape(x, (-1, 1)) ** powers
    return jnp.sum(jnp.reshape(g, (-1, 1)) * columns, axis=0)


def trapezoid_of(samples, points=None, spacing=1.0, axis=-1, *, x=None, dx=None):
    """jnp.trapezoid under names its rules can use (`y`, `dx` name a result and a tangent in rule templates)."""
    return jnp.trapezoid(samples, points if x is None else x, spacing if dx is None else dx, axis)


def trapezoid_samples_adjoint(g, samples, points, spacing, axis, x, dx):
    """The adjoint of the samples from trapezoid: g times each sample's weight (half its two intervals)."""
    if points is None:
        points = x
    if dx is not None:
        spacing = dx
    moved = jnp.moveaxis(samples, axis, -1)
    if points is None:
        d = spacing * jnp.ones_like(jnp.diff(moved, 1, -1))
    elif jnp.ndim(points) == 1:
        d = jnp.diff(points)
    else:
        d = jnp.diff(jnp.moveaxis(points, axis, -1), 1, -1)
    w = (jnp.pad(d, axis_pad(d, -1, 1, 0)) + jnp.pad(d, axis_pad(d, -1, 0, 1))) * 0.5
    return jnp.moveaxis(jnp.expand_dims(g, -1) * w, -1, axis)


def _interval_means(samples, axis):
    moved = jnp.moveaxis(samples, axis, -1)
    n = jnp.shape(moved)[-1]
    return (jnp.take(moved, jnp.arange(1, n), axis=-1) + jnp.take(moved, jnp.arange(0, n - 1), axis=-1)) * 0.5


def trapezoid_points_adjoint(g, samples, points, axis):
    """The adjoint of the sample points from trapezoid: d/dx_j = s_{j-1} - s_j (s: the interval means)."""
    gs = jnp.expand_dims(g, -1) * _interval_means(samples, axis)
    b = jnp.pad(gs, axis_pad(gs, -1, 1, 0)) - jnp.pad(gs, axis_pad(gs, -1, 0, 1))
    if jnp.ndim(points) == 1:
        return jnp.sum(jnp.reshape(b, (-1, jnp.shape(b)[-1])), axis=0)
    return jnp.moveaxis(b, -1, axis)


def trapezoid_points_tangent(t, samples, points, axis):
    """The tangent of trapezoid along a tangent t of the sample points: sum of diff(t) times the interval means."""
    if jnp.ndim(points) != 1:
        t = jnp.moveaxis(t, axis, -1)
    return jnp.sum(jnp.diff(t, 1, -1) * _interval_means(samples, axis), axis=-1)


# ------------------------------------------------------------ differences
_diff = _rules("diff", jnp.diff, ("a",), "ba += diff_adjoint(by, a, n, axis, prepend, append)",
               "dy = jnp.diff(jnp.pad(da, diff_pad(da, axis, prepend, append)), n, axis)", aliases=(np.diff,))
deflowering(_diff, numba="astjax.runtime.numba_cpu:diff")     # and diff_adjoint: runtime/numba_differences.py
_rules("ediff1d", jnp.ediff1d, ("ary",),
       "bary += jnp.reshape(diff_adjoint(by[ediff1d_span(ary, to_begin)], zeroed(jnp.ravel(ary), by), 1, 0, None, None), "
       "jnp.shape(ary))",
       "dy = jnp.ediff1d(dary, zeroed(to_end, dary), zeroed(to_begin, dary))", aliases=(np.ediff1d,))

# ------------------------------------------------------------ products
_rules("kron", jnp.kron, ("a", "b"), ("ba += kron_lhs_adjoint(by, a, b)", "bb += kron_rhs_adjoint(by, a, b)"),
       "dy = jnp.kron(da, b) + jnp.kron(a, db)", aliases=(np.kron,))
_cross = _rules("cross", jnp.cross, ("a", "b"),
                ("ba += unbroadcast(jnp.cross(b, by), a)", "bb += unbroadcast(jnp.cross(by, a), b)"),
                "dy = jnp.cross(da, b) + jnp.cross(a, db)", aliases=(np.cross,))
_cross.static_check = _static_default(axisa=-1, axisb=-1, axisc=-1, axis=None)

# ------------------------------------------------------------ convolution and correlation
_rules("conv_general", _h.conv_general, ("a", "v"),
       ("ba += conv_lhs_adjoint(by, a, v, mode, flipped)", "bv += conv_rhs_adjoint(by, a, v, mode, flipped)"),
       "dy = conv_general(da, v, mode, flipped) + conv_general(a, dv, mode, flipped)")
for _name, _flipped in (("convolve", False), ("correlate", True)):
    _rules(_name, getattr(jnp, _name), ("a", "v"),
           (f"ba += conv_lhs_adjoint(by, a, v, mode, {_flipped})", f"bv += conv_rhs_adjoint(by, a, v, mode, {_flipped})"),
           f"dy = conv_general(da, v, mode, {_flipped}) + conv_general(a, dv, mode, {_flipped})",
           aliases=(getattr(np, _name),))
_rules("polymul", jnp.polymul, ("a1", "a2"),
       ("ba1 += conv_lhs_adjoint(by, a1, a2, 'full', False)", "ba2 += conv_rhs_adjoint(by, a1, a2, 'full', False)"),
       "dy = conv_general(da1, a2, 'full', False) + conv_general(a1, da2, 'full', False)", aliases=(np.polymul,),
       signature=lambda a1, a2: None)

# ------------------------------------------------------------ interpolation
_interp = _rules("interp", jnp.interp, ("x", "fp"),
                 ("bx += by * interp_slope(x, xp, fp)", "bfp += interp_fp_adjoint(by, x, xp, fp, left, right)"),
                 "dy = dx * interp_slope(x, xp, fp) + jnp.interp(x, xp, dfp, zeroed(left, dfp), zeroed(right, dfp))",
                 aliases=(np.interp,))
_interp.static_check = _static_default(period=None)

# ------------------------------------------------------------ integration
# `x=` and `dx=` by keyword bind to x / dx, positionally to points / spacing (see trapezoid_of).
_rules("trapezoid", trapezoid_of, ("samples", "points"),
       ("bsamples += trapezoid_samples_adjoint(by, samples, points, spacing, axis, x, dx)",
        "bpoints += trapezoid_points_adjoint(by, samples, points, axis)"),
       "dy = trapezoid_of(dsamples, points, spacing, axis, x=x, dx=dx) + trapezoid_points_tangent(dpoints, samples, "
       "points, axis)", aliases=(jnp.trapezoid, np.trapezoid))

# np.gradient: linear in f for fixed spacings (varargs static); one array, or a list for several axes.
_gradient = _rules("gradient", jnp.gradient, ("f",), "bf += gradient_adjoint(by, f, varargs, axis, edge_order)",
                   "dy = jnp.gradient(df, *varargs, axis=axis, edge_order=edge_order)", aliases=(np.gradient,))
_rules("gradient_adjoint", _h.gradient_adjoint, ("g",), "bg += gradient_items(by, varargs, axis, edge_order)",
       "dy = gradient_adjoint(dg, f, varargs, axis, edge_order)", shape_params=("f",))
_rules("gradient_items", _h.gradient_items, ("t",), "bt += gradient_adjoint(by, t, varargs, axis, edge_order)",
       "dy = gradient_items(dt, varargs, axis, edge_order)")

# ------------------------------------------------------------ polynomials
_rules("polyval", jnp.polyval, ("p", "x"),
       ("bp += polyval_coefficient_adjoint(by, p, x)", "bx += by * jnp.polyval(jnp.polyder(p), x)"),
       "dy = jnp.polyval(dp, x) + dx * jnp.polyval(jnp.polyder(p), x)", aliases=(np.polyval,),
       signature=lambda p, x: None)
_rules("polyder", jnp.polyder, ("p",), "bp += jnp.pad(by * polyder_factors(p, m), (0, m))",
       "dy = jnp.polyder(dp, m)", aliases=(np.polyder,))
_rules("polyint", jnp.polyint, ("p",), "bp += by[leading(by, m)] * polyint_factors(p, m)", "dy = jnp.polyint(dp, m)",
       aliases=(np.polyint,))
_rules("polyadd", jnp.polyadd, ("a1", "a2"), ("ba1 += by[poly_tail_span(by, a1)]", "ba2 += by[poly_tail_span(by, a2)]"),
       "dy = jnp.pad(da1, poly_lead(y, da1)) + jnp.pad(da2, poly_lead(y, da2))", aliases=(np.polyadd,))
_rules("polysub", jnp.polysub, ("a1", "a2"), ("ba1 += by[poly_tail_span(by, a1)]", "ba2 += -by[poly_tail_span(by, a2)]"),
       "dy = jnp.pad(da1, poly_lead(y, da1)) + -jnp.pad(da2, poly_lead(y, da2))", aliases=(np.polysub,))

# Generated code calls the composites and helpers by their bare names.
COMPOSITES.update({f.__name__: f for f in (diff_adjoint, kron_lhs_adjoint, kron_rhs_adjoint, conv_lhs_adjoint,
                                           conv_rhs_adjoint, interp_slope, interp_fp_adjoint,
                                           polyval_coefficient_adjoint, trapezoid_of, trapezoid_samples_adjoint,
                                           trapezoid_points_adjoint, trapezoid_points_tangent, _interval_means)})
COMPOSITES.update({name: getattr(_h, name) for name in dir(_h) if not name.startswith("_")
                   and callable(getattr(_h, name)) and getattr(getattr(_h, name), "__module__", None) == _h.__name__})
# The composites call the helpers by the names above.
from .signal_helpers import (axis_pad, conv_general, conv_pad, diff_kept, interp_above, interp_below,  # noqa: E402
                             interp_index, kron_axes, kron_blocks, kron_spread)
