"""Shape arithmetic for values of which compiled code keeps only the shape (jit/lower/shape_only_values.py).

broadcast_shape(a, b)        np.broadcast_shapes(a, b) of two shape tuples; ValueError when they do not broadcast
window_shape(shape, sizes)   the shape of lax.dynamic_slice(x, starts, sizes) of an x of `shape`: `sizes`,
                             ValueError when a size is negative or larger than x's (as the slice itself raises)

Each has a plain Python body (the reference) and a Numba overload written for the tuples' lengths.
"""
import numpy as np
from numba import types
from numba.extending import overload

from .numba_build import WITHOUT_WRAPPERS

__all__ = ["broadcast_shape", "window_shape"]


def broadcast_shape(a, b):
    return tuple(np.broadcast_shapes(tuple(a), tuple(b)))


def window_shape(shape, sizes):
    if len(shape) != len(sizes) or any(s < 0 or s > d for s, d in zip(sizes, shape)):
        raise ValueError("dynamic_slice: slice sizes must be within the operand's shape")
    return tuple(sizes)


def _length(t):
    return len(t.types) if isinstance(t, types.BaseTuple) else None


@overload(broadcast_shape, jit_options=WITHOUT_WRAPPERS)
def _broadcast_shape(a, b):
    na, nb = _length(a), _length(b)
    if na is None or nb is None:
        return None
    n = max(na, nb)
    lines = ["def impl(a, b):"]
    for k in range(n):
        da = f"a[{k - (n - na)}]" if k >= n - na else "1"
        db = f"b[{k - (n - nb)}]" if k >= n - nb else "1"
        lines += [f"    a{k} = {da}", f"    b{k} = {db}",
                  f"    if a{k} != b{k} and a{k} != 1 and b{k} != 1:",
                  "        raise ValueError('operands could not be broadcast together')",
                  f"    r{k} = b{k} if a{k} == 1 else a{k}"]
    lines.append("    return (" + "".join(f"r{k}, " for k in range(n)) + ")")
    scope = {}
    exec("\n".join(lines), scope)       # noqa: S102 - text written above from two lengths
    return scope["impl"]


@overload(window_shape, jit_options=WITHOUT_WRAPPERS)
def _window_shape(shape, sizes):
    n, m = _length(shape), _length(sizes)
    if n is None or m is None:
        return None
    if n != m:
        def mismatch(shape, sizes):
            raise ValueError("dynamic_slice: slice sizes must be within the operand's shape")
        return mismatch
    lines = ["def impl(shape, sizes):"]
    for k in range(n):
        lines += [f"    if sizes[{k}] < 0 or sizes[{k}] > shape[{k}]:",
                  "        raise ValueError(\"dynamic_slice: slice sizes must be within the operand's shape\")"]
    lines.append("    return (" + "".join(f"sizes[{k}], " for k in range(n)) + ")")
    scope = {}
    exec("\n".join(lines), scope)       # noqa: S102
    return scope["impl"]
