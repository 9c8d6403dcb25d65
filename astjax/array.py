"""astjax.Array: an immutable NumPy array with JAX's functional `.at[]` updates.

An Array is a subclass of `numpy.ndarray`, so NumPy, Numba and the generated
reference code read it without a copy. What it adds is JAX's contract:

* item assignment raises `TypeError` (use `x.at[i].set(v)`),
* in-place operators (`x += 1`) rebind the name to a new array instead of
  writing through every alias,
* results of arithmetic stay Arrays, 0-d results included (NumPy would return
  a bare scalar), so `.block_until_ready()` and `.device` always exist.
"""
import math

import numpy as np

from . import dtypes

__all__ = ["Array", "Device", "wrap", "cpu_device"]


class Device:
    """A place where arrays live. astjax computes on the host CPU."""

    def __init__(self, platform="cpu", id=0):
        self.platform = platform
        self.id = id

    @property
    def device_kind(self):
        return self.platform

    def __repr__(self):
        return f"CpuDevice(id={self.id})" if self.platform == "cpu" else f"{self.platform}:{self.id}"

    def __eq__(self, other):
        return isinstance(other, Device) and (self.platform, self.id) == (other.platform, other.id)

    def __hash__(self):
        return hash((self.platform, self.id))


cpu_device = Device("cpu", 0)


def wrap(value, dtype=None):
    """View `value` as an Array (no copy when it already is an ndarray of `dtype`)."""
    if type(value) is Array and (dtype is None or value.dtype == dtype):
        return value
    return np.asarray(value, dtype=dtype).view(Array)


def raise_object_array(arr):
    """An astjax array holds numbers: a dict, a list of unequal rows, None or a gradient tree taken as one entry
    would be an object array, which no astjax operation computes with correctly (JAX has none)."""
    odd = next((type(v).__name__ for v in arr.flat if not isinstance(v, (int, float, complex, np.number))),
               "Python object")
    raise TypeError(f"astjax arrays hold numbers, and this value would be an object array holding a {odd} "
                    f"(JAX has no object arrays either): pass arrays or numbers; to work with a dict or list of "
                    f"arrays, map over its leaves with astjax.tree_util.tree_map.")


_PLAIN_SCALARS = (int, float, complex, bool)
_DUNDER = {"add": "add", "subtract": "sub", "multiply": "mul", "divide": "truediv", "true_divide": "truediv",
           "floor_divide": "floordiv", "remainder": "mod", "power": "pow"}


_PROMOTE = []


def _promotion(inexact):
    """astjax.numpy's promote (or promote_inexact), imported on first use (it imports this module)."""
    if not _PROMOTE:
        from .numpy._promote import promote, promote_inexact
        _PROMOTE.extend([promote, promote_inexact])
    return _PROMOTE[1 if inexact else 0]


class Array(np.ndarray):
    """An immutable n-dimensional array (see the module docstring)."""

    __array_priority__ = 100.0

    def __array_wrap__(self, array, context=None, return_scalar=False):
        # Keep 0-d results as Arrays, as JAX does.
        if isinstance(array, np.ndarray):
            return array.view(Array)
        return np.asarray(array).view(Array)

    def __getitem__(self, index):
        out = super().__getitem__(_index(index))
        return out if isinstance(out, np.ndarray) else np.asarray(out).view(Array)

    # ----------------------------------------------------------- immutability
    def __setitem__(self, index, value):
        raise TypeError(
            "astjax arrays are immutable: use `x = x.at[index].set(value)` "
            "(or .add, .multiply, .min, .max) instead of `x[index] = value`."
        )

    # ------------------------------------------- JAX's promotion for operators
    # NumPy's operators promote `bool_array * 1.0` to float64 and `1 - bool_array` to int64; JAX's
    # Python scalars are weak (float32, int32). Operands meet on JAX's lattice (astjax.numpy._promote);
    # anything else (lists, containers of adjoints) is left to NumPy's operator.
    def _binary(op, reflected=False, inexact=False, inplace=False):
        name = op.__name__
        plain = getattr(np.ndarray, f"__{'r' if reflected else ''}{_DUNDER[name]}__")

        def method(self, other):
            kind = self.dtype.kind
            t = type(other)
            if (t is float or t is int) and kind in "fc":          # NumPy agrees with JAX: the fast path
                return op(other, self) if reflected else op(self, other)
            if t in _PLAIN_SCALARS or isinstance(other, (np.ndarray, np.generic)):
                if isinstance(other, np.ndarray) and other.dtype is self.dtype and (kind in "fc" or not inexact):
                    return op(other, self) if reflected else op(self, other)
                x, y = (other, self) if reflected else (self, other)
                x, y = _promotion(inexact)(x, y)
                return op(x, y)
            if inplace:
                if getattr(t, "__array_ufunc__", 0) is None:
                    return NotImplemented       # `other` takes the operation over (its reflected method)
                return op(self, other)
            return plain(self, other)
        method.__doc__ = f"`{name}` with JAX's type promotion" + (
            " (a new array: astjax arrays are immutable)." if inplace else ".")
        return method

    __add__, __radd__, __iadd__ = _binary(np.add), _binary(np.add, True), _binary(np.add, inplace=True)
    __sub__, __rsub__ = _binary(np.subtract), _binary(np.subtract, True)
    __isub__ = _binary(np.subtract, inplace=True)
    __mul__, __rmul__ = _binary(np.multiply), _binary(np.multiply, True)
    __imul__ = _binary(np.multiply, inplace=True)
    __truediv__, __rtruediv__ = _binary(np.true_divide, inexact=True), _binary(np.true_divide, True, inexact=True)
    __itruediv__ = _binary(np.true_divide, inexact=True, inplace=True)
    __floordiv__, __rfloordiv__ = _binary(np.floor_divide), _binary(np.floor_divide, True)
    __ifloordiv__ = _binary(np.floor_divide, inplace=True)
    __mod__, __rmod__, __imod__ = _binary(np.mod), _binary(np.mod, True), _binary(np.mod, inplace=True)
    __pow__, __rpow__, __ipow__ = _binary(np.power), _binary(np.power, True), _binary(np.power, inplace=True)
    del _binary

    def _rebind(op):
        def method(self, other):
            if getattr(type(other), "__array_ufunc__", 0) is None:
                return NotImplemented       # `other` takes the operation over (its reflected method)
            return op(self, other)
        method.__doc__ = "Return a new array (astjax arrays are immutable)."
        return method

    __imatmul__ = _rebind(np.matmul)
    __iand__ = _rebind(np.bitwise_and)
    __ior__ = _rebind(np.bitwise_or)
    __ixor__ = _rebind(np.bitwise_xor)
    del _rebind

    # ------------------------------------------------------------ JAX surface
    @property
    def at(self):
        """Functional index updates: `x.at[i].set(v)` returns a new array."""
        return _IndexUpdateHelper(self)

    @property
    def device(self):
        return cpu_device

    def devices(self):
        return {cpu_device}

    def block_until_ready(self):
        """Wait until the value is computed (host arrays always are)."""
        return self

    def copy(self, order="C"):
        return np.array(self, order=order).view(Array)

    def item(self, *args):
        return np.asarray(self).item(*args)

    def tolist(self):
        return np.asarray(self).tolist()

    def __reduce__(self):
        # Pickle as a plain array, re-wrapped on load.
        return (wrap, (np.asarray(self),))

    def __repr__(self):
        body = np.array2string(np.asarray(self), separator=", ", prefix="Array(")
        return f"Array({body}, dtype={self.dtype.name})"

    def __str__(self):
        return str(np.asarray(self))

    def __hash__(self):
        raise TypeError("unhashable type: 'Array'")

    def __bool__(self):
        return bool(np.asarray(self))

    def __float__(self):
        return float(np.asarray(self))

    def __int__(self):
        return int(np.asarray(self))

    def __index__(self):
        return np.asarray(self).__index__()

    # `round(x[0], 2)` and `math.trunc(x[0])` on an item of a NumPy array argument work on the NumPy
    # scalar the original program holds (ndarray defines neither); an astjax 0-d array behaves the same.
    def __round__(self, ndigits=None):
        if self.ndim == 0:
            return round(np.asarray(self)[()], ndigits)
        rounded = np.round(np.asarray(self), 0 if ndigits is None else ndigits)
        return wrap(rounded if ndigits is not None else rounded.astype(dtypes.default_int))

    def __trunc__(self):
        if self.ndim != 0:
            raise TypeError("only 0-d arrays can be truncated to a Python int")
        return math.trunc(np.asarray(self).item())

    def astype(self, dtype, copy=True, **kwargs):
        return wrap(np.asarray(self).astype(dtypes.canonicalize(dtype, like=self), copy=copy))

    def __iter__(self):
        # Raise here, not lazily from a generator: `iter(x)` of a 0-d array fails at once, so that
        # `np.iterable(x)` answers False as it does for NumPy's 0-d arrays and scalars.
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))


class _IndexUpdateHelper:
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index):
        return _IndexUpdateRef(self.array, index)

    def __repr__(self):
        return f"_IndexUpdateHelper({self.array!r})"


def _index(index):
    """Turn Arrays inside an index into plain arrays NumPy accepts."""
    if isinstance(index, tuple):
        return tuple(_index(i) for i in index)
    if isinstance(index, Array):
        return np.asarray(index)
    return index


INDEX_MODES = (None, "drop", "fill", "clip", "promise_in_bounds")


def _check_mode(mode):
    if mode not in INDEX_MODES:
        raise ValueError(f"mode must be one of {INDEX_MODES[1:]} or None, not {mode!r}")


def _default_fill(dtype):
    """JAX's fill for an out-of-bounds read: NaN for inexact dtypes, the smallest signed integer, the
    largest unsigned one, True for bools."""
    if dtype.kind in "fc":
        return np.nan
    if dtype.kind == "i":
        return np.iinfo(dtype).min
    if dtype.kind == "u":
        return np.iinfo(dtype).max
    return True


def _clipped_index(shape, index, what):
    """(index with every integer part moved inside `shape`, mask of the positions that were inside).

    Negative positions count from the end first (-1 is the last), as in JAX. The mask is None when
    the index has no integer part (slices never leave the array). Integer and integer-array indices,
    and tuples of them after leading full slices, are handled; other mixes raise a clear error.
    """
    parts = index if isinstance(index, tuple) else (index,)
    lead = 0
    while lead < len(parts) and isinstance(parts[lead], slice) and parts[lead] == slice(None):
        lead += 1

    def integral(p):
        return (isinstance(p, (int, np.integer)) and not isinstance(p, bool)) or (
            isinstance(p, np.ndarray) and p.dtype.kind in "iu")

    if not any(integral(p) for p in parts):
        return index, None
    if len(parts) > len(shape) or not all(integral(p) for p in parts[lead:]):
        raise IndexError(f"x.at[{index!r}].{what} with mode 'clip' or 'fill' takes integer or integer-array "
                         "indices (after leading `:`); write the index as integer arrays")
    arrays = np.broadcast_arrays(*[np.asarray(p) for p in parts[lead:]])
    valid = np.ones(arrays[0].shape, dtype=bool)
    clipped = []
    for p, n in zip(arrays, shape[lead:]):
        valid &= (p >= -n) & (p < n)
        clipped.append(np.clip(np.where(p < 0, p + n, p), 0, n - 1))
    return (slice(None),) * lead + tuple(clipped), valid


def _in_bounds(shape, index, values):
    """(index, values) without the updates whose integer index is out of bounds: JAX drops those.

    Handles integer and integer-array indices (and tuples of them); any other
    index is returned as it is (NumPy then raises for an out-of-bounds integer).
    """
    parts = index if isinstance(index, tuple) else (index,)
    lead = 0            # leading full slices (vmap's batched index `x[:, i]`) keep their whole axes
    while lead < len(parts) and isinstance(parts[lead], slice) and parts[lead] == slice(None):
        lead += 1
    if len(parts) > len(shape) or lead == len(parts) or not all(
            isinstance(p, (int, np.integer)) or (isinstance(p, np.ndarray) and p.dtype.kind in "iu")
            for p in parts[lead:]):
        return index, values
    arrays = np.broadcast_arrays(*[np.asarray(p) for p in parts[lead:]])
    valid = np.ones(arrays[0].shape, dtype=bool)
    for p, n in zip(arrays, shape[lead:]):
        valid &= (p >= -n) & (p < n)
    if valid.all():
        return index, values
    rest = shape[len(parts):]
    values = np.broadcast_to(values, tuple(shape[:lead]) + arrays[0].shape + tuple(rest))
    full = (slice(None),) * lead
    return full + tuple(p[valid] for p in arrays), values[full + (valid,)]


class _IndexUpdateRef:
    """`x.at[index]`: each method returns a new array, leaving `x` untouched.

    The keywords are JAX's. `mode` says what an out-of-bounds integer index does: updates drop it by
    default ("drop", "fill", "promise_in_bounds") or move it to the nearest edge ("clip"); `get` raises
    for it by default, as `x[index]` does, clamps it with "clip" and reads `fill_value` there with "fill"
    or "drop" (NaN for floats by default). `indices_are_sorted` and `unique_indices` are hints, accepted
    and not needed.
    """

    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array = array
        self.index = _index(index)

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None, fill_value=None):
        array = np.asarray(self.array)
        _check_mode(mode)
        if mode in ("fill", "drop"):
            index, valid = _clipped_index(array.shape, self.index, "get")
            taken = array[index]
            if valid is None:
                return wrap(taken)
            fill = _default_fill(array.dtype) if fill_value is None else fill_value
            mask = valid.reshape(valid.shape + (1,) * (taken.ndim - valid.ndim))
            return wrap(np.where(mask, taken, np.asarray(fill, dtype=array.dtype)))
        if mode == "clip":
            return wrap(array[_clipped_index(array.shape, self.index, "get")[0]])
        return wrap(array[self.index])

    def _scatter(self, ufunc, values, mode):
        _check_mode(mode)
        out = np.array(self.array)
        if mode == "clip":
            index, values = _clipped_index(out.shape, self.index, "update")[0], np.asarray(values)
        else:
            index, values = _in_bounds(out.shape, self.index, np.asarray(values))
        if ufunc is None:
            out[index] = values
        else:
            # ufunc.at accumulates repeated indices, like JAX's scatter.
            ufunc.at(out, index, values.astype(out.dtype, copy=False))
        return out.view(Array)

    def set(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._scatter(None, values, mode)

    def add(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._scatter(np.add, values, mode)

    def subtract(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._scatter(np.subtract, values, mode)

    def multiply(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._scatter(np.multiply, values, mode)

    mul = multiply

    def divide(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._scatter(np.true_divide, values, mode)

    def power(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._scatter(np.power, values, mode)

    def min(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._scatter(np.minimum, values, mode)

    def max(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._scatter(np.maximum, values, mode)
