"""Reductions (sum, mean, max, argmax, ...) with JAX's result dtypes.

* sum, prod, cumsum and cumprod accumulate bools and small ints in int32
  (unsigned ones in uint32): JAX's `int32.sum()` is int32 where NumPy's is
  int64;
* mean, var and std of ints and bools are float32;
* argmax, argmin (and argsort) give int32 indices.

Reductions call the ufunc's `reduce` (or the ndarray method) on a plain
ndarray view, which is several times cheaper than `np.sum` on an Array.
"""
import numpy as np

from ._promote import (
    F32,
    I32,
    check_no_out as _check_no_out,
    dtype_arg as _dtype_arg,
    nd as _nd,
    out as _out,
    promote as _promote,
)

_U32 = np.dtype(np.uint32)
# The dtype JAX sums a dtype in, where NumPy's default differs.
_ACCUMULATE = {
    np.dtype(np.bool_): I32,
    np.dtype(np.int8): I32,
    np.dtype(np.int16): I32,
    I32: I32,
    np.dtype(np.uint8): _U32,
    np.dtype(np.uint16): _U32,
    _U32: _U32,
}


def _reduce(ufunc, a, axis, dtype, keepdims, initial, where):
    if initial is None and where is None:
        return ufunc.reduce(a, axis=axis, dtype=dtype, keepdims=keepdims)
    kwargs = {}
    if initial is not None:
        kwargs["initial"] = initial
    if where is not None:
        kwargs["where"] = _nd(where)
    return ufunc.reduce(a, axis=axis, dtype=dtype, keepdims=keepdims, **kwargs)


def _float_dtype(a, dtype):
    """JAX's dtype for mean/var/std: the user's, else float32 for ints."""
    if dtype is not None:
        return _dtype_arg(dtype)
    return None if a.dtype.kind in "fc" else F32


def _where_kw(where):
    return {} if where is None else {"where": _nd(where)}


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """NumPy's sum; bools and small ints accumulate in int32 as in JAX."""
    _check_no_out(out, "sum")
    a = _nd(a)
    dtype = _ACCUMULATE.get(a.dtype) if dtype is None else _dtype_arg(dtype)
    return _out(_reduce(np.add, a, axis, dtype, keepdims, initial, where))


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """NumPy's prod; bools and small ints accumulate in int32 as in JAX."""
    _check_no_out(out, "prod")
    a = _nd(a)
    dtype = _ACCUMULATE.get(a.dtype) if dtype is None else _dtype_arg(dtype)
    return _out(_reduce(np.multiply, a, axis, dtype, keepdims, initial, where))


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """NumPy's max (NaN-propagating); keeps the input dtype."""
    _check_no_out(out, "max")
    return _out(_reduce(np.maximum, _nd(a), axis, None, keepdims, initial, where))


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """NumPy's min (NaN-propagating); keeps the input dtype."""
    _check_no_out(out, "min")
    return _out(_reduce(np.minimum, _nd(a), axis, None, keepdims, initial, where))


amax = max
amin = min


def argmax(a, axis=None, out=None, keepdims=False):
    """NumPy's argmax with int32 indices, as in JAX."""
    _check_no_out(out, "argmax")
    return _out(np.asarray(_nd(a).argmax(axis=axis, keepdims=keepdims), dtype=I32))


def argmin(a, axis=None, out=None, keepdims=False):
    """NumPy's argmin with int32 indices, as in JAX."""
    _check_no_out(out, "argmin")
    return _out(np.asarray(_nd(a).argmin(axis=axis, keepdims=keepdims), dtype=I32))


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """NumPy's mean; float32 for ints and bools."""
    _check_no_out(out, "mean")
    a = _nd(a)
    return _out(a.mean(axis, _float_dtype(a, dtype), keepdims=keepdims, **_where_kw(where)))


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        correction=None):
    """NumPy's var; float32 for ints and bools (`correction` aliases ddof)."""
    _check_no_out(out, "var")
    a = _nd(a)
    ddof = ddof if correction is None else correction
    return _out(a.var(axis, _float_dtype(a, dtype), ddof=ddof, keepdims=keepdims,
                      **_where_kw(where)))


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        correction=None):
    """NumPy's std; float32 for ints and bools (`correction` aliases ddof)."""
    _check_no_out(out, "std")
    a = _nd(a)
    ddof = ddof if correction is None else correction
    return _out(a.std(axis, _float_dtype(a, dtype), ddof=ddof, keepdims=keepdims,
                      **_where_kw(where)))


def _accumulate(ufunc, a, axis, dtype):
    a = _nd(a)
    if axis is None:
        a, axis = a.ravel(), 0
    dtype = _ACCUMULATE.get(a.dtype) if dtype is None else _dtype_arg(dtype)
    return _out(ufunc.accumulate(a, axis=axis, dtype=dtype))


def cumsum(a, axis=None, dtype=None, out=None):
    """NumPy's cumsum (flattening when axis=None); small ints in int32."""
    _check_no_out(out, "cumsum")
    return _accumulate(np.add, a, axis, dtype)


def cumprod(a, axis=None, dtype=None, out=None):
    """NumPy's cumprod (flattening when axis=None); small ints in int32."""
    _check_no_out(out, "cumprod")
    return _accumulate(np.multiply, a, axis, dtype)


def all(a, axis=None, out=None, keepdims=False, *, where=None):
    """NumPy's all (bool result)."""
    _check_no_out(out, "all")
    return _out(_nd(a).all(axis=axis, keepdims=keepdims, **_where_kw(where)))


def any(a, axis=None, out=None, keepdims=False, *, where=None):
    """NumPy's any (bool result)."""
    _check_no_out(out, "any")
    return _out(_nd(a).any(axis=axis, keepdims=keepdims, **_where_kw(where)))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """NumPy's isclose, comparing in JAX's promoted dtype."""
    a, b = _promote(a, b)
    return _out(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """NumPy's allclose, as a 0-d bool Array (as JAX returns)."""
    a, b = _promote(a, b)
    return _out(np.asarray(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)))
