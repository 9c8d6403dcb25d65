"""Elementwise primitives: one line of meaning and one line per rule.

`x` is the operand, `y` the result; `bx` / `by` their adjoints, `dx` / `dy`
their tangents. Binary primitives broadcast, so each adjoint contribution is
summed back to its operand's shape (`unbroadcast`) by the reverse-mode pass
when the other operand may be an array.
"""
import math

import gast
import numpy as np

from .. import numpy as jnp
from .registry import deflowering, defjvp, defvjp, primitive

NUMBA_CPU = "astjax.runtime.numba_cpu:"


def unary(name, *, numpy=None, math_fn=None, vjp, jvp, aliases=(), lowered=True, impl=None):
    """A one-operand elementwise primitive, reachable as jnp.<name>, np.<name> and math.<name>.

    lowered=False: no Numba lowering yet (jit then refuses it clearly)."""
    prim = primitive(name, impl or getattr(jnp, name), operands=("x",),
                     aliases=tuple(a for a in (numpy, math_fn) + tuple(aliases) if a is not None))
    defvjp(prim, vjp)
    defjvp(prim, *(jvp if isinstance(jvp, tuple) else (jvp,)))
    if lowered:
        deflowering(prim, numba=NUMBA_CPU + name)
    prim.elementwise = True
    return prim


def binary(name, *, numpy=None, operator=None, vjp, jvp, aliases=(), lowered=True):
    """A two-operand broadcasting elementwise primitive (lowered=False: no Numba lowering yet)."""
    prim = primitive(name, getattr(jnp, name), operands=("x1", "x2"), unbroadcast=True,
                     operator=operator, aliases=tuple(a for a in (numpy,) + tuple(aliases) if a is not None))
    defvjp(prim, *vjp)
    defjvp(prim, *jvp)
    if lowered:
        deflowering(prim, numba=NUMBA_CPU + name)
    prim.elementwise = True
    return prim


# --------------------------------------------------------------- arithmetic
binary("add", numpy=np.add, operator=gast.Add,
       vjp=["bx1 += by", "bx2 += by"],
       jvp=["dy = dx1 + dx2"])
binary("subtract", numpy=np.subtract, operator=gast.Sub,
       vjp=["bx1 += by", "bx2 += -by"],
       jvp=["dx1 -> dx1", "dx2 -> -dx2"])
binary("multiply", numpy=np.multiply, operator=gast.Mult,
       vjp=["bx1 += by * x2", "bx2 += by * x1"],
       jvp=["dy = dx1 * x2 + x1 * dx2"])
# The tangent through the denominator is its relative change times the quotient, `-dx2 / x2 * y`: every
# division by the same x2 shares `-dx2 / x2`, so each order of grad(grad(...)) of a quotient reuses the
# lower order's (tests/test_higher_order.py: the 8th derivative of tanh is 250 lines, not 1,049).
binary("divide", numpy=np.divide, operator=gast.Div, aliases=(np.true_divide, jnp.true_divide),
       vjp=["bx1 += by / x2", "bx2 += -by * y / x2"],
       jvp=["dx1 -> dx1 / x2", "dx2 -> -dx2 / x2 * y"])
# 0 ** x2 has slope 0 in x1 at x2 == 0 (x1 ** 0 is constant); a zero base has slope 0 in a positive exponent
# (0 ** x2 is 0 around it: not 0 * log 0 = nan), as in JAX; but 0 ** x2 falls at x2 == 0 (inf, 1, 0), so its
# slope in the exponent there is log 0 = -inf: x ** x at 0 is -inf (x^x (log x + 1); JAX: nan), not 0; a
# tangent of exactly 0 in the exponent still moves nothing (jvp along x alone at 0 ** 0 is 0).
binary("power", numpy=np.power, operator=gast.Pow, aliases=(math.pow, pow),
       vjp=["bx1 += by * x2 * x1 ** jnp.where(x2 == 0.0, 1.0, x2 - 1)",
            "bx2 += by * y * jnp.log(jnp.where(x1 == 0.0, jnp.where(x2 == 0.0, 0.0, 1.0), x1))"],
       jvp=["dy = dx1 * x2 * x1 ** jnp.where(x2 == 0.0, 1.0, x2 - 1)"
            " + dx2 * y * jnp.log(jnp.where(x1 == 0.0, jnp.where(x2 == 0.0, jnp.where(dx2 == 0.0, 1.0, 0.0), 1.0), x1))"])
# A tie shares the gradient equally, as in JAX (and as central differences see it).
binary("maximum", numpy=np.maximum,
       vjp=["bx1 += by * (x1 >= x2) * jnp.where(x1 == x2, 0.5, 1.0)",
            "bx2 += by * (x1 <= x2) * jnp.where(x1 == x2, 0.5, 1.0)"],
       jvp=["dy = dx1 * (x1 >= x2) * jnp.where(x1 == x2, 0.5, 1.0) + dx2 * (x1 <= x2) * jnp.where(x1 == x2, 0.5, 1.0)"])
binary("minimum", numpy=np.minimum,
       vjp=["bx1 += by * (x1 <= x2) * jnp.where(x1 == x2, 0.5, 1.0)",
            "bx2 += by * (x1 >= x2) * jnp.where(x1 == x2, 0.5, 1.0)"],
       jvp=["dy = dx1 * (x1 <= x2) * jnp.where(x1 == x2, 0.5, 1.0) + dx2 * (x1 >= x2) * jnp.where(x1 == x2, 0.5, 1.0)"])
binary("arctan2", numpy=np.arctan2, aliases=(math.atan2,),
       vjp=["bx1 += by * x2 / (x1 ** 2 + x2 ** 2)", "bx2 += -by * x1 / (x1 ** 2 + x2 ** 2)"],
       jvp=["dy = dx1 * x2 / (x1 ** 2 + x2 ** 2) + dx2 * -x1 / (x1 ** 2 + x2 ** 2)"])
binary("mod", numpy=np.mod, operator=gast.Mod, aliases=(np.remainder,),
       vjp=["bx1 += by", "bx2 += -by * jnp.floor(x1 / x2)"],
       jvp=["dy = dx1 + dx2 * -jnp.floor(x1 / x2)"])

unary("negative", numpy=np.negative, vjp="bx += -by", jvp="dy = -dx")
unary("positive", numpy=np.positive, vjp="bx += by", jvp="dy = dx")
unary("square", numpy=np.square, vjp="bx += by * 2.0 * x", jvp="dy = dx * 2.0 * x")
unary("sqrt", numpy=np.sqrt, math_fn=math.sqrt, vjp="bx += by / (2.0 * y)", jvp="dy = dx / (2.0 * y)")
unary("reciprocal", numpy=np.reciprocal, vjp="bx += -by * y * y", jvp="dy = -dx * y * y")
# |x|'s slope at 0 is taken as 1 (x >= 0, also for -0.0), as JAX: a subgradient, and the one JAX picks.
unary("abs", numpy=np.abs, aliases=(abs, math.fabs, jnp.absolute),
      vjp="bx += jnp.where(x >= 0.0, by, -by)", jvp="dy = jnp.where(x >= 0.0, dx, -dx)")

# ---------------------------------------------------------- exp and logs
unary("exp", numpy=np.exp, math_fn=math.exp, vjp="bx += by * y", jvp="dy = dx * y")
unary("expm1", numpy=np.expm1, math_fn=math.expm1, vjp="bx += by * (y + 1.0)", jvp="dy = dx * (y + 1.0)")
unary("log", numpy=np.log, math_fn=math.log, vjp="bx += by / x", jvp="dy = dx / x")
unary("log1p", numpy=np.log1p, math_fn=math.log1p, vjp="bx += by / (1.0 + x)", jvp="dy = dx / (1.0 + x)")
unary("log2", numpy=np.log2, math_fn=math.log2,
      vjp="bx += by / (x * 0.6931471805599453)", jvp="dy = dx / (x * 0.6931471805599453)")
unary("log10", numpy=np.log10, math_fn=math.log10,
      vjp="bx += by / (x * 2.302585092994046)", jvp="dy = dx / (x * 2.302585092994046)")

# ------------------------------------------------------------ trigonometry
unary("sin", numpy=np.sin, math_fn=math.sin, vjp="bx += by * jnp.cos(x)", jvp="dy = dx * jnp.cos(x)")
unary("cos", numpy=np.cos, math_fn=math.cos, vjp="bx += -by * jnp.sin(x)", jvp="dy = -dx * jnp.sin(x)")
unary("tan", numpy=np.tan, math_fn=math.tan, vjp="bx += by * (1.0 + y * y)", jvp="dy = dx * (1.0 + y * y)")
unary("arcsin", numpy=np.arcsin, math_fn=math.asin,
      vjp="bx += by / jnp.sqrt(1.0 - x * x)", jvp="dy = dx / jnp.sqrt(1.0 - x * x)")
unary("arccos", numpy=np.arccos, math_fn=math.acos,
      vjp="bx += -by / jnp.sqrt(1.0 - x * x)", jvp="dy = -dx / jnp.sqrt(1.0 - x * x)")
unary("arctan", numpy=np.arctan, math_fn=math.atan,
      vjp="bx += by / (1.0 + x * x)", jvp="dy = dx / (1.0 + x * x)")
unary("sinh", numpy=np.sinh, math_fn=math.sinh, vjp="bx += by * jnp.cosh(x)", jvp="dy = dx * jnp.cosh(x)")
unary("cosh", numpy=np.cosh, math_fn=math.cosh, vjp="bx += by * jnp.sinh(x)", jvp="dy = dx * jnp.sinh(x)")
unary("tanh", numpy=np.tanh, math_fn=math.tanh, vjp="bx += by * (1.0 - y * y)", jvp="dy = dx * (1.0 - y * y)")

# --------------------------------------------------------------- selection
where = primitive("where", jnp.where, operands=("x1", "x2"), unbroadcast=True, aliases=(np.where,),
                  broadcasts_with=("condition",),
                  signature=lambda condition, x1, x2: None)
defvjp(where, "bx1 += jnp.where(condition, by, 0.0)", "bx2 += jnp.where(condition, 0.0, by)")
defjvp(where, "dy = jnp.where(condition, dx1, 0.0) + jnp.where(condition, 0.0, dx2)")
deflowering(where, numba=NUMBA_CPU + "where")
where.elementwise = True

# clip(a, lo, hi) = minimum(maximum(a, lo), hi): each of a, lo, hi gets the share of the gradient its
# maximum/minimum gives it (half on a tie, as in JAX). The bounds are spelled a_min/a_max or min/max.
clip = primitive("clip", jnp.clip, operands=("a", "a_min", "a_max", "min", "max"), aliases=(np.clip,),
                 unbroadcast=True, signature=lambda a, a_min=None, a_max=None, *, min=None, max=None: None)
defvjp(clip, "ba += by * clip_mask(a, a_min, a_max, min, max)",
       "ba_min += by * clip_lower_weight(a, a_min, a_max, min, max)",
       "ba_max += by * clip_upper_weight(a, a_min, a_max, min, max)",
       "bmin += by * clip_lower_weight(a, a_min, a_max, min, max)",
       "bmax += by * clip_upper_weight(a, a_min, a_max, min, max)")
defjvp(clip, "da -> da * clip_mask(a, a_min, a_max, min, max)",
       "da_min -> da_min * clip_lower_weight(a, a_min, a_max, min, max)",
       "da_max -> da_max * clip_upper_weight(a, a_min, a_max, min, max)",
       "dmin -> dmin * clip_lower_weight(a, a_min, a_max, min, max)",
       "dmax -> dmax * clip_upper_weight(a, a_min, a_max, min, max)")
deflowering(clip, numba=NUMBA_CPU + "clip")
clip.elementwise = True


# ======================================================== issue 9: more elementwise functions
# Those marked lowered=False have no Numba lowering yet: jit refuses them with "jit has no Numba lowering"
# (the others are lowered in astjax/runtime/numba_special.py).
from .._lazy import lazy_module  # noqa: E402
from ..errors import AstjaxError  # noqa: E402
from ..array import wrap as _wrap  # noqa: E402
from .linalg import COMPOSITES as _NAMESPACE  # noqa: E402 (names rule templates may call)


def sinc_slope(x):
    """d/dx sinc(x) = (cos(pi x) - sinc(x)) / x, 0 at x == 0 (sinc is even): the slope sinc's rules use.

    Near 0 the two terms cancel, so |x| < 0.1 uses sinc's Maclaurin series instead."""
    plain = np.asarray(jnp.asarray(x))
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = (np.cos(np.pi * plain) - np.sinc(plain)) / np.where(plain == 0, 1, plain)
    series = np.zeros_like(plain, dtype=np.float64)
    term = np.pi ** 2 * np.asarray(plain, dtype=np.float64) / 6.0          # k = 1 term of sum_k c_k 2k x^(2k-1)
    for k in range(1, 9):
        series = series - term * 2 * k if k % 2 else series + term * 2 * k
        term = term * (np.pi * plain) ** 2 / ((2 * k + 2) * (2 * k + 3))
    return _wrap(np.where(np.abs(plain) < 0.1, series, slope).astype(plain.dtype, copy=False))


def i0_slope(x):
    """d/dx i0(x) = i1(x), the modified Bessel function of order 1 (SciPy's): the slope i0's rules use."""
    plain = np.asarray(jnp.asarray(x))
    return _wrap(np.asarray(_special.i1(plain)).astype(plain.dtype, copy=False))


def real_input_adjoint(g, x):
    """`g`, after checking that `x` is real: conj, real and imag are differentiated for real inputs only."""
    if np.iscomplexobj(np.asarray(x)):
        raise AstjaxError("astjax differentiates real, imag and conj of real arrays only; this one is complex "
                          "(astjax has no complex differentiation yet)")
    return g


_special = lazy_module("scipy.special")     # imported when i0_slope first runs

_NAMESPACE.update({f.__name__: f for f in (sinc_slope, i0_slope, real_input_adjoint)})

# --------------------------------------------------------------- unary
unary("cbrt", numpy=np.cbrt, math_fn=getattr(math, "cbrt", None),
      vjp="bx += by / (3.0 * y * y)", jvp="dy = dx / (3.0 * y * y)")
unary("exp2", numpy=np.exp2, math_fn=getattr(math, "exp2", None),
      vjp="bx += by * y * 0.6931471805599453", jvp="dy = dx * y * 0.6931471805599453")
unary("arcsinh", numpy=np.arcsinh, math_fn=math.asinh,
      vjp="bx += by / jnp.sqrt(x * x + 1.0)", jvp="dy = dx / jnp.sqrt(x * x + 1.0)")
unary("arccosh", numpy=np.arccosh, math_fn=math.acosh,
      vjp="bx += by / jnp.sqrt((x - 1.0) * (x + 1.0))", jvp="dy = dx / jnp.sqrt((x - 1.0) * (x + 1.0))")
unary("arctanh", numpy=np.arctanh, math_fn=math.atanh,
      vjp="bx += by / ((1.0 - x) * (1.0 + x))", jvp="dy = dx / ((1.0 - x) * (1.0 + x))")
unary("deg2rad", numpy=np.deg2rad, math_fn=math.radians, aliases=(np.radians,),
      vjp="bx += by * 0.017453292519943295", jvp="dy = dx * 0.017453292519943295")
unary("rad2deg", numpy=np.rad2deg, math_fn=math.degrees, aliases=(np.degrees,),
      vjp="bx += by * 57.29577951308232", jvp="dy = dx * 57.29577951308232")
# fabs: the slope is 1 at x == 0, as astjax's abs (and JAX's).
unary("fabs", numpy=np.fabs, vjp="bx += jnp.where(x >= 0.0, by, -by)",
      jvp="dy = jnp.where(x >= 0.0, dx, -dx)")
# sinc is smooth; its slope and curvature are exact at x == 0 (derivatives of order four and up at
# exactly x == 0 come out 0: the slope's rule is a where() with a constant branch there).
unary("sinc", numpy=np.sinc, lowered=False, vjp="bx += by * sinc_slope(x)", jvp="dy = dx * sinc_slope(x)")
unary("sinc_slope", impl=sinc_slope, lowered=False,
      vjp="bx += by * jnp.where(x == 0.0, -3.289868133696453, -9.869604401089358 * jnp.sinc(x)"
          " - 2.0 * y / jnp.where(x == 0.0, 1.0, x))",
      jvp="dy = dx * jnp.where(x == 0.0, -3.289868133696453, -9.869604401089358 * jnp.sinc(x)"
          " - 2.0 * y / jnp.where(x == 0.0, 1.0, x))")
unary("i0", numpy=np.i0, lowered=False, vjp="bx += by * i0_slope(x)", jvp="dy = dx * i0_slope(x)")
# i1' = i0 - i1 / x, 1/2 at x == 0 (exact to third order of i0 there; see sinc).
unary("i0_slope", impl=i0_slope, lowered=False,
      vjp="bx += by * jnp.where(x == 0.0, 0.5, jnp.i0(x) - y / jnp.where(x == 0.0, 1.0, x))",
      jvp="dy = dx * jnp.where(x == 0.0, 0.5, jnp.i0(x) - y / jnp.where(x == 0.0, 1.0, x))")

for _name, _numpy, _vjp, _jvp in (
        ("real", np.real, "bval += real_input_adjoint(by, val)", "dy = real_input_adjoint(dval, val)"),
        ("imag", np.imag, "bval += real_input_adjoint(by, val) * 0.0", "dy = real_input_adjoint(dval, val) * 0.0")):
    _prim = primitive(_name, getattr(jnp, _name), operands=("val",), aliases=(_numpy,))
    defvjp(_prim, _vjp)
    defjvp(_prim, _jvp)
    _prim.elementwise = True
unary("conjugate", numpy=np.conjugate, aliases=(jnp.conj,), lowered=False,
      vjp="bx += real_input_adjoint(by, x)", jvp="dy = real_input_adjoint(dx, x)")
real_input_adjoint_prim = primitive("real_input_adjoint", real_input_adjoint, operands=("g",), shape_params=("x",))
defvjp(real_input_adjoint_prim, "bg += real_input_adjoint(by, x)")
defjvp(real_input_adjoint_prim, "dy = real_input_adjoint(dg, x)")
real_input_adjoint_prim.elementwise = True

# nan_to_num passes finite values through and replaces the others by constants (slope 0 there, as JAX).
nan_to_num = primitive("nan_to_num", jnp.nan_to_num, operands=("x",), aliases=(np.nan_to_num,))
defvjp(nan_to_num, "bx += jnp.where(jnp.isfinite(x), by, 0.0)")
defjvp(nan_to_num, "dy = jnp.where(jnp.isfinite(x), dx, 0.0)")
nan_to_num.elementwise = True

# --------------------------------------------------------------- binary
# hypot's slope x1 / y is taken as 0.5 at the origin for each operand, as JAX (whose hypot is
# max(|x1|, |x2|) sqrt(1 + (min / max)^2): |.|'s slope 1 at 0, the max's tie split in halves): a subgradient.
binary("hypot", numpy=np.hypot,
       vjp=["bx1 += by * jnp.where(y == 0.0, 0.5, x1 / jnp.where(y == 0.0, 1.0, y))",
            "bx2 += by * jnp.where(y == 0.0, 0.5, x2 / jnp.where(y == 0.0, 1.0, y))"],
       jvp=["dy = dx1 * jnp.where(y == 0.0, 0.5, x1 / jnp.where(y == 0.0, 1.0, y)) + dx2 * jnp.where("
            "y == 0.0, 0.5, x2 / jnp.where(y == 0.0, 1.0, y))"])
binary("logaddexp", numpy=np.logaddexp,
       vjp=["bx1 += by * jnp.exp(x1 - y)", "bx2 += by * jnp.exp(x2 - y)"],
       jvp=["dy = dx1 * jnp.exp(x1 - y) + dx2 * jnp.exp(x2 - y)"])
binary("logaddexp2", numpy=np.logaddexp2,
       vjp=["bx1 += by * jnp.exp2(x1 - y)", "bx2 += by * jnp.exp2(x2 - y)"],
       jvp=["dy = dx1 * jnp.exp2(x1 - y) + dx2 * jnp.exp2(x2 - y)"])
# As in JAX, fmax(x1, x2) = where((x1 > x2) | isnan(x2), x1, x2): a tie's derivative goes to x2,
# and a NaN operand gets none while the other is a number (both NaN: x1 gets it).
binary("fmax", numpy=np.fmax,
       vjp=["bx1 += jnp.where(jnp.logical_or(x1 > x2, jnp.isnan(x2)), by, 0.0)",
            "bx2 += jnp.where(jnp.logical_or(x1 > x2, jnp.isnan(x2)), 0.0, by)"],
       jvp=["dy = jnp.where(jnp.logical_or(x1 > x2, jnp.isnan(x2)), dx1, 0.0)"
            " + jnp.where(jnp.logical_or(x1 > x2, jnp.isnan(x2)), 0.0, dx2)"])
# fmin(x1, x2) = where((x1 < x2) | isnan(x2), x1, x2), as JAX.
binary("fmin", numpy=np.fmin,
       vjp=["bx1 += jnp.where(jnp.logical_or(x1 < x2, jnp.isnan(x2)), by, 0.0)",
            "bx2 += jnp.where(jnp.logical_or(x1 < x2, jnp.isnan(x2)), 0.0, by)"],
       jvp=["dy = jnp.where(jnp.logical_or(x1 < x2, jnp.isnan(x2)), dx1, 0.0)"
            " + jnp.where(jnp.logical_or(x1 < x2, jnp.isnan(x2)), 0.0, dx2)"])
# copysign(x1, x2) = where(signbit(x2), -|x1|, |x1|) (JAX): slope +-1 in x1 (|x1|'s slope is 1 at 0, as
# abs), 0 in x2.
binary("copysign", numpy=np.copysign, aliases=(math.copysign,),
       vjp=["bx1 += by * jnp.where(x1 >= 0.0, 1.0, -1.0) * jnp.where(jnp.signbit(x2), -1.0, 1.0)",
            "bx2 += by * 0.0"],
       jvp=["dy = dx1 * jnp.where(x1 >= 0.0, 1.0, -1.0) * jnp.where(jnp.signbit(x2), -1.0, 1.0) + dx2 * 0.0"])
# nextafter(x1, x2) is x1 moved by one unit in the last place: slope 1 in x1, 0 in x2 (JAX has no rule).
binary("nextafter", numpy=np.nextafter, aliases=(getattr(math, "nextafter", None),), lowered=False,
       vjp=["bx1 += by", "bx2 += by * 0.0"],
       jvp=["dy = dx1 + dx2 * 0.0"])
# heaviside is piecewise constant in x1 (slope 0, as JAX) and passes x2 through where x1 == 0.
binary("heaviside", numpy=np.heaviside,
       vjp=["bx1 += by * 0.0", "bx2 += jnp.where(x1 == 0.0, by, 0.0)"],
       jvp=["dy = dx1 * 0.0 + jnp.where(x1 == 0.0, dx2, 0.0)"])
# fmod(x1, x2) = x1 - x2 * trunc(x1 / x2): slope 1 in x1, -trunc(x1 / x2) in x2 (piecewise, as JAX's rem).
binary("fmod", numpy=np.fmod, aliases=(math.fmod,), lowered=False,
       vjp=["bx1 += by", "bx2 += -by * jnp.trunc(x1 / x2)"],
       jvp=["dy = dx1 + dx2 * -jnp.trunc(x1 / x2)"])
binary("float_power", numpy=np.float_power, lowered=False,
       vjp=["bx1 += by * x2 * x1 ** jnp.where(x2 == 0.0, 1.0, x2 - 1)",
            "bx2 += by * y * jnp.log(jnp.where(x1 == 0.0, jnp.where(x2 == 0.0, 0.0, 1.0), x1))"],
       jvp=["dy = dx1 * x2 * x1 ** jnp.where(x2 == 0.0, 1.0, x2 - 1)"
            " + dx2 * y * jnp.log(jnp.where(x1 == 0.0, jnp.where(x2 == 0.0, jnp.where(dx2 == 0.0, 1.0, 0.0), 1.0), x1))"])
# ldexp(x1, x2) = x1 * 2 ** x2 for an integer x2: linear in x1.
ldexp = primitive("ldexp", jnp.ldexp, operands=("x1",), unbroadcast=True, aliases=(np.ldexp, math.ldexp),
                  broadcasts_with=("x2",))
defvjp(ldexp, "bx1 += jnp.ldexp(by, x2)")
defjvp(ldexp, "dy = jnp.ldexp(dx1, x2)")
ldexp.elementwise = True
