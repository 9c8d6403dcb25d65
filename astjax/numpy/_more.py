"""The last jax.numpy functions (issue 9): products, tuple-valued math, immutable updates, fitting, utilities.

Differentiable ones are primitives with VJP and JVP rules (astjax/rules/more.py):
`vecdot`, `matvec`, `vecmat`, `modf`, `frexp`, `divmod`, `unwrap`, `angle` (real
input: zero derivative; complex input refused), `partition`, `kaiser` (in beta),
`fill_diagonal`, `place`, `put`, `polyfit` (in y; in x refused). Non-differentiable
ones are declared there with their reason (`einsum_path`, `isdtype`,
`mask_indices`). The rest are plain functions that astjax refuses where a
derivative reaches them (they run on values that carry none): higher-order
helpers (`vectorize`, `apply_over_axes`, `fromfunction`; `apply_along_axis` and
`piecewise` of a function known when transforming are rewritten into code the
transformations read: frontend/normalize/per_slice_calls.py), histograms (their bin edges move with the data), complex
results (`roots`, `poly`, `polydiv`, `sort_complex`), input/output and printing.

As in JAX, arrays are immutable: `put`, `place` and `fill_diagonal` return a new
array and raise ValueError unless called with `inplace=False`.
"""
import builtins
import contextlib

import numpy as np

from ._promote import F32, I32, check_no_out, inexact_arg, nd, out, promote, promote_inexact

__all__ = ["angle", "apply_along_axis", "apply_over_axes", "array_repr", "array_str", "divmod", "einsum_path",
           "copyto", "fill_diagonal", "frexp", "from_dlpack", "frombuffer", "fromfile", "fromfunction", "fromiter",
           "fromstring", "get_printoptions", "histogram", "histogram2d", "histogram_bin_edges", "histogramdd",
           "isdtype", "kaiser", "load", "mask_indices", "matvec", "modf", "partition", "piecewise", "place",
           "poly", "polydiv", "polyfit", "printoptions", "put", "put_along_axis", "roots", "save", "savez", "set_printoptions",
           "sort_complex", "unwrap", "vecdot", "vecmat", "vectorize"]


def _pair(x1, x2):
    x1, x2 = promote(x1, x2)
    return nd(x1), nd(x2)


def _immutable(name, inplace):
    if inplace:
        raise ValueError(f"jax.numpy.{name} cannot modify arrays in-place, because JAX arrays are immutable. "
                         f"Pass inplace=False to instead return an updated array.")


# ------------------------------------------------------------------ products
def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """sum(conj(x1) * x2) over `axis` of the broadcast operands (the array API's vecdot)."""
    x1, x2 = _pair(x1, x2)
    x1, x2 = np.broadcast_arrays(x1, x2)
    result = np.sum(np.conj(x1) * x2, axis=axis)
    return out(np.asarray(result if preferred_element_type is None else result.astype(preferred_element_type)))


def matvec(x1, x2, /):
    """The matrix-vector product over the last axes: x1 (..., m, n), x2 (..., n) -> (..., m)."""
    x1, x2 = _pair(x1, x2)
    return out(np.asarray(np.matmul(x1, x2[..., None])[..., 0]))


def vecmat(x1, x2, /):
    """The vector-matrix product over the last axes: conj(x1) (..., m), x2 (..., m, n) -> (..., n)."""
    x1, x2 = _pair(x1, x2)
    return out(np.asarray(np.matmul(np.conj(x1)[..., None, :], x2)[..., 0, :]))


# ------------------------------------------------------------------ tuple-valued math
def modf(x, /, out=None):
    """(fractional part, integral part) of x, both with x's sign, as floats (int input gives float32)."""
    check_no_out(out, "modf")
    x = nd(inexact_arg(x))
    fraction, integral = np.modf(x)
    return _wrap(fraction), _wrap(integral)


def frexp(x, /):
    """(mantissa, exponent) with x = mantissa * 2**exponent, 0.5 <= |mantissa| < 1; exponent int32."""
    x = nd(inexact_arg(x))
    mantissa, exponent = np.frexp(x)
    return _wrap(mantissa), _wrap(exponent.astype(I32))


def divmod(x1, x2, /):
    """(floor_divide(x1, x2), mod(x1, x2)) with JAX's type promotion."""
    x1, x2 = _pair(x1, x2)
    quotient, remainder = np.divmod(x1, x2)
    return _wrap(quotient), _wrap(remainder)


def _wrap(r):
    return out(np.asarray(r))


# ------------------------------------------------------------------ elementwise with a derivative
def unwrap(p, discont=None, axis=-1, period=2 * np.pi):
    """p with jumps larger than max(discont, period / 2) along `axis` removed by adding multiples of period."""
    p = nd(inexact_arg(p))
    return out(np.asarray(np.unwrap(p, discont=discont, axis=axis, period=period), dtype=p.dtype))


def angle(z, deg=False):
    """The counterclockwise angle of z in the complex plane (radians, or degrees with deg=True)."""
    z = nd(inexact_arg(z))
    dtype = np.finfo(z.dtype).dtype
    return out(np.asarray(np.angle(z, deg=deg), dtype=dtype))


def partition(a, kth, axis=-1):
    """a rearranged so that position kth along `axis` holds the value it has sorted, smaller ones before it
    and larger ones after (the order inside each side as NumPy's argpartition leaves it)."""
    a = nd(a)
    order = np.argpartition(a, kth, axis=axis)
    return out(np.take_along_axis(a, order, axis=axis))


def kaiser(M, beta):
    """The Kaiser window of length M: i0(beta * sqrt(1 - (2n / (M - 1) - 1)**2)) / i0(beta)."""
    beta = nd(inexact_arg(beta))
    M = int(M)
    if M < 1:
        return out(np.zeros(0, dtype=beta.dtype))
    if M == 1:
        return out(np.ones(1, dtype=beta.dtype))
    n = np.arange(M, dtype=beta.dtype)
    ratio = 2.0 * n / (M - 1) - 1.0
    return out(np.asarray(np.i0(beta * np.sqrt(1.0 - ratio * ratio)) / np.i0(beta), dtype=beta.dtype))


# ------------------------------------------------------------------ immutable updates
def fill_diagonal(a, val, wrap=False, *, inplace=True):
    """A copy of a with its main diagonal set to val (repeated cyclically if it is an array)."""
    _immutable("fill_diagonal", inplace)
    result = np.array(nd(a), copy=True)
    if result.ndim < 2:
        raise ValueError("array must be at least 2-d")
    np.fill_diagonal(result, np.asarray(nd(val)).astype(result.dtype), wrap=wrap)
    return out(result)


def place(arr, mask, vals, *, inplace=True):
    """A copy of arr whose entries where mask is True are vals, used in order and repeated cyclically."""
    _immutable("place", inplace)
    result = np.array(nd(arr), copy=True)
    np.place(result, np.asarray(nd(mask), dtype=bool), np.ravel(nd(vals)).astype(result.dtype))
    return out(result)


def put(a, ind, v, mode=None, *, inplace=True):
    """A copy of a whose flat entries at `ind` are v (repeated cyclically); out-of-range indices are clipped
    (mode None or "clip", as in JAX) or wrapped ("wrap"); where an index repeats, the last value wins."""
    _immutable("put", inplace)
    result = np.array(nd(a), copy=True)
    np.put(result, put_indices(result.size, ind, mode), np.ravel(nd(v)).astype(result.dtype))
    return out(result)


def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
    """A copy of arr with `values` (broadcast to indices' shape) written where take_along_axis(arr, indices,
    axis) reads; where a position is written twice, the last write (in C order) wins, as in NumPy."""
    _immutable("put_along_axis", inplace)
    if mode is not None:
        raise ValueError(f"jax.numpy.put_along_axis: astjax supports mode=None only (out-of-range indices "
                         f"raise IndexError), got mode={mode!r}")
    result = np.array(nd(arr), copy=True)
    np.put_along_axis(result, np.asarray(nd(indices)), np.asarray(nd(values)).astype(result.dtype), axis)
    return out(result)


def put_indices(size, ind, mode):
    """The flat indices `put` writes at, after applying its `mode` (shared with put's rules)."""
    ind = np.ravel(np.asarray(nd(ind), dtype=np.int64))
    if mode in (None, "clip"):
        return np.clip(np.where(ind < 0, ind + size, ind), 0, builtins.max(size - 1, 0))
    if mode == "wrap":
        return np.mod(ind, size) if size else ind
    if mode == "raise":
        raise ValueError("jax.numpy.put: mode='raise' is not supported (JAX does not support it either); "
                         "use mode='clip' or mode='wrap'")
    raise ValueError(f"jax.numpy.put: mode must be None, 'clip' or 'wrap', got {mode!r}")


def copyto(dst, src, casting="same_kind", where=True):
    """Always an error: astjax's arrays are immutable, so nothing can be copied into one (JAX has no copyto)."""
    raise TypeError("jnp.copyto: astjax arrays are immutable and cannot be written into; build the new array "
                    "instead: jnp.where(where, src, dst), or dst.at[index].set(src)")


# ------------------------------------------------------------------ fitting
def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least-squares polynomial coefficients (highest power first) of degree deg fitting y at x."""
    x, y = nd(inexact_arg(x)), nd(inexact_arg(y))
    dtype = np.result_type(x, y)
    if full or cov:
        result = np.polyfit(x, y, deg, rcond=rcond, full=full, w=None if w is None else nd(w), cov=cov)
        return tuple(out(np.asarray(r)) for r in result)
    coefficients = np.polyfit(x, y, deg, rcond=rcond, w=None if w is None else nd(w))
    return out(np.asarray(coefficients, dtype=dtype))


# ------------------------------------------------------------------ no derivative (declared in rules/more.py)
def einsum_path(subscripts, /, *operands, optimize="auto"):
    """NumPy's einsum_path: the contraction order and its description (they depend only on shapes)."""
    optimize = "greedy" if optimize == "auto" else optimize
    return np.einsum_path(subscripts, *(nd(o) for o in operands), optimize=optimize)


def isdtype(dtype, kind):
    """Whether `dtype` is of `kind` (a dtype, a kind name such as "real floating", or a tuple of them)."""
    return bool(np.isdtype(np.dtype(dtype), kind))


def mask_indices(n, mask_func, k=0, *, size=None):
    """The (row, column) indices where mask_func(ones((n, n)), k) is nonzero, int32."""
    mask = np.asarray(mask_func(np.ones((n, n), dtype=I32), k)) != 0
    rows, cols = np.nonzero(mask)
    return out(rows.astype(I32)), out(cols.astype(I32))


# ------------------------------------------------------------------ refused under a derivative
def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
    """pyfunc applied over the broadcast leading axes of its arguments (a Python loop; astjax refuses it where
    a derivative reaches it: use astjax.vmap for differentiable batching)."""
    def vectorized(*args, **kwargs):
        return _vectorized_call(pyfunc, excluded, signature, args, kwargs)
    vectorized.__name__ = getattr(pyfunc, "__name__", "vectorized")
    vectorized.__doc__ = getattr(pyfunc, "__doc__", None)
    return vectorized


def _core_dims(signature):
    inputs, outputs = signature.replace(" ", "").split("->")

    def parse(text):
        return [tuple(d for d in group.split(",") if d) for group in text[1:-1].split("),(")] if text else []
    return parse(inputs), parse(outputs)


def _vectorized_call(pyfunc, excluded, signature, args, kwargs):
    positions = [i for i in range(len(args)) if i not in excluded]
    names = [k for k in kwargs if k not in excluded]
    arrays = [nd(args[i]) for i in positions] + [nd(kwargs[k]) for k in names]
    cores = [()] * len(arrays)
    if signature is not None:
        core_inputs, _ = _core_dims(signature)
        if len(core_inputs) != len(arrays):
            raise TypeError(f"vectorize: signature {signature!r} names {len(core_inputs)} inputs, got {len(arrays)}")
        cores = core_inputs
    batch = np.broadcast_shapes(*(a.shape[:a.ndim - len(c)] for a, c in zip(arrays, cores)))
    results = []
    for index in np.ndindex(*batch):
        call_args, call_kwargs = list(args), dict(kwargs)
        for slot, (array, core) in enumerate(zip(arrays, cores)):
            lead = array.shape[:array.ndim - len(core)]
            item = np.broadcast_to(array, batch + array.shape[array.ndim - len(core):])[index] if lead != batch \
                else array[index]
            value = out(np.asarray(item))
            if slot < len(positions):
                call_args[positions[slot]] = value
            else:
                call_kwargs[names[slot - len(positions)]] = value
        results.append(pyfunc(*call_args, **call_kwargs))
    if not results:
        raise ValueError("vectorize: cannot call the function on an empty batch")
    if isinstance(results[0], tuple):
        return tuple(out(np.stack([np.asarray(r[i]) for r in results]).reshape(batch + np.shape(results[0][i])))
                     for i in range(len(results[0])))
    return out(np.stack([np.asarray(r) for r in results]).reshape(batch + np.shape(results[0])))


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """func1d applied to each 1-D slice of arr along `axis` (a Python loop; under a derivative the call is
    rewritten into vmap over the slices, frontend/normalize/per_slice_calls.py, or refused)."""
    arr = nd(arr)
    moved = np.moveaxis(arr, axis, -1)
    results = [np.asarray(func1d(out(moved[index]), *args, **kwargs)) for index in np.ndindex(*moved.shape[:-1])]
    stacked = np.stack(results).reshape(moved.shape[:-1] + results[0].shape)
    if results[0].ndim == 0:
        return out(stacked)
    axis = axis % arr.ndim
    return out(np.moveaxis(stacked, list(range(moved.ndim - 1, stacked.ndim)),
                           list(range(axis, axis + results[0].ndim))))


def apply_over_axes(func, a, axes):
    """func(a, axis) applied for each axis in turn, keeping the reduced axis (refused under a derivative)."""
    result = out(nd(a))
    for axis in np.atleast_1d(axes).tolist():
        reduced = func(result, axis)
        if np.ndim(reduced) == np.ndim(result) - 1:
            reduced = out(np.expand_dims(np.asarray(reduced), axis))
        elif np.ndim(reduced) != np.ndim(result):
            raise ValueError("function is not returning an array of the correct shape")
        result = reduced
    return result


def piecewise(x, condlist, funclist, *args, **kw):
    """NumPy's piecewise: funclist[i] where condlist[i] holds, the extra function (or 0) elsewhere
    (under a derivative the call is rewritten piece by piece, frontend/normalize/per_slice_calls.py, or
    refused)."""
    x = nd(x)
    condlist = [np.asarray(nd(c), dtype=bool) for c in (condlist if isinstance(condlist, (list, tuple))
                                                         and np.ndim(condlist[0]) > 0 else [condlist])]
    funcs = [(lambda f: (lambda v, *a, **k: np.asarray(f(out(v), *a, **k))))(f) if callable(f) else f
             for f in funclist]
    return out(np.asarray(np.piecewise(x, condlist, funcs, *args, **kw), dtype=_result_dtype(x)))


def _result_dtype(x):
    return F32 if x.dtype.kind in "biu" else x.dtype


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """function(*indices) for the index grids of `shape` (refused under a derivative)."""
    dtype = F32 if dtype is float else dtype
    grids = np.indices(shape, dtype=dtype)
    return function(*(out(g) for g in grids), **kwargs)


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """The bin edges np.histogram would use (they move with the data when range is None: refused under a
    derivative)."""
    a = nd(inexact_arg(a))
    return out(np.asarray(np.histogram_bin_edges(a, bins=_plain(bins), range=range, weights=_plain(weights)),
                          dtype=a.dtype))


def histogram(a, bins=10, range=None, weights=None, density=None):
    """(counts or densities, bin edges) as np.histogram (refused under a derivative)."""
    a = nd(inexact_arg(a))
    hist, edges = np.histogram(a, bins=_plain(bins), range=range, weights=_plain(weights), density=density)
    return out(np.asarray(hist, dtype=a.dtype)), out(np.asarray(edges, dtype=a.dtype))     # float counts, as JAX


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):
    """(counts, x edges, y edges) as np.histogram2d (refused under a derivative)."""
    x, y = nd(inexact_arg(x)), nd(inexact_arg(y))
    hist, xe, ye = np.histogram2d(x, y, bins=_plain(bins), range=range, weights=_plain(weights), density=density)
    dtype = np.result_type(x, y)
    counts = dtype if (density or weights is not None) else I32                   # int32 counts, as JAX
    return out(np.asarray(hist, dtype=counts)), out(np.asarray(xe, dtype=dtype)), out(np.asarray(ye, dtype=dtype))


def histogramdd(sample, bins=10, range=None, weights=None, density=None):
    """(counts, [edges per dimension]) as np.histogramdd (refused under a derivative)."""
    sample = nd(inexact_arg(sample))
    hist, edges = np.histogramdd(sample, bins=_plain(bins), range=range, weights=_plain(weights), density=density)
    counts = sample.dtype if (density or weights is not None) else I32           # int32 counts, as JAX
    return out(np.asarray(hist, dtype=counts)), [out(np.asarray(e, dtype=sample.dtype)) for e in edges]


def _plain(value):
    if value is None or isinstance(value, (int, str)):
        return value
    return nd(value)


def roots(p, *, strip_zeros=True):
    """The roots of the polynomial with coefficients p (complex; refused under a derivative)."""
    p = nd(inexact_arg(p))
    if not strip_zeros and p.size and p[0] == 0:
        raise ValueError("roots: strip_zeros=False with a leading zero is not supported by astjax")
    complex_dtype = np.result_type(p.dtype, np.complex64)
    return out(np.asarray(np.roots(p), dtype=complex_dtype))


def poly(seq_of_zeros):
    """The coefficients of the monic polynomial with the given roots (of a square matrix: its characteristic
    polynomial); refused under a derivative."""
    seq = nd(inexact_arg(seq_of_zeros))
    return out(np.asarray(np.poly(seq), dtype=np.result_type(seq.dtype, F32)))


def polydiv(u, v, *, trim_leading_zeros=False):
    """(quotient, remainder) of polynomial division (refused under a derivative)."""
    u, v = promote_inexact(u, v)
    u, v = nd(u), nd(v)
    q, r = np.polydiv(u, v)
    dtype = np.result_type(u, v)
    if not trim_leading_zeros:
        r = np.concatenate([np.zeros(builtins.max(u.size - r.size, 0), dtype=dtype), r])
    return out(np.asarray(q, dtype=dtype)), out(np.asarray(r, dtype=dtype))


def sort_complex(a):
    """a sorted by real part, then imaginary part, as complex values (refused under a derivative)."""
    a = nd(a)
    complex_dtype = np.result_type(a.dtype, np.complex64)
    return out(np.asarray(np.sort_complex(a), dtype=complex_dtype))


# ------------------------------------------------------------------ input, output, printing
def load(file, *args, **kwargs):
    """np.load, the arrays as astjax arrays."""
    loaded = np.load(file, *args, **kwargs)
    return out(loaded) if isinstance(loaded, np.ndarray) else loaded


def save(file, arr, allow_pickle=True):
    """np.save of an astjax array."""
    return np.save(file, nd(arr), allow_pickle=allow_pickle)


def savez(file, *args, **kwds):
    """np.savez of astjax arrays."""
    return np.savez(file, *(nd(a) for a in args), **{k: nd(v) for k, v in kwds.items()})


def fromfile(*args, **kwargs):
    """np.fromfile as an astjax array."""
    return out(np.fromfile(*args, **kwargs))


def frombuffer(buffer, dtype=float, count=-1, offset=0):
    """The values in `buffer` (bytes) as an astjax array."""
    return out(np.array(np.frombuffer(buffer, dtype=dtype, count=count, offset=offset)))


def fromstring(string, dtype=float, count=-1, *, sep):
    """The numbers in a text string as an astjax array."""
    return out(np.fromstring(string, dtype=dtype, count=count, sep=sep))


def fromiter(iterable, dtype, count=-1):
    """The values of `iterable` as an astjax array (refused under a derivative: use jnp.array on a list)."""
    return out(np.fromiter(iterable, dtype=dtype, count=count))


def from_dlpack(x, /, *, device=None, copy=None):
    """An astjax array from an object with the DLPack protocol (a CPU copy)."""
    return out(np.array(np.from_dlpack(x)))


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
    """np.array_repr of the array's values."""
    return np.array_repr(nd(arr), max_line_width, precision, suppress_small)


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    """np.array_str of the array's values."""
    return np.array_str(nd(a), max_line_width, precision, suppress_small)


def get_printoptions():
    """NumPy's print options (astjax arrays print as NumPy arrays)."""
    return np.get_printoptions()


def set_printoptions(*args, **kwargs):
    """Set NumPy's print options (astjax arrays print as NumPy arrays)."""
    return np.set_printoptions(*args, **kwargs)


@contextlib.contextmanager
def printoptions(*args, **kwargs):
    """NumPy's print options inside a `with` block."""
    with np.printoptions(*args, **kwargs) as options:
        yield options
