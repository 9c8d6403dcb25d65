"""JAX's dtype defaults: float32 and int32 unless the user asks for more.

A Python float becomes float32 and a Python int int32; a NumPy array keeps
its dtype (an explicit float64 array stays float64, as under JAX's x64 mode).
"""
import numpy as np

float32 = np.float32
float64 = np.float64
float16 = np.float16
int8 = np.int8
int16 = np.int16
int32 = np.int32
int64 = np.int64
uint8 = np.uint8
uint32 = np.uint32
bool_ = np.bool_
complex64 = np.complex64
float0 = np.dtype([("float0", np.void, 0)])   # the tangent and gradient of an integer or boolean, as in JAX

default_float = np.dtype(np.float32)
default_int = np.dtype(np.int32)

_PYTHON_DEFAULTS = {float: default_float, int: default_int, bool: np.dtype(np.bool_)}


_PYTHON_X64 = {float: np.dtype(np.float64), int: np.dtype(np.int64)}


def canonicalize(dtype, like=None):
    """The dtype a user's `dtype=` argument names (`float` means float32).

    Converting an array `like` that is 64-bit already (`x.astype(float)`, `x.astype(int)`, `jnp.asarray(x,
    dtype=float)` of a float64 or int64 x), `float` and `int` name the 64-bit types, as under JAX's
    x64 mode (which a float64 array stands for) and as NumPy: a float64 array is never rounded to float32."""
    if dtype is None:
        return None
    if dtype in _PYTHON_DEFAULTS:
        if like is not None and dtype in _PYTHON_X64 and _is_64_bit(like):
            return _PYTHON_X64[dtype]
        return _PYTHON_DEFAULTS[dtype]
    return np.dtype(dtype)


def _is_64_bit(like):
    dtype = getattr(like, "dtype", None)
    return dtype is not None and dtype.kind in "iufc" and dtype.itemsize >= (16 if dtype.kind == "c" else 8)


def default_dtype_of(value):
    """The dtype astjax gives `value` when it becomes an array."""
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        return value.dtype
    if isinstance(value, bool):
        return np.dtype(np.bool_)
    if isinstance(value, int):
        return default_int
    if isinstance(value, float):
        return default_float
    if isinstance(value, complex):
        return np.dtype(np.complex64)
    arr = np.asarray(value)
    if arr.dtype == np.float64:
        return default_float
    if arr.dtype == np.int64:
        return default_int
    if arr.dtype == np.complex128:
        return np.dtype(np.complex64)
    return arr.dtype


def is_float(dtype):
    return np.issubdtype(np.dtype(dtype), np.inexact)
