"""astjax.Array: an immutable NumPy array with JAX's functional `.at[]` updates.

An Array is a subclass of `numpy.ndarray`, so NumPy, Numba and the generated
reference code read it without a copy. What it adds is JAX's contract:

* item assignment raises `TypeError` (use `x.at[i].set(v)`),
* in-place operators (`x += 1`) rebind the name to a new array instead of
  writing through every alias,
* results of arithmetic stay Arrays, 0-d results included (NumPy would return
  a bare scalar), so `.block_until_ready()` and `.device` always exist.
"""
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
    arr = np.asarray(value, dtype=dtype)
    out = arr.view(Array)
    return out


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

    def _rebind(op):
        def method(self, other):
            if getattr(type(other), "__array_ufunc__", 0) is None:
                return NotImplemented       # `other` takes the operation over (its reflected method)
            return op(self, other)
        method.__doc__ = "Return a new array (astjax arrays are immutable)."
        return method

    __iadd__ = _rebind(np.add)
    __isub__ = _rebind(np.subtract)
    __imul__ = _rebind(np.multiply)
    __itruediv__ = _rebind(np.true_divide)
    __ifloordiv__ = _rebind(np.floor_divide)
    __ipow__ = _rebind(np.power)
    __imod__ = _rebind(np.mod)
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

    def astype(self, dtype, copy=True, **kwargs):
        return wrap(np.asarray(self).astype(dtypes.canonicalize(dtype), copy=copy))

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        for i in range(self.shape[0]):
            yield self[i]


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


def _in_bounds(shape, index, values):
    """(index, values) without the updates whose integer index is out of bounds: JAX drops those.

    Handles integer and integer-array indices (and tuples of them); any other
    index is returned as it is (NumPy then raises for an out-of-bounds integer).
    """
    parts = index if isinstance(index, tuple) else (index,)
    if len(parts) > len(shape) or not all(
            isinstance(p, (int, np.integer)) or (isinstance(p, np.ndarray) and p.dtype.kind in "iu") for p in parts):
        return index, values
    arrays = np.broadcast_arrays(*[np.asarray(p) for p in parts])
    valid = np.ones(arrays[0].shape, dtype=bool)
    for p, n in zip(arrays, shape):
        valid &= (p >= -n) & (p < n)
    if valid.all():
        return index, values
    rest = shape[len(parts):]
    values = np.broadcast_to(values, arrays[0].shape + tuple(rest))
    return tuple(p[valid] for p in arrays), values[valid]


class _IndexUpdateRef:
    """`x.at[index]`: each method returns a new array, leaving `x` untouched."""

    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array = array
        self.index = _index(index)

    def get(self, **kwargs):
        return wrap(np.asarray(self.array)[self.index])

    def _scatter(self, ufunc, values):
        out = np.array(self.array)
        index, values = _in_bounds(out.shape, self.index, np.asarray(values))
        if ufunc is None:
            out[index] = values
        else:
            # ufunc.at accumulates repeated indices, like JAX's scatter.
            ufunc.at(out, index, values.astype(out.dtype, copy=False))
        return out.view(Array)

    def set(self, values, **kwargs):
        return self._scatter(None, values)

    def add(self, values, **kwargs):
        return self._scatter(np.add, values)

    def subtract(self, values, **kwargs):
        return self._scatter(np.subtract, values)

    def multiply(self, values, **kwargs):
        return self._scatter(np.multiply, values)

    mul = multiply

    def divide(self, values, **kwargs):
        return self._scatter(np.true_divide, values)

    def power(self, values, **kwargs):
        return self._scatter(np.power, values)

    def min(self, values, **kwargs):
        return self._scatter(np.minimum, values)

    def max(self, values, **kwargs):
        return self._scatter(np.maximum, values)
