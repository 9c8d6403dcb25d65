"""Array creation with JAX's defaults: float32 unless told otherwise.

`zeros(5)`, `linspace(0, 1)`, `eye(3)`, `array([1.0, 2.0])` are float32 and
`arange(4)` is int32; `dtype=float` / `dtype=int` mean float32 / int32. A
NumPy array passed in keeps its dtype (`array(np.ones(3))` is float64).
"""
import numpy as np

from ._promote import (
    F32,
    I32,
    arg as _arg,
    convert as _convert,
    dtype_arg as _dtype_arg,
    key_of as _key_of,
    lub_of as _lub_of,
    nd as _nd,
    out as _out,
    plain as _plain,
    _to_inexact,
)


def _dtype_of(value):
    """The dtype `value` gets as an array (Python scalars: 32-bit)."""
    return _lub_of([_key_of(value)])


def _numbers(result):
    """`result` (an Array) when it holds numbers: a dict, None or ragged rows taken as entries is refused."""
    if result.dtype.kind == "O":
        from ..array import raise_object_array
        raise_object_array(result)
    return result


def array(object, dtype=None, copy=True, order="K", ndmin=0):
    """A new Array from `object`: Python floats -> float32, ints -> int32."""
    return _numbers(_array(object, dtype, copy, order, ndmin))


def _array(object, dtype, copy, order, ndmin):
    copy = copy or None  # NumPy's copy=False means "never copy"; JAX's means "may share"
    if dtype is not None:
        return _out(np.array(object, dtype=_dtype_arg(dtype, like=object), copy=copy, order=order,
                             ndmin=ndmin))
    if isinstance(object, (np.ndarray, np.generic)):
        return _out(np.array(object, copy=copy, order=order, ndmin=ndmin))
    arr = _convert(object)  # a fresh array already
    if ndmin > arr.ndim:
        arr = arr.reshape((1,) * (ndmin - arr.ndim) + arr.shape)
    return _out(arr)


def asarray(a, dtype=None, order=None, *, copy=None):
    """`a` as an Array, sharing memory with an ndarray `a` where possible."""
    if copy:
        return array(a, dtype=dtype, order=order or "K")
    if dtype is not None:
        return _numbers(_out(np.asarray(a, dtype=_dtype_arg(dtype, like=a), order=order)))
    return _numbers(_out(_arg(a)))


def ascontiguousarray(a, dtype=None, *, like=None):
    """`a` as an Array (astjax's arrays are always contiguous): asarray."""
    return asarray(a, dtype=dtype)


def asanyarray(a, dtype=None, order=None, *, like=None):
    """`a` as an Array (astjax has no array subclasses): asarray."""
    return asarray(a, dtype=dtype, order=order)


def asarray_chkfinite(a, dtype=None, order=None):
    """`a` as an Array, raising ValueError when it holds an infinity or a NaN (as NumPy)."""
    result = asarray(a, dtype=dtype, order=order)
    values = _nd(result)
    if values.dtype.kind in "fc" and not np.isfinite(values).all():
        raise ValueError("array must not contain infs or NaNs")
    return result


def require(a, dtype=None, requirements=None, *, like=None):
    """`a` as an Array of `dtype` (astjax's arrays are contiguous and aligned; "W" asks for a writable
    array, which astjax's immutable arrays never are: use a.at[...] updates)."""
    flags = {str(r).upper()[:1] for r in (requirements or ())} if not isinstance(requirements, str) \
        else {requirements.upper()[:1]}
    if "W" in flags:
        raise ValueError("require: astjax arrays are immutable, so requirements='W' (writable) cannot hold; "
                         "update them functionally with a.at[i].set(v)")
    return asarray(a, dtype=dtype)


def copy(a, order="K"):
    """A copy of `a` as an Array."""
    return _out(np.array(_nd(a), copy=True, order=order))


def astype(x, dtype, *, copy=False):
    """`x` cast to `dtype` (`float` means float32, `int` int32; float64 and int64 for a 64-bit x)."""
    x = _arg(x)
    return _out(x.astype(_dtype_arg(dtype, like=x), copy=copy))


def zeros(shape, dtype=None):
    """NumPy's zeros; float32 unless `dtype` is given."""
    return _out(np.zeros(shape, dtype=F32 if dtype is None else _dtype_arg(dtype)))


def ones(shape, dtype=None):
    """NumPy's ones; float32 unless `dtype` is given."""
    return _out(np.ones(shape, dtype=F32 if dtype is None else _dtype_arg(dtype)))


def empty(shape, dtype=None):
    """Like `zeros` (as in JAX, an "empty" array is filled with zeros)."""
    return _out(np.zeros(shape, dtype=F32 if dtype is None else _dtype_arg(dtype)))


def full(shape, fill_value, dtype=None):
    """NumPy's full; the dtype of `fill_value` (float32/int32 for Python scalars)."""
    dtype = _dtype_of(fill_value) if dtype is None else _dtype_arg(dtype)
    return _out(np.full(shape, fill_value, dtype=dtype))


def _like_shape_dtype(a, dtype, shape):
    return (np.shape(a) if shape is None else shape,
            _dtype_of(a) if dtype is None else _dtype_arg(dtype))


def zeros_like(a, dtype=None, shape=None):
    """Zeros with the shape and dtype of `a`."""
    shape, dtype = _like_shape_dtype(a, dtype, shape)
    return _out(np.zeros(shape, dtype=dtype))


def ones_like(a, dtype=None, shape=None):
    """Ones with the shape and dtype of `a`."""
    shape, dtype = _like_shape_dtype(a, dtype, shape)
    return _out(np.ones(shape, dtype=dtype))


def empty_like(a, dtype=None, shape=None):
    """Like `zeros_like` (JAX fills "empty" arrays with zeros)."""
    shape, dtype = _like_shape_dtype(a, dtype, shape)
    return _out(np.zeros(shape, dtype=dtype))


def full_like(a, fill_value, dtype=None, shape=None):
    """`fill_value` with the shape and dtype of `a`."""
    shape, dtype = _like_shape_dtype(a, dtype, shape)
    return _out(np.full(shape, fill_value, dtype=dtype))


def arange(start, stop=None, step=None, dtype=None):
    """NumPy's arange; int32 for int arguments, float32 otherwise."""
    if step is None:
        args = (start,) if stop is None else (start, stop)
    else:
        args = (0, start, step) if stop is None else (start, stop, step)
    if dtype is None:
        dtype = _lub_of(_key_of(v) for v in args)
        if dtype.kind == "b":
            dtype = I32
    else:
        dtype = _dtype_arg(dtype)
    return _out(np.arange(*args, dtype=dtype))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """NumPy's linspace; float32 unless an argument or `dtype` says otherwise."""
    if dtype is None:
        dtype = _to_inexact(_lub_of([_key_of(start), _key_of(stop)]))
    else:
        dtype = _dtype_arg(dtype)
    # Python scalars go in as they are: NumPy then computes in float64.
    result = np.linspace(_plain(start), _plain(stop), num, endpoint=endpoint, retstep=retstep,
                         dtype=dtype, axis=axis)
    if retstep:
        samples, step = result
        return _out(samples), _out(np.asarray(step, dtype=_to_inexact(dtype)))
    return _out(result)


def eye(N, M=None, k=0, dtype=None):
    """NumPy's eye; float32 unless `dtype` is given."""
    return _out(np.eye(N, M, k, dtype=F32 if dtype is None else _dtype_arg(dtype)))


def identity(n, dtype=None):
    """NumPy's identity; float32 unless `dtype` is given."""
    return _out(np.eye(n, dtype=F32 if dtype is None else _dtype_arg(dtype)))


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """NumPy's meshgrid, as a list of Arrays."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}.")
    grids = np.meshgrid(*(_nd(x) for x in xi), copy=copy, sparse=sparse, indexing=indexing)
    return [_out(g) for g in grids]


def diag(v, k=0):
    """NumPy's diag: the k-th diagonal of a 2-d array, or a diagonal matrix."""
    return _out(np.diag(_nd(v), k))


def tril(m, k=0):
    """NumPy's tril: zero above the k-th diagonal."""
    return _out(np.tril(_nd(m), k))


def triu(m, k=0):
    """NumPy's triu: zero below the k-th diagonal."""
    return _out(np.triu(_nd(m), k))


def diagflat(v, k=0):
    """NumPy's diagflat: the flattened `v` on the k-th diagonal of a square matrix."""
    return _out(np.diagflat(_nd(v), k))


def tri(N, M=None, k=0, dtype=None):
    """NumPy's tri: ones at and below the k-th diagonal; float32 unless `dtype` is given."""
    return _out(np.tri(N, M, k, dtype=F32 if dtype is None else _dtype_arg(dtype)))


def _int32_tuple(arrays):
    return tuple(_out(np.asarray(i, dtype=I32)) for i in arrays)


def tril_indices(n, k=0, m=None):
    """NumPy's tril_indices, as int32 Arrays."""
    return _int32_tuple(np.tril_indices(n, k, m))


def triu_indices(n, k=0, m=None):
    """NumPy's triu_indices, as int32 Arrays."""
    return _int32_tuple(np.triu_indices(n, k, m))


def tril_indices_from(arr, k=0):
    """NumPy's tril_indices_from, as int32 Arrays."""
    return _int32_tuple(np.tril_indices_from(_nd(arr), k))


def triu_indices_from(arr, k=0):
    """NumPy's triu_indices_from, as int32 Arrays."""
    return _int32_tuple(np.triu_indices_from(_nd(arr), k))


def diag_indices(n, ndim=2):
    """NumPy's diag_indices, as int32 Arrays."""
    return _int32_tuple(np.diag_indices(n, ndim))


def diag_indices_from(arr):
    """NumPy's diag_indices_from, as int32 Arrays."""
    return _int32_tuple(np.diag_indices_from(_nd(arr)))


def indices(dimensions, dtype=None, sparse=False):
    """NumPy's indices; int32 unless `dtype` is given."""
    result = np.indices(dimensions, dtype=I32 if dtype is None else _dtype_arg(dtype), sparse=sparse)
    return tuple(_out(r) for r in result) if sparse else _out(result)


def ix_(*args):
    """NumPy's ix_ of integer or boolean sequences, as Arrays."""
    arrays = [_nd(a) for a in args]
    for a in arrays:
        if a.dtype.kind not in "biu":
            raise TypeError(f"ix_: arguments must be integer or boolean sequences, got dtype {a.dtype}.")
    return tuple(_out(r) for r in np.ix_(*arrays))


def vander(x, N=None, increasing=False):
    """NumPy's vander: columns of powers of `x` (decreasing unless `increasing`)."""
    x = _nd(x)
    if x.dtype.kind in "biu":
        x = x.astype(I32)
    return _out(np.vander(x, N, increasing).astype(x.dtype, copy=False))


def _spaced_dtype(start, stop, dtype):
    if dtype is None:
        return _to_inexact(_lub_of([_key_of(start), _key_of(stop)]))
    return _dtype_arg(dtype)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """NumPy's logspace: `base ** linspace(start, stop)`; float32 unless told otherwise."""
    dtype = _spaced_dtype(start, stop, dtype)
    return _out(np.logspace(_plain(start), _plain(stop), num, endpoint, _plain(base), axis=axis).astype(dtype))


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """NumPy's geomspace: a geometric progression from start to stop; float32 unless told otherwise."""
    dtype = _spaced_dtype(start, stop, dtype)
    return _out(np.geomspace(_plain(start), _plain(stop), num, endpoint, axis=axis).astype(dtype))
