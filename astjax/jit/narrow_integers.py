"""`wrap_narrow(x, np.int32)`: a value of a narrow integer dtype, wrapped as NumPy wraps it.

Numba computes on integer scalars narrower than 64 bits in int64 (`int32 * int32` is an int64), and
its array-expression rewrite fuses `(a * b + 3) // 2` on int32 arrays into one loop that does the
same, storing only the final result as int32. `+ - *` wrap the same either way, but `//`, `%`, `>>`,
a comparison or a float conversion of the unwrapped intermediate do not: 50000 * 50000 // 2 is
1250000000 in int64 and -897483648 in NumPy's (and JAX's) int32. lower/narrow_integers.py wraps each
narrow integer operation in this helper: a scalar is cast back to its dtype, an array is returned as
it is (the call ends the array expression there, so the operation before it is stored, and wrapped,
in its own dtype).

`weak_int(k, np.int8)`: a Python int meeting an int8 array, which must fit int8: NumPy (and the reference
backend) raise OverflowError for `int8_array * 300`; a plain cast would wrap 300 to 44.
"""
import numpy as np
from numba import types
from numba.extending import overload

from .lower.narrow_integers import NARROW_INTEGERS

__all__ = ["wrap_narrow", "weak_int"]

_CASTS = {name: getattr(np, name) for name in NARROW_INTEGERS}


def wrap_narrow(x, dtype):
    raise NotImplementedError("wrap_narrow runs only in compiled code")


@overload(wrap_narrow, jit_options={"error_model": "numpy"})
def _wrap_narrow(x, dtype):
    target = getattr(dtype, "instance_type", None)
    if isinstance(x, types.Array):
        if x.dtype == target:
            return lambda x, dtype: x
        return lambda x, dtype: x.astype(dtype)
    if isinstance(target, types.Boolean) and isinstance(x, (types.Integer, types.Boolean)):
        return lambda x, dtype: x != 0          # NumPy's True + True is True (or), Numba's 2
    cast = _CASTS.get(str(target))
    if cast is None or not isinstance(x, (types.Integer, types.Boolean)):
        return lambda x, dtype: x
    return lambda x, dtype: cast(x)


def weak_int(value, dtype):
    raise NotImplementedError("weak_int runs only in compiled code")


@overload(weak_int, jit_options={"error_model": "numpy"})
def _weak_int(value, dtype):
    target = getattr(dtype, "instance_type", None)
    name = str(target)
    cast = getattr(np, name, None)
    if cast is None or not isinstance(value, types.Integer) or not name.startswith(("int", "uint")):
        return lambda value, dtype: dtype(value)
    info = np.iinfo(name)
    low, high = int(info.min), int(info.max)
    message = f"Python integer out of bounds for {name}"
    if name == "uint64":
        def check_unsigned(value, dtype):
            if value < 0:
                raise OverflowError(message)
            return cast(value)
        return check_unsigned
    if name == "int64":
        return lambda value, dtype: cast(value)

    def check(value, dtype):
        if value < low or value > high:
            raise OverflowError(message)
        return cast(value)
    return check
