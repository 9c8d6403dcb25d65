"""Primitives whose results carry no derivative: comparisons, rounding, shapes, constructors.

Their outputs are never active, so the transformations copy them into the
derivative's primal sweep unchanged. (A function with a real derivative must
never be listed here: a missing rule is an error, a zero rule a wrong answer.)
"""
import builtins
import math

import gast
import numpy as np

from .. import numpy as jnp
from . import helpers
from .registry import primitive


def nondifferentiable(name, impl, aliases=(), operator=None, signature=None):
    return primitive(name, impl, operands=(), differentiable=False, aliases=aliases,
                     operator=operator, signature=signature)


for _name, _op in [("less", gast.Lt), ("less_equal", gast.LtE), ("greater", gast.Gt),
                   ("greater_equal", gast.GtE), ("equal", gast.Eq), ("not_equal", gast.NotEq)]:
    nondifferentiable(_name, getattr(jnp, _name), aliases=(getattr(np, _name),), operator=_op)
nondifferentiable("floor_divide", jnp.floor_divide, aliases=(np.floor_divide,), operator=gast.FloorDiv)

for _name in ["floor", "ceil", "round", "sign", "argmax", "argmin", "isnan", "isfinite", "isinf",
              "logical_and", "logical_or", "logical_not", "logical_xor", "zeros_like", "ones_like",
              "zeros", "ones", "full", "full_like", "empty", "arange", "linspace", "eye", "identity",
              "shape", "ndim", "size", "argsort", "meshgrid", "allclose", "all", "any"]:
    if hasattr(jnp, _name):
        nondifferentiable(_name, getattr(jnp, _name),
                          aliases=tuple(a for a in (getattr(np, _name, None),) if a is not None))
nondifferentiable("distinct_index", helpers.distinct_index)   # `y[idx] op= v` with an index array
nondifferentiable("floor_math", math.floor, aliases=(math.ceil, math.trunc, math.isnan, math.isinf))
for _builtin in ("len", "range", "int", "bool", "isinstance", "enumerate", "zip", "print", "round"):
    nondifferentiable(f"builtin_{_builtin}", getattr(builtins, _builtin))
