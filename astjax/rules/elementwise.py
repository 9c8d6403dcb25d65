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


def unary(name, *, numpy=None, math_fn=None, vjp, jvp, aliases=()):
    """A one-operand elementwise primitive, reachable as jnp.<name>, np.<name> and math.<name>."""
    prim = primitive(name, getattr(jnp, name), operands=("x",),
                     aliases=tuple(a for a in (numpy, math_fn) + tuple(aliases) if a is not None))
    defvjp(prim, vjp)
    defjvp(prim, jvp)
    deflowering(prim, numba=NUMBA_CPU + name)
    prim.elementwise = True
    return prim


def binary(name, *, numpy=None, operator=None, vjp, jvp, aliases=()):
    """A two-operand broadcasting elementwise primitive."""
    prim = primitive(name, getattr(jnp, name), operands=("x1", "x2"), unbroadcast=True,
                     operator=operator, aliases=tuple(a for a in (numpy,) + tuple(aliases) if a is not None))
    defvjp(prim, *vjp)
    defjvp(prim, *jvp)
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
binary("divide", numpy=np.divide, operator=gast.Div, aliases=(np.true_divide, jnp.true_divide),
       vjp=["bx1 += by / x2", "bx2 += -by * y / x2"],
       jvp=["dx1 -> dx1 / x2", "dx2 -> -dx2 * y / x2"])
# As in JAX: 0 ** 0 has slope 0 in x1, and a zero base has slope 0 in the exponent (not 0 * log 0 = nan).
binary("power", numpy=np.power, operator=gast.Pow, aliases=(math.pow,),
       vjp=["bx1 += by * x2 * x1 ** jnp.where(x2 == 0.0, 1.0, x2 - 1)",
            "bx2 += by * y * jnp.log(jnp.where(x1 == 0.0, 1.0, x1))"],
       jvp=["dy = dx1 * x2 * x1 ** jnp.where(x2 == 0.0, 1.0, x2 - 1)"
            " + dx2 * y * jnp.log(jnp.where(x1 == 0.0, 1.0, x1))"])
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
unary("abs", numpy=np.abs, aliases=(abs, math.fabs, jnp.absolute),
      vjp="bx += by * jnp.sign(x)", jvp="dy = dx * jnp.sign(x)")

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

clip = primitive("clip", jnp.clip, operands=("a",), aliases=(np.clip,),
                 signature=lambda a, a_min=None, a_max=None, *, min=None, max=None: None)
defvjp(clip, "ba += by * clip_mask(a, a_min, a_max, min, max)")
defjvp(clip, "dy = da * clip_mask(a, a_min, a_max, min, max)")
deflowering(clip, numba=NUMBA_CPU + "clip")
clip.elementwise = True
