"""A primitive called with `dtype=` an integer or boolean type has a piecewise constant result.

    y = jnp.sum(x, dtype=jnp.int32)     ->   bx += unreduce(dtype_adjoint(by, jnp.int32), x)
                                             dy = dtype_adjoint(jnp.sum(dx), jnp.int32)

The rules of `sum`, `trace`, `cumsum`, `linspace`, ... are written for a float
result; with an integer `dtype` the derivative is zero (as JAX's, where the
cast to an integer type has none). Both modes pass the primitive's adjoint or
tangent through `dtype_adjoint` (rules/casts.py), which keeps it for an inexact
or absent dtype and gives zeros otherwise, decided when the code runs.
"""
import copy

import gast

from ..codegen.templates import call

__all__ = ["dtype_guarded"]


def dtype_guarded(expression, app):
    """`expression` (an adjoint or a tangent term of `app`'s primitive), through dtype_adjoint where the call
    passes a `dtype` other than the literal None."""
    dtype = app.bound.get("dtype") if app.kind == "primitive" and app.primitive.name != "dtype_adjoint" else None
    if dtype is None or (isinstance(dtype, gast.Constant) and dtype.value is None):
        return expression
    return call("dtype_adjoint", expression, copy.deepcopy(dtype))
