"""The few helpers the lowering passes themselves write into compiled code (imports Numba).

shape_of(x)        np.shape for arrays and scalars alike (a scalar's shape is ()).
weak_like(c, p)    a Python number `c` as the dtype JAX gives it beside `p`, decided when Numba compiles.
"""
import numpy as np
from numba import types
from numba.extending import overload

__all__ = ["SUPPORT"]


def shape_of(x):
    return np.shape(x)


def weak_like(c, partner):
    return c


@overload(shape_of)
def _shape_of(x):
    if isinstance(x, types.Array):
        return lambda x: x.shape
    if isinstance(x, (types.Number, types.Boolean)):
        return lambda x: ()
    return None


def _weak_dtype(c, partner):
    dtype = partner.dtype if isinstance(partner, types.Array) else partner
    if isinstance(dtype, types.Float):
        return dtype
    if isinstance(dtype, types.Integer):
        return types.float32 if isinstance(c, types.Float) else dtype
    if isinstance(dtype, types.Boolean):
        return types.float32 if isinstance(c, types.Float) else types.int32
    return None


@overload(weak_like)
def _weak_like(c, partner):
    if not isinstance(c, (types.Integer, types.Float)):
        return None
    target = _weak_dtype(c, partner)
    if target is None:
        return None
    cast = np.dtype(str(target)).type

    def impl(c, partner):
        return cast(c)
    return impl


from .fast_math import fast_exp  # noqa: E402 (fused loops call it)

SUPPORT = {"shape_of": shape_of, "weak_like": weak_like, "np": np, "fast_exp": fast_exp}
