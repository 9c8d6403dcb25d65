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

default_float = np.dtype(np.float32)
default_int = np.dtype(np.int32)

_PYTHON_DEFAULTS = {float: default_float, int: default_int, bool: np.dtype(np.bool_)}


def canonicalize(dtype):
    """The dtype a user's `dtype=` argument names (`float` means float32)."""
    if dtype is None:
        return None
    if dtype in _PYTHON_DEFAULTS:
        return _PYTHON_DEFAULTS[dtype]
    return np.dtype(dtype)


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
