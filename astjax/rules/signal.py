"""Differences, Kronecker and cross products, convolution, interpolation, polynomials, integration.

Most are linear or bilinear: a tangent rule applies the function to the
tangent, an adjoint rule applies its transpose (a helper in signal_helpers.py
with rules of its own, so grad of grad works). `interp` is differentiable in
x (the slope of the segment x lies in; at a knot, the segment to its right)
and in fp; its knots xp, like every static argument, must not depend on the
differentiated input (refused otherwise).
"""
import numpy as np

from .. import numpy as jnp
from . import signal_helpers as _h
from .linalg import COMPOSITES
from .nondifferentiable import SHAPES, nondifferentiable
from .registry import defjvp, defvjp, primitive


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


for _name in ("ediff1d_span", "zeroed", "last_axis_pad"):
    nondifferentiable(_name, getattr(_h, _name), SHAPES)

# ------------------------------------------------------------ differences
_rules("diff", jnp.diff, ("a",), "ba += diff_adjoint(by, a, n, axis, prepend, append)",
       "dy = diff_tangent(da, n, axis, prepend, append)", aliases=(np.diff,))
_rules("diff_tangent", _h.diff_tangent, ("t",), "bt += diff_adjoint(by, t, n, axis, prepend, append)",
       "dy = diff_tangent(dt, n, axis, prepend, append)", shape_params=("prepend", "append"))
_rules("diff_adjoint", _h.diff_adjoint, ("g",), "bg += diff_tangent(by, n, axis, prepend, append)",
       "dy = diff_adjoint(dg, a, n, axis, prepend, append)", shape_params=("a", "prepend", "append"))
_rules("ediff1d", jnp.ediff1d, ("ary",),
       "bary += jnp.reshape(diff_adjoint(by[ediff1d_span(ary, to_begin)], jnp.ravel(ary), 1, 0, None, None), "
       "jnp.shape(ary))",
       "dy = jnp.ediff1d(dary, zeroed(to_end, dary), zeroed(to_begin, dary))", aliases=(np.ediff1d,))

# ------------------------------------------------------------ products
_rules("kron", jnp.kron, ("a", "b"), ("ba += kron_lhs_adjoint(by, a, b)", "bb += kron_rhs_adjoint(by, a, b)"),
       "dy = jnp.kron(da, b) + jnp.kron(a, db)", aliases=(np.kron,))
_rules("kron_lhs_adjoint", _h.kron_lhs_adjoint, ("g", "b"),
       ("bg += jnp.kron(by, b)", "bb += kron_rhs_adjoint(g, by, b)"),
       "dy = kron_lhs_adjoint(dg, a, b) + kron_lhs_adjoint(g, a, db)", shape_params=("a",))
_rules("kron_rhs_adjoint", _h.kron_rhs_adjoint, ("g", "a"),
       ("bg += jnp.kron(a, by)", "ba += kron_lhs_adjoint(g, a, by)"),
       "dy = kron_rhs_adjoint(dg, a, b) + kron_rhs_adjoint(g, da, b)", shape_params=("b",))
_cross = _rules("cross", jnp.cross, ("a", "b"),
                ("ba += unbroadcast(jnp.cross(b, by), a)", "bb += unbroadcast(jnp.cross(by, a), b)"),
                "dy = jnp.cross(da, b) + jnp.cross(a, db)", aliases=(np.cross,))
_cross.static_check = _static_default(axisa=-1, axisb=-1, axisc=-1, axis=None)

# ------------------------------------------------------------ convolution and correlation
_rules("conv_general", _h.conv_general, ("a", "v"),
       ("ba += conv_lhs_adjoint(by, a, v, mode, flipped)", "bv += conv_rhs_adjoint(by, a, v, mode, flipped)"),
       "dy = conv_general(da, v, mode, flipped) + conv_general(a, dv, mode, flipped)")
_rules("conv_lhs_adjoint", _h.conv_lhs_adjoint, ("g", "v"),
       ("bg += conv_general(by, v, mode, flipped)", "bv += conv_rhs_adjoint(g, by, v, mode, flipped)"),
       "dy = conv_lhs_adjoint(dg, a, v, mode, flipped) + conv_lhs_adjoint(g, a, dv, mode, flipped)",
       shape_params=("a",))
_rules("conv_rhs_adjoint", _h.conv_rhs_adjoint, ("g", "a"),
       ("bg += conv_general(a, by, mode, flipped)", "ba += conv_lhs_adjoint(g, a, by, mode, flipped)"),
       "dy = conv_rhs_adjoint(dg, a, v, mode, flipped) + conv_rhs_adjoint(g, da, v, mode, flipped)",
       shape_params=("v",))
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
                 ("bx += by * interp_slope(x, xp, fp, left, right)", "bfp += interp_transpose(by, x, xp, fp, left, right)"),
                 "dy = dx * interp_slope(x, xp, fp, left, right) + interp_linear(x, xp, dfp, left, right)",
                 aliases=(np.interp,))
_interp.static_check = _static_default(period=None)
_rules("interp_linear", _h.interp_linear, ("x", "c"),
       ("bx += by * interp_slope(x, xp, c, left, right)", "bc += interp_transpose(by, x, xp, c, left, right)"),
       "dy = dx * interp_slope(x, xp, c, left, right) + interp_linear(x, xp, dc, left, right)")
_rules("interp_transpose", _h.interp_transpose, ("g", "x"),
       ("bg += interp_linear(x, xp, by, left, right)", "bx += g * interp_slope(x, xp, by, left, right)"),
       "dy = interp_transpose(dg, x, xp, c, left, right) + interp_slope_transpose(g * dx, x, xp, c, left, right)",
       shape_params=("c",))
# The slope is piecewise constant in x (zero derivative between knots): x is read for where it lies only.
_rules("interp_slope", _h.interp_slope, ("c",), "bc += interp_slope_transpose(by, x, xp, c, left, right)",
       "dy = interp_slope(x, xp, dc, left, right)", shape_params=("x",))
_rules("interp_slope_transpose", _h.interp_slope_transpose, ("g",), "bg += interp_slope(x, xp, by, left, right)",
       "dy = interp_slope_transpose(dg, x, xp, c, left, right)", shape_params=("x", "c"))


# ------------------------------------------------------------ polynomials
def polyval_coefficient_adjoint(g, p, x):
    """The adjoint of the coefficients p from `y = polyval(p, x)`: g times the powers of x, summed."""
    powers = jnp.arange(jnp.size(p) - 1, -1, -1)
    columns = jnp.reshape(x, (-1, 1)) ** powers
    return jnp.sum(jnp.reshape(g, (-1, 1)) * columns, axis=0)


COMPOSITES[polyval_coefficient_adjoint.__name__] = polyval_coefficient_adjoint
_rules("polyval", jnp.polyval, ("p", "x"),
       ("bp += polyval_coefficient_adjoint(by, p, x)", "bx += by * jnp.polyval(jnp.polyder(p), x)"),
       "dy = jnp.polyval(dp, x) + dx * jnp.polyval(jnp.polyder(p), x)", aliases=(np.polyval,),
       signature=lambda p, x: None)
_rules("polyder", jnp.polyder, ("p",), "bp += polyder_adjoint(by, p, m)", "dy = jnp.polyder(dp, m)",
       aliases=(np.polyder,))
_rules("polyder_adjoint", _h.polyder_adjoint, ("g",), "bg += jnp.polyder(by, m)", "dy = polyder_adjoint(dg, p, m)",
       shape_params=("p",))
_rules("polyint", jnp.polyint, ("p",), "bp += polyint_adjoint(by, p, m)", "dy = jnp.polyint(dp, m)",
       aliases=(np.polyint,))
_rules("polyint_adjoint", _h.polyint_adjoint, ("g",), "bg += jnp.polyint(by, m)", "dy = polyint_adjoint(dg, p, m)",
       shape_params=("p",))
_rules("polyadd", jnp.polyadd, ("a1", "a2"), ("ba1 += poly_tail(by, a1)", "ba2 += poly_tail(by, a2)"),
       "dy = poly_tail_adjoint(da1, y) + poly_tail_adjoint(da2, y)", aliases=(np.polyadd,))
_rules("polysub", jnp.polysub, ("a1", "a2"), ("ba1 += poly_tail(by, a1)", "ba2 += -poly_tail(by, a2)"),
       "dy = poly_tail_adjoint(da1, y) + -poly_tail_adjoint(da2, y)", aliases=(np.polysub,))
_rules("poly_tail", _h.poly_tail, ("g",), "bg += poly_tail_adjoint(by, g)", "dy = poly_tail(dg, a)",
       shape_params=("a",))
_rules("poly_tail_adjoint", _h.poly_tail_adjoint, ("p",), "bp += poly_tail(by, p)", "dy = poly_tail_adjoint(dp, g)",
       shape_params=("g",))

# Generated code calls the helpers by their bare names.
COMPOSITES.update({name: getattr(_h, name) for name in dir(_h) if not name.startswith("_")
                   and callable(getattr(_h, name)) and getattr(getattr(_h, name), "__module__", None) == _h.__name__})
