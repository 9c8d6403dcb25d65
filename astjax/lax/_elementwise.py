"""lax's elementwise operations.

Where lax means what astjax.numpy already computes (`lax.add` is `jnp.add`,
`lax.exp` is `jnp.exp`), the name is that same function, so the primitive and
its rules are shared. The others are primitives of their own
(astjax/rules/lax_rules.py): `stop_gradient`, `clamp`, `rsqrt`,
`integer_pow`, `exp2`, `logistic`, `erf`, `div` (C division on integers).
"""
import numpy as np

from .._lazy import lazy_module
from ..array import wrap
from .. import numpy as jnp
from ..numpy._promote import inexact_arg, nd, out, promote
from ..tree_util import tree_map

_scipy_special = lazy_module("scipy.special")   # imported when logistic/erf first run

__all__ = ["stop_gradient", "clamp", "rsqrt", "integer_pow", "exp2", "logistic", "erf", "div",
           "add", "sub", "mul", "neg", "max", "min", "pow", "abs", "sign", "exp", "expm1", "log", "log1p",
           "sqrt", "cbrt", "sin", "cos", "tan", "tanh", "sinh", "cosh", "asin", "acos", "atan", "atan2",
           "square", "floor", "ceil", "round", "rem", "eq", "ne", "lt", "le", "gt", "ge", "is_finite"]

# The same functions as astjax.numpy's: one primitive, one set of rules.
add, sub, mul, neg = jnp.add, jnp.subtract, jnp.multiply, jnp.negative
max, min, pow, abs, sign = jnp.maximum, jnp.minimum, jnp.power, jnp.abs, jnp.sign
exp, expm1, log, log1p, sqrt, cbrt = jnp.exp, jnp.expm1, jnp.log, jnp.log1p, jnp.sqrt, jnp.cbrt
sin, cos, tan, tanh, sinh, cosh = jnp.sin, jnp.cos, jnp.tan, jnp.tanh, jnp.sinh, jnp.cosh
asin, acos, atan, atan2 = jnp.arcsin, jnp.arccos, jnp.arctan, jnp.arctan2
square, floor, ceil = jnp.square, jnp.floor, jnp.ceil
eq, ne, lt, le, gt, ge, is_finite = jnp.equal, jnp.not_equal, jnp.less, jnp.less_equal, jnp.greater, \
    jnp.greater_equal, jnp.isfinite


def round(x, rounding_method=0):
    """Round half away from zero (rounding_method=0, JAX's default) or half to even (1)."""
    x = nd(x)
    if int(rounding_method) == 1:
        return out(np.round(x))
    return out(np.sign(x) * np.floor(np.abs(x) + 0.5))


def rem(x, y):
    """The remainder with the sign of the dividend (C's fmod), as lax.rem."""
    x, y = promote(x, y)
    return out(np.fmod(x, y))


def stop_gradient(x):
    """`x` itself, through which no derivative flows (a pytree of arrays works leaf by leaf)."""
    return tree_map(lambda leaf: wrap(np.array(nd(leaf))), x)


def clamp(min, x, max):
    """`x` limited to [min, max] elementwise: lax's argument order (bounds may be scalars)."""
    lo, xx = promote(min, x)
    hi, xx = promote(max, xx)
    return out(np.minimum(np.maximum(xx, lo), hi))


def rsqrt(x):
    """1 / sqrt(x)."""
    x = inexact_arg(x)
    return out(1.0 / np.sqrt(x))


def integer_pow(x, y):
    """`x ** y` for a static Python integer `y` (negative too)."""
    if not isinstance(y, (int, np.integer)) or isinstance(y, bool):
        raise TypeError(f"lax.integer_pow: the exponent must be a Python int, got {y!r}")
    x = nd(x)
    if y < 0:
        return out(np.asarray(1.0, dtype=x.dtype) / x ** np.asarray(-int(y), dtype=x.dtype))
    return out(x ** np.asarray(int(y), dtype=x.dtype))


def exp2(x):
    """2 ** x."""
    return out(np.exp2(inexact_arg(x)))


def logistic(x):
    """The logistic sigmoid 1 / (1 + exp(-x)), without overflow."""
    x = inexact_arg(x)
    return out(_scipy_special.expit(x).astype(np.result_type(x), copy=False))


def erf(x):
    """The error function."""
    x = inexact_arg(x)
    return out(_scipy_special.erf(x).astype(np.result_type(x), copy=False))


def div(x, y):
    """x / y; integers divide rounding toward zero (as C and lax do, unlike `//`)."""
    x, y = promote(x, y)
    if np.result_type(x).kind in "iu":
        q = np.abs(x) // np.abs(y)
        return out((np.sign(x) * np.sign(y) * q).astype(np.result_type(x)))
    return out(np.divide(x, y))
