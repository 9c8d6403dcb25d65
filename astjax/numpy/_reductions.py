"""Reductions (sum, mean, max, argmax, ...) with JAX's result dtypes.

* sum, prod, cumsum and cumprod accumulate bools and small ints in int32
  (unsigned ones in uint32): JAX's `int32.sum()` is int32 where NumPy's is
  int64;
* mean, var and std of ints and bools are float32;
* argmax, argmin (and argsort) give int32 indices.

Reductions call the ufunc's `reduce` (or the ndarray method) on a plain
ndarray view, which is several times cheaper than `np.sum` on an Array.
"""
import contextlib
import warnings

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


# ------------------------------------------------------ NaN-ignoring reductions (issue 9)


def _nan_filled(a, fill):
    """`a` as a plain ndarray with NaNs replaced by `fill` (ints and bools cannot hold NaN)."""
    a = _nd(a)
    if a.dtype.kind not in "fc":
        return a
    return np.where(np.isnan(a), np.asarray(fill, dtype=a.dtype), a)


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """sum treating NaN as zero; bools and small ints accumulate in int32 as in JAX."""
    _check_no_out(out, "nansum")
    return sum(_nan_filled(a, 0), axis, dtype, None, keepdims, initial, where)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """prod treating NaN as one; bools and small ints accumulate in int32 as in JAX."""
    _check_no_out(out, "nanprod")
    return prod(_nan_filled(a, 1), axis, dtype, None, keepdims, initial, where)


def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """max ignoring NaN (NaN for an all-NaN slice, without NumPy's warning); keeps the dtype."""
    _check_no_out(out, "nanmax")
    a = _nd(a)
    with np.errstate(invalid="ignore"), _quiet():
        return _out(np.nanmax(a, axis=axis, keepdims=keepdims, **_extremum_kw(initial, where)))


def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """min ignoring NaN (NaN for an all-NaN slice, without NumPy's warning); keeps the dtype."""
    _check_no_out(out, "nanmin")
    a = _nd(a)
    with np.errstate(invalid="ignore"), _quiet():
        return _out(np.nanmin(a, axis=axis, keepdims=keepdims, **_extremum_kw(initial, where)))


def _extremum_kw(initial, where):
    kwargs = {}
    if initial is not None:
        kwargs["initial"] = initial
    if where is not None:
        kwargs["where"] = _nd(where)
    return kwargs


@contextlib.contextmanager
def _quiet():
    """NumPy's "All-NaN slice" / "Mean of empty slice" warnings off: JAX returns NaN silently."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    """mean of the non-NaN elements (NaN for an all-NaN slice); float32 for ints and bools."""
    _check_no_out(out, "nanmean")
    a = _nd(a)
    with _quiet():
        return _out(np.asarray(np.nanmean(a, axis, _float_dtype(a, dtype), keepdims=keepdims, **_where_kw(where))))


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None):
    """var of the non-NaN elements; float32 for ints and bools."""
    _check_no_out(out, "nanvar")
    a = _nd(a)
    with _quiet():
        return _out(np.asarray(np.nanvar(a, axis, _float_dtype(a, dtype), ddof=ddof, keepdims=keepdims,
                                         **_where_kw(where))))


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None):
    """std of the non-NaN elements; float32 for ints and bools."""
    _check_no_out(out, "nanstd")
    a = _nd(a)
    with _quiet():
        return _out(np.asarray(np.nanstd(a, axis, _float_dtype(a, dtype), ddof=ddof, keepdims=keepdims,
                                         **_where_kw(where))))


def nancumsum(a, axis=None, dtype=None, out=None):
    """cumsum treating NaN as zero (flattening when axis=None)."""
    _check_no_out(out, "nancumsum")
    return _accumulate(np.add, _nan_filled(a, 0), axis, dtype)


def nancumprod(a, axis=None, dtype=None, out=None):
    """cumprod treating NaN as one (flattening when axis=None)."""
    _check_no_out(out, "nancumprod")
    return _accumulate(np.multiply, _nan_filled(a, 1), axis, dtype)


def nanargmax(a, axis=None, out=None, keepdims=False):
    """argmax ignoring NaN, int32; an all-NaN slice gives -1 (JAX's convention; NumPy raises)."""
    _check_no_out(out, "nanargmax")
    return _nan_arg(np.argmax, a, axis, keepdims, -np.inf)


def nanargmin(a, axis=None, out=None, keepdims=False):
    """argmin ignoring NaN, int32; an all-NaN slice gives -1 (JAX's convention; NumPy raises)."""
    _check_no_out(out, "nanargmin")
    return _nan_arg(np.argmin, a, axis, keepdims, np.inf)


def _nan_arg(arg, a, axis, keepdims, fill):
    a = _nd(a)
    if a.dtype.kind not in "fc":
        return _out(np.asarray(arg(a, axis=axis, keepdims=keepdims), dtype=I32))
    nan = np.isnan(a)
    index = np.asarray(arg(np.where(nan, fill, a), axis=axis, keepdims=keepdims), dtype=I32)
    all_nan = nan.all(axis=axis, keepdims=keepdims)
    return _out(np.where(all_nan, np.int32(-1), index).astype(I32))


# ------------------------------------------------------------ more reductions (issue 9)


def ptp(a, axis=None, out=None, keepdims=False):
    """max - min along `axis` (peak to peak); keeps the dtype."""
    _check_no_out(out, "ptp")
    a = _nd(a)
    return _out(np.subtract(np.max(a, axis=axis, keepdims=keepdims), np.min(a, axis=axis, keepdims=keepdims)))


def count_nonzero(a, axis=None, keepdims=False):
    """How many elements are not zero, as int32 (JAX's dtype)."""
    return _out(np.asarray(np.count_nonzero(_nd(a), axis=axis, keepdims=keepdims), dtype=I32))


def _cumulative(ufunc, x, axis, dtype, include_initial):
    x = _nd(x)
    if axis is None:
        if x.ndim > 1:
            raise ValueError("cumulative_sum/cumulative_prod: axis must be given for an array of more than one "
                             "dimension")
        axis = 0
    if x.ndim == 0:
        raise ValueError("cumulative_sum/cumulative_prod: the input must have at least one dimension")
    result = _accumulate(ufunc, x, axis, dtype)
    if include_initial:
        shape = list(result.shape)
        shape[axis] = 1
        first = np.full(shape, ufunc.identity, dtype=result.dtype)
        result = _out(np.concatenate([first, np.asarray(result)], axis=axis))
    return result


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """The Array API's cumsum: axis required beyond 1-D; include_initial=True starts with a 0."""
    return _cumulative(np.add, x, axis, dtype, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """The Array API's cumprod: axis required beyond 1-D; include_initial=True starts with a 1."""
    return _cumulative(np.multiply, x, axis, dtype, include_initial)
