"""A primitive called with `dtype=` (or `preferred_element_type=`) an integer or boolean type has a piecewise
constant result.

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


RESULT_DTYPE_PARAMETERS = ("dtype", "preferred_element_type")


def dtype_guarded(expression, app):
    """`expression` (an adjoint or a tangent term of `app`'s primitive), through dtype_adjoint for each
    result-dtype argument the call passes other than the literal None."""
    if app.kind != "primitive" or app.primitive.name == "dtype_adjoint":
        return expression
    for parameter in RESULT_DTYPE_PARAMETERS:
        dtype = app.bound.get(parameter)
        if dtype is not None and not (isinstance(dtype, gast.Constant) and dtype.value is None):
            expression = call("dtype_adjoint", expression, copy.deepcopy(dtype))
    return expression
