"""Dtype names and dtype queries, with JAX's promotion rules.

The scalar types are NumPy's (`jnp.float32 is np.float32`), so they work as
`dtype=` arguments everywhere; `result_type` and `promote_types` follow JAX's
lattice, where Python scalars are weak and ints meet floats at the float.
"""
import numpy as np

from ._promote import _concrete, _lub, key_of as _key_of, lub_of as _lub_of

float16 = np.float16
float32 = np.float32
float64 = np.float64
int8 = np.int8
int16 = np.int16
int32 = np.int32
int64 = np.int64
uint8 = np.uint8
uint16 = np.uint16
uint32 = np.uint32
uint64 = np.uint64
bool_ = np.bool_
complex64 = np.complex64
complex128 = np.complex128

generic = np.generic
number = np.number
inexact = np.inexact
floating = np.floating
complexfloating = np.complexfloating
integer = np.integer
signedinteger = np.signedinteger
unsignedinteger = np.unsignedinteger

dtype = np.dtype
finfo = np.finfo
iinfo = np.iinfo


def issubdtype(arg1, arg2):
    """NumPy's issubdtype (`issubdtype(jnp.float32, jnp.floating)`)."""
    return np.issubdtype(arg1, arg2)


def result_type(*args):
    """JAX's result dtype of `args` (arrays, dtypes or Python scalars, the latter weak)."""
    if not args:
        raise ValueError("result_type: at least one array or dtype is required.")
    return _lub_of(_key_of(a) for a in args)


def promote_types(a, b):
    """JAX's promotion of two dtypes (`int32` with `float32` is float32)."""
    return _concrete(_lub(_key_of(np.dtype(a)), _key_of(np.dtype(b))))


def can_cast(from_, to, casting="safe"):
    """NumPy's can_cast."""
    return np.can_cast(from_, to, casting)


def common_type(*arrays):
    """The inexact scalar type of `arrays` (NumPy's common_type with JAX's default: integers give float32)."""
    if not arrays:
        raise ValueError("common_type: at least one array is required")
    kinds = [np.asarray(a).dtype for a in arrays]
    for d in kinds:
        if d.kind not in "biufc":
            raise TypeError("can't get common type for non-numeric array")
    inexact = [d if d.kind in "fc" else np.dtype(np.float32) for d in kinds]
    complex_ = any(d.kind == "c" for d in inexact)
    bits = max(d.itemsize * (4 if d.kind == "c" else 8) for d in inexact)
    if complex_:
        return np.complex128 if bits > 32 else np.complex64
    return {16: np.float16, 32: np.float32}.get(bits, np.float64)


def inexact_zero(operands):
    """JAX's promote_args_inexact as one zero to add to each operand: zeros of the operands' broadcast shape in
    their common inexact dtype (a Python number is weak). It reads only shapes and dtypes, so adding it gives
    each operand the common shape and dtype without letting one operand's derivative reach another."""
    from . import zeros
    shape = np.broadcast_shapes(*(np.shape(operand) for operand in operands))
    return zeros(shape, dtype=result_type(*operands, 0.0))
