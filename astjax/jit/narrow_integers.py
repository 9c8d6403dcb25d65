"""`wrap_narrow(x, np.int32)`: a value of a narrow integer dtype, wrapped as NumPy wraps it.

Numba computes on integer scalars narrower than 64 bits in int64 (`int32 * int32` is an int64), and
its array-expression rewrite fuses `(a * b + 3) // 2` on int32 arrays into one loop that does the
same, storing only the final result as int32. `+ - *` wrap the same either way, but `//`, `%`, `>>`,
a comparison or a float conversion of the unwrapped intermediate do not: 50000 * 50000 // 2 is
1250000000 in int64 and -897483648 in NumPy's (and JAX's) int32. lower/narrow_integers.py wraps each
narrow integer operation in this helper: a scalar is cast back to its dtype, an array is returned as
it is (the call ends the array expression there, so the operation before it is stored, and wrapped,
in its own dtype).

`integer_true_divide(a, b, dtype)`: `a / b` of integer (or bool) operands, one of them an array, computed
in `dtype` (float64, NumPy's; float32 where the reference divided astjax int32 arrays, JAX's); Numba's
array `/` takes the first loop the operands cast to safely, float32 for int16 (`int16 / int16` lost half
the digits of 7 / 3 that NumPy's float64 keeps).

`int64_floor_divide(a, b)`: `a // b` of int64 scalars, with NumPy's `iinfo(int64).min // -1` (which wraps
to itself; LLVM's division is undefined there, and Numba gave 0).

`weak_int(k, np.int8)`: a Python int meeting an int8 array, which must fit int8: NumPy (and the reference
backend) raise OverflowError for `int8_array * 300`; a plain cast would wrap 300 to 44.
"""
import numpy as np
from numba import types
from numba.extending import overload

from ..runtime.numba_build import WITHOUT_WRAPPERS
from .lower.narrow_integers import NARROW_INTEGERS

__all__ = ["wrap_narrow", "weak_int", "integer_true_divide", "int64_floor_divide"]

_CASTS = {name: getattr(np, name) for name in NARROW_INTEGERS}


def wrap_narrow(x, dtype):
    raise NotImplementedError("wrap_narrow runs only in compiled code")


@overload(wrap_narrow, jit_options={"error_model": "numpy", **WITHOUT_WRAPPERS})
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


@overload(weak_int, jit_options={"error_model": "numpy", **WITHOUT_WRAPPERS})
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


def integer_true_divide(a, b, dtype):
    raise NotImplementedError("integer_true_divide runs only in compiled code")


def _integral(t):
    return isinstance(t.dtype if isinstance(t, types.Array) else t, (types.Integer, types.Boolean))


@overload(integer_true_divide, jit_options={"error_model": "numpy", **WITHOUT_WRAPPERS})
def _integer_true_divide(a, b, dtype):
    if not (_integral(a) and _integral(b)):
        return lambda a, b, dtype: a / b        # a float operand: Numba's loop is NumPy's
    if isinstance(a, types.Array) and isinstance(b, types.Array):
        return lambda a, b, dtype: a.astype(dtype) / b.astype(dtype)
    if isinstance(a, types.Array):
        return lambda a, b, dtype: a.astype(dtype) / dtype(b)
    if isinstance(b, types.Array):
        return lambda a, b, dtype: dtype(a) / b.astype(dtype)
    return lambda a, b, dtype: a / b            # two scalars: Numba divides them in float64, as before


def int64_floor_divide(a, b):
    raise NotImplementedError("int64_floor_divide runs only in compiled code")


@overload(int64_floor_divide, jit_options={"error_model": "numpy", **WITHOUT_WRAPPERS})
def _int64_floor_divide(a, b):
    if not (isinstance(a, types.Integer) and isinstance(b, types.Integer)):
        return lambda a, b: a // b

    def floor_divide(a, b):
        if b == -1:
            return -a                           # wraps for the most negative a, as NumPy's
        return a // b
    return floor_divide
