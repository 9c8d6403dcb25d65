"""Windows, index arithmetic and shape queries: results that carry no derivative.

Each is declared non-differentiable in astjax/rules/nondifferentiable.py with
its reason: the windows depend only on their length, the index functions give
integers (int32, JAX's default int), the shape queries only read shapes and
types.
"""
import numpy as np

from ._promote import F32, I32, nd as _nd, out as _out


def _window(numpy_window, name):
    def window(M):
        return _out(np.asarray(numpy_window(int(M)), dtype=F32))
    window.__name__ = window.__qualname__ = name
    window.__doc__ = f"NumPy's {name} window of length M, float32 (it depends only on M)."
    return window


bartlett = _window(np.bartlett, "bartlett")
blackman = _window(np.blackman, "blackman")
hamming = _window(np.hamming, "hamming")
hanning = _window(np.hanning, "hanning")


def broadcast_shapes(*shapes):
    """The shape the given shapes broadcast to (a tuple of ints)."""
    return np.broadcast_shapes(*shapes)


def isscalar(element):
    """Whether `element` is a scalar: a Python or NumPy number, or a 0-d array (as JAX says)."""
    return bool(np.isscalar(element) or (isinstance(element, np.ndarray) and element.ndim == 0))


def iterable(y):
    """Whether `y` can be iterated over."""
    return bool(np.iterable(y))


def unravel_index(indices, shape):
    """The coordinates of flat `indices` in an array of `shape`: a tuple of int32 arrays."""
    return tuple(_out(np.asarray(c, dtype=I32)) for c in np.unravel_index(_nd(indices), shape))


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """The flat indices of the coordinates in `multi_index` in an array of shape `dims` (int32)."""
    coordinates = tuple(_nd(c) for c in multi_index)
    return _out(np.asarray(np.ravel_multi_index(coordinates, dims, mode=mode, order=order), dtype=I32))


def lexsort(keys, axis=-1):
    """The indices that sort by the last key, then the one before, ... (int32)."""
    return _out(np.asarray(np.lexsort(tuple(_nd(k) for k in keys), axis=axis), dtype=I32))


def argpartition(a, kth, axis=-1):
    """Indices that partition `a` around its `kth` element (int32)."""
    return _out(np.asarray(np.argpartition(_nd(a), kth, axis=axis), dtype=I32))
