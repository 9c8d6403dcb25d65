"""Products and traces: dot, matmul, einsum, ... with JAX's type promotion.

`precision=` is accepted and ignored (NumPy computes at full precision);
`preferred_element_type=` casts the operands first, so the product is
accumulated and returned in that dtype.
"""
import numpy as np

from ._promote import (
    check_no_out as _check_no_out,
    dtype_arg as _dtype_arg,
    nd as _nd,
    out as _out,
    plain as _plain,
    promote as _promote,
    promote_all as _promote_all,
)
from ._reductions import _ACCUMULATE


def _operands(a, b, preferred_element_type):
    """Both operands as plain ndarrays of one dtype (np.dot & co. are not
    NEP 50 ufuncs: a Python scalar operand would make them float64)."""
    if preferred_element_type is not None:
        dtype = _dtype_arg(preferred_element_type)
        return _nd(a).astype(dtype, copy=False), _nd(b).astype(dtype, copy=False)
    a, b = _promote(a, b)
    if not isinstance(a, np.ndarray):
        a = np.asarray(a, dtype=getattr(b, "dtype", None))
    if not isinstance(b, np.ndarray):
        b = np.asarray(b, dtype=a.dtype)
    return _plain(a), _plain(b)


def dot(a, b, *, precision=None, preferred_element_type=None):
    """NumPy's dot with JAX's type promotion."""
    a, b = _operands(a, b, preferred_element_type)
    return _out(np.dot(a, b))


def matmul(a, b, *, precision=None, preferred_element_type=None):
    """NumPy's matmul with JAX's type promotion."""
    a, b = _operands(a, b, preferred_element_type)
    return _out(np.matmul(a, b, subok=False))


def vdot(a, b, *, precision=None, preferred_element_type=None):
    """NumPy's vdot (conjugates `a`, flattens both) with JAX's type promotion."""
    a, b = _operands(a, b, preferred_element_type)
    return _out(np.vdot(a, b))


def inner(a, b, *, precision=None, preferred_element_type=None):
    """NumPy's inner with JAX's type promotion."""
    a, b = _operands(a, b, preferred_element_type)
    return _out(np.inner(a, b))


def outer(a, b, out=None):
    """NumPy's outer (inputs flattened) with JAX's type promotion."""
    _check_no_out(out, "outer")
    a, b = _operands(a, b, None)
    return _out(np.outer(a, b))


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None):
    """NumPy's tensordot with JAX's type promotion."""
    a, b = _operands(a, b, preferred_element_type)
    return _out(np.tensordot(a, b, axes))


def einsum(subscripts, *operands, out=None, optimize="auto", precision=None,
           preferred_element_type=None):
    """NumPy's einsum with JAX's type promotion; optimize="auto" optimizes the
    contraction order for three or more operands."""
    _check_no_out(out, "einsum")
    if optimize == "auto":
        optimize = len(operands) > 2
    if not isinstance(subscripts, str):  # the interleaved (operand, sublist, ...) form
        return _out(np.einsum(_nd(subscripts), *operands, optimize=optimize))
    if preferred_element_type is not None:
        dtype = _dtype_arg(preferred_element_type)
        operands = [_nd(x).astype(dtype, copy=False) for x in operands]
    else:
        operands = _promote_all(_nd(x) for x in operands)
    return _out(np.einsum(subscripts, *operands, optimize=optimize))


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """NumPy's trace; small ints and bools sum in int32, as in JAX."""
    _check_no_out(out, "trace")
    a = _nd(a)
    dtype = _ACCUMULATE.get(a.dtype) if dtype is None else _dtype_arg(dtype)
    return _out(a.trace(offset, axis1, axis2, dtype))
